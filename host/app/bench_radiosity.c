// bench_radiosity.c — `cistern bench --radiosity [SCENE]`: the radiosity of
// a scene's geometry (default the Cornell box) at a few patch sizes: the
// compile time (form factors on the CPU, visibility rays on the GPU) and
// the GPU time of every pass of one frame (direct light, each gather),
// median over --steps frames after --warmup. Printed as a table
// (docs/benchmarks.md, docs/light.md). A size whose links do not fit one
// storage buffer of the device is reported as such and the sweep stops.
#include "bench.h"

#include "geometry.h"
#include "world_radiosity.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TIMED_PASSES 40

// Patch sizes of the sweep for the Cornell box: about 1k, 2k, 4k, 7k and
// 8k patches (the seed's 7182-patch case is patch_size 0.03).
static const double patch_sizes[] = {0.1, 0.07, 0.05, 0.03, 0.028};

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
    uint32_t passes = lighting->bounces + 2;
    CS_ASSERT(passes <= MAX_TIMED_PASSES, "%u passes", passes);
    uint32_t steps = CS_MAX(opt->steps, 1u);
    double *ms = calloc((size_t)passes * steps, sizeof *ms), *total = calloc(steps, sizeof *total);
    CS_ASSERT(ms && total, "out of memory");
    cs_recorder rec;
    cs_recorder_create(ctx, "bench radiosity", &rec);
    for (uint32_t s = 0; s < opt->warmup + steps; s++) {
        cs_recorder_begin(&rec);
        cs_world_radiosity_record(ctx, &part, &rec, s * (double)scene->dt);
        cs_recorder_submit_wait(&rec);
        if (s < opt->warmup)
            continue;
        uint32_t k = s - opt->warmup;
        for (uint32_t p = 0; p < passes && p < rec.pass_count; p++) {
            ms[(size_t)p * steps + k] = rec.passes[p].ms;
            total[k] += rec.passes[p].ms;
        }
    }
    cs_recorder_destroy(&rec);
    printf("| %.3f | %u | %u (%.0f MiB) | %.2f | %.2f |", patch_size, part.compiled.patch_count,
           part.compiled.link_count, part.compiled.link_count * 8.0 / (1 << 20), compile, median(total, steps));
    for (uint32_t p = 0; p < passes; p++)
        printf(" %.2f", median(&ms[(size_t)p * steps], steps));
    printf(" |\n");
    fflush(stdout);
    free(ms);
    free(total);
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
    printf("| patch_size | patches | links | compile s | frame ms | passes ms: direct, gathers |\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < CS_ARRAY_COUNT(patch_sizes); i++) {
        if (!bench_size(&ctx, &scene, patch_sizes[i], opt))
            break;
    }
    cs_context_destroy(&ctx);
    cs_scene_free(&scene);
    return 0;
}
