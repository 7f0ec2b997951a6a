// test_pbf.c — Position Based Fluids (pipelines/fluid/fluid_pbf.c) and the fluid
// base (pipelines/fluid/fluid.c), in 2D and 3D:
//  - kernel normalisations (poly6, spiky) integrate to 1 in 2D and 3D;
//  - one GPU substep against the double-precision CPU reference
//    (tests/ref/pbf_ref.h) on ~2-3k jittered particles with random
//    velocities, a slanted wall, restitution, s_corr, vorticity and XSPH;
//  - a block at rest in a box settles: mean density error (CPU, double, at
//    the final positions) under 1% and max speed bounded;
//  - a small dam break over a few hundred steps: nobody leaves the domain,
//    no NaN/Inf, count conserved (2D and 3D);
//  - emitters: the count follows the emission schedule exactly;
//  - determinism: two runs of the same scene give byte-identical state;
//  - neighbour lists: a 2D and a 3D dam break with lists on and off (cell
//    walk) give byte-identical state, and the lists were actually read;
//  - an impossible particle count is refused with a message before any
//    allocation; bad "pbf" keys and values are refused with the key path;
//  - hot reload rebuilds exactly the programs that include a changed file.
// ctest labels: slow,gpu -- 54
#define _POSIX_C_SOURCE 200809L // setenv, strdup
#include "test_util.h"

#include "fluid_pbf.h"
#include "ref/pbf_ref.h"

// ---------------------------------------------------------------------------
// Scenes built in C

static void scene_init(cs_scene *s, const char *name, int dim, const float lo[3], const float hi[3], float spacing,
                       float h, float dt)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "test_pbf/%s.json", name);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->solver, sizeof s->solver, "pbf");
    s->dim = dim;
    for (int a = 0; a < 3; a++) {
        s->domain_min[a] = a < dim ? lo[a] : 0.0f;
        s->domain_max[a] = a < dim ? hi[a] : 0.0f;
    }
    s->gravity[1] = -9.81f;
    s->dt = dt;
    s->substeps = 1;
    s->smoothing_radius = h;
    s->particle_spacing = spacing;
    s->seed = 7;
    s->material_count = 1;
    // The lattice cell's mass, as the parser's default: PBF derives its own
    // and refuses any other (fluid_pbf.c, check_masses).
    s->materials[0] = (cs_material){.name = "water", .mass = (float)(1000.0 * pow(spacing, dim)),
                                    .rest_density = 1000.0f};
}

static void scene_block(cs_scene *s, const float lo[3], const float hi[3], float jitter)
{
    cs_fluid_block *b = &s->blocks[s->block_count++];
    *b = (cs_fluid_block){.spacing = s->particle_spacing, .jitter = jitter};
    for (int a = 0; a < 3; a++) {
        b->min[a] = a < s->dim ? lo[a] : 0.0f;
        b->max[a] = a < s->dim ? hi[a] : 0.0f;
    }
}

static bool scene_pbf(cs_scene *s, const char *json)
{
    s->json = cJSON_Parse(json);
    s->solver_params = s->json;
    return s->json != NULL;
}

static void scene_free(cs_scene *s)
{
    if (s->json)
        cJSON_Delete(s->json);
    s->json = NULL;
    s->solver_params = NULL;
}

static void *pbf_create_or_fail(cs_context *ctx, const cs_scene *s)
{
    void *state = NULL;
    cs_error err;
    if (!cs_pbf_ops.create(ctx, s, &state, &err)) {
        CHECK(false, "%s: create failed: %s", s->name, err.msg);
        return NULL;
    }
    return state;
}

static void run_steps(cs_context *ctx, void *state, uint32_t steps)
{
    cs_recorder rec;
    cs_recorder_create(ctx, "pbf test", &rec);
    for (uint32_t s = 0; s < steps; s++) {
        cs_recorder_begin(&rec);
        cs_pbf_record_substep(state, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_recorder_destroy(&rec);
}

static void ref_params_from(void *state, pbf_ref_params *p)
{
    cs_fluid *f = cs_pbf_fluid(state);
    cs_pbf_constants k;
    cs_pbf_get_constants(state, &k);
    const cs_scene *s = f->scene;
    memset(p, 0, sizeof *p);
    p->dim = s->dim;
    const vec4 lo = f->params.domain_min, hi = f->params.domain_max;
    p->lo[0] = lo.x, p->lo[1] = lo.y, p->lo[2] = lo.z;
    p->hi[0] = hi.x, p->hi[1] = hi.y, p->hi[2] = hi.z;
    for (int a = 0; a < 3; a++)
        p->gravity[a] = s->dim == 2 && a == 2 ? 0.0 : s->gravity[a];
    p->h = s->smoothing_radius;
    p->dt = s->dt;
    p->restitution = s->boundary_restitution;
    p->margin = f->params.wall.x;
    p->wall_count = s->wall_count;
    for (uint32_t w = 0; w < s->wall_count; w++) {
        for (int a = 0; a < 3; a++)
            p->walls[w][a] = s->walls[w].normal[a];
        p->walls[w][3] = s->walls[w].offset;
    }
    for (uint32_t m = 0; m < s->material_count; m++) {
        p->mass[m] = f->params.materials[m].x;
        p->rho0[m] = f->params.materials[m].y;
    }
    p->iterations = k.iterations;
    p->epsilon = k.epsilon;
    p->scorr_scale = k.scorr_scale;
    p->inv_w_dq = k.inv_w_dq;
    p->scorr_n = k.scorr_n;
    p->scorr_rest = k.scorr_rest;
    p->vorticity = k.vorticity;
    p->xsph = k.xsph;
    p->boundary_fill = f->boundary_fill;
}

// ---------------------------------------------------------------------------

static void test_kernels(void)
{
    for (int dim = 2; dim <= 3; dim++) {
        pbf_ref_params p = {.dim = dim, .h = 0.37};
        // Midpoint sums over a fine lattice: poly6 integrates to 1, and the
        // spiky gradient magnitude integrates (radially) to the value its
        // normalisation implies: int |grad W| dV = K * 3 * int (h-r)^2 dV.
        int n = dim == 3 ? 120 : 600;
        double s = 2.0 * p.h / n, sum = 0.0, grad_r = 0.0;
        for (int k = 0; k < (dim == 3 ? n : 1); k++)
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) {
                    double r[3] = {-p.h + (i + 0.5) * s, -p.h + (j + 0.5) * s, dim == 3 ? -p.h + (k + 0.5) * s : 0.0};
                    double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
                    sum += pbf_ref_poly6(&p, r2) * pow(s, dim);
                    double g[3];
                    pbf_ref_spiky_grad(&p, r, g);
                    // -grad W . r = |grad W| r for a radial kernel: integrating
                    // |grad W| r gives dim * int W dV = dim (integration by parts).
                    grad_r += -(g[0] * r[0] + g[1] * r[1] + g[2] * r[2]) * pow(s, dim);
                }
        CHECK(fabs(sum - 1.0) < 2e-3, "%dD poly6 integrates to %.5f, not 1", dim, sum);
        CHECK(fabs(grad_r / dim - 1.0) < 5e-3, "%dD spiky kernel integrates to %.5f, not 1", dim, grad_r / dim);
        fprintf(stderr, "%dD kernels: int poly6 = %.5f, int spiky = %.5f\n", dim, sum, grad_r / dim);
    }
}

// One substep on the GPU vs the CPU reference.
static void test_against_reference(cs_context *ctx, int dim)
{
    cs_scene s;
    float lo[3] = {0, 0, 0}, hi2[3] = {1.0f, 1.0f, 0}, hi3[3] = {0.6f, 0.6f, 0.6f};
    if (dim == 2) {
        scene_init(&s, "reference_2d", 2, lo, hi2, 0.0125f, 0.025f, 0.004f);
        scene_block(&s, (float[3]){0.0f, 0.0f, 0}, (float[3]){0.7f, 0.6f, 0}, 0.1f);
    } else {
        scene_init(&s, "reference_3d", 3, lo, hi3, 0.025f, 0.05f, 0.004f);
        scene_block(&s, (float[3]){0.0f, 0.0f, 0.0f}, (float[3]){0.35f, 0.3f, 0.3f}, 0.1f);
    }
    s.boundary_restitution = 0.3f;
    // A slanted wall that just clips the lower-right corner of the block.
    float nx = -0.6f, ny = 0.8f;
    s.walls[0] = (cs_wall){.normal = {nx, ny, 0.0f}, .offset = nx * (dim == 2 ? 0.7f : 0.35f) + 0.004f};
    s.wall_count = 1;
    // 2D with half of s_corr's background (pairs across the lattice spacing
    // on both sides of the clamp, the jitter puts them there), 3D the paper's term.
    CHECK(scene_pbf(&s, dim == 2 ? "{\"iterations\": 3, \"relaxation\": 0.05, \"scorr_k\": 0.1, \"scorr_n\": 4, "
                                   "\"scorr_dq\": 0.2, \"vorticity\": 0.5, \"xsph\": 0.05, \"scorr_background\": 0.5}"
                                 : "{\"iterations\": 3, \"relaxation\": 0.05, \"scorr_k\": 0.1, \"scorr_n\": 4, "
                                   "\"scorr_dq\": 0.2, \"vorticity\": 0.5, \"xsph\": 0.05}"),
          "pbf json");
    void *state = pbf_create_or_fail(ctx, &s);
    if (!state) {
        scene_free(&s);
        return;
    }
    cs_fluid *f = cs_pbf_fluid(state);
    uint32_t n = f->count;
    // Random velocities (the state is still in creation order here).
    float *pos = malloc((size_t)n * 16), *vel = malloc((size_t)n * 16), *dens = malloc((size_t)n * 4);
    uint32_t *mat = calloc(n, 4);
    cs_buffer_download(ctx, cs_fluid_pos(f), pos, (VkDeviceSize)n * 16, 0);
    for (uint32_t i = 0; i < n; i++) {
        for (int a = 0; a < 4; a++)
            vel[i * 4 + a] = a < dim ? (float)(test_rand_unit() - 0.5) : 0.0f;
    }
    cs_buffer_upload(ctx, cs_fluid_vel(f), vel, (VkDeviceSize)n * 16, 0);
    // Outputs poisoned: densities and every scratch array.
    cs_buffer_fill(ctx, &f->densities, CS_POISON_U32);
    for (int a = 0; a < CS_FLUID_MAX_ARRAYS && f->arrays[a].buffer; a++)
        cs_buffer_fill(ctx, &f->arrays[a], CS_POISON_U32);
    cs_buffer_fill(ctx, cs_fluid_pos_alt(f), CS_POISON_U32);
    cs_buffer_fill(ctx, cs_fluid_vel_alt(f), CS_POISON_U32);
    cs_buffer_fill(ctx, cs_fluid_pred(f), CS_POISON_U32);
    cs_buffer_fill(ctx, cs_fluid_pred_alt(f), CS_POISON_U32);

    double *x = malloc(sizeof(double) * 3 * n), *v = malloc(sizeof(double) * 3 * n), *x0 = malloc(sizeof(double) * 3 * n);
    double *rho = malloc(sizeof(double) * n);
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            x[3 * i + a] = x0[3 * i + a] = pos[i * 4 + a];
            v[3 * i + a] = vel[i * 4 + a];
        }
    pbf_ref_params rp;
    ref_params_from(state, &rp);
    double t0 = cs_now_seconds();
    pbf_ref_step(&rp, n, x, v, mat, rho);
    double ref_s = cs_now_seconds() - t0;

    run_steps(ctx, state, 1);
    cs_fluid_download_by_id(f, pos, vel, dens, NULL);

    double max_dx = 0, max_v = 0, err_x = 0, err_v = 0, err_rho = 0;
    uint32_t bad = 0, ties = 0, tied = 0;
    // Ties at the wall-touch threshold (pbf_ref_touching): the GPU's and the
    // reference's positions on two sides of it. Velocities are not compared
    // there, nor within 2h of a tie (XSPH reads the neighbours' velocities,
    // vorticity confinement their curls). Seed 14647634055313 had one, 8e-7 m
    // above the threshold.
    bool *skip = calloc(n, sizeof *skip);
    for (uint32_t i = 0; i < n; i++) {
        double g[3] = {pos[i * 4], pos[i * 4 + 1], pos[i * 4 + 2]};
        if (pbf_ref_touching(&rp, g) == pbf_ref_touching(&rp, &x[3 * i]))
            continue;
        ties++;
        for (uint32_t j = 0; j < n; j++) {
            double d2 = 0;
            for (int a = 0; a < 3; a++)
                d2 += (x[3 * j + a] - x[3 * i + a]) * (x[3 * j + a] - x[3 * i + a]);
            skip[j] = skip[j] || d2 <= 4.0 * rp.h * rp.h * 1.0001;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        bool tie = skip[i];
        tied += tie;
        double ex = 0, ev = 0, dx = 0, vv = 0;
        for (int a = 0; a < 3; a++) {
            if (test_not_finite(pos[i * 4 + a]) || test_not_finite(vel[i * 4 + a]))
                bad++;
            ex += (pos[i * 4 + a] - x[3 * i + a]) * (pos[i * 4 + a] - x[3 * i + a]);
            ev += (vel[i * 4 + a] - v[3 * i + a]) * (vel[i * 4 + a] - v[3 * i + a]);
            dx += (x[3 * i + a] - x0[3 * i + a]) * (x[3 * i + a] - x0[3 * i + a]);
            vv += v[3 * i + a] * v[3 * i + a];
        }
        if (test_not_finite(dens[i]))
            bad++;
        err_x = fmax(err_x, sqrt(ex));
        if (!tie)
            err_v = fmax(err_v, sqrt(ev));
        max_dx = fmax(max_dx, sqrt(dx));
        max_v = fmax(max_v, sqrt(vv));
        err_rho = fmax(err_rho, fabs(dens[i] - rho[i]) / rp.rho0[0]);
    }
    double rel_x = err_x / max_dx, rel_v = err_v / max_v;
    fprintf(stderr, "%dD reference (%u particles, CPU %.2f s): max |dx| error %.2e of the largest step %.3e m (%.2e), "
                    "velocity %.2e of %.3f m/s (%.2e; %u wall-touch ties, %u particles within 2h skipped), density %.2e of rho0\n",
            dim, n, ref_s, err_x, max_dx, rel_x, err_v, max_v, rel_v, ties, tied, err_rho);
    free(skip);
    CHECK(ties <= 1 + n / 100, "%dD: %u of %u particles sit on the wall-touch threshold: the comparison means little",
          dim, ties, n);
    CHECK(bad == 0, "%dD: %u non-finite values after one step", dim, bad);
    CHECK(rel_x < 1e-3, "%dD: position error %.3e of the step is over 1e-3", dim, rel_x);
    CHECK(rel_v < 1e-3, "%dD: velocity error %.3e of the largest speed is over 1e-3", dim, rel_v);
    CHECK(err_rho < 1e-4, "%dD: density error %.3e of rho0 is over 1e-4", dim, err_rho);

    cs_pbf_ops.destroy(state);
    scene_free(&s);
    free(pos);
    free(vel);
    free(dens);
    free(mat);
    free(x);
    free(v);
    free(x0);
    free(rho);
}

// Final-position density (double, brute force) and speeds of a state.
typedef struct settle_figures {
    double mean_abs, mean_compression, max_abs, max_speed, mean_speed;
    double interior_mean_abs; // particles at least h from the walls and below the free surface
    uint32_t interior;
} settle_figures;

static settle_figures measure(void *state)
{
    cs_fluid *f = cs_pbf_fluid(state);
    uint32_t n = f->count;
    float *pos = malloc((size_t)n * 16 + 16), *vel = malloc((size_t)n * 16 + 16);
    uint32_t *mat = calloc(n + 1, 4);
    cs_fluid_download_by_id(f, pos, vel, NULL, mat);
    double *x = malloc(sizeof(double) * 3 * (n + 1)), *rho = malloc(sizeof(double) * (n + 1));
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            x[3 * i + a] = pos[i * 4 + a];
    pbf_ref_params rp;
    ref_params_from(state, &rp);
    pbf_ref_densities(&rp, n, x, mat, rho);
    settle_figures r = {0};
    double top = -1e30;
    for (uint32_t i = 0; i < n; i++)
        top = fmax(top, x[3 * i + 1]);
    for (uint32_t i = 0; i < n; i++) {
        double c = rho[i] / rp.rho0[mat[i]] - 1.0;
        r.mean_abs += fabs(c) / n;
        r.mean_compression += fmax(c, 0.0) / n;
        r.max_abs = fmax(r.max_abs, fabs(c));
        double s = sqrt(vel[i * 4] * vel[i * 4] + vel[i * 4 + 1] * vel[i * 4 + 1] + vel[i * 4 + 2] * vel[i * 4 + 2]);
        r.max_speed = fmax(r.max_speed, s);
        r.mean_speed += s / n;
        bool inside = x[3 * i + 1] >= rp.lo[1] + rp.h && x[3 * i + 1] <= top - rp.h;
        for (int a = 0; a < rp.dim; a++)
            if (a != 1 && (x[3 * i + a] < rp.lo[a] + rp.h || x[3 * i + a] > rp.hi[a] - rp.h))
                inside = false;
        if (inside) {
            r.interior_mean_abs += fabs(c);
            r.interior++;
        }
    }
    if (r.interior)
        r.interior_mean_abs /= r.interior;
    free(pos);
    free(vel);
    free(mat);
    free(x);
    free(rho);
    return r;
}

// A block filling the bottom of a box, at rest, under gravity, 4 iterations.
// The figures are measured on the CPU in double at the final positions
// (with the same boundary model), independently of the solver's stored
// densities. A unilateral constraint leaves the free-surface row at ~75% of
// rest density (it has no neighbours above), so the all-particle mean
// |rho/rho0 - 1| is dominated by that row; the solver's errors are the
// compression (rho > rho0) and the interior (>= h from walls and surface).
static void test_rest(cs_context *ctx, int dim)
{
    cs_scene s;
    float height = dim == 2 ? 0.2f : 0.2f; // 10 (2D) and 8 (3D) particle layers
    if (dim == 2) {
        scene_init(&s, "rest_2d", 2, (float[3]){0, 0, 0}, (float[3]){1.0f, 1.0f, 0}, 0.02f, 0.04f, 1.0f / 240);
        scene_block(&s, (float[3]){0, 0, 0}, (float[3]){1.0f, height, 0}, 0.0f);
    } else {
        scene_init(&s, "rest_3d", 3, (float[3]){0, 0, 0}, (float[3]){0.4f, 0.4f, 0.4f}, 0.025f, 0.05f, 1.0f / 240);
        scene_block(&s, (float[3]){0, 0, 0}, (float[3]){0.4f, height, 0.4f}, 0.0f);
    }
    CHECK(scene_pbf(&s, "{\"iterations\": 4}"), "pbf json");
    void *state = pbf_create_or_fail(ctx, &s);
    if (!state) {
        scene_free(&s);
        return;
    }
    cs_fluid *f = cs_pbf_fluid(state);
    double g = 9.81, wave = sqrt(g * height);   // speed scale of any flow of this block
    double mass = 0.0;
    for (uint32_t i = 0; i < f->count; i++)
        mass += f->params.materials[0].x;
    double energy_scale = mass * g * height;     // J (per metre in 2D)
    double peak_speed = 0.0;
    settle_figures r = {0};
    for (uint32_t done = 0; done < 480; done += 96) { // 2 s of simulated time
        run_steps(ctx, state, 96);
        r = measure(state);
        peak_speed = fmax(peak_speed, r.max_speed);
        fprintf(stderr, "%dD rest %.1f s: mean |rho/rho0-1| %.4f, compression %.4f, interior (%u) %.4f; "
                        "speed max %.3f mean %.4f m/s\n", dim, (done + 96) * s.dt, r.mean_abs, r.mean_compression,
                r.interior, r.interior_mean_abs, r.max_speed, r.mean_speed);
    }
    cs_sim_stats st;
    cs_pbf_ops.stats(state, &st);
    fprintf(stderr, "%dD rest after 2 s (%u particles): compression %.4f, interior %.4f, all %.4f; peak speed %.3f m/s "
                    "(sqrt(gH) %.2f); KE %.2e of M g H; GPU stats: mean error %.4f, max speed %.3f\n", dim, f->count,
            r.mean_compression, r.interior_mean_abs, r.mean_abs, peak_speed, wave, st.kinetic_energy / energy_scale,
            st.mean_density_error, st.max_speed);
    CHECK(r.mean_compression < 0.01, "%dD rest: mean compression %.4f not under 1%%", dim, r.mean_compression);
    CHECK(r.interior > 50 && r.interior_mean_abs < 0.01, "%dD rest: interior mean |rho/rho0 - 1| %.4f not under 1%%",
          dim, r.interior_mean_abs);
    CHECK(peak_speed < 0.5 * wave, "%dD rest: a particle reached %.3f m/s (bound 0.5 sqrt(gH) = %.3f)", dim,
          peak_speed, 0.5 * wave);
    CHECK(st.kinetic_energy < 1e-3 * energy_scale, "%dD rest: kinetic energy %.3e J is not under 1e-3 M g H (%.3e J)",
          dim, st.kinetic_energy, 1e-3 * energy_scale);
    CHECK(fabs(st.mean_density_error - r.mean_abs) < 0.01, "%dD rest: GPU stats density error %.4f vs CPU %.4f", dim,
          st.mean_density_error, r.mean_abs);
    CHECK(st.non_finite == 0 && st.outside_domain == 0 && st.particles == f->count, "%dD rest: %u non-finite, %u outside",
          dim, st.non_finite, st.outside_domain);
    cs_pbf_ops.destroy(state);
    scene_free(&s);
}

// A small dam break for a few hundred steps: the invariants of any sane run.
static void test_dam_break(cs_context *ctx, int dim, uint32_t steps)
{
    cs_scene s;
    if (dim == 2) {
        scene_init(&s, "dam_2d", 2, (float[3]){0, 0, 0}, (float[3]){1.6f, 1.0f, 0}, 0.02f, 0.04f, 1.0f / 240);
        scene_block(&s, (float[3]){0, 0, 0}, (float[3]){0.4f, 0.8f, 0}, 0.0f);
        s.walls[0] = (cs_wall){.normal = {-0.70710678f, 0.70710678f, 0}, .offset = -0.70710678f * 1.3f};
        s.wall_count = 1; // a ramp in the far corner
    } else {
        scene_init(&s, "dam_3d", 3, (float[3]){0, 0, 0}, (float[3]){0.8f, 0.6f, 0.3f}, 0.025f, 0.05f, 1.0f / 240);
        scene_block(&s, (float[3]){0, 0, 0}, (float[3]){0.25f, 0.5f, 0.3f}, 0.0f);
    }
    s.boundary_restitution = 0.2f;
    CHECK(scene_pbf(&s, "{\"iterations\": 4, \"vorticity\": 0.05, \"xsph\": 0.02}"), "pbf json");
    void *state = pbf_create_or_fail(ctx, &s);
    if (!state) {
        scene_free(&s);
        return;
    }
    uint32_t n0 = cs_pbf_fluid(state)->count;
    float *pos = malloc((size_t)n0 * 16), *vel = malloc((size_t)n0 * 16);
    double peak = 0.0, e0 = 0.0, e_max = 0.0, e_end = 0.0;
    uint32_t bad = 0;
    for (uint32_t done = 0; done <= steps; done += 50) {
        // Total energy (kinetic + potential): a PBF step only loses energy,
        // apart from what the position corrections convert into motion.
        cs_fluid_download_by_id(cs_pbf_fluid(state), pos, vel, NULL, NULL);
        double m = cs_pbf_fluid(state)->params.materials[0].x, e = 0.0;
        for (uint32_t i = 0; i < n0; i++)
            e += m * (9.81 * pos[i * 4 + 1] +
                      0.5 * (vel[i * 4] * vel[i * 4] + vel[i * 4 + 1] * vel[i * 4 + 1] + vel[i * 4 + 2] * vel[i * 4 + 2]));
        if (done == 0)
            e0 = e;
        e_max = fmax(e_max, e);
        e_end = e;
        if (getenv("CISTERN_PBF_VERBOSE"))
            fprintf(stderr, "  %dD dam break step %u: energy %.4f of the start\n", dim, done, e / e0);
        if (done == steps)
            break;
        run_steps(ctx, state, 50);
        cs_sim_stats st;
        cs_pbf_ops.stats(state, &st);
        peak = fmax(peak, st.max_speed);
        if ((st.non_finite || st.outside_domain || st.particles != n0) && bad++ == 0)
            fprintf(stderr, "%dD dam break step %u: %u non-finite, %u outside, %u particles of %u\n", dim, done + 50,
                    st.non_finite, st.outside_domain, st.particles, n0);
    }
    // The final state, read back and checked here too (not only the stats).
    cs_fluid *f = cs_pbf_fluid(state);
    uint32_t outside = 0, non_finite = 0;
    for (uint32_t i = 0; i < n0; i++)
        for (int a = 0; a < 3; a++) {
            if (test_not_finite(pos[i * 4 + a]) || test_not_finite(vel[i * 4 + a]))
                non_finite++;
            if (pos[i * 4 + a] < s.domain_min[a] || pos[i * 4 + a] > s.domain_max[a])
                outside++;
        }
    double wall_violation = 0.0;
    for (uint32_t w = 0; w < s.wall_count; w++)
        for (uint32_t i = 0; i < n0; i++) {
            double d = s.walls[w].normal[0] * pos[i * 4] + s.walls[w].normal[1] * pos[i * 4 + 1] +
                       s.walls[w].normal[2] * pos[i * 4 + 2] - s.walls[w].offset;
            wall_violation = fmin(wall_violation, d);
        }
    fprintf(stderr, "%dD dam break: %u particles, %u steps, peak speed %.2f m/s, energy peak %.3f / end %.3f of the "
                    "start, deepest wall violation %.2e m\n", dim, n0, steps, peak, e_max / e0, e_end / e0, -wall_violation);
    CHECK(e_max <= 1.01 * e0, "%dD dam break: total energy grew to %.3f of the start", dim, e_max / e0);
    CHECK(bad == 0, "%dD dam break: non-finite / outside / lost particles at some checkpoint", dim);
    CHECK(outside == 0 && non_finite == 0, "%dD dam break: final state has %u outside, %u non-finite", dim, outside,
          non_finite);
    CHECK(f->count == n0, "%dD dam break: count %u, started with %u", dim, f->count, n0);
    CHECK(peak > 0.5 && peak < 20.0, "%dD dam break: peak speed %.2f m/s (the column must fall, and not explode)", dim,
          peak);
    CHECK(wall_violation > -1e-4, "%dD dam break: a particle ended %.2e m behind the ramp", dim, -wall_violation);
    free(pos);
    free(vel);
    cs_pbf_ops.destroy(state);
    scene_free(&s);
}

// Emitters: the count follows the schedule (particle k born at start + k /
// rate, emitted at the first substep whose start time reaches it), and the
// emitted particles are sane.
static void test_emitter(cs_context *ctx)
{
    cs_scene s;
    scene_init(&s, "emitter_2d", 2, (float[3]){0, 0, 0}, (float[3]){1.0f, 1.0f, 0}, 0.02f, 0.04f, 1.0f / 240);
    scene_block(&s, (float[3]){0, 0, 0}, (float[3]){1.0f, 0.1f, 0}, 0.0f);
    s.emitters[0] = (cs_emitter){.position = {0.2f, 0.7f, 0}, .direction = {0.6f, -0.8f, 0}, .width = 0.1f,
                                 .speed = 1.5f, .speed_jitter = 0.1f, .start_time = 0.05f, .rate = 300.0f,
                                 .budget = 200};
    s.emitter_count = 1;
    CHECK(scene_pbf(&s, "{}"), "pbf json");
    void *state = pbf_create_or_fail(ctx, &s);
    if (!state) {
        scene_free(&s);
        return;
    }
    cs_fluid *f = cs_pbf_fluid(state);
    uint32_t blocks = f->count, bad = 0;
    CHECK(f->capacity == blocks + 200, "capacity %u = blocks %u + budget 200", f->capacity, blocks);
    for (uint32_t step = 0; step < 360; step++) {
        double t = step * (double)s.dt; // start of this substep
        double born = t >= s.emitters[0].start_time ? floor((t - s.emitters[0].start_time) * s.emitters[0].rate) + 1 : 0;
        uint32_t want = blocks + (uint32_t)fmin(born, 200.0);
        run_steps(ctx, state, 1);
        if (f->count != want && bad++ == 0)
            fprintf(stderr, "emitter: substep %u: %u particles, want %u\n", step, f->count, want);
    }
    CHECK(bad == 0, "emitter: the particle count left the schedule in %u substeps", bad);
    CHECK(f->count == blocks + 200, "emitter: %u particles after the budget ran out, want %u", f->count, blocks + 200);
    cs_sim_stats st;
    cs_pbf_ops.stats(state, &st);
    CHECK(st.non_finite == 0 && st.outside_domain == 0 && st.particles == blocks + 200,
          "emitter: %u non-finite, %u outside, %u particles", st.non_finite, st.outside_domain, st.particles);
    // Ids are a permutation after all the reorders.
    uint32_t n = f->count, *ids = malloc((size_t)n * 4);
    uint8_t *seen = calloc(n, 1);
    cs_buffer_download(ctx, cs_fluid_ids(f), ids, (VkDeviceSize)n * 4, 0);
    uint32_t dup = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] >= n || seen[ids[i]]++)
            dup++;
    CHECK(dup == 0, "emitter: %u particle ids out of range or repeated", dup);
    fprintf(stderr, "emitter: %u block + 200 emitted particles, count followed the schedule; max speed %.2f m/s\n",
            blocks, st.max_speed);
    free(ids);
    free(seen);
    cs_pbf_ops.destroy(state);
    scene_free(&s);

    // No blocks: the fluid starts empty (every pass runs on 0 particles) and
    // the emitter fills it once its start time comes.
    scene_init(&s, "emitter_only_3d", 3, (float[3]){0, 0, 0}, (float[3]){0.4f, 0.4f, 0.4f}, 0.025f, 0.05f, 1.0f / 240);
    s.emitters[0] = (cs_emitter){.position = {0.2f, 0.3f, 0.2f}, .direction = {0, -1, 0}, .width = 0.1f,
                                 .speed = 1.0f, .start_time = 0.05f, .rate = 400.0f, .budget = 64};
    s.emitter_count = 1;
    state = pbf_create_or_fail(ctx, &s);
    if (!state)
        return;
    f = cs_pbf_fluid(state);
    CHECK(f->count == 0 && f->capacity == 64, "empty start: %u particles, capacity %u", f->count, f->capacity);
    run_steps(ctx, state, 10);
    cs_pbf_ops.stats(state, &st);
    CHECK(f->count == 0 && st.particles == 0 && st.non_finite == 0, "nothing born before start_time: %u", f->count);
    run_steps(ctx, state, 60);
    cs_pbf_ops.stats(state, &st);
    CHECK(f->count == 64 && st.non_finite == 0 && st.outside_domain == 0, "emitter-only scene: %u particles, %u bad",
          f->count, st.non_finite + st.outside_domain);
    cs_pbf_ops.destroy(state);
    scene_free(&s);
}

// Two runs of the same scene (with an emitter, vorticity, XSPH, a wall):
// byte-identical state and stats.
static void test_determinism(cs_context *ctx)
{
    float *pos[2], *vel[2], *dens[2];
    cs_sim_stats st[2];
    uint32_t n[2] = {0, 0};
    for (int run = 0; run < 2; run++) {
        cs_scene s;
        scene_init(&s, "determinism_2d", 2, (float[3]){0, 0, 0}, (float[3]){1.2f, 1.0f, 0}, 0.02f, 0.04f, 1.0f / 240);
        scene_block(&s, (float[3]){0, 0, 0}, (float[3]){0.4f, 0.6f, 0}, 0.2f);
        s.emitters[0] = (cs_emitter){.position = {0.9f, 0.8f, 0}, .direction = {0, -1, 0}, .width = 0.08f,
                                     .speed = 1.0f, .speed_jitter = 0.2f, .rate = 200.0f, .budget = 100};
        s.emitter_count = 1;
        s.walls[0] = (cs_wall){.normal = {-0.6f, 0.8f, 0}, .offset = -0.6f * 1.1f};
        s.wall_count = 1;
        CHECK(scene_pbf(&s, "{\"vorticity\": 0.1, \"xsph\": 0.05}"), "pbf json");
        void *state = pbf_create_or_fail(ctx, &s);
        pos[run] = vel[run] = dens[run] = NULL;
        if (!state) {
            scene_free(&s);
            continue;
        }
        run_steps(ctx, state, 150);
        cs_fluid *f = cs_pbf_fluid(state);
        n[run] = f->count;
        pos[run] = malloc((size_t)n[run] * 16);
        vel[run] = malloc((size_t)n[run] * 16);
        dens[run] = malloc((size_t)n[run] * 4);
        cs_fluid_download_by_id(f, pos[run], vel[run], dens[run], NULL);
        cs_pbf_ops.stats(state, &st[run]);
        cs_pbf_ops.destroy(state);
        scene_free(&s);
    }
    if (!pos[0] || !pos[1])
        return;
    CHECK(n[0] == n[1], "determinism: %u vs %u particles", n[0], n[1]);
    uint32_t m = CS_MIN(n[0], n[1]), diff = 0;
    for (uint32_t i = 0; i < m; i++)
        if (memcmp(pos[0] + 4 * i, pos[1] + 4 * i, 16) || memcmp(vel[0] + 4 * i, vel[1] + 4 * i, 16) ||
            memcmp(dens[0] + i, dens[1] + i, 4))
            diff++;
    CHECK(diff == 0, "determinism: %u of %u particles differ between two runs", diff, m);
    CHECK(memcmp(&st[0], &st[1], sizeof st[0]) == 0, "determinism: stats differ between two runs");
    fprintf(stderr, "determinism: two runs of 150 substeps (%u particles incl. 100 emitted): %u particles differ\n", m,
            diff);
    for (int r = 0; r < 2; r++) {
        free(pos[r]);
        free(vel[r]);
        free(dens[r]);
    }
}

// Neighbour lists against the cell walk: the same scene with lists on and
// off (every loop walking the cells) must give the same bits, and the lists
// must actually be read (else the comparison proves nothing). Run 0 reads
// the lists in the device's layout, run 2 in the other one
// (CISTERN_NB_LAYOUT), run 1 walks.
static void test_lists_match_walk(cs_context *ctx, int dim, uint32_t steps)
{
    enum { RUNS = 3 };
    float *pos[RUNS] = {NULL}, *vel[RUNS] = {NULL}, *dens[RUNS] = {NULL};
    uint32_t n[RUNS] = {0}, listed[RUNS] = {0};
    bool cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    const char *other_layout = cpu ? "slot" : "particle";
    char *saved_layout = test_setting_save(ctx, "CISTERN_NB_LAYOUT");
    for (int run = 0; run < RUNS; run++) {
        if (run == 2)
            test_setting(ctx, "CISTERN_NB_LAYOUT", other_layout);
        else if (saved_layout)
            test_setting(ctx, "CISTERN_NB_LAYOUT", saved_layout);
        else
            test_setting(ctx, "CISTERN_NB_LAYOUT", NULL);
        cs_scene s;
        if (dim == 2) {
            scene_init(&s, "lists_2d", 2, (float[3]){0, 0, 0}, (float[3]){1.2f, 1.0f, 0}, 0.02f, 0.04f, 1.0f / 240);
            scene_block(&s, (float[3]){0, 0, 0}, (float[3]){0.4f, 0.6f, 0}, 0.2f);
        } else {
            scene_init(&s, "lists_3d", 3, (float[3]){0, 0, 0}, (float[3]){0.6f, 0.5f, 0.3f}, 0.025f, 0.05f, 1.0f / 180);
            scene_block(&s, (float[3]){0, 0, 0}, (float[3]){0.2f, 0.4f, 0.3f}, 0.2f);
        }
        s.walls[0] = (cs_wall){.normal = {-0.6f, 0.8f, 0}, .offset = -0.6f * (dim == 2 ? 1.1f : 0.55f)};
        s.wall_count = 1;
        CHECK(scene_pbf(&s, "{\"vorticity\": 0.1, \"xsph\": 0.05}"), "pbf json");
        void *state = pbf_create_or_fail(ctx, &s);
        if (!state) {
            scene_free(&s);
            continue;
        }
        if (run == 2)
            CHECK(cs_pbf_neighbours(state)->layout == (cpu ? CS_NB_LAYOUT_SLOT : CS_NB_LAYOUT_PARTICLE),
                  "CISTERN_NB_LAYOUT=%s was not taken", other_layout);
        cs_pbf_set_neighbour_lists(state, run != 1);
        run_steps(ctx, state, steps);
        cs_fluid *f = cs_pbf_fluid(state);
        n[run] = f->count;
        pos[run] = malloc((size_t)n[run] * 16);
        vel[run] = malloc((size_t)n[run] * 16);
        dens[run] = malloc((size_t)n[run] * 4);
        cs_fluid_download_by_id(f, pos[run], vel[run], dens[run], NULL);
        uint32_t *use = malloc((size_t)n[run] * 4);
        cs_buffer_download(ctx, &cs_pbf_neighbours(state)->use, use, (VkDeviceSize)n[run] * 4, 0);
        for (uint32_t i = 0; i < n[run]; i++)
            listed[run] += use[i] != 0;
        free(use);
        cs_pbf_ops.destroy(state);
        scene_free(&s);
    }
    test_setting_restore(ctx, "CISTERN_NB_LAYOUT", saved_layout);
    for (int run = 0; run < RUNS; run += 2) {
        if (!pos[run] || !pos[1])
            continue;
        const char *layout = run == 0 ? "device's layout" : other_layout;
        CHECK(n[run] == n[1], "%dD lists (%s): %u vs %u particles", dim, layout, n[run], n[1]);
        uint32_t m = CS_MIN(n[run], n[1]), diff = 0;
        for (uint32_t i = 0; i < m; i++)
            if (memcmp(pos[run] + 4 * i, pos[1] + 4 * i, 16) || memcmp(vel[run] + 4 * i, vel[1] + 4 * i, 16) ||
                memcmp(dens[run] + i, dens[1] + i, 4))
                diff++;
        fprintf(stderr, "%dD lists (%s) vs cell walk, %u substeps: %u of %u particles differ; last lambda read the "
                        "list for %u particles (walk run: %u)\n", dim, layout, steps, diff, m, listed[run], listed[1]);
        CHECK(diff == 0, "%dD (%s): %u of %u particles differ between neighbour lists and the cell walk", dim, layout,
              diff, m);
        CHECK(listed[run] > m / 2, "%dD (%s): only %u of %u particles read their list in the last lambda", dim, layout,
              listed[run], m);
    }
    CHECK(listed[1] == 0, "%dD: %u particles read a list that was switched off", dim, listed[1]);
    for (int r = 0; r < RUNS; r++) {
        free(pos[r]);
        free(vel[r]);
        free(dens[r]);
    }
}

// User errors: messages, not crashes, and nothing allocated.
static void test_refusals(cs_context *ctx)
{
    cs_error err;
    void *state = NULL;
    // Just above what this device holds, from the limits it reports: every
    // particle has a 16-byte position buffer (refused above
    // maxStorageBufferRange / 16) and at least 64 bytes in all (positions and
    // velocities, twice each: refused above the largest heap / 64). The
    // capacity is set exactly with max_particles over a small block.
    VkDeviceSize heap = 0;
    for (uint32_t h = 0; h < ctx->memory_props.memoryHeapCount; h++)
        heap = CS_MAX(heap, ctx->memory_props.memoryHeaps[h].size);
    uint64_t by_range = (uint64_t)ctx->props.limits.maxStorageBufferRange / 16 + 1;
    uint64_t by_heap = heap / 64 + 1;
    uint32_t want = (uint32_t)CS_MIN(CS_MIN(by_range, by_heap), (uint64_t)UINT32_MAX);
    if (by_range <= by_heap)
        CHECK(cs_buffer_check_size(ctx, "one particle fewer", (VkDeviceSize)(want - 1) * 16, &err),
              "%u particles' positions fit in one buffer: %s", want - 1, err.msg);
    cs_scene s;
    scene_init(&s, "huge_3d", 3, (float[3]){0, 0, 0}, (float[3]){1, 1, 1}, 0.05f, 0.1f, 1.0f / 240);
    scene_block(&s, (float[3]){0, 0, 0}, (float[3]){1, 1, 1}, 0.0f);
    s.max_particles = want;
    uint64_t before = ctx->bytes_allocated;
    bool ok = cs_pbf_ops.create(ctx, &s, &state, &err);
    char count[32];
    snprintf(count, sizeof count, "%u", want);
    CHECK(!ok, "a %u-particle scene was accepted", want);
    CHECK(!ok && strstr(err.msg, "huge_3d") && strstr(err.msg, count) &&
              (strstr(err.msg, "maxStorageBufferRange") || strstr(err.msg, "memory")),
          "the refusal names the scene, the count and the limit: %s", ok ? "" : err.msg);
    CHECK(ctx->bytes_allocated == before, "the refusal allocated %llu bytes",
          (unsigned long long)(ctx->bytes_allocated - before));
    fprintf(stderr, "refused %u particles: %s\n", want, ok ? "(accepted!)" : err.msg);
    if (ok)
        cs_pbf_ops.destroy(state);

    // Bad "pbf" blocks.
    static const struct {
        const char *json, *needle;
    } bad[] = {
        {"{\"iteration\": 4}", "iteration"},
        {"{\"iterations\": 0}", "iterations"},
        {"{\"relaxation\": -1}", "relaxation"},
        {"{\"scorr_dq\": 1.5}", "scorr_dq"},
        {"{\"scorr_background\": 2}", "scorr_background"},
        {"{\"xsph\": \"lots\"}", "xsph"},
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(bad); i++) {
        cs_scene b;
        scene_init(&b, "bad_params", 2, (float[3]){0, 0, 0}, (float[3]){1, 1, 0}, 0.02f, 0.04f, 1.0f / 240);
        scene_block(&b, (float[3]){0, 0, 0}, (float[3]){0.2f, 0.2f, 0}, 0.0f);
        CHECK(scene_pbf(&b, bad[i].json), "json");
        before = ctx->bytes_allocated;
        ok = cs_pbf_ops.create(ctx, &b, &state, &err);
        CHECK(!ok && strstr(err.msg, bad[i].needle) && strstr(err.msg, "pbf"), "%s refused naming pbf.%s: %s",
              bad[i].json, bad[i].needle, ok ? "(accepted)" : err.msg);
        CHECK(ctx->bytes_allocated == before, "a refused scene allocated memory");
        if (ok)
            cs_pbf_ops.destroy(state);
        scene_free(&b);
    }
}

// Hot reload: a change to a file rebuilds exactly the programs that include it.
static void test_reload(cs_context *ctx)
{
    cs_scene s;
    scene_init(&s, "reload_2d", 2, (float[3]){0, 0, 0}, (float[3]){1, 1, 0}, 0.02f, 0.04f, 1.0f / 240);
    scene_block(&s, (float[3]){0, 0, 0}, (float[3]){0.2f, 0.2f, 0}, 0.0f);
    void *state = pbf_create_or_fail(ctx, &s);
    if (!state)
        return;
    char path[1024];
    cs_reload_report report = {0};
    snprintf(path, sizeof path, "%s/pbf/delta.comp", cs_shader_dir());
    cs_programs_reload(ctx, path, &report);
    CHECK(report.rebuilt == 1 && report.failed == 0, "reload of %s: %u rebuilt (%s), %u failed", path,
          report.rebuilt, report.names, report.failed);
    // grid.glsl is included by the grid's passes, the neighbour lists and
    // every PBF pass that walks neighbours: several programs, primitives'
    // own passes not among them.
    snprintf(path, sizeof path, "%s/grid/grid.glsl", cs_shader_dir());
    memset(&report, 0, sizeof report);
    cs_programs_reload(ctx, path, &report);
    CHECK(report.rebuilt >= 3 && report.failed == 0 && !strstr(report.names, "prim/"),
          "reload of an include (grid.glsl): %u rebuilt (%s)", report.rebuilt, report.names);
    // The primitives under the grid (the sort) are in the registry too. The
    // scatter shader is the one this grid's sort runs: prim/sort_scatter.comp
    // (4-bit digits, CPU devices) or prim/sort8_scatter.comp (8-bit, GPUs that
    // pass its self-test); the other is in no program here.
    const char *scatter = cs_sort_scatter_source(cs_pbf_fluid(state)->grid.sort.digit_bits);
    snprintf(path, sizeof path, "%s/%s", cs_shader_dir(), scatter);
    memset(&report, 0, sizeof report);
    cs_programs_reload(ctx, path, &report);
    CHECK(report.rebuilt >= 1 && report.failed == 0 && strstr(report.names, scatter),
          "reload of a primitive (%s, the grid's %u-bit sort): %u rebuilt (%s)", scatter,
          cs_pbf_fluid(state)->grid.sort.digit_bits, report.rebuilt, report.names);
    snprintf(path, sizeof path, "%s/test/add_one.comp", cs_shader_dir());
    memset(&report, 0, sizeof report);
    cs_programs_reload(ctx, path, &report);
    CHECK(report.rebuilt == 0 && report.failed == 0, "an unrelated file rebuilt %u programs", report.rebuilt);
    run_steps(ctx, state, 5); // still runs after the rebuilds
    cs_sim_stats st;
    cs_pbf_ops.stats(state, &st);
    CHECK(st.non_finite == 0 && st.particles == cs_pbf_fluid(state)->count, "runs after reload");
    cs_pbf_ops.destroy(state);
    scene_free(&s);
}

static double g_t0;
static void lap(const char *what)
{
    double t = cs_now_seconds();
    fprintf(stderr, "  (%s: %.1f s)\n", what, t - g_t0);
    g_t0 = t;
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    g_t0 = cs_now_seconds();
    test_kernels();
    test_against_reference(&ctx, 2);
    test_against_reference(&ctx, 3);
    // A fixed case, every run: seed 14647634055313 put one 3D particle on
    // the wall-touch threshold, where float and double reflect differently
    // (0.197 m/s apart) before the comparison learnt to skip such ties.
    uint64_t resume = test_rand_begin_fixed(14647634055313ull);
    test_against_reference(&ctx, 2);
    test_against_reference(&ctx, 3);
    test_rand_resume(resume);
    lap("reference");
    test_rest(&ctx, 2);
    lap("rest 2D");
    test_rest(&ctx, 3);
    lap("rest 3D");
    test_dam_break(&ctx, 2, 400);
    lap("dam break 2D");
    test_dam_break(&ctx, 3, 200);
    lap("dam break 3D");
    test_emitter(&ctx);
    test_determinism(&ctx);
    lap("emitter, determinism");
    test_lists_match_walk(&ctx, 2, 150);
    test_lists_match_walk(&ctx, 3, 60);
    lap("lists vs walk");
    test_refusals(&ctx);
    test_reload(&ctx);
    lap("refusals, reload");
    return test_finish(&ctx);
}
