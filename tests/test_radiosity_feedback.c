// test_radiosity_feedback.c — feedback frames (cs_radiosity_gpu_record_feedback:
// one gather a frame on the previous frame's gathered irradiance,
// docs/light.md "Feedback") on the Cornell box at patch_size 0.1 through
// the cluster hierarchy, lit by its lamp and a point light:
//   - frame 3 of a static scene is the 3-bounce solution (the double
//     solver, cs_radiosity_solve, on the same tree and links) within 1e-4;
//   - the frames converge to the multi-bounce result (the solver with 64
//     bounces, converged to ~1e-9) within 1e-3 relative for every patch
//     and channel, and stay there;
//   - the point light moved: the very next frame is the converged frame of
//     the old light plus the change of the direct light and the first
//     bounce, (1-bounce solution, new light) − (1-bounce solution, old
//     light), within 1e-3; and that change is large for many patches, so
//     a frame that lagged (the first bounce from the old light) fails.
// Shadow rays that graze an edge may rightly differ between the GPU's
// float and the CPU's double (test_radiosity_direct): 1% of the patches
// may be off in each comparison.
// ctest labels: quick,gpu -- 4
#include "test_util.h"

#include "geometry.h"
#include "light.h"
#include "radiosity_cluster.h"
#include "radiosity_gpu.h"
#include "scene.h"

#include <stdlib.h>
#include <string.h>

#define PATCH_SIZE 0.1
#define CONVERGED_BOUNCES 64u
#define MAX_FRAMES 48u
#define CONVERGED 1e-3
#define EXACT 1e-4

// Patches (of n) with some channel of `got` (vec4 a patch) more than
// `tolerance` relative from `want` (3 doubles a patch); *worst: the worst
// relative error of the others.
static uint32_t patches_off(const float *got, const double *want, uint32_t n, double tolerance, double *worst)
{
    uint32_t off = 0;
    *worst = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double patch_worst = 0.0;
        for (int k = 0; k < 3; k++) {
            double w = want[3 * i + k], g = got[4 * i + k];
            double rel = test_not_finite(got[4 * i + k]) ? INFINITY : fabs(g - w) / fmax(fabs(w), 1e-6);
            patch_worst = !(rel <= patch_worst) ? rel : patch_worst;
        }
        off += !(patch_worst <= tolerance);
        if (patch_worst <= tolerance)
            *worst = fmax(*worst, patch_worst);
    }
    return off;
}

// One feedback frame with `light`; its radiosity into got (vec4 a patch).
static void feedback_frame(cs_context *ctx, cs_radiosity_gpu *gpu, const cs_light *light, float *got)
{
    cs_radiosity_gpu_set_lights(ctx, gpu, light, 1, NULL, 0, 1);
    cs_recorder rec;
    cs_recorder_create(ctx, "feedback frame", &rec);
    cs_recorder_begin(&rec);
    cs_radiosity_gpu_record_feedback(&rec, gpu);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    cs_buffer_download(ctx, cs_radiosity_gpu_result(gpu), got, (VkDeviceSize)gpu->patch_count * 16, 0);
}

// The double solution with `bounces` for the point light.
static void solve(const cs_radiosity_compiled *c, const cs_bvh *bvh, const cs_light *light, uint32_t bounces,
                  double *out)
{
    double *direct = calloc((size_t)c->patch_count * 3, sizeof *direct);
    CS_ASSERT(direct, "out of memory");
    cs_radiosity_direct_cpu(c, bvh, light, 1, NULL, 0, 1, direct);
    cs_radiosity_solve(c, direct, bounces, out);
    free(direct);
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
    CS_ASSERT(cs_bvh_build(scene.geometry->tris, scene.geometry->tri_count, &bvh, &err), "%s", err.msg);
    cs_hierarchy_options o = cs_hierarchy_options_default();
    cs_radiosity_compiled c;
    CS_ASSERT(cs_radiosity_compile_hierarchy(&ctx, scene.geometry->tris, scene.geometry->tri_count, PATCH_SIZE, &bvh,
                                             &o, &c, &err),
              "%s", err.msg);
    uint32_t n = c.patch_count;
    cs_radiosity_gpu gpu;
    CS_ASSERT(cs_radiosity_gpu_create(&ctx, &c, &bvh, 1, 0, &gpu, &err), "%s", err.msg);
    float *got = malloc((size_t)n * 16), *before = malloc((size_t)n * 16);
    double *converged = malloc((size_t)n * 3 * sizeof *converged), *three = malloc((size_t)n * 3 * sizeof *three);
    double *old_first = malloc((size_t)n * 3 * sizeof *old_first), *new_first = malloc((size_t)n * 3 * sizeof *new_first);
    double *want = calloc((size_t)n * 3, sizeof *want);
    CS_ASSERT(got && before && converged && three && old_first && new_first && want, "out of memory");

    // A point light under the ceiling between the blocks, later moved to
    // the red wall's side, low.
    float color[3] = {2.0f, 2.0f, 2.0f};
    cs_light old_light = cs_light_point((float[3]){0.28f, 0.45f, 0.28f}, 0.02f, color, 10.0f, CS_WINDOW_DEFAULT);
    cs_light new_light = cs_light_point((float[3]){0.45f, 0.12f, 0.15f}, 0.02f, color, 10.0f, CS_WINDOW_DEFAULT);
    solve(&c, &bvh, &old_light, CONVERGED_BOUNCES, converged);
    solve(&c, &bvh, &old_light, 3, three);

    uint32_t first_converged = 0, later_off = 0, allowed = n / 100;
    for (uint32_t frame = 1; frame <= MAX_FRAMES; frame++) {
        feedback_frame(&ctx, &gpu, &old_light, got);
        double worst;
        if (frame == 3) {
            uint32_t off = patches_off(got, three, n, EXACT, &worst);
            printf("frame 3 against the 3-bounce solution: %u of %u patches off by more than %.0e, worst of the "
                   "others %.3g\n", off, n, EXACT, worst);
            CHECK(off <= allowed, "frame 3 is not the 3-bounce solution: %u patches off", off);
        }
        uint32_t off = patches_off(got, converged, n, CONVERGED, &worst);
        if (off <= allowed && first_converged == 0) {
            first_converged = frame;
            printf("frame %u: within %.0e of the %u-bounce solution (%u patches off, worst of the others %.3g)\n",
                   frame, CONVERGED, CONVERGED_BOUNCES, off, worst);
        } else if (off > allowed && first_converged != 0) {
            later_off++;
        }
        if (frame == 1)
            printf("frame 1: %u of %u patches more than %.0e from the %u-bounce solution\n", off, n, CONVERGED,
                   CONVERGED_BOUNCES);
    }
    CHECK(first_converged > 0, "%u feedback frames do not converge to within %.0e", MAX_FRAMES, CONVERGED);
    CHECK(later_off == 0, "%u frames after convergence left it again", later_off);

    // Move the light: one frame.
    memcpy(before, got, (size_t)n * 16);
    solve(&c, &bvh, &old_light, 1, old_first);
    solve(&c, &bvh, &new_light, 1, new_first);
    feedback_frame(&ctx, &gpu, &new_light, got);
    uint32_t changed = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool patch_changed = false;
        for (int k = 0; k < 3; k++) {
            double b = before[4 * i + k];
            want[3 * i + k] = b + new_first[3 * i + k] - old_first[3 * i + k];
            patch_changed |= fabs(want[3 * i + k] - b) > 0.01 * fmax(fabs(b), 1e-6);
        }
        changed += patch_changed;
    }
    double worst;
    uint32_t off = patches_off(got, want, n, CONVERGED, &worst);
    printf("light moved: %u of %u patches change by more than 1%% in direct light and first bounce; the next "
           "frame: %u patches more than %.0e from the converged frame plus that change, worst of the others %.3g\n",
           changed, n, off, CONVERGED, worst);
    CHECK(changed >= n / 10, "moving the light changes only %u patches: the check would not see a lag", changed);
    CHECK(off <= allowed, "the frame after the light moved: %u patches off", off);

    free(got), free(before), free(converged), free(three), free(old_first), free(new_first), free(want);
    cs_radiosity_gpu_destroy(&ctx, &gpu);
    cs_radiosity_free(&c);
    cs_bvh_free(&bvh);
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
