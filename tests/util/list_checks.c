// list_checks.c — see list_checks.h.
#include "list_checks.h"

#include "test_util.h"

// One run's result, by particle id: positions (4n), velocities (4n),
// densities (n); `listed` = particles whose last list was read.
typedef struct list_run {
    uint32_t count; // 0: the run failed
    float *state;
    uint32_t listed, longest;
} list_run;

static list_run run_with_lists(const list_solver *ls, cs_context *ctx, const char *scene, bool lists,
                               uint32_t slots_read, float radius_scale, uint32_t substeps)
{
    list_run r = {0};
    void *solver = ls->create(ctx, scene, lists);
    if (!solver)
        return r;
    cs_neighbours *nb = ls->neighbours(solver);
    if (lists)
        nb->radius *= radius_scale;
    if (lists && slots_read)
        cs_buffer_upload(ctx, &nb->state, &slots_read, 4, CS_NB_SLOTS * 4);
    uint32_t slots = lists ? (slots_read ? slots_read : nb->slots) : 0;
    ls->run(solver, substeps);
    cs_fluid *f = ls->fluid(solver);
    uint32_t n = f->count;
    r.count = n;
    r.state = calloc((size_t)n * 9 + 1, sizeof(float));
    cs_fluid_download_by_id(f, r.state, r.state + 4 * n, r.state + 8 * n, NULL);
    uint32_t *counts = calloc((size_t)n + 1, 4);
    if (nb->capacity && n) // a walk-only run may have no lists at all
        cs_buffer_download(ctx, &nb->counts, counts, (VkDeviceSize)n * 4, 0);
    for (uint32_t i = 0; i < n; i++) {
        r.listed += lists && counts[i] <= slots;
        if (counts[i] != 0xffffffffu)
            r.longest = CS_MAX(r.longest, counts[i]);
    }
    free(counts);
    ls->destroy(solver);
    return r;
}

void list_check_match_walk(const list_solver *ls, cs_context *ctx, const char *what, const char *scene,
                           uint32_t substeps, uint32_t slots_read)
{
    list_run on = run_with_lists(ls, ctx, scene, true, slots_read, 1.0f, substeps);
    list_run off = run_with_lists(ls, ctx, scene, false, 0, 1.0f, substeps);
    uint32_t n = on.count;
    CHECK(n == off.count && n > 0, "%s: %u vs %u particles", what, n, off.count);
    uint32_t diff = 0;
    for (uint32_t i = 0; n == off.count && i < n; i++)
        if (memcmp(on.state + 4 * i, off.state + 4 * i, 16) ||
            memcmp(on.state + 4 * (n + i), off.state + 4 * (n + i), 16) ||
            memcmp(on.state + 8 * n + i, off.state + 8 * n + i, 4))
            diff++;
    fprintf(stderr, "%s lists vs cell walk, %s: %u substeps, %u particles, %u differ; the last loops read the list "
                    "for %u (longest list %u)\n",
            ls->name, what, substeps, n, diff, on.listed, on.longest);
    CHECK(diff == 0, "%s: %u of %u particles differ between neighbour lists and the cell walk", what, diff, n);
    if (slots_read)
        CHECK(on.listed > n / 10 && on.listed < n - n / 10, "%s: %u of %u particles read their list: want a mix",
              what, on.listed, n);
    else
        CHECK(on.listed > n / 2, "%s: only %u of %u particles read their list", what, on.listed, n);
    free(on.state);
    free(off.state);
}

void list_check_are_read(const list_solver *ls, cs_context *ctx, const char *what, const char *scene,
                         uint32_t substeps)
{
    list_run shorter = run_with_lists(ls, ctx, scene, true, 0, 0.999f, substeps);
    list_run off = run_with_lists(ls, ctx, scene, false, 0, 1.0f, substeps);
    uint32_t n = shorter.count, diff = 0;
    for (uint32_t i = 0; n == off.count && i < n; i++)
        diff += memcmp(shorter.state + 4 * i, off.state + 4 * i, 16) != 0;
    fprintf(stderr, "%s lists 0.1%% too short, %s: %u of %u positions differ from the cell walk\n", ls->name, what,
            diff, n);
    CHECK(n == off.count && diff > 0, "%s: lists missing pairs near h changed nothing: the loops do not read them",
          what);
    free(shorter.state);
    free(off.state);
}
