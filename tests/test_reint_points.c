// test_reint_points.c — the points view of reintegration tracking
// ("reint: points": flag, exclusive scan, scatter) against the CPU list of
// cells above REINT_POINTS_MIN_UNITS, in cell order:
//   - fresh random grids, 2D and 3D: one cell, one below / at / above a
//     workgroup, non-powers of two, grids past one and two scan levels
//     (32 and 1024 chunks of 32), empty, every cell kept, one cell kept, and
//     masses exactly at the threshold and one unit above;
//   - outputs poisoned first: every kept point is written, nothing past the
//     count is;
//   - positions are the centres of mass in world units (origin + (cell +
//     offset) * cell size), velocities in world units, densities
//     mass / rest mass * rest density, material 0; the draw arguments are
//     {6 * count, 1, 0, 0} and the count;
//   - two runs give the same bytes; the scene path (record_frame, stats,
//     particles) reports the same list for the state it simulated.
// ctest labels: slow,gpu -- 12
#include "test_util.h"

#include "reint.h"
#include "world.h"

#include <float.h>

typedef enum fill_kind { FILL_RANDOM, FILL_EMPTY, FILL_ALL, FILL_ONE } fill_kind;

static const char *fill_name(fill_kind f)
{
    return f == FILL_RANDOM ? "random" : f == FILL_EMPTY ? "empty" : f == FILL_ALL ? "all kept" : "one kept";
}

static double rnd(double lo, double hi) { return lo + (hi - lo) * test_rand_unit(); }

// A random mass: empty, mist, just at / above the threshold, or fluid.
static uint32_t random_mass(void)
{
    double u = test_rand_unit();
    if (u < 0.25)
        return 0;
    if (u < 0.45)
        return 1 + test_rand_u32() % REINT_POINTS_MIN_UNITS; // up to the threshold: dropped
    if (u < 0.5)
        return REINT_POINTS_MIN_UNITS; // exactly the threshold: dropped
    if (u < 0.55)
        return REINT_POINTS_MIN_UNITS + 1; // one unit above: kept
    return (uint32_t)rnd(REINT_POINTS_MIN_UNITS + 1, 1.6 * REINT_MASS_ONE);
}

typedef struct points {
    uint32_t count;
    float *pos, *vel, *dens; // 4, 4, 1 floats per point
    uint32_t *mat;
} points;

static points points_alloc(uint32_t cells)
{
    size_t n = cells ? cells : 1;
    return (points){0, malloc(n * 16), malloc(n * 16), malloc(n * 4), malloc(n * 4)};
}

static void points_free(points *p)
{
    free(p->pos);
    free(p->vel);
    free(p->dens);
    free(p->mat);
}

// The CPU list: cells above the threshold in cell order, in double
// precision.
static void cpu_points(const cs_reint *r, const uint32_t *mass, const float *pos4, const float *vel4, double *want_pos,
                       double *want_vel, double *want_dens, uint32_t *count)
{
    const cs_reint_params *p = &r->params;
    uint32_t n = 0;
    for (uint32_t z = 0; z < p->grid[2]; z++)
        for (uint32_t y = 0; y < p->grid[1]; y++)
            for (uint32_t x = 0; x < p->grid[0]; x++) {
                size_t i = x + (size_t)p->grid[0] * (y + (size_t)p->grid[1] * z);
                if (mass[i] <= REINT_POINTS_MIN_UNITS)
                    continue;
                uint32_t c[3] = {x, y, z};
                for (uint32_t a = 0; a < 3; a++) {
                    bool used = a < p->dim;
                    double origin = used ? p->origin[a] : 0.0;
                    want_pos[4 * n + a] = used ? origin + (c[a] + (double)pos4[4 * i + a]) * p->cell_size : 0.0;
                    want_vel[4 * n + a] = used ? (double)vel4[4 * i + a] * p->cell_size : 0.0;
                }
                want_dens[n] = (double)mass[i] / REINT_MASS_ONE_F * p->rest_density;
                n++;
            }
    *count = n;
}

static void download_points(cs_reint *r, uint32_t cells, points *out)
{
    cs_particle_view v;
    cs_reint_particles(r, &v);
    out->count = v.count;
    size_t n = cells ? cells : 1;
    cs_buffer_download(r->ctx, v.positions, out->pos, n * 16, 0);
    cs_buffer_download(r->ctx, v.velocities, out->vel, n * 16, 0);
    cs_buffer_download(r->ctx, v.densities, out->dens, n * 4, 0);
    cs_buffer_download(r->ctx, v.materials, out->mat, n * 4, 0);
}

static bool poisoned(const void *p)
{
    uint32_t u;
    memcpy(&u, p, 4);
    return u == CS_POISON_U32;
}

static bool close_to(double got, double want, double scale)
{
    // A few float roundings of values of size `scale`.
    return fabs(got - want) <= 4.0 * FLT_EPSILON * scale;
}

// Compares the GPU points with the CPU list; returns the mismatch count.
static uint32_t compare_points(const cs_reint *r, const points *g, const double *want_pos, const double *want_vel,
                               const double *want_dens, uint32_t want_count, const char *what)
{
    const cs_reint_params *p = &r->params;
    uint32_t bad = 0;
    double pos_scale = 0, vel_scale = 0;
    for (uint32_t a = 0; a < p->dim; a++)
        pos_scale = fmax(pos_scale, fabs(p->origin[a]) + (p->grid[a] + 1.0) * p->cell_size);
    for (uint32_t k = 0; k < want_count; k++)
        for (int a = 0; a < 3; a++)
            vel_scale = fmax(vel_scale, fabs(want_vel[4 * k + a]));
    for (uint32_t k = 0; k < want_count && k < g->count; k++) {
        bool ok = g->mat[k] == 0 && close_to(g->dens[k], want_dens[k], want_dens[k]);
        for (int a = 0; a < 3; a++) {
            ok = ok && close_to(g->pos[4 * k + a], want_pos[4 * k + a], pos_scale);
            ok = ok && close_to(g->vel[4 * k + a], want_vel[4 * k + a], fmax(fabs(want_vel[4 * k + a]), 1e-30));
        }
        ok = ok && !test_not_finite(g->pos[4 * k]) && !test_not_finite(g->dens[k]);
        if (!ok && bad++ < 5)
            fprintf(stderr, "%s: point %u: pos %.7g %.7g %.7g (want %.7g %.7g %.7g) dens %.7g (want %.7g) mat %u\n",
                    what, k, g->pos[4 * k], g->pos[4 * k + 1], g->pos[4 * k + 2], want_pos[4 * k], want_pos[4 * k + 1],
                    want_pos[4 * k + 2], g->dens[k], want_dens[k], g->mat[k]);
    }
    (void)vel_scale;
    return bad;
}

static void check_points(cs_context *ctx, uint32_t dim, uint32_t nx, uint32_t ny, uint32_t nz, fill_kind fill)
{
    char what[96];
    snprintf(what, sizeof what, "%uD %ux%ux%u %s", dim, nx, ny, nz, fill_name(fill));
    cs_reint_params params;
    uint32_t grid[3] = {nx, ny, nz};
    cs_reint_params_default(&params, dim, grid, (float)rnd(0.005, 0.2));
    for (uint32_t a = 0; a < dim; a++)
        params.origin[a] = (float)rnd(-5, 5);
    params.rest_density = (float)rnd(500, 1500);
    cs_reint *r;
    cs_error err;
    bool ok = cs_reint_create(ctx, &params, &r, &err);
    CHECK(ok, "%s: %s", what, ok ? "" : err.msg);
    if (!ok)
        return;
    uint32_t cells = r->cell_count;
    uint32_t *mass = calloc(cells, 4);
    float *pos4 = calloc(cells, 16), *vel4 = calloc(cells, 16);
    uint32_t one = test_rand_u32() % cells;
    for (uint32_t i = 0; i < cells; i++) {
        mass[i] = fill == FILL_RANDOM ? random_mass()
                  : fill == FILL_ALL  ? REINT_POINTS_MIN_UNITS + 1 + test_rand_u32() % REINT_MASS_ONE
                  : fill == FILL_ONE  ? (i == one ? REINT_MASS_ONE : test_rand_u32() % (REINT_POINTS_MIN_UNITS + 1))
                                      : 0;
        for (uint32_t a = 0; a < 4; a++) {
            pos4[4 * i + a] = a < dim ? (float)test_rand_unit() : 0.0f;
            vel4[4 * i + a] = a < dim ? (float)rnd(-30, 30) : 0.0f;
        }
    }
    cs_reint_upload(r, mass, pos4, vel4);
    cs_buffer *outputs[] = {&r->point_positions, &r->point_velocities, &r->point_densities, &r->point_materials,
                            &r->point_args, &r->point_offsets};
    for (size_t b = 0; b < CS_ARRAY_COUNT(outputs); b++)
        cs_buffer_fill(ctx, outputs[b], CS_POISON_U32);

    cs_recorder rec;
    cs_recorder_create(ctx, "reint points test", &rec);
    cs_recorder_begin(&rec);
    cs_reint_record_points(r, &rec);
    cs_recorder_submit_wait(&rec);
    double ms = cs_recorder_pass_ms(&rec, "reint: points");
    uint32_t count = cs_reint_read_points(r);

    double *want_pos = calloc((size_t)cells * 4, sizeof(double)), *want_vel = calloc((size_t)cells * 4, sizeof(double));
    double *want_dens = calloc(cells, sizeof(double));
    uint32_t want_count;
    cpu_points(r, mass, pos4, vel4, want_pos, want_vel, want_dens, &want_count);
    points g = points_alloc(cells);
    download_points(r, cells, &g);
    uint32_t args[REINT_POINTS_ARGS_UINTS];
    cs_buffer_download(ctx, &r->point_args, args, sizeof args, 0);

    CHECK(count == want_count && g.count == want_count, "%s: %u points (view %u), CPU list %u", what, count, g.count,
          want_count);
    CHECK(args[0] == 6 * want_count && args[1] == 1 && args[2] == 0 && args[3] == 0 && args[4] == want_count,
          "%s: draw args %u %u %u %u count %u, want %u 1 0 0 / %u", what, args[0], args[1], args[2], args[3], args[4],
          6 * want_count, want_count);
    uint32_t bad = compare_points(r, &g, want_pos, want_vel, want_dens, want_count, what);
    CHECK(bad == 0, "%s: %u of %u points differ from the CPU list", what, bad, want_count);
    // Compaction: nothing written past the count.
    uint32_t written_past = 0;
    for (uint32_t k = want_count; k < cells; k++)
        written_past += !poisoned(&g.pos[4 * k]) || !poisoned(&g.vel[4 * k]) || !poisoned(&g.dens[k]) ||
                        !poisoned(&g.mat[k]);
    CHECK(written_past == 0, "%s: %u slots past the count were written", what, written_past);
    if (fill == FILL_EMPTY)
        CHECK(count == 0, "%s: an empty grid has no points", what);
    if (fill == FILL_ALL)
        CHECK(count == cells, "%s: every cell kept (%u of %u)", what, count, cells);
    if (fill == FILL_ONE)
        CHECK(count == 1 && fabs(g.pos[0] - want_pos[0]) < 1e-3, "%s: one cell kept", what);

    // Same inputs, same bytes.
    cs_recorder_begin(&rec);
    cs_reint_record_points(r, &rec);
    cs_recorder_submit_wait(&rec);
    points again = points_alloc(cells);
    download_points(r, cells, &again);
    CHECK(memcmp(again.pos, g.pos, (size_t)cells * 16) == 0 && memcmp(again.vel, g.vel, (size_t)cells * 16) == 0 &&
              memcmp(again.dens, g.dens, (size_t)cells * 4) == 0,
          "%s: a second run gives the same bytes", what);
    fprintf(stderr, "points %-28s %7u cells: %6u points, %u wrong; %.3f ms\n", what, cells, count, bad, ms);

    points_free(&again);
    points_free(&g);
    free(want_pos);
    free(want_vel);
    free(want_dens);
    free(mass);
    free(pos4);
    free(vel4);
    cs_recorder_destroy(&rec);
    cs_reint_destroy(r);
}

// The scene path: frames recorded by ops->record_frame, the count read by
// ops->stats, the view from ops->particles (what the frame loop, the
// renderer and the PLY dumps use) equal the CPU list of the simulated state.
static void check_scene(cs_context *ctx, const char *name)
{
    cs_scene scene;
    cs_error err;
    bool ok = cs_scene_load(name, &scene, &err);
    CHECK(ok, "%s", ok ? "" : err.msg);
    if (!ok)
        return;
    cs_world world;
    ok = cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "%s: %s", name, ok ? "" : err.msg);
    const cs_sim_ops *ops = ok ? world.fluids[0].ops : NULL;
    void *state = ok ? world.fluids[0].state : NULL;
    CHECK(!ok || (ops->particles && ops->field), "%s: reint offers particles and a field", name);
    if (!ok) {
        cs_scene_free(&scene);
        return;
    }
    cs_reint *r = state;
    cs_recorder rec;
    cs_recorder_create(ctx, "reint points scene", &rec);
    for (int f = 0; f < 2; f++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(&world, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_sim_stats stats;
    ops->stats(state, &stats);
    cs_particle_view view;
    ops->particles(state, &view);
    uint32_t cells = r->cell_count;
    uint32_t *mass = malloc((size_t)cells * 4);
    float *pos4 = malloc((size_t)cells * 16), *vel4 = malloc((size_t)cells * 16);
    cs_reint_download(r, mass, pos4, vel4);
    double *want_pos = calloc((size_t)cells * 4, sizeof(double)), *want_vel = calloc((size_t)cells * 4, sizeof(double));
    double *want_dens = calloc(cells, sizeof(double));
    uint32_t want_count;
    cpu_points(r, mass, pos4, vel4, want_pos, want_vel, want_dens, &want_count);
    points g = points_alloc(cells);
    download_points(r, cells, &g);
    CHECK(view.count == want_count && view.draw_args == &r->point_args && want_count > 0,
          "%s: view of %u points (CPU list %u), drawn from the GPU's draw args", name, view.count, want_count);
    CHECK(want_count <= stats.particles, "%s: %u points, at most the %u cells holding mass", name, want_count,
          stats.particles);
    uint32_t bad = compare_points(r, &g, want_pos, want_vel, want_dens, want_count, name);
    CHECK(bad == 0, "%s: %u of %u points differ from the simulated state", name, bad, want_count);
    // Every point lies in the domain.
    uint32_t outside = 0;
    for (uint32_t k = 0; k < g.count; k++)
        for (int a = 0; a < scene.dim; a++)
            outside += !(g.pos[4 * k + a] >= scene.domain_min[a] - 1e-5f && g.pos[4 * k + a] <= scene.domain_max[a] + 1e-5f);
    CHECK(outside == 0, "%s: %u point coordinates outside the domain", name, outside);
    fprintf(stderr, "scene %s: %u points of %u filled cells after 2 frames ('reint: points' %.3f ms)\n", name,
            view.count, stats.particles, cs_recorder_pass_ms(&rec, "reint: points"));
    points_free(&g);
    free(want_pos);
    free(want_vel);
    free(want_dens);
    free(mass);
    free(pos4);
    free(vel4);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    // 3D: one cell, around the 8x8x4 workgroup, non-powers of two, and a
    // grid of 22 440 cells (a scan of three levels).
    static const uint32_t sizes_3d[][3] = {{1, 1, 1}, {8, 8, 4}, {9, 8, 5}, {13, 6, 11}, {40, 33, 17}};
    for (size_t i = 0; i < CS_ARRAY_COUNT(sizes_3d); i++)
        check_points(&ctx, 3, sizes_3d[i][0], sizes_3d[i][1], sizes_3d[i][2], FILL_RANDOM);
    // 2D: one cell, a strip, around the 16x16 workgroup, 32 and 1024 scan
    // chunks exactly, past them, and a reint-sized grid.
    static const uint32_t sizes_2d[][2] = {{1, 1}, {1, 31}, {15, 16}, {16, 16}, {17, 16},
                                           {32, 32}, {1024, 32}, {33, 33}, {300, 200}};
    for (size_t i = 0; i < CS_ARRAY_COUNT(sizes_2d); i++)
        check_points(&ctx, 2, sizes_2d[i][0], sizes_2d[i][1], 1, FILL_RANDOM);
    static const fill_kind special[] = {FILL_EMPTY, FILL_ALL, FILL_ONE};
    for (size_t k = 0; k < CS_ARRAY_COUNT(special); k++) {
        check_points(&ctx, 3, 9, 7, 5, special[k]);
        check_points(&ctx, 2, 37, 29, 1, special[k]);
    }
    check_scene(&ctx, "reint_3d");
    check_scene(&ctx, "reint_dam_2d");
    return test_finish(&ctx);
}
