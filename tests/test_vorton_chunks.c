// test_vorton_chunks.c — the direct sum split across dispatches
// (VORTON_SOURCE_CHUNK sources each, vorton_shared.h):
//   - 70 000 random vortons (more than lavapipe's 65 535 loop iterations
//     one invocation may run, docs/architecture.md), velocity at 64 random
//     points vs the CPU double sum: within 5e-5 of max |u| (float sums of
//     32 768 terms a chunk carry ~sqrt(32768) 2^-24 = 1.1e-5 of rounding
//     noise, so 1e-5 failed seed 9979004620615 at 1.38e-5: kept as a fixed
//     case below; the bug the split fixes is ~0.5). In one dispatch
//     lavapipe silently stops the loop early and drops the last sources
//     (printed as the control: that is the bug the split fixes; a real GPU
//     has no such budget, so it is not asserted);
//   - the same bits for any split: 500 vortons + 300 tracers with
//     viscosity, heat and buoyancy on, 3 steps with the default chunk and
//     with chunks of 192 sources (not a divisor of 500).
// ctest labels: quick,gpu -- 2
#include "test_util.h"

#include "vorton.h"
#include "ref/vorton_ref.h"
#include "vorton_probes.h"

#include <string.h>

static double uniform(double lo, double hi) { return lo + (hi - lo) * test_rand_unit(); }

static cs_vorton *make(cs_context *ctx, const cs_vorton_params *p, uint32_t n, uint32_t t)
{
    cs_vorton *v;
    cs_error err;
    if (!cs_vorton_create(ctx, p, n, t, &v, &err)) {
        CHECK(false, "%s", err.msg);
        exit(test_finish(ctx));
    }
    return v;
}

static void random_vortons(uint32_t n, float *pos, float *vort, double radius)
{
    for (uint32_t i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) {
            pos[i * 4 + d] = (float)uniform(-radius, radius);
            vort[i * 4 + d] = (float)uniform(-1.0, 1.0);
        }
        pos[i * 4 + 3] = (float)uniform(0.02, 0.04);
        vort[i * 4 + 3] = (float)uniform(290.0, 330.0);
    }
}

// Max |u_gpu - u_ref| / max |u_ref| at the points, with `chunk` sources a dispatch.
static double velocity_error(cs_vorton *v, const float *pos, const float *vort, uint32_t n, const float *points,
                             uint32_t m, uint32_t chunk)
{
    v->source_chunk = chunk;
    return vorton_probe_error(v, vorton_ref_velocity, pos, vort, n, points, m);
}

static void test_many_sources(cs_context *ctx)
{
    const uint32_t n = 70000, m = 64;
    float *pos = calloc(n, 16), *vort = calloc(n, 16), *points = calloc(m, 16);
    random_vortons(n, pos, vort, 1.0);
    for (uint32_t k = 0; k < m * 4; k++)
        points[k] = (float)uniform(-1.2, 1.2);
    cs_vorton_params p = {.dt = 0.01f, .ambient_temperature = 300.0f};
    cs_vorton *v = make(ctx, &p, n, 0);
    cs_vorton_upload(v, pos, vort, n);
    double split = velocity_error(v, pos, vort, n, points, m, VORTON_SOURCE_CHUNK);
    double whole = velocity_error(v, pos, vort, n, points, m, UINT32_MAX);
    printf("%u vortons, velocity at %u points vs CPU double: split into chunks of %u: %.2e of max |u|; one "
           "dispatch (control): %.2e\n",
           n, m, VORTON_SOURCE_CHUNK, split, whole);
    CHECK(split < 5e-5, "the split direct sum is off by %.2e of max |u|", split);
    cs_vorton_destroy(v);
    free(pos);
    free(vort);
    free(points);
}

static void run_steps(cs_context *ctx, uint32_t chunk, const float *pos, const float *vort, const float *tracers,
                      uint32_t n, uint32_t t, float *pos_out, float *vort_out, float *tracers_out)
{
    cs_vorton_params p = {.dt = 0.01f, .viscosity = 1e-3f, .diffusivity = 1e-3f, .expansion = 3e-3f,
                          .ambient_temperature = 300.0f, .gravity = {0.0f, -9.81f, 0.0f}};
    cs_vorton *v = make(ctx, &p, n, t);
    v->source_chunk = chunk;
    cs_vorton_upload(v, pos, vort, n);
    cs_vorton_upload_tracers(v, tracers, t);
    cs_recorder rec;
    cs_recorder_create(ctx, "chunk steps", &rec);
    cs_recorder_begin(&rec);
    for (int s = 0; s < 3; s++)
        cs_vorton_record_step(v, &rec);
    cs_recorder_submit_wait(&rec);
    cs_vorton_download(v, pos_out, vort_out);
    cs_vorton_download_tracers(v, tracers_out);
    cs_recorder_destroy(&rec);
    cs_vorton_destroy(v);
}

static void test_same_bits(cs_context *ctx)
{
    const uint32_t n = 500, t = 300;
    float *pos = calloc(n, 16), *vort = calloc(n, 16), *tracers = calloc(t, 16);
    float *out[2][3];
    random_vortons(n, pos, vort, 0.3);
    for (uint32_t k = 0; k < t * 4; k++)
        tracers[k] = (float)uniform(-0.4, 0.4);
    for (int r = 0; r < 2; r++) {
        out[r][0] = calloc(n, 16);
        out[r][1] = calloc(n, 16);
        out[r][2] = calloc(t, 16);
        run_steps(ctx, r ? 192u : VORTON_SOURCE_CHUNK, pos, vort, tracers, n, t, out[r][0], out[r][1], out[r][2]);
    }
    bool same = memcmp(out[0][0], out[1][0], n * 16) == 0 && memcmp(out[0][1], out[1][1], n * 16) == 0 &&
                memcmp(out[0][2], out[1][2], t * 16) == 0;
    bool moved = memcmp(out[0][0], pos, n * 16) != 0;
    printf("%u vortons + %u tracers, 3 steps, chunks of %u and of 192 sources: %s\n", n, t, VORTON_SOURCE_CHUNK,
           same ? "identical bytes" : "DIFFER");
    CHECK(moved, "the vortons did not move");
    CHECK(same, "a different split of the direct sum changed the result");
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 3; k++)
            free(out[r][k]);
    free(pos);
    free(vort);
    free(tracers);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_many_sources(&ctx);
    // The seed that once failed the old 1e-5 bound (1.38e-5), kept as a case.
    uint64_t resume = test_rand_begin_fixed(9979004620615ull);
    test_many_sources(&ctx);
    test_rand_resume(resume);
    test_same_bits(&ctx);
    return test_finish(&ctx);
}
