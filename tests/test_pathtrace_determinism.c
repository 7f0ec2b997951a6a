// test_pathtrace_determinism.c — the GPU path tracer (pipelines/trace/pathtrace.c,
// shaders/pathtrace/) must give the same bits for the same seed, however the
// samples are split into dispatches and whatever else the machine is doing:
// every sample's radiance depends only on (seed, pixel, sample index), and
// each pixel's sums are added in sample order by one invocation.
//   - the same trace twice, and the same samples split into batches of
//     1 x 256, 4 x 64 and 3 + 61 + 192 paths a pixel: byte-identical sum
//     and sum-of-squares buffers (an image whose pixel count is not a
//     multiple of the workgroup size, so the last group is partial);
//   - lost work: plain paths (no NEE, no roulette) see the same random
//     numbers whatever the bounce limit, so a path of 12 bounces gathers at
//     least the light of its first bounce: every pixel's sum with 12
//     bounces is >= its sum with 1 bounce (float addition of non-negative
//     terms is monotone);
//   - one dispatch of 256 paths a pixel (pathtracer.batch_spp raised past
//     CS_PT_BATCH_SPP): lavapipe's loop budget stops invocations early; each
//     pixel's sums must still be exactly those of its first `count` paths.
// Evidence that prompted it: a single 4096-spp dispatch once gave less light
// at 12 bounces than at 1, and one seed of test_pathtrace's NEE-vs-plain
// check failed under load but passed later.
// ctest labels: quick,gpu -- 3
#include "test_util.h"

#include "bvh.h"
#include "geometry.h"
#include "pathtrace.h"
#include "scene.h"

#include <stdlib.h>
#include <string.h>

enum { WIDTH = 10, HEIGHT = 7, PIXELS = WIDTH * HEIGHT, SPP = 256 };

static bool load_cornell(cs_bvh *bvh, cs_pt_settings *s)
{
    cs_scene scene;
    cs_error err;
    if (!cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_box.json", &scene, &err)) {
        CHECK(false, "cornell_box.json: %s", err.msg);
        return false;
    }
    CS_ASSERT(cs_bvh_build(scene.geometry->tris, scene.geometry->tri_count, bvh, &err), "%s", err.msg);
    *s = cs_pt_settings_default(WIDTH, HEIGHT);
    for (int k = 0; k < 3; k++) {
        s->position[k] = scene.camera.position[k];
        s->target[k] = scene.camera.target[k];
        s->up[k] = scene.camera.up[k];
    }
    s->fov_degrees = scene.camera.fov_degrees;
    cs_scene_free(&scene);
    return true;
}

// Records batches[i] more paths a pixel for each of `batch_count` batches,
// in one submit (the tracer splits each into dispatches of at most
// batch_spp), and reads the sums back (4 floats a pixel each).
static bool trace(cs_context *ctx, const cs_bvh *bvh, const cs_pt_settings *s, uint32_t batch_spp,
                  const uint32_t *batches, uint32_t batch_count, float *sum, float *sum_sq)
{
    cs_pathtracer pt;
    cs_error err;
    if (!cs_pt_create(ctx, bvh, s, &pt, &err)) {
        CHECK(false, "cs_pt_create: %s", err.msg);
        return false;
    }
    pt.batch_spp = batch_spp;
    cs_recorder rec;
    cs_recorder_create(ctx, "test pathtrace determinism", &rec);
    cs_recorder_begin(&rec);
    for (uint32_t i = 0; i < batch_count; i++)
        cs_pt_record_samples(&rec, &pt, batches[i]);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    cs_pt_read_pixels(ctx, &pt, sum, sum_sq, NULL);
    cs_pt_destroy(ctx, &pt);
    return true;
}

// How many pixels' sums differ from the reference's in any bit.
static uint32_t pixels_differing(const float *sum, const float *sq, const float *ref_sum, const float *ref_sq)
{
    uint32_t differing = 0;
    for (uint32_t p = 0; p < PIXELS; p++)
        differing += memcmp(&sum[4 * p], &ref_sum[4 * p], 16) != 0 || memcmp(&sq[4 * p], &ref_sq[4 * p], 16) != 0;
    return differing;
}

static void test_same_bits(cs_context *ctx, const cs_bvh *bvh, cs_pt_settings s, const char *variant)
{
    static const uint32_t one[] = {SPP}, four[] = {64, 64, 64, 64}, odd[] = {3, 61, 192};
    const struct {
        const char *name;
        const uint32_t *batches;
        uint32_t count;
    } schedules[] = {{"1 x 256 (again)", one, 1}, {"4 x 64", four, 4}, {"3 + 61 + 192", odd, 3}};
    float *ref_sum = malloc(PIXELS * 16), *ref_sq = malloc(PIXELS * 16);
    float *sum = malloc(PIXELS * 16), *sq = malloc(PIXELS * 16);
    CS_ASSERT(ref_sum && ref_sq && sum && sq, "out of host memory");
    if (trace(ctx, bvh, &s, CS_PT_BATCH_SPP, one, 1, ref_sum, ref_sq)) {
        for (size_t k = 0; k < sizeof schedules / sizeof schedules[0]; k++) {
            if (!trace(ctx, bvh, &s, CS_PT_BATCH_SPP, schedules[k].batches, schedules[k].count, sum, sq))
                break;
            uint32_t differing = pixels_differing(sum, sq, ref_sum, ref_sq), wrong_count = 0;
            for (uint32_t p = 0; p < PIXELS; p++)
                wrong_count += sum[4 * p + 3] != (float)SPP;
            printf("%s (seed %u): %s vs 1 x 256: %u of %u pixels differ, %u with a sample count other than %u\n",
                   variant, s.seed, schedules[k].name, differing, PIXELS, wrong_count, SPP);
            CHECK(differing == 0 && wrong_count == 0, "%s, %s: %u pixels differ from a single 256-spp dispatch", variant,
                  schedules[k].name, differing);
        }
    }
    free(ref_sum);
    free(ref_sq);
    free(sum);
    free(sq);
}

static void test_more_bounces_more_light(cs_context *ctx, const cs_bvh *bvh, cs_pt_settings s)
{
    static const uint32_t one[] = {SPP};
    s.nee = s.roulette = false;
    float *sum[2], *sq = malloc(PIXELS * 16);
    const uint32_t bounces[2] = {1, 12};
    for (int k = 0; k < 2; k++) {
        sum[k] = malloc(PIXELS * 16);
        CS_ASSERT(sum[k] && sq, "out of host memory");
        s.max_bounces = bounces[k];
        if (!trace(ctx, bvh, &s, CS_PT_BATCH_SPP, one, 1, sum[k], sq))
            memset(sum[k], 0, PIXELS * 16);
    }
    uint32_t darker = 0;
    double total[2] = {0, 0};
    for (uint32_t p = 0; p < PIXELS; p++)
        for (int c = 0; c < 3; c++) {
            darker += c == 0 && !(sum[1][4 * p + c] >= sum[0][4 * p + c]);
            total[0] += sum[0][4 * p + c];
            total[1] += sum[1][4 * p + c];
        }
    printf("plain paths (seed %u): image sum %.6g at 1 bounce, %.6g at 12; %u pixels darker at 12\n", s.seed,
           total[0], total[1], darker);
    CHECK(darker == 0 && total[1] > total[0], "%u pixels gathered less light with 12 bounces than with 1", darker);
    free(sum[0]);
    free(sum[1]);
    free(sq);
}

// One dispatch of 256 paths a pixel (what the tracer avoids): on lavapipe
// the loop budget runs out and invocations stop early, but each pixel's
// sums must be exactly those of its first `count` paths, traced again in
// small batches (the variance pass, one pixel at a time).
static void test_honest_counts(cs_context *ctx, const cs_bvh *bvh, cs_pt_settings s)
{
    static const uint32_t one[] = {SPP};
    float *sum = malloc(PIXELS * 16), *sq = malloc(PIXELS * 16);
    float *again = malloc(PIXELS * 16), *again_sq = malloc(PIXELS * 16);
    CS_ASSERT(sum && sq && again && again_sq, "out of host memory");
    cs_pathtracer pt;
    cs_error err;
    if (trace(ctx, bvh, &s, SPP, one, 1, sum, sq) && cs_pt_create(ctx, bvh, &s, &pt, &err)) {
        uint32_t short_pixels = 0, fewest = SPP;
        for (uint32_t p = 0; p < PIXELS; p++) {
            uint32_t count = (uint32_t)sum[4 * p + 3];
            short_pixels += count < SPP;
            fewest = CS_MIN(fewest, count);
            cs_recorder rec;
            cs_recorder_create(ctx, "test pathtrace honest counts", &rec);
            cs_recorder_begin(&rec);
            cs_pt_record_oversample(&rec, &pt, &p, 1, count);
            cs_recorder_submit_wait(&rec);
            cs_recorder_destroy(&rec);
        }
        cs_pt_read_pixels(ctx, &pt, again, again_sq, NULL);
        uint32_t differing = pixels_differing(sum, sq, again, again_sq);
        printf("one dispatch of %u paths (seed %u): %u of %u pixels stopped early (fewest %u paths); "
               "%u differ from their first paths traced in batches of %u\n", SPP, s.seed, short_pixels, PIXELS,
               fewest, differing, CS_PT_BATCH_SPP);
        CHECK(differing == 0, "%u pixels kept a truncated path (or lost one) when the driver cut loops short",
              differing);
        cs_pt_destroy(ctx, &pt);
    }
    free(sum);
    free(sq);
    free(again);
    free(again_sq);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    printf("seed %llu\n", (unsigned long long)test_seed());
    cs_bvh bvh;
    cs_pt_settings s;
    if (load_cornell(&bvh, &s)) {
        s.seed = (uint32_t)test_rand_u32();
        s.max_bounces = 12;
        test_same_bits(&ctx, &bvh, s, "NEE + roulette");
        s.nee = s.roulette = false;
        test_same_bits(&ctx, &bvh, s, "plain");
        test_more_bounces_more_light(&ctx, &bvh, s);
        test_honest_counts(&ctx, &bvh, s);
        cs_bvh_free(&bvh);
    }
    return test_finish(&ctx);
}
