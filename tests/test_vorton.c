// test_vorton.c — the vortex-particle solver (pipelines/vorton/vorton.c) against its
// double-precision CPU reference (tests/ref/vorton_ref.h) and by physics:
//   - one vorton: velocity at random points vs the CPU Biot-Savart sum;
//   - a random set (random radii, vorticity, temperature): velocity at
//     points and every rate at the vortons (both stretching schemes, PSE,
//     heat, buoyancy) vs the CPU;
//   - a thick-cored ring travels at Kelvin's speed
//     U = Gamma / (4 pi R) (ln(8 R / a) - 1/4) within 10%;
//   - total vorticity sum(omega V) and heat sum(T V) conserved within 1e-4
//     relative over 1000 steps (transpose stretching, viscosity, heat
//     diffusion and buoyancy on); the classical scheme, which does not
//     conserve it, is run as the control the measure must catch;
//   - two runs (vortons and tracers) give identical bytes;
//   - the shipped scenes run through the world: tracers move, nothing
//     non-finite; bad keys are refused with their path.
// ctest labels: slow,gpu -- 30 (61 under load)
#include "test_util.h"

#include "vorton.h"
#include "world.h"
#include "ref/vorton_ref.h"
#include "vorton_probes.h"

#include <string.h>

static cs_vorton_params default_params(void)
{
    return (cs_vorton_params){.dt = 0.01f, .stretching = VORTON_STRETCH_TRANSPOSE, .ambient_temperature = 300.0f};
}

static vorton_ref_params ref_params(const cs_vorton_params *p)
{
    return (vorton_ref_params){
        .stretching = p->stretching,
        .viscosity = p->viscosity,
        .diffusivity = p->diffusivity,
        .expansion = p->expansion,
        .ambient = p->ambient_temperature,
        .gravity = {p->gravity[0], p->gravity[1], p->gravity[2]},
    };
}

static double uniform(double lo, double hi) { return lo + (hi - lo) * test_rand_unit(); }

// n vortons in the unit cube, radii in [0.08, 0.12], |omega| up to w_max,
// temperatures ambient + [0, 10].
static void random_vortons(uint32_t n, double w_max, float *pos4, float *vort4)
{
    for (uint32_t i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) {
            pos4[i * 4 + d] = (float)uniform(0.0, 1.0);
            vort4[i * 4 + d] = (float)uniform(-w_max, w_max);
        }
        pos4[i * 4 + 3] = (float)uniform(0.08, 0.12);
        vort4[i * 4 + 3] = (float)(300.0 + uniform(0.0, 10.0));
    }
}

static void run_steps(cs_vorton *v, uint32_t steps)
{
    cs_recorder rec;
    cs_recorder_create(v->ctx, "vorton steps", &rec);
    for (uint32_t done = 0; done < steps;) {
        cs_recorder_begin(&rec);
        for (uint32_t k = 0; k < 100 && done < steps; k++, done++)
            cs_vorton_record_step(v, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_recorder_destroy(&rec);
}

// Velocity at `count` random points near the unit cube, GPU vs CPU; returns
// max |error| / max |u|.
static double velocity_error(cs_vorton *v, const float *pos4, const float *vort4, uint32_t count)
{
    float *points = calloc(count, 16);
    for (uint32_t i = 0; i < count * 4; i++)
        points[i] = (i % 4 == 3) ? 0.0f : (float)uniform(-0.5, 1.5);
    double e = vorton_probe_error(v, vorton_ref_velocity, pos4, vort4, v->count, points, count);
    free(points);
    return e;
}

static void test_one_vorton(cs_context *ctx)
{
    float pos[4] = {0.5f, 0.5f, 0.5f, 0.1f};
    float vort[4];
    for (int d = 0; d < 3; d++)
        vort[d] = (float)uniform(-10.0, 10.0);
    vort[3] = 300.0f;
    cs_vorton_params p = default_params();
    cs_vorton *v;
    cs_error err;
    if (!cs_vorton_create(ctx, &p, 1, 0, &v, &err)) {
        CHECK(false, "%s", err.msg);
        exit(test_finish(ctx));
    }
    cs_vorton_upload(v, pos, vort, 1);
    double e = velocity_error(v, pos, vort, 1000);
    printf("one vorton: velocity at 1000 points, max error %.2e of max |u|\n", e);
    CHECK(e < 1e-5, "one vorton: velocity error %.2e", e);
    cs_vorton_destroy(v);
}

// Every rate at the vortons vs the CPU; returns max relative error (each
// quantity against its own max norm).
static double rates_error(cs_vorton *v, const float *pos4, const float *vort4, const cs_vorton_params *p)
{
    uint32_t n = v->count;
    float *vel = calloc(n, 16), *rate = calloc(n, 16);
    cs_buffer_fill(v->ctx, &v->vel, 0xffffffffu);
    cs_buffer_fill(v->ctx, &v->rate, 0xffffffffu);
    cs_recorder rec;
    cs_recorder_create(v->ctx, "vorton rates", &rec);
    cs_recorder_begin(&rec);
    cs_vorton_record_rates(v, &rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    cs_vorton_download_rates(v, vel, rate);
    vorton_ref_params rp = ref_params(p);
    double err[3] = {0}, norm[3] = {0};
    for (uint32_t i = 0; i < n; i++) {
        double u[3], dw[3], dt;
        vorton_ref_rates(pos4, vort4, n, i, &rp, u, dw, &dt);
        for (int d = 0; d < 3; d++) {
            err[0] = fmax(err[0], fabs(vel[i * 4 + d] - u[d]));
            err[1] = fmax(err[1], fabs(rate[i * 4 + d] - dw[d]));
            norm[0] = fmax(norm[0], fabs(u[d]));
            norm[1] = fmax(norm[1], fabs(dw[d]));
            if (isnan(vel[i * 4 + d]) || isnan(rate[i * 4 + d]))
                err[0] = INFINITY;
        }
        err[2] = fmax(err[2], fabs(rate[i * 4 + 3] - dt));
        norm[2] = fmax(norm[2], fabs(dt));
    }
    free(vel);
    free(rate);
    double worst = 0.0;
    for (int k = 0; k < 3; k++)
        worst = fmax(worst, err[k] / fmax(norm[k], 1e-2)); // a lone vorton's rates are 0
    printf("    velocity %.2e, d omega/dt %.2e, dT/dt %.2e (relative to max norm, at least 0.01)\n",
           err[0] / fmax(norm[0], 1e-2), err[1] / fmax(norm[1], 1e-2), err[2] / fmax(norm[2], 1e-2));
    return worst;
}

static void test_random_set(cs_context *ctx)
{
    const uint32_t sizes[] = {1, 63, 64, 65, 1000};
    const char *schemes[] = {"transpose", "classical", "none"};
    for (size_t s = 0; s < CS_ARRAY_COUNT(sizes); s++) {
        uint32_t n = sizes[s];
        float *pos = calloc(n, 16), *vort = calloc(n, 16);
        random_vortons(n, 5.0, pos, vort);
        for (uint32_t scheme = 0; scheme <= VORTON_STRETCH_NONE; scheme++) {
            cs_vorton_params p = default_params();
            p.stretching = scheme;
            p.viscosity = 0.01f;
            p.diffusivity = 0.02f;
            p.expansion = 0.003f;
            p.gravity[1] = -9.81f;
            cs_vorton *v;
            cs_error err;
            if (!cs_vorton_create(ctx, &p, n, 0, &v, &err)) {
        CHECK(false, "%s", err.msg);
        exit(test_finish(ctx));
    }
            cs_vorton_upload(v, pos, vort, n);
            printf("random set of %u, %s stretching:\n", n, schemes[scheme]);
            double e = rates_error(v, pos, vort, &p);
            CHECK(e < 2e-4, "random set %u (%s): rates error %.2e", n, schemes[scheme], e);
            if (scheme == 0) {
                double ev = velocity_error(v, pos, vort, 500);
                printf("    velocity at 500 points %.2e\n", ev);
                CHECK(ev < 2e-4, "random set %u: velocity at points error %.2e", n, ev);
            }
            cs_vorton_destroy(v);
        }
        free(pos);
        free(vort);
    }
}

static void test_kelvin_ring(cs_context *ctx)
{
    const cs_vorton_ring ring = {.centre = {0, 0, 0}, .axis = {0, 1, 0}, .radius = 1.0f, .core = 0.15f,
                                 .circulation = 1.0f};
    const float spacing = 0.05f;
    uint32_t n = cs_vorton_ring_fill(&ring, spacing, NULL, NULL, 0);
    float *pos = calloc(n, 16), *vort = calloc(n, 16);
    CHECK(cs_vorton_ring_fill(&ring, spacing, pos, vort, n) == n, "ring fill");
    cs_vorton_params p = default_params();
    p.dt = 0.02f;
    cs_vorton *v;
    cs_error err;
    if (!cs_vorton_create(ctx, &p, n, 0, &v, &err)) {
        CHECK(false, "%s", err.msg);
        exit(test_finish(ctx));
    }
    cs_vorton_upload(v, pos, vort, n);
    // Let the core settle (the lattice core is not an equilibrium), then time it.
    const uint32_t settle = 10, timed = 40;
    run_steps(v, settle);
    cs_vorton_download(v, pos, vort);
    double y0 = vorton_ref_axial_centre(pos, vort, n);
    run_steps(v, timed);
    cs_vorton_download(v, pos, vort);
    double y1 = vorton_ref_axial_centre(pos, vort, n);
    double measured = (y1 - y0) / (timed * p.dt);
    double R = ring.radius, a = ring.core, gamma = ring.circulation;
    double kelvin = gamma / (4.0 * VORTON_PI * R) * (log(8.0 * R / a) - 0.25);
    double rel = (measured - kelvin) / kelvin;
    printf("ring R %.2f core %.2f Gamma %.1f, %u vortons at spacing %.3f: speed %.5f, Kelvin %.5f (%+.2f%%)\n", R, a,
           gamma, n, spacing, measured, kelvin, 100.0 * rel);
    CHECK(fabs(rel) < 0.10, "ring speed %.5f vs Kelvin %.5f: %+.1f%%", measured, kelvin, 100.0 * rel);
    cs_vorton_destroy(v);
    free(pos);
    free(vort);
}

// Totals in double, fixed order: sum(omega V) (3), sum(|omega| V), sum((T - T0) V), sum(|T - T0| V).
static void totals(const float *pos4, const float *vort4, uint32_t n, double t0, double out[6])
{
    memset(out, 0, 6 * sizeof *out);
    for (uint32_t i = 0; i < n; i++) {
        double s = pos4[i * 4 + 3], vol = s * s * s, mag = 0.0;
        for (int d = 0; d < 3; d++) {
            out[d] += vort4[i * 4 + d] * vol;
            mag += (double)vort4[i * 4 + d] * vort4[i * 4 + d];
        }
        out[3] += sqrt(mag) * vol;
        out[4] += (vort4[i * 4 + 3] - t0) * vol;
        out[5] += fabs(vort4[i * 4 + 3] - t0) * vol;
    }
}

// Returns the relative drift of total vorticity; *heat_drift that of heat.
static double conservation_drift(cs_context *ctx, uint32_t scheme, const float *pos0, const float *vort0, uint32_t n,
                                 uint32_t steps, double *heat_drift)
{
    cs_vorton_params p = default_params();
    p.stretching = scheme;
    p.dt = 0.002f;
    p.viscosity = 0.002f;
    p.diffusivity = 0.002f;
    p.expansion = 0.003f;
    p.gravity[1] = -9.81f;
    cs_vorton *v;
    cs_error err;
    if (!cs_vorton_create(ctx, &p, n, 0, &v, &err)) {
        CHECK(false, "%s", err.msg);
        exit(test_finish(ctx));
    }
    cs_vorton_upload(v, pos0, vort0, n);
    double before[6], after[6];
    totals(pos0, vort0, n, p.ambient_temperature, before);
    run_steps(v, steps);
    float *pos = calloc(n, 16), *vort = calloc(n, 16);
    cs_vorton_download(v, pos, vort);
    totals(pos, vort, n, p.ambient_temperature, after);
    double drift = 0.0;
    for (int d = 0; d < 3; d++)
        drift = fmax(drift, fabs(after[d] - before[d]) / before[3]);
    *heat_drift = fabs(after[4] - before[4]) / before[5];
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n * 4; i++)
        bad += !isfinite(pos[i]) || !isfinite(vort[i]);
    CHECK(bad == 0, "%u non-finite values after %u steps", bad, steps);
    cs_vorton_destroy(v);
    free(pos);
    free(vort);
    return drift;
}

static void test_conservation(cs_context *ctx)
{
    const uint32_t n = 256, steps = 1000;
    float *pos = calloc(n, 16), *vort = calloc(n, 16);
    random_vortons(n, 2.0, pos, vort);
    double heat_t, heat_c;
    double transpose = conservation_drift(ctx, VORTON_STRETCH_TRANSPOSE, pos, vort, n, steps, &heat_t);
    double classical = conservation_drift(ctx, VORTON_STRETCH_CLASSICAL, pos, vort, n, steps, &heat_c);
    printf("%u random vortons, %u steps: total vorticity drift %.2e (transpose), %.2e (classical, control); "
           "heat drift %.2e\n", n, steps, transpose, classical, heat_t);
    CHECK(transpose < 1e-4, "total vorticity drifted %.2e", transpose);
    CHECK(heat_t < 1e-4, "heat drifted %.2e", heat_t);
    CHECK(classical > 1e-3, "the classical scheme's drift %.2e should show the measure can fail", classical);
    free(pos);
    free(vort);
}

static void run_for_bytes(cs_context *ctx, const float *pos0, const float *vort0, uint32_t n, const float *tracers0,
                          uint32_t t, float *pos, float *vort, float *tracers)
{
    cs_vorton_params p = default_params();
    p.viscosity = 0.001f;
    p.diffusivity = 0.001f;
    p.expansion = 0.003f;
    p.gravity[1] = -9.81f;
    p.dt = 0.002f;
    cs_vorton *v;
    cs_error err;
    if (!cs_vorton_create(ctx, &p, n, t, &v, &err)) {
        CHECK(false, "%s", err.msg);
        exit(test_finish(ctx));
    }
    cs_vorton_upload(v, pos0, vort0, n);
    cs_vorton_upload_tracers(v, tracers0, t);
    run_steps(v, 50);
    cs_vorton_download(v, pos, vort);
    cs_vorton_download_tracers(v, tracers);
    cs_vorton_destroy(v);
}

static void test_determinism(cs_context *ctx)
{
    const uint32_t n = 500, t = 700;
    float *pos0 = calloc(n, 16), *vort0 = calloc(n, 16), *tr0 = calloc(t, 16);
    random_vortons(n, 2.0, pos0, vort0);
    for (uint32_t i = 0; i < t * 4; i++)
        tr0[i] = (float)uniform(0.0, 1.0);
    float *a[3] = {calloc(n, 16), calloc(n, 16), calloc(t, 16)};
    float *b[3] = {calloc(n, 16), calloc(n, 16), calloc(t, 16)};
    run_for_bytes(ctx, pos0, vort0, n, tr0, t, a[0], a[1], a[2]);
    run_for_bytes(ctx, pos0, vort0, n, tr0, t, b[0], b[1], b[2]);
    bool same = memcmp(a[0], b[0], n * 16) == 0 && memcmp(a[1], b[1], n * 16) == 0 && memcmp(a[2], b[2], t * 16) == 0;
    bool moved = memcmp(a[2], tr0, t * 16) != 0;
    printf("determinism: two runs of %u vortons + %u tracers, 50 steps: %s\n", n, t, same ? "identical" : "DIFFER");
    CHECK(same, "two runs differ");
    CHECK(moved, "the tracers did not move");
    for (int k = 0; k < 3; k++) {
        free(a[k]);
        free(b[k]);
    }
    free(pos0);
    free(vort0);
    free(tr0);
}

// One frame of a shipped scene through cs_world (the solver's ops).
static void test_scene_runs(cs_context *ctx, const char *name)
{
    cs_scene scene;
    cs_error err;
    if (!cs_scene_load(name, &scene, &err)) {
        CHECK(false, "%s: %s", name, err.msg);
        return;
    }
    cs_world world;
    if (!cs_world_create(ctx, &scene, &world, &err)) {
        CHECK(false, "world of %s: %s", name, err.msg);
        cs_scene_free(&scene);
        return;
    }
    cs_recorder rec;
    cs_recorder_create(ctx, "vorton scene", &rec);
    cs_recorder_begin(&rec);
    cs_world_record_frame(&world, &rec);
    cs_recorder_submit_wait(&rec);
    cs_sim_stats total, per_fluid[4];
    cs_world_stats(&world, &total, per_fluid);
    printf("%s: %u vortons, one frame: max speed %.3f m/s, %u non-finite\n", name, total.particles,
           total.max_speed, total.non_finite);
    CHECK(total.particles > 0 && total.non_finite == 0 && total.max_speed > 0.0 && isfinite(total.max_speed),
          "%s: %u vortons, max speed %g, %u non-finite", name, total.particles, total.max_speed, total.non_finite);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

static void test_bad_keys(void)
{
    const char *text = "{\"dim\": 3, \"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]}, \"fluids\": [{"
                       "\"solver\": \"vorton\", \"particle_spacing\": 0.1, "
                       "\"materials\": [{\"name\": \"air\"}], "
                       "\"blocks\": [{\"min\": [0,0,0], \"max\": [0.2,0.2,0.2], \"material\": \"air\"}], "
                       "\"vorton\": {\"rings\": [{\"radius\": 0.1, \"core\": 0.2}]}}]}";
    cs_scene scene;
    cs_error err = {{0}};
    bool parsed = cs_scene_parse(text, strlen(text), "bad.json", &scene, &err);
    CHECK(parsed, "bad.json: %s", err.msg);
    if (!parsed)
        return;
    // The block is parsed before anything touches the device.
    void *state = NULL;
    bool refused = !cs_vorton_ops.create(NULL, &scene.fluids[0], &state, &err);
    printf("a core larger than its ring: %s\n", err.msg);
    CHECK(refused && strstr(err.msg, "vorton.rings[0].core"), "not refused with its key: %s", err.msg);
    cs_scene_free(&scene);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_one_vorton(&ctx);
    test_random_set(&ctx);
    test_kelvin_ring(&ctx);
    test_conservation(&ctx);
    test_determinism(&ctx);
    test_scene_runs(&ctx, "vorton_rings_3d");
    test_scene_runs(&ctx, "vorton_plume_3d");
    test_bad_keys();
    return test_finish(&ctx);
}
