// fluid_wcsph.c — weakly compressible SPH on the fluid base (see fluid_wcsph.h).
#include "fluid_wcsph.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

double cs_wcsph_kernel_norm(int kernel, int dim, double h)
{
    if (kernel == CS_WCSPH_CUBIC)
        return dim == 2 ? 40.0 / (7.0 * M_PI * h * h) : 8.0 / (M_PI * h * h * h);
    return dim == 2 ? 7.0 / (M_PI * h * h) : 21.0 / (2.0 * M_PI * h * h * h);
}

// Kernel shape f(q) with W = norm f(r/h) (see wcsph.glsl), and df/dq.
static double kernel_shape(int kernel, double q)
{
    if (q >= 1.0)
        return 0.0;
    if (kernel == CS_WCSPH_CUBIC)
        return q <= 0.5 ? 6.0 * q * q * (q - 1.0) + 1.0 : 2.0 * (1.0 - q) * (1.0 - q) * (1.0 - q);
    double a = 1.0 - q;
    return a * a * a * a * (1.0 + 4.0 * q);
}

static double kernel_dshape(int kernel, double q)
{
    if (q >= 1.0)
        return 0.0;
    if (kernel == CS_WCSPH_CUBIC)
        return q <= 0.5 ? 6.0 * q * (3.0 * q - 2.0) : -6.0 * (1.0 - q) * (1.0 - q);
    double a = 1.0 - q;
    return -20.0 * q * a * a * a;
}

// Composite Simpson over [a, b] (even interval count) of g(kernel, dim, q, s).
#define WALL_QUADRATURE 512
static double simpson(double (*g)(int, int, double, double), int kernel, int dim, double q, double a, double b)
{
    double step = (b - a) / WALL_QUADRATURE, sum = 0.0;
    for (int k = 0; k <= WALL_QUADRATURE; k++)
        sum += g(kernel, dim, q, a + step * k) * (k == 0 || k == WALL_QUADRATURE ? 1.0 : (k % 2 ? 4.0 : 2.0));
    return sum * step / 3.0;
}

// Integrands over a plane at distance q (h = 1): 3D in rings of radius s on
// the plane (r = sqrt(s^2 + q^2), r dr = s ds), 2D along the line (both ways).
static double area_integrand(int kernel, int dim, double q, double s)
{
    double r = sqrt(s * s + q * q);
    return dim == 3 ? 2.0 * M_PI * s * kernel_shape(kernel, r) : 2.0 * kernel_shape(kernel, r);
}

static double push_integrand(int kernel, int dim, double q, double s)
{
    double r = sqrt(s * s + q * q);
    double g = r > 0.0 ? -kernel_dshape(kernel, r) * q / r : 0.0; // -d/dq of f(r)
    return dim == 3 ? 2.0 * M_PI * s * g : 2.0 * g;
}

double cs_wcsph_plane_integral(int kernel, int dim, double q, bool gradient)
{
    if (q >= 1.0)
        return 0.0;
    double reach = sqrt(1.0 - q * q);
    return cs_wcsph_kernel_norm(kernel, dim, 1.0) *
           simpson(gradient ? push_integrand : area_integrand, kernel, dim, q, 0.0, reach);
}

double cs_wcsph_wall_table_value(int kernel, int dim, double spacing_over_h, double q, bool gradient)
{
    double sum = 0.0;
    for (int k = 0;; k++) {
        double z = q + (k + 0.5) * spacing_over_h;
        if (z >= 1.0)
            break;
        sum += cs_wcsph_plane_integral(kernel, dim, z, gradient);
    }
    return spacing_over_h * sum;
}

// The block's rows (scene_keys.h); kernel keeps its code (its message says
// what each kernel is).
static const cs_scene_key wcsph_keys[] = {
    {"kernel", CS_KEY_ENUM, CS_KEY_AT(cs_wcsph, kernel), .flags = CS_KEY_BY_CODE, .choices = "cubic|wendland",
     .def = "\"cubic\"", .help = "cubic spline or Wendland C2"},
    {"clamp_negative_pressure", CS_KEY_BOOL, CS_KEY_AT(cs_wcsph, clamp_negative_pressure), .def = "true",
     .help = "clamp the Tait pressure at 0 (no tension)"},
    {"wall_density", CS_KEY_BOOL, CS_KEY_AT(cs_wcsph, wall_density), .def = "true",
     .help = "walls and the domain box count as fluid at rest behind them"},
    {"cfl", CS_KEY_NUMBER, CS_KEY_AT(cs_wcsph, cfl), 0.0f, 1.0f, .def = "0.4",
     .help = "split dt so that dt ≤ cfl h / c (0: never split)"},
    {"surface_renormalise", CS_KEY_BOOL, CS_KEY_AT(cs_wcsph, surface_renormalise), .def = "true",
     .help = "density / the kernel's share inside the fluid at the free surface"},
};

const cs_scene_key_block cs_wcsph_keys = {
    .path = "fluids[].wcsph",
    .what = "WCSPH's block (Tait equation); the solver holds what it fills (cs_wcsph, fluid_wcsph.h). Its material "
            "parameters are speed_of_sound, tait_gamma and viscosity (α).",
    .keys = wcsph_keys,
    .count = CS_ARRAY_COUNT(wcsph_keys),
};

bool cs_wcsph_read_block(const cs_scene *scene, cs_wcsph *w, cs_error *err)
{
    const cs_scene_key_block *keys = &cs_wcsph_keys;
    const cJSON *block = scene->solver_params;
    w->kernel = CS_WCSPH_CUBIC;
    w->clamp_negative_pressure = true;
    w->wall_density = true;
    w->cfl = 0.4f;
    w->surface_renormalise = true;
    if (!block)
        return true;
    if (!cs_scene_keys_read(scene, block, "wcsph", keys, w, err))
        return false;
    const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(block, "kernel");
    if (kernel) {
        const char *v = cJSON_IsString(kernel) ? kernel->valuestring : NULL;
        if (v && strcmp(v, "cubic") == 0)
            w->kernel = CS_WCSPH_CUBIC;
        else if (v && strcmp(v, "wendland") == 0)
            w->kernel = CS_WCSPH_WENDLAND;
        else
            return cs_fail(err, "%s: wcsph.kernel: must be \"cubic\" (cubic spline) or \"wendland\" (Wendland C2)",
                           scene->path);
    }
    return true;
}

// How many parts the scene's dt must be split into for the CFL bound.
static uint32_t cfl_split(const cs_scene *sc, float cfl)
{
    if (!(cfl > 0.0f))
        return 1;
    double hs = 0.5 * sc->smoothing_radius;
    double limit = INFINITY;
    for (uint32_t m = 0; m < sc->material_count; m++) {
        const cs_material *mat = &sc->materials[m];
        double l = cfl * hs / (mat->speed_of_sound * (1.0 + 0.6 * mat->viscosity));
        limit = fmin(limit, l);
    }
    double parts = ceil((double)sc->dt / limit - 1e-9);
    return parts <= 1.0 ? 1u : (uint32_t)fmin(parts, 1e6);
}

static void fill_params(cs_wcsph *w)
{
    const cs_scene *sc = w->fluid.scene;
    double h = sc->smoothing_radius;
    cs_wcsph_params *p = &w->params;
    memset(p, 0, sizeof *p);
    p->kernel = (vec4){(float)cs_wcsph_kernel_norm(w->kernel, sc->dim, h), (float)(1.0 / h), (float)(0.5 * h), w->fluid.dt};
    p->options = (uvec4){w->clamp_negative_pressure ? 1u : 0u, w->wall_density ? 1u : 0u,
                         w->surface_renormalise ? 1u : 0u, 0};
    double s_h = (double)sc->particle_spacing / h;
    for (int k = 0; k <= CS_WCSPH_WALL_STEPS; k++) {
        double q = (double)k / CS_WCSPH_WALL_STEPS;
        double psi = cs_wcsph_wall_table_value(w->kernel, sc->dim, s_h, q, false);
        double push = cs_wcsph_wall_table_value(w->kernel, sc->dim, s_h, q, true);
        // z: push / (1 - psi), what density.comp's surface renormalisation
        // reads back as a distance to the free surface.
        p->wall[k] = (vec4){(float)psi, (float)push, (float)(push / (1.0 - psi)), 0.0f};
    }
    for (uint32_t m = 0; m < sc->material_count && m < CS_FLUID_MAX_MATERIALS; m++) {
        const cs_material *mat = &sc->materials[m];
        double b = (double)mat->rest_density * mat->speed_of_sound * mat->speed_of_sound / mat->tait_gamma;
        p->materials[m] = (cs_wcsph_material){
            .eos = {mat->rest_density, (float)b, mat->tait_gamma, mat->mass},
            .viscosity = {mat->viscosity, mat->speed_of_sound, mat->surface_tension, 0.0f},
        };
    }
}

// Neighbour lists. Density and forces both loop over the neighbours of the
// positions as the grid build and reorder left them, and nothing moves them
// in between (density writes densities, pressures and the neighbour terms;
// forces writes the alternate buffers and swaps after its loop; emit comes
// before the grid, collide and the bodies' step after forces), so one list
// built there serves both, with no skin and a radius a hair above h (fluid.h,
// cs_fluid_create_exact_neighbours), so the list keeps every pair density
// (r^2 < h^2) and forces (|d| < h) accept despite rounding; both keep their
// own test, so they sum exactly the walk's pairs in the walk's order: the
// same bits (grid.glsl, CS_NB_FOR_NEIGHBOURS). On llvmpipe a masked branch
// still runs, so the walk pays a loop body per candidate, ~6x (3D) or ~2.9x
// (2D) more candidates than lie within h; the list pays one light walk.
// When to use them, measured on llvmpipe (docs/benchmarks.md, "Neighbour
// lists for WCSPH"): in 3D the two loops get 1.6-3.7x faster and the step
// 1.2-1.6x, the build included; in 2D (~2.9x candidates per neighbour, one
// array read per candidate in each loop) the build costs about what the
// loops save, so the lists stay off there (and their 2.3x memory with
// them). On a GPU the other way round: on an NVIDIA H200 (2026-11-28,
// docs/benchmarks.md "NVIDIA H200") the list build took 7.2 of 10.5 ms a
// substep at 4.2 M particles while the two loops it speeds up took 2.6 ms
// with lists and 6.4 ms without, so the walk is 1.5-1.6x faster (1 M and 4 M)
// and needs 4.5x less memory: lists are for CPU devices only, where a
// masked branch is no skip. CISTERN_WCSPH_LISTS=on|off forces either.
static bool lists_wanted(const cs_context *ctx, int dim, bool *wanted, cs_error *err)
{
    bool cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    return cs_fluid_lists_wanted(ctx, "CISTERN_WCSPH_LISTS", cpu && dim == 3, wanted, err);
}

// Density and forces as one variant: the cell walk (lists = 0) or the list
// loop (1). Each is compiled the first time it is asked for. With moving
// bodies the forces also hand them the pressure of their faces (forces.comp
// WITH_IMPULSES).
static bool create_programs(cs_wcsph *w, bool lists, cs_error *err)
{
    if (w->density[lists].value && w->forces[lists].value)
        return true;
    char kernel[2] = {(char)('0' + w->kernel), 0};
    const char *nb_lists = lists ? "1" : "0";
    const cs_define defines[] = {{"WCSPH_KERNEL", kernel}, {"NB_LISTS", nb_lists}, {NULL, NULL}};
    const cs_define defines_impulses[] = {
        {"WCSPH_KERNEL", kernel}, {"NB_LISTS", nb_lists}, {"WITH_IMPULSES", "1"}, {NULL, NULL}};
    return cs_fluid_program(&w->fluid, "wcsph/density.comp", defines, &w->density[lists], err) &&
           cs_fluid_program(&w->fluid, "wcsph/forces.comp", w->fluid.impulse_slots ? defines_impulses : defines,
                            &w->forces[lists], err);
}

bool cs_wcsph_set_neighbour_lists(cs_wcsph *w, bool on, cs_error *err)
{
    if (!create_programs(w, on, err))
        return false;
    if (on && !w->nb.capacity && !cs_fluid_create_exact_neighbours(&w->fluid, &w->nb, err))
        return false;
    w->lists = on;
    return true;
}

// A frame of more CFL-split substeps than this is refused: it is a dt far
// too large for the speed of sound, not a scene anyone means to run.
#define WCSPH_MAX_SUBSTEPS_PER_FRAME 10000u
bool cs_wcsph_create(cs_context *ctx, const cs_scene *scene, cs_wcsph *w, cs_error *err)
{
    memset(w, 0, sizeof *w);
    if (!cs_wcsph_read_block(scene, w, err))
        return false;
    w->dt_split = cfl_split(scene, w->cfl);
    uint64_t substeps = (uint64_t)scene->substeps * w->dt_split;
    if (substeps > WCSPH_MAX_SUBSTEPS_PER_FRAME)
        return cs_fail(err, "%s: dt: %g s is %u times the WCSPH CFL bound (cfl x h/2 / (c (1 + 0.6 alpha))), so "
                            "a frame would need %llu substeps (at most %u): lower dt, or raise wcsph.cfl",
                       scene->path, (double)scene->dt, w->dt_split, (unsigned long long)substeps,
                       WCSPH_MAX_SUBSTEPS_PER_FRAME);
    cs_fluid_desc desc = {
        .solver = "wcsph",
        .dt_split = w->dt_split, // the base's dt: scene dt / dt_split
        .uses_predicted = false,
        .positions_w_material = true, // density and forces take a neighbour's material from its position
        .arrays = {[CS_WCSPH_ARRAY_PRESSURES] = {.name = "wcsph pressures", .stride = 4},
                   [CS_WCSPH_ARRAY_NEIGHBOUR_TERMS] = {.name = "wcsph neighbour terms", .stride = 8}},
    };
    if (!cs_fluid_create(ctx, scene, &desc, &w->fluid, err))
        return false;
    bool ok = cs_buffer_create(ctx, &(cs_buffer_desc){.name = "wcsph params", .size = sizeof(cs_wcsph_params)},
                               &w->params_buffer, err);
    bool lists = false;
    ok = ok && lists_wanted(ctx, scene->dim, &lists, err);
    // A shader that does not compile fails the scene; lists the device
    // cannot hold only cost speed (cs_fluid_try_exact_neighbours).
    ok = ok && (!lists || create_programs(w, true, err));
    if (ok)
        cs_fluid_try_exact_neighbours(&w->fluid, &w->nb, &lists);
    ok = ok && cs_wcsph_set_neighbour_lists(w, lists, err);
    if (!ok) {
        cs_wcsph_destroy(w);
        return false;
    }
    fill_params(w);
    cs_buffer_upload(ctx, &w->params_buffer, &w->params, sizeof w->params, 0);
    return true;
}

void cs_wcsph_destroy(cs_wcsph *w)
{
    cs_context *ctx = w->fluid.ctx;
    if (!ctx)
        return;
    if (w->params_buffer.buffer)
        cs_buffer_destroy(ctx, &w->params_buffer);
    if (w->nb.capacity)
        cs_neighbours_destroy(ctx, &w->nb);
    cs_fluid_destroy(&w->fluid);
    memset(w, 0, sizeof *w);
}

void cs_wcsph_record_density(cs_wcsph *w, cs_recorder *rec)
{
    cs_fluid *f = &w->fluid;
    cs_wcsph_push pc = {.count = f->count};
    cs_dispatch_desc dd = {
        .buffers = {&f->params_buffer, &w->params_buffer, &f->grid.ranges, cs_fluid_pos(f), &f->densities,
                    &f->arrays[CS_WCSPH_ARRAY_PRESSURES], &f->arrays[CS_WCSPH_ARRAY_NEIGHBOUR_TERMS]},
        .push = &pc, .push_size = sizeof pc, .threads = {f->count}};
    if (w->lists) {
        cs_neighbours_record_build(rec, &w->nb, &f->grid, cs_fluid_pos(f), f->count);
        cs_neighbours_bind(&w->nb, &dd, 7);
    }
    cs_pass_begin(rec, "wcsph: density");
    cs_fluid_dispatch(&w->fluid, rec, w->density[w->lists], &dd);
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

void cs_wcsph_record_forces(cs_wcsph *w, cs_recorder *rec)
{
    cs_fluid *f = &w->fluid;
    cs_wcsph_push pc = {.count = f->count};
    cs_pass_begin(rec, "wcsph: forces");
    cs_dispatch_desc dd = {
        .buffers = {&f->params_buffer, &w->params_buffer, &f->grid.ranges, cs_fluid_pos(f), cs_fluid_vel(f),
                    &f->arrays[CS_WCSPH_ARRAY_NEIGHBOUR_TERMS], cs_fluid_pos_alt(f), cs_fluid_vel_alt(f)},
        .push = &pc, .push_size = sizeof pc, .threads = {f->count}};
    if (f->impulse_slots)
        dd.buffers[8] = &f->body_impulses;
    if (w->lists)
        cs_neighbours_bind(&w->nb, &dd, 9);
    cs_fluid_dispatch(&w->fluid, rec, w->forces[w->lists], &dd);
    cs_barrier_compute(rec);
    cs_pass_end(rec);
    cs_fluid_swap_pos(f);
    cs_fluid_swap_vel(f);
}

void cs_wcsph_record_substep(cs_wcsph *w, cs_recorder *rec)
{
    cs_fluid *f = &w->fluid;
    cs_fluid_record_emit(f, rec);
    if (f->count) {
        cs_fluid_record_grid(f, rec, false);
        cs_wcsph_record_density(w, rec);
        cs_wcsph_record_forces(w, rec);
        cs_fluid_record_collide(f, rec, cs_fluid_pos(f), cs_fluid_vel(f));
    }
    cs_fluid_end_substep(f);
}

// ---- cs_sim_ops ----

static bool ops_create(cs_context *ctx, const cs_scene *scene, void **state, cs_error *err)
{
    cs_wcsph *w = calloc(1, sizeof *w);
    CS_ASSERT(w, "out of host memory");
    if (!cs_wcsph_create(ctx, scene, w, err)) {
        free(w);
        return false;
    }
    *state = w;
    return true;
}

static void ops_destroy(void *state)
{
    cs_wcsph_destroy(state);
    free(state);
}

static void ops_record_substep(void *state, cs_recorder *rec, const cs_substep *step)
{
    cs_wcsph *w = state;
    cs_fluid_record_pointer(&w->fluid, rec, step);
    for (uint32_t i = 0; i < w->dt_split; i++)
        cs_wcsph_record_substep(w, rec);
}

static void ops_stats(void *state, cs_sim_stats *out) { cs_fluid_stats(&((cs_wcsph *)state)->fluid, out); }

static void ops_record_stats(void *state, cs_recorder *rec) { cs_fluid_record_stats(&((cs_wcsph *)state)->fluid, rec); }
static void ops_read_stats(void *state, uint32_t frame_slot, cs_sim_stats *out)
{
    cs_fluid_read_stats(&((cs_wcsph *)state)->fluid, frame_slot, out);
}

static void ops_particles(void *state, cs_particle_view *out)
{
    cs_fluid_particles(&((cs_wcsph *)state)->fluid, out);
}

static void ops_bodies(void *state, cs_body_link *out) { cs_fluid_body_link(&((cs_wcsph *)state)->fluid, out); }

// The density pass at an interior lattice particle: norm sum_j m f(r/h),
// self included (density.comp; walls add nothing inside the fluid).
static bool ops_lattice_density(const cs_scene *scene, uint32_t material, double spacing, double *rho,
                                double *fitting_mass)
{
    // Only the block's options are wanted; the solver (a fluid base inside)
    // is too large for the stack.
    cs_wcsph *wp = calloc(1, sizeof *wp);
    CS_ASSERT(wp, "out of host memory");
    cs_error err;
    bool parsed = cs_wcsph_read_block(scene, wp, &err);
    int kernel = wp->kernel;
    free(wp);
    if (!parsed)
        return false;
    double h = scene->smoothing_radius, sum = 0.0;
    int n = (int)ceil(h / spacing) + 1;
    for (int k = (scene->dim == 3 ? -n : 0); k <= (scene->dim == 3 ? n : 0); k++)
        for (int j = -n; j <= n; j++)
            for (int i = -n; i <= n; i++)
                sum += kernel_shape(kernel, spacing * sqrt((double)(i * i + j * j + k * k)) / h);
    double per_mass = cs_wcsph_kernel_norm(kernel, scene->dim, h) * sum;
    *rho = scene->materials[material].mass * per_mass;
    *fitting_mass = per_mass > 0.0 ? scene->materials[material].rest_density / per_mass : 0.0;
    return true;
}

static bool ops_level(void *state, const cs_level_field *field, cs_error *err)
{
    return cs_fluid_set_level(&((cs_wcsph *)state)->fluid, field, err);
}

static uint32_t ops_float_buffers(void *state, cs_float_buffer *out, uint32_t max)
{
    return cs_fluid_float_buffers(&((cs_wcsph *)state)->fluid, out, max);
}

// What a checkpoint saves (sim.h state): the particle base. The neighbour
// lists are not saved: every grid build makes them again from the
// positions before anything reads them (grid.h), and the slots a list
// leaves unused hold whatever the fill's scratch left, not the same bits
// from run to run.
static uint32_t ops_state(void *state, cs_state_entry *out, uint32_t max)
{
    uint32_t n = 0;
    cs_fluid_state(&((cs_wcsph *)state)->fluid, out, &n, max);
    return n;
}

// A panel's edit of the fluid's gravity or materials (sim.h): the CFL
// split (speed of sound and viscosity set it), then the same parameters
// create computes, uploaded again.
static bool ops_retune(void *state, const cs_scene *scene, cs_error *err)
{
    cs_wcsph *w = state;
    uint32_t split = cfl_split(scene, w->cfl);
    if ((uint64_t)scene->substeps * split > WCSPH_MAX_SUBSTEPS_PER_FRAME)
        return cs_fail(err, "%s: a frame would need %llu WCSPH substeps (at most %u) for this speed of sound",
                       scene->path, (unsigned long long)scene->substeps * split, WCSPH_MAX_SUBSTEPS_PER_FRAME);
    w->dt_split = split;
    cs_fluid_retune(&w->fluid, split);
    cs_fluid_upload_params(&w->fluid);
    fill_params(w);
    cs_buffer_upload(w->fluid.ctx, &w->params_buffer, &w->params, sizeof w->params, 0);
    return true;
}

// WCSPH: the Tait equation of state, its artificial viscosity and surface tension.
const cs_sim_ops cs_wcsph_ops = {
    .state = ops_state,
    .retune = ops_retune,
    .float_buffers = ops_float_buffers,
    .solver = "wcsph",
    .keys = (const cs_scene_key_block *const[]){&cs_wcsph_keys, NULL},
    .material_keys = (const char *const[]){"name", "mass", "rest_density", "color", "absorption", "surface_tension",
                                           "speed_of_sound", "tait_gamma", "viscosity", NULL},
    .summary = "weakly compressible SPH (Becker & Teschner 2007): Tait pressure, artificial viscosity, symplectic Euler",
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
