// test_vorton_grid_box.c — the vortex-in-cell grid's box follows the
// vortons (pipelines/vorton/vorton_grid.c, shaders/vorton/vic_box.comp; the rule is
// in vic_shared.h):
//   - a ring (32 cells over a unit box) travels up until every vorton has
//     left the scene's box; the grid velocity at probes around the ring vs
//     the double-precision Biot-Savart sum of the same vortons must stay
//     within 2x its error at the start, at the same probe offsets (and
//     under 5%). The control, the
//     fixed box of before, runs the same steps and must fail that bound
//     (the ring stalls at the face and the probes beyond it read 0);
//   - the box moved by whole cells (origin on the start lattice), kept its
//     size step and holds every vorton with the margin;
//   - two runs give identical vortons and boxes;
//   - a cloud spread over 2.4x the scene's box: the box grows to a size step
//     base * 2^(k/4) that holds it with the margin.
// Probes are at least 0.12 from every vorton, where the sum is smooth.
// ctest labels: slow,gpu -- 14 (57 under load)
#include "test_util.h"
#include "vorton_probes.h"

#include "vorton.h"
#include "ref/vorton_ref.h"

#include <string.h>

#define CELLS 32u

static const float start_origin[3] = {-0.5f, -0.5f, -0.5f};
static const float start_size = 1.0f;

static double uniform(double lo, double hi) { return lo + (hi - lo) * test_rand_unit(); }

static cs_vorton_params box_params(bool fixed)
{
    return (cs_vorton_params){
        .dt = 0.01f,
        .stretching = VORTON_STRETCH_TRANSPOSE,
        .ambient_temperature = 300.0f,
        .velocity = VORTON_VELOCITY_GRID,
        .grid_origin = {start_origin[0], start_origin[1], start_origin[2]},
        .grid_size = start_size,
        .grid_cells = CELLS,
        .grid_cycles = 4,
        .grid_fixed_box = fixed,
    };
}

static double min_distance(const float *pos4, uint32_t n, const float x[3])
{
    double best = INFINITY;
    for (uint32_t j = 0; j < n; j++) {
        double d2 = 0.0;
        for (int a = 0; a < 3; a++)
            d2 += (x[a] - pos4[j * 4 + a]) * (double)(x[a] - pos4[j * 4 + a]);
        best = fmin(best, d2);
    }
    return sqrt(best);
}

// `count` probe offsets within `radius` of a ring's centre (drawn once, the
// same at the start and the end of a run, so both errors are measured at
// the same places relative to the ring), each at least `clearance` from
// every vorton of the ring at the start (pos_a, centre y_a) and at the end
// (pos_b, centre y_b).
static float *ring_probes(double radius, double clearance, const float *pos_a, double y_a, const float *pos_b,
                          double y_b, uint32_t n, uint32_t count)
{
    float *offsets = calloc(count, 16);
    for (uint32_t i = 0; i < count;) {
        double d[3];
        for (int a = 0; a < 3; a++)
            d[a] = uniform(-radius, radius);
        if (vorton_ref_dot(d, d) > radius * radius)
            continue;
        float at_a[3] = {(float)d[0], (float)(y_a + d[1]), (float)d[2]};
        float at_b[3] = {(float)d[0], (float)(y_b + d[1]), (float)d[2]};
        if (min_distance(pos_a, n, at_a) < clearance || min_distance(pos_b, n, at_b) < clearance)
            continue;
        for (int a = 0; a < 3; a++)
            offsets[i * 4 + a] = (float)d[a];
        i++;
    }
    return offsets;
}

// Probes around a point (the cloud): within `radius`, `clearance` from
// every vorton.
static float *probes_around(const double centre[3], double radius, double clearance, const float *pos4, uint32_t n,
                            uint32_t count)
{
    float *points = calloc(count, 16);
    for (uint32_t i = 0; i < count;) {
        double d[3];
        for (int a = 0; a < 3; a++)
            d[a] = uniform(-radius, radius);
        if (vorton_ref_dot(d, d) > radius * radius)
            continue;
        for (int a = 0; a < 3; a++)
            points[i * 4 + a] = (float)(centre[a] + d[a]);
        if (min_distance(pos4, n, &points[i * 4]) >= clearance)
            i++;
    }
    return points;
}

static cs_vorton *make_vorton(cs_context *ctx, const cs_vorton_params *p, uint32_t n)
{
    cs_vorton *v;
    cs_error err;
    if (!cs_vorton_create(ctx, p, n, 0, &v, &err)) {
        CHECK(false, "%s", err.msg);
        exit(test_finish(ctx));
    }
    return v;
}

static void run_steps(cs_vorton *v, uint32_t steps)
{
    cs_recorder rec;
    cs_recorder_create(v->ctx, "vorton box steps", &rec);
    for (uint32_t done = 0; done < steps;) {
        cs_recorder_begin(&rec);
        for (uint32_t k = 0; k < 10 && done < steps; k++, done++)
            cs_vorton_record_step(v, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_recorder_destroy(&rec);
}

static double lowest_y(const float *pos4, uint32_t n)
{
    double lo = INFINITY;
    for (uint32_t i = 0; i < n; i++)
        lo = fmin(lo, pos4[i * 4 + 1]);
    return lo;
}

// Probe error at the offsets around the ring's centre y.
static double ring_error(cs_vorton *v, const float *pos, const float *vort, uint32_t n, const float *offsets,
                         uint32_t probes, double centre_y)
{
    float *points = calloc(probes, 16);
    for (uint32_t i = 0; i < probes; i++) {
        points[i * 4] = offsets[i * 4];
        points[i * 4 + 1] = (float)(centre_y + offsets[i * 4 + 1]);
        points[i * 4 + 2] = offsets[i * 4 + 2];
    }
    double e = vorton_probe_error(v, vorton_singular_velocity, pos, vort, n, points, probes);
    free(points);
    return e;
}

typedef struct ring_run {
    double error_start, error_end, lowest;
    uint32_t steps;
    float *pos, *vort;
    vic_box box;
} ring_run;

// The ring from y = 0 (R 0.25, core 0.08, Gamma 2: about 1.8 m/s) for
// `steps` steps, or (steps = 0) until every vorton is above the scene box's
// top face y = 0.5, at most 150 steps.
static ring_run run_ring(cs_context *ctx, bool fixed, uint32_t steps)
{
    const cs_vorton_ring ring = {.centre = {0, 0, 0}, .axis = {0, 1, 0}, .radius = 0.25f, .core = 0.08f,
                                 .circulation = 2.0f};
    const float spacing = 0.04f;
    uint32_t n = cs_vorton_ring_fill(&ring, spacing, NULL, NULL, 0);
    ring_run r = {.pos = calloc(n, 16), .vort = calloc(n, 16)};
    CHECK(cs_vorton_ring_fill(&ring, spacing, r.pos, r.vort, n) == n, "ring fill");
    cs_vorton_params p = box_params(fixed);
    cs_vorton *v = make_vorton(ctx, &p, n);
    cs_vorton_upload(v, r.pos, r.vort, n);
    float *pos0 = calloc(n, 16), *vort0 = calloc(n, 16);
    memcpy(pos0, r.pos, n * 16);
    memcpy(vort0, r.vort, n * 16);
    const double top = start_origin[1] + start_size;
    if (steps) {
        run_steps(v, steps);
        r.steps = steps;
    } else {
        while (r.steps < 150 && lowest_y(r.pos, n) <= top) {
            run_steps(v, 5);
            r.steps += 5;
            cs_vorton_download(v, r.pos, r.vort);
        }
    }
    cs_vorton_download(v, r.pos, r.vort);
    r.lowest = lowest_y(r.pos, n);
    // The error at the end (this run's grid, its box where the steps left
    // it) and at the start (a fresh solver on the start state: the scene's
    // box), at the same probe offsets around the ring's centre.
    const uint32_t probes = 300;
    double y0 = vorton_ref_axial_centre(pos0, vort0, n), y1 = vorton_ref_axial_centre(r.pos, r.vort, n);
    float *offsets = ring_probes(0.4, 0.12, pos0, y0, r.pos, y1, n, probes);
    r.error_end = ring_error(v, r.pos, r.vort, n, offsets, probes, y1);
    cs_vorton_grid_read_box(&v->grid, &r.box);
    cs_vorton_destroy(v);
    v = make_vorton(ctx, &p, n);
    cs_vorton_upload(v, pos0, vort0, n);
    r.error_start = ring_error(v, pos0, vort0, n, offsets, probes, y0);
    cs_vorton_destroy(v);
    free(offsets);
    free(pos0);
    free(vort0);
    printf("  %s box: %u vortons, %u steps, lowest vorton y %.3f, box origin (%.4f %.4f %.4f) h %.5f, "
           "%u moves; probe error %.3e at the start, %.3e at the end\n",
           fixed ? "fixed    " : "following", n, r.steps, r.lowest, (double)r.box.grid.x, (double)r.box.grid.y,
           (double)r.box.grid.z, (double)r.box.grid.w, r.box.state.y, r.error_start, r.error_end);
    return r;
}

// Origin on the start lattice (whole cells of the current h), edge one of
// the size steps, every vorton inside with the margin.
static void check_box_geometry(const char *what, const vic_box *box, const float *pos4, uint32_t n)
{
    const double origin[3] = {box->grid.x, box->grid.y, box->grid.z}, base[3] = {box->base.x, box->base.y,
                                                                                  box->base.z};
    double h = box->grid.w, edge = h * CELLS, step = edge / box->base.w;
    double k = VIC_BOX_STEPS * log2(step);
    CHECK(fabs(k - round(k)) < 1e-4 && round(k) == box->state.x, "%s: edge %.6f is not step %u of %.3f (k %.5f)",
          what, edge, box->state.x, (double)box->base.w, k);
    for (int a = 0; a < 3; a++) {
        double cells = (origin[a] - base[a]) / h;
        CHECK(fabs(cells - round(cells)) < 1e-3, "%s: origin %c is %.5f cells off the start lattice", what, "xyz"[a],
              cells);
    }
    double margin = VIC_BOX_MARGIN * h, worst = INFINITY;
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            double x = pos4[i * 4 + a];
            worst = fmin(worst, fmin(x - origin[a], origin[a] + edge - x));
        }
    printf("  %s: edge %.4f (step %u), nearest vorton %.2f cells inside a face (margin %d)\n", what, edge,
           box->state.x, worst / h, VIC_BOX_MARGIN);
    CHECK(worst >= margin * (1.0 - 1e-4), "%s: a vorton %.4f inside a face, margin %.4f", what, worst, margin);
}

static void test_ring_leaves_the_box(cs_context *ctx)
{
    printf("a ring leaves the scene box [-0.5, 0.5]^3 (%u cells):\n", CELLS);
    ring_run follow = run_ring(ctx, false, 0);
    ring_run again = run_ring(ctx, false, follow.steps);
    ring_run fixed = run_ring(ctx, true, follow.steps);
    uint32_t n = cs_vorton_ring_fill(&(cs_vorton_ring){.radius = 0.25f, .core = 0.08f, .axis = {0, 1, 0}}, 0.04f,
                                     NULL, NULL, 0);

    CHECK(follow.lowest > start_origin[1] + start_size, "the ring did not leave the box in %u steps (lowest %.3f)",
          follow.steps, follow.lowest);
    double bound = fmin(2.0 * follow.error_start, 0.05);
    CHECK(follow.error_end < bound, "following box: error %.3e after leaving, bound %.3e (2x the start's %.3e)",
          follow.error_end, bound, follow.error_start);
    // The control: the same test on the fixed box must fail.
    CHECK(fixed.error_end >= bound, "fixed box: error %.3e passes the bound %.3e: the test cannot tell",
          fixed.error_end, bound);
    CHECK(follow.box.state.y > 0, "the box never moved");
    check_box_geometry("ring's box", &follow.box, follow.pos, n);

    bool same = memcmp(follow.pos, again.pos, n * 16) == 0 && memcmp(follow.vort, again.vort, n * 16) == 0 &&
                memcmp(&follow.box, &again.box, sizeof follow.box) == 0;
    printf("  two following runs of %u steps: %s\n", follow.steps, same ? "identical" : "DIFFER");
    CHECK(same, "two runs with a following box differ");
    ring_run *runs[] = {&follow, &again, &fixed};
    for (size_t i = 0; i < CS_ARRAY_COUNT(runs); i++) {
        free(runs[i]->pos);
        free(runs[i]->vort);
    }
}

// 300 vortons in a ball of radius 1.2 around (0.3, 0, 0): the box must grow
// past the scene's edge 1 to a size step holding them, and the velocity
// away from them stays close to the sum.
static void test_box_grows(cs_context *ctx)
{
    const uint32_t n = 300, probes = 200;
    float *pos = calloc(n, 16), *vort = calloc(n, 16);
    for (uint32_t i = 0; i < n; i++) {
        double d[3];
        do {
            for (int a = 0; a < 3; a++)
                d[a] = uniform(-1.2, 1.2);
        } while (vorton_ref_dot(d, d) > 1.2 * 1.2);
        for (int a = 0; a < 3; a++) {
            pos[i * 4 + a] = (float)(d[a] + (a == 0 ? 0.3 : 0.0));
            vort[i * 4 + a] = (float)uniform(-2.0, 2.0);
        }
        pos[i * 4 + 3] = 0.05f;
        vort[i * 4 + 3] = 300.0f;
    }
    cs_vorton_params p = box_params(false);
    cs_vorton *v = make_vorton(ctx, &p, n);
    cs_vorton_upload(v, pos, vort, n);
    const double centre[3] = {0.3, 0.0, 0.0};
    float *points = probes_around(centre, 1.0, 0.25, pos, n, probes);
    // Solves once: the box follows.
    double e = vorton_probe_error(v, vorton_singular_velocity, pos, vort, n, points, probes);
    vic_box box;
    cs_vorton_grid_read_box(&v->grid, &box);
    printf("a cloud of %u vortons over 2.4 m: probe error %.3e\n", n, e);
    CHECK(box.state.x > 0, "the box did not grow (step %u)", box.state.x);
    check_box_geometry("cloud's box", &box, pos, n);
    CHECK(e < 0.25, "cloud: probe error %.3e (the grid is coarse here, 2.4 m over 32 cells)", e);
    cs_vorton_destroy(v);
    free(points);
    free(pos);
    free(vort);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_ring_leaves_the_box(&ctx);
    test_box_grows(&ctx);
    return test_finish(&ctx);
}
