// fluid_pbf.c — Position Based Fluids (Macklin & Müller 2013) on the fluid
// base (fluid.h), in 2D and 3D. The "pbf" scene block is documented in
// docs/scenes.md ("pbf: Position Based Fluids").
//
// One substep, as passes:
//   emit → predict (v += g dt, x* = x + v dt) → grid on x* (cell ids, sort,
//   ranges, reorder, neighbours) → iterations × ("pbf: lambda", "pbf: delta" + collide
//   with the boundary set) → "pbf: velocity" (v = (x* - x) / dt, restitution)
//   → "pbf: vorticity+xsph" (curl, then confinement + XSPH, and x = x*).
//
// Departures from the paper, each for a reason:
//  - the density constraint is unilateral, C = max(rho / rho0 - 1, 0): a
//    two-sided one pulls free-surface and wall particles (which miss part of
//    their neighbourhood) inwards until the block collapses;
//  - boundaries (the boundary set: domain faces, walls) count as rest fluid
//    filling the region beyond them (fluid.glsl cs_boundary): density, a
//    gradient term and a push with lambda_i, so fluid at a wall keeps its
//    spacing;
//  - scale-free parameters: epsilon and s_corr are measured against D0, the
//    constraint-gradient norm sum_k |grad_k C|^2 of a particle in a full
//    lattice of the scene's particle_spacing (computed here, in double):
//      epsilon = relaxation * D0
//      s_corr  = -(scorr_k / D0) (W / W(dq))^n   (acts like a density error
//                                                 of scorr_k at distance dq)
//  - scorr_background (default 1, the paper's term): below 1, s_corr loses
//    that fraction of its value at the lattice spacing, (W(s) / W(dq))^n,
//    clamped at 0. The paper's term is a background pressure: it orders a
//    resting pool, but a unilateral constraint cannot hold it at a free
//    surface (the surface stands 4.3% high in test_buoyancy's 3D tank) and
//    a floating body feels it on its wetted faces only: boxes floated 6.6%
//    deep. At 0 it pushes only pairs closer than the spacing: the boxes
//    float within 1.8% of Archimedes (tests/test_buoyancy.c), but a 16k
//    pool keeps jittering at 1.6% of sqrt(gH) (test_walls' bound is 1%)
//    and stands 1.3% low. So the default is 0 in a scene with free bodies
//    (neither static nor on a path) and 1 without (docs/fluids.md,
//    "Floating bodies and s_corr's background"): with 1 a user's boxes
//    floated 6-10% off (tests/test_buoyancy.c);
//  - particle mass m = rho0 / sum_lattice W, so a block on the scene's
//    lattice starts exactly at its rest density (the scene's material mass
//    is not used: with a fixed spacing, mass and rest density cannot be
//    chosen independently without the block jumping to another volume);
//  - XSPH and vorticity weight neighbours by the rest volume V = m / rho0
//    (the same for every material), so XSPH c is a dimensionless fraction
//    and the vorticity epsilon is in m/s.
//
// Neighbour lists: the ~10 neighbour loops of a substep read one list per
// particle (grid.h "neighbour lists"), built after the grid with radius
// h (1 + PBF_SKIN): the cell walk visits ~6x (3D) more candidates than lie
// within h. Delta marks the build cell of every particle that ends more
// than PBF_SKIN h / 2 from where the list was built; lambda decides per
// particle (list, or walk where its block holds a marked cell or it left
// its cell) for itself and delta, curl and XSPH decide after the last delta.
// The list loop then visits the same particles within h in the same order
// as the walk: the results are the same bits (test_pbf checks it).
#include "fluid_pbf.h"

#include "../../shaders/grid/grid_shared.h"
#include "../../shaders/pbf/pbf_shared.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

// List radius h (1 + PBF_SKIN). Larger: longer lists; smaller: the list
// retires (cell walk) after less motion within a substep.
#define PBF_SKIN 0.1
// List slots per particle: this many times the lattice neighbours within
// the list radius (compressed fluid and clamped edge cells hold more; a
// particle with more walks the cells).
#define PBF_LIST_SLACK 2.0

typedef struct cs_pbf {
    cs_fluid fluid;
    cs_pbf_params params;
    double lattice_density; // sum_j W over the lattice (per unit mass)
    double spacing;         // the lattice's (particle_spacing, or h / 2)
    double d0;              // sum_k |grad_k C|^2 on the lattice
    cs_pbf_push push;
    cs_neighbours nb;
    cs_program_id lambda, delta, velocity, curl, confine;
} cs_pbf;

// Fluid scratch arrays. Two are neighbour records: what a loop reads of a
// neighbour, packed by the pass before it so the loop reads fewer arrays
// (docs/benchmarks.md, "Fewer reads per neighbour"):
//  - PBF_X_LAMBDA, written by lambda for delta: x*, lambda (and in 2D the
//    mass; shaders/pbf/pbf_pack.glsl);
//  - PBF_VEL_CURL, written by curl for confine: v, |omega|.
enum { PBF_X_LAMBDA, PBF_CURL, PBF_VEL_CURL };

// Kernels in double, same definitions as fluid.glsl.
static double pbf_poly6(int dim, double h, double r2)
{
    double d = h * h - r2;
    if (d <= 0.0)
        return 0.0;
    double k = dim == 3 ? 315.0 / (64.0 * M_PI * pow(h, 9)) : 4.0 / (M_PI * pow(h, 8));
    return k * d * d * d;
}

static double pbf_spiky_grad_len(int dim, double h, double r)
{
    if (r <= 0.0 || r >= h)
        return 0.0;
    double k = dim == 3 ? 45.0 / (M_PI * pow(h, 6)) : 30.0 / (M_PI * pow(h, 5));
    return k * (h - r) * (h - r);
}

// Lattice sums around a particle of a full lattice of spacing s: sum W and
// sum |grad W|^2 (neighbours only).
static void lattice_sums(int dim, double h, double s, double *sum_w, double *sum_grad2)
{
    int n = (int)ceil(h / s) + 1;
    *sum_w = 0.0;
    *sum_grad2 = 0.0;
    for (int k = (dim == 3 ? -n : 0); k <= (dim == 3 ? n : 0); k++)
        for (int j = -n; j <= n; j++)
            for (int i = -n; i <= n; i++) {
                double r2 = s * s * (double)(i * i + j * j + k * k);
                *sum_w += pbf_poly6(dim, h, r2);
                double g = pbf_spiky_grad_len(dim, h, sqrt(r2));
                *sum_grad2 += g * g;
            }
}

// Ranges written as floats were float ranges before the table: the values
// accepted stay exactly the same.
static const cs_scene_key pbf_keys[] = {
    {"iterations", CS_KEY_UINT, CS_KEY_AT(cs_pbf_params, iterations), 1, 64, CS_KEY_LIVE,
     .def = "4, more when a substep's fall is large: ceil(4 dt √(|g|/h) / 0.06)",
     .help = "constraint iterations per substep"},
    {"relaxation", CS_KEY_NUMBER, CS_KEY_AT(cs_pbf_params, relaxation), 0.0f, 1e30f, CS_KEY_LIVE, .def = "0.01",
     .help = "ε = relaxation × D0 added to the λ denominator (relative; above 100 is refused)"},
    {"scorr_k", CS_KEY_NUMBER, CS_KEY_AT(cs_pbf_params, scorr_k), 0.0f, 1e30f, CS_KEY_LIVE, .def = "0.04",
     .help = "artificial pressure s_corr = −k (W(r) / W(Δq·h))ⁿ, k relative to D0 (above 10 is refused)"},
    {"scorr_n", CS_KEY_UINT, CS_KEY_AT(cs_pbf_params, scorr_n), 1, 16, CS_KEY_LIVE, .def = "4",
     .help = "the exponent n of s_corr"},
    {"scorr_dq", CS_KEY_NUMBER, CS_KEY_AT(cs_pbf_params, scorr_dq), 0.01f, 0.99f, CS_KEY_LIVE, .def = "0.2",
     .help = "Δq of s_corr, in units of h"},
    {"vorticity", CS_KEY_NUMBER, CS_KEY_AT(cs_pbf_params, vorticity), 0.0f, 1e6f, CS_KEY_LIVE, .def = "0",
     .help = "vorticity confinement strength ε"},
    {"xsph", CS_KEY_NUMBER, CS_KEY_AT(cs_pbf_params, xsph), 0.0f, 1.0f, CS_KEY_LIVE, .def = "0.03",
     .help = "XSPH viscosity c"},
    {"scorr_background", CS_KEY_NUMBER, CS_KEY_AT(cs_pbf_params, scorr_background), 0.0f, 1.0f, CS_KEY_LIVE,
     .def = "1; 0 in a scene with free bodies",
     .help = "how much of s_corr acts between particles at the lattice spacing: 1 the paper's term (a "
             "background pressure that orders a pool but lifts floating bodies), 0 only pairs closer than "
             "the spacing are pushed (bodies float at their density; deep pools jitter). The default is 0 "
             "when the scene has a body that is neither static nor on a path, else 1"},
};

const cs_scene_key_block cs_pbf_keys = {
    .path = "fluids[].pbf",
    .what = "Position Based Fluids' block (a fluid with \"solver\": \"pbf\"); the solver holds what it fills "
            "(cs_pbf_params, fluid_pbf.h).",
    .keys = pbf_keys,
    .count = CS_ARRAY_COUNT(pbf_keys),
};

// A body that neither is static nor follows a path: one the fluid can float.
static bool has_free_bodies(const cs_scene *scene)
{
    for (uint32_t k = 0; k < scene->body_count; k++)
        if (!scene->bodies[k].is_static && !scene->bodies[k].path_count)
            return true;
    return false;
}

// Constraint iterations a substep when the block leaves them out (issue
// 44). Each Jacobi iteration carries a correction about one neighbour
// further, and the load to carry grows with the substep's fall g dt^2 / h:
// 4 iterations hold a pool at rest up to dt sqrt(g / h) = 0.06 (test_walls'
// pools, dt 1/240 s at h 0.05: 0.41% of sqrt(gH)), but scenes/rest_box_3d
// at dt 1/120 s (0.117) jittered at 1.03% with them; 6 or 8 iterations
// there rest at 0.32% / 0.30% (llvmpipe, rms over 7-10 s). So the count
// grows like dt sqrt(g / h) past that point; below it stays 4, which the
// dam-break fronts and floating bodies were measured with.
#define PBF_ITERATIONS 4
#define PBF_ITERATIONS_FALL 0.06 // dt sqrt(g / h) that PBF_ITERATIONS still hold at rest

static uint32_t default_iterations(const cs_scene *scene)
{
    double g = sqrt((double)scene->gravity[0] * scene->gravity[0] + (double)scene->gravity[1] * scene->gravity[1] +
                    (double)scene->gravity[2] * scene->gravity[2]);
    double fall = scene->smoothing_radius > 0.0f ? scene->dt * sqrt(g / scene->smoothing_radius) : 0.0;
    double wanted = ceil(PBF_ITERATIONS * fall / PBF_ITERATIONS_FALL - 1e-9);
    return (uint32_t)fmin(fmax(wanted, PBF_ITERATIONS), 64.0);
}

bool cs_pbf_params_read(const cs_scene *scene, cs_pbf_params *p, cs_error *err)
{
    *p = (cs_pbf_params){
        .iterations = default_iterations(scene),
        .relaxation = 0.01f,
        .scorr_k = 0.04f,
        .scorr_n = 4,
        .scorr_dq = 0.2f,
        .vorticity = 0.0f,
        .xsph = 0.03f,
        // The paper's term without free bodies; with them 0, or they float
        // off Archimedes by its background (the header comment).
        .scorr_background = has_free_bodies(scene) ? 0.0f : 1.0f,
    };
    const cJSON *o = scene->solver_params;
    if (!o)
        return true;
    // Row by row: relaxation and scorr_k get their own message before the rest.
    const cs_scene_key_block *keys = &cs_pbf_keys;
    bool ok = cs_scene_keys_check(scene, o, "pbf", keys, err) &&
              cs_scene_key_read_named(scene, o, "pbf", keys, "iterations", p, err) &&
              cs_scene_key_read_named(scene, o, "pbf", keys, "relaxation", p, err) &&
              cs_scene_key_read_named(scene, o, "pbf", keys, "scorr_k", p, err);
    if (!ok)
        return false;
    // Both are relative to D0 here (see the header comment); the paper's
    // absolute values (epsilon ~ 600, k ~ 0.001-0.1) mean something else.
    const char *where = scene->path[0] ? scene->path : scene->name;
    if (p->relaxation > 100.0f)
        return cs_fail(err, "%s: pbf.relaxation: %g is too soft: cistern's relaxation is relative to the constraint "
                            "stiffness of the particle lattice (epsilon = relaxation * D0, docs/scenes.md \"pbf\"); "
                            "use 0.01-0.1 (a paper-style absolute epsilon does not carry over)",
                       where, (double)p->relaxation);
    if (p->scorr_k > 10.0f)
        return cs_fail(err, "%s: pbf.scorr_k: %g is too strong: cistern's scorr_k is relative (s_corr acts like a "
                            "density error of scorr_k at distance dq, docs/scenes.md \"pbf\"); use 0-0.2",
                       where, (double)p->scorr_k);
    return cs_scene_key_read_named(scene, o, "pbf", keys, "scorr_n", p, err) &&
           cs_scene_key_read_named(scene, o, "pbf", keys, "scorr_dq", p, err) &&
           cs_scene_key_read_named(scene, o, "pbf", keys, "vorticity", p, err) &&
           cs_scene_key_read_named(scene, o, "pbf", keys, "xsph", p, err) &&
           cs_scene_key_read_named(scene, o, "pbf", keys, "scorr_background", p, err);
}

// The real-time mode's iterations replace the block's (scene.h
// cs_realtime_options; 0 keeps them). After the block is read, so a file
// with no "pbf" block gets them too.
static void use_realtime_iterations(const cs_scene *scene, cs_pbf_params *p)
{
    if (scene->realtime.enabled && scene->realtime.iterations > 0)
        p->iterations = scene->realtime.iterations;
}

static void pbf_destroy(void *state)
{
    cs_pbf *pbf = state;
    if (!pbf)
        return;
    if (pbf->nb.capacity)
        cs_neighbours_destroy(pbf->fluid.ctx, &pbf->nb);
    cs_fluid_destroy(&pbf->fluid);
    free(pbf);
}

// The push constants every pass takes, from pbf->params, the lattice's D0
// and the kernel radius (create, and a panel's edits: pbf_retune).
static void derive_push(cs_pbf *pbf)
{
    const cs_pbf_params *params = &pbf->params;
    double h = pbf->fluid.scene->smoothing_radius;
    double volume = 1.0 / pbf->lattice_density; // m / rho0, the same for every material
    double dq = params->scorr_dq * h;
    double w_dq = pbf_poly6(pbf->fluid.dim, h, dq * dq);
    // s_corr's (W / W(dq))^n between lattice neighbours, the part the
    // background leaves out (shaders/pbf/delta.comp).
    double lattice_term = pow(pbf_poly6(pbf->fluid.dim, h, pbf->spacing * pbf->spacing) / w_dq, params->scorr_n);
    double rest = (1.0 - params->scorr_background) * lattice_term;
    pbf->push = (cs_pbf_push){
        .scorr_rest = (float)rest,
        .solver = {(float)(params->relaxation * pbf->d0), (float)(params->scorr_k / pbf->d0), (float)(1.0 / w_dq),
                   (float)params->scorr_n},
        .post = {params->vorticity, params->xsph, (float)volume, (float)(0.25 * PBF_SKIN * PBF_SKIN * h * h)},
    };
}

// PBF derives each particle's mass from the lattice (the header comment),
// so a material's "mass" has no effect. One that states the lattice cell's
// mass, rest_density x particle_spacing^dim (the parser's default), says
// nothing PBF does not do and passes, so scenes that spell it out keep
// loading; any other value would be silently ignored, so it is refused.
static bool check_masses(const cs_scene *scene, cs_error *err)
{
    double cell = pow(scene->particle_spacing, scene->dim);
    for (uint32_t m = 0; m < scene->material_count && cell > 0.0; m++) {
        const cs_material *mat = &scene->materials[m];
        double lattice = (double)mat->rest_density * cell;
        if (fabs((double)mat->mass - lattice) <= 1e-5 * lattice)
            continue;
        char path[32];
        snprintf(path, sizeof path, "materials[%u]", m);
        return cs_scene_fail(scene, err, path, "mass",
                             "PBF does not use a material's mass (got %g): it derives each particle's from "
                             "rest_density and particle_spacing, so that a block starts at rest density; remove "
                             "\"mass\" and set rest_density (a mass of rest_density x particle_spacing^%d = %g is "
                             "accepted as saying the same)", (double)mat->mass, scene->dim, lattice);
    }
    return true;
}

static bool pbf_create(cs_context *ctx, const cs_scene *scene, void **state, cs_error *err)
{
    cs_pbf_params params;
    if (!check_masses(scene, err) || !cs_pbf_params_read(scene, &params, err))
        return false;
    use_realtime_iterations(scene, &params);
    cs_pbf *pbf = calloc(1, sizeof *pbf);
    CS_ASSERT(pbf, "out of host memory");
    pbf->params = params;
    cs_fluid_desc desc = {
        .solver = "pbf",
        .uses_predicted = true,
        .arrays = {[PBF_X_LAMBDA] = {"pbf x* lambda", 16},
                   [PBF_CURL] = {"pbf curl", 16},
                   [PBF_VEL_CURL] = {"pbf velocity |curl|", 16}},
    };
    if (!cs_fluid_create(ctx, scene, &desc, &pbf->fluid, err)) {
        free(pbf);
        return false;
    }
    cs_fluid *f = &pbf->fluid;
    // With moving bodies, delta and velocity hand them what their pushes
    // and reflections gave the particles (pbf_impulse.glsl).
    static const cs_define with_impulses[] = {{"WITH_IMPULSES", "1"}, {NULL, NULL}};
    const cs_define *impulses = f->impulse_slots ? with_impulses : NULL;
    bool ok = cs_fluid_program(f, "pbf/lambda.comp", NULL, &pbf->lambda, err) &&
              cs_fluid_program(f, "pbf/delta.comp", impulses, &pbf->delta, err) &&
              cs_fluid_program(f, "pbf/velocity.comp", impulses, &pbf->velocity, err) &&
              cs_fluid_program(f, "pbf/curl.comp", NULL, &pbf->curl, err) &&
              cs_fluid_program(f, "pbf/confine.comp", NULL, &pbf->confine, err);
    if (!ok) {
        pbf_destroy(pbf);
        return false;
    }

    // Mass from the lattice (see the header comment), then D0 with that mass.
    double h = scene->smoothing_radius;
    double s = scene->particle_spacing > 0.0f ? scene->particle_spacing : h * 0.5;
    double sum_w, sum_grad2;
    lattice_sums(f->dim, h, s, &sum_w, &sum_grad2);
    pbf->lattice_density = sum_w;
    pbf->spacing = s;

    // Neighbour list: sized from the lattice count within the list radius.
    if (!cs_fluid_create_neighbours(f, 1.0 + PBF_SKIN, PBF_LIST_SLACK, &pbf->nb, err)) {
        pbf_destroy(pbf);
        return false;
    }
    double volume = 1.0 / sum_w; // m / rho0, the same for every material
    pbf->d0 = volume * volume * sum_grad2;
    for (uint32_t m = 0; m < scene->material_count; m++) {
        double rho0 = scene->materials[m].rest_density;
        f->params.materials[m] = (vec4){(float)(rho0 * volume), (float)rho0, (float)volume, 0.0f};
    }
    cs_fluid_upload_params(f);

    derive_push(pbf);
    *state = pbf;
    return true;
}

// The panel's edits (sim.h): pbf's block is pbf->params itself; gravity and
// restitution come from the fluid's scene. The same derivation as create.
static void *pbf_key_block(void *state, const cs_scene_key_block *block)
{
    cs_pbf *pbf = state;
    return block == &cs_pbf_keys ? &pbf->params : NULL;
}

static bool pbf_retune(void *state, const cs_scene *scene, cs_error *err)
{
    (void)scene; // the fluid holds it
    cs_pbf *pbf = state;
    const char *where = pbf->fluid.scene->path[0] ? pbf->fluid.scene->path : pbf->fluid.scene->name;
    // The block's checks beyond its rows' ranges (cs_pbf_params_read).
    if (pbf->params.relaxation > 100.0f)
        return cs_fail(err, "%s: pbf.relaxation: %g is too soft (at most 100)", where, (double)pbf->params.relaxation);
    if (pbf->params.scorr_k > 10.0f)
        return cs_fail(err, "%s: pbf.scorr_k: %g is too strong (at most 10)", where, (double)pbf->params.scorr_k);
    cs_fluid_retune(&pbf->fluid, 1);
    cs_fluid_upload_params(&pbf->fluid);
    derive_push(pbf);
    return true;
}

// One pass per constraint step ("pbf: lambda", "pbf: delta"), so a capture
// and the bench show every iteration.
static void pbf_record_substep(cs_pbf *pbf, cs_recorder *rec)
{
    cs_fluid *f = &pbf->fluid;
    cs_fluid_record_emit(f, rec);
    cs_fluid_record_predict_grid(f, rec);
    cs_neighbours_record_build(rec, &pbf->nb, &f->grid, cs_fluid_pred(f), f->count);

    cs_pbf_push pc = pbf->push;
    pc.count = f->count;
    cs_buffer *nb_counts = &pbf->nb.counts, *nb_list = &pbf->nb.list, *nb_state = &pbf->nb.state, *keys = &f->grid.keys;
    cs_buffer *x_lambda = &f->arrays[PBF_X_LAMBDA];
    uint32_t n = f->count;
    for (uint32_t it = 0; it < pbf->params.iterations; it++) {
        pc.slot = it; // the predicted positions after `it` delta steps
        cs_pass_begin(rec, "pbf: lambda");
        cs_fluid_dispatch(&pbf->fluid, rec, pbf->lambda, &(cs_dispatch_desc){
            .buffers = {&f->params_buffer, &f->grid.ranges, cs_fluid_pred(f), cs_fluid_mat(f), x_lambda, &f->densities,
                        nb_counts, nb_list, nb_state, keys, &pbf->nb.use},
            .push = &pc, .push_size = sizeof pc, .threads = {n}});
        cs_barrier_compute(rec);
        cs_pass_end(rec);
        cs_pass_begin(rec, "pbf: delta");
        cs_fluid_dispatch(&pbf->fluid, rec, pbf->delta, &(cs_dispatch_desc){
            .buffers = {&f->params_buffer, &f->grid.ranges, cs_fluid_pred(f), cs_fluid_mat(f), x_lambda,
                        cs_fluid_pred_alt(f), nb_counts, nb_list, nb_state, keys, &pbf->nb.anchor, &pbf->nb.use,
                        f->impulse_slots ? &f->body_impulses : NULL, [CS_LEVEL_FIELD_BINDING] = &f->level_field},
            .push = &pc, .push_size = sizeof pc, .threads = {n}});
        cs_barrier_compute(rec);
        cs_fluid_swap_pred(f);
        cs_pass_end(rec);
    }
    pc.slot = pbf->params.iterations; // the final predicted positions

    cs_pass_begin(rec, "pbf: velocity");
    cs_fluid_dispatch(&pbf->fluid, rec, pbf->velocity, &(cs_dispatch_desc){
        .buffers = {&f->params_buffer, cs_fluid_pos(f), cs_fluid_pred(f), cs_fluid_vel(f),
                    f->impulse_slots ? &f->body_impulses : NULL, [CS_LEVEL_FIELD_BINDING] = &f->level_field},
        .push = &pc, .push_size = sizeof pc, .threads = {n}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);

    cs_pass_begin(rec, "pbf: vorticity+xsph");
    cs_buffer *curl = &f->arrays[PBF_CURL];
    // Confine reads each neighbour's velocity and, with vorticity, |omega|:
    // curl packs both into one record, so confine reads x* and that record
    // (without vorticity, the velocities, whose w confine then ignores).
    cs_buffer *confine_velocities = cs_fluid_vel(f);
    if (pbf->params.vorticity > 0.0f) {
        cs_fluid_dispatch(&pbf->fluid, rec, pbf->curl, &(cs_dispatch_desc){
            .buffers = {&f->params_buffer, &f->grid.ranges, cs_fluid_pred(f), cs_fluid_vel(f), curl, nb_counts, nb_list,
                        nb_state, keys, &f->arrays[PBF_VEL_CURL]},
            .push = &pc, .push_size = sizeof pc, .threads = {n}});
        cs_barrier_compute(rec);
        confine_velocities = &f->arrays[PBF_VEL_CURL];
    }
    cs_fluid_dispatch(&pbf->fluid, rec, pbf->confine, &(cs_dispatch_desc){
        .buffers = {&f->params_buffer, &f->grid.ranges, cs_fluid_pred(f), confine_velocities, curl, cs_fluid_vel_alt(f),
                    cs_fluid_pos(f), nb_counts, nb_list, nb_state, keys},
        .push = &pc, .push_size = sizeof pc, .threads = {n}});
    cs_barrier_compute(rec);
    cs_fluid_swap_vel(f);
    cs_pass_end(rec);

    cs_fluid_end_substep(f);
}

static void pbf_record_substep_op(void *state, cs_recorder *rec, const cs_substep *step)
{
    cs_fluid_record_pointer(&((cs_pbf *)state)->fluid, rec, step);
    pbf_record_substep(state, rec);
}

static void pbf_stats(void *state, cs_sim_stats *out)
{
    cs_pbf *pbf = state;
    cs_fluid_stats(&pbf->fluid, out);
}

static void pbf_record_stats(void *state, cs_recorder *rec) { cs_fluid_record_stats(&((cs_pbf *)state)->fluid, rec); }
static void pbf_read_stats(void *state, uint32_t frame_slot, cs_sim_stats *out)
{
    cs_fluid_read_stats(&((cs_pbf *)state)->fluid, frame_slot, out);
}

static void pbf_particles(void *state, cs_particle_view *out)
{
    cs_pbf *pbf = state;
    cs_fluid_particles(&pbf->fluid, out);
}

// PBF: bodies push its particles (collide on the predicted positions, the
// restitution on the velocities), and with moving bodies the particles push
// back: every push dx in "pbf: delta" becomes the velocity change dx / dt,
// and the restitution's dv in "pbf: velocity"; each hands the body -m dv
// (pbf_impulse.glsl).
static void pbf_bodies(void *state, cs_body_link *out)
{
    cs_pbf *pbf = state;
    cs_fluid_body_link(&pbf->fluid, out);
}

// PBF's mass is rho0 / sum_lattice W at particle_spacing (pbf_create): a
// block on another spacing starts at rho0 sum W(spacing) / sum W(particle_spacing).
static bool pbf_lattice_density(const cs_scene *scene, uint32_t material, double spacing, double *rho,
                                double *fitting_mass)
{
    double h = scene->smoothing_radius;
    double s = scene->particle_spacing > 0.0f ? scene->particle_spacing : h * 0.5;
    double sum_w, sum_w_block, unused;
    lattice_sums(scene->dim, h, s, &sum_w, &unused);
    lattice_sums(scene->dim, h, spacing, &sum_w_block, &unused);
    *rho = scene->materials[material].rest_density * sum_w_block / sum_w;
    *fitting_mass = 0.0; // the scene's mass is not used
    return true;
}

static bool pbf_level(void *state, const cs_level_field *field, cs_error *err)
{
    return cs_fluid_set_level(&((cs_pbf *)state)->fluid, field, err);
}

static uint32_t ops_float_buffers(void *state, cs_float_buffer *out, uint32_t max)
{
    return cs_fluid_float_buffers(&((cs_pbf *)state)->fluid, out, max);
}

// What a checkpoint saves (sim.h state): the particle base. The neighbour
// lists are not saved: every grid build makes them again from the
// positions before anything reads them (grid.h), and the slots a list
// leaves unused hold whatever the fill's scratch left, not the same bits
// from run to run.
static uint32_t ops_state(void *state, cs_state_entry *out, uint32_t max)
{
    uint32_t n = 0;
    cs_fluid_state(&((cs_pbf *)state)->fluid, out, &n, max);
    return n;
}

// PBF: the rest density (the mass follows from it) and the colour.
const cs_sim_ops cs_pbf_ops = {
    .state = ops_state,
    .float_buffers = ops_float_buffers,
    .solver = "pbf",
    .keys = (const cs_scene_key_block *const[]){&cs_pbf_keys, NULL},
    .material_keys = (const char *const[]){"name", "mass", "rest_density", "color", "absorption", NULL},
    .key_block = pbf_key_block,
    .retune = pbf_retune,
    .summary = "Position Based Fluids (Macklin & Mueller 2013): density constraints solved on positions, 2D/3D",
    .create = pbf_create,
    .destroy = pbf_destroy,
    .record_substep = pbf_record_substep_op,
    .stats = pbf_stats,
    .record_stats = pbf_record_stats,
    .read_stats = pbf_read_stats,
    .particles = pbf_particles,
    .lattice_density = pbf_lattice_density,
    .bodies = pbf_bodies,
    .level = pbf_level,
};

// For tests: the fluid inside a PBF state, and one substep.
cs_fluid *cs_pbf_fluid(void *state)
{
    return &((cs_pbf *)state)->fluid;
}

void cs_pbf_get_constants(void *state, cs_pbf_constants *out)
{
    cs_pbf *pbf = state;
    *out = (cs_pbf_constants){
        .iterations = pbf->params.iterations,
        .lattice_density = pbf->lattice_density,
        .d0 = pbf->d0,
        .epsilon = pbf->push.solver.x,
        .scorr_scale = pbf->push.solver.y,
        .inv_w_dq = pbf->push.solver.z,
        .scorr_n = pbf->push.solver.w,
        .scorr_rest = pbf->push.scorr_rest,
        .vorticity = pbf->push.post.x,
        .xsph = pbf->push.post.y,
    };
}

void cs_pbf_record_substep(void *state, cs_recorder *rec)
{
    pbf_record_substep(state, rec);
}

void cs_pbf_set_neighbour_lists(void *state, bool on)
{
    cs_pbf *pbf = state;
    // No slots: every list reads as incomplete (a particle counts itself), so
    // every consumer walks the cells.
    uint32_t slots = on ? pbf->nb.slots : 0;
    cs_buffer_upload(pbf->fluid.ctx, &pbf->nb.state, &slots, 4, CS_NB_SLOTS * 4);
}

cs_neighbours *cs_pbf_neighbours(void *state)
{
    return &((cs_pbf *)state)->nb;
}
