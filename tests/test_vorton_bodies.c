// test_vorton_bodies.c — the vorton solver's frame stats (reduced on the
// GPU, pipelines/vorton.c cs_vorton_stats) against a host pass over a full
// download: the max vorton speed and the count of particles holding a
// NaN/Inf (vortons and tracers both counted).
#include "test_util.h"

#include "vorton.h"

#include <string.h>

static double uniform(double lo, double hi) { return lo + (hi - lo) * test_rand_unit(); }

static cs_vorton *make_vortons(cs_context *ctx, uint32_t n, uint32_t t, float *pos, float *vort, float *tracers)
{
    cs_vorton_params p = {.dt = 0.01f, .stretching = VORTON_STRETCH_TRANSPOSE, .ambient_temperature = 300.0f};
    cs_vorton *v;
    cs_error err;
    if (!cs_vorton_create(ctx, &p, n, t, &v, &err)) {
        CHECK(false, "%s", err.msg);
        exit(test_finish(ctx));
    }
    cs_vorton_upload(v, pos, vort, n);
    cs_vorton_upload_tracers(v, tracers, t);
    return v;
}

static void record_rates(cs_vorton *v)
{
    cs_recorder rec;
    cs_recorder_create(v->ctx, "vorton rates", &rec);
    cs_recorder_begin(&rec);
    cs_vorton_record_rates(v, &rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
}

// Sizes straddle the reduction's block (and one more tracer than vortons,
// and the other way) so a term lost past either count shows.
static void test_stats(cs_context *ctx, uint32_t n, uint32_t t)
{
    float *pos = calloc(n, 16), *vort = calloc(n, 16), *tracers = calloc(t, 16), *vel = calloc(n, 16);
    for (uint32_t i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) {
            pos[i * 4 + d] = (float)uniform(0.0, 1.0);
            vort[i * 4 + d] = (float)uniform(-3.0, 3.0);
        }
        pos[i * 4 + 3] = 0.1f;
        vort[i * 4 + 3] = 300.0f;
    }
    for (uint32_t i = 0; i < t * 4; i++)
        tracers[i] = (float)uniform(0.0, 1.0);
    cs_vorton *v = make_vortons(ctx, n, t, pos, vort, tracers);
    record_rates(v);
    cs_vorton_download_rates(v, vel, NULL);
    // One broken vorton (not the fastest: the host max skips it) and one
    // broken tracer, both the last of their arrays; the velocities stay.
    double host_max = 0.0;
    for (uint32_t i = 0; i + 1 < n; i++)
        host_max = fmax(host_max, sqrt((double)vel[i * 4] * vel[i * 4] + (double)vel[i * 4 + 1] * vel[i * 4 + 1] +
                                       (double)vel[i * 4 + 2] * vel[i * 4 + 2]));
    pos[(n - 1) * 4 + 1] = NAN;
    tracers[(t - 1) * 4 + 2] = INFINITY;
    cs_vorton_upload(v, pos, vort, n);
    cs_vorton_upload_tracers(v, tracers, t);
    cs_sim_stats s;
    cs_vorton_stats(v, &s);
    double rel = fabs(s.max_speed - host_max) / host_max;
    printf("stats, %u vortons + %u tracers: max speed %.7g (host %.7g, rel %.1e), non-finite %u (2 planted)\n", n, t,
           s.max_speed, host_max, rel, s.non_finite);
    CHECK(rel < 1e-6, "max speed %.7g vs host %.7g", s.max_speed, host_max);
    CHECK(s.non_finite == 2, "%u non-finite particles, 2 planted", s.non_finite);
    CHECK(s.particles == n, "%u particles reported, %u vortons", s.particles, n);
    cs_vorton_destroy(v);
    free(pos);
    free(vort);
    free(tracers);
    free(vel);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_stats(&ctx, 700, 2100);
    test_stats(&ctx, 2100, 700);
    return test_finish(&ctx);
}
