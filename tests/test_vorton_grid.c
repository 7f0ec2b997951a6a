// test_vorton_grid.c — the vortex-in-cell velocity solve of the vorton
// solver (`"velocity": "grid"`, pipelines/vorton/vorton_grid.c) against the
// double-precision Biot-Savart sum and by physics:
//   - one vorton, and a random set of 64 in a ball: grid velocity at probes
//     away from the vortons vs the CPU double sum, at 16, 32 and 64 cells
//     per axis; the error must fall at every refinement and be below 3% (one
//     vorton) and 2% (the set) of max |u| at 64 (the table is printed);
//   - a thick-cored ring travels at Kelvin's speed within 10%;
//   - two runs (vortons, tracers, local terms on) give identical bytes.
// The reference is the unregularised sum u = sum alpha x r / (4 pi |r|^3)
// (the grid's own smoothing is its cell, not sigma), probed at least 0.15
// from every vorton, where the sum is smooth.
// ctest labels: slow,gpu -- 56
#include "test_util.h"
#include "vorton_probes.h"

#include "vorton.h"
#include "ref/vorton_ref.h"

#include <string.h>

static const uint32_t resolutions[] = {16, 32, 64};

static double uniform(double lo, double hi) { return lo + (hi - lo) * test_rand_unit(); }

static cs_vorton_params grid_params(uint32_t cells, const float origin[3], float size)
{
    return (cs_vorton_params){
        .dt = 0.01f,
        .stretching = VORTON_STRETCH_TRANSPOSE,
        .ambient_temperature = 300.0f,
        .velocity = VORTON_VELOCITY_GRID,
        .grid_origin = {origin[0], origin[1], origin[2]},
        .grid_size = size,
        .grid_cells = cells,
        .grid_cycles = 4,
    };
}

static cs_vorton *make_vorton(cs_context *ctx, const cs_vorton_params *p, uint32_t n, uint32_t tracers)
{
    cs_vorton *v;
    cs_error err;
    if (!cs_vorton_create(ctx, p, n, tracers, &v, &err)) {
        CHECK(false, "%s", err.msg);
        exit(test_finish(ctx));
    }
    return v;
}

// Grid velocity at `count` probe points (vec4) vs the double sum: max
// |error| / max |u|.
static double grid_error(cs_context *ctx, uint32_t cells, const float *pos4, const float *vort4, uint32_t n,
                         const float *points, uint32_t count)
{
    const float origin[3] = {0, 0, 0};
    cs_vorton_params p = grid_params(cells, origin, 1.0f);
    cs_vorton *v = make_vorton(ctx, &p, n, 0);
    cs_vorton_upload(v, pos4, vort4, n);
    double error = vorton_probe_error(v, vorton_singular_velocity, pos4, vort4, n, points, count);
    cs_vorton_destroy(v);
    return error;
}

// Probes at distance [r_lo, r_hi] from `centre`, random directions.
static float *shell_points(const double centre[3], double r_lo, double r_hi, uint32_t count)
{
    float *points = calloc(count, 16);
    for (uint32_t i = 0; i < count; i++) {
        double d[3], len;
        do {
            for (int a = 0; a < 3; a++)
                d[a] = uniform(-1.0, 1.0);
            len = sqrt(vorton_ref_dot(d, d));
        } while (len > 1.0 || len < 1e-3);
        double r = uniform(r_lo, r_hi);
        for (int a = 0; a < 3; a++)
            points[i * 4 + a] = (float)(centre[a] + r * d[a] / len);
    }
    return points;
}

// Error at each resolution; checks it falls at every refinement and ends
// below `finest_bound`.
static void check_convergence(cs_context *ctx, const char *what, const float *pos4, const float *vort4, uint32_t n,
                              const float *points, uint32_t count, double finest_bound)
{
    double errors[CS_ARRAY_COUNT(resolutions)];
    printf("%s: grid velocity vs the double Biot-Savart sum at %u probes\n", what, count);
    printf("  cells  h        max error / max |u|\n");
    for (size_t k = 0; k < CS_ARRAY_COUNT(resolutions); k++) {
        errors[k] = grid_error(ctx, resolutions[k], pos4, vort4, n, points, count);
        printf("  %5u  %.5f  %.3e%s\n", resolutions[k], 1.0 / resolutions[k], errors[k],
               k ? "" : "");
        if (k)
            CHECK(errors[k] < errors[k - 1], "%s: error %.3e at %u cells is not below %.3e at %u", what, errors[k],
                  resolutions[k], errors[k - 1], resolutions[k - 1]);
    }
    size_t last = CS_ARRAY_COUNT(resolutions) - 1;
    printf("  order of the last refinement: %.2f\n", log2(errors[last - 1] / errors[last]));
    CHECK(errors[last] < finest_bound, "%s: error %.3e at %u cells (bound %.2e)", what, errors[last],
          resolutions[last], finest_bound);
}

static void test_one_vorton(cs_context *ctx)
{
    double centre[3];
    for (int a = 0; a < 3; a++)
        centre[a] = uniform(0.45, 0.55);
    float pos[4] = {(float)centre[0], (float)centre[1], (float)centre[2], 0.02f};
    float vort[4] = {0, 0, 0, 300.0f};
    for (int d = 0; d < 3; d++)
        vort[d] = (float)uniform(-1000.0, 1000.0);
    float *points = shell_points(centre, 0.15, 0.3, 500);
    check_convergence(ctx, "one vorton", pos, vort, 1, points, 500, 0.03);
    free(points);
}

static void test_random_set(cs_context *ctx)
{
    const uint32_t n = 64;
    const double centre[3] = {0.5, 0.5, 0.5};
    float *pos = calloc(n, 16), *vort = calloc(n, 16);
    float *inside = shell_points(centre, 0.0, 0.08, n);
    for (uint32_t i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) {
            pos[i * 4 + d] = inside[i * 4 + d];
            vort[i * 4 + d] = (float)uniform(-100.0, 100.0);
        }
        pos[i * 4 + 3] = (float)uniform(0.015, 0.025);
        vort[i * 4 + 3] = 300.0f;
    }
    float *points = shell_points(centre, 0.23, 0.38, 500);
    check_convergence(ctx, "random set of 64 in a ball of 0.08", pos, vort, n, points, 500, 0.02);
    free(points);
    free(inside);
    free(pos);
    free(vort);
}

static void run_steps(cs_vorton *v, uint32_t steps)
{
    cs_recorder rec;
    cs_recorder_create(v->ctx, "vorton grid steps", &rec);
    for (uint32_t done = 0; done < steps;) {
        cs_recorder_begin(&rec);
        for (uint32_t k = 0; k < 10 && done < steps; k++, done++)
            cs_vorton_record_step(v, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_recorder_destroy(&rec);
}

// The ring of test_vorton.c (R = 1, a = 0.15, Gamma = 1, sigma = 0.05) in a
// cube of edge 3 (h = 3/64 = 0.047, about sigma), timed over 20 steps of
// 0.02 s after 5 to settle.
static void test_kelvin_ring(cs_context *ctx)
{
    const cs_vorton_ring ring = {.centre = {0, 0, 0}, .axis = {0, 1, 0}, .radius = 1.0f, .core = 0.15f,
                                 .circulation = 1.0f};
    const float spacing = 0.05f;
    uint32_t n = cs_vorton_ring_fill(&ring, spacing, NULL, NULL, 0);
    float *pos = calloc(n, 16), *vort = calloc(n, 16);
    CHECK(cs_vorton_ring_fill(&ring, spacing, pos, vort, n) == n, "ring fill");
    const float origin[3] = {-1.5f, -1.3f, -1.5f};
    cs_vorton_params p = grid_params(64, origin, 3.0f);
    p.dt = 0.02f;
    cs_vorton *v = make_vorton(ctx, &p, n, 0);
    cs_vorton_upload(v, pos, vort, n);
    const uint32_t settle = 5, timed = 20;
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
    printf("grid ring R %.2f core %.2f Gamma %.1f, %u vortons, 64 cells of %.4f: speed %.5f, Kelvin %.5f (%+.2f%%)\n",
           R, a, gamma, n, 3.0 / 64, measured, kelvin, 100.0 * rel);
    CHECK(fabs(rel) < 0.10, "grid ring speed %.5f vs Kelvin %.5f: %+.1f%%", measured, kelvin, 100.0 * rel);
    cs_vorton_destroy(v);
    free(pos);
    free(vort);
}

// 500 random vortons and 700 tracers in the unit cube, viscosity, heat and
// buoyancy on (the local pair terms plus the grid), 20 steps, twice.
static void run_for_bytes(cs_context *ctx, const float *pos0, const float *vort0, uint32_t n, const float *tracers0,
                          uint32_t t, float *out[3])
{
    const float origin[3] = {-0.5f, -0.5f, -0.5f};
    cs_vorton_params p = grid_params(32, origin, 2.0f);
    p.viscosity = 0.001f;
    p.diffusivity = 0.001f;
    p.expansion = 0.003f;
    p.gravity[1] = -9.81f;
    p.dt = 0.002f;
    cs_vorton *v = make_vorton(ctx, &p, n, t);
    cs_vorton_upload(v, pos0, vort0, n);
    cs_vorton_upload_tracers(v, tracers0, t);
    run_steps(v, 20);
    cs_vorton_download(v, out[0], out[1]);
    cs_vorton_download_tracers(v, out[2]);
    cs_vorton_destroy(v);
}

static void test_determinism(cs_context *ctx)
{
    const uint32_t n = 500, t = 700;
    float *pos0 = calloc(n, 16), *vort0 = calloc(n, 16), *tr0 = calloc(t, 16);
    for (uint32_t i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) {
            pos0[i * 4 + d] = (float)uniform(0.0, 1.0);
            vort0[i * 4 + d] = (float)uniform(-2.0, 2.0);
        }
        pos0[i * 4 + 3] = (float)uniform(0.08, 0.12);
        vort0[i * 4 + 3] = (float)(300.0 + uniform(0.0, 10.0));
    }
    for (uint32_t i = 0; i < t * 4; i++)
        tr0[i] = (float)uniform(0.0, 1.0);
    float *a[3] = {calloc(n, 16), calloc(n, 16), calloc(t, 16)};
    float *b[3] = {calloc(n, 16), calloc(n, 16), calloc(t, 16)};
    run_for_bytes(ctx, pos0, vort0, n, tr0, t, a);
    run_for_bytes(ctx, pos0, vort0, n, tr0, t, b);
    bool same = memcmp(a[0], b[0], n * 16) == 0 && memcmp(a[1], b[1], n * 16) == 0 && memcmp(a[2], b[2], t * 16) == 0;
    bool moved = memcmp(a[2], tr0, t * 16) != 0;
    printf("grid determinism: two runs of %u vortons + %u tracers, 20 steps: %s\n", n, t,
           same ? "identical" : "DIFFER");
    CHECK(same, "two grid runs differ");
    CHECK(moved, "the tracers did not move");
    for (int k = 0; k < 3; k++) {
        free(a[k]);
        free(b[k]);
    }
    free(pos0);
    free(vort0);
    free(tr0);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_one_vorton(&ctx);
    test_random_set(&ctx);
    test_kelvin_ring(&ctx);
    test_determinism(&ctx);
    return test_finish(&ctx);
}
