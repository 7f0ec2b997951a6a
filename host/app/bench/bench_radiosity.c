// bench_radiosity.c — `cistern bench --radiosity [SCENE]`: the radiosity of
// a scene's geometry (default the Cornell box) at a few patch sizes: the
// compile time (form factors on the CPU, visibility rays on the GPU) and
// the GPU time of every pass of one frame (direct light, up-sweeps,
// gathers, push-downs),
// median over --steps frames after --warmup; then the same for feedback
// frames (one gather each, cs_radiosity_gpu_record_feedback). Printed as a table
// (docs/benchmarks.md, docs/light.md). A size whose links do not fit one
// storage buffer of the device is reported as such and the sweep stops.
// Then the light probes (pipelines/light/probes.h) over the same geometry at
// 10^3 and 20^3 probes (--probes: other counts, each the nearest n^3),
// PROBE_RAYS rays each: "probes: gather" and "probes: finish", median over
// the same frames (the patch sweep itself runs without the scene's own
// probes). The probe rows follow the --patches sweep too, so the one run
// tools/bench_gpu.sh makes measures both.
//
// With --patches LIST the sweep takes patch counts instead (1k, 8k, 32k,
// 100k, 1M for issue 11): each at the patch_size whose count is nearest
// (cs_radiosity_patch_count, bisection), then the probe rows. Before compiling a
// size it estimates its links and compile time from the largest size
// compiled so far, both x (count ratio)^1.1, a little above the receiver
// clusters' link growth (N^0.96 on the Cornell box; with patch receivers
// it was N^1.5: rooms_radiosity, 1000 -> 39922 patches, estimated 59.7 M
// links, compiled 54 M); a size whose estimated links or patches do
// not fit the device's storage buffers (the links: two of
// maxStorageBufferRange, cs_radiosity_links_fit) or memory heaps, or whose estimated compile passes
// COMPILE_BUDGET_S, is reported with those numbers and not compiled.
//
// With a list of scenes (A,B,C) each is compiled at its own patch_size,
// one row a scene, the estimate made from the largest compiled before:
// tools/bench_mesh_scene.sh gives it the generated mesh scene at 2 k to
// 50 k triangles.
#include "bench.h"

#include "buffer.h"
#include "geometry.h"
#include "radiosity.h"
#include "world_radiosity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Patch sizes of the sweep for the Cornell box: 988, 2038, 3668, 7330,
// 9938 patches (0.035 is the nearest to the seed's 7182). 0.02 (33.4 M
// links, 255 MiB) does not fit llvmpipe's 128 MiB storage buffers and
// took minutes to find out: left out.
static const double patch_sizes[] = {0.1, 0.07, 0.05, 0.035, 0.03};

// Probe grids of the probe rows without --probes (n^3: 1k and 8k probes),
// their rays and the patch size their radiosity is solved at (the gathers'
// cost hardly depends on it: rays walk the BVH of the scene's triangles).
static const uint32_t probe_sides[] = {10, 20};
#define PROBE_RAYS 256u
#define PROBE_PATCH_SIZE 0.1
// Longest estimated compile the --patches sweep starts (seconds).
#define COMPILE_BUDGET_S 1200.0
// Links and compile time against patch count: with receiver clusters the
// links grow about as N^0.96 on the Cornell box (docs/light.md, "Receiver
// clusters"), and they are the compile's cost; 1.1 to err on the large side.
#define COMPILE_GROWTH 1.1

// What one compiled size gave: the basis of the next size's estimates.
typedef struct compiled_size {
    uint32_t patches, links;
    double compile_s;
} compiled_size;

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, compare_doubles);
    return n ? v[n / 2] : 0.0;
}

// One patch size: compile, then time `steps` frames. False when it did not
// fit. `asked`: the patch count this size was chosen for (0: none); *done
// gets the compiled size.
static bool bench_size(cs_context *ctx, cs_scene *scene, double patch_size, uint32_t asked,
                       const cs_bench_options *opt, compiled_size *done)
{
    cs_scene_lighting *lighting = &scene->geometry->lighting;
    lighting->patch_size = patch_size;
    cs_world_radiosity part;
    cs_error err;
    char asked_text[16] = "—";
    if (asked)
        snprintf(asked_text, sizeof asked_text, "%u", asked);
    fprintf(stderr, "bench: compiling at patch_size %.4g...\n", patch_size);
    double t0 = cs_now_seconds();
    ctx->size_advice = "ask --patches for fewer patches";
    bool made = cs_world_radiosity_create(ctx, scene, &part, &err);
    ctx->size_advice = NULL;
    if (!made) {
        printf("| %s | %.4g | — | — | does not fit: %s |\n", asked_text, patch_size, err.msg);
        return false;
    }
    double compile = cs_now_seconds() - t0;
    fprintf(stderr, "bench: compiled %u patches, %u links in %.1f s; timing %u frames\n",
            part.compiled.patch_count, part.compiled.link_count, compile, opt->warmup + CS_MAX(opt->steps, 1u));
    *done = (compiled_size){part.compiled.patch_count, part.compiled.link_count, compile};
    uint32_t steps = CS_MAX(opt->steps, 1u);
    // Per frame: the total, direct light, all up-sweeps, all gathers, all
    // push-downs; then the same for a feedback frame (one gather).
    enum { TOTAL, DIRECT, UPSWEEP, GATHER, PUSHDOWN, FEEDBACK_TOTAL, FEEDBACK_UPSWEEP, FEEDBACK_GATHER,
           FEEDBACK_PUSHDOWN, COLUMNS };
    static const char *const pass_names[COLUMNS] = {
        NULL, "radiosity: direct", "radiosity: up-sweep", "radiosity: gather", "radiosity: push-down", NULL,
        "radiosity: up-sweep", "radiosity: gather", "radiosity: push-down"};
    double *ms = calloc((size_t)COLUMNS * steps, sizeof *ms);
    CS_ASSERT(ms, "out of memory");
    cs_recorder rec;
    cs_recorder_create(ctx, "bench radiosity", &rec);
    for (int feedback = 0; feedback < 2; feedback++) {
        uint32_t first = feedback ? FEEDBACK_TOTAL : TOTAL, last = feedback ? FEEDBACK_PUSHDOWN : PUSHDOWN;
        for (uint32_t s = 0; s < opt->warmup + steps; s++) {
            cs_recorder_begin(&rec);
            if (feedback)
                cs_radiosity_gpu_record_feedback(&rec, &part.gpu);
            else
                cs_world_radiosity_record(&part, &rec, s * (double)scene->dt);
            cs_recorder_submit_wait(&rec);
            if (s < opt->warmup)
                continue;
            uint32_t k = s - opt->warmup;
            for (uint32_t p = 0; p < rec.pass_count; p++)
                ms[first * steps + k] += rec.passes[p].ms;
            for (uint32_t c = first + 1; c <= last; c++)
                ms[c * steps + k] = fmax(cs_recorder_pass_ms(&rec, pass_names[c]), 0.0);
        }
    }
    cs_recorder_destroy(&rec);
    printf("| %s | %.4g | %u | %u | %u (%.0f MiB) | %.2f |", asked_text, patch_size, part.compiled.patch_count,
           part.compiled.cluster_count, part.compiled.link_count,
           part.compiled.link_count * (double)sizeof(cs_link) / (1 << 20), compile);
    for (uint32_t c = TOTAL; c < COLUMNS; c++) {
        printf(" %.2f |", median(&ms[c * steps], steps));
        if (c == GATHER) // the same per gather: a frame is bounces + 1 of them
            printf(" %.2f |", median(&ms[c * steps], steps) / (cs_world_radiosity_bounces(&part) + 1));
    }
    printf("\n");
    fflush(stdout);
    free(ms);
    cs_world_radiosity_destroy(ctx, &part);
    return true;
}

// samples[k] = the GPU ms of the passes named `name` in the frame just recorded (0
// when the frame had no such pass).
static void sample_pass(const cs_recorder *rec, const char *name, double *samples, uint32_t k)
{
    samples[k] = fmax(cs_recorder_pass_ms(rec, name), 0.0);
}

// One probe grid of side n: solve at PROBE_PATCH_SIZE, time the two probe
// passes. False when the device refused the grid (said in the row).
static bool bench_probes(cs_context *ctx, cs_scene *scene, uint32_t n, double patch_size, const cs_bench_options *opt)
{
    cs_scene_lighting *lighting = &scene->geometry->lighting;
    lighting->patch_size = patch_size;
    lighting->probes = (cs_scene_probes){.given = true, .resolution = {n, n, n}, .rays = PROBE_RAYS, .every = 1};
    uint32_t count = n * n * n;
    cs_world_radiosity part;
    cs_error err;
    if (!cs_world_radiosity_create(ctx, scene, &part, &err)) {
        printf("| %u (%u^3) | %u | — | — | does not fit: %s |\n", count, n, PROBE_RAYS, err.msg);
        return false;
    }
    uint32_t steps = CS_MAX(opt->steps, 1u);
    double *gather = calloc(steps, sizeof *gather), *finish = calloc(steps, sizeof *finish);
    CS_ASSERT(gather && finish, "out of memory");
    cs_recorder rec;
    cs_recorder_create(ctx, "bench probes", &rec);
    for (uint32_t s = 0; s < opt->warmup + steps; s++) {
        cs_recorder_begin(&rec);
        cs_world_radiosity_record(&part, &rec, s * (double)scene->dt);
        cs_recorder_submit_wait(&rec);
        if (s < opt->warmup)
            continue;
        sample_pass(&rec, "probes: gather", gather, s - opt->warmup);
        sample_pass(&rec, "probes: finish", finish, s - opt->warmup);
    }
    cs_recorder_destroy(&rec);
    double gather_ms = median(gather, steps), finish_ms = median(finish, steps);
    printf("| %u (%u^3) | %u | %.2f | %.2f | %.0f |\n", count, n, PROBE_RAYS, gather_ms, finish_ms,
           gather_ms * 1e6 / ((double)count * PROBE_RAYS));
    fflush(stdout);
    free(gather);
    free(finish);
    cs_world_radiosity_destroy(ctx, &part);
    return true;
}

// The probe rows: --probes' counts (each the nearest n^3), else probe_sides,
// over the radiosity at `patch_size`.
static void bench_probe_rows(cs_context *ctx, cs_scene *scene, double patch_size, const cs_bench_options *opt)
{
    printf("\nlight probes over the geometry, radiosity at patch_size %.3g:\n\n", patch_size);
    printf("| probes | rays | gather ms | finish ms | gather ns a ray |\n|---|---|---|---|---|\n");
    uint32_t rows = opt->probe_count ? opt->probe_count : (uint32_t)CS_ARRAY_COUNT(probe_sides);
    for (uint32_t i = 0; i < rows; i++) {
        uint32_t side = probe_sides[i % CS_ARRAY_COUNT(probe_sides)];
        if (opt->probe_count)
            side = (uint32_t)fmax(1.0, round(cbrt((double)opt->probes[i])));
        if (!bench_probes(ctx, scene, side, patch_size, opt))
            break;
    }
}

// The patch_size whose patch count is nearest `target` (*count gets it).
// Counts fall as the size grows: bisection on a log scale between the
// geometry's extent (one patch a triangle) and 1e-7 of it.
static double patch_size_for(const cs_geometry *g, uint32_t target, uint64_t *count)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < g->tri_count; i++) {
        const vec4 *v[3] = {&g->tris[i].v0, &g->tris[i].v1, &g->tris[i].v2};
        for (int k = 0; k < 3; k++) {
            const float p[3] = {v[k]->x, v[k]->y, v[k]->z};
            for (int a = 0; a < 3; a++)
                lo[a] = fmin(lo[a], p[a]), hi[a] = fmax(hi[a], p[a]);
        }
    }
    double extent = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                         (hi[2] - lo[2]) * (hi[2] - lo[2]));
    double small = extent * 1e-7, large = extent * 2.0; // count(small) >= target > count(large), or target tiny
    uint64_t small_count = cs_radiosity_patch_count(g->tris, g->tri_count, small);
    uint64_t large_count = cs_radiosity_patch_count(g->tris, g->tri_count, large);
    if (large_count >= target) {
        *count = large_count;
        return large;
    }
    for (int it = 0; it < 100 && large / small > 1.0 + 1e-12; it++) {
        double mid = sqrt(small * large);
        uint64_t mid_count = cs_radiosity_patch_count(g->tris, g->tri_count, mid);
        if (mid_count >= target)
            small = mid, small_count = mid_count;
        else
            large = mid, large_count = mid_count;
    }
    bool take_small = small_count - target <= target - large_count;
    *count = take_small ? small_count : large_count;
    return take_small ? small : large;
}

// Whether a size of `patches` may be compiled, judged from the largest
// size compiled before (`basis`, patches 0: none yet, compile it). False
// with the row printed when the estimate does not fit or takes too long.
static bool worth_compiling(cs_context *ctx, uint32_t asked, double patch_size, uint64_t patches,
                            const compiled_size *basis)
{
    cs_error err = {0};
    char bytes[32];
    if (!cs_buffer_check_size(ctx, "radiosity patches", patches * sizeof(cs_patch), &err)) {
        printf("| %u | %.4g | %llu | — | — | does not fit: %s |\n", asked, patch_size, (unsigned long long)patches,
               err.msg);
        return false;
    }
    if (basis->patches == 0)
        return true;
    double growth = pow((double)patches / basis->patches, COMPILE_GROWTH);
    double links = basis->links * growth, link_bytes = links * sizeof(cs_link);
    double compile_s = basis->compile_s * growth;
    cs_format_bytes((uint64_t)fmin(link_bytes, 1e18), bytes, sizeof bytes);
    if (links > (double)(1u << 30) || !cs_radiosity_links_fit(ctx, (uint64_t)fmin(links, 1e18), &err)) {
        printf("| %u | %.4g | %llu | — | ~%.3g M (%s), estimated: %u links at %u patches x (%.1fx)^%.1f | "
               "does not fit: %s |\n",
               asked, patch_size, (unsigned long long)patches, links / 1e6, bytes, basis->links, basis->patches,
               (double)patches / basis->patches, COMPILE_GROWTH,
               links > (double)(1u << 30) ? "more than the 2^30 links a compile holds" : err.msg);
        return false;
    }
    if (compile_s > COMPILE_BUDGET_S) {
        printf("| %u | %.4g | %llu | — | ~%.3g M (%s), estimated | not compiled: an estimated %.0f s compile "
               "(%.1f s at %u patches x (%.1fx)^%.1f), more than the bench's %.0f s |\n",
               asked, patch_size, (unsigned long long)patches, links / 1e6, bytes, compile_s, basis->compile_s,
               basis->patches, (double)patches / basis->patches, COMPILE_GROWTH, COMPILE_BUDGET_S);
        return false;
    }
    fprintf(stderr, "bench: %llu patches: about %.3g M links (%s), an estimated %.0f s compile\n",
            (unsigned long long)patches, links / 1e6, bytes, compile_s);
    return true;
}

// --patches: each count at its nearest patch size; sizes that cannot fit
// are reported and skipped (the next may still be tried).
static void sweep_patch_counts(cs_context *ctx, cs_scene *scene, const cs_bench_options *opt)
{
    compiled_size basis = {0};
    for (uint32_t k = 0; k < opt->patch_target_count; k++) {
        uint64_t patches;
        double patch_size = patch_size_for(scene->geometry, opt->patches[k], &patches);
        if (patches > CS_RADIOSITY_MAX_PATCHES) {
            printf("| %u | %.4g | %llu | — | — | does not fit: a compile makes at most %u patches |\n",
                   opt->patches[k], patch_size, (unsigned long long)patches, CS_RADIOSITY_MAX_PATCHES);
            continue;
        }
        if (!worth_compiling(ctx, opt->patches[k], patch_size, patches, &basis))
            continue;
        compiled_size done;
        if (bench_size(ctx, scene, patch_size, opt->patches[k], opt, &done) && done.patches > basis.patches)
            basis = done;
    }
}

// The header of bench_size's rows; `first`: what the first column holds.
static void print_table_header(const char *first)
{
    printf("| %s | patch_size | patches | clusters | links | compile s | frame ms | direct ms | "
           "up-sweeps ms | gathers ms | ms a gather | push-downs ms | feedback frame ms | its up-sweeps ms | "
           "its gather ms | its push-down ms |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
           first);
}

// SCENE,SCENE,...: one row a scene at its own patch_size (the generated
// mesh scenes of tools/mesh_scene.py at growing triangle counts, smallest
// first), each judged by worth_compiling from the largest compiled before.
static int bench_scene_list(const cs_bench_options *opt)
{
    cs_context ctx;
    cs_error err;
    char device[512];
    if (!cs_bench_open_context(opt, &ctx, device, sizeof device))
        return 1;
    printf("radiosity of each scene at its own patch_size on %s, %u frames (median) after %u\n\n", device,
           CS_MAX(opt->steps, 1u), opt->warmup);
    print_table_header("scene: triangles");
    fflush(stdout);
    compiled_size basis = {0};
    int status = 0;
    for (const char *start = opt->scene; start; ) {
        const char *comma = strchr(start, ',');
        char name[1024];
        snprintf(name, sizeof name, "%.*s", comma ? (int)(comma - start) : (int)strlen(start), start);
        start = comma ? comma + 1 : NULL;
        cs_scene scene;
        if (!cs_scene_load_edited(name, opt->edits.items, opt->edits.count, &scene, &err)) {
            fprintf(stderr, "cistern: %s\n", err.msg);
            status = 2;
            break;
        }
        if (!scene.geometry) {
            fprintf(stderr, "cistern: %s has no \"geometry\" to light\n", scene.path);
            cs_scene_free(&scene);
            status = 2;
            break;
        }
        scene.geometry->lighting.probes.given = false;
        double patch_size = scene.geometry->lighting.patch_size;
        uint64_t patches = cs_radiosity_patch_count(scene.geometry->tris, scene.geometry->tri_count, patch_size);
        // The "patches asked" column holds the triangle count here.
        compiled_size done;
        if (worth_compiling(&ctx, scene.geometry->tri_count, patch_size, patches, &basis) &&
            bench_size(&ctx, &scene, patch_size, scene.geometry->tri_count, opt, &done) &&
            done.patches > basis.patches)
            basis = done;
        cs_scene_free(&scene);
    }
    cs_context_destroy(&ctx);
    return status;
}

int cs_bench_radiosity(const cs_bench_options *opt)
{
    if (opt->scene && strchr(opt->scene, ',') && !opt->patch_target_count)
        return bench_scene_list(opt);

    cs_error err;
    cs_scene scene;
    const char *name = opt->scene ? opt->scene : "cornell_box";
    if (!cs_scene_load_edited(name, opt->edits.items, opt->edits.count, &scene, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 2;
    }
    if (!scene.geometry) {
        fprintf(stderr, "cistern: %s has no \"geometry\" to light\n", scene.path);
        cs_scene_free(&scene);
        return 2;
    }
    cs_context ctx;
    char device[512];
    if (!cs_bench_open_context(opt, &ctx, device, sizeof device)) {
        cs_scene_free(&scene);
        return 1;
    }
    const cs_scene_lighting *lighting = &scene.geometry->lighting;
    char bounces[64];
    if (lighting->tolerance > 0.0)
        snprintf(bounces, sizeof bounces, "bounces to a tolerance of %g (at most %u)", lighting->tolerance,
                 lighting->bounces);
    else
        snprintf(bounces, sizeof bounces, "%u bounces", lighting->bounces);
    printf("radiosity of %s on %s: %u lights, %s, %u frames (median) after %u\n\n", scene.name, device,
           lighting->light_count, bounces, CS_MAX(opt->steps, 1u), opt->warmup);
    printf("links: %s\n\n", scene.geometry->lighting.hierarchy ? "through the k-means cluster hierarchy"
                                                               : "every visible pair (radiosity.hierarchy false)");
    print_table_header("patches asked");
    fflush(stdout); // the header before the first (slow) compile
    // The patch sweep times the radiosity alone, whatever the scene's probes.
    scene.geometry->lighting.probes.given = false;
    if (opt->patch_target_count) {
        sweep_patch_counts(&ctx, &scene, opt);
        // The probes over the sweep's fewest patches: a compile of seconds
        // on a GPU (and the smoke test's 200 patches on lavapipe, where
        // rooms_radiosity at PROBE_PATCH_SIZE compiles for minutes).
        uint32_t fewest = opt->patches[0];
        for (uint32_t i = 1; i < opt->patch_target_count; i++)
            fewest = CS_MIN(fewest, opt->patches[i]);
        uint64_t unused;
        bench_probe_rows(&ctx, &scene, patch_size_for(scene.geometry, fewest, &unused), opt);
        cs_context_destroy(&ctx);
        cs_scene_free(&scene);
        return 0;
    }
    for (size_t i = 0; i < CS_ARRAY_COUNT(patch_sizes); i++) {
        compiled_size done;
        if (!bench_size(&ctx, &scene, patch_sizes[i], 0, opt, &done))
            break;
    }
    bench_probe_rows(&ctx, &scene, PROBE_PATCH_SIZE, opt);
    cs_context_destroy(&ctx);
    cs_scene_free(&scene);
    return 0;
}
