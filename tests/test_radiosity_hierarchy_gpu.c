// test_radiosity_hierarchy_gpu.c — the cluster hierarchy on the GPU
// (pipelines/light/radiosity_cluster.c with GPU visibility, upsweep.comp and
// gather.comp through cs_radiosity_gpu) on the Cornell box at patch_size
// 0.1:
//   - two compiles with GPU visibility give the same bytes;
//   - a frame (the up-sweep round by round before every bounce's gather)
//     against the double solver on the same compiled tree and links
//     (cs_radiosity_solve pushes up in double): lit by the box's emissive
//     lamp alone, every patch and channel within 1e-4 relative; then with
//     a point light added (its direct light from cs_radiosity_direct_cpu),
//     all but 1% of the patches (shadow rays that graze an edge may
//     rightly differ between float and double, as in
//     test_radiosity_direct) within 1e-4;
//   - the links split across the gather's two link buffers (as 100 k
//     patches need on llvmpipe: each buffer within maxStorageBufferRange)
//     at an odd place give the same bytes as one buffer.
// ctest labels: slow,gpu -- 13
#include "test_util.h"

#include "geometry.h"
#include "light.h"
#include "radiosity_cluster.h"
#include "radiosity_gpu.h"
#include "scene.h"

#include <stdlib.h>
#include <string.h>

#define PATCH_SIZE 0.1
#define BOUNCES 3u
#define TOLERANCE 1e-4

static bool same_compile(const cs_radiosity_compiled *a, const cs_radiosity_compiled *b)
{
    return a->patch_count == b->patch_count && a->cluster_count == b->cluster_count &&
           a->link_count == b->link_count && a->level_count == b->level_count &&
           memcmp(a->level_start, b->level_start, sizeof a->level_start) == 0 &&
           memcmp(a->link_start, b->link_start, ((size_t)a->patch_count + 1) * 4) == 0 &&
           memcmp(a->links, b->links, (size_t)a->link_count * sizeof *a->links) == 0 &&
           memcmp(a->clusters, b->clusters, (size_t)a->cluster_count * sizeof *a->clusters) == 0 &&
           memcmp(a->child_start, b->child_start, ((size_t)a->cluster_count + 1) * 4) == 0 &&
           memcmp(a->children, b->children, (size_t)a->child_start[a->cluster_count] * sizeof *a->children) == 0;
}

// One GPU frame against the double solver; returns the patches off.
static uint32_t compare_frame(cs_context *ctx, const cs_radiosity_compiled *c, const cs_bvh *bvh,
                              const cs_light *lights, uint32_t light_count, const char *what)
{
    uint32_t n = c->patch_count;
    cs_radiosity_gpu gpu;
    cs_error err = {0};
    CS_ASSERT(cs_radiosity_gpu_create(ctx, c, bvh, 1, 0, &gpu, &err), "%s", err.msg);
    cs_radiosity_gpu_set_lights(ctx, &gpu, lights, light_count, NULL, 0, 1);
    cs_recorder rec;
    cs_recorder_create(ctx, "hierarchy frame", &rec);
    cs_recorder_begin(&rec);
    cs_radiosity_gpu_record(&rec, &gpu, BOUNCES);
    cs_recorder_submit_wait(&rec);
    double upsweep_ms = cs_recorder_pass_ms(&rec, "radiosity: up-sweep"), gather_ms =
                                                                           cs_recorder_pass_ms(&rec, "radiosity: gather");
    float *got = malloc((size_t)n * 16);
    double *direct = calloc((size_t)n * 3, sizeof *direct), *want = malloc((size_t)n * 3 * sizeof *want);
    CS_ASSERT(got && direct && want, "out of memory");
    cs_buffer_download(ctx, cs_radiosity_gpu_result(&gpu), got, (VkDeviceSize)n * 16, 0);
    cs_radiosity_direct_cpu(c, bvh, lights, light_count, NULL, 0, 1, direct);
    cs_radiosity_solve(c, direct, BOUNCES, want);
    uint32_t off = 0;
    double worst = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double patch_worst = 0.0;
        for (int k = 0; k < 3; k++) {
            double w = want[3 * i + k], g = got[4 * i + k];
            double rel = test_not_finite(got[4 * i + k]) ? INFINITY : fabs(g - w) / fmax(fabs(w), 1e-6);
            patch_worst = !(rel <= patch_worst) ? rel : patch_worst;
        }
        off += !(patch_worst <= TOLERANCE);
        if (patch_worst <= TOLERANCE)
            worst = fmax(worst, patch_worst);
    }
    printf("%s: %u patches, %u clusters, %u links: GPU vs double, %u bounces: %u patches off by more than %.0e, "
           "worst of the others %.3g; up-sweeps %.2f ms, gathers %.2f ms\n",
           what, n, c->cluster_count, c->link_count, BOUNCES, off, TOLERANCE, worst, upsweep_ms, gather_ms);
    free(got), free(direct), free(want);
    cs_recorder_destroy(&rec);
    cs_radiosity_gpu_destroy(ctx, &gpu);
    return off;
}

// One frame's radiosity (vec4 a patch) into got, the links split after
// links_per_buffer of them.
static void frame_bytes(cs_context *ctx, const cs_radiosity_compiled *c, const cs_bvh *bvh, uint32_t links_per_buffer,
                        float *got)
{
    cs_radiosity_gpu gpu;
    cs_error err = {0};
    CS_ASSERT(cs_radiosity_gpu_create_split(ctx, c, bvh, 1, 0, links_per_buffer, &gpu, &err), "%s", err.msg);
    cs_recorder rec;
    cs_recorder_create(ctx, "split links", &rec);
    cs_recorder_begin(&rec);
    cs_radiosity_gpu_record(&rec, &gpu, BOUNCES);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    cs_buffer_download(ctx, cs_radiosity_gpu_result(&gpu), got, (VkDeviceSize)c->patch_count * 16, 0);
    cs_radiosity_gpu_destroy(ctx, &gpu);
}

static void check_split_links(cs_context *ctx, const cs_radiosity_compiled *c, const cs_bvh *bvh)
{
    size_t bytes = (size_t)c->patch_count * 16;
    float *whole = malloc(bytes), *split = malloc(bytes);
    CS_ASSERT(whole && split, "out of memory");
    uint32_t half = c->link_count / 2 + 7;
    frame_bytes(ctx, c, bvh, c->link_count, whole);
    frame_bytes(ctx, c, bvh, half, split);
    uint32_t differ = 0;
    for (uint32_t i = 0; i < c->patch_count; i++)
        differ += memcmp(&whole[4 * i], &split[4 * i], 16) != 0;
    printf("links split after %u of %u (two buffers): %u patches differ from one buffer\n", half, c->link_count,
           differ);
    CHECK(differ == 0, "links in two buffers: %u patches differ", differ);
    free(whole), free(split);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    cs_scene scene;
    cs_error err = {0};
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_box.json", &scene, &err), "%s", err.msg);
    const cs_tri *tris = scene.geometry->tris;
    uint32_t tri_count = scene.geometry->tri_count;
    cs_bvh bvh;
    CS_ASSERT(cs_bvh_build(tris, tri_count, &bvh, &err), "%s", err.msg);
    cs_hierarchy_options o = cs_hierarchy_options_default();
    cs_radiosity_compiled a, b;
    CS_ASSERT(cs_radiosity_compile_hierarchy(&ctx, tris, tri_count, PATCH_SIZE, &bvh, &o, &a, &err), "%s", err.msg);
    CS_ASSERT(cs_radiosity_compile_hierarchy(&ctx, tris, tri_count, PATCH_SIZE, &bvh, &o, &b, &err), "%s", err.msg);
    bool same = same_compile(&a, &b);
    printf("two compiles with GPU visibility (%.2f s, %.2f s): %s\n", a.compile_seconds, b.compile_seconds,
           same ? "the same bytes" : "DIFFERENT");
    CHECK(same, "two GPU compiles differ");
    CHECK(a.cluster_count > 0 && a.level_count > 1, "no tree: %u clusters, %u rounds", a.cluster_count,
          a.level_count);

    uint32_t off = compare_frame(&ctx, &a, &bvh, NULL, 0, "lamp only");
    CHECK(off == 0, "lamp only: %u patches off", off);
    // A point light under the ceiling, between the blocks.
    cs_light point = cs_light_point((float[3]){0.28f, 0.45f, 0.28f}, 0.02f, (float[3]){2.0f, 2.0f, 2.0f}, 10.0f,
                                    CS_WINDOW_DEFAULT);
    off = compare_frame(&ctx, &a, &bvh, &point, 1, "lamp and a point light");
    CHECK(off <= a.patch_count / 100, "with a point light: %u of %u patches off", off, a.patch_count);
    check_split_links(&ctx, &a, &bvh);
    cs_radiosity_free(&a);
    cs_radiosity_free(&b);
    cs_bvh_free(&bvh);
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
