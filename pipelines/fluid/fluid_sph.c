// fluid_sph.c — Clavet double-density relaxation on the fluid base (see
// fluid_sph.h for the substep and the Jacobi-vs-Gauss-Seidel note).
#include "fluid_sph.h"

#include "../../shaders/grid/grid_shared.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

double cs_sph_kernel_norm(int dim, int n, double h) { return cs_clavet_kernel_norm(dim, n, h); }

// seed_compatible: seed 000's own viscosity and walls (fluid_sph.h). Its
// walls replace the mirrors and the base's collide pass, which is also the
// only thing that pushes fluid out of bodies: so no bodies, no mirrors.
static bool parse_seed_compatible(const cs_scene *scene, const cJSON *block, cs_sph *s, cs_error *err)
{
    if (cJSON_GetObjectItemCaseSensitive(block, "wall_mirror") && s->wall_mirror)
        return cs_fail(err, "%s: sph.wall_mirror: seed_compatible walls are seed 000's velocity push, not mirrors "
                            "(leave wall_mirror out or false)", scene->path);
    if (scene->body_count)
        return cs_fail(err, "%s: sph.seed_compatible: seed 000's walls do not see bodies (the scene has %u)",
                       scene->path, scene->body_count);
    s->wall_mirror = false;
    return true;
}

// The "sph" block: which kernel pair ("seed" is seed 000's (1-q)^3 / (1-q)^4,
// which it found less compressible at the same time step than Clavet's
// (1-q)^2 / (1-q)^3; the scenes' stiffnesses are tuned for it) and whether
// walls push back through mirror particles.
// The block's rows (scene_keys.h); kernel keeps its code (its message says
// what each kernel is, and it sets an exponent).
static const cs_scene_key sph_keys[] = {
    {"kernel", CS_KEY_ENUM, .flags = CS_KEY_BY_CODE, .choices = "seed|clavet", .def = "\"seed\"",
     .help = "seed: (1−q)³ / (1−q)⁴ (seed 000); clavet: (1−q)² / (1−q)³"},
    {"wall_mirror", CS_KEY_BOOL, CS_KEY_AT(cs_sph, wall_mirror), .def = "true",
     .help = "walls push back through mirror particles (a virtual neighbour at 2d when d < h/2)"},
    {"split", CS_KEY_UINT, CS_KEY_AT(cs_sph, split), 1, 64, .def = "1",
     .help = "each scene substep runs as that many solver substeps of dt / split"},
    {"seed_compatible", CS_KEY_BOOL, CS_KEY_AT(cs_sph, seed_compatible), .def = "false",
     .help = "seed 000's own viscosity and walls; refuses wall_mirror: true and bodies"},
};

const cs_scene_key_block cs_sph_keys = {
    .path = "fluids[].sph",
    .what = "Clavet SPH's block (double-density relaxation); the solver holds what it fills (cs_sph, fluid_sph.h). "
            "Its main parameters are the materials' stiffnesses, viscosities and surface tension.",
    .keys = sph_keys,
    .count = CS_ARRAY_COUNT(sph_keys),
};

bool cs_sph_read_block(const cs_scene *scene, cs_sph *s, cs_error *err)
{
    const cs_scene_key_block *keys = &cs_sph_keys;
    const cJSON *block = scene->solver_params;
    int *exponent = &s->exponent;
    *exponent = 3;
    s->wall_mirror = true;
    s->split = 1;
    s->seed_compatible = false;
    if (!block)
        return true;
    if (!cs_scene_keys_check(scene, block, "sph", keys, err) ||
        !cs_scene_key_read_named(scene, block, "sph", keys, "seed_compatible", s, err) ||
        !cs_scene_key_read_named(scene, block, "sph", keys, "wall_mirror", s, err) ||
        !cs_scene_key_read_named(scene, block, "sph", keys, "split", s, err))
        return false;
    if (s->seed_compatible && !parse_seed_compatible(scene, block, s, err))
        return false;
    const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(block, "kernel");
    if (kernel) {
        const char *v = cJSON_IsString(kernel) ? kernel->valuestring : NULL;
        if (v && strcmp(v, "seed") == 0)
            *exponent = 3;
        else if (v && strcmp(v, "clavet") == 0)
            *exponent = 2;
        else
            return cs_fail(err, "%s: sph.kernel: must be \"seed\" ((1-q)^3 and (1-q)^4, seed 000) or \"clavet\" "
                                "((1-q)^2 and (1-q)^3, Clavet et al. 2005)",
                           scene->path);
    }
    return true;
}

static void fill_params(cs_sph *s)
{
    const cs_scene *sc = s->fluid.scene;
    double h = sc->smoothing_radius;
    double dt = s->fluid.dt;
    cs_sph_params *p = &s->params;
    memset(p, 0, sizeof *p);
    p->kernel = (vec4){(float)cs_sph_kernel_norm(sc->dim, s->exponent, h),
                       (float)cs_sph_kernel_norm(sc->dim, s->exponent + 1, h), (float)(1e-6 * h),
                       (float)(dt * dt)};
    p->options = (uvec4){s->wall_mirror ? 1u : 0u, s->seed_compatible ? 1u : 0u, 0, 0};
    for (uint32_t m = 0; m < sc->material_count && m < CS_FLUID_MAX_MATERIALS; m++) {
        const cs_material *mat = &sc->materials[m];
        p->materials[m] = (cs_sph_material){
            .pressure = {mat->stiffness, mat->near_stiffness, mat->rest_density, mat->mass},
            // Seed 000's cohesion is a displacement per substep of its dt:
            // split substeps take their share of it.
            .viscosity = {mat->viscosity_linear, mat->viscosity_quadratic, mat->surface_tension / (float)s->split,
                          0.0f},
        };
    }
}

// 2D leaves z of x* free, and one material needs no material per neighbour:
// x*, y*, P and P_near fit one vec4. 3D, or 2D with several materials (the
// material decides cohesion), keep x* (material in w) and the vec2.
bool cs_sph_relax_record(int dim, uint32_t material_count) { return dim == 2 && material_count <= 1; }

// Neighbour lists. Density and relax both loop over the neighbours of x*,
// and nothing moves x* between them (density writes x_visc, pressures and
// densities to other arrays; collide and emit come after relax and before
// the next predict), so one list built on x* after the grid build serves
// both, with no skin and a radius a hair above h (fluid.h,
// cs_fluid_create_exact_neighbours): the loops keep their own r < h test,
// so they sum exactly the walk's pairs in the walk's order, the same bits.
// On llvmpipe a masked branch still runs, so
// the walk pays a loop body for each of its ~2.9x (2D; 3D ~6x) more
// candidates than lie within h; the list pays one light walk instead.
// When to use them, measured on llvmpipe (docs/benchmarks.md, "Neighbour
// lists for Clavet SPH"): the list's build walks every candidate once
// (one vec4 load and one store each), which costs about what a 2D loop
// reading one array per candidate saves. So: on in 3D (~6x more
// candidates than neighbours: a step 1.35-1.46x faster) and in 2D when
// relax reads two arrays per candidate (several materials: seed 000's
// scene takes ~9% less CPU); off in 2D with one material, where relax reads
// its one-array record (cs_sph_relax_record: even at 64k the build costs
// what the loops save, and at 3000 particles it is one dispatch more).
// CISTERN_SPH_LISTS=on|off forces either; another value is refused.
static bool lists_wanted(const cs_context *ctx, int dim, uint32_t material_count, bool *wanted, cs_error *err)
{
    return cs_fluid_lists_wanted(ctx, "CISTERN_SPH_LISTS", !cs_sph_relax_record(dim, material_count), wanted, err);
}

// Density and relax as one variant: the cell walk (lists = 0) or the list
// loop (1). Each is compiled the first time it is asked for.
static bool create_programs(cs_sph *s, bool lists, cs_error *err)
{
    if (s->density[lists].value && s->relax[lists].value)
        return true;
    char exponent[2] = {(char)('0' + s->exponent), 0};
    const cs_define defines[] = {{"SPH_EXPONENT", exponent}, {"NB_LISTS", lists ? "1" : "0"}, {NULL, NULL}};
    return cs_fluid_program(&s->fluid, "sph/density.comp", defines, &s->density[lists], err) &&
           cs_fluid_program(&s->fluid, "sph/relax.comp", defines, &s->relax[lists], err);
}

bool cs_sph_set_neighbour_lists(cs_sph *s, bool on, cs_error *err)
{
    if (!create_programs(s, on, err))
        return false;
    if (on && !s->nb.capacity && !cs_fluid_create_exact_neighbours(&s->fluid, &s->nb, err))
        return false;
    s->lists = on;
    return true;
}

bool cs_sph_create(cs_context *ctx, const cs_scene *scene, cs_sph *s, cs_error *err)
{
    memset(s, 0, sizeof *s);
    if (!cs_sph_read_block(scene, s, err))
        return false;
    cs_fluid_desc desc = {
        .solver = "sph",
        .dt_split = s->split, // the base's dt: scene dt / split
        .uses_predicted = true,
        .predicted_w_material = true, // density and relax pick per-material values from it
        .arrays = {[CS_SPH_ARRAY_PRESSURES] = {.name = "sph pressures",
                                               .stride = cs_sph_relax_record(scene->dim, scene->material_count) ? 16 : 8}},
    };
    if (!cs_fluid_create(ctx, scene, &desc, &s->fluid, err))
        return false;
    bool ok = cs_buffer_create(ctx, &(cs_buffer_desc){.name = "sph params", .size = sizeof(cs_sph_params)},
                               &s->params_buffer, err);
    bool lists = false;
    ok = ok && lists_wanted(ctx, scene->dim, scene->material_count, &lists, err);
    // A shader that does not compile fails the scene; lists the device
    // cannot hold only cost speed (cs_fluid_try_exact_neighbours).
    ok = ok && (!lists || create_programs(s, true, err));
    if (ok)
        cs_fluid_try_exact_neighbours(&s->fluid, &s->nb, &lists);
    ok = ok && cs_sph_set_neighbour_lists(s, lists, err);
    if (!ok) {
        cs_sph_destroy(s);
        return false;
    }
    fill_params(s);
    cs_buffer_upload(ctx, &s->params_buffer, &s->params, sizeof s->params, 0);
    return true;
}

void cs_sph_destroy(cs_sph *s)
{
    cs_context *ctx = s->fluid.ctx;
    if (!ctx)
        return;
    if (s->params_buffer.buffer)
        cs_buffer_destroy(ctx, &s->params_buffer);
    if (s->nb.capacity)
        cs_neighbours_destroy(ctx, &s->nb);
    cs_fluid_destroy(&s->fluid);
    memset(s, 0, sizeof *s);
}

void cs_sph_record_density(cs_sph *s, cs_recorder *rec)
{
    cs_fluid *f = &s->fluid;
    cs_sph_push pc = {.count = f->count};
    cs_dispatch_desc dd = {
        .buffers = {&f->params_buffer, &s->params_buffer, &f->grid.ranges, cs_fluid_pred(f), cs_fluid_vel(f),
                    cs_fluid_mat(f), &f->densities, &f->arrays[CS_SPH_ARRAY_PRESSURES], cs_fluid_pred_alt(f)},
        .push = &pc, .push_size = sizeof pc, .threads = {f->count}};
    if (s->lists) {
        cs_neighbours_record_build(rec, &s->nb, &f->grid, cs_fluid_pred(f), f->count);
        cs_neighbours_bind(&s->nb, &dd, 9);
    }
    cs_pass_begin(rec, "sph: density + viscosity");
    cs_fluid_dispatch(&s->fluid, rec, s->density[s->lists], &dd);
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

void cs_sph_record_relax(cs_sph *s, cs_recorder *rec)
{
    cs_fluid *f = &s->fluid;
    cs_sph_push pc = {.count = f->count};
    cs_dispatch_desc dd = {
        .buffers = {&f->params_buffer, &s->params_buffer, &f->grid.ranges, cs_fluid_pred(f), cs_fluid_mat(f),
                    &f->arrays[CS_SPH_ARRAY_PRESSURES], cs_fluid_pos(f), cs_fluid_pos_alt(f), cs_fluid_vel_alt(f),
                    cs_fluid_pred_alt(f)},
        .push = &pc, .push_size = sizeof pc, .threads = {f->count}};
    if (s->lists)
        cs_neighbours_bind(&s->nb, &dd, 10);
    cs_pass_begin(rec, "sph: relax");
    cs_fluid_dispatch(&s->fluid, rec, s->relax[s->lists], &dd);
    cs_barrier_compute(rec);
    cs_pass_end(rec);
    cs_fluid_swap_pos(f);
    cs_fluid_swap_vel(f);
}

void cs_sph_record_substep(cs_sph *s, cs_recorder *rec)
{
    cs_fluid *f = &s->fluid;
    cs_fluid_record_emit(f, rec);
    if (f->count) {
        cs_fluid_record_predict_grid(f, rec);
        cs_sph_record_density(s, rec);
        cs_sph_record_relax(s, rec);
        // Seed walls act in "sph: relax" (a velocity push): no clamp here.
        if (!s->seed_compatible)
            cs_fluid_record_collide(f, rec, cs_fluid_pos(f), cs_fluid_vel(f));
    }
    cs_fluid_end_substep(f);
}

// ---- cs_sim_ops ----

// Per-substep numbers past which a Clavet fluid blows up: the pressure's
// sound number c dt / h on the lattice (scene_clavet.c; the defaults use
// 0.25, a 2D column at 2 spacings blew up at 0.3 without near pressure, a
// 3D one at 0.4), the near pressure's k_hat = dt^2 k_near rho0 N_(n+1) /
// (m h) and kappa_hat = kappa N_n (issue 31: a 3D column blew up at
// k_hat 0.3, moved a particle one h a substep at kappa_hat 1).
#define SOUND_NUMBER_UNSTABLE 0.3
#define K_HAT_UNSTABLE 0.25
#define KAPPA_HAT_UNSTABLE 0.1

// A given stiffness or cohesion far past what the time step holds: said on
// stderr, once, with the value the default would take (nothing warned
// before, and a 3D scene with the seed's 2D values exploded silently).
static void warn_unstable(const cs_sph *s)
{
    const cs_scene *sc = s->fluid.scene;
    double h = sc->smoothing_radius, dt = s->fluid.dt;
    double norm = cs_sph_kernel_norm(sc->dim, s->exponent, h), near = cs_sph_kernel_norm(sc->dim, s->exponent + 1, h);
    for (uint32_t m = 0; m < sc->material_count; m++) {
        const cs_material *mat = &sc->materials[m];
        double per = dt * dt * mat->rest_density / ((double)mat->mass * h);
        double sound = cs_clavet_sound_number(sc, mat->stiffness), near_hat = per * mat->near_stiffness * near;
        double kappa_hat = mat->surface_tension * norm;
        if (sound > SOUND_NUMBER_UNSTABLE || near_hat > 2 * K_HAT_UNSTABLE || kappa_hat > KAPPA_HAT_UNSTABLE)
            fprintf(stderr,
                    "warning: %s: materials[%u] (\"%s\"): stiffness %g gives a sound speed of %.3g h a substep, "
                    "near_stiffness %g and surface_tension %g move a particle %.3g and %.3g h a substep at this h, "
                    "mass and dt (stable below %g, %g, %g): the fluid will likely explode; leave them out for the "
                    "defaults (docs/fluids.md, \"Defaults at any kernel width\")\n",
                    sc->path, m, mat->name, mat->stiffness, sound, mat->near_stiffness, mat->surface_tension,
                    near_hat, kappa_hat, SOUND_NUMBER_UNSTABLE, 2 * K_HAT_UNSTABLE, KAPPA_HAT_UNSTABLE);
    }
}

static bool ops_create(cs_context *ctx, const cs_scene *scene, void **state, cs_error *err)
{
    cs_sph *s = calloc(1, sizeof *s);
    CS_ASSERT(s, "out of host memory");
    if (!cs_sph_create(ctx, scene, s, err)) {
        free(s);
        return false;
    }
    warn_unstable(s);
    *state = s;
    return true;
}

static void ops_destroy(void *state)
{
    cs_sph_destroy(state);
    free(state);
}

static void ops_record_substep(void *state, cs_recorder *rec, const cs_substep *step)
{
    cs_sph *s = state;
    cs_fluid_record_pointer(&s->fluid, rec, step);
    for (uint32_t i = 0; i < s->split; i++)
        cs_sph_record_substep(s, rec);
}

static void ops_stats(void *state, cs_sim_stats *out) { cs_fluid_stats(&((cs_sph *)state)->fluid, out); }

static void ops_record_stats(void *state, cs_recorder *rec) { cs_fluid_record_stats(&((cs_sph *)state)->fluid, rec); }
static void ops_read_stats(void *state, uint32_t frame_slot, cs_sim_stats *out)
{
    cs_fluid_read_stats(&((cs_sph *)state)->fluid, frame_slot, out);
}

static void ops_particles(void *state, cs_particle_view *out) { cs_fluid_particles(&((cs_sph *)state)->fluid, out); }
static void ops_bodies(void *state, cs_body_link *out) { cs_fluid_body_link(&((cs_sph *)state)->fluid, out); }

// Clavet's density at an interior lattice particle: norm sum_{j != i} m (1 - r/h)^n
// (density.comp: self excluded, no wall mirrors inside the fluid).
static bool ops_lattice_density(const cs_scene *scene, uint32_t material, double spacing, double *rho,
                                double *fitting_mass)
{
    // Only the block's options are wanted; the solver (a fluid base inside)
    // is too large for the stack.
    cs_sph *sp = calloc(1, sizeof *sp);
    CS_ASSERT(sp, "out of host memory");
    cs_error err;
    bool parsed = cs_sph_read_block(scene, sp, &err);
    int exponent = sp->exponent;
    free(sp);
    if (!parsed)
        return false;
    double h = scene->smoothing_radius, sum = cs_clavet_lattice_sum(scene->dim, exponent, h, spacing);
    double per_mass = cs_sph_kernel_norm(scene->dim, exponent, h) * sum;
    *rho = scene->materials[material].mass * per_mass;
    *fitting_mass = per_mass > 0.0 ? scene->materials[material].rest_density / per_mass : 0.0;
    return true;
}

static bool ops_level(void *state, const cs_level_field *field, cs_error *err)
{
    cs_sph *s = state;
    // The level collides in the base's collide pass, which seed_compatible
    // walls replace.
    if (s->seed_compatible)
        return cs_fail(err, "sph.seed_compatible: seed 000's walls do not see a level (leave seed_compatible out)");
    return cs_fluid_set_level(&s->fluid, field, err);
}

static uint32_t ops_float_buffers(void *state, cs_float_buffer *out, uint32_t max)
{
    return cs_fluid_float_buffers(&((cs_sph *)state)->fluid, out, max);
}

// What a checkpoint saves (sim.h state): the particle base. The neighbour
// lists are not saved: every grid build makes them again from the
// positions before anything reads them (grid.h), and the slots a list
// leaves unused hold whatever the fill's scratch left, not the same bits
// from run to run.
static uint32_t ops_state(void *state, cs_state_entry *out, uint32_t max)
{
    uint32_t n = 0;
    cs_fluid_state(&((cs_sph *)state)->fluid, out, &n, max);
    return n;
}

// A panel's edit of the fluid's gravity or materials (sim.h): the same
// parameters create computes, uploaded again.
static bool ops_retune(void *state, const cs_scene *scene, cs_error *err)
{
    (void)err, (void)scene; // the fluid holds it
    cs_sph *s = state;
    cs_fluid_retune(&s->fluid, s->fluid.desc.dt_split);
    cs_fluid_upload_params(&s->fluid);
    fill_params(s);
    cs_buffer_upload(s->fluid.ctx, &s->params_buffer, &s->params, sizeof s->params, 0);
    return true;
}

// Clavet: its stiffnesses, viscosities and surface tension.
const cs_sim_ops cs_sph_ops = {
    .state = ops_state,
    .retune = ops_retune,
    .float_buffers = ops_float_buffers,
    .solver = "sph",
    .keys = (const cs_scene_key_block *const[]){&cs_sph_keys, NULL},
    .material_keys = (const char *const[]){"name", "mass", "rest_density", "color", "absorption", "stiffness", "near_stiffness",
                                           "viscosity_linear", "viscosity_quadratic", "surface_tension", NULL},
    .summary = "Clavet et al. 2005 double-density relaxation (seed 000's kernel variant, two-material cohesion)",
    .create = ops_create,
    .destroy = ops_destroy,
    .record_substep = ops_record_substep,
    .stats = ops_stats,
    .record_stats = ops_record_stats,
    .read_stats = ops_read_stats,
    .particles = ops_particles,
    .lattice_density = ops_lattice_density,
    .bodies = ops_bodies,
    .level = ops_level,
};
