// test_vorton_ring_core.c — issue 44 item 4: a vortex ring made by the
// ring fill travels at Kelvin's speed at every core thickness.
//
// Rings of R 1, Gamma 1 with a uniform core a, a/R 0.05, 0.1, 0.2, 0.3,
// sampled at spacing a/2 (the shipped vorton_rings_3d's ratio, the
// coarsest the issue ran) and at a/R 0.3 also at a/3; the direct
// Biot-Savart sum (the solver's default), transpose stretching, no
// viscosity. The speed of the vorticity-weighted axial centre over 40
// steps after 10 to settle, against Kelvin's
//   U = Gamma / (4 pi R) (ln(8 R / a) - 1/4)
// computed here: within SPEED_TOLERANCE (10%). dt keeps the core's turn
// Gamma / (pi a^2) dt at 0.28, the value of test_vorton's ring (dt 0.02 at
// a = 0.15): a thinner core turns faster.
// Before the ring fill capped its vortons' radius at a/4 they had the
// spacing's: llvmpipe -16.4% at a/R 0.3 with a/2, -10.7% with a/3 (the
// issue's -16% and -10.4%); now -5.2 .. -9.1% (docs/vortons.md).
//   test_vorton_ring_core A_OVER_R SPACING: one ring, printed.
// ctest labels: slow,gpu -- 20 (62 under load): ring speed vs Kelvin at a/R 0.05 .. 0.3
#include "test_util.h"

#include "ref/vorton_ref.h"
#include "vorton.h"

#include <stdlib.h>

#define SPEED_TOLERANCE 0.10
#define CORE_TURN_PER_STEP 0.28

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

// Kelvin's speed of a thin ring with a uniform core.
static double kelvin(double gamma, double R, double a)
{
    return gamma / (4.0 * VORTON_PI * R) * (log(8.0 * R / a) - 0.25);
}

// The ring's speed (R 1, Gamma 1, core a) and its count.
static double ring_speed(cs_context *ctx, double a, double spacing, uint32_t *count)
{
    const cs_vorton_ring ring = {.centre = {0, 0, 0},
                                 .axis = {0, 1, 0},
                                 .radius = 1.0f,
                                 .core = (float)a,
                                 .circulation = 1.0f};
    uint32_t n = cs_vorton_ring_fill(&ring, (float)spacing, NULL, NULL, 0);
    *count = n;
    float *pos = calloc(n, 16), *vort = calloc(n, 16);
    CHECK(pos && vort && cs_vorton_ring_fill(&ring, (float)spacing, pos, vort, n) == n, "ring fill");
    cs_vorton_params p = {.dt = (float)(CORE_TURN_PER_STEP * VORTON_PI * a * a / ring.circulation),
                          .stretching = VORTON_STRETCH_TRANSPOSE,
                          .ambient_temperature = 300.0f};
    cs_vorton *v;
    cs_error err;
    if (!cs_vorton_create(ctx, &p, n, 0, &v, &err)) {
        CHECK(false, "%s", err.msg);
        exit(test_finish(ctx));
    }
    cs_vorton_upload(v, pos, vort, n);
    // The lattice core is not an equilibrium: let it settle, then time it.
    const uint32_t settle = 10, timed = 40;
    run_steps(v, settle);
    cs_vorton_download(v, pos, vort);
    double y0 = vorton_ref_axial_centre(pos, vort, n);
    run_steps(v, timed);
    cs_vorton_download(v, pos, vort);
    double y1 = vorton_ref_axial_centre(pos, vort, n);
    cs_vorton_destroy(v);
    free(pos);
    free(vort);
    return (y1 - y0) / (timed * p.dt);
}

static void check_ring(cs_context *ctx, double a, double spacing)
{
    uint32_t n;
    double u = ring_speed(ctx, a, spacing, &n), k = kelvin(1.0, 1.0, a), rel = u / k - 1.0;
    printf("ring a/R %.2f, spacing a/%.0f: %u vortons, speed %.5f, Kelvin %.5f (%+.2f%%)\n", a, a / spacing, n, u, k,
           100 * rel);
    CHECK(isfinite(u) && fabs(rel) <= SPEED_TOLERANCE,
          "ring a/R %.2f, spacing a/%.0f: speed %.5f vs Kelvin %.5f: %+.1f%%", a, a / spacing, u, k, 100 * rel);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); // whole lines in a log that also holds stderr
    cs_context ctx;
    test_context(&ctx);
    if (argc > 2) {
        check_ring(&ctx, atof(argv[1]), atof(argv[2]));
        return test_finish(&ctx);
    }
    static const double cores[] = {0.3, 0.2, 0.1, 0.05};
    for (size_t i = 0; i < CS_ARRAY_COUNT(cores); i++)
        check_ring(&ctx, cores[i], cores[i] / 2.0);
    check_ring(&ctx, 0.3, 0.1);
    return test_finish(&ctx);
}
