// test_reint.c — reintegration tracking (pipelines/reint/reint.c) against its CPU
// reference (tests/ref/reint_ref.h) and by its invariants:
//   - one step on fresh random grids, 2D and 3D, sizes 1 cell, around a
//     workgroup, non-powers of two, empty, everything in one cell: every pass
//     compared with the double-precision reference, outputs poisoned first;
//   - exact mass conservation over 10 000 steps (64^2, walls, gravity, SPH);
//   - nothing non-finite, no centre of mass outside its cell;
//   - determinism: two runs, identical bytes;
//   - a still pool stays still (bounded speed, settles);
//   - the shipped scenes load, run and keep their mass; bad keys are refused.
// CISTERN_REINT_BENCH=1 also prints cells per second at 512^2, 2048^2, 128^3.
// ctest labels: slow,gpu -- 60
#include "test_util.h"

#include "reint.h"
#include "world.h"
#include "ref/reint_ref.h"

// ---- helpers ---------------------------------------------------------------

typedef struct host_state {
    uint32_t cells;
    uint32_t *mass;
    float *pos, *vel; // 4 floats per cell
} host_state;

static host_state state_alloc(uint32_t cells)
{
    return (host_state){
        .cells = cells,
        .mass = calloc(cells ? cells : 1, 4),
        .pos = calloc(cells ? cells : 1, 16),
        .vel = calloc(cells ? cells : 1, 16),
    };
}

static void state_free(host_state *s)
{
    free(s->mass);
    free(s->pos);
    free(s->vel);
}

static uint64_t total_units(const uint32_t *mass, uint32_t cells)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < cells; i++)
        t += mass[i];
    return t;
}

static reint_ref ref_from(const cs_reint *r)
{
    const cs_reint_params *p = &r->params;
    double cell = p->cell_size;
    return (reint_ref){
        .dim = p->dim,
        .n = {(int)p->grid[0], (int)p->grid[1], (int)p->grid[2]},
        .dt = p->dt,
        .r = p->diffusion_radius,
        .max_step = (double)p->search_radius - p->diffusion_radius,
        .search_radius = (int)p->search_radius,
        .h = p->kernel_radius,
        .restitution = p->restitution,
        .stiffness = p->stiffness / (cell * cell),
        .gamma = p->tait_gamma,
        .eos = (int)p->eos,
        .viscosity = p->viscosity,
        .negative_pressure = p->negative_pressure,
        .gravity = {p->gravity[0] / cell, p->gravity[1] / cell, p->gravity[2] / cell},
    };
}

// Records `steps` steps (then the stats pass) in submits of at most 80
// steps: the recorder holds 256 passes. Returns the GPU time of all passes.
static double run_steps(cs_reint *r, cs_recorder *rec, uint32_t steps, bool stats)
{
    const uint32_t chunk = 80;
    double ms = 0.0;
    uint32_t done = 0;
    do {
        uint32_t now = CS_MIN(chunk, steps - done);
        cs_recorder_begin(rec);
        for (uint32_t s = 0; s < now; s++)
            cs_reint_record_step(r, rec);
        done += now;
        if (stats && done == steps)
            cs_reint_record_stats(r, rec);
        cs_recorder_submit_wait(rec);
        ms += cs_recorder_total_ms(rec);
    } while (done < steps);
    return ms;
}

static double rand_range(double lo, double hi) { return lo + (hi - lo) * test_rand_unit(); }

// ---- one step against the reference ---------------------------------------------

typedef enum fill_kind { FILL_RANDOM, FILL_EMPTY, FILL_ONE_CELL } fill_kind;

// |dp/drho| of the reference's equation of state at rho (before the clamp at
// 0, which only lowers it).
static double eos_slope(const reint_ref *g, double rho)
{
    if (g->eos == REINT_EOS_TAIT)
        return g->stiffness * g->gamma * pow(fmax(rho, 0.0), g->gamma - 1.0);
    return g->stiffness * fabs(2.0 * rho - 1.0);
}

static void check_step(cs_context *ctx, uint32_t dim, uint32_t nx, uint32_t ny, uint32_t nz, fill_kind fill)
{
    uint32_t grid[3] = {nx, ny, dim == 3 ? nz : 1};
    cs_reint_params p;
    cs_reint_params_default(&p, dim, grid, 1.0f); // cell size 1: world units are cells
    p.dt = 0.01f;
    p.search_radius = 1 + test_rand_u32() % 2;
    p.diffusion_radius = (float)rand_range(0.2, fmin(0.95, p.search_radius - 0.1));
    p.kernel_radius = (float)rand_range(1.0, 2.2);
    p.stiffness = (float)rand_range(50.0, 1500.0);
    p.eos = test_rand_u32() % 2 ? REINT_EOS_TAIT : REINT_EOS_LINEAR;
    p.tait_gamma = (float)rand_range(1.0, 7.0);
    p.viscosity = (float)rand_range(0.0, 0.5);
    p.negative_pressure = test_rand_u32() % 2;
    p.restitution = (float)rand_range(0.0, 1.0);
    for (uint32_t a = 0; a < 3; a++)
        p.gravity[a] = a < dim ? (float)rand_range(-60.0, 60.0) : 0.0f;

    cs_reint *r;
    cs_error err;
    bool ok = cs_reint_create(ctx, &p, &r, &err);
    CHECK(ok, "create %ux%ux%u: %s", nx, ny, nz, err.msg);
    if (!ok)
        return;
    uint32_t n = r->cell_count;
    double max_step = p.search_radius - p.diffusion_radius;
    double speed_limit = max_step / p.dt;

    host_state in = state_alloc(n);
    uint32_t one = test_rand_u32() % n;
    for (uint32_t i = 0; i < n; i++) {
        bool filled = fill == FILL_RANDOM ? test_rand_unit() < 0.7 : fill == FILL_ONE_CELL && i == one;
        in.mass[i] = filled ? (uint32_t)(rand_range(0.05, 2.5) * REINT_MASS_ONE) : 0;
        for (uint32_t a = 0; a < dim; a++) {
            in.pos[i * 4 + a] = (float)test_rand_unit();
            // Up to 1.5x the velocity limit, so the limit and the walls are hit.
            in.vel[i * 4 + a] = (float)rand_range(-1.5, 1.5) * (float)speed_limit;
        }
    }
    cs_reint_upload(r, in.mass, in.pos, in.vel);
    // Poison everything the step writes.
    cs_buffer *outputs[] = {&r->dens, &r->vel_forced, &r->mass[1], &r->pos[1], &r->vel[1]};
    for (size_t i = 0; i < CS_ARRAY_COUNT(outputs); i++)
        cs_buffer_fill(ctx, outputs[i], CS_POISON_U32);

    cs_recorder rec;
    cs_recorder_create(ctx, "reint step test", &rec);
    run_steps(r, &rec, 1, false);
    CHECK(cs_recorder_pass_ms(&rec, "reint: density") >= 0 && cs_recorder_pass_ms(&rec, "reint: forces") >= 0 &&
              cs_recorder_pass_ms(&rec, "reint: advect") >= 0,
          "every pass is labelled and timed");

    float *dens = malloc((size_t)n * 8), *vel_forced = malloc((size_t)n * 16);
    host_state out = state_alloc(n);
    cs_reint_download_scratch(r, dens, vel_forced);
    cs_reint_download(r, out.mass, out.pos, out.vel);

    reint_ref g = ref_from(r);
    // Density + pressure, from the input.
    double *rho = malloc((size_t)n * 8), *press = malloc((size_t)n * 8);
    reint_ref_density(&g, in.mass, in.pos, rho, press);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        double dr = fabs(dens[2 * i] - rho[i]), dp = fabs(dens[2 * i + 1] - press[i]);
        // The GPU's pressure is the EOS of its own float density, so a
        // density off by dr (rounding, bounded above) moves it by up to
        // max |dp/drho| * dr (mean value theorem; the slope is largest at an
        // end of [rho_ref, rho_gpu]). Near rest density the EOS cancels
        // (k (rho^gamma - 1)) and this term dominates: seed 32965669391313
        // has a cell at rho 1.0000063 whose densities are 2.2e-7 apart (two
        // float ulps) with dp/drho = 5746, so pressures 1.26e-3 apart, over
        // the relative term's 8.4e-4. The relative term covers the EOS's own
        // float evaluation.
        double slope = fmax(eos_slope(&g, rho[i]), eos_slope(&g, dens[2 * i]));
        double dp_allowed = 1e-4 * (fabs(press[i]) + g.stiffness * 1e-2) + slope * dr;
        bool good = !test_not_finite(dens[2 * i]) && !test_not_finite(dens[2 * i + 1]) &&
                    dr <= 1e-5 * fmax(1.0, rho[i]) && dp <= dp_allowed;
        if (!good && bad++ == 0)
            fprintf(stderr, "  density cell %u: gpu (%.9g, %.9g) ref (%.9g, %.9g), pressure allowed %.3g (slope %.4g)\n",
                    i, dens[2 * i], dens[2 * i + 1], rho[i], press[i], dp_allowed, slope);
    }
    CHECK(bad == 0, "%uD %ux%ux%u: density/pressure differ in %u cells", dim, nx, ny, nz, bad);

    // Forces, from the input and the GPU's density (isolates this pass).
    float *press_f = calloc(n, 4), *rho_f = calloc(n, 4);
    for (uint32_t i = 0; i < n; i++)
        rho_f[i] = dens[2 * i], press_f[i] = dens[2 * i + 1];
    double *vref = malloc((size_t)n * 32);
    reint_ref_forces(&g, in.mass, in.pos, in.vel, rho_f, press_f, vref);
    bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t a = 0; a < dim; a++) {
            double v = vel_forced[i * 4 + a], want = vref[i * 4 + a];
            bool good = !test_not_finite((float)v) && fabs(v - want) <= 2e-4 * speed_limit + 1e-4 * fabs(want);
            if (!good && bad++ == 0)
                fprintf(stderr, "  forces cell %u axis %u: gpu %.9g ref %.9g\n", i, a, v, want);
        }
        double len = 0;
        for (uint32_t a = 0; a < dim; a++)
            len += (double)vel_forced[i * 4 + a] * vel_forced[i * 4 + a];
        if (sqrt(len) * p.dt > max_step * (1.0 + 1e-5) && bad++ == 0)
            fprintf(stderr, "  cell %u moves %g cells > R - r = %g\n", i, sqrt(len) * p.dt, max_step);
    }
    CHECK(bad == 0, "%uD %ux%ux%u: forces differ in %u values", dim, nx, ny, nz, bad);

    // Advect, from the input and the GPU's forced velocities.
    uint32_t *mref = malloc((size_t)n * 4);
    double *pref = malloc((size_t)n * 32), *vadv = malloc((size_t)n * 32);
    reint_ref_advect(&g, in.mass, in.pos, vel_forced, mref, pref, vadv);
    uint64_t before = total_units(in.mass, n);
    CHECK(total_units(mref, n) == before, "reference conserves mass (%llu vs %llu)",
          (unsigned long long)total_units(mref, n), (unsigned long long)before);
    CHECK(total_units(out.mass, n) == before, "%uD %ux%ux%u: GPU step conserves mass exactly: %llu -> %llu", dim, nx,
          ny, nz, (unsigned long long)before, (unsigned long long)total_units(out.mass, n));
    // Fixed-point weights from float vs double fractions may move a few units
    // per deposit; a cell's centre and velocity are then off by about
    // (units moved / cell mass) of a cell / of the speed limit.
    double sources = pow(2.0 * p.search_radius + 1.0, dim);
    double unit_tol = 4.0 * sources;
    bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        double dm = fabs((double)out.mass[i] - (double)mref[i]);
        bool good = dm <= unit_tol;
        double share = out.mass[i] ? unit_tol / out.mass[i] : 0.0;
        for (uint32_t a = 0; a < dim && good; a++) {
            double x = out.pos[i * 4 + a], v = out.vel[i * 4 + a];
            good = !test_not_finite((float)x) && !test_not_finite((float)v) && x >= 0.0 && x <= 1.0 &&
                   fabs(x - pref[i * 4 + a]) <= 1e-4 + share &&
                   fabs(v - vadv[i * 4 + a]) <= 1e-4 * speed_limit + 2.0 * share * speed_limit;
        }
        if (!good && bad++ == 0)
            fprintf(stderr,
                    "  advect cell %u: gpu m %u pos (%g %g %g) vel (%g %g %g)\n"
                    "                  ref m %u pos (%g %g %g) vel (%g %g %g)\n",
                    i, out.mass[i], out.pos[i * 4], out.pos[i * 4 + 1], out.pos[i * 4 + 2], out.vel[i * 4],
                    out.vel[i * 4 + 1], out.vel[i * 4 + 2], mref[i], pref[i * 4], pref[i * 4 + 1], pref[i * 4 + 2],
                    vadv[i * 4], vadv[i * 4 + 1], vadv[i * 4 + 2]);
    }
    CHECK(bad == 0, "%uD %ux%ux%u (R %u, r %.3f): advect differs in %u cells", dim, nx, ny, nz, p.search_radius,
          p.diffusion_radius, bad);

    fprintf(stderr, "step %uD %4ux%4ux%3u R=%u r=%.2f h=%.2f eos=%s: %s\n", dim, nx, ny, grid[2], p.search_radius,
            p.diffusion_radius, p.kernel_radius, p.eos ? "tait" : "linear",
            fill == FILL_EMPTY ? "empty" : fill == FILL_ONE_CELL ? "one cell" : "random");
    free(dens), free(vel_forced), free(rho), free(press), free(press_f), free(rho_f), free(vref), free(mref),
        free(pref), free(vadv);
    state_free(&in);
    state_free(&out);
    cs_recorder_destroy(&rec);
    cs_reint_destroy(r);
}

// ---- long runs -------------------------------------------------------------------

// A 2D tank in cell units: a column of fluid on the left, a blob flying right
// at the velocity limit, gravity, walls. Physical scale: a 1 m box.
static cs_reint *make_tank(cs_context *ctx, uint32_t size)
{
    uint32_t grid[3] = {size, size, 1};
    cs_reint_params p;
    cs_reint_params_default(&p, 2, grid, 1.0f / (float)size);
    p.viscosity = 0.05f;
    cs_reint *r;
    cs_error err;
    if (!cs_reint_create(ctx, &p, &r, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
    host_state s = state_alloc(r->cell_count);
    for (uint32_t y = 0; y < size; y++)
        for (uint32_t x = 0; x < size; x++) {
            uint32_t i = x + size * y;
            s.pos[i * 4] = s.pos[i * 4 + 1] = 0.5f;
            bool column = x < size / 3 && y < size * 3 / 4;
            bool blob = x > size / 2 && x < size * 3 / 4 && y > size / 2 && y < size * 3 / 4;
            if (column || blob)
                s.mass[i] = REINT_MASS_ONE;
            if (blob)
                s.vel[i * 4] = 1e3f, s.vel[i * 4 + 1] = 300.0f; // cells/s: far past the limit
        }
    cs_reint_upload(r, s.mass, s.pos, s.vel);
    state_free(&s);
    return r;
}

static void check_conservation(cs_context *ctx)
{
    const uint32_t size = 64, total_steps = 10000, batch = 500;
    cs_reint *r = make_tank(ctx, size);
    host_state s = state_alloc(r->cell_count);
    cs_reint_download(r, s.mass, NULL, NULL);
    uint64_t start = total_units(s.mass, r->cell_count);
    cs_recorder rec;
    cs_recorder_create(ctx, "reint conservation", &rec);
    double t0 = cs_now_seconds(), gpu_ms = 0;
    uint32_t failures = 0;
    cs_reint_stats st = {0};
    for (uint32_t done = 0; done < total_steps; done += batch) {
        gpu_ms += run_steps(r, &rec, batch, true);
        cs_reint_read_stats(r, &st);
        bool good = st.mass_units == start && st.non_finite == 0 && st.outside_cell == 0;
        if (!good && failures++ == 0)
            fprintf(stderr, "  after %u steps: mass %llu (start %llu), non-finite %u, outside %u\n", done + batch,
                    (unsigned long long)st.mass_units, (unsigned long long)start, st.non_finite, st.outside_cell);
    }
    double wall = cs_now_seconds() - t0;
    CHECK(failures == 0, "mass exact, finite and inside its cell at every check over %u steps", total_steps);
    // The final state read back, independently of the stats pass.
    cs_reint_download(r, s.mass, s.pos, s.vel);
    CHECK(total_units(s.mass, r->cell_count) == start, "read-back mass %llu == start %llu",
          (unsigned long long)total_units(s.mass, r->cell_count), (unsigned long long)start);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < r->cell_count; i++)
        for (int a = 0; a < 2; a++)
            bad += test_not_finite(s.vel[i * 4 + a]) || !(s.pos[i * 4 + a] >= 0.0f && s.pos[i * 4 + a] <= 1.0f);
    CHECK(bad == 0, "%u non-finite velocities or centres outside their cell", bad);
    double rel = fabs((double)st.mass_units - (double)start) / (double)start;
    fprintf(stderr, "conservation: %u steps on %u^2: mass %llu -> %llu (relative change %.3g), max speed %.1f cells/s, "
                    "%u filled cells; %.1f s wall, %.1f ms GPU\n",
            total_steps, size, (unsigned long long)start, (unsigned long long)st.mass_units, rel, st.max_speed,
            st.filled_cells, wall, gpu_ms);
    state_free(&s);
    cs_recorder_destroy(&rec);
    cs_reint_destroy(r);
}

static void check_conservation_3d(cs_context *ctx)
{
    uint32_t grid[3] = {12, 16, 10};
    cs_reint_params p;
    cs_reint_params_default(&p, 3, grid, 1.0f / 16.0f);
    p.gravity[0] = 3.0f; // tilted gravity: the fluid hits two walls
    cs_reint *r;
    cs_error err;
    bool ok = cs_reint_create(ctx, &p, &r, &err);
    CHECK(ok, "%s", err.msg);
    if (!ok)
        return;
    host_state s = state_alloc(r->cell_count);
    for (uint32_t i = 0; i < r->cell_count; i++) {
        uint32_t x = i % 12, y = i / 12 % 16;
        for (int a = 0; a < 3; a++)
            s.pos[i * 4 + a] = 0.5f;
        if (x < 6 && y < 10)
            s.mass[i] = REINT_MASS_ONE;
        s.vel[i * 4 + 2] = 200.0f;
    }
    cs_reint_upload(r, s.mass, s.pos, s.vel);
    uint64_t start = total_units(s.mass, r->cell_count);
    cs_recorder rec;
    cs_recorder_create(ctx, "reint conservation 3d", &rec);
    cs_reint_stats st = {0};
    uint32_t failures = 0;
    for (int b = 0; b < 4; b++) {
        run_steps(r, &rec, 250, true);
        cs_reint_read_stats(r, &st);
        failures += st.mass_units != start || st.non_finite || st.outside_cell;
    }
    CHECK(failures == 0, "3D: mass %llu (start %llu), non-finite %u, outside %u", (unsigned long long)st.mass_units,
          (unsigned long long)start, st.non_finite, st.outside_cell);
    fprintf(stderr, "conservation 3D: 1000 steps on 12x16x10: mass %llu -> %llu, max speed %.1f cells/s\n",
            (unsigned long long)start, (unsigned long long)st.mass_units, st.max_speed);
    state_free(&s);
    cs_recorder_destroy(&rec);
    cs_reint_destroy(r);
}

static void check_determinism(cs_context *ctx)
{
    host_state a = state_alloc(48 * 48), b = state_alloc(48 * 48);
    reint_stats_partial pa[REINT_STATS_GROUPS], pb[REINT_STATS_GROUPS];
    for (int run = 0; run < 2; run++) {
        cs_reint *r = make_tank(ctx, 48);
        cs_recorder rec;
        cs_recorder_create(ctx, "reint determinism", &rec);
        run_steps(r, &rec, 300, true);
        host_state *h = run ? &b : &a;
        cs_reint_download(r, h->mass, h->pos, h->vel);
        cs_buffer_download(ctx, &r->partials, run ? pb : pa, sizeof pa, 0);
        cs_recorder_destroy(&rec);
        cs_reint_destroy(r);
    }
    size_t n = 48 * 48;
    CHECK(memcmp(a.mass, b.mass, n * 4) == 0 && memcmp(a.pos, b.pos, n * 16) == 0 && memcmp(a.vel, b.vel, n * 16) == 0,
          "two runs of 300 steps give identical state bytes");
    CHECK(memcmp(pa, pb, sizeof pa) == 0, "two runs give identical stats bytes");
    state_free(&a);
    state_free(&b);
}

// A pool at rest: fluid in the bottom half of a 48^2 box (a 1 m box, default
// parameters). A uniform block is not the discrete equilibrium (gravity
// compresses the bottom, the surface rows have fewer neighbours), and an
// explicit weakly compressible fluid rings for a long time after a jolt; so
// the pool first settles (10 x 150 steps, velocities zeroed after each), then
// must stay at rest for 2190 steps: speeds a few percent of the free-fall
// speed over the pool's depth (what a collapse or a slosh would reach), the
// centre of mass where it settled. Samples every 73 steps, so no oscillation
// of a round period hides at its turning points.
static void check_still_pool(cs_context *ctx)
{
    const uint32_t size = 48, depth = 24, cells = size * size;
    uint32_t grid[3] = {size, size, 1};
    cs_reint_params p;
    cs_reint_params_default(&p, 2, grid, 1.0f / (float)size);
    cs_reint *r;
    cs_error err;
    bool ok = cs_reint_create(ctx, &p, &r, &err);
    CHECK(ok, "%s", err.msg);
    if (!ok)
        return;
    host_state s = state_alloc(cells);
    for (uint32_t i = 0; i < cells; i++) {
        s.pos[i * 4] = s.pos[i * 4 + 1] = 0.5f;
        s.mass[i] = i / size < depth ? REINT_MASS_ONE : 0;
    }
    cs_reint_upload(r, s.mass, s.pos, s.vel);
    cs_recorder rec;
    cs_recorder_create(ctx, "reint still pool", &rec);
    for (int settle = 0; settle < 10; settle++) {
        run_steps(r, &rec, 150, false);
        cs_reint_download(r, s.mass, s.pos, s.vel);
        memset(s.vel, 0, (size_t)cells * 16);
        cs_reint_upload(r, s.mass, s.pos, s.vel);
    }
    double height0 = 0, m0 = 0;
    for (uint32_t i = 0; i < cells; i++) {
        height0 += (double)s.mass[i] * (i / size + s.pos[i * 4 + 1]);
        m0 += s.mass[i];
    }
    height0 /= m0;

    double g_cells = -p.gravity[1] / p.cell_size, fall = sqrt(2.0 * g_cells * depth);
    double worst = 0.0, worst_rms = 0.0;
    cs_reint_stats st = {0};
    for (int sample = 0; sample < 30; sample++) {
        run_steps(r, &rec, 73, true);
        cs_reint_read_stats(r, &st);
        worst = fmax(worst, st.max_speed);
        worst_rms = fmax(worst_rms, sqrt(2.0 * st.kinetic_energy / ((double)st.mass_units / REINT_MASS_ONE_F)));
    }
    cs_reint_download(r, s.mass, s.pos, NULL);
    double height = 0, m = 0;
    for (uint32_t i = 0; i < cells; i++) {
        height += (double)s.mass[i] * (i / size + s.pos[i * 4 + 1]);
        m += s.mass[i];
    }
    height /= m;
    fprintf(stderr,
            "still pool: 2190 steps after settling: max speed %.2f cells/s, max rms speed %.2f (free fall over the "
            "depth %.1f), centre of mass height %.3f cells (settled at %.3f)\n",
            worst, worst_rms, fall, height, height0);
    CHECK(worst < 0.08 * fall, "still pool: max speed %.2f cells/s >= 8%% of the free-fall speed %.1f", worst, fall);
    CHECK(worst_rms < 0.015 * fall, "still pool: rms speed %.2f cells/s >= 1.5%% of the free-fall speed %.1f",
          worst_rms, fall);
    CHECK(fabs(height - height0) < 0.2, "still pool keeps its height: centre of mass %.3f, settled at %.3f", height,
          height0);
    state_free(&s);
    cs_recorder_destroy(&rec);
    cs_reint_destroy(r);
}

// ---- scenes -----------------------------------------------------------------------

static void check_scene(cs_context *ctx, const char *name)
{
    cs_scene scene;
    cs_error err;
    bool ok = cs_scene_load(name, &scene, &err);
    CHECK(ok, "%s", err.msg);
    if (!ok)
        return;
    // Through the world, as `cistern run` runs it.
    cs_world world;
    ok = cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "%s: %s", name, ok ? "" : err.msg);
    const cs_sim_ops *ops = ok ? world.fluids[0].ops : NULL;
    void *state = ok ? world.fluids[0].state : NULL;
    CHECK(!ok || (world.fluid_count == 1 && ops == &cs_reint_ops), "%s: one fluid, the reint pipeline", name);
    if (ok) {
        cs_recorder rec;
        cs_recorder_create(ctx, "reint scene", &rec);
        cs_sim_stats first, last;
        for (int f = 0; f < 2; f++) {
            cs_recorder_begin(&rec);
            cs_world_record_frame(&world, &rec);
            cs_recorder_submit_wait(&rec);
            ops->stats(state, f == 0 ? &first : &last);
        }
        // Hot reload through the registry: the shared include rebuilds every
        // reint program that includes it, an unrelated file none.
        char path[600];
        snprintf(path, sizeof path, "%s/reint/reint_common.glsl", cs_shader_dir());
        cs_reload_report report = {0};
        cs_programs_reload(ctx, path, &report);
        CHECK(report.rebuilt >= 4 && report.failed == 0 && strstr(report.names, "reint advect"),
              "%s: reload of %s: %u rebuilt (%s)", name, path, report.rebuilt, report.names);
        snprintf(path, sizeof path, "%s/test/add_one.comp", cs_shader_dir());
        memset(&report, 0, sizeof report);
        cs_programs_reload(ctx, path, &report);
        CHECK(report.rebuilt == 0, "%s: an unrelated file rebuilds nothing (%u)", name, report.rebuilt);
        cs_field_view field;
        ops->field(state, &field);
        CHECK(field.cells && field.stride_floats == 4 && field.dims[0] > 0, "%s: field view", name);
        CHECK(first.particles > 0 && first.total_mass > 0, "%s: has fluid", name);
        CHECK(last.total_mass == first.total_mass && last.non_finite == 0 && last.outside_domain == 0,
              "%s: mass %g -> %g, non-finite %u", name, first.total_mass, last.total_mass, last.non_finite);
        fprintf(stderr, "scene %s: %u filled cells, mass %g, max speed %.3f m/s after 2 frames (%.2f ms GPU/frame)\n",
                name, last.particles, last.total_mass, last.max_speed, cs_recorder_total_ms(&rec));
        cs_recorder_destroy(&rec);
        cs_world_destroy(&world);
    }
    cs_scene_free(&scene);
}

static void check_scene_errors(cs_context *ctx)
{
    static const struct {
        const char *json;
        const char *want; // in the message
    } cases[] = {
        {"{\"solver\":\"reint\",\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,1]},\"particle_spacing\":0.0625,"
         "\"reint\":{\"diffusion_radius\":2}}",
         "reint.diffusion_radius"},
        {"{\"solver\":\"reint\",\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,1]},\"particle_spacing\":0.0625,"
         "\"reint\":{\"eos\":\"ideal\"}}",
         "reint.eos"},
        {"{\"solver\":\"reint\",\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,1]},\"particle_spacing\":0.0625,"
         "\"reint\":{\"grid\":[4,4]}}",
         "reint.grid"},
        {"{\"solver\":\"reint\",\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,0.7]},\"particle_spacing\":0.3,"
         "\"reint\":{}}",
         "particle_spacing"},
        {"{\"solver\":\"reint\",\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,0.7]},\"particle_spacing\":0.1,"
         "\"reint\":{\"resolution\":3}}",
         "reint.resolution"},
        {"{\"solver\":\"reint\",\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,1]},\"particle_spacing\":0.1,"
         "\"reint\":{\"negative_pressure\":1}}",
         "reint.negative_pressure"},
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(cases); i++) {
        cs_scene scene;
        cs_error err = {{0}};
        bool ok = cs_scene_parse(cases[i].json, strlen(cases[i].json), "bad.json", &scene, &err);
        void *state = NULL;
        if (ok) {
            ok = cs_reint_ops.create(ctx, &scene, &state, &err);
            if (ok)
                cs_reint_ops.destroy(state);
            cs_scene_free(&scene);
        }
        CHECK(!ok && strstr(err.msg, cases[i].want) && strstr(err.msg, "bad.json"),
              "case %zu is refused naming the file and %s: %s", i, cases[i].want, err.msg);
    }
    // 100 substeps a frame (300 passes) was refused while the recorder had a
    // fixed pass budget; it is a valid scene.
    static const char *const many = "{\"solver\":\"reint\",\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,1]},"
                                    "\"particle_spacing\":0.1,\"substeps\":100,\"reint\":{}}";
    cs_scene scene;
    cs_error err = {{0}};
    void *state = NULL;
    bool parsed = cs_scene_parse(many, strlen(many), "many.json", &scene, &err);
    bool ok = parsed && cs_reint_ops.create(ctx, &scene, &state, &err);
    CHECK(ok, "100 substeps a frame is accepted: %s", ok ? "" : err.msg);
    if (ok)
        cs_reint_ops.destroy(state);
    if (parsed)
        cs_scene_free(&scene);
}

// ---- benchmark (CISTERN_REINT_BENCH=1) ----------------------------------------------

static void bench(cs_context *ctx, uint32_t dim, uint32_t size, uint32_t steps)
{
    uint32_t grid[3] = {size, size, size};
    cs_reint_params p;
    cs_reint_params_default(&p, dim, grid, 1.0f / (float)size);
    cs_reint *r;
    cs_error err;
    if (!cs_reint_create(ctx, &p, &r, &err)) {
        fprintf(stderr, "bench %uD %u: does not fit: %s\n", dim, size, err.msg);
        return;
    }
    // Half the domain filled (a dam), so neighbours hold mass as in a run.
    host_state s = state_alloc(r->cell_count);
    for (uint32_t i = 0; i < r->cell_count; i++) {
        for (uint32_t a = 0; a < 3; a++)
            s.pos[i * 4 + a] = 0.5f;
        s.mass[i] = (i % size) < size / 2 ? REINT_MASS_ONE : 0;
    }
    cs_reint_upload(r, s.mass, s.pos, s.vel);
    state_free(&s);
    cs_recorder rec;
    cs_recorder_create(ctx, "reint bench", &rec);
    run_steps(r, &rec, 1, true); // warm-up: shaders compile at the first dispatch
    // Best of three runs: the machine is shared, the slowest runs measure
    // other people's work.
    double density = INFINITY, forces = INFINITY, advect = INFINITY, stats = INFINITY, per_step = INFINITY;
    for (int trial = 0; trial < 3; trial++) {
        run_steps(r, &rec, steps, true);
        double d = cs_recorder_pass_ms(&rec, "reint: density"), f = cs_recorder_pass_ms(&rec, "reint: forces");
        double a = cs_recorder_pass_ms(&rec, "reint: advect");
        if ((d + f + a) / steps < per_step) {
            per_step = (d + f + a) / steps;
            density = d, forces = f, advect = a, stats = cs_recorder_pass_ms(&rec, "reint: stats");
        }
    }
    fprintf(stderr,
            "bench %uD %u^%u = %u cells: %.2f ms/step (density %.2f, forces %.2f, advect %.2f; stats %.2f ms) = "
            "%.3g cells/s\n",
            dim, size, dim, r->cell_count, per_step, density / steps, forces / steps, advect / steps, stats,
            r->cell_count / (per_step * 1e-3));
    cs_recorder_destroy(&rec);
    cs_reint_destroy(r);
}

// One step of random parameters and contents on every grid size.
static void check_random_steps(cs_context *ctx)
{
    // 2D sizes: one cell, thin strips, one below / at / above a 16x16
    // workgroup, non-powers of two.
    static const uint32_t sizes_2d[][2] = {{1, 1}, {1, 7}, {9, 1}, {15, 15}, {16, 16}, {17, 16}, {33, 31}, {50, 3}};
    for (size_t i = 0; i < CS_ARRAY_COUNT(sizes_2d); i++)
        check_step(ctx, 2, sizes_2d[i][0], sizes_2d[i][1], 1, FILL_RANDOM);
    // 3D: one cell, around the 8x8x4 workgroup, non-powers of two.
    static const uint32_t sizes_3d[][3] = {{1, 1, 1}, {2, 1, 3}, {7, 7, 3}, {8, 8, 4}, {9, 8, 5}, {13, 6, 11}};
    for (size_t i = 0; i < CS_ARRAY_COUNT(sizes_3d); i++)
        check_step(ctx, 3, sizes_3d[i][0], sizes_3d[i][1], sizes_3d[i][2], FILL_RANDOM);
}

// 32965669391313: 3D 13x6x11, pressure 1.26e-3 off at rho 1.0000063 (see
// the pressure bound in check_step).
static const uint64_t FIXED_SEEDS[] = {32965669391313ull};

int main(void)
{
    cs_context ctx;
    test_context(&ctx);

    const char *only = getenv("CISTERN_REINT_BENCH");
    if (only && *only && strcmp(only, "0") != 0) {
        bench(&ctx, 2, 512, 10);
        bench(&ctx, 2, 2048, 3);
        bench(&ctx, 3, 128, 3);
        return test_finish(&ctx);
    }

    check_random_steps(&ctx);
    // Seeds that once failed, replayed every run: their random steps again.
    for (size_t i = 0; i < CS_ARRAY_COUNT(FIXED_SEEDS); i++) {
        uint64_t resume = test_rand_begin_fixed(FIXED_SEEDS[i]);
        check_random_steps(&ctx);
        test_rand_resume(resume);
    }
    check_step(&ctx, 2, 19, 13, 1, FILL_EMPTY);
    check_step(&ctx, 2, 19, 13, 1, FILL_ONE_CELL);
    check_step(&ctx, 3, 6, 5, 7, FILL_EMPTY);
    check_step(&ctx, 3, 6, 5, 7, FILL_ONE_CELL);

    check_conservation(&ctx);
    check_conservation_3d(&ctx);
    check_determinism(&ctx);
    check_still_pool(&ctx);

    check_scene(&ctx, "reint_dam_2d");
    check_scene(&ctx, "reint_drops_2d");
    check_scene(&ctx, "reint_3d");
    check_scene_errors(&ctx);

    return test_finish(&ctx);
}
