// test_radiosity_direct.c — radiosity's run-time frame on the GPU (direct
// light with shadow rays, then 3 gather bounces: cs_radiosity_gpu) against
// the double twins (cs_radiosity_direct_cpu, cs_radiosity_solve) on the
// Cornell box at patch_size 0.2, with a point, a spot, a sphere and a quad
// area light (4 x 4 samples) at random places (seed printed). A second
// frame moves the lights and swaps the red and green walls' albedos
// without compiling again. Per patch and channel: within 1e-3 relative to
// max(value, 1e-3 of the frame's largest). A shadow ray that grazes an
// edge may rightly differ in float: at most 1% of the patches may miss
// that tolerance (counted and printed).
// ctest labels: quick,gpu -- measured below
#include "test_util.h"

#include "bvh.h"
#include "geometry.h"
#include "light.h"
#include "radiosity.h"
#include "radiosity_gpu.h"
#include "scene.h"

#include <stdlib.h>

#define BOUNCES 3
#define SAMPLES 4

static void random_inside(float out[3])
{
    // Inside the box, above the blocks (the tall one is 0.33 m high).
    out[0] = (float)(0.1 + 0.35 * test_rand_unit());
    out[1] = (float)(0.36 + 0.15 * test_rand_unit());
    out[2] = (float)(0.1 + 0.35 * test_rand_unit());
}

static uint32_t make_lights(cs_light lights[3], cs_area_light *quad)
{
    float p[3], axis[3] = {0, -1, 0};
    random_inside(p);
    lights[0] = cs_light_point(p, 0.05f, (float[3]){4, 3, 2}, 2.0f, CS_WINDOW_DEFAULT);
    random_inside(p);
    lights[1] = cs_light_spot(p, axis, 0.4f, 0.7f, 0.05f, (float[3]){2, 3, 4}, 2.0f, CS_WINDOW_DEFAULT);
    random_inside(p);
    lights[2] = cs_light_sphere(p, 0.03f, (float[3]){20, 20, 20}, 2.0f, CS_WINDOW_DEFAULT);
    // Just under the ceiling's light opening, facing down (edge_u x edge_v = -y).
    float x = (float)(0.1 + 0.3 * test_rand_unit()), z = (float)(0.1 + 0.3 * test_rand_unit());
    *quad = (cs_area_light){.corner = {x, 0.54f, z, 0}, .edge_u = {0.13f, 0, 0, 0}, .edge_v = {0, 0, 0.105f, 0},
                            .exitance = {17, 12, 4, 0}};
    return 3;
}

// Compares n patches of vec4 GPU values with 3-double CPU ones.
static void compare(const char *what, const float *got, const double *want, uint32_t n)
{
    double largest = 0.0, worst = 0.0;
    for (uint32_t i = 0; i < 3 * n; i++)
        largest = fmax(largest, fabs(want[i]));
    uint32_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool patch_off = false;
        for (int k = 0; k < 3; k++) {
            double g = got[4 * i + k], w = want[3 * i + k];
            double rel = fabs(g - w) / fmax(fabs(w), 1e-3 * largest);
            CHECK(!test_not_finite(got[4 * i + k]), "%s: patch %u not finite", what, i);
            if (rel > 1e-3)
                patch_off = true;
            else
                worst = fmax(worst, rel);
        }
        off += patch_off;
    }
    printf("%s: largest %.4g, worst relative difference %.3g, %u of %u patches off (shadow edges)\n", what,
           largest, worst, off, n);
    CHECK(largest > 0.0, "%s: all dark", what);
    CHECK(off * 100 <= n, "%s: %u of %u patches off by more than 1e-3", what, off, n);
}

static void run_frame(cs_context *ctx, cs_radiosity_gpu *gpu, const cs_radiosity_compiled *c, const cs_bvh *bvh,
                      const char *name)
{
    cs_light lights[3];
    cs_area_light quad;
    uint32_t count = make_lights(lights, &quad);
    cs_radiosity_gpu_set_lights(ctx, gpu, lights, count, &quad, 1, SAMPLES);
    uint32_t n = c->patch_count;
    double *direct = malloc(3 * sizeof *direct * n), *want = malloc(3 * sizeof *want * n);
    float *got = malloc(16 * (size_t)n);
    cs_radiosity_direct_cpu(c, bvh, lights, count, &quad, 1, SAMPLES, direct);
    cs_radiosity_solve(c, direct, BOUNCES, want);
    cs_recorder rec;
    cs_recorder_create(ctx, "radiosity frame", &rec);
    cs_recorder_begin(&rec);
    cs_radiosity_gpu_record(&rec, gpu, BOUNCES);
    cs_recorder_submit_wait(&rec);
    printf("%s: direct %.3f ms, gathers %.3f ms (GPU)\n", name, cs_recorder_pass_ms(&rec, "radiosity: direct"),
           cs_recorder_pass_ms(&rec, "radiosity: gather"));
    cs_recorder_destroy(&rec);
    char what[96];
    cs_buffer_download(ctx, &gpu->direct, got, 16 * (VkDeviceSize)n, 0);
    snprintf(what, sizeof what, "%s, direct", name);
    compare(what, got, direct, n);
    cs_buffer_download(ctx, cs_radiosity_gpu_result(gpu), got, 16 * (VkDeviceSize)n, 0);
    snprintf(what, sizeof what, "%s, %d bounces", name, BOUNCES);
    compare(what, got, want, n);
    free(direct), free(want), free(got);
}

// Swaps the albedos of the red and green walls' patches.
static void swap_wall_colours(cs_radiosity_compiled *c)
{
    for (uint32_t i = 0; i < c->patch_count; i++) {
        vec4 *a = &c->patches[i].albedo;
        bool red = a->x > 0.5f && a->y < 0.1f, green = a->y > 0.4f && a->x < 0.2f;
        if (red)
            *a = (vec4){0.14f, 0.45f, 0.091f, 0};
        else if (green)
            *a = (vec4){0.63f, 0.065f, 0.05f, 0};
    }
}

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
    const cs_geometry *g = scene.geometry;
    CS_ASSERT(cs_bvh_build(g->tris, g->tri_count, &bvh, &err), "%s", err.msg);
    CS_ASSERT(cs_radiosity_compile_gpu(&ctx, g->tris, g->tri_count, 0.2, &bvh, &c, &err), "%s", err.msg);
    cs_radiosity_gpu gpu;
    CS_ASSERT(cs_radiosity_gpu_create(&ctx, &c, &bvh, 3, 1, &gpu, &err), "%s", err.msg);
    run_frame(&ctx, &gpu, &c, &bvh, "frame 1");
    swap_wall_colours(&c);
    cs_radiosity_gpu_set_albedo(&ctx, &gpu, &c);
    run_frame(&ctx, &gpu, &c, &bvh, "frame 2 (lights moved, walls swapped)");
    cs_radiosity_gpu_destroy(&ctx, &gpu);
    cs_radiosity_free(&c);
    cs_bvh_free(&bvh);
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
