// fluid_dfsph.c — divergence-free SPH on the fluid base (see fluid_dfsph.h).
#include "fluid_dfsph.h"

#include "fluid_wcsph.h" // the cubic spline's norm and the wall tables (the same kernel)

#include <math.h>

// Fewer neighbours (self included) than this and a particle takes no part
// in the divergence solve: at a free surface its kernel is half empty and
// its divergence says nothing (SPlisHSPlasH's rule: 20 in 3D, 7 in 2D).
#define DFSPH_SPARSE_3D 20u
#define DFSPH_SPARSE_2D 7u
// Iterations each solve runs at least (SPlisHSPlasH's: 2 for the density,
// 1 for the divergence), whatever its error.
#define DFSPH_MIN_DENSITY_ITERATIONS 2u
#define DFSPH_MIN_DIVERGENCE_ITERATIONS 1u
// The collision margin, in particle spacings (cs_dfsph_create says why).
#define DFSPH_MARGIN 0.25f

// The block's rows (scene_keys.h). Every value is read by the host when it
// records a substep, so a panel's edit takes effect at the next substep.
static const cs_scene_key dfsph_keys[] = {
    {"density_error", CS_KEY_NUMBER, CS_KEY_AT(cs_dfsph, density_error), 1e-6, 0.1, CS_KEY_LIVE, .def = "0.001",
     .help = "the density solve stops when the mean compression (ρ*/ρ₀ − 1)+ is below this (0.001: 0.1%)"},
    {"divergence_error", CS_KEY_NUMBER, CS_KEY_AT(cs_dfsph, divergence_error), 1e-6, 1.0, CS_KEY_LIVE, .def = "0.001",
     .help = "the divergence solve stops when the mean dt (d(ρ/ρ₀)/dt)+ is below this (compression a step)"},
    {"max_iterations", CS_KEY_UINT, CS_KEY_AT(cs_dfsph, max_iterations), 2, 1000, CS_KEY_LIVE, .def = "100",
     .help = "iterations of each solve per step at most (the density solve runs 2 at least, the divergence 1)"},
    {"cfl", CS_KEY_NUMBER, CS_KEY_AT(cs_dfsph, cfl), 0.01, 1.0, CS_KEY_LIVE, .def = "0.4",
     .help = "step dt ≤ cfl × particle_spacing / v_max, v_max the fastest particle (+ |g| dt)"},
    {"dt_min", CS_KEY_NUMBER, CS_KEY_AT(cs_dfsph, dt_min), 1e-7, 1.0, CS_KEY_LIVE, .unit = "s", .def = "1e-5",
     .help = "the shortest step: a scene substep is split into at most dt / dt_min steps"},
    {"dt_max", CS_KEY_NUMBER, CS_KEY_AT(cs_dfsph, dt_max), 1e-6, 1.0, CS_KEY_LIVE, .unit = "s", .def = "0.005",
     .help = "the longest step, however slow the fluid"},
    {"max_steps", CS_KEY_UINT, CS_KEY_AT(cs_dfsph, max_steps), 1, 10000, CS_KEY_LIVE, .def = "200",
     .help = "solver steps per frame at most (then dt is longer than the CFL bound asks)"},
};

const cs_scene_key_block cs_dfsph_keys = {
    .path = "fluids[].dfsph",
    .what = "DFSPH's block (divergence-free SPH, Bender & Koschier); the solver holds what it fills (cs_dfsph, "
            "fluid_dfsph.h). Its material parameters are mass, rest_density, viscosity (α) and speed_of_sound "
            "(the viscosity's velocity scale only).",
    .keys = dfsph_keys,
    .count = CS_ARRAY_COUNT(dfsph_keys),
};

static const char *where_of(const cs_scene *sc)
{
    return sc->path[0] ? sc->path : sc->name;
}

// The checks beyond the rows' ranges.
static bool check_block(const cs_scene *scene, const cs_dfsph *d, cs_error *err)
{
    if (d->dt_min > d->dt_max)
        return cs_fail(err, "%s: dfsph.dt_min: %g s is longer than dfsph.dt_max %g s: lower dt_min or raise dt_max",
                       where_of(scene), (double)d->dt_min, (double)d->dt_max);
    return true;
}

bool cs_dfsph_read_block(const cs_scene *scene, cs_dfsph *d, cs_error *err)
{
    d->density_error = 0.001f;
    d->divergence_error = 0.001f;
    d->max_iterations = 100;
    d->cfl = 0.4f;
    d->dt_min = 1e-5f;
    d->dt_max = 0.005f;
    d->max_steps = 200;
    const cJSON *block = scene->solver_params;
    if (block && !cs_scene_keys_read(scene, block, "dfsph", &cs_dfsph_keys, d, err))
        return false;
    return check_block(scene, d, err);
}

uint32_t cs_dfsph_steps(const cs_dfsph *d, double dt_scene, double v_max)
{
    const cs_scene *sc = d->fluid.scene;
    double g = sqrt((double)sc->gravity[0] * sc->gravity[0] + (double)sc->gravity[1] * sc->gravity[1] +
                    (double)sc->gravity[2] * sc->gravity[2]);
    double v = v_max + g * dt_scene;
    // A speed that is not finite (speed.comp writes +inf for a NaN) gets
    // the shortest step; the run's checks stop it at the frame's end.
    double dt = d->dt_min;
    if (v >= 0.0 && !isinf(v))
        dt = fmin(d->dt_max, v > 0.0 ? d->cfl * sc->particle_spacing / v : INFINITY);
    if (!(dt >= d->dt_min))
        dt = d->dt_min;
    double steps = ceil(dt_scene / dt - 1e-9);
    uint32_t per_substep = CS_MAX(1u, d->max_steps / CS_MAX(1u, sc->substeps));
    return steps <= 1.0 ? 1u : (uint32_t)fmin(steps, (double)per_substep);
}

static void fill_params(cs_dfsph *d)
{
    const cs_scene *sc = d->fluid.scene;
    double h = sc->smoothing_radius;
    cs_dfsph_params *p = &d->params;
    memset(p, 0, sizeof *p);
    p->kernel =
        (vec4){(float)cs_wcsph_kernel_norm(CS_WCSPH_CUBIC, sc->dim, h), (float)(1.0 / h), (float)(0.5 * h), 0.0f};
    p->options = (uvec4){sc->dim == 3 ? DFSPH_SPARSE_3D : DFSPH_SPARSE_2D, 0, 0, 0};
    double s_h = (double)sc->particle_spacing / h;
    for (int k = 0; k <= CS_DFSPH_WALL_STEPS; k++) {
        double q = (double)k / CS_DFSPH_WALL_STEPS;
        p->wall[k] = (vec4){(float)cs_wcsph_wall_table_value(CS_WCSPH_CUBIC, sc->dim, s_h, q, false),
                            (float)cs_wcsph_wall_table_value(CS_WCSPH_CUBIC, sc->dim, s_h, q, true), 0.0f, 0.0f};
    }
    for (uint32_t m = 0; m < sc->material_count && m < CS_FLUID_MAX_MATERIALS; m++) {
        const cs_material *mat = &sc->materials[m];
        p->materials[m] = (vec4){mat->mass, mat->rest_density, mat->viscosity, mat->speed_of_sound};
    }
}

static bool create_programs(cs_dfsph *d, cs_error *err)
{
    cs_fluid *f = &d->fluid;
    return cs_fluid_program(f, "dfsph/density.comp", NULL, &d->density, err) &&
           cs_fluid_program(f, "dfsph/error.comp", NULL, &d->error, err) &&
           cs_fluid_program(f, "dfsph/velocity.comp", NULL, &d->velocity, err) &&
           cs_fluid_program(f, "dfsph/forces.comp", NULL, &d->forces, err) &&
           cs_fluid_program(f, "dfsph/advect.comp", NULL, &d->advect, err) &&
           cs_fluid_program(f, "dfsph/speed.comp", NULL, &d->speed, err);
}

bool cs_dfsph_create(cs_context *ctx, const cs_scene *scene, cs_dfsph *d, cs_error *err)
{
    memset(d, 0, sizeof *d);
    if (!cs_dfsph_read_block(scene, d, err))
        return false;
    cs_fluid_desc desc = {
        .solver = "dfsph",
        .uses_predicted = true,       // the warm start's kappas, reordered with the particles (fluid_dfsph.h)
        .positions_w_material = true, // every pass takes a neighbour's material from its position
        .arrays = {[CS_DFSPH_ARRAY_TERMS] = {.name = "dfsph terms", .stride = 16},
                   [CS_DFSPH_ARRAY_WALL_GRADIENT] = {.name = "dfsph wall gradient", .stride = 16},
                   [CS_DFSPH_ARRAY_STIFFNESS] = {.name = "dfsph stiffness", .stride = 4},
                   [CS_DFSPH_ARRAY_ERRORS] = {.name = "dfsph errors", .stride = 4}},
    };
    if (!cs_fluid_create(ctx, scene, &desc, &d->fluid, err))
        return false;
    // The base fills the predicted pair with the blocks' positions; here it
    // holds the kappas, which start at 0 (and stay 0 past the count, where
    // emitted particles will be written).
    cs_buffer_fill(ctx, &d->fluid.predicted[0], 0);
    cs_buffer_fill(ctx, &d->fluid.predicted[1], 0);
    bool ok =
        cs_buffer_create(ctx, &(cs_buffer_desc){.name = "dfsph params", .size = sizeof(cs_dfsph_params)},
                         &d->params_buffer, err) &&
        cs_buffer_create(ctx, &(cs_buffer_desc){.name = "dfsph sums", .size = CS_DFSPH_SUMS * 4}, &d->sums, err) &&
        cs_buffer_create(ctx,
                         &(cs_buffer_desc){.name = "dfsph readback", .size = CS_DFSPH_SUMS * 4, .host_visible = true},
                         &d->readback, err) &&
        create_programs(d, err);
    if (!ok) {
        cs_dfsph_destroy(d);
        return false;
    }
    fill_params(d);
    cs_buffer_upload(ctx, &d->params_buffer, &d->params, sizeof d->params, 0);
    // The collision margin (fluid.glsl cs_collide) a quarter spacing, not
    // the base's half: the walls' pressure is what holds DFSPH's fluid off
    // a wall, and its bottom row rests a third of a spacing above the floor
    // (test_dfsph's pool), below the half-spacing margin. Clamped there, the
    // rows above were pressed 5% over rest (the density solve's prediction
    // assumed the bottom row moved) and the clamp, not the floor's
    // pressure, held up 44% of the water. The quarter spacing only catches
    // what the pressure misses.
    d->fluid.params.wall.x = DFSPH_MARGIN * (float)scene->particle_spacing;
    cs_fluid_upload_params(&d->fluid);
    return true;
}

void cs_dfsph_destroy(cs_dfsph *d)
{
    cs_context *ctx = d->fluid.ctx;
    if (!ctx)
        return;
    cs_buffer *buffers[] = {&d->params_buffer, &d->sums, &d->readback};
    for (size_t i = 0; i < CS_ARRAY_COUNT(buffers); i++)
        if (buffers[i]->buffer)
            cs_buffer_destroy(ctx, buffers[i]);
    cs_fluid_destroy(&d->fluid);
    memset(d, 0, sizeof *d);
}

// ---- the passes ----

static cs_dfsph_push push_for(const cs_dfsph *d, uint32_t mode, bool warm, float dt)
{
    return (cs_dfsph_push){.count = d->fluid.count, .mode = mode, .warm = warm ? 1u : 0u, .dt = dt};
}

static void dispatch(cs_dfsph *d, cs_recorder *rec, const char *pass, cs_program_id program, cs_dispatch_desc *dd,
                     const cs_dfsph_push *pc)
{
    dd->push = pc;
    dd->push_size = sizeof *pc;
    dd->threads[0] = d->fluid.count;
    cs_pass_begin(rec, pass);
    cs_fluid_dispatch(&d->fluid, rec, program, dd);
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

void cs_dfsph_record_density(cs_dfsph *d, cs_recorder *rec)
{
    cs_fluid *f = &d->fluid;
    cs_dfsph_push pc = push_for(d, 0, false, 0.0f);
    cs_dispatch_desc dd = {.buffers = {&f->params_buffer, &d->params_buffer, &f->grid.ranges, cs_fluid_pos(f),
                                       &f->densities, &f->arrays[CS_DFSPH_ARRAY_TERMS],
                                       &f->arrays[CS_DFSPH_ARRAY_WALL_GRADIENT]}};
    dispatch(d, rec, "dfsph: density + factor", d->density, &dd, &pc);
}

void cs_dfsph_record_error(cs_dfsph *d, cs_recorder *rec, uint32_t mode, bool warm, float dt)
{
    cs_fluid *f = &d->fluid;
    cs_dfsph_push pc = push_for(d, mode, warm, dt);
    cs_dispatch_desc dd = {.buffers = {&f->params_buffer, &d->params_buffer, &f->grid.ranges, cs_fluid_pos(f),
                                       cs_fluid_vel(f), &f->arrays[CS_DFSPH_ARRAY_TERMS],
                                       &f->arrays[CS_DFSPH_ARRAY_WALL_GRADIENT], cs_fluid_pred(f),
                                       &f->arrays[CS_DFSPH_ARRAY_STIFFNESS], &f->arrays[CS_DFSPH_ARRAY_ERRORS]}};
    dispatch(d, rec, mode == CS_DFSPH_DENSITY ? "dfsph: density error" : "dfsph: divergence error", d->error, &dd, &pc);
}

void cs_dfsph_record_velocity(cs_dfsph *d, cs_recorder *rec, uint32_t mode, float dt)
{
    cs_fluid *f = &d->fluid;
    cs_dfsph_push pc = push_for(d, mode, false, dt);
    cs_dispatch_desc dd = {.buffers = {&f->params_buffer, &d->params_buffer, &f->grid.ranges, cs_fluid_pos(f),
                                       cs_fluid_vel(f), &f->arrays[CS_DFSPH_ARRAY_WALL_GRADIENT],
                                       &f->arrays[CS_DFSPH_ARRAY_STIFFNESS], cs_fluid_pred(f)}};
    dispatch(d, rec, mode == CS_DFSPH_DENSITY ? "dfsph: density velocity" : "dfsph: divergence velocity", d->velocity,
             &dd, &pc);
}

void cs_dfsph_record_forces(cs_dfsph *d, cs_recorder *rec, float dt)
{
    cs_fluid *f = &d->fluid;
    cs_dfsph_push pc = push_for(d, 0, false, dt);
    cs_dispatch_desc dd = {.buffers = {&f->params_buffer, &d->params_buffer, &f->grid.ranges, cs_fluid_pos(f),
                                       cs_fluid_vel(f), &f->densities, cs_fluid_vel_alt(f)}};
    dispatch(d, rec, "dfsph: non-pressure forces", d->forces, &dd, &pc);
    cs_fluid_swap_vel(f);
}

void cs_dfsph_record_advect(cs_dfsph *d, cs_recorder *rec, float dt)
{
    cs_fluid *f = &d->fluid;
    cs_dfsph_push pc = push_for(d, 0, false, dt);
    cs_dispatch_desc dd = {.buffers = {[3] = cs_fluid_pos(f), [4] = cs_fluid_vel(f)}};
    dispatch(d, rec, "dfsph: advect", d->advect, &dd, &pc);
}

// The sum (or max) of the errors array into sums[slot], copied to the
// readback; then the recording so far is submitted and waited on, and
// resumed, so the host reads it. The value depends only on the GPU state
// the recording computed: the same every run.
static float read_reduction(cs_dfsph *d, cs_recorder *rec, cs_reduce_op op, uint32_t slot)
{
    cs_fluid *f = &d->fluid;
    cs_pass_begin(rec, op == CS_REDUCE_SUM ? "dfsph: error sum" : "dfsph: speed max");
    cs_reduce_record(rec, &f->reduce, op, &f->arrays[CS_DFSPH_ARRAY_ERRORS], f->count, &d->sums, slot);
    cs_barrier_compute_to_transfer(rec);
    cs_cmd_copy_range(rec, &d->sums, 4u * slot, &d->readback, 4u * slot, 4);
    cs_barrier_transfer_to_compute(rec);
    cs_pass_end(rec);
    cs_recorder_submit_wait(rec);
    cs_recorder_resume(rec);
    float v;
    memcpy(&v, (const char *)d->readback.mapped + 4u * slot, sizeof v);
    return v;
}

// One pressure solve (mode): the warm start, then Jacobi iterations until
// the mean error is below `target` (at least `min_iterations`, at most
// max_iterations). Returns the iterations run after the warm start.
static uint32_t record_solve(cs_dfsph *d, cs_recorder *rec, uint32_t mode, float dt, double target,
                             uint32_t min_iterations, double *final_error)
{
    cs_dfsph_record_error(d, rec, mode, true, dt);
    cs_dfsph_record_velocity(d, rec, mode, dt);
    cs_dfsph_record_error(d, rec, mode, false, dt);
    uint32_t it = 0, max = CS_MAX(d->max_iterations, min_iterations);
    double mean = NAN;
    for (;;) {
        if (it >= min_iterations || it == max) {
            mean = read_reduction(d, rec, CS_REDUCE_SUM, CS_DFSPH_SUM_ERROR) / (double)d->fluid.count;
            if (!(mean > target) || it >= max)
                break;
        }
        cs_dfsph_record_velocity(d, rec, mode, dt);
        cs_dfsph_record_error(d, rec, mode, false, dt);
        it++;
    }
    *final_error = mean;
    return it;
}

// One solver step of length dt (fluid_dfsph.h, the list).
static void record_step(cs_dfsph *d, cs_recorder *rec, float dt)
{
    cs_fluid *f = &d->fluid;
    cs_fluid_record_grid(f, rec, false);
    cs_dfsph_record_density(d, rec);
    d->counts.divergence_iterations += record_solve(d, rec, CS_DFSPH_DIVERGENCE, dt, d->divergence_error,
                                                    DFSPH_MIN_DIVERGENCE_ITERATIONS, &d->last_divergence_error);
    cs_dfsph_record_forces(d, rec, dt);
    d->counts.density_iterations += record_solve(d, rec, CS_DFSPH_DENSITY, dt, d->density_error,
                                                 DFSPH_MIN_DENSITY_ITERATIONS, &d->last_density_error);
    cs_dfsph_record_advect(d, rec, dt);
    cs_fluid_record_collide(f, rec, cs_fluid_pos(f), cs_fluid_vel(f));
    d->counts.steps++;
    d->counts.dt_sum += dt;
}

void cs_dfsph_record_substep(cs_dfsph *d, cs_recorder *rec)
{
    cs_fluid *f = &d->fluid;
    cs_fluid_record_emit(f, rec);
    if (f->count) {
        cs_dfsph_push pc = push_for(d, 0, false, 0.0f);
        cs_dispatch_desc dd = {.buffers = {[3] = cs_fluid_vel(f), [4] = &f->arrays[CS_DFSPH_ARRAY_ERRORS]}};
        dispatch(d, rec, "dfsph: speed", d->speed, &dd, &pc);
        double v_max = read_reduction(d, rec, CS_REDUCE_MAX, CS_DFSPH_SUM_SPEED);
        double dt_scene = f->dt;
        uint32_t steps = cs_dfsph_steps(d, dt_scene, v_max);
        float dt = (float)(dt_scene / steps);
        for (uint32_t s = 0; s < steps; s++)
            record_step(d, rec, dt);
    }
    cs_fluid_end_substep(f);
}

// ---- cs_sim_ops ----

static bool ops_create(cs_context *ctx, const cs_scene *scene, void **state, cs_error *err)
{
    cs_dfsph *d = calloc(1, sizeof *d);
    CS_ASSERT(d, "out of host memory");
    if (!cs_dfsph_create(ctx, scene, d, err)) {
        free(d);
        return false;
    }
    *state = d;
    return true;
}

static void ops_destroy(void *state)
{
    cs_dfsph_destroy(state);
    free(state);
}

static void ops_record_substep(void *state, cs_recorder *rec, const cs_substep *step)
{
    cs_dfsph *d = state;
    cs_fluid_record_pointer(&d->fluid, rec, step);
    cs_dfsph_record_substep(d, rec);
}

static void counts_into(const cs_dfsph_counts *c, cs_sim_stats *out)
{
    out->solver_steps = c->steps;
    out->density_iterations = c->density_iterations;
    out->divergence_iterations = c->divergence_iterations;
    out->solver_dt_sum = c->dt_sum;
}

static void ops_stats(void *state, cs_sim_stats *out)
{
    cs_dfsph *d = state;
    cs_fluid_stats(&d->fluid, out);
    counts_into(&d->counts, out);
    d->counts = (cs_dfsph_counts){0};
}

static void ops_record_stats(void *state, cs_recorder *rec)
{
    cs_dfsph *d = state;
    cs_fluid_record_stats(&d->fluid, rec);
    d->slot_counts[rec->frame_slot] = d->counts;
    d->counts = (cs_dfsph_counts){0};
}

static void ops_read_stats(void *state, uint32_t frame_slot, cs_sim_stats *out)
{
    cs_dfsph *d = state;
    cs_fluid_read_stats(&d->fluid, frame_slot, out);
    counts_into(&d->slot_counts[frame_slot], out);
}

static void ops_particles(void *state, cs_particle_view *out)
{
    cs_fluid_particles(&((cs_dfsph *)state)->fluid, out);
}

// The density pass at an interior lattice particle: the cubic spline's sum
// over the lattice, self included (density.comp; walls add nothing inside).
static bool ops_lattice_density(const cs_scene *scene, uint32_t material, double spacing, double *rho,
                                double *fitting_mass)
{
    cs_dfsph *dp = calloc(1, sizeof *dp); // a fluid base inside: too large for the stack
    CS_ASSERT(dp, "out of host memory");
    cs_error err;
    bool parsed = cs_dfsph_read_block(scene, dp, &err);
    free(dp);
    if (!parsed)
        return false;
    double h = scene->smoothing_radius, sum = 0.0;
    int n = (int)ceil(h / spacing) + 1;
    double norm = cs_wcsph_kernel_norm(CS_WCSPH_CUBIC, scene->dim, 1.0);
    for (int k = (scene->dim == 3 ? -n : 0); k <= (scene->dim == 3 ? n : 0); k++)
        for (int j = -n; j <= n; j++)
            for (int i = -n; i <= n; i++) {
                double q = spacing * sqrt((double)(i * i + j * j + k * k)) / h;
                sum += q < 1.0 ? (q <= 0.5 ? 6.0 * q * q * (q - 1.0) + 1.0 : 2.0 * pow(1.0 - q, 3.0)) : 0.0;
            }
    double per_mass = norm / pow(h, scene->dim) * sum;
    *rho = scene->materials[material].mass * per_mass;
    *fitting_mass = per_mass > 0.0 ? scene->materials[material].rest_density / per_mass : 0.0;
    return true;
}

static bool ops_level(void *state, const cs_level_field *field, cs_error *err)
{
    return cs_fluid_set_level(&((cs_dfsph *)state)->fluid, field, err);
}

static uint32_t ops_float_buffers(void *state, cs_float_buffer *out, uint32_t max)
{
    return cs_fluid_float_buffers(&((cs_dfsph *)state)->fluid, out, max);
}

// What a checkpoint saves (sim.h state): the particle base, whose
// predicted pair holds the warm start's kappas here. The step count and
// the iterations are decided from the GPU state each substep, so no host
// value of the solver is state.
static uint32_t ops_state(void *state, cs_state_entry *out, uint32_t max)
{
    uint32_t n = 0;
    cs_fluid_state(&((cs_dfsph *)state)->fluid, out, &n, max);
    return n;
}

static void *ops_key_block(void *state, const cs_scene_key_block *block)
{
    return block == &cs_dfsph_keys ? state : NULL;
}

// A panel's edit of the block (read when the next substep is recorded), of
// gravity or of the materials: the same parameters create computes.
static bool ops_retune(void *state, const cs_scene *scene, cs_error *err)
{
    cs_dfsph *d = state;
    if (!check_block(scene, d, err))
        return false;
    cs_fluid_retune(&d->fluid, 1);
    cs_fluid_upload_params(&d->fluid);
    fill_params(d);
    cs_buffer_upload(d->fluid.ctx, &d->params_buffer, &d->params, sizeof d->params, 0);
    return true;
}

// DFSPH: two pressure solves a step, adaptive CFL steps.
const cs_sim_ops cs_dfsph_ops = {
    .solver = "dfsph",
    .summary = "divergence-free SPH (Bender & Koschier 2017): constant-density and divergence solves, CFL steps",
    .keys = (const cs_scene_key_block *const[]){&cs_dfsph_keys, NULL},
    .material_keys =
        (const char *const[]){"name", "mass", "rest_density", "color", "viscosity", "speed_of_sound", NULL},
    .create = ops_create,
    .destroy = ops_destroy,
    .record_substep = ops_record_substep,
    .stats = ops_stats,
    .record_stats = ops_record_stats,
    .read_stats = ops_read_stats,
    .particles = ops_particles,
    .lattice_density = ops_lattice_density,
    .level = ops_level,
    .float_buffers = ops_float_buffers,
    .state = ops_state,
    .key_block = ops_key_block,
    .retune = ops_retune,
};
