// test_radiosity_gpu.c — the GPU gather and push-down
// (shaders/radiosity/gather.comp, pushdown.comp; a flat compile: no
// parents) against the double-precision solver (cs_radiosity_solve) on the Cornell
// box at patch_size 0.2: the same compiled links, the same direct
// irradiance (random per patch, seed printed, plus the light's emission),
// 3 bounces; every patch and channel within 1e-4 relative.
// ctest labels: quick,gpu -- 3
#include "test_util.h"

#include "bvh.h"
#include "geometry.h"
#include "radiosity.h"
#include "radiosity_gpu.h"
#include "scene.h"

#include <stdlib.h>

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    cs_scene scene;
    cs_error err = {0};
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_box.json", &scene, &err), "%s", err.msg);
    cs_bvh bvh;
    cs_radiosity_compiled c;
    CS_ASSERT(cs_bvh_build(scene.geometry->tris, scene.geometry->tri_count, &bvh, &err), "%s", err.msg);
    CS_ASSERT(cs_radiosity_compile(scene.geometry->tris, scene.geometry->tri_count, 0.2, &bvh, &c, &err), "%s",
              err.msg);
    uint32_t n = c.patch_count, bounces = 3;
    printf("cornell box: %u patches, %u links, compiled in %.2f s\n", n, c.link_count, c.compile_seconds);
    double *direct = malloc(3 * sizeof *direct * n), *want = malloc(3 * sizeof *want * n);
    float *direct4 = calloc(4 * (size_t)n, sizeof *direct4), *got = calloc(4 * (size_t)n, sizeof *got);
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            direct4[4 * i + k] = (float)(10.0 * test_rand_unit());
            direct[3 * i + k] = direct4[4 * i + k];
        }
    }
    cs_radiosity_solve(&c, direct, bounces, want);

    cs_program_id prog, pushdown;
    test_program(&ctx, &prog, "radiosity/gather.comp", NULL);
    test_program(&ctx, &pushdown, "radiosity/pushdown.comp", NULL);
    cs_buffer patches, starts, links, direct_buf, b[2], gathered, order_buf, parents, irradiance, openness, no_gradients, no_centres;
    test_buffer(&ctx, &patches, "patches", (VkDeviceSize)n * sizeof(cs_patch));
    test_buffer(&ctx, &starts, "link starts", (VkDeviceSize)(n + 1) * 4);
    test_buffer(&ctx, &links, "links", (VkDeviceSize)c.link_count * sizeof(cs_link));
    test_buffer(&ctx, &direct_buf, "direct", (VkDeviceSize)n * 16);
    test_buffer(&ctx, &b[0], "radiosity 0", (VkDeviceSize)n * 16);
    test_buffer(&ctx, &b[1], "radiosity 1", (VkDeviceSize)n * 16);
    test_buffer(&ctx, &gathered, "gathered", (VkDeviceSize)n * 16);
    test_buffer(&ctx, &order_buf, "gather order", (VkDeviceSize)n * 4);
    test_buffer(&ctx, &parents, "parents", (VkDeviceSize)n * 4);
    test_buffer(&ctx, &irradiance, "irradiance", (VkDeviceSize)n * 16);
    test_buffer(&ctx, &openness, "openness", (VkDeviceSize)n * 4);
    // A flat compile has no clusters: no gradients, no centres.
    test_buffer(&ctx, &no_gradients, "no gradients", 48);
    test_buffer(&ctx, &no_centres, "no centres", 16);
    cs_buffer_fill(&ctx, &no_gradients, 0u);
    cs_buffer_fill(&ctx, &no_centres, 0u);
    cs_buffer_fill(&ctx, &parents, CS_RADIOSITY_NO_PARENT);
    cs_buffer_fill(&ctx, &openness, 0x3f800000u); // 1.0f
    uint32_t *order = malloc((size_t)n * 4);
    CS_ASSERT(order, "out of memory");
    cs_radiosity_gather_order(&c, order);
    cs_buffer_upload(&ctx, &order_buf, order, (VkDeviceSize)n * 4, 0);
    free(order);
    cs_buffer_upload(&ctx, &patches, c.patches, (VkDeviceSize)n * sizeof(cs_patch), 0);
    cs_buffer_upload(&ctx, &starts, c.link_start, (VkDeviceSize)(n + 1) * 4, 0);
    cs_buffer_upload(&ctx, &links, c.links, (VkDeviceSize)c.link_count * sizeof(cs_link), 0);
    cs_buffer_upload(&ctx, &direct_buf, direct4, (VkDeviceSize)n * 16, 0);
    // B0 = E + rho H: the gather with an all-zero previous radiosity.
    cs_buffer_fill(&ctx, &b[1], 0u);
    // Every link in the first link buffer (binding 7, the second, unread).
    cs_gather_push push = {.patch_count = n, .node_count = n, .first_cluster_link = c.link_count,
                           .first_buffer_links = c.link_count};
    cs_recorder rec;
    cs_recorder_create(&ctx, "radiosity gather", &rec);
    cs_recorder_begin(&rec);
    for (uint32_t pass = 0; pass <= bounces; pass++) {
        cs_buffer *from = &b[(pass + 1) % 2], *to = &b[pass % 2];
        cs_pass_begin(&rec, "radiosity: gather");
        cs_dispatch(&rec, prog,
                    &(cs_dispatch_desc){.buffers = {&starts, &links, from, &irradiance, &order_buf, &no_gradients,
                                                        &no_gradients, &no_gradients},
                                        .push = &push, .push_size = sizeof push, .threads = {n}});
        cs_pass_end(&rec);
        cs_barrier_compute(&rec);
        cs_pass_begin(&rec, "radiosity: push-down");
        cs_dispatch(&rec, pushdown,
                    &(cs_dispatch_desc){.buffers = {&patches, &direct_buf, &parents, &irradiance, to, &gathered, &openness,
                                                        &no_centres, &no_gradients},
                                        .push = &push, .push_size = sizeof push, .threads = {n}});
        cs_pass_end(&rec);
        cs_barrier_compute(&rec);
    }
    cs_recorder_submit_wait(&rec);
    cs_buffer_download(&ctx, &b[bounces % 2], got, (VkDeviceSize)n * 16, 0);
    double worst = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            double w = want[3 * i + k], g = got[4 * i + k];
            double rel = fabs(g - w) / fmax(fabs(w), 1e-6);
            worst = fmax(worst, rel);
            if (rel > 1e-4 || test_not_finite(got[4 * i + k]))
                CHECK(false, "patch %u channel %d: GPU %.7g, CPU %.7g", i, k, g, w);
        }
    }
    printf("gpu gather, %u bounces: worst relative difference to the CPU %.3g\n", bounces, worst);
    cs_recorder_destroy(&rec);
    for (int k = 0; k < 2; k++)
        cs_buffer_destroy(&ctx, &b[k]);
    cs_buffer_destroy(&ctx, &patches);
    cs_buffer_destroy(&ctx, &starts);
    cs_buffer_destroy(&ctx, &links);
    cs_buffer_destroy(&ctx, &direct_buf);
    cs_buffer_destroy(&ctx, &gathered);
    cs_buffer_destroy(&ctx, &order_buf);
    cs_buffer_destroy(&ctx, &parents);
    cs_buffer_destroy(&ctx, &irradiance);
    cs_buffer_destroy(&ctx, &openness);
    cs_buffer_destroy(&ctx, &no_gradients);
    cs_buffer_destroy(&ctx, &no_centres);
    cs_program_destroy(&ctx, &prog);
    cs_program_destroy(&ctx, &pushdown);
    free(direct), free(want), free(direct4), free(got);
    cs_radiosity_free(&c);
    cs_bvh_free(&bvh);
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
