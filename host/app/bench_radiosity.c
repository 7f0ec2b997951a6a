// bench_radiosity.c — `cistern bench --radiosity [SCENE]`: the radiosity of
// a scene's geometry (default the Cornell box) at a few patch sizes: the
// compile time (form factors on the CPU, visibility rays on the GPU) and
// the GPU time of every pass of one frame (direct light, up-sweeps,
// gathers, push-downs),
// median over --steps frames after --warmup; then the same for feedback
// frames (one gather each, cs_radiosity_gpu_record_feedback). Printed as a table
// (docs/benchmarks.md, docs/light.md). A size whose links do not fit one
// storage buffer of the device is reported as such and the sweep stops.
// Then the light probes (pipelines/probes.h) over the same geometry at
// 10^3 and 20^3 probes, PROBE_RAYS rays each: "probes: gather" and
// "probes: finish", median over the same frames (the patch sweep itself
// runs without the scene's own probes).
#include "bench.h"

#include "geometry.h"
#include "world_radiosity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Patch sizes of the sweep for the Cornell box: 988, 2038, 3668, 7330,
// 9938 patches (0.035 is the nearest to the seed's 7182). 0.02 (33.4 M
// links, 255 MiB) does not fit llvmpipe's 128 MiB storage buffers and
// took minutes to find out: left out.
static const double patch_sizes[] = {0.1, 0.07, 0.05, 0.035, 0.03};

// Probe grids of the probe rows (n^3: 1k and 8k probes), their rays and the
// patch size their radiosity is solved at (the gathers' cost hardly
// depends on it: rays walk the BVH of the scene's triangles).
static const uint32_t probe_sides[] = {10, 20};
#define PROBE_RAYS 256u
#define PROBE_PATCH_SIZE 0.1

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

// One patch size: compile, then time `steps` frames. False when it did not fit.
static bool bench_size(cs_context *ctx, cs_scene *scene, double patch_size, const cs_bench_options *opt)
{
    cs_scene_lighting *lighting = &scene->geometry->lighting;
    lighting->patch_size = patch_size;
    cs_world_radiosity part;
    cs_error err;
    double t0 = cs_now_seconds();
    if (!cs_world_radiosity_create(ctx, scene, &part, &err)) {
        printf("| %.3f | — | — | does not fit: %s |\n", patch_size, err.msg);
        return false;
    }
    double compile = cs_now_seconds() - t0;
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
                cs_world_radiosity_record(ctx, &part, &rec, s * (double)scene->dt);
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
    printf("| %.3f | %u | %u | %u (%.0f MiB) | %.2f |", patch_size, part.compiled.patch_count,
           part.compiled.cluster_count, part.compiled.link_count, part.compiled.link_count * 8.0 / (1 << 20),
           compile);
    for (uint32_t c = TOTAL; c < COLUMNS; c++)
        printf(" %.2f |", median(&ms[c * steps], steps));
    printf("\n");
    fflush(stdout);
    free(ms);
    cs_world_radiosity_destroy(ctx, &part);
    return true;
}

// samples[k] = the GPU ms of pass `name` in the frame just recorded (0
// when the frame had no such pass).
static void sample_pass(const cs_recorder *rec, const char *name, double *samples, uint32_t k)
{
    samples[k] = 0.0;
    for (uint32_t p = 0; p < rec->pass_count; p++)
        if (strcmp(rec->passes[p].name, name) == 0)
            samples[k] = rec->passes[p].ms;
}

// One probe grid of side n: solve at PROBE_PATCH_SIZE, time the two probe
// passes. False when the device refused the grid (said in the row).
static bool bench_probes(cs_context *ctx, cs_scene *scene, uint32_t n, const cs_bench_options *opt)
{
    cs_scene_lighting *lighting = &scene->geometry->lighting;
    lighting->patch_size = PROBE_PATCH_SIZE;
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
        cs_world_radiosity_record(ctx, &part, &rec, s * (double)scene->dt);
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

int cs_bench_radiosity(const cs_bench_options *opt)
{
    cs_error err;
    cs_scene scene;
    const char *name = opt->scene ? opt->scene : "cornell_box";
    if (!cs_scene_load(name, &scene, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 2;
    }
    if (!scene.geometry) {
        fprintf(stderr, "cistern: %s has no \"geometry\" to light\n", scene.path);
        cs_scene_free(&scene);
        return 2;
    }
    cs_context ctx;
    cs_context_desc desc = {.validation = opt->validation, .device = opt->device, .verbose = !opt->quiet};
    if (!cs_context_create(&desc, &ctx, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        cs_scene_free(&scene);
        return 1;
    }
    char device[512];
    cs_context_device_string(&ctx, device, sizeof device);
    printf("radiosity of %s on %s: %u lights, %u bounces, %u frames (median) after %u\n\n", scene.name, device,
           scene.geometry->lighting.light_count, scene.geometry->lighting.bounces, CS_MAX(opt->steps, 1u),
           opt->warmup);
    printf("links: %s\n\n", scene.geometry->lighting.hierarchy ? "through the k-means cluster hierarchy"
                                                               : "every visible pair (radiosity.hierarchy false)");
    printf("| patch_size | patches | clusters | links | compile s | frame ms | direct ms | up-sweeps ms | gathers ms "
           "| push-downs ms | feedback frame ms | its up-sweeps ms | its gather ms | its push-down ms "
           "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    fflush(stdout); // the header before the first (slow) compile
    // The patch sweep times the radiosity alone, whatever the scene's probes.
    scene.geometry->lighting.probes.given = false;
    for (size_t i = 0; i < CS_ARRAY_COUNT(patch_sizes); i++) {
        if (!bench_size(&ctx, &scene, patch_sizes[i], opt))
            break;
    }
    printf("\nlight probes over the geometry, radiosity at patch_size %.2f:\n\n", PROBE_PATCH_SIZE);
    printf("| probes | rays | gather ms | finish ms | gather ns a ray |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < CS_ARRAY_COUNT(probe_sides); i++) {
        if (!bench_probes(&ctx, &scene, probe_sides[i], opt))
            break;
    }
    cs_context_destroy(&ctx);
    cs_scene_free(&scene);
    return 0;
}
