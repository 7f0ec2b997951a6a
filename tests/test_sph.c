// test_sph.c — the Clavet double-density relaxation solver ("sph").
//
//  1. One GPU substep on fresh random particles (2D and 3D, both kernel
//     variants, two materials of different mass; sizes 0, 1, around a
//     workgroup, a few thousand, everything in one cell) against the
//     double-precision reference tests/ref/sph_ref.h: every pass on the GPU's
//     own inputs (tight), and the whole substep chained in double from the
//     initial state (looser). Outputs are poisoned first; NaN never passes.
//  2. Invariants over a few hundred substeps of small scenes: no particle
//     leaves the domain, nothing non-finite, mass and count conserved, a
//     block at rest stays near rest, momentum of a free blob is conserved.
//  3. The two-material emitter scene: the count grows exactly as the emission
//     schedule says and both materials are present.
//  4. Determinism: two runs give byte-identical state.
//  5. Neighbour lists: the same bits as the cell walk (2D one and two
//     materials, 3D, and some particles overflowing their lists).
//  6. Scene-block errors name the key.
// ctest labels: slow,gpu -- 16
#define _POSIX_C_SOURCE 200809L // setenv, strdup
#include "test_util.h"
#include "list_checks.h"
#include "solver_compare.h"

#include <float.h>

#include "fluid_sph.h"
#include "ref/sph_ref.h"

// ---- helpers ----------------------------------------------------------------

static bool parse_scene(const char *json, cs_scene *sc)
{
    cs_error err;
    if (!cs_scene_parse(json, strlen(json), "test_sph.json", sc, &err)) {
        fprintf(stderr, "scene parse failed: %s\n", err.msg);
        return false;
    }
    return true;
}

static void ref_materials(const cs_scene *sc, sph_ref_material *out)
{
    for (uint32_t m = 0; m < sc->material_count; m++) {
        const cs_material *mat = &sc->materials[m];
        out[m] = (sph_ref_material){
            .mass = mat->mass,
            .rest_density = mat->rest_density,
            .stiffness = mat->stiffness,
            .near_stiffness = mat->near_stiffness,
            .viscosity_linear = mat->viscosity_linear,
            .viscosity_quadratic = mat->viscosity_quadratic,
            .surface_tension = mat->surface_tension,
        };
    }
}


static double rel_error_scalar(const double *gpu, const double *ref, uint32_t n, uint32_t stride)
{
    double err = 0.0, scale = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double g = gpu[i * stride], r = ref[i * stride];
        if (isnan(g - r))
            return INFINITY;
        err = fmax(err, fabs(g - r));
        scale = fmax(scale, fabs(r));
    }
    return scale > 0.0 ? err / scale : err;
}

// The density sums' bound: every particle's error within tol times the
// largest value plus that particle's rounding floor (kernel_floor). NaN
// never passes.
static bool scalar_within(const double *gpu, const double *ref, const double *floor, uint32_t n, uint32_t stride,
                          double tol)
{
    double scale = 0.0;
    for (uint32_t i = 0; i < n; i++)
        scale = fmax(scale, fabs(ref[i * stride]));
    for (uint32_t i = 0; i < n; i++)
        if (!(fabs(gpu[i * stride] - ref[i * stride]) <= tol * scale + floor[i]))
            return false;
    return true;
}

// Why a floor: a density term m (1 - q)^k is evaluated in float, and the
// rounding of its argument q = r / h is amplified by the kernel's slope,
// k / (1 - q) relative, without bound towards the support's edge. Its
// magnitude is set by what q is computed from, not by the value:
//  - a pair distance comes from the difference of two stored positions, so
//    r is rounded relative to r itself (subtract, dot, sqrt, times 1/h: a
//    few ulps of q);
//  - a mirror distance 2d comes from a plane evaluated at absolute
//    coordinates, d = n.x - w, rounded to a few ulps of |n|.|x| + |w|, not of
//    d: near a wall far from the origin that cancels (seed 11821545566946:
//    one particle 0.098 m from the slanted wall at |n.x| = 2.7 m, its only
//    term; relative 1.3e-5 against a plain relative bound of 1e-5).
// A plain relative bound, even one relative to the sum of the terms'
// magnitudes (here the value itself: the terms are positive), counts
// neither. The floor is the first-order error, sum of |dW/dq| dq; the
// relative bound still covers the sums' own rounding.

// A pair: the subtract, dot, sqrt and product with 1/h take about 5 ulps of
// q; 8 allows for a device's sqrt (Vulkan: about 3 ulps).
static double pair_q_rounding(double q) { return 8.0 * FLT_EPSILON * q; }

static double mirror_q_rounding(const double plane[4], const double *x, double h, double q)
{
    double size = fabs(plane[3]);
    for (int a = 0; a < 3; a++)
        size += fabs(plane[a] * x[a]);
    // d: the dot and the subtraction, at most 2 ulps of `size` (the usual
    // bound is 3/2); r = 2d, then q as for a pair.
    return 2.0 * 2.0 * FLT_EPSILON * size / h + pair_q_rounding(q);
}

// |d/dq of (1 - q)^k| times dq.
static double kernel_floor(int k, double q, double dq) { return k * ref_powi(1.0 - q, k - 1) * dq; }

// ---- 1. one substep against the reference -----------------------------------

// Scene for injected particles: room for n, two materials of different mass
// and stiffness so every per-material path is used, and a tilted wall across
// the far corner (x + y <= 1.6 extent) besides the domain faces, so the wall
// mirrors run for particles near both.
// materials: 1 (light) or 2 (light and heavy).
static void random_scene_json(char *out, size_t size, int dim, float extent, uint32_t n, const char *kernel,
                              uint32_t materials)
{
    const char *heavy = ","
                        "    { \"name\": \"heavy\", \"mass\": 1.4, \"rest_density\": 114.8, \"stiffness\": 0.12,"
                        "      \"near_stiffness\": 0.15, \"viscosity_linear\": 0.2, \"viscosity_quadratic\": 2.0,"
                        "      \"surface_tension\": 0.001 }";
    snprintf(out, size,
             "{ \"solver\": \"sph\", \"dim\": %d,"
             "  \"domain\": { \"min\": [0, 0, 0], \"max\": [%g, %g, %g] },"
             "  \"gravity\": [0, -9.8, 0], \"dt\": 0.0071429, \"substeps\": 1,"
             "  \"smoothing_radius\": 0.3, \"particle_spacing\": 0.1, \"max_particles\": %u,"
             "  \"materials\": ["
             "    { \"name\": \"light\", \"mass\": 1.0, \"rest_density\": 82, \"stiffness\": 0.08,"
             "      \"near_stiffness\": 0.1, \"viscosity_linear\": 0.5, \"viscosity_quadratic\": 1.0,"
             "      \"surface_tension\": 0.0004 }%s ],"
             "  \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [0.1, 0.1, %g] } ],"
             "  \"walls\": [ { \"normal\": [-1, -1, 0], \"offset\": %g } ],"
             "  \"sph\": { \"kernel\": \"%s\" } }",
             dim, extent, extent, dim == 3 ? extent : 0.0f, n, materials > 1 ? heavy : "", dim == 3 ? 0.1 : 0.0,
             -1.6 * extent, kernel);
}

typedef struct step_errors {
    double predict, viscosity, density, brute, near_density, pressure, relax, velocity, chain;
} step_errors;

static step_errors worst;

static void note(double *slot, double e) { *slot = fmax(*slot, e); }

// one_cell: every particle inside one grid cell (all pairs are neighbours).
// materials: 1 or 2 (2D with 1: the pressures array is relax's neighbour
// record, fluid_sph.h).
static void check_substep(cs_context *ctx, int dim, uint32_t n, bool one_cell, const char *kernel,
                          uint32_t materials)
{
    float extent = dim == 2 ? 6.5f : 2.5f;
    if (n > 4000)
        extent *= dim == 2 ? sqrtf((float)n / 3000.0f) : cbrtf((float)n / 4000.0f);
    char json[4096];
    random_scene_json(json, sizeof json, dim, extent, CS_MAX(n, 8u), kernel, materials);
    cs_scene sc;
    if (!parse_scene(json, &sc)) {
        CHECK(false, "scene");
        return;
    }
    cs_sph sph;
    cs_error err;
    if (!cs_sph_create(ctx, &sc, &sph, &err)) {
        CHECK(false, "cs_sph_create: %s", err.msg);
        cs_scene_free(&sc);
        return;
    }
    cs_fluid *f = &sph.fluid;
    double h = sc.smoothing_radius, dt = sc.dt;
    sph_ref_material mats[CS_MAX_MATERIALS];
    ref_materials(&sc, mats);
    sph_ref_params rp = {.dim = dim, .h = h, .dt = dt, .exponent = sph.exponent, .epsilon = sph.params.kernel.z,
                         .materials = mats, .wall_mirror = sph.wall_mirror};
    // Boundary planes as the solver sees them: domain faces, then walls.
    for (int a = 0; a < dim; a++)
        for (int side = 0; side < 2; side++) {
            double *pl = rp.planes[rp.plane_count++];
            pl[a] = side ? -1.0 : 1.0;
            pl[3] = side ? -sc.domain_max[a] : sc.domain_min[a];
        }
    for (uint32_t k = 0; k < sc.wall_count; k++) {
        double *pl = rp.planes[rp.plane_count++];
        for (int a = 0; a < 3; a++)
            pl[a] = sc.walls[k].normal[a];
        pl[3] = sc.walls[k].offset;
    }

    // Fresh random state, indexed by id.
    float *x0 = calloc((size_t)n * 4 + 4, sizeof(float));
    float *v0 = calloc((size_t)n * 4 + 4, sizeof(float));
    uint32_t *m0 = calloc((size_t)n + 1, sizeof(uint32_t));
    uint32_t *id0 = calloc((size_t)n + 1, sizeof(uint32_t));
    float lo = one_cell ? 1.01f * (float)h : 0.05f * extent, span = one_cell ? 0.98f * (float)h : 0.9f * extent;
    for (uint32_t i = 0; i < n; i++) {
        for (int a = 0; a < dim; a++) {
            x0[4 * i + a] = lo + span * (float)test_rand_unit();
            v0[4 * i + a] = (float)(2.0 * test_rand_unit() - 1.0);
        }
        m0[i] = test_rand_u32() % materials;
        id0[i] = i;
    }
    if (n) {
        cs_buffer_upload(ctx, cs_fluid_pos(f), x0, (VkDeviceSize)n * 16, 0);
        cs_buffer_upload(ctx, cs_fluid_vel(f), v0, (VkDeviceSize)n * 16, 0);
        cs_buffer_upload(ctx, cs_fluid_mat(f), m0, (VkDeviceSize)n * 4, 0);
        cs_buffer_upload(ctx, cs_fluid_ids(f), id0, (VkDeviceSize)n * 4, 0);
    }
    f->count = n;
    cs_buffer *poison[] = {cs_fluid_pos_alt(f), cs_fluid_vel_alt(f), cs_fluid_pred(f), cs_fluid_pred_alt(f),
                           &f->densities, &f->arrays[CS_SPH_ARRAY_PRESSURES]};
    for (size_t i = 0; i < CS_ARRAY_COUNT(poison); i++)
        cs_buffer_fill(ctx, poison[i], CS_POISON_U32);

    // The substep without collisions (the base's pass, tested with the base),
    // so every value the reference computes is the GPU's.
    cs_recorder rec;
    cs_recorder_create(ctx, "sph substep", &rec);
    cs_recorder_begin(&rec);
    if (n) {
        cs_fluid_record_predict(f, &rec);
        cs_fluid_record_grid(f, &rec, true);
        cs_sph_record_density(&sph, &rec);
        cs_sph_record_relax(&sph, &rec);
    }
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    if (n == 0) {
        CHECK(f->count == 0, "empty stays empty");
        goto done;
    }

    // Everything in cell order, as the passes saw it.
    size_t n4 = (size_t)n * 4;
    float *x_old = malloc(n4 * 4), *v_pred = malloc(n4 * 4), *x_star = malloc(n4 * 4), *x_v = malloc(n4 * 4);
    float *x_new = malloc(n4 * 4), *v_new = malloc(n4 * 4), *dens = malloc((size_t)n * 4),
          *press = malloc((size_t)n * 8);
    uint32_t *ids = malloc((size_t)n * 4), *mat = malloc((size_t)n * 4);
    compare_download(ctx, &f->positions[f->pos_cur ^ 1u], x_old, n, 16);
    compare_download(ctx, &f->velocities[f->vel_cur ^ 1u], v_pred, n, 16);
    compare_download(ctx, cs_fluid_pred(f), x_star, n, 16);
    compare_download(ctx, cs_fluid_pred_alt(f), x_v, n, 16);
    compare_download(ctx, cs_fluid_pos(f), x_new, n, 16);
    compare_download(ctx, cs_fluid_vel(f), v_new, n, 16);
    compare_download(ctx, &f->densities, dens, n, 4);
    bool record = cs_sph_relax_record(dim, sc.material_count);
    uint32_t record_mismatch = 0;
    if (record) {
        // (x*, y*, P, P_near): the pressures, and x*, y* the same bits as x*.
        float *rec4 = malloc(n4 * 4);
        compare_download(ctx, &f->arrays[CS_SPH_ARRAY_PRESSURES], rec4, n, 16);
        for (uint32_t i = 0; i < n; i++) {
            memcpy(&press[2 * i], &rec4[4 * i + 2], 8);
            record_mismatch += memcmp(&rec4[4 * i], &x_star[4 * i], 8) != 0;
        }
        free(rec4);
    } else {
        compare_download(ctx, &f->arrays[CS_SPH_ARRAY_PRESSURES], press, n, 8);
    }
    CHECK(record_mismatch == 0, "dim %d n %u: %u relax records whose x*, y* differ from x*", dim, n, record_mismatch);
    compare_download(ctx, cs_fluid_ids(f), ids, n, 4);
    compare_download(ctx, cs_fluid_mat(f), mat, n, 4);
    uint32_t bad = compare_non_finite(x_star, n4) + compare_non_finite(x_v, n4) + compare_non_finite(x_new, n4) +
                   compare_non_finite(v_new, n4) + compare_non_finite(dens, n) + compare_non_finite(press, 2u * n);
    CHECK(bad == 0, "dim %d n %u: %u non-finite outputs (poison left or NaN)", dim, n, bad);
    bool perm_ok = true;
    uint8_t *seen = calloc(n, 1);
    for (uint32_t i = 0; i < n; i++) {
        if (ids[i] >= n || seen[ids[i]]++ || mat[i] != m0[ids[i]])
            perm_ok = false;
    }
    free(seen);
    CHECK(perm_ok, "dim %d n %u: ids are not a permutation carrying materials", dim, n);
    if (!perm_ok)
        goto free_arrays;

    {
        double *dx_old = compare_to_double(x_old, n4), *dv_pred = compare_to_double(v_pred, n4), *dx_star = compare_to_double(x_star, n4);
        double *dx_v = compare_to_double(x_v, n4), *dx_new = compare_to_double(x_new, n4), *dv_new = compare_to_double(v_new, n4);
        double *ddens = compare_to_double(dens, n), *dpress = compare_to_double(press, 2u * n);
        double *r_pos = calloc(n4, sizeof(double)), *r_vel = calloc(n4, sizeof(double));
        double *r_rho = calloc(n, sizeof(double)), *r_rhon = calloc(n, sizeof(double));
        double *r_p = calloc(n, sizeof(double)), *r_pn = calloc(n, sizeof(double));
        double *r_press = calloc(2u * n, sizeof(double)), *r_near = calloc(2u * n, sizeof(double));
        double *gpu_near_rho = calloc(n, sizeof(double));

        // Predict (the base's pass; the chain below starts from it).
        double *r_star = calloc(n4, sizeof(double));
        for (uint32_t i = 0; i < n; i++)
            for (int a = 0; a < dim; a++) {
                uint32_t id = ids[i];
                double v = (double)v0[4 * id + a] + dt * sc.gravity[a];
                r_star[4 * i + a] = (double)x0[4 * id + a] + dt * v;
            }
        vec_error e_pred = compare_vec(dx_star, dx_old, r_star, dx_old, n, dim);

        // Grid as the GPU built it: binned at the GPU's predicted positions.
        ref_grid g;
        ref_grid_build(&g, dim, f->grid.origin, f->params.grid_origin.w, f->grid.dims, x_star, n);

        // Each pass on the GPU's own inputs.
        sph_ref_viscosity(&rp, &g, n, dx_star, dv_pred, mat, r_pos, r_vel);
        vec_error e_visc = compare_vec(dx_v, dx_star, r_pos, dx_star, n, dim);

        sph_ref_density(&rp, &g, n, dx_star, mat, r_rho, r_rhon, r_p, r_pn);
        for (uint32_t i = 0; i < n; i++) {
            r_press[2 * i] = r_p[i];
            r_press[2 * i + 1] = r_pn[i];
            // rho_near is not stored on the GPU; P_near = k_near rho_near.
            gpu_near_rho[i] = dpress[2 * i + 1] / mats[mat[i]].near_stiffness;
        }
        double e_rho = rel_error_scalar(ddens, r_rho, n, 1);
        double e_rhon = rel_error_scalar(gpu_near_rho, r_rhon, n, 1);
        double e_p = rel_error_scalar(dpress, r_press, n, 2);
        double e_pn = rel_error_scalar(dpress + 1, r_press + 1, n, 2);

        // Brute force, no grid: density is evaluated at the binned positions,
        // so the grid must find exactly the pairs closer than h. The same
        // loop gives every particle's rounding floors (kernel_floor) for
        // rho, rho_near, P and P_near.
        double *brute = calloc(n, sizeof(double)), *floor_rho = calloc(n, sizeof(double));
        double *floor_near = calloc(n, sizeof(double)), *floor_p = calloc(n, sizeof(double));
        double *floor_pn = calloc(n, sizeof(double));
        {
            int k = sph.exponent;
            double norm = cs_sph_kernel_norm(dim, k, h), near_norm = cs_sph_kernel_norm(dim, k + 1, h);
            for (uint32_t i = 0; i < n; i++) {
                double rho = 0.0, fr = 0.0, fn = 0.0;
                for (uint32_t j = 0; j < n; j++) {
                    double d[3];
                    double r = ref_dist(dim, dx_star + 4 * i, dx_star + 4 * j, d);
                    if (j != i && r < h) {
                        double q = r / h, dq = pair_q_rounding(q), m = mats[mat[j]].mass;
                        rho += m * norm * ref_powi(1.0 - q, k);
                        fr += m * norm * kernel_floor(k, q, dq);
                        fn += m * near_norm * kernel_floor(k + 1, q, dq);
                    }
                }
                for (int w = 0; rp.wall_mirror && w < rp.plane_count; w++) {
                    double r = sph_ref_mirror_distance(&rp, w, dx_star + 4 * i);
                    if (r < h) {
                        double q = r / h, dq = mirror_q_rounding(rp.planes[w], dx_star + 4 * i, h, q);
                        double m = mats[mat[i]].mass;
                        rho += m * norm * ref_powi(1.0 - q, k);
                        fr += m * norm * kernel_floor(k, q, dq);
                        fn += m * near_norm * kernel_floor(k + 1, q, dq);
                    }
                }
                brute[i] = rho;
                floor_rho[i] = fr;
                floor_near[i] = fn;
                floor_p[i] = mats[mat[i]].stiffness * fr;
                floor_pn[i] = mats[mat[i]].near_stiffness * fn;
            }
        }
        double e_brute = rel_error_scalar(ddens, brute, n, 1);
        bool rho_ok = scalar_within(ddens, r_rho, floor_rho, n, 1, 1e-5);
        bool near_ok = scalar_within(gpu_near_rho, r_rhon, floor_near, n, 1, 1e-5);
        bool brute_ok = scalar_within(ddens, brute, floor_rho, n, 1, 1e-5);
        bool p_ok = scalar_within(dpress, r_press, floor_p, n, 2, 1e-4);
        bool pn_ok = scalar_within(dpress + 1, r_press + 1, floor_pn, n, 2, 1e-5);
        // The largest near-density floor, relative to the largest value.
        double near_scale = 0.0, near_floor = 0.0;
        for (uint32_t i = 0; i < n; i++)
            near_scale = fmax(near_scale, fabs(r_rhon[i])), near_floor = fmax(near_floor, floor_near[i]);
        near_floor = near_scale > 0.0 ? near_floor / near_scale : 0.0;
        free(brute), free(floor_rho), free(floor_near), free(floor_p), free(floor_pn);

        double *gpu_p = calloc(n, sizeof(double)), *gpu_pn = calloc(n, sizeof(double));
        for (uint32_t i = 0; i < n; i++)
            gpu_p[i] = dpress[2 * i], gpu_pn[i] = dpress[2 * i + 1];
        sph_ref_relax(&rp, &g, n, dx_star, dx_v, mat, gpu_p, gpu_pn, r_pos);
        free(gpu_p), free(gpu_pn);
        vec_error e_relax = compare_vec(dx_new, dx_v, r_pos, dx_v, n, dim);
        // v = (x_new - x_old) / dt: the GPU's x_new rounding, divided by dt.
        for (uint32_t i = 0; i < n4; i++)
            r_vel[i] = (r_pos[i] - dx_old[i]) / dt;
        vec_error e_vel = compare_vec(dv_new, NULL, r_vel, NULL, n, dim);
        e_vel.floor = e_relax.floor / dt;

        // The whole substep chained in double from the initial state.
        double *r_visc = malloc(n4 * sizeof(double));
        sph_ref_viscosity(&rp, &g, n, r_star, dv_pred, mat, r_visc, r_vel);
        sph_ref_density(&rp, &g, n, r_star, mat, r_rho, r_rhon, r_p, r_pn);
        sph_ref_relax(&rp, &g, n, r_star, r_visc, mat, r_p, r_pn, r_pos);
        vec_error e_chain = compare_vec(dx_new, dx_old, r_pos, dx_old, n, dim);
        free(r_visc);

        fprintf(stderr,
                "sph %dD n=%-5u %-6s %s: rel err predict %.1e viscosity %.1e (rounding floor %.1e) density %.1e "
                "(brute force %.1e) near %.1e (rounding floor %.1e) P %.1e P_near %.1e relax %.1e velocity %.1e "
                "chained step %.1e\n",
                dim, n, kernel, one_cell ? "one cell" : "spread  ", compare_rel(e_pred), compare_rel(e_visc),
                e_visc.scale > 0 ? e_visc.floor / e_visc.scale : 0.0, e_rho, e_brute, e_rhon, near_floor, e_p, e_pn,
                compare_rel(e_relax), compare_rel(e_vel), compare_rel(e_chain));
        note(&worst.predict, compare_rel(e_pred));
        note(&worst.viscosity, compare_rel(e_visc));
        note(&worst.density, e_rho);
        note(&worst.brute, e_brute);
        note(&worst.near_density, e_rhon);
        note(&worst.pressure, fmax(e_p, e_pn));
        note(&worst.relax, compare_rel(e_relax));
        note(&worst.velocity, compare_rel(e_vel));
        note(&worst.chain, compare_rel(e_chain));
        // Bounds: float sums over tens to hundreds of neighbours against
        // double, plus the densities' rounding floor (kernel_floor).
        // Pressure P = k (rho - rho0) cancels, so it is measured against its
        // own largest magnitude like the others.
        CHECK(compare_within(e_pred, 1e-5), "%dD n=%u: predict rel err %.2e", dim, n, compare_rel(e_pred));
        CHECK(compare_within(e_visc, 1e-4), "%dD n=%u: viscosity rel err %.2e", dim, n, compare_rel(e_visc));
        CHECK(rho_ok && near_ok, "%dD n=%u: density rel err %.2e near %.2e (near rounding floor %.2e)", dim, n, e_rho,
              e_rhon, near_floor);
        CHECK(brute_ok, "%dD n=%u: density vs brute force rel err %.2e", dim, n, e_brute);
        CHECK(p_ok && pn_ok, "%dD n=%u: pressure rel err %.2e near %.2e", dim, n, e_p, e_pn);
        CHECK(compare_within(e_relax, 1e-4), "%dD n=%u: relax rel err %.2e", dim, n, compare_rel(e_relax));
        CHECK(compare_within(e_vel, 1e-4), "%dD n=%u: velocity rel err %.2e", dim, n, compare_rel(e_vel));
        CHECK(compare_within(e_chain, 1e-3), "%dD n=%u: chained substep rel err %.2e", dim, n, compare_rel(e_chain));

        // Momentum: the pair terms (viscosity and relaxation) are equal and
        // opposite once mass-weighted, so sum m_i (x_new - x_star) stays at
        // zero up to rounding.
        double mom[3] = {0, 0, 0}, scale = 0.0;
        double norm = cs_sph_kernel_norm(dim, sph.exponent, h), near_norm = cs_sph_kernel_norm(dim, sph.exponent + 1, h);
        for (uint32_t i = 0; i < n; i++) {
            double wall[3] = {0, 0, 0}; // the wall mirrors' push is external
            for (int w = 0; rp.wall_mirror && w < rp.plane_count; w++) {
                double r = sph_ref_mirror_distance(&rp, w, dx_star + 4 * i);
                if (r >= h)
                    continue;
                double a1 = 1.0 - r / h, an1 = ref_powi(a1, sph.exponent - 1);
                double push = dt * dt / mats[mat[i]].mass *
                              (dpress[2 * i] * norm * an1 + dpress[2 * i + 1] * near_norm * an1 * a1);
                for (int a = 0; a < 3; a++)
                    wall[a] += push * rp.planes[w][a];
            }
            for (int a = 0; a < dim; a++) {
                double d = (dx_new[4 * i + a] - dx_star[4 * i + a] - wall[a]) * mats[mat[i]].mass;
                mom[a] += d;
                scale += fabs(d);
            }
        }
        double mom_err = sqrt(mom[0] * mom[0] + mom[1] * mom[1] + mom[2] * mom[2]) / fmax(scale, 1e-30);
        CHECK(n < 2 || mom_err < 1e-4, "%dD n=%u: solver displacements carry net momentum (%.2e of the total)", dim,
              n, mom_err);

        ref_grid_free(&g);
        double *frees[] = {dx_old, dv_pred, dx_star, dx_v, dx_new, dv_new, ddens, dpress, r_pos, r_vel, r_rho,
                           r_rhon, r_p, r_pn, r_press, r_near, gpu_near_rho, r_star};
        for (size_t i = 0; i < CS_ARRAY_COUNT(frees); i++)
            free(frees[i]);
    }
free_arrays:
    free(x_old), free(v_pred), free(x_star), free(x_v), free(x_new), free(v_new), free(dens), free(press);
    free(ids), free(mat);
done:
    free(x0), free(v0), free(m0), free(id0);
    cs_sph_destroy(&sph);
    cs_scene_free(&sc);
}

// ---- 2-4. scenes over many substeps -----------------------------------------

static uint32_t run_substeps(cs_sph *s, uint32_t substeps)
{
    cs_recorder rec;
    cs_recorder_create(s->fluid.ctx, "sph run", &rec);
    uint32_t done = 0;
    while (done < substeps) {
        uint32_t batch = CS_MIN(25u, substeps - done);
        cs_recorder_begin(&rec);
        for (uint32_t i = 0; i < batch; i++)
            cs_sph_record_substep(s, &rec);
        cs_recorder_submit_wait(&rec);
        done += batch;
    }
    cs_recorder_destroy(&rec);
    return done;
}

// Loads a shipped scene file and keeps its first fluid as `sc` (which takes
// over the file's JSON tree, so cs_scene_free(sc) releases everything).
static bool load_first_fluid(const char *name, cs_scene *sc, cs_error *err)
{
    cs_scene file;
    if (!cs_scene_load(name, &file, err))
        return false;
    if (file.fluid_count < 1) {
        snprintf(err->msg, sizeof err->msg, "%s: no fluid", name);
        cs_scene_free(&file);
        return false;
    }
    *sc = file.fluids[0];
    sc->json = file.json;
    file.json = NULL;
    cs_scene_free(&file);
    return true;
}

static bool create_from_json(cs_context *ctx, const char *json, cs_scene *sc, cs_sph *s)
{
    if (!parse_scene(json, sc))
        return false;
    cs_error err;
    if (!cs_sph_create(ctx, sc, s, &err)) {
        fprintf(stderr, "cs_sph_create: %s\n", err.msg);
        cs_scene_free(sc);
        return false;
    }
    return true;
}

static void check_invariants_walls(const char *what, const cs_sim_stats *st, uint32_t count, double mass,
                                   bool hard_walls)
{
    CHECK(st->non_finite == 0, "%s: %u non-finite particles", what, st->non_finite);
    if (hard_walls)
        CHECK(st->outside_domain == 0, "%s: %u particles outside the domain", what, st->outside_domain);
    CHECK(st->particles == count, "%s: %u particles, expected %u", what, st->particles, count);
    CHECK(fabs(st->total_mass - mass) <= 1e-5 * mass, "%s: mass %.6f, expected %.6f", what, st->total_mass, mass);
}

static void check_invariants(const char *what, const cs_sim_stats *st, uint32_t count, double mass)
{
    check_invariants_walls(what, st, count, mass, true);
}

// Seed 000's walls (sph.seed_compatible) push velocities, not positions: a
// particle may end a substep past a plane, but never by a smoothing radius.
static uint32_t count_far_outside(cs_fluid *f)
{
    uint32_t n = f->count, far = 0;
    float *x = malloc((size_t)n * 16 + 16);
    cs_fluid_download_by_id(f, x, NULL, NULL, NULL);
    double h = f->scene->smoothing_radius;
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < f->dim; a++)
            far += x[4 * i + a] < f->scene->domain_min[a] - h || x[4 * i + a] > f->scene->domain_max[a] + h;
    free(x);
    return far;
}

// Kinetic + potential energy (relative to the domain floor) of the fluid,
// from the state read back in double. Gravity and walls do no net work on a
// fluid at rest; pressure and viscosity only dissipate, so this never grows
// (by more than the small compression energy) unless the solver injects it.
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

// The 2D dam break scene as shipped (scenes/dam_break_2d.json, 3024
// particles) and a small 3D one: bounded, finite, conserved, no energy
// gained.
static void check_dam_break(cs_context *ctx, int dim)
{
    cs_scene sc;
    cs_sph s;
    cs_error err;
    bool ok;
    if (dim == 2) {
        ok = load_first_fluid("dam_break_2d", &sc, &err);
        if (!ok)
            fprintf(stderr, "%s\n", err.msg);
        ok = ok && cs_sph_create(ctx, &sc, &s, &err);
        if (!ok)
            fprintf(stderr, "%s\n", err.msg);
    } else {
        const char *json =
            "{ \"solver\": \"sph\", \"dim\": 3, \"domain\": { \"min\": [0, 0, 0], \"max\": [2.4, 2.4, 1.2] },"
            "  \"gravity\": [0, -9.8, 0], \"dt\": 0.0071429, \"substeps\": 1, \"smoothing_radius\": 0.3,"
            "  \"particle_spacing\": 0.12,"
            // surface_tension as the default was before issue 31: the
            // scale-free default here (8e-5) lets this column gain 4% energy.
            "  \"materials\": [ { \"name\": \"water\", \"mass\": 1.0, \"rest_density\": 457,"
            "     \"stiffness\": 0.003, \"near_stiffness\": 0.003, \"surface_tension\": 0.0004 } ],"
            "  \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [0.9, 1.5, 1.2], \"material\": \"water\" } ],"
            "  \"sph\": {} }";
        ok = create_from_json(ctx, json, &sc, &s);
    }
    if (!ok) {
        CHECK(false, "dam break %dD scene", dim);
        return;
    }
    uint32_t n = s.fluid.count;
    double mass = (double)n * sc.materials[0].mass;
    double e0 = total_energy(&s.fluid), e_max = e0;
    double worst_speed = 0.0, worst_err = 0.0;
    uint32_t steps = dim == 2 ? 360 : 240, chunk = 40;
    for (uint32_t done = 0; done < steps; done += chunk) {
        run_substeps(&s, chunk);
        cs_sim_stats st;
        cs_fluid_stats(&s.fluid, &st);
        char what[64];
        snprintf(what, sizeof what, "dam break %dD after %u substeps", dim, done + chunk);
        check_invariants(what, &st, n, mass);
        worst_speed = fmax(worst_speed, st.max_speed);
        worst_err = fmax(worst_err, st.mean_density_error);
        e_max = fmax(e_max, total_energy(&s.fluid));
    }
    // Nothing falls faster than from the top of the domain.
    double fall = sqrt(2.0 * 9.8 * (sc.domain_max[1] - sc.domain_min[1]));
    double e_end = total_energy(&s.fluid);
    fprintf(stderr, "sph dam break %dD: %u particles, %u substeps of %.2f ms, max speed %.2f m/s (free fall bound %.2f), "
                    "energy start %.0f, max %.0f (%+.1f%%), end %.0f; worst mean |rho/rho0 - 1| %.3f\n",
            dim, n, steps, 1e3 * s.fluid.dt, worst_speed, fall, e0, e_max, 100.0 * (e_max / e0 - 1.0), e_end,
            worst_err);
    // Energy is the invariant; the speed bound only catches a blow-up (a
    // plunging jet can fling a few particles faster than free fall).
    CHECK(worst_speed < 2.0 * fall, "dam break %dD: max speed %.2f > 2 x free fall %.2f", dim, worst_speed, fall);
    CHECK(e_max <= 1.02 * e0, "dam break %dD: energy grew from %.0f to %.0f", dim, e0, e_max);
    cs_sph_destroy(&s);
    cs_scene_free(&sc);
}

// A block filling the floor of its box: Clavet's pressure is soft, so the
// lattice first settles under gravity (it compresses and sloshes); after
// that it must stay near rest, not boil.
static void check_rest(cs_context *ctx)
{
    const char *json =
        "{ \"solver\": \"sph\", \"dim\": 2, \"domain\": { \"min\": [0, 0], \"max\": [3, 3] },"
        "  \"gravity\": [0, -9.8], \"dt\": 0.0071429, \"substeps\": 1, \"smoothing_radius\": 0.3,"
        "  \"particle_spacing\": 0.095,"
        "  \"materials\": [ { \"name\": \"water\", \"mass\": 1.0, \"rest_density\": 82 } ],"
        "  \"blocks\": [ { \"min\": [0, 0], \"max\": [3, 1.0], \"material\": \"water\" } ],"
        "  \"sph\": {} }";
    cs_scene sc;
    cs_sph s;
    if (!create_from_json(ctx, json, &sc, &s)) {
        CHECK(false, "rest scene");
        return;
    }
    uint32_t n = s.fluid.count;
    double settling = 0.0, rest = 0.0;
    cs_sim_stats st;
    for (int phase = 0; phase < 2; phase++)
        for (uint32_t done = 0; done < 300; done += 50) {
            run_substeps(&s, 50);
            cs_fluid_stats(&s.fluid, &st);
            check_invariants("rest block", &st, n, (double)n);
            if (phase == 0)
                settling = fmax(settling, st.max_speed);
            else
                rest = fmax(rest, st.max_speed);
        }
    // Free fall from the block's top over the same time reaches 4.4 m/s.
    fprintf(stderr, "sph rest block 2D: %u particles, max speed %.3f m/s while settling (300 substeps), %.3f m/s "
                    "over the next 300; final mean |rho/rho0-1| %.3f\n",
            n, settling, rest, st.mean_density_error);
    CHECK(settling < 2.2, "rest block: max speed %.3f m/s while settling", settling);
    CHECK(rest < 0.8, "rest block: max speed %.3f m/s after settling", rest);
    cs_sph_destroy(&s);
    cs_scene_free(&sc);
}

// Expected particle count after `substeps` substeps: the emission schedule
// (particle k of an emitter is born at start + k / rate; emission runs at the
// start of each substep, at time index * dt), written out independently.
static uint32_t expected_count(const cs_scene *sc, uint32_t blocks, uint32_t substeps)
{
    uint64_t count = blocks;
    double t = (double)(substeps - 1) * (double)sc->dt;
    for (uint32_t e = 0; e < sc->emitter_count; e++) {
        const cs_emitter *em = &sc->emitters[e];
        if (substeps == 0 || t < em->start_time)
            continue;
        double born = floor((t - em->start_time) * em->rate) + 1.0;
        count += (uint64_t)fmin(born, (double)em->budget);
    }
    uint32_t cap = sc->max_particles ? sc->max_particles : UINT32_MAX;
    return (uint32_t)CS_MIN(count, (uint64_t)cap);
}

// Seed 000's two-jet scene (scenes/double_emitter_2d.json), with the second
// jet brought forward from 6 s to 0.5 s so the test stays short.
static void check_double_emitter(cs_context *ctx)
{
    cs_scene sc;
    cs_error err;
    if (!load_first_fluid("double_emitter_2d", &sc, &err)) {
        CHECK(false, "load double_emitter_2d: %s", err.msg);
        return;
    }
    CHECK(sc.emitter_count == 2 && sc.material_count == 2, "two emitters and two materials");
    if (sc.emitter_count >= 2)
        sc.emitters[1].start_time = 0.5f;
    cs_sph s;
    if (!cs_sph_create(ctx, &sc, &s, &err)) {
        CHECK(false, "create double emitter: %s", err.msg);
        cs_scene_free(&sc);
        return;
    }
    uint32_t substeps = 0, checked = 0;
    double mass_per[2] = {sc.materials[0].mass, sc.materials[CS_MIN(1u, sc.material_count - 1)].mass};
    while (substeps < 280) {
        substeps += run_substeps(&s, 35);
        uint32_t want = expected_count(&sc, s.fluid.block_count, substeps);
        CHECK(s.fluid.count == want, "after %u substeps: %u particles, schedule says %u", substeps, s.fluid.count,
              want);
        cs_sim_stats st;
        cs_fluid_stats(&s.fluid, &st);
        uint32_t n = s.fluid.count;
        uint32_t *mat = malloc((size_t)n * 4 + 4);
        compare_download(ctx, cs_fluid_mat(&s.fluid), mat, n, 4);
        uint32_t per[2] = {0, 0};
        for (uint32_t i = 0; i < n; i++)
            per[mat[i] ? 1 : 0]++;
        free(mat);
        char what[64];
        snprintf(what, sizeof what, "double emitter after %u substeps", substeps);
        check_invariants_walls(what, &st, want, per[0] * mass_per[0] + per[1] * mass_per[1], !s.seed_compatible);
        if (s.seed_compatible) {
            uint32_t far = count_far_outside(&s.fluid);
            CHECK(far == 0, "%s: %u particles more than h outside the domain (%u outside)", what, far,
                  st.outside_domain);
        }
        checked++;
        if (substeps >= 280)
            fprintf(stderr, "sph double emitter: %u substeps (%.2f s), %u particles: %u light, %u heavy, "
                            "max speed %.2f\n",
                    substeps, substeps * sc.dt, n, per[0], per[1], st.max_speed);
        if (substeps >= 280)
            CHECK(per[0] > 0 && per[1] > 0, "both materials present (%u light, %u heavy)", per[0], per[1]);
    }
    CHECK(checked > 0, "ran");
    cs_sph_destroy(&s);
    cs_scene_free(&sc);
}

// Two runs of the same scene: byte-identical state.
static void check_determinism(cs_context *ctx)
{
    float *state[2] = {NULL, NULL};
    uint32_t count[2] = {0, 0};
    for (int run = 0; run < 2; run++) {
        cs_scene sc;
        cs_error err;
        if (!load_first_fluid("double_emitter_2d", &sc, &err)) {
            CHECK(false, "load: %s", err.msg);
            return;
        }
        sc.emitters[1].start_time = 0.2f;
        cs_sph s;
        if (!cs_sph_create(ctx, &sc, &s, &err)) {
            CHECK(false, "create: %s", err.msg);
            cs_scene_free(&sc);
            return;
        }
        run_substeps(&s, 120);
        count[run] = s.fluid.count;
        state[run] = calloc((size_t)count[run] * 9 + 1, sizeof(float));
        cs_fluid_download_by_id(&s.fluid, state[run], state[run] + 4 * count[run], state[run] + 8 * count[run],
                                NULL);
        cs_sph_destroy(&s);
        cs_scene_free(&sc);
    }
    CHECK(count[0] == count[1] && count[0] > 0, "same count %u %u", count[0], count[1]);
    if (count[0] == count[1])
        CHECK(memcmp(state[0], state[1], (size_t)count[0] * 9 * sizeof(float)) == 0,
              "two runs differ (positions, velocities or densities)");
    fprintf(stderr, "sph determinism: two runs of 120 substeps, %u particles, byte-identical: %s\n", count[0],
            count[0] == count[1] && memcmp(state[0], state[1], (size_t)count[0] * 9 * sizeof(float)) == 0 ? "yes"
                                                                                                          : "NO");
    free(state[0]);
    free(state[1]);
}

// ---- 5. neighbour lists against the cell walk -------------------------------

// The solver for list_checks.h: a scene (a shipped name, or JSON when it
// starts with '{') and its cs_sph, made and freed together.
typedef struct sph_list_run {
    cs_scene scene;
    cs_sph sph;
} sph_list_run;

static void *sph_list_create(cs_context *ctx, const char *scene, bool lists)
{
    sph_list_run *r = calloc(1, sizeof *r);
    cs_error err;
    bool ok = scene[0] == '{' ? create_from_json(ctx, scene, &r->scene, &r->sph)
                              : load_first_fluid(scene, &r->scene, &err) && cs_sph_create(ctx, &r->scene, &r->sph, &err);
    if (!ok) {
        CHECK(false, "lists: scene %.40s", scene);
        free(r);
        return NULL;
    }
    if (!cs_sph_set_neighbour_lists(&r->sph, lists, &err)) {
        CHECK(false, "lists: %s", err.msg);
        cs_sph_destroy(&r->sph);
        cs_scene_free(&r->scene);
        free(r);
        return NULL;
    }
    return r;
}
static cs_fluid *sph_list_fluid(void *r) { return &((sph_list_run *)r)->sph.fluid; }
static cs_neighbours *sph_list_neighbours(void *r) { return &((sph_list_run *)r)->sph.nb; }
static void sph_list_run_substeps(void *r, uint32_t substeps) { run_substeps(&((sph_list_run *)r)->sph, substeps); }
static void sph_list_destroy(void *p)
{
    sph_list_run *r = p;
    cs_sph_destroy(&r->sph);
    cs_scene_free(&r->scene);
    free(r);
}
static const list_solver sph_lists = {"sph", sph_list_create, sph_list_fluid, sph_list_neighbours,
                                      sph_list_run_substeps, sph_list_destroy};
static void check_lists(cs_context *ctx)
{
    // 2D, one material (relax reads its record), the seed's kernel.
    list_check_match_walk(&sph_lists, ctx, "dam_break_2d", "dam_break_2d", 60, 0);
    list_check_are_read(&sph_lists, ctx, "dam_break_2d", "dam_break_2d", 60);
    // Some particles overflow (they walk), the others read their lists.
    list_check_match_walk(&sph_lists, ctx, "dam_break_2d, 30 slots read", "dam_break_2d", 60, 30);
    // 2D, two materials, seed 000's walls and viscosity, emitters.
    list_check_match_walk(&sph_lists, ctx, "double_emitter_2d", "double_emitter_2d", 280, 0);
    // 3D, two materials side by side, Clavet's kernel, a slanted wall.
    const char *json =
        "{ \"solver\": \"sph\", \"dim\": 3, \"domain\": { \"min\": [0, 0, 0], \"max\": [2.4, 2.4, 1.2] },"
        "  \"gravity\": [0, -9.8, 0], \"dt\": 0.0071429, \"substeps\": 1, \"smoothing_radius\": 0.3,"
        "  \"particle_spacing\": 0.12,"
        "  \"materials\": [ { \"name\": \"light\", \"mass\": 1.0, \"rest_density\": 457,"
        "     \"stiffness\": 0.003, \"near_stiffness\": 0.003, \"viscosity_linear\": 0.5, \"surface_tension\": 0.0004 },"
        "    { \"name\": \"heavy\", \"mass\": 1.4, \"rest_density\": 640,"
        "     \"stiffness\": 0.003, \"near_stiffness\": 0.003, \"viscosity_quadratic\": 1.0, \"surface_tension\": 0.001 } ],"
        "  \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [0.45, 1.5, 1.2], \"material\": \"light\" },"
        "               { \"min\": [0.45, 0, 0], \"max\": [0.9, 1.5, 1.2], \"material\": \"heavy\" } ],"
        "  \"walls\": [ { \"normal\": [-0.6, 0.8, 0], \"offset\": -1.5 } ],"
        "  \"sph\": { \"kernel\": \"clavet\" } }";
    list_check_match_walk(&sph_lists, ctx, "3D, two materials", json, 60, 0);
    // The other layout than the device's (CISTERN_NB_LAYOUT), with some
    // particles overflowing: the same bits.
    bool cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    char *saved_layout = test_setting_save(ctx, "CISTERN_NB_LAYOUT");
    test_setting(ctx, "CISTERN_NB_LAYOUT", cpu ? "slot" : "particle");
    list_check_match_walk(&sph_lists, ctx, cpu ? "dam_break_2d, slot-major, 30 slots read"
                                    : "dam_break_2d, particle-major, 30 slots read",
                           "dam_break_2d", 60, 30);
    test_setting_restore(ctx, "CISTERN_NB_LAYOUT", saved_layout);
}

// ---- 6. errors in the "sph" block ---------------------------------------------

static void check_block_errors(cs_context *ctx)
{
    static const struct {
        const char *block;
        const char *needle;
    } cases[] = {
        {"{ \"kernel\": \"poly6\" }", "sph.kernel"},
        {"{ \"kernel\": 3 }", "sph.kernel"},
        {"{ \"iterations\": 3 }", "iterations"},
        {"{ \"seed_compatible\": true, \"wall_mirror\": true }", "sph.wall_mirror"},
        {"{ \"seed_compatible\": 1 }", "seed_compatible"},
    };
    for (size_t c = 0; c < CS_ARRAY_COUNT(cases); c++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{ \"solver\": \"sph\", \"dim\": 2, \"domain\": { \"min\": [0, 0], \"max\": [1, 1] },"
                 "  \"dt\": 0.005, \"smoothing_radius\": 0.1,"
                 "  \"materials\": [ { \"name\": \"water\", \"mass\": 1.0, \"rest_density\": 82 } ],"
                 "  \"blocks\": [ { \"min\": [0, 0], \"max\": [0.2, 0.2] } ],"
                 "  \"sph\": %s }",
                 cases[c].block);
        cs_scene sc;
        if (!parse_scene(json, &sc)) {
            CHECK(false, "parse");
            continue;
        }
        cs_sph s;
        cs_error err = {{0}};
        bool ok = cs_sph_create(ctx, &sc, &s, &err);
        CHECK(!ok, "sph block %s accepted", cases[c].block);
        CHECK(strstr(err.msg, cases[c].needle) && strstr(err.msg, "test_sph.json"), "message names the key: %s",
              err.msg);
        if (ok)
            cs_sph_destroy(&s);
        cs_scene_free(&sc);
    }
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);

    static const uint32_t sizes[] = {0, 1, 63, 64, 65, 3001};
    for (int dim = 2; dim <= 3; dim++) {
        for (size_t i = 0; i < CS_ARRAY_COUNT(sizes); i++)
            check_substep(&ctx, dim, dim == 3 && sizes[i] > 1000 ? 4000 : sizes[i], false, "seed", 2);
        check_substep(&ctx, dim, dim == 2 ? 2500 : 3000, false, "clavet", 2);
        check_substep(&ctx, dim, dim == 2 ? 150 : 120, true, "seed", 2);
    }
    // One material in 2D: relax reads its neighbour record (fluid_sph.h).
    check_substep(&ctx, 2, 2500, false, "seed", 1);
    // A fixed case, every run: seed 11821545566946's 3D one-particle case,
    // whose only density term is the mirror of the slanted wall, 0.098 m
    // away at |n.x| = 2.7 m: its near density is 1.3e-5 off, relative (see
    // kernel_floor). The cases before it in that run drew 29220 numbers.
    uint64_t resume = test_rand_begin_fixed(11821545566946ull);
    for (uint32_t k = 0; k < 29220; k++)
        test_rand_u64();
    check_substep(&ctx, 3, 1, false, "seed", 2);
    test_rand_resume(resume);
    fprintf(stderr,
            "sph worst rel err: predict %.1e viscosity %.1e density %.1e (brute force %.1e) near %.1e pressure %.1e "
            "relax %.1e velocity %.1e chained %.1e\n",
            worst.predict, worst.viscosity, worst.density, worst.brute, worst.near_density, worst.pressure,
            worst.relax, worst.velocity, worst.chain);

    check_block_errors(&ctx);
    check_dam_break(&ctx, 2);
    check_dam_break(&ctx, 3);
    check_rest(&ctx);
    check_double_emitter(&ctx);
    check_determinism(&ctx);
    check_lists(&ctx);
    return test_finish(&ctx);
}
