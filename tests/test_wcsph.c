// test_wcsph.c — the weakly compressible SPH solver ("wcsph").
//
//  1. One GPU substep on fresh random particles (2D and 3D, cubic spline and
//     Wendland, two materials; sizes 0, 1, around a workgroup, a few
//     thousand, everything in one cell) against the double-precision
//     reference tests/ref/wcsph_ref.h: each pass on the GPU's own inputs and
//     the whole substep chained in double. Outputs poisoned; NaN never passes.
//     The density is also checked against a brute-force all-pairs sum, so a
//     neighbour the grid loses cannot hide; the density pass's packed
//     (rho, p / rho^2) for forces against its own densities and pressures.
//  2. Invariants over a few hundred substeps: a 2D dam break and a 3D drop
//     into a pool stay finite, inside the domain, conserve count and mass,
//     and keep the density error bounded (reported).
//  3. Rest: a block without gravity stays at rest; a block on the floor
//     settles and stays near rest.
//  4. Emission grows the count exactly as the schedule says; two runs give
//     byte-identical state; a too long dt is split by the CFL bound; every
//     particle's position keeps its material in w.
//  5. Scene-block errors name the key.
// ctest labels: slow,gpu -- 32
#include "test_util.h"
#include "list_checks.h"
#include "solver_compare.h"

#include <float.h>

#include "fluid_wcsph.h"
#include "ref/wcsph_ref.h"

static bool parse_scene(const char *json, cs_scene *sc)
{
    cs_error err;
    if (!cs_scene_parse(json, strlen(json), "test_wcsph.json", sc, &err)) {
        fprintf(stderr, "scene parse failed: %s\n", err.msg);
        return false;
    }
    return true;
}

static void ref_materials(const cs_scene *sc, wcsph_ref_material *out)
{
    for (uint32_t m = 0; m < sc->material_count; m++) {
        const cs_material *mat = &sc->materials[m];
        out[m] = (wcsph_ref_material){
            .mass = mat->mass,
            .rest_density = mat->rest_density,
            .speed_of_sound = mat->speed_of_sound,
            .gamma = mat->tait_gamma,
            .alpha = mat->viscosity,
            .surface_tension = mat->surface_tension,
        };
    }
}


static double rel_error_scalar(const double *gpu, const double *ref, uint32_t n)
{
    double err = 0.0, scale = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        if (isnan(gpu[i] - ref[i]))
            return INFINITY;
        err = fmax(err, fabs(gpu[i] - ref[i]));
        scale = fmax(scale, fabs(ref[i]));
    }
    return scale > 0.0 ? err / scale : err;
}

// ---- 1. one substep against the reference -----------------------------------

static struct {
    double density, brute, pressure, forces, position, chain;
} worst;

static void note(double *slot, double e) { *slot = fmax(*slot, e); }

// Water-like units: spacing 0.02 m, h = 2.4 spacings. The second material is
// lighter, slower, more viscous and cohesive, so every per-material term runs.
static void random_scene_json(char *out, size_t size, int dim, float extent, float wall, uint32_t n,
                              const char *kernel, bool renormalise)
{
    double s = 0.02, vol = dim == 2 ? s * s : s * s * s;
    snprintf(out, size,
             "{ \"solver\": \"wcsph\", \"dim\": %d,"
             "  \"domain\": { \"min\": [0, 0, 0], \"max\": [%g, %g, %g] },"
             "  \"gravity\": [0, -9.81, 0], \"dt\": 0.0002, \"substeps\": 1,"
             "  \"smoothing_radius\": 0.048, \"particle_spacing\": 0.02, \"max_particles\": %u,"
             "  \"materials\": ["
             "    { \"name\": \"water\", \"mass\": %g, \"rest_density\": 1000, \"speed_of_sound\": 20,"
             "      \"tait_gamma\": 7, \"viscosity\": 0.05 },"
             "    { \"name\": \"oil\", \"mass\": %g, \"rest_density\": 800, \"speed_of_sound\": 15,"
             "      \"tait_gamma\": 5, \"viscosity\": 0.2, \"surface_tension\": 0.002 } ],"
             "  \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [0.02, 0.02, %g] } ],"
             "  \"walls\": [ { \"normal\": [-1, -1, 0], \"offset\": %g } ],"
             "  \"wcsph\": { \"kernel\": \"%s\", \"cfl\": 0, \"surface_renormalise\": %s } }",
             dim, extent, extent, dim == 3 ? extent : 0.0f, n, 1000.0 * vol, 800.0 * vol, dim == 3 ? 0.02 : 0.0,
             -wall, kernel, renormalise ? "true" : "false");
}

// The boundary planes as the solver sees them: domain faces, then walls.
static void ref_walls(wcsph_ref_params *rp, const cs_wcsph *w)
{
    const cs_scene *sc = w->fluid.scene;
    rp->wall_density = w->wall_density;
    rp->wall_table = &w->params.wall[0].x;
    rp->wall_steps = CS_WCSPH_WALL_STEPS;
    rp->plane_count = 0;
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

// renormalise: wcsph.surface_renormalise (the lattice's top and far faces
// are free surfaces, the jitter gives every particle a kernel gradient).
//
// The density pass's neighbour terms (what forces reads of a neighbour):
// rho exactly the stored density, and p / rho^2 the float quotient of the
// stored pressure and density squared. Same bits on lavapipe (the PLY
// dumps before and after the packing match); any Vulkan device may round
// a division to 2.5 ulp, so the quotient is held to 3 ulp here.
static void check_neighbour_terms(int dim, uint32_t n, const float *dens, const float *press, const float *terms)
{
    uint32_t wrong_rho = 0, wrong_term = 0;
    for (uint32_t i = 0; i < n; i++) {
        float rho = dens[i];
        float expected = press[i] / (rho * rho);
        wrong_rho += memcmp(&terms[2 * i], &rho, sizeof rho) != 0;
        wrong_term += !(fabsf(terms[2 * i + 1] - expected) <= 3.0f * FLT_EPSILON * fabsf(expected));
    }
    CHECK(wrong_rho == 0, "%dD n=%u: %u neighbour terms whose rho is not the density", dim, n, wrong_rho);
    CHECK(wrong_term == 0, "%dD n=%u: %u neighbour terms whose p / rho^2 is off by more than 3 ulp", dim, n,
          wrong_term);
}

static void check_substep(cs_context *ctx, int dim, uint32_t n, bool one_cell, const char *kernel, bool renormalise)
{
    const double s = 0.02, h = 0.048;
    // A jittered lattice (densities near rest, as in a flow) of n sites.
    // The lattice starts half a spacing from the domain's low faces and a
    // tilted wall cuts its far corner (x + y <= 1.5 side s), so the wall
    // terms run for a good share of the particles.
    uint32_t side = dim == 2 ? (uint32_t)ceil(sqrt((double)n)) : (uint32_t)ceil(cbrt((double)n));
    float extent = (float)((side + 3) * s);
    char json[4096];
    random_scene_json(json, sizeof json, dim, extent, (float)(1.5 * side * s), CS_MAX(n, 8u), kernel, renormalise);
    cs_scene sc;
    if (!parse_scene(json, &sc)) {
        CHECK(false, "scene");
        return;
    }
    cs_wcsph w;
    cs_error err;
    if (!cs_wcsph_create(ctx, &sc, &w, &err)) {
        CHECK(false, "cs_wcsph_create: %s", err.msg);
        cs_scene_free(&sc);
        return;
    }
    cs_fluid *f = &w.fluid;
    double dt = sc.dt;
    wcsph_ref_material mats[CS_MAX_MATERIALS];
    ref_materials(&sc, mats);
    wcsph_ref_params rp = {.dim = dim,
                           .h = h,
                           .dt = dt,
                           .kernel = w.kernel,
                           .clamp_negative_pressure = w.clamp_negative_pressure,
                           .gravity = {sc.gravity[0], sc.gravity[1], sc.gravity[2]},
                           .materials = mats,
                           .surface_renormalise = w.surface_renormalise};
    ref_walls(&rp, &w);

    float *x0 = calloc((size_t)n * 4 + 4, sizeof(float));
    float *v0 = calloc((size_t)n * 4 + 4, sizeof(float));
    uint32_t *m0 = calloc((size_t)n + 1, sizeof(uint32_t));
    uint32_t *id0 = calloc((size_t)n + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c[3] = {i % side, (i / side) % side, i / (side * side)};
        for (int a = 0; a < dim; a++) {
            double p = one_cell ? h * (1.02 + 0.96 * test_rand_unit())
                                : (0.5 + c[a] + 0.6 * (test_rand_unit() - 0.5)) * s;
            x0[4 * i + a] = (float)p;
            v0[4 * i + a] = (float)(test_rand_unit() - 0.5);
        }
        m0[i] = test_rand_u32() % 2u;
        x0[4 * i + 3] = (float)m0[i]; // WCSPH positions carry the material in w (fluid.h)
        id0[i] = i;
    }
    if (n) {
        cs_buffer_upload(ctx, cs_fluid_pos(f), x0, (VkDeviceSize)n * 16, 0);
        cs_buffer_upload(ctx, cs_fluid_vel(f), v0, (VkDeviceSize)n * 16, 0);
        cs_buffer_upload(ctx, cs_fluid_mat(f), m0, (VkDeviceSize)n * 4, 0);
        cs_buffer_upload(ctx, cs_fluid_ids(f), id0, (VkDeviceSize)n * 4, 0);
    }
    f->count = n;
    cs_buffer *poison[] = {cs_fluid_pos_alt(f), cs_fluid_vel_alt(f), &f->densities,
                           &f->arrays[CS_WCSPH_ARRAY_PRESSURES], &f->arrays[CS_WCSPH_ARRAY_NEIGHBOUR_TERMS]};
    for (size_t i = 0; i < CS_ARRAY_COUNT(poison); i++)
        cs_buffer_fill(ctx, poison[i], CS_POISON_U32);

    cs_recorder rec;
    cs_recorder_create(ctx, "wcsph substep", &rec);
    cs_recorder_begin(&rec);
    if (n) {
        cs_fluid_record_grid(f, &rec, false);
        cs_wcsph_record_density(&w, &rec);
        cs_wcsph_record_forces(&w, &rec);
    }
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    if (n == 0)
        goto done;

    {
        size_t n4 = (size_t)n * 4;
        float *x_old = malloc(n4 * 4), *v_old = malloc(n4 * 4), *x_new = malloc(n4 * 4), *v_new = malloc(n4 * 4);
        float *dens = malloc((size_t)n * 4), *press = malloc((size_t)n * 4), *terms = malloc((size_t)n * 8);
        uint32_t *ids = malloc((size_t)n * 4), *mat = malloc((size_t)n * 4);
        compare_download(ctx, &f->positions[f->pos_cur ^ 1u], x_old, n, 16);
        compare_download(ctx, &f->velocities[f->vel_cur ^ 1u], v_old, n, 16);
        compare_download(ctx, cs_fluid_pos(f), x_new, n, 16);
        compare_download(ctx, cs_fluid_vel(f), v_new, n, 16);
        compare_download(ctx, &f->densities, dens, n, 4);
        compare_download(ctx, &f->arrays[CS_WCSPH_ARRAY_PRESSURES], press, n, 4);
        compare_download(ctx, &f->arrays[CS_WCSPH_ARRAY_NEIGHBOUR_TERMS], terms, n, 8);
        compare_download(ctx, cs_fluid_ids(f), ids, n, 4);
        compare_download(ctx, cs_fluid_mat(f), mat, n, 4);
        uint32_t bad = compare_non_finite(x_new, n4) + compare_non_finite(v_new, n4) + compare_non_finite(dens, n) +
                       compare_non_finite(press, n);
        CHECK(bad == 0, "%dD n=%u: %u non-finite outputs", dim, n, bad);
        bool perm_ok = true;
        uint8_t *seen = calloc(n, 1);
        for (uint32_t i = 0; i < n; i++)
            if (ids[i] >= n || seen[ids[i]]++ || mat[i] != m0[ids[i]] ||
                memcmp(&x_old[4 * i], &x0[4 * ids[i]], 16) != 0 || memcmp(&v_old[4 * i], &v0[4 * ids[i]], 16) != 0)
                perm_ok = false;
        free(seen);
        CHECK(perm_ok, "%dD n=%u: the reorder did not carry the state along", dim, n);
        check_neighbour_terms(dim, n, dens, press, terms);
        uint32_t lost_material = 0;
        for (uint32_t i = 0; i < n; i++)
            lost_material += x_new[4 * i + 3] != (float)mat[i];
        CHECK(lost_material == 0, "%dD n=%u: forces wrote %u positions whose w is not the material", dim, n,
              lost_material);

        double *dx_old = compare_to_double(x_old, n4), *dv_old = compare_to_double(v_old, n4), *dx_new = compare_to_double(x_new, n4);
        double *dv_new = compare_to_double(v_new, n4), *ddens = compare_to_double(dens, n), *dpress = compare_to_double(press, n);
        double *r_rho = calloc(n, sizeof(double)), *r_p = calloc(n, sizeof(double));
        double *r_x = calloc(n4, sizeof(double)), *r_v = calloc(n4, sizeof(double));

        ref_grid g;
        ref_grid_build(&g, dim, f->grid.origin, f->params.grid_origin.w, f->grid.dims, x_old, n);
        wcsph_ref_density(&rp, &g, n, dx_old, mat, r_rho, r_p);
        double e_rho = rel_error_scalar(ddens, r_rho, n);
        double e_p = rel_error_scalar(dpress, r_p, n);

        // Brute force: every pair, no grid. Density is evaluated at the
        // binned positions, so the grid must find exactly these neighbours.
        double e_brute = 0.0;
        for (uint32_t i = 0; i < n; i++) {
            double rho = 0.0, filled = 0.0, grad[3] = {0.0, 0.0, 0.0};
            for (uint32_t j = 0; j < n; j++) {
                double d[3];
                double r = ref_dist(dim, dx_old + 4 * i, dx_old + 4 * j, d);
                double wv, dw;
                wcsph_ref_kernel(w.kernel, dim, h, r, &wv, &dw);
                rho += mats[mat[j]].mass * wv;
                double volume = mats[mat[j]].mass / mats[mat[j]].rest_density;
                filled += volume * wv;
                for (int a = 0; r > 0.0 && a < 3; a++)
                    grad[a] -= volume * dw / r * d[a];
            }
            double open = 1.0;
            for (int k = 0; rp.wall_density && k < rp.plane_count; k++)
                open *= 1.0 - wcsph_ref_wall(&rp, wcsph_ref_plane_distance(&rp, k, dx_old + 4 * i) / h, 0);
            rho += mats[mat[i]].rest_density * (1.0 - open);
            if (rp.surface_renormalise)
                rho /= 1.0 - wcsph_ref_surface_share(&rp, dx_old + 4 * i, filled, grad);
            e_brute = fmax(e_brute, fabs(rho - ddens[i]) / rho);
        }

        wcsph_ref_forces(&rp, &g, n, dx_old, dv_old, mat, ddens, dpress, r_x, r_v);
        vec_error e_f = compare_vec(dv_new, dv_old, r_v, dv_old, n, dim); // dt * acceleration
        vec_error e_x = compare_vec(dx_new, dx_old, r_x, dx_old, n, dim);

        // Chained from the initial state in double (reference density and pressure).
        wcsph_ref_forces(&rp, &g, n, dx_old, dv_old, mat, r_rho, r_p, r_x, r_v);
        vec_error e_chain = compare_vec(dv_new, dv_old, r_v, dv_old, n, dim);

        fprintf(stderr,
                "wcsph %dD n=%-5u %-8s %s%s: rel err density %.1e (brute force %.1e) pressure %.1e dv %.1e dx %.1e "
                "chained dv %.1e\n",
                dim, n, kernel, one_cell ? "one cell" : "lattice ", renormalise ? " renormalised" : "", e_rho, e_brute, e_p, compare_rel(e_f), compare_rel(e_x),
                compare_rel(e_chain));
        note(&worst.density, e_rho);
        note(&worst.brute, e_brute);
        note(&worst.pressure, e_p);
        note(&worst.forces, compare_rel(e_f));
        note(&worst.position, compare_rel(e_x));
        note(&worst.chain, compare_rel(e_chain));
        CHECK(e_rho <= 1e-5, "%dD n=%u: density rel err %.2e", dim, n, e_rho);
        CHECK(e_brute <= 1e-5, "%dD n=%u: density vs brute force rel err %.2e", dim, n, e_brute);
        // p = B ((rho/rho0)^gamma - 1): rho's float error times gamma, and pow.
        CHECK(e_p <= 1e-4, "%dD n=%u: pressure rel err %.2e", dim, n, e_p);
        CHECK(compare_within(e_f, 1e-4), "%dD n=%u: velocity increment rel err %.2e", dim, n, compare_rel(e_f));
        CHECK(compare_within(e_x, 1e-4), "%dD n=%u: position increment rel err %.2e", dim, n, compare_rel(e_x));
        CHECK(compare_within(e_chain, 1e-3), "%dD n=%u: chained substep rel err %.2e", dim, n, compare_rel(e_chain));

        // Momentum: pressure and viscosity pair terms are antisymmetric, so
        // sum m (dv - g dt - wall push dt) is zero up to rounding (cohesion is
        // antisymmetric within a material too). Gravity and walls are external.
        double mom[3] = {0, 0, 0}, scale = 0.0;
        for (uint32_t i = 0; i < n; i++)
            for (int a = 0; a < dim; a++) {
                double wall = 0.0;
                for (int k = 0; rp.wall_density && k < rp.plane_count; k++) {
                    double q = wcsph_ref_plane_distance(&rp, k, dx_old + 4 * i) / h, others = 1.0;
                    for (int l = 0; l < rp.plane_count; l++)
                        if (l != k)
                            others *= 1.0 - wcsph_ref_wall(&rp, wcsph_ref_plane_distance(&rp, l, dx_old + 4 * i) / h, 0);
                    wall += mats[mat[i]].rest_density * dpress[i] / (ddens[i] * ddens[i]) * wcsph_ref_wall(&rp, q, 1) /
                            h * others * rp.planes[k][a];
                }
                double d = (dv_new[4 * i + a] - dv_old[4 * i + a] - dt * (sc.gravity[a] + wall)) * mats[mat[i]].mass;
                mom[a] += d;
                scale += fabs(d);
            }
        double mom_err = sqrt(mom[0] * mom[0] + mom[1] * mom[1] + mom[2] * mom[2]) / fmax(scale, 1e-30);
        CHECK(n < 2 || mom_err < 1e-4, "%dD n=%u: forces carry net momentum (%.2e of the total)", dim, n, mom_err);

        ref_grid_free(&g);
        free(x_old), free(v_old), free(x_new), free(v_new), free(dens), free(press), free(terms), free(ids), free(mat);
        free(dx_old), free(dv_old), free(dx_new), free(dv_new), free(ddens), free(dpress);
        free(r_rho), free(r_p), free(r_x), free(r_v);
    }
done:
    free(x0), free(v0), free(m0), free(id0);
    cs_wcsph_destroy(&w);
    cs_scene_free(&sc);
}

// ---- 2-4. scenes over many substeps -----------------------------------------

static void run_substeps(cs_wcsph *w, uint32_t substeps)
{
    cs_recorder rec;
    cs_recorder_create(w->fluid.ctx, "wcsph run", &rec);
    for (uint32_t done = 0; done < substeps;) {
        uint32_t batch = CS_MIN(30u, substeps - done);
        cs_recorder_begin(&rec);
        for (uint32_t i = 0; i < batch; i++)
            cs_wcsph_record_substep(w, &rec);
        cs_recorder_submit_wait(&rec);
        done += batch;
    }
    cs_recorder_destroy(&rec);
}

static bool create_from_json(cs_context *ctx, const char *json, cs_scene *sc, cs_wcsph *w)
{
    if (!parse_scene(json, sc))
        return false;
    cs_error err;
    if (!cs_wcsph_create(ctx, sc, w, &err)) {
        fprintf(stderr, "cs_wcsph_create: %s\n", err.msg);
        cs_scene_free(sc);
        return false;
    }
    return true;
}

static void check_invariants(const char *what, const cs_sim_stats *st, uint32_t count, double mass)
{
    CHECK(st->non_finite == 0, "%s: %u non-finite particles", what, st->non_finite);
    CHECK(st->outside_domain == 0, "%s: %u particles outside the domain", what, st->outside_domain);
    CHECK(st->particles == count, "%s: %u particles, expected %u", what, st->particles, count);
    CHECK(fabs(st->total_mass - mass) <= 1e-4 * mass, "%s: mass %.6f, expected %.6f", what, st->total_mass, mass);
}

// Kinetic + potential energy (relative to the domain floor), in double.
// Pressure and viscosity only dissipate (the small compression energy aside),
// so this never grows unless the solver or the walls inject energy.
static double total_energy(cs_fluid *f)
{
    uint32_t n = f->count;
    float *x = malloc((size_t)n * 16 + 16), *v = malloc((size_t)n * 16 + 16);
    uint32_t *mat = malloc((size_t)n * 4 + 4);
    cs_fluid_download_by_id(f, x, v, NULL, mat);
    double e = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double m = f->scene->materials[mat[i]].mass;
        for (int a = 0; a < f->dim; a++)
            e += m * (0.5 * (double)v[4 * i + a] * v[4 * i + a] -
                      (double)f->scene->gravity[a] * ((double)x[4 * i + a] - f->scene->domain_min[a]));
    }
    free(x), free(v), free(mat);
    return e;
}

// Compression rho/rho0 - 1 where positive: the density error WCSPH bounds
// (a free surface reads under-dense by construction, so |rho/rho0 - 1| is
// dominated by surface particles; the base's stats report that one).
static void compression(cs_wcsph *w, double *mean, double *max)
{
    uint32_t n = w->fluid.count;
    float *rho = malloc((size_t)n * 4 + 4);
    uint32_t *mat = malloc((size_t)n * 4 + 4);
    compare_download(w->fluid.ctx, &w->fluid.densities, rho, n, 4);
    compare_download(w->fluid.ctx, cs_fluid_mat(&w->fluid), mat, n, 4);
    double sum = 0.0;
    *max = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double e = fmax(rho[i] / w->fluid.scene->materials[mat[i]].rest_density - 1.0, 0.0);
        sum += e;
        *max = fmax(*max, e);
    }
    *mean = n ? sum / n : 0.0;
    free(rho);
    free(mat);
}

// Runs `substeps` in chunks, checking invariants and tracking the
// compression and speed. Returns the worst mean compression.
static double run_checked(const char *what, cs_wcsph *w, uint32_t substeps, uint32_t chunk, double *worst_max_err,
                          double *worst_speed, cs_sim_stats *last)
{
    double e0 = total_energy(&w->fluid), e_max = e0;
    uint32_t n = w->fluid.count;
    double mass = 0.0;
    {
        uint32_t *mat = malloc((size_t)n * 4 + 4);
        compare_download(w->fluid.ctx, cs_fluid_mat(&w->fluid), mat, n, 4);
        for (uint32_t i = 0; i < n; i++)
            mass += w->fluid.scene->materials[mat[i]].mass;
        free(mat);
    }
    double worst_mean = 0.0;
    *worst_max_err = 0.0;
    *worst_speed = 0.0;
    for (uint32_t done = 0; done < substeps; done += chunk) {
        run_substeps(w, chunk);
        cs_sim_stats st;
        cs_fluid_stats(&w->fluid, &st);
        char label[96];
        snprintf(label, sizeof label, "%s after %u substeps", what, done + chunk);
        check_invariants(label, &st, n, mass);
        double mean, max;
        compression(w, &mean, &max);
        worst_mean = fmax(worst_mean, mean);
        *worst_max_err = fmax(*worst_max_err, max);
        *worst_speed = fmax(*worst_speed, st.max_speed);
        *last = st;
        e_max = fmax(e_max, total_energy(&w->fluid));
    }
    fprintf(stderr, "%s: energy start %.4g J, max %.4g J (%+.2f%%)\n", what, e0, e_max, 100.0 * (e_max / e0 - 1.0));
    CHECK(e0 == 0.0 || e_max <= e0 + 0.02 * fabs(e0), "%s: energy grew from %.4g to %.4g", what, e0, e_max);
    return worst_mean;
}

static void check_dam_break(cs_context *ctx, int dim)
{
    const char *json2 =
        "{ \"solver\": \"wcsph\", \"dim\": 2, \"domain\": { \"min\": [0, 0], \"max\": [1.6, 1.0] },"
        "  \"gravity\": [0, -9.81], \"dt\": 0.0004, \"substeps\": 1, \"smoothing_radius\": 0.048,"
        "  \"particle_spacing\": 0.02,"
        "  \"materials\": [ { \"name\": \"water\", \"mass\": 0.4, \"rest_density\": 1000, \"speed_of_sound\": 25,"
        "     \"tait_gamma\": 7, \"viscosity\": 0.05 } ],"
        "  \"blocks\": [ { \"min\": [0, 0], \"max\": [0.5, 0.6], \"material\": \"water\" } ],"
        "  \"wcsph\": {} }";
    const char *json3 =
        "{ \"solver\": \"wcsph\", \"dim\": 3, \"domain\": { \"min\": [0, 0, 0], \"max\": [0.5, 0.5, 0.24] },"
        "  \"gravity\": [0, -9.81, 0], \"dt\": 0.0004, \"substeps\": 1, \"smoothing_radius\": 0.048,"
        "  \"particle_spacing\": 0.02,"
        "  \"materials\": [ { \"name\": \"water\", \"mass\": 0.008, \"rest_density\": 1000, \"speed_of_sound\": 25,"
        "     \"tait_gamma\": 7, \"viscosity\": 0.05 } ],"
        "  \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [0.5, 0.08, 0.24], \"material\": \"water\" },"
        "              { \"min\": [0.16, 0.22, 0.06], \"max\": [0.32, 0.38, 0.18], \"material\": \"water\" } ],"
        "  \"wcsph\": {} }";
    cs_scene sc;
    cs_wcsph w;
    if (!create_from_json(ctx, dim == 2 ? json2 : json3, &sc, &w)) {
        CHECK(false, "dam break %dD", dim);
        return;
    }
    uint32_t substeps = dim == 2 ? 2000 : 1000;
    double max_err, speed;
    cs_sim_stats last;
    char what[64];
    snprintf(what, sizeof what, "wcsph %s %dD", dim == 2 ? "dam break" : "drop into pool", dim);
    double mean_err = run_checked(what, &w, substeps, 100, &max_err, &speed, &last);
    double fall = sqrt(2.0 * 9.81 * (sc.domain_max[1] - sc.domain_min[1]));
    fprintf(stderr,
            "%s: %u particles, %u substeps (%.2f s): compression rho/rho0 - 1 mean <= %.4f (worst particle "
            "%.3f), max speed %.2f m/s (free fall from the top %.2f), final mean |rho/rho0 - 1| %.3f\n",
            what, w.fluid.count, substeps, substeps * w.fluid.dt, mean_err, max_err, speed, fall,
            last.mean_density_error);
    // c = 25 m/s is 6-8x the fastest flow here: the mean compression stays
    // around a percent (Becker & Teschner's 1% target needs c = 10 v_max).
    CHECK(mean_err < 0.02, "%s: mean compression %.4f", what, mean_err);
    CHECK(max_err < 0.2, "%s: worst particle compression %.4f", what, max_err);
    CHECK(speed < 1.5 * fall, "%s: max speed %.2f > 1.5 x free fall %.2f", what, speed, fall);
    cs_wcsph_destroy(&w);
    cs_scene_free(&sc);
}

static void check_rest(cs_context *ctx, bool gravity)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{ \"solver\": \"wcsph\", \"dim\": 3, \"domain\": { \"min\": [0, 0, 0], \"max\": [%s] },"
             "  \"gravity\": [0, %s, 0], \"dt\": 0.0004, \"substeps\": 1, \"smoothing_radius\": 0.048,"
             "  \"particle_spacing\": 0.02,"
             "  \"materials\": [ { \"name\": \"water\", \"mass\": 0.008, \"rest_density\": 1000,"
             "     \"speed_of_sound\": 25, \"tait_gamma\": 7, \"viscosity\": 0.05 } ],"
             "  \"blocks\": [ { \"min\": [%s], \"max\": [%s], \"material\": \"water\" } ],"
             "  \"wcsph\": {} }",
             gravity ? "0.2, 0.3, 0.2" : "0.4, 0.4, 0.4", gravity ? "-9.81" : "0", gravity ? "0, 0, 0" : "0.1, 0.1, 0.1",
             gravity ? "0.2, 0.16, 0.2" : "0.3, 0.3, 0.3");
    cs_scene sc;
    cs_wcsph w;
    if (!create_from_json(ctx, json, &sc, &w)) {
        CHECK(false, "rest scene");
        return;
    }
    double max_err, speed;
    cs_sim_stats last;
    const char *what = gravity ? "wcsph block on the floor" : "wcsph block without gravity";
    uint32_t substeps = 300;
    double mean_err = run_checked(what, &w, substeps, 50, &max_err, &speed, &last);
    fprintf(stderr, "%s: %u particles, %u substeps: final max speed %.4f m/s (worst during the run %.4f), "
                    "compression mean <= %.4f, max %.4f\n",
            what, w.fluid.count, substeps, last.max_speed, speed, mean_err, max_err);
    if (gravity) {
        // The lattice starts at uniform density, not hydrostatic, so the
        // column rings acoustically (about g H / c) and the bottom layer
        // taps the floor; without wall density it slumped at 2 m/s.
        CHECK(speed < 0.6, "%s: max speed %.3f m/s", what, speed);
    } else {
        // Interior particles sit at the rest density and surface particles'
        // negative pressure is clamped: nothing should move.
        CHECK(speed < 0.02, "%s: max speed %.4f m/s", what, speed);
    }
    cs_wcsph_destroy(&w);
    cs_scene_free(&sc);
}

// Emission schedule, determinism and the CFL split, on one small 2D scene.
static const char *emit_json =
    "{ \"solver\": \"wcsph\", \"dim\": 2, \"domain\": { \"min\": [0, 0], \"max\": [1.2, 0.8] },"
    "  \"gravity\": [0, -9.81], \"dt\": 0.0012, \"substeps\": 1, \"smoothing_radius\": 0.048,"
    "  \"particle_spacing\": 0.02,"
    "  \"materials\": [ { \"name\": \"water\", \"mass\": 0.4, \"rest_density\": 1000, \"speed_of_sound\": 25,"
    "                    \"tait_gamma\": 7, \"viscosity\": 0.05 },"
    "                  { \"name\": \"oil\", \"mass\": 0.32, \"rest_density\": 800, \"speed_of_sound\": 25,"
    "                    \"tait_gamma\": 7, \"viscosity\": 0.1, \"surface_tension\": 0.001 } ],"
    "  \"blocks\": [ { \"min\": [0, 0], \"max\": [1.2, 0.1], \"material\": \"water\" },"
    "              { \"min\": [0.9, 0.1], \"max\": [1.2, 0.16], \"material\": \"oil\" } ],"
    "  \"emitters\": [ { \"position\": [0.1, 0.5], \"direction\": [1, 0], \"width\": 0.06, \"speed\": 1.5,"
    "                  \"start_time\": 0.01, \"rate\": 600, \"budget\": 150, \"material\": \"oil\" } ],"
    "  \"wcsph\": {} }";

// Every writer of WCSPH positions (the blocks' upload, emit, reorder,
// forces, collide) keeps float(material) in w: density and forces read a
// neighbour's material there. The emitter and one block here give oil
// (material 1), so a writer that zeroes w shows.
static void check_w_material(const float *positions4, const uint32_t *materials, uint32_t count, uint32_t blocks)
{
    uint32_t wrong = 0, oil_blocks = 0, oil_emitted = 0;
    for (uint32_t i = 0; i < count; i++) {
        wrong += positions4[4 * i + 3] != (float)materials[i];
        oil_blocks += i < blocks && materials[i] == 1;
        oil_emitted += i >= blocks && materials[i] == 1;
    }
    CHECK(oil_blocks > 0 && oil_emitted > 0, "emit scene: %u block and %u emitted oil particles to check w on",
          oil_blocks, oil_emitted);
    CHECK(wrong == 0, "emit scene: %u of %u particles lost their material in positions' w", wrong, count);
}

static void check_emission_and_determinism(cs_context *ctx)
{
    float *state[2] = {NULL, NULL};
    uint32_t count[2] = {0, 0};
    for (int run = 0; run < 2; run++) {
        cs_scene sc;
        cs_wcsph w;
        if (!create_from_json(ctx, emit_json, &sc, &w)) {
            CHECK(false, "emit scene");
            return;
        }
        // dt 1.2 ms is beyond the CFL bound 0.4 * 0.024 / (25 * 1.06) = 0.36 ms: split in 4.
        CHECK(w.dt_split == 4 && w.fluid.substeps == 4 && fabsf(w.fluid.dt * 4 - sc.dt) < 1e-9f,
              "dt split into %u parts (substeps %u, dt %g)", w.dt_split, w.fluid.substeps,
              (double)w.fluid.dt);
        uint32_t blocks = w.fluid.block_count;
        const cs_emitter *em = &sc.emitters[0];
        double dt = w.fluid.dt;
        uint32_t substeps = 0;
        while (substeps < 400) {
            run_substeps(&w, 40);
            substeps += 40;
            double t = (substeps - 1) * dt;
            uint32_t born = t < em->start_time ? 0 : (uint32_t)fmin(floor((t - em->start_time) * em->rate) + 1.0,
                                                                    (double)em->budget);
            CHECK(w.fluid.count == blocks + born, "after %u substeps: %u particles, schedule says %u", substeps,
                  w.fluid.count, blocks + born);
            cs_sim_stats st;
            cs_fluid_stats(&w.fluid, &st);
            CHECK(st.non_finite == 0 && st.outside_domain == 0, "emit scene: %u non-finite, %u outside",
                  st.non_finite, st.outside_domain);
        }
        count[run] = w.fluid.count;
        state[run] = calloc((size_t)count[run] * 9 + 1, sizeof(float));
        uint32_t *mat = calloc((size_t)count[run] + 1, sizeof(uint32_t));
        cs_fluid_download_by_id(&w.fluid, state[run], state[run] + 4 * count[run], state[run] + 8 * count[run],
                                mat);
        check_w_material(state[run], mat, count[run], blocks);
        free(mat);
        cs_wcsph_destroy(&w);
        cs_scene_free(&sc);
    }
    bool same = count[0] == count[1] && count[0] > 0 &&
                memcmp(state[0], state[1], (size_t)count[0] * 9 * sizeof(float)) == 0;
    CHECK(same, "two runs differ (%u and %u particles)", count[0], count[1]);
    fprintf(stderr, "wcsph emission + determinism: %u particles after 400 substeps, two runs byte-identical: %s\n",
            count[0], same ? "yes" : "NO");
    free(state[0]);
    free(state[1]);
}

// ---- neighbour lists against the cell walk ----------------------------------

// The solver for list_checks.h: a JSON scene and its cs_wcsph, made and
// freed together.
typedef struct wcsph_list_run {
    cs_scene scene;
    cs_wcsph wcsph;
} wcsph_list_run;

static void *wcsph_list_create(cs_context *ctx, const char *json, bool lists)
{
    wcsph_list_run *r = calloc(1, sizeof *r);
    cs_error err;
    if (!create_from_json(ctx, json, &r->scene, &r->wcsph)) {
        CHECK(false, "lists: scene %.40s", json);
        free(r);
        return NULL;
    }
    if (!cs_wcsph_set_neighbour_lists(&r->wcsph, lists, &err)) {
        CHECK(false, "lists: %s", err.msg);
        cs_wcsph_destroy(&r->wcsph);
        cs_scene_free(&r->scene);
        free(r);
        return NULL;
    }
    return r;
}
static cs_fluid *wcsph_list_fluid(void *r) { return &((wcsph_list_run *)r)->wcsph.fluid; }
static cs_neighbours *wcsph_list_neighbours(void *r) { return &((wcsph_list_run *)r)->wcsph.nb; }
static void wcsph_list_run_substeps(void *r, uint32_t substeps) { run_substeps(&((wcsph_list_run *)r)->wcsph, substeps); }
static void wcsph_list_destroy(void *p)
{
    wcsph_list_run *r = p;
    cs_wcsph_destroy(&r->wcsph);
    cs_scene_free(&r->scene);
    free(r);
}
static const list_solver wcsph_lists = {"wcsph", wcsph_list_create, wcsph_list_fluid, wcsph_list_neighbours,
                                        wcsph_list_run_substeps, wcsph_list_destroy};

static void check_lists(cs_context *ctx)
{
    // 2D, two materials (cohesion), an emitter, dt split for the CFL bound.
    list_check_match_walk(&wcsph_lists, ctx, "2D emitter, two materials", emit_json, 200, 0);
    list_check_are_read(&wcsph_lists, ctx, "2D emitter, two materials", emit_json, 200);
    // Some particles overflow (they walk), the others read their lists.
    list_check_match_walk(&wcsph_lists, ctx, "2D emitter, 12 slots read", emit_json, 200, 12);
    // 3D, two materials side by side falling into a corner cut by a slanted
    // wall, the Wendland kernel, no surface renormalisation.
    const char *json3 =
        "{ \"solver\": \"wcsph\", \"dim\": 3, \"domain\": { \"min\": [0, 0, 0], \"max\": [0.4, 0.4, 0.16] },"
        "  \"gravity\": [0, -9.81, 0], \"dt\": 0.0004, \"substeps\": 1, \"smoothing_radius\": 0.048,"
        "  \"particle_spacing\": 0.02,"
        "  \"materials\": [ { \"name\": \"water\", \"mass\": 0.008, \"rest_density\": 1000, \"speed_of_sound\": 25,"
        "     \"tait_gamma\": 7, \"viscosity\": 0.05 },"
        "    { \"name\": \"oil\", \"mass\": 0.0064, \"rest_density\": 800, \"speed_of_sound\": 25,"
        "     \"tait_gamma\": 7, \"viscosity\": 0.1, \"surface_tension\": 0.001 } ],"
        "  \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [0.1, 0.2, 0.16], \"material\": \"water\" },"
        "              { \"min\": [0.1, 0, 0], \"max\": [0.2, 0.2, 0.16], \"material\": \"oil\" } ],"
        "  \"walls\": [ { \"normal\": [-0.6, 0.8, 0], \"offset\": -0.1 } ],"
        "  \"wcsph\": { \"kernel\": \"wendland\", \"surface_renormalise\": false } }";
    list_check_match_walk(&wcsph_lists, ctx, "3D, two materials, slanted wall", json3, 60, 0);
}

static void check_block_errors(cs_context *ctx)
{
    static const struct {
        const char *block;
        const char *needle;
    } cases[] = {
        {"{ \"kernel\": \"spiky\" }", "wcsph.kernel"},
        {"{ \"cfl\": 2 }", "cfl"},
        {"{ \"clamp_negative_pressure\": 1 }", "clamp_negative_pressure"},
        {"{ \"gamma\": 7 }", "gamma"},
    };
    for (size_t c = 0; c < CS_ARRAY_COUNT(cases); c++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{ \"solver\": \"wcsph\", \"dim\": 2, \"domain\": { \"min\": [0, 0], \"max\": [1, 1] },"
                 "  \"dt\": 0.0002, \"smoothing_radius\": 0.048, \"particle_spacing\": 0.02,"
                 "  \"materials\": [ { \"name\": \"water\", \"mass\": 0.4, \"rest_density\": 1000 } ],"
                 "  \"blocks\": [ { \"min\": [0, 0], \"max\": [0.1, 0.1] } ],"
                 "  \"wcsph\": %s }",
                 cases[c].block);
        cs_scene sc;
        if (!parse_scene(json, &sc)) {
            CHECK(false, "parse");
            continue;
        }
        cs_wcsph w;
        cs_error err = {{0}};
        bool ok = cs_wcsph_create(ctx, &sc, &w, &err);
        CHECK(!ok, "wcsph block %s accepted", cases[c].block);
        CHECK(strstr(err.msg, cases[c].needle) && strstr(err.msg, "test_wcsph.json"), "message names the key: %s",
              err.msg);
        if (ok)
            cs_wcsph_destroy(&w);
        cs_scene_free(&sc);
    }
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);

    static const uint32_t sizes[] = {0, 1, 63, 64, 65, 3000};
    for (int dim = 2; dim <= 3; dim++) {
        for (int renormalise = 0; renormalise <= 1; renormalise++) {
            for (size_t i = 0; i < CS_ARRAY_COUNT(sizes); i++)
                check_substep(&ctx, dim, dim == 3 && sizes[i] > 1000 ? 4096 : sizes[i], false, "cubic", renormalise);
            check_substep(&ctx, dim, dim == 2 ? 2000 : 3375, false, "wendland", renormalise);
            check_substep(&ctx, dim, dim == 2 ? 150 : 120, true, "cubic", renormalise);
        }
    }
    fprintf(stderr,
            "wcsph worst rel err: density %.1e (brute force %.1e) pressure %.1e dv %.1e dx %.1e chained %.1e\n",
            worst.density, worst.brute, worst.pressure, worst.forces, worst.position, worst.chain);

    check_block_errors(&ctx);
    check_dam_break(&ctx, 2);
    check_dam_break(&ctx, 3);
    check_rest(&ctx, false);
    check_rest(&ctx, true);
    check_emission_and_determinism(&ctx);
    check_lists(&ctx);
    return test_finish(&ctx);
}
