// test_dfsph.c — the divergence-free SPH solver ("dfsph").
//
//  1. Every pass on fresh random particles (2D and 3D, two materials, a
//     tilted wall; sizes 0, 1, a workgroup -1, +0, +1, several hundred, and
//     everything in one cell) against the double-precision, all-pairs
//     reference tests/ref/dfsph_ref.h, each pass on the GPU's own inputs:
//     density + factor (rho/rho0, alpha, neighbours, grad psi), one Jacobi
//     iteration of the density solve (error, then velocity with the kappa
//     sums), the divergence solve's warm start, the non-pressure forces.
//     Outputs poisoned first, so an element a pass leaves unwritten is a
//     NaN, and NaN never passes.
//  2. Determinism: a 2D dam break run twice gives the same bits, the same
//     steps and the same iterations.
//  3. A hydrostatic pool (2D; 3D as "test_dfsph pool3d 1.5", its own ctest
//     test_dfsph_pool3d) settles within 1.5 s: the mean
//     compression (rho/rho0 - 1)+ under 0.1%, the pressure at the floor
//     within 2% of rho g H, the rms speed under 1% of sqrt(g H).
//  4. The CFL step count and its bounds; the block's errors; a scene with
//     bodies refused with a message.
//   test_dfsph pool2d|pool3d [seconds]   runs one pool alone.
// ctest labels: slow,gpu -- 135 at load 12 (19 s CPU): passes vs CPU references, determinism, 2D pool 1.5 s
#include "test_util.h"
#include "solver_compare.h"

#include "fluid_dfsph.h"
#include "ref/dfsph_ref.h"

static bool parse_scene(const char *json, cs_scene *sc)
{
    cs_error err;
    if (!cs_scene_parse(json, strlen(json), "test_dfsph.json", sc, &err)) {
        fprintf(stderr, "scene parse failed: %s\n", err.msg);
        return false;
    }
    return true;
}

// max |gpu - ref| / max |ref| over n rows of `width` of `stride` values;
// infinite for a NaN or infinite GPU value.
static double rel_error(const double *gpu, const double *ref, uint32_t n, int width, int gpu_stride, int ref_stride)
{
    double err = 0.0, scale = 0.0;
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < width; a++) {
            double g = gpu[(size_t)gpu_stride * i + a], r = ref[(size_t)ref_stride * i + a];
            if (!isfinite(g) || !isfinite(r))
                return INFINITY;
            err = fmax(err, fabs(g - r));
            scale = fmax(scale, fabs(r));
        }
    return scale > 0.0 ? err / scale : err;
}

static double *download_doubles(cs_context *ctx, cs_buffer *b, uint32_t n, uint32_t floats)
{
    float *f = malloc((size_t)n * floats * 4 + 16);
    CS_ASSERT(f, "out of memory");
    compare_download(ctx, b, f, n, floats * 4);
    double *d = compare_to_double(f, (size_t)n * floats);
    free(f);
    return d;
}

static void submit(cs_context *ctx, void (*record)(cs_dfsph *, cs_recorder *, const void *), cs_dfsph *d,
                   const void *arg)
{
    cs_recorder rec;
    cs_recorder_create(ctx, "dfsph pass", &rec);
    cs_recorder_begin(&rec);
    if (d->fluid.count)
        record(d, &rec, arg);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
}

typedef struct pass_arg {
    uint32_t mode;
    bool warm;
    float dt;
} pass_arg;

static void rec_grid(cs_dfsph *d, cs_recorder *rec, const void *arg)
{
    (void)arg;
    cs_fluid_record_grid(&d->fluid, rec, false);
}
static void rec_density(cs_dfsph *d, cs_recorder *rec, const void *arg)
{
    (void)arg;
    cs_dfsph_record_density(d, rec);
}
static void rec_error(cs_dfsph *d, cs_recorder *rec, const void *arg)
{
    const pass_arg *p = arg;
    cs_dfsph_record_error(d, rec, p->mode, p->warm, p->dt);
}
static void rec_velocity(cs_dfsph *d, cs_recorder *rec, const void *arg)
{
    const pass_arg *p = arg;
    cs_dfsph_record_velocity(d, rec, p->mode, p->dt);
}
static void rec_forces(cs_dfsph *d, cs_recorder *rec, const void *arg)
{
    const pass_arg *p = arg;
    cs_dfsph_record_forces(d, rec, p->dt);
}

// The boundary planes as the solver sees them: domain faces, then walls.
static void ref_setup(dfsph_ref_params *rp, dfsph_ref_material *mats, const cs_dfsph *d)
{
    const cs_scene *sc = d->fluid.scene;
    *rp = (dfsph_ref_params){.dim = sc->dim,
                             .h = sc->smoothing_radius,
                             .materials = mats,
                             .wall_table = &d->params.wall[0].x,
                             .wall_steps = CS_DFSPH_WALL_STEPS,
                             .sparse = d->params.options.x};
    for (uint32_t m = 0; m < sc->material_count; m++)
        mats[m] = (dfsph_ref_material){sc->materials[m].mass, sc->materials[m].rest_density, sc->materials[m].viscosity,
                                       sc->materials[m].speed_of_sound};
    for (int a = 0; a < sc->dim; a++)
        for (int side = 0; side < 2; side++) {
            double *pl = rp->planes[rp->plane_count++];
            pl[0] = pl[1] = pl[2] = 0.0;
            pl[a] = side ? -1.0 : 1.0;
            pl[3] = side ? -sc->domain_max[a] : sc->domain_min[a];
        }
    for (uint32_t k = 0; k < sc->wall_count; k++) {
        double *pl = rp->planes[rp->plane_count++];
        for (int a = 0; a < 3; a++)
            pl[a] = sc->walls[k].normal[a];
        pl[3] = sc->walls[k].offset;
    }
}

static double worst[6]; // density, alpha, error k, velocity, warm, forces

static void check_passes(cs_context *ctx, int dim, uint32_t n, bool one_cell)
{
    const double s = 0.02, h = 0.04, dt = 0.002;
    uint32_t side = dim == 2 ? (uint32_t)ceil(sqrt((double)n)) : (uint32_t)ceil(cbrt((double)n));
    double extent = (side + 3) * s;
    double vol = dim == 2 ? s * s : s * s * s;
    char json[4096];
    snprintf(
        json, sizeof json,
        "{ \"solver\": \"dfsph\", \"dim\": %d, \"domain\": { \"min\": [0, 0, 0], \"max\": [%g, %g, %g] },"
        "  \"gravity\": [0, -9.81, 0], \"dt\": %g, \"substeps\": 1, \"smoothing_radius\": %g,"
        "  \"particle_spacing\": %g, \"max_particles\": %u,"
        "  \"materials\": [ { \"name\": \"water\", \"mass\": %g, \"rest_density\": 1000, \"viscosity\": 0.1,"
        "      \"speed_of_sound\": 20 },"
        "    { \"name\": \"oil\", \"mass\": %g, \"rest_density\": 800, \"viscosity\": 0.3, \"speed_of_sound\": 15 } ],"
        "  \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [0.02, 0.02, %g] } ],"
        "  \"walls\": [ { \"normal\": [-1, -1, 0], \"offset\": %g } ], \"dfsph\": {} }",
        dim, extent, extent, dim == 3 ? extent : 0.0, dt, h, s, CS_MAX(n, 8u), 1000.0 * vol, 800.0 * vol,
        dim == 3 ? 0.02 : 0.0, -1.5 * side * s);
    cs_scene sc;
    if (!parse_scene(json, &sc)) {
        CHECK(false, "scene");
        return;
    }
    cs_dfsph d;
    cs_error err;
    if (!cs_dfsph_create(ctx, &sc, &d, &err)) {
        CHECK(false, "cs_dfsph_create: %s", err.msg);
        cs_scene_free(&sc);
        return;
    }
    cs_fluid *f = &d.fluid;
    size_t n4 = (size_t)n * 4 + 4;
    float *x0 = calloc(n4, 4), *v0 = calloc(n4, 4), *k0 = calloc(n4, 4);
    uint32_t *m0 = calloc(n + 1, 4), *id0 = calloc(n + 1, 4);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c[3] = {i % side, (i / side) % side, i / (side * side)};
        for (int a = 0; a < dim; a++) {
            // One cell: every particle within a cell of size h, off the walls.
            double p =
                one_cell ? h * (1.02 + 0.96 * test_rand_unit()) : (0.5 + c[a] + 0.5 * (test_rand_unit() - 0.5)) * s;
            x0[4 * i + a] = (float)p;
            v0[4 * i + a] = (float)(test_rand_unit() - 0.5);
        }
        m0[i] = test_rand_u32() % 2u;
        x0[4 * i + 3] = (float)m0[i];
        k0[4 * i] = (float)(2000.0 * test_rand_unit());
        k0[4 * i + 1] = (float)(2000.0 * test_rand_unit());
        id0[i] = i;
    }
    if (n) {
        cs_buffer_upload(ctx, cs_fluid_pos(f), x0, (VkDeviceSize)n * 16, 0);
        cs_buffer_upload(ctx, cs_fluid_vel(f), v0, (VkDeviceSize)n * 16, 0);
        cs_buffer_upload(ctx, cs_fluid_pred(f), k0, (VkDeviceSize)n * 16, 0);
        cs_buffer_upload(ctx, cs_fluid_mat(f), m0, (VkDeviceSize)n * 4, 0);
        cs_buffer_upload(ctx, cs_fluid_ids(f), id0, (VkDeviceSize)n * 4, 0);
    }
    f->count = n;
    cs_buffer *poison[] = {cs_fluid_vel_alt(f),
                           &f->densities,
                           &f->arrays[CS_DFSPH_ARRAY_TERMS],
                           &f->arrays[CS_DFSPH_ARRAY_WALL_GRADIENT],
                           &f->arrays[CS_DFSPH_ARRAY_STIFFNESS],
                           &f->arrays[CS_DFSPH_ARRAY_ERRORS]};
    for (size_t i = 0; i < CS_ARRAY_COUNT(poison); i++)
        cs_buffer_fill(ctx, poison[i], CS_POISON_U32);
    dfsph_ref_material mats[CS_MAX_MATERIALS];
    dfsph_ref_params rp;
    ref_setup(&rp, mats, &d);

    submit(ctx, rec_grid, &d, NULL);
    double *x = download_doubles(ctx, cs_fluid_pos(f), n, 4), *v = download_doubles(ctx, cs_fluid_vel(f), n, 4);
    double *kap = download_doubles(ctx, cs_fluid_pred(f), n, 4);
    uint32_t *mat = calloc(n + 1, 4);
    compare_download(ctx, cs_fluid_mat(f), mat, n, 4);
    double *kap2 = calloc(2 * (size_t)n + 2, sizeof(double));
    for (uint32_t i = 0; i < n; i++)
        kap2[2 * i] = kap[4 * i], kap2[2 * i + 1] = kap[4 * i + 1];

    // Density + factor.
    submit(ctx, rec_density, &d, NULL);
    double *terms = download_doubles(ctx, &f->arrays[CS_DFSPH_ARRAY_TERMS], n, 4);
    double *wg4 = download_doubles(ctx, &f->arrays[CS_DFSPH_ARRAY_WALL_GRADIENT], n, 4);
    double *rho = download_doubles(ctx, &f->densities, n, 1);
    double *r_rho = calloc(n + 1, 8), *r_alpha = calloc(n + 1, 8), *r_nb = calloc(n + 1, 8);
    double *r_wg = calloc(3 * (size_t)n + 3, 8), *wg = calloc(3 * (size_t)n + 3, 8);
    dfsph_ref_density(&rp, n, x, mat, r_rho, r_alpha, r_nb, r_wg);
    double *g_rho = calloc(n + 1, 8), *g_alpha = calloc(n + 1, 8), *g_nb = calloc(n + 1, 8), *r_kgm = calloc(n + 1, 8);
    for (uint32_t i = 0; i < n; i++) {
        g_rho[i] = terms[4 * i], g_alpha[i] = terms[4 * i + 1], g_nb[i] = terms[4 * i + 2];
        r_kgm[i] = r_rho[i] * mats[mat[i]].rest_density;
        for (int a = 0; a < 3; a++)
            wg[3 * i + a] = wg4[4 * i + a];
    }
    double e_rho = fmax(rel_error(g_rho, r_rho, n, 1, 1, 1), rel_error(rho, r_kgm, n, 1, 1, 1));
    double e_alpha = rel_error(g_alpha, r_alpha, n, 1, 1, 1);
    double e_nb = rel_error(g_nb, r_nb, n, 1, 1, 1), e_wg = rel_error(wg, r_wg, n, 3, 3, 3);

    // One Jacobi iteration of the density solve on the GPU's own terms.
    pass_arg density_error = {CS_DFSPH_DENSITY, false, (float)dt};
    submit(ctx, rec_error, &d, &density_error);
    double *k = download_doubles(ctx, &f->arrays[CS_DFSPH_ARRAY_STIFFNESS], n, 1);
    double *e = download_doubles(ctx, &f->arrays[CS_DFSPH_ARRAY_ERRORS], n, 1);
    double *r_k = calloc(n + 1, 8), *r_e = calloc(n + 1, 8), *r_kap2 = calloc(2 * (size_t)n + 2, 8);
    dfsph_ref_error(&rp, n, 0, 0, dt, x, v, mat, g_rho, g_alpha, g_nb, wg, kap2, r_k, r_e, r_kap2);
    double e_k = fmax(rel_error(k, r_k, n, 1, 1, 1), rel_error(e, r_e, n, 1, 1, 1));
    submit(ctx, rec_velocity, &d, &density_error);
    double *v1 = download_doubles(ctx, cs_fluid_vel(f), n, 4), *kap_1 = download_doubles(ctx, cs_fluid_pred(f), n, 4);
    double *r_v1 = calloc(n4, 8), *r_kap2_1 = calloc(2 * (size_t)n + 2, 8);
    dfsph_ref_velocity(&rp, n, 0, dt, x, v, mat, wg, k, kap2, r_v1, r_kap2_1);
    double *dv = calloc(n4, 8), *r_dv = calloc(n4, 8);
    for (size_t i = 0; i < 4 * (size_t)n; i++)
        dv[i] = v1[i] - v[i], r_dv[i] = r_v1[i] - v[i];
    double e_v = fmax(rel_error(dv, r_dv, n, dim, 4, 4), rel_error(kap_1, r_kap2_1, n, 2, 4, 2));

    // The divergence solve's warm start: k from half the kappa, the sum reset.
    for (uint32_t i = 0; i < n; i++)
        kap2[2 * i] = kap_1[4 * i], kap2[2 * i + 1] = kap_1[4 * i + 1];
    pass_arg warm = {CS_DFSPH_DIVERGENCE, true, (float)dt};
    submit(ctx, rec_error, &d, &warm);
    double *kw = download_doubles(ctx, &f->arrays[CS_DFSPH_ARRAY_STIFFNESS], n, 1);
    double *ew = download_doubles(ctx, &f->arrays[CS_DFSPH_ARRAY_ERRORS], n, 1);
    double *kap_w = download_doubles(ctx, cs_fluid_pred(f), n, 4);
    dfsph_ref_error(&rp, n, 1, 1, dt, x, v1, mat, g_rho, g_alpha, g_nb, wg, kap2, r_k, r_e, r_kap2);
    double e_warm = fmax(fmax(rel_error(kw, r_k, n, 1, 1, 1), rel_error(ew, r_e, n, 1, 1, 1)),
                         rel_error(kap_w, r_kap2, n, 2, 4, 2));

    // Non-pressure forces: gravity and viscosity, into the alternate buffer.
    pass_arg forces = {0, false, (float)dt};
    submit(ctx, rec_forces, &d, &forces);
    double *v2 = download_doubles(ctx, cs_fluid_vel(f), n, 4), *r_v2 = calloc(n4, 8);
    double gravity[3] = {sc.gravity[0], sc.gravity[1], sc.gravity[2]};
    dfsph_ref_forces(&rp, n, dt, gravity, x, v1, mat, rho, r_v2);
    for (size_t i = 0; i < 4 * (size_t)n; i++)
        dv[i] = v2[i] - v1[i], r_dv[i] = r_v2[i] - v1[i];
    double e_f = rel_error(dv, r_dv, n, dim, 4, 4);

    fprintf(stderr,
            "dfsph %dD n=%-4u %s: rel err rho %.1e alpha %.1e neighbours %.0e grad psi %.1e | k %.1e | dv %.1e | warm "
            "%.1e | forces %.1e\n",
            dim, n, one_cell ? "one cell" : "lattice ", e_rho, e_alpha, e_nb, e_wg, e_k, e_v, e_warm, e_f);
    double errs[6] = {fmax(e_rho, e_wg), e_alpha, e_k, e_v, e_warm, e_f};
    for (int i = 0; i < 6; i++)
        worst[i] = fmax(worst[i], errs[i]);
    if (n) {
        CHECK(e_rho <= 1e-5 && e_nb == 0.0 && e_wg <= 1e-5, "%dD n=%u: density %.2e, neighbours %.2e, grad psi %.2e",
              dim, n, e_rho, e_nb, e_wg);
        CHECK(e_alpha <= 1e-4, "%dD n=%u: alpha rel err %.2e", dim, n, e_alpha);
        CHECK(e_k <= 1e-4, "%dD n=%u: density error pass (k, error) rel err %.2e", dim, n, e_k);
        CHECK(e_v <= 1e-4, "%dD n=%u: density velocity pass (dv, kappa) rel err %.2e", dim, n, e_v);
        CHECK(e_warm <= 1e-4, "%dD n=%u: divergence warm start (k, error, kappa) rel err %.2e", dim, n, e_warm);
        CHECK(e_f <= 1e-4, "%dD n=%u: non-pressure forces dv rel err %.2e", dim, n, e_f);
    }
    double *frees[] = {x,     v,     kap,      kap2, terms, wg4, rho, r_rho, r_alpha, r_nb,   r_wg,
                       wg,    g_rho, g_alpha,  g_nb, r_kgm, k,   e,   r_k,   r_e,     r_kap2, v1,
                       kap_1, r_v1,  r_kap2_1, dv,   r_dv,  kw,  ew,  kap_w, v2,      r_v2};
    for (size_t i = 0; i < CS_ARRAY_COUNT(frees); i++)
        free(frees[i]);
    free(x0), free(v0), free(k0), free(m0), free(id0), free(mat);
    cs_dfsph_destroy(&d);
    cs_scene_free(&sc);
}

// ---- 2. determinism, 3. the hydrostatic pool --------------------------------

// Runs `substeps` scene substeps through the ops table, a frame of
// `per_frame` at a time (each its own recording, as cistern run records).
static void run_substeps(const cs_sim_ops *ops, void *state, const cs_scene *sc, cs_context *ctx, uint64_t *index,
                         uint64_t substeps, uint32_t per_frame)
{
    cs_recorder rec;
    cs_recorder_create(ctx, "dfsph run", &rec);
    uint64_t until = *index + substeps;
    while (*index < until) {
        cs_recorder_begin(&rec);
        for (uint32_t s = 0; s < per_frame && *index < until; s++, (*index)++) {
            cs_substep step = {.index = *index,
                               .time = (double)*index * sc->dt,
                               .dt = sc->dt,
                               .frame_substep = s,
                               .frame_substeps = per_frame};
            ops->record_substep(state, &rec, &step);
        }
        cs_recorder_submit_wait(&rec);
    }
    cs_recorder_destroy(&rec);
}

static const char *dam_json(int dim)
{
    return dim == 2
               ? "{ \"solver\": \"dfsph\", \"dim\": 2, \"domain\": { \"min\": [0, 0], \"max\": [0.5, 0.3] },"
                 "  \"gravity\": [0, -9.81], \"dt\": 0.0166667, \"substeps\": 1, \"seed\": 1,"
                 "  \"smoothing_radius\": 0.02, \"particle_spacing\": 0.01,"
                 "  \"materials\": [ { \"name\": \"water\", \"rest_density\": 1000 },"
                 "                   { \"name\": \"oil\", \"rest_density\": 800, \"viscosity\": 0.3 } ],"
                 "  \"blocks\": [ { \"min\": [0, 0], \"max\": [0.1, 0.2], \"material\": \"water\" },"
                 "                { \"min\": [0.1, 0], \"max\": [0.15, 0.1], \"material\": \"oil\" } ],"
                 "  \"dfsph\": {} }"
               : "{ \"solver\": \"dfsph\", \"dim\": 3, \"domain\": { \"min\": [0, 0, 0], \"max\": [0.4, 0.3, 0.1] },"
                 "  \"gravity\": [0, -9.81, 0], \"dt\": 0.0166667, \"substeps\": 1, \"seed\": 1,"
                 "  \"smoothing_radius\": 0.04, \"particle_spacing\": 0.02,"
                 "  \"materials\": [ { \"name\": \"water\", \"rest_density\": 1000 } ],"
                 "  \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [0.1, 0.2, 0.1], \"material\": \"water\" } ],"
                 "  \"dfsph\": {} }";
}

// Two runs of a dam break (2D with two materials, 3D), 0.25 s each: the
// same bits by particle id, the same steps and iterations.
static void check_determinism(cs_context *ctx, int dim)
{
    float *state[2] = {NULL, NULL};
    cs_sim_stats stats[2];
    uint32_t count = 0;
    for (int run = 0; run < 2; run++) {
        cs_scene sc;
        cs_error err;
        void *d;
        if (!parse_scene(dam_json(dim), &sc) || !cs_dfsph_ops.create(ctx, &sc, &d, &err)) {
            CHECK(false, "determinism %dD: the scene does not run", dim);
            return;
        }
        uint64_t index = 0;
        run_substeps(&cs_dfsph_ops, d, &sc, ctx, &index, 15, 5);
        cs_dfsph_ops.stats(d, &stats[run]);
        cs_fluid *f = &((cs_dfsph *)d)->fluid;
        count = f->count;
        state[run] = calloc((size_t)count * 9 + 1, sizeof(float));
        cs_fluid_download_by_id(f, state[run], state[run] + 4 * (size_t)count, state[run] + 8 * (size_t)count, NULL);
        cs_dfsph_ops.destroy(d);
        cs_scene_free(&sc);
    }
    bool same = memcmp(state[0], state[1], (size_t)count * 9 * sizeof(float)) == 0;
    printf("determinism %dD: %u particles, %u steps, %u density and %u divergence iterations in 15 substeps: %s\n", dim,
           count, stats[0].solver_steps, stats[0].density_iterations, stats[0].divergence_iterations,
           same ? "same bits" : "DIFFERENT");
    CHECK(same, "%dD: two runs of the same dam break differ", dim);
    CHECK(stats[0].solver_steps == stats[1].solver_steps &&
              stats[0].density_iterations == stats[1].density_iterations &&
              stats[0].divergence_iterations == stats[1].divergence_iterations,
          "%dD: two runs took different steps or iterations", dim);
    CHECK(stats[0].solver_steps > 0 && stats[0].density_iterations >= 2 * stats[0].solver_steps,
          "%dD: %u steps, %u density iterations: the counts do not reach the stats", dim, stats[0].solver_steps,
          stats[0].density_iterations);
    free(state[0]);
    free(state[1]);
}

// The floor's push on the fluid in the last step (velocity.comp: a_i =
// -kappa_i grad psi_i from every wall; the floor's share is its y
// component, the side walls push along x and z): over the floor's area it
// is the pressure at the floor, rho0 g H when the floor, not the collision
// clamp, holds the water up. Averaged over frames, so a slosh's
// acceleration averages out.
static double floor_push(cs_context *ctx, cs_dfsph *d)
{
    cs_fluid *f = &d->fluid;
    uint32_t n = f->count;
    float *kap = calloc((size_t)n * 4 + 4, 4), *wg = calloc((size_t)n * 4 + 4, 4);
    uint32_t *mat = calloc(n + 1, 4);
    compare_download(ctx, cs_fluid_pred(f), kap, n, 16);
    compare_download(ctx, &f->arrays[CS_DFSPH_ARRAY_WALL_GRADIENT], wg, n, 16);
    compare_download(ctx, cs_fluid_mat(f), mat, n, 4);
    double force = 0.0;
    for (uint32_t i = 0; i < n; i++)
        force -= f->scene->materials[mat[i]].mass * ((double)kap[4 * i] + kap[4 * i + 1]) * wg[4 * i + 1];
    free(kap), free(wg), free(mat);
    return force;
}

// The pool's density_error: the solver stops when its predicted (linear)
// compression is below it; the compression measured after the step reads
// a little above (llvmpipe, the 2D pool with the default 0.001: 0.099% to
// 0.102%), so the pool asks for half the 0.1% it is held to.
#define POOL_TARGET 0.0005
// A pool at rest on its lattice, settled for `seconds`: the mean
// compression, the floor's pressure and the rms speed over the last 0.5 s.
static void check_pool(cs_context *ctx, int dim, double seconds)
{
    const double s = dim == 2 ? 0.01 : 0.02, width = dim == 2 ? 0.3 : 0.2, depth = dim == 2 ? 0.15 : 0.12, g = 9.81;
    char json[2048];
    snprintf(json, sizeof json,
             "{ \"solver\": \"dfsph\", \"dim\": %d, \"domain\": { \"min\": [0, 0, 0], \"max\": [%g, %g, %g] },"
             "  \"gravity\": [0, %g, 0], \"dt\": 0.0166667, \"substeps\": 1, \"seed\": 1,"
             "  \"smoothing_radius\": %g, \"particle_spacing\": %g,"
             "  \"materials\": [ { \"name\": \"water\", \"rest_density\": 1000 } ],"
             "  \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [%g, %g, %g], \"material\": \"water\" } ],"
             "  \"dfsph\": { \"density_error\": %g } }",
             dim, width, 2 * depth, dim == 3 ? width : 0.0, -g, 2 * s, s, width, depth, dim == 3 ? width : 0.0,
             POOL_TARGET);
    cs_scene sc;
    cs_error err;
    void *state;
    if (!parse_scene(json, &sc) || !cs_dfsph_ops.create(ctx, &sc, &state, &err)) {
        CHECK(false, "pool %dD: the scene does not run", dim);
        return;
    }
    cs_dfsph *d = state;
    cs_fluid *f = &d->fluid;
    uint32_t n = f->count;
    double rest = sc.materials[0].rest_density;
    // The depth the particles fill at rest density (the block is filled on
    // the lattice, so it is the block's).
    double H = n * pow(s, dim) / (dim == 2 ? width : width * width);
    float *v = calloc((size_t)n * 4 + 4, sizeof(float));
    uint64_t index = 0, substeps = (uint64_t)llround(seconds / sc.dt), window = (uint64_t)llround(0.5 / sc.dt);
    double ke_sum = 0.0, floor_force = 0.0;
    uint32_t ke_samples = 0, steps = 0, iterations = 0;
    while (index < substeps) {
        run_substeps(&cs_dfsph_ops, state, &sc, ctx, &index, 1, 1);
        cs_sim_stats st;
        cs_dfsph_ops.stats(state, &st);
        steps += st.solver_steps;
        iterations += st.density_iterations;
        if (index + window > substeps) {
            floor_force += floor_push(ctx, d);
            cs_fluid_download_by_id(f, NULL, v, NULL, NULL);
            double sum = 0.0;
            for (uint32_t i = 0; i < n; i++)
                sum += (double)v[4 * i] * v[4 * i] + (double)v[4 * i + 1] * v[4 * i + 1] +
                       (double)v[4 * i + 2] * v[4 * i + 2];
            ke_sum += sum / n;
            ke_samples++;
        }
    }
    double rms = sqrt(ke_sum / CS_MAX(ke_samples, 1u)), scale = sqrt(g * H);
    // The settled state's density and pressure: a fresh grid and density
    // pass on the final positions; the kappas (reordered with them) are
    // the last step's pressure solves: p / rho^2 = kappa / rho0.
    cs_recorder rec;
    cs_recorder_create(ctx, "dfsph pool", &rec);
    cs_recorder_begin(&rec);
    cs_fluid_record_grid(f, &rec, false);
    cs_dfsph_record_density(d, &rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    float *x = calloc((size_t)n * 4 + 4, 4), *rho = calloc(n + 1, 4);
    compare_download(ctx, cs_fluid_pos(f), x, n, 16);
    compare_download(ctx, &f->densities, rho, n, 4);
    double compression = 0.0, floor_y = 0.0;
    uint32_t floor_n = 0;
    for (uint32_t i = 0; i < n; i++) {
        compression += fmax(rho[i] / rest - 1.0, 0.0);
        if (x[4 * i + 1] < s) {
            floor_y += x[4 * i + 1];
            floor_n++;
        }
    }
    compression /= n;
    floor_y /= CS_MAX(floor_n, 1u);
    double floor_p = floor_force / CS_MAX(ke_samples, 1u) / (dim == 2 ? width : width * width);
    double expected = rest * g * H;
    printf("pool %dD: %u particles, H %.3f m, %.1f s: mean compression %.4f%%, floor pressure %.1f Pa (rho0 g H "
           "%.1f Pa, %+.2f%%; bottom row at y = %.4f m), rms speed over the last 0.5 s %.2e m/s = %.3f%% of sqrt(gH); "
           "%.2f steps a frame, %.2f "
           "density iterations a step\n",
           dim, n, H, seconds, 100 * compression, floor_p, expected, 100 * (floor_p / expected - 1), floor_y, rms,
           100 * rms / scale, (double)steps / substeps, (double)iterations / CS_MAX(steps, 1u));
    CHECK(compression <= 0.001, "pool %dD: mean compression %.4f%% > 0.1%%", dim, 100 * compression);
    CHECK(fabs(floor_p / expected - 1) <= 0.02, "pool %dD: floor pressure %.1f Pa is %+.2f%% off rho0 g H %.1f", dim,
          floor_p, 100 * (floor_p / expected - 1), expected);
    CHECK(rms <= 0.01 * scale, "pool %dD: rms speed %.3g m/s > 1%% of sqrt(gH) = %.3g", dim, rms, 0.01 * scale);
    free(v), free(x), free(rho);
    cs_dfsph_ops.destroy(state);
    cs_scene_free(&sc);
}

// ---- 4. the CFL step count and refusals --------------------------------------

static void check_steps_and_errors(cs_context *ctx)
{
    cs_scene sc;
    if (!parse_scene(dam_json(2), &sc)) {
        CHECK(false, "scene");
        return;
    }
    cs_dfsph *d = calloc(1, sizeof *d);
    cs_error err;
    CS_ASSERT(d, "out of memory");
    CHECK(cs_dfsph_read_block(&sc, d, &err), "defaults: %s", err.msg);
    d->fluid.scene = &sc; // cs_dfsph_steps reads the spacing, gravity and substeps
    double dt = 1.0 / 60.0, g = 9.81;
    // At rest: dt_max (5 ms) bounds the step: 4 steps of 1/240 s.
    CHECK(cs_dfsph_steps(d, dt, 0.0) == 4, "at rest: %u steps, wanted 4", cs_dfsph_steps(d, dt, 0.0));
    // 2 m/s (+ g dt): dt <= 0.4 x 0.01 / 2.1635 = 1.849 ms: 10 steps.
    uint32_t n = cs_dfsph_steps(d, dt, 2.0);
    CHECK(n == (uint32_t)ceil(dt / (0.4 * 0.01 / (2.0 + g * dt)) - 1e-9), "2 m/s: %u steps", n);
    // Very fast or not finite: max_steps (200 a frame) bounds the count.
    CHECK(cs_dfsph_steps(d, dt, 1e6) == 200 && cs_dfsph_steps(d, dt, NAN) == 200 &&
              cs_dfsph_steps(d, dt, INFINITY) == 200,
          "a runaway speed: %u / %u / %u steps, wanted max_steps 200", cs_dfsph_steps(d, dt, 1e6),
          cs_dfsph_steps(d, dt, NAN), cs_dfsph_steps(d, dt, INFINITY));
    d->dt_min = 0.004f; // dt_min caps the count below max_steps: 1/60 / 4 ms -> 5 steps at most
    CHECK(cs_dfsph_steps(d, dt, 1e6) == 5, "dt_min 4 ms: %u steps, wanted 5", cs_dfsph_steps(d, dt, 1e6));
    free(d);
    cs_scene_free(&sc);

    static const struct {
        const char *block, *message;
    } bad[] = {
        {"\"dt_min\": 0.01, \"dt_max\": 0.001", "dfsph.dt_min: 0.01 s is longer than dfsph.dt_max"},
        {"\"cfl\": 2", "dfsph.cfl"},
        {"\"max_iterations\": 1", "dfsph.max_iterations"},
        {"\"density_eror\": 0.01", "density_error"},
    };
    for (size_t k = 0; k < CS_ARRAY_COUNT(bad); k++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{ \"solver\": \"dfsph\", \"dim\": 2, \"domain\": { \"min\": [0, 0], \"max\": [0.5, 0.3] },"
                 "  \"dt\": 0.01, \"smoothing_radius\": 0.02, \"particle_spacing\": 0.01,"
                 "  \"blocks\": [ { \"min\": [0, 0], \"max\": [0.1, 0.1] } ], \"dfsph\": { %s } }",
                 bad[k].block);
        void *state = NULL;
        bool made = parse_scene(json, &sc);
        bool refused = made && !cs_dfsph_ops.create(ctx, &sc, &state, &err);
        CHECK(refused && strstr(err.msg, bad[k].message), "block { %s }: %s", bad[k].block,
              refused ? err.msg : "accepted");
        if (made && !refused)
            cs_dfsph_ops.destroy(state);
        if (made)
            cs_scene_free(&sc);
    }
    // Bodies: refused with the solver named (no two-way coupling yet), not a
    // crash (the world read the solver's name after freeing it).
    const char *bodies =
        "{ \"dim\": 3, \"domain\": { \"min\": [0, 0, 0], \"max\": [0.4, 0.3, 0.2] }, \"dt\": 0.01,"
        "  \"bodies\": [ { \"shape\": \"sphere\", \"radius\": 0.05, \"density\": 500,"
        "                  \"position\": [0.3, 0.2, 0.1] } ],"
        "  \"fluids\": [ { \"solver\": \"dfsph\", \"smoothing_radius\": 0.04, \"particle_spacing\": 0.02,"
        "    \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [0.1, 0.1, 0.1] } ], \"dfsph\": {} } ] }";
    if (parse_scene(bodies, &sc)) {
        cs_world *world = calloc(1, sizeof *world);
        CS_ASSERT(world, "out of memory");
        bool made = cs_world_create(ctx, &sc, world, &err);
        CHECK(!made && strstr(err.msg, "\"dfsph\" does not collide with bodies"), "bodies: %s",
              made ? "accepted" : err.msg);
        if (made)
            cs_world_destroy(world);
        free(world);
        cs_scene_free(&sc);
    } else {
        CHECK(false, "the bodies scene does not parse");
    }
}

int main(int argc, char **argv)
{
    cs_context ctx;
    test_context(&ctx);
    if (argc > 1 && strcmp(argv[1], "pool2d") == 0) {
        check_pool(&ctx, 2, argc > 2 ? atof(argv[2]) : 2.0);
        return test_finish(&ctx);
    }
    if (argc > 1 && strcmp(argv[1], "pool3d") == 0) {
        check_pool(&ctx, 3, argc > 2 ? atof(argv[2]) : 2.0);
        return test_finish(&ctx);
    }
    static const uint32_t sizes[] = {0, 1, CS_DFSPH_GROUP - 1, CS_DFSPH_GROUP, CS_DFSPH_GROUP + 1, 600};
    for (int dim = 2; dim <= 3; dim++) {
        for (size_t s = 0; s < CS_ARRAY_COUNT(sizes); s++)
            check_passes(&ctx, dim, sizes[s], false);
        check_passes(&ctx, dim, 40, true);
    }
    fprintf(stderr, "worst rel err: rho %.1e alpha %.1e k %.1e dv %.1e warm %.1e forces %.1e\n", worst[0], worst[1],
            worst[2], worst[3], worst[4], worst[5]);
    check_steps_and_errors(&ctx);
    check_determinism(&ctx, 2);
    check_determinism(&ctx, 3);
    check_pool(&ctx, 2, 1.5);
    return test_finish(&ctx);
}
