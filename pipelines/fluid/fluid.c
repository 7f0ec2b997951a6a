// fluid.c — the particle-fluid base (see fluid.h).
#include "fluid.h"

#include "bodies.h"
#include "boundary.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

// A fluid points at its scene and reads the bodies' set from a buffer: it
// holds neither (once 420 KiB). Keep it small.
_Static_assert(sizeof(cs_fluid) <= 16384, "cs_fluid grew past 16 KiB: point at large data, do not embed it");

uint32_t cs_fluid_scene_capacity(const cs_scene *scene)
{
    if (scene->max_particles)
        return scene->max_particles;
    uint64_t n = cs_scene_block_particles(scene);
    for (uint32_t e = 0; e < scene->emitter_count; e++)
        n += scene->emitters[e].budget;
    return (uint32_t)CS_MIN(n, (uint64_t)UINT32_MAX);
}

bool cs_fluid_check_array(const cs_context *ctx, const cs_scene *scene, const char *name, uint32_t capacity,
                          uint32_t stride, cs_error *err)
{
    cs_error inner;
    if (cs_buffer_check_size(ctx, name, (VkDeviceSize)capacity * stride, &inner))
        return true;
    return cs_fail(err, "%s: %u particles do not fit on this device: %s", scene->path[0] ? scene->path : scene->name,
                   capacity, inner.msg);
}

// ---------------------------------------------------------------------------
// Creation

typedef struct fluid_buffer_plan {
    cs_buffer *buf;
    char name[64];
    uint32_t stride; // bytes per particle
} fluid_buffer_plan;

// Every per-particle buffer the base allocates, in one table, so the size
// checks and the allocation walk the same list.
static uint32_t plan_buffers(cs_fluid *f, fluid_buffer_plan *plan)
{
    uint32_t n = 0;
    const char *s = f->solver;
#define PLAN(b, nm, st) plan[n].buf = (b), snprintf(plan[n].name, sizeof plan[n].name, "%s %s", s, nm), plan[n++].stride = (st)
    PLAN(&f->positions[0], "positions", 16);
    PLAN(&f->positions[1], "positions (alt)", 16);
    PLAN(&f->velocities[0], "velocities", 16);
    PLAN(&f->velocities[1], "velocities (alt)", 16);
    if (f->desc.uses_predicted) {
        PLAN(&f->predicted[0], "predicted", 16);
        PLAN(&f->predicted[1], "predicted (alt)", 16);
    }
    PLAN(&f->materials[0], "materials", 4);
    PLAN(&f->materials[1], "materials (alt)", 4);
    PLAN(&f->ids[0], "ids", 4);
    PLAN(&f->ids[1], "ids (alt)", 4);
    PLAN(&f->densities, "densities", 4);
    static const char *const term_names[CS_FLUID_STAT_TERMS] = {"stats density error", "stats speed",
                                                                "stats kinetic", "stats non-finite",
                                                                "stats outside", "stats mass"};
    for (int t = 0; t < CS_FLUID_STAT_TERMS; t++)
        PLAN(&f->stats_terms[t], term_names[t], 4);
    for (int a = 0; a < CS_FLUID_MAX_ARRAYS && f->desc.arrays[a].name; a++) {
        plan[n].buf = &f->arrays[a];
        snprintf(plan[n].name, sizeof plan[n].name, "%s", f->desc.arrays[a].name);
        plan[n++].stride = f->desc.arrays[a].stride;
    }
#undef PLAN
    return n;
}

// Boundary integrals (see fluid_shared.h) for u = d / h in [0, 1], in units
// of h, by composite Simpson rules in double.
static double simpson(double (*fn)(double, const double *), const double *arg, double a, double b, int n)
{
    if (b <= a)
        return 0.0;
    double step = (b - a) / n, sum = fn(a, arg) + fn(b, arg);
    for (int i = 1; i < n; i++)
        sum += fn(a + i * step, arg) * (i % 2 ? 4.0 : 2.0);
    return sum * step / 3.0;
}

static double poly6_slab_3d(double u, const double *arg) { (void)arg; return pow(1.0 - u * u, 4); }
static double poly6_slab_2d(double u, const double *arg) { (void)arg; return pow(fmax(1.0 - u * u, 0.0), 3.5); }
static double spiky_line_2d(double t, const double *arg)
{
    double r = sqrt(arg[0] * arg[0] + t * t);
    return r < 1.0 ? pow(1.0 - r, 3) : 0.0;
}
static double spiky_ring_3d(double r, const double *arg) { (void)arg; return pow(1.0 - r, 3) * r; }

// The lattice spacing of a fluid's particles: the scene's, else half the
// smoothing radius (what emitters then use too).
static float cs_fluid_spacing(const cs_scene *sc)
{
    return sc->particle_spacing > 0.0f ? sc->particle_spacing : sc->smoothing_radius * 0.5f;
}

static double boundary_phi(int dim, double u)
{
    const int n = 2048;
    return dim == 3 ? 315.0 / 256.0 * simpson(poly6_slab_3d, NULL, u, 1.0, n)
                    : 4.0 / M_PI * 32.0 / 35.0 * simpson(poly6_slab_2d, NULL, u, 1.0, n);
}

// The boundary fill fraction kappa: a particle of a lattice of spacing s
// whose first row sits s/2 from a wall should have exactly the density of a
// particle inside the lattice. The continuous half-space integral misses that
// by the lattice's discreteness (2-3% at h = 2s), so the fluid beyond the
// wall is taken at kappa times rest density, kappa fitted here in double.
static double boundary_fill(int dim, double h, double s)
{
    double u = 0.5 * s / h;
    if (!(s > 0.0) || u >= 1.0)
        return 1.0;
    int n = (int)ceil(h / s) + 1;
    double full = 0.0, part = 0.0, k6 = dim == 3 ? 315.0 / (64.0 * M_PI) : 4.0 / M_PI; // h = 1 units
    for (int k = (dim == 3 ? -n : 0); k <= (dim == 3 ? n : 0); k++)
        for (int j = -n; j <= n; j++)
            for (int i = -n; i <= n; i++) {
                double r2 = (s / h) * (s / h) * (double)(i * i + j * j + k * k);
                double w = r2 < 1.0 ? k6 * pow(1.0 - r2, 3) : 0.0;
                full += w;
                if (j >= 0) // the particle's own row and the rows away from the wall
                    part += w;
            }
    double phi = boundary_phi(dim, u);
    double kappa = phi > 1e-6 ? (1.0 - part / full) / phi : 1.0;
    return CS_MIN(CS_MAX(kappa, 0.5), 1.5);
}

static void boundary_tables(int dim, double kappa, vec4 *out)
{
    const int n = 2048;
    for (int k = 0; k < CS_FLUID_BOUNDARY_SAMPLES; k++) {
        double u = (double)k / (CS_FLUID_BOUNDARY_SAMPLES - 1);
        double phi, g;
        if (dim == 3) {
            // poly6 over the half-space: (pi K / 4) int_d^h (h^2 - z^2)^4 dz;
            // spiky over the plane: 2 pi K int_d^h (h - r)^3 r dr.
            phi = 315.0 / 256.0 * simpson(poly6_slab_3d, NULL, u, 1.0, n);
            g = 30.0 * simpson(spiky_ring_3d, NULL, u, 1.0, n);
        } else {
            // poly6: K (32/35) int_d^h (h^2 - x^2)^(7/2) dx; spiky over the line.
            phi = 4.0 / M_PI * 32.0 / 35.0 * simpson(poly6_slab_2d, NULL, u, 1.0, n);
            double a = sqrt(fmax(1.0 - u * u, 0.0));
            g = 10.0 / M_PI * simpson(spiky_line_2d, &u, -a, a, n);
        }
        out[k] = (vec4){(float)(kappa * phi), (float)(kappa * g), 0.0f, 0.0f};
    }
}

// The real-time mode's speed clamp (scene.h cs_realtime_options; fluid.glsl
// cs_clamp_speed): a particle moves at most max_step x h a substep. FleX
// clamps at 0.5 x its particle `radius` a substep (maxSpeed = 0.5 radius
// substeps / frame dt); FleX's radius is a fluid particle's interaction
// radius, what the kernel support h is here (its rest distance is about
// half of it, as the lattice spacing is h / 2 here), so the default 0.5 h is
// one lattice spacing a substep: a neighbour grid of cells h built on x*
// still finds every pair, and the run check's limit (3 h a substep) is far.
// 0 (no clamp) in the physical mode, which keeps the shaders' old results:
// the clamp is a branch not taken.
static float speed_limit(const cs_scene *sc, float dt)
{
    if (!sc->realtime.enabled || !(dt > 0.0f))
        return 0.0f;
    return (float)((double)sc->realtime.max_step * sc->smoothing_radius / dt);
}

float cs_fluid_speed_limit(const cs_fluid *f)
{
    return f->params.wall.y;
}

static void fill_params(cs_fluid *f, const cs_boundary_set *boundary_set)
{
    const cs_scene *sc = f->scene;
    cs_fluid_params *p = &f->params;
    memset(p, 0, sizeof *p);
    float h = sc->smoothing_radius;
    bool d3 = f->dim == 3;
    p->domain_min = (vec4){sc->domain_min[0], sc->domain_min[1], d3 ? sc->domain_min[2] : 0.0f, h};
    p->domain_max = (vec4){sc->domain_max[0], sc->domain_max[1], d3 ? sc->domain_max[2] : 0.0f, f->dt};
    p->gravity = (vec4){sc->gravity[0], sc->gravity[1], d3 ? sc->gravity[2] : 0.0f, sc->boundary_restitution};
    p->grid_origin = (vec4){f->grid.origin[0], f->grid.origin[1], f->grid.origin[2], 1.0f / f->grid.cell_size};
    p->grid_dims = (uvec4){f->grid.dims[0], f->grid.dims[1], f->grid.dims[2], f->grid.cell_count};
    double hd = h;
    double poly6 = d3 ? 315.0 / (64.0 * M_PI * pow(hd, 9)) : 4.0 / (M_PI * pow(hd, 8));
    double spiky_grad = d3 ? 45.0 / (M_PI * pow(hd, 6)) : 30.0 / (M_PI * pow(hd, 5));
    p->kernel = (vec4){(float)poly6, (float)spiky_grad, (float)(hd * hd), (float)(1.0 / hd)};
    p->counts = (uvec4){0, sc->material_count, (uint32_t)f->dim, f->capacity};
    p->boundary_set = *boundary_set;
    for (uint32_t m = 0; m < sc->material_count && m < CS_FLUID_MAX_MATERIALS; m++) {
        const cs_material *mat = &sc->materials[m];
        p->materials[m] = (vec4){mat->mass, mat->rest_density, mat->mass / mat->rest_density, 0.0f};
    }
    f->boundary_fill = boundary_fill(f->dim, sc->smoothing_radius, sc->particle_spacing);
    boundary_tables(f->dim, f->boundary_fill, p->boundary);
    p->wall = (vec4){0.5f * cs_fluid_spacing(sc), speed_limit(sc, f->dt), 0.0f, 0.0f};
}

void cs_fluid_retune(cs_fluid *f, uint32_t split)
{
    const cs_scene *sc = f->scene;
    bool d3 = f->dim == 3;
    split = CS_MAX(split, 1u);
    f->desc.dt_split = split;
    f->dt = sc->dt / (float)split;
    f->substeps = sc->substeps * split;
    f->params.domain_max.w = f->dt;
    f->params.gravity = (vec4){sc->gravity[0], sc->gravity[1], d3 ? sc->gravity[2] : 0.0f, sc->boundary_restitution};
    f->params.wall.y = speed_limit(sc, f->dt);
}

void cs_fluid_upload_params(cs_fluid *f)
{
    cs_buffer_upload(f->ctx, &f->params_buffer, &f->params, sizeof f->params, 0);
}

void cs_fluid_dispatch(cs_fluid *f, cs_recorder *rec, cs_program_id program, const cs_dispatch_desc *desc)
{
    const cs_program *prog = cs_program_get(f->ctx, program);
    if (!(prog->reflection.binding_mask & (1u << CS_BODY_SET_BINDING))) {
        cs_dispatch(rec, program, desc);
        return;
    }
    cs_dispatch_desc dd = *desc;
    CS_ASSERT(!dd.buffers[CS_BODY_SET_BINDING], "binding %d is the bodies' set", CS_BODY_SET_BINDING);
    dd.buffers[CS_BODY_SET_BINDING] = f->shared_body_set ? f->shared_body_set : &f->own_body_set;
    cs_dispatch(rec, program, &dd);
}

bool cs_fluid_program(cs_fluid *f, const char *path, const cs_define *defines, cs_program_id *prog, cs_error *err)
{
    CS_ASSERT(f->program_count < CS_FLUID_MAX_PROGRAMS, "too many fluid programs");
    cs_program_desc pd = {.path = path};
    pd.defines[0] = (cs_define){"DIM", f->dim == 3 ? "3" : "2"};
    // How many materials the shaders' register tables hold (fluid.glsl,
    // cs_pick_material); the create function checked it is 1..8.
    char materials[4];
    snprintf(materials, sizeof materials, "%u", CS_MIN(CS_MAX(f->scene->material_count, 1u), (uint32_t)CS_FLUID_MAX_MATERIALS));
    pd.defines[1] = (cs_define){"CS_MATERIAL_COUNT", materials};
    for (int i = 0; defines && defines[i].name && i + 2 < CS_MAX_DEFINES; i++)
        pd.defines[i + 2] = defines[i];
    if (!cs_program_create(f->ctx, &pd, prog, err))
        return false;
    f->programs[f->program_count++] = *prog;
    return true;
}

bool cs_fluid_create_neighbours(cs_fluid *f, double radius_over_h, double slack, cs_neighbours *nb, cs_error *err)
{
    const cs_scene *sc = f->scene;
    double h = sc->smoothing_radius;
    double spacing = sc->particle_spacing > 0.0f ? sc->particle_spacing : h * 0.5;
    double radius = h * radius_over_h;
    char name[64];
    snprintf(name, sizeof name, "%s neighbours", f->solver);
    cs_neighbours_desc nd = {
        .name = name,
        .radius = (float)radius,
        .capacity = f->capacity,
        .slots = cs_neighbours_slots(f->dim, radius, spacing, slack),
        .cell_count = f->grid.cell_count,
    };
    return cs_neighbours_create(f->ctx, &nd, nb, err);
}

bool cs_fluid_create_exact_neighbours(cs_fluid *f, cs_neighbours *nb, cs_error *err)
{
    return cs_fluid_create_neighbours(f, 1.0 + 1e-4, 2.0, nb, err);
}

void cs_fluid_try_exact_neighbours(cs_fluid *f, cs_neighbours *nb, bool *on)
{
    cs_error err;
    if (*on && !nb->capacity && !cs_fluid_create_exact_neighbours(f, nb, &err)) {
        fprintf(stderr, "cistern: note: %s neighbour lists left off: %s\n", f->solver, err.msg);
        *on = false;
    }
}

bool cs_fluid_lists_wanted(const cs_context *ctx, const char *env_var, bool fallback, bool *wanted, cs_error *err)
{
    const char *env = cs_settings_get(&ctx->settings, env_var);
    CS_ASSERT(env, "%s is not a setting (settings.c)", env_var);
    *wanted = fallback;
    if (!cs_neighbours_check_env(ctx, err))
        return false;
    if (!*env)
        return true;
    if (strcmp(env, "on") != 0 && strcmp(env, "off") != 0)
        return cs_fail(err, "%s=%s: expected on or off (or unset it for the scene's choice)", env_var, env);
    *wanted = strcmp(env, "on") == 0;
    return true;
}

static bool check_scene(const cs_scene *sc, cs_error *err)
{
    const char *where = sc->path[0] ? sc->path : sc->name;
    if (sc->dim != 2 && sc->dim != 3)
        return cs_fail(err, "%s: dim must be 2 or 3 (got %d)", where, sc->dim);
    if (!(sc->dt > 0.0f))
        return cs_fail(err, "%s: dt must be positive (got %g)", where, (double)sc->dt);
    if (!(sc->smoothing_radius > 0.0f))
        return cs_fail(err, "%s: smoothing_radius must be positive (got %g)", where, (double)sc->smoothing_radius);
    if (sc->material_count == 0)
        return cs_fail(err, "%s: the scene has no material", where);
    for (uint32_t m = 0; m < sc->material_count; m++)
        if (!(sc->materials[m].rest_density > 0.0f) || !(sc->materials[m].mass > 0.0f))
            return cs_fail(err, "%s: materials[%u] (%s) needs a positive mass and rest_density", where, m,
                           sc->materials[m].name);
    return true;
}

static bool create(cs_context *ctx, const cs_scene *scene, const cs_fluid_desc *desc, cs_fluid *f,
                   const cs_boundary_set *boundary_set, const cs_body_set *body_set, cs_error *err);

bool cs_fluid_create(cs_context *ctx, const cs_scene *scene, const cs_fluid_desc *desc, cs_fluid *f,
                     cs_error *err)
{
    memset(f, 0, sizeof *f);
    // The boundary set (domain box faces + walls) every wall model reads;
    // building it also refuses a scene with more walls than it holds.
    cs_boundary_set boundary_set;
    // The bodies' set is a quarter megabyte: on the heap, not the stack.
    cs_body_set *body_set = malloc(sizeof *body_set);
    CS_ASSERT(body_set, "out of host memory");
    if (!check_scene(scene, err) || !cs_boundary_set_build(scene, &boundary_set, err) ||
        !cs_bodies_set_build(scene, body_set, err)) {
        free(body_set);
        return false;
    }
    bool created = create(ctx, scene, desc, f, &boundary_set, body_set, err);
    free(body_set);
    return created;
}

static bool create(cs_context *ctx, const cs_scene *scene, const cs_fluid_desc *desc, cs_fluid *f,
                   const cs_boundary_set *boundary_set, const cs_body_set *body_set, cs_error *err)
{
    f->ctx = ctx;
    f->desc = *desc;
    f->scene = scene;
    uint32_t split = CS_MAX(desc->dt_split, 1u);
    f->dt = scene->dt / (float)split;
    f->substeps = scene->substeps * split;
    snprintf(f->scene_name, sizeof f->scene_name, "%s", scene->name);
    snprintf(f->solver, sizeof f->solver, "%s", desc->solver ? desc->solver : "fluid");
    f->dim = scene->dim;
    f->capacity = cs_fluid_scene_capacity(scene);
    const char *where = scene->path[0] ? scene->path : scene->name;
    uint32_t blocks = cs_scene_block_particles(scene);
    if (blocks > f->capacity)
        return cs_fail(err, "%s: the fluid blocks make %u particles but max_particles is %u", where, blocks,
                       f->capacity);

    // Refuse what the device cannot hold before allocating anything: every
    // buffer against maxStorageBufferRange, then the sum against the heap.
    fluid_buffer_plan plan[32];
    uint32_t plan_count = plan_buffers(f, plan);
    VkDeviceSize total = 0;
    for (uint32_t i = 0; i < plan_count; i++) {
        if (!cs_fluid_check_array(ctx, scene, plan[i].name, f->capacity, plan[i].stride, err))
            return false;
        total += (VkDeviceSize)f->capacity * plan[i].stride;
    }
    char grid_name[64];
    snprintf(grid_name, sizeof grid_name, "%s grid", f->solver);
    cs_grid_desc gd = {
        .name = grid_name,
        .dim = scene->dim,
        .domain_min = {scene->domain_min[0], scene->domain_min[1], scene->domain_min[2]},
        .domain_max = {scene->domain_max[0], scene->domain_max[1], scene->domain_max[2]},
        .cell_size = scene->smoothing_radius,
        .capacity = f->capacity,
    };
    cs_grid layout;
    cs_error inner;
    if (!cs_grid_layout(&gd, &layout, &inner))
        return cs_fail(err, "%s: %s", where, inner.msg);
    if (!cs_grid_check_sizes(ctx, &gd, err))
        return false;
    // Grid: keys, order, sort scratch (keys, values, ~histograms), ranges.
    total += (VkDeviceSize)f->capacity * 4 * 4 + (VkDeviceSize)layout.cell_count * 8;
    VkDeviceSize heap = 0;
    for (uint32_t h = 0; h < ctx->memory_props.memoryHeapCount; h++)
        heap = CS_MAX(heap, ctx->memory_props.memoryHeaps[h].size);
    if (ctx->bytes_allocated + total > heap) {
        char need[32], have[32];
        return cs_fail(err, "%s: %u particles need %s of device memory but %s has %s; lower the particle count",
                       where, f->capacity, cs_format_bytes(total, need, sizeof need), ctx->props.deviceName,
                       cs_format_bytes(heap, have, sizeof have));
    }

    // Allocate.
    bool ok = true;
    for (uint32_t i = 0; i < plan_count && ok; i++)
        ok = cs_buffer_create(ctx, &(cs_buffer_desc){.name = plan[i].name, .size = (VkDeviceSize)f->capacity * plan[i].stride},
                              plan[i].buf, err);
    // Zeroed, not left as allocated: a checkpoint saves every per-particle
    // buffer, scratch arrays a scene never writes included (PBF's curl
    // without vorticity), and memory as allocated made two runs' checkpoint
    // files differ there now and then.
    for (uint32_t i = 0; i < plan_count && ok; i++)
        cs_buffer_fill(ctx, plan[i].buf, 0);
    char name[64];
    snprintf(name, sizeof name, "%s params", f->solver);
    ok = ok && cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = sizeof(cs_fluid_params)},
                                &f->params_buffer, err);
    snprintf(name, sizeof name, "%s stats", f->solver);
    ok = ok && cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = 16 * sizeof(float)}, &f->stats_out, err);
    snprintf(name, sizeof name, "%s stats readback", f->solver);
    for (uint32_t i = 0; i < CS_FRAME_SLOTS; i++)
        ok = ok && cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = 16 * sizeof(float), .host_visible = true},
                                    &f->stats_readback[i], err);
    ok = ok && cs_grid_create(ctx, &gd, &f->grid, err);
    ok = ok && cs_reduce_create(ctx, CS_MAX(f->capacity, 1u), &f->reduce, err);
    snprintf(name, sizeof name, "%s bodies (initial)", f->solver);
    ok = ok && cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = sizeof(cs_body_set)}, &f->own_body_set,
                                err);
    snprintf(name, sizeof name, "%s level field (none)", f->solver);
    ok = ok && cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = 16}, &f->level_field, err);
    static const cs_define with_predicted[] = {{"HAS_PREDICTED", "1"}, {NULL, NULL}};
    static const cs_define with_velocity[] = {{"WITH_VELOCITY", "1"}, {NULL, NULL}};
    static const cs_define with_w_material[] = {{"PREDICTED_W_MATERIAL", "1"}, {NULL, NULL}};
    ok = ok && cs_fluid_program(f, "fluid/predict.comp", desc->predicted_w_material ? with_w_material : NULL,
                                &f->predict, err);
    // The same with the grid build's cell ids and ranges clear in it.
    static const cs_define cells[] = {{"CELL_IDS", "1"}, {NULL, NULL}};
    static const cs_define cells_w_material[] = {{"CELL_IDS", "1"}, {"PREDICTED_W_MATERIAL", "1"}, {NULL, NULL}};
    if (desc->uses_predicted)
        ok = ok && cs_fluid_program(f, "fluid/predict.comp", desc->predicted_w_material ? cells_w_material : cells,
                                    &f->predict_cells, err);
    ok = ok && cs_fluid_program(f, "fluid/reorder.comp", desc->uses_predicted ? with_predicted : NULL, &f->reorder, err);
    // With moving bodies the velocity collide also hands them impulses.
    static const cs_define with_impulses[] = {{"WITH_VELOCITY", "1"}, {"WITH_IMPULSES", "1"}, {NULL, NULL}};
    f->impulse_slots = body_set->counts.w;
    if (f->impulse_slots) {
        snprintf(name, sizeof name, "%s body impulses", f->solver);
        // Contact records (bodies_shared.h): a fixed number per particle,
        // however many bodies the scene has.
        uint32_t record_bytes = 4 * CS_BODY_RECORD_FLOATS * CS_BODY_RECORDS_PER_PARTICLE;
        ok = ok && cs_fluid_check_array(ctx, scene, name, f->capacity, record_bytes, err) &&
             cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = (VkDeviceSize)f->capacity * record_bytes},
                              &f->body_impulses, err);
    }
    ok = ok && cs_fluid_program(f, "fluid/collide.comp", f->impulse_slots ? with_impulses : with_velocity, &f->collide, err);
    ok = ok && cs_fluid_program(f, "fluid/collide.comp", NULL, &f->collide_positions, err);
    static const cs_define emit_w_material[] = {{"POSITIONS_W_MATERIAL", "1"}, {NULL, NULL}};
    ok = ok && cs_fluid_program(f, "fluid/emit.comp", desc->positions_w_material ? emit_w_material : NULL, &f->emit,
                                err);
    ok = ok && cs_fluid_program(f, "fluid/stats.comp", NULL, &f->stats, err);
    if (!ok) {
        cs_fluid_destroy(f);
        return false;
    }
    snprintf(name, sizeof name, "%s stats", f->solver);
    cs_recorder_create(ctx, name, &f->stats_rec);

    fill_params(f, boundary_set);
    cs_buffer_upload(ctx, &f->own_body_set, body_set, sizeof *body_set, 0);
    cs_fluid_upload_params(f);

    // Blocks: lattice particles in block order; ids are creation indices.
    f->block_count = blocks;
    f->count = blocks;
    if (blocks) {
        float *pos = calloc((size_t)blocks * 4, sizeof(float));
        float *vel = calloc((size_t)blocks * 4, sizeof(float));
        uint32_t *mat = calloc(blocks, sizeof(uint32_t));
        float *dens = calloc(blocks, sizeof(float));
        uint32_t *ids = calloc(blocks, sizeof(uint32_t));
        CS_ASSERT(pos && vel && mat && dens && ids, "out of host memory for %u particles", blocks);
        uint32_t written = cs_scene_fill_blocks(scene, pos, vel, mat, blocks);
        CS_ASSERT(written == blocks, "fill_blocks wrote %u of %u", written, blocks);
        for (uint32_t i = 0; i < blocks; i++) {
            if (f->dim == 2)
                pos[i * 4 + 2] = vel[i * 4 + 2] = 0.0f;
            if (mat[i] >= scene->material_count)
                mat[i] = 0;
            dens[i] = scene->materials[mat[i]].rest_density;
            ids[i] = i;
            if (desc->positions_w_material)
                pos[i * 4 + 3] = (float)mat[i]; // a small integer, exact as a float
        }
        cs_buffer_upload(ctx, cs_fluid_pos(f), pos, (VkDeviceSize)blocks * 16, 0);
        cs_buffer_upload(ctx, cs_fluid_vel(f), vel, (VkDeviceSize)blocks * 16, 0);
        cs_buffer_upload(ctx, cs_fluid_mat(f), mat, (VkDeviceSize)blocks * 4, 0);
        cs_buffer_upload(ctx, cs_fluid_ids(f), ids, (VkDeviceSize)blocks * 4, 0);
        cs_buffer_upload(ctx, &f->densities, dens, (VkDeviceSize)blocks * 4, 0);
        if (desc->uses_predicted)
            cs_buffer_upload(ctx, cs_fluid_pred(f), pos, (VkDeviceSize)blocks * 16, 0);
        free(pos);
        free(vel);
        free(mat);
        free(dens);
        free(ids);
    }
    return true;
}

void cs_fluid_destroy(cs_fluid *f)
{
    if (!f->ctx)
        return;
    cs_context *ctx = f->ctx;
    if (f->stats_rec.ctx)
        cs_recorder_destroy(&f->stats_rec);
    // Every program built through cs_fluid_program, the solver's included:
    // the solver state that holds them is still alive here.
    for (uint32_t i = 0; i < f->program_count; i++)
        cs_program_destroy(ctx, &f->programs[i]);
    if (f->reduce.capacity)
        cs_reduce_destroy(ctx, &f->reduce);
    if (f->grid.capacity || f->grid.keys.buffer)
        cs_grid_destroy(ctx, &f->grid);
    fluid_buffer_plan plan[32];
    uint32_t plan_count = plan_buffers(f, plan);
    for (uint32_t i = 0; i < plan_count; i++)
        if (plan[i].buf->buffer)
            cs_buffer_destroy(ctx, plan[i].buf);
    if (f->params_buffer.buffer)
        cs_buffer_destroy(ctx, &f->params_buffer);
    if (f->stats_out.buffer)
        cs_buffer_destroy(ctx, &f->stats_out);
    for (uint32_t i = 0; i < CS_FRAME_SLOTS; i++)
        if (f->stats_readback[i].buffer)
            cs_buffer_destroy(ctx, &f->stats_readback[i]);
    if (f->body_impulses.buffer)
        cs_buffer_destroy(ctx, &f->body_impulses);
    if (f->level_field.buffer)
        cs_buffer_destroy(ctx, &f->level_field);
    if (f->own_body_set.buffer)
        cs_buffer_destroy(ctx, &f->own_body_set);
    memset(f, 0, sizeof *f);
}

// ---------------------------------------------------------------------------
// Per-substep passes

static cs_fluid_push base_push(const cs_fluid *f)
{
    return (cs_fluid_push){.count = f->count};
}

double cs_fluid_time(const cs_fluid *f)
{
    return (double)f->substep_index * (double)f->dt;
}

void cs_fluid_record_pointer(cs_fluid *f, cs_recorder *rec, const cs_substep *step)
{
    vec4 pointer = {0}, force = {0};
    if (step->pointer_mode != 0) {
        float radius = step->pointer_radius > 0.0f ? step->pointer_radius : 4.0f * f->scene->smoothing_radius;
        pointer = (vec4){step->pointer_at[0], step->pointer_at[1], f->dim == 2 ? 0.0f : step->pointer_at[2], radius};
        force = (vec4){(float)step->pointer_mode * step->pointer_strength, step->pointer_damping, 0.0f, 0.0f};
    }
    if (memcmp(&pointer, &f->params.pointer, sizeof pointer) == 0 &&
        memcmp(&force, &f->params.pointer_force, sizeof force) == 0)
        return;
    f->params.pointer = pointer;
    f->params.pointer_force = force;
    // The two vec4 lie side by side at the end of the parameters.
    cs_cmd_update(rec, &f->params_buffer, &f->params.pointer, 2 * sizeof(vec4), offsetof(cs_fluid_params, pointer));
}

void cs_fluid_end_substep(cs_fluid *f)
{
    f->substep_index++;
}

// Two unit vectors across the jet direction d (only u is used in 2D).
static void across_vectors(const float d[3], int dim, float u[3], float v[3])
{
    if (dim == 2) {
        u[0] = -d[1], u[1] = d[0], u[2] = 0.0f;
        v[0] = v[1] = v[2] = 0.0f;
        return;
    }
    // Cross with the axis least aligned with d.
    float a[3] = {0, 0, 0};
    int least = 0;
    for (int i = 1; i < 3; i++)
        if (fabsf(d[i]) < fabsf(d[least]))
            least = i;
    a[least] = 1.0f;
    u[0] = d[1] * a[2] - d[2] * a[1];
    u[1] = d[2] * a[0] - d[0] * a[2];
    u[2] = d[0] * a[1] - d[1] * a[0];
    float len = sqrtf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int i = 0; i < 3; i++)
        u[i] /= len;
    v[0] = d[1] * u[2] - d[2] * u[1];
    v[1] = d[2] * u[0] - d[0] * u[2];
    v[2] = d[0] * u[1] - d[1] * u[0];
}

void cs_fluid_record_emit(cs_fluid *f, cs_recorder *rec)
{
    const cs_scene *sc = f->scene;
    double t = cs_fluid_time(f);
    bool any = false;
    for (uint32_t e = 0; e < sc->emitter_count; e++) {
        const cs_emitter *em = &sc->emitters[e];
        if (!(em->rate > 0.0f) || em->budget == 0 || t < (double)em->start_time)
            continue;
        // Particle k is born at start + k / rate: all with birth <= t exist.
        double born = floor((t - (double)em->start_time) * (double)em->rate) + 1.0;
        uint32_t target = (uint32_t)CS_MIN(born, (double)em->budget);
        if (target <= f->emitted[e])
            continue;
        uint32_t n = CS_MIN(target - f->emitted[e], f->capacity - f->count);
        if (n == 0)
            continue;
        if (!any)
            cs_pass_begin(rec, "emit");
        any = true;
        float spacing = cs_fluid_spacing(sc);
        uint32_t slots = (uint32_t)CS_MAX(1.0f, floorf(em->width / spacing + 1e-3f));
        float u[3], v[3];
        across_vectors(em->direction, f->dim, u, v);
        double first_birth = (double)em->start_time + (double)f->emitted[e] / (double)em->rate;
        cs_fluid_push pc = {
            .count = n,
            .first = f->count,
            .emitted_before = f->emitted[e],
            .material = em->material < sc->material_count ? em->material : 0,
            .origin = {em->position[0], em->position[1], f->dim == 3 ? em->position[2] : 0.0f,
                       (float)(t - first_birth)},
            .direction = {em->direction[0], em->direction[1], f->dim == 3 ? em->direction[2] : 0.0f, em->speed},
            .across_u = {u[0] * spacing, u[1] * spacing, u[2] * spacing, (float)slots},
            .across_v = {v[0] * spacing, v[1] * spacing, v[2] * spacing, f->dim == 3 ? (float)slots : 1.0f},
            .timing = {(float)(1.0 / (double)em->rate), em->speed_jitter, 0.0f, 0.0f},
            .seed = {sc->seed, e, 0, 0},
        };
        cs_fluid_dispatch(f, rec, f->emit, &(cs_dispatch_desc){
            .buffers = {NULL, cs_fluid_pos(f), cs_fluid_vel(f), cs_fluid_mat(f), cs_fluid_ids(f)},
            .push = &pc, .push_size = sizeof pc, .threads = {n}});
        f->count += n;
        f->emitted[e] += n;
    }
    if (any) {
        cs_barrier_compute(rec);
        cs_pass_end(rec);
    }
}

void cs_fluid_record_predict(cs_fluid *f, cs_recorder *rec)
{
    CS_ASSERT(f->desc.uses_predicted, "predict needs uses_predicted");
    cs_fluid_push pc = base_push(f);
    cs_pass_begin(rec, "predict");
    cs_fluid_dispatch(f, rec, f->predict, &(cs_dispatch_desc){
        .buffers = {&f->params_buffer, cs_fluid_pos(f), cs_fluid_vel(f), cs_fluid_pred(f), cs_fluid_mat(f)},
        .push = &pc, .push_size = sizeof pc, .threads = {f->count}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

// "grid: reorder": every state array gathered into the grid's cell order;
// the current buffers swap.
static void record_reorder(cs_fluid *f, cs_recorder *rec)
{
    cs_fluid_push pc = base_push(f);
    cs_pass_begin(rec, "grid: reorder");
    cs_dispatch_desc dd = {
        .buffers = {&f->grid.order, cs_fluid_pos(f), cs_fluid_pos_alt(f), cs_fluid_vel(f), cs_fluid_vel_alt(f),
                    &f->materials[f->state_cur], &f->materials[f->state_cur ^ 1u], &f->ids[f->state_cur],
                    &f->ids[f->state_cur ^ 1u]},
        .push = &pc, .push_size = sizeof pc, .threads = {f->count}};
    if (f->desc.uses_predicted) {
        dd.buffers[9] = cs_fluid_pred(f);
        dd.buffers[10] = cs_fluid_pred_alt(f);
    }
    cs_fluid_dispatch(f, rec, f->reorder, &dd);
    cs_barrier_compute(rec);
    cs_pass_end(rec);
    f->pos_cur ^= 1u;
    f->vel_cur ^= 1u;
    f->state_cur ^= 1u;
    if (f->desc.uses_predicted)
        f->pred_cur ^= 1u;
}

void cs_fluid_record_grid(cs_fluid *f, cs_recorder *rec, bool on_predicted)
{
    CS_ASSERT(!on_predicted || f->desc.uses_predicted, "grid on predicted needs uses_predicted");
    cs_grid_record_build(rec, &f->grid, on_predicted ? cs_fluid_pred(f) : cs_fluid_pos(f), f->count);
    record_reorder(f, rec);
}

void cs_fluid_record_predict_grid(cs_fluid *f, cs_recorder *rec)
{
    CS_ASSERT(f->desc.uses_predicted, "predict needs uses_predicted");
    cs_grid *g = &f->grid;
    CS_ASSERT(f->count <= g->capacity, "grid build of %u particles, capacity %u", f->count, g->capacity);
    cs_grid_push pc = cs_grid_push_for(g, f->count);
    cs_pass_begin(rec, "predict");
    cs_fluid_dispatch(f, rec, f->predict_cells, &(cs_dispatch_desc){
        .buffers = {&f->params_buffer, cs_fluid_pos(f), cs_fluid_vel(f), cs_fluid_pred(f), cs_fluid_mat(f), &g->keys,
                    &g->order, &g->ranges},
        .push = &pc, .push_size = sizeof pc, .threads = {CS_MAX(f->count, g->cell_count)}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
    cs_grid_record_sort_and_ranges(rec, g, f->count);
    record_reorder(f, rec);
}

void cs_fluid_record_collide(cs_fluid *f, cs_recorder *rec, cs_buffer *positions, cs_buffer *velocities)
{
    cs_fluid_push pc = base_push(f);
    cs_pass_begin(rec, "collide");
    cs_dispatch_desc dd = {.buffers = {&f->params_buffer, positions, velocities},
                           .push = &pc, .push_size = sizeof pc, .threads = {f->count}};
    dd.buffers[CS_LEVEL_FIELD_BINDING] = &f->level_field;
    if (velocities && f->impulse_slots) {
        dd.buffers[3] = &f->body_impulses;
        dd.buffers[4] = cs_fluid_mat(f);
    }
    cs_fluid_dispatch(f, rec, velocities ? f->collide : f->collide_positions, &dd);
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

// Block particles that start inside the level or the geometry (their
// field below 0) are left out before the first step, the rest compacted
// in block order (ids renumbered: still creation indices): pushed out all
// at once they ran at 120-240 m/s (issue 28's audit, a block two-thirds in
// a level's floor). Said on stderr with the count; every one of them in
// solid is refused.
static bool leave_out_solid(cs_fluid *f, const cs_level_field *field, cs_error *err)
{
    uint32_t n = f->block_count;
    if (!n || f->substep_index != 0 || f->count != n)
        return true;
    float *pos = malloc((size_t)n * 16), *vel = malloc((size_t)n * 16), *dens = malloc((size_t)n * 4);
    uint32_t *mat = malloc((size_t)n * 4), *ids = malloc((size_t)n * 4);
    CS_ASSERT(pos && vel && dens && mat && ids, "out of host memory for %u particles", n);
    cs_buffer_download(f->ctx, cs_fluid_pos(f), pos, (VkDeviceSize)n * 16, 0);
    cs_buffer_download(f->ctx, cs_fluid_vel(f), vel, (VkDeviceSize)n * 16, 0);
    cs_buffer_download(f->ctx, cs_fluid_mat(f), mat, (VkDeviceSize)n * 4, 0);
    cs_buffer_download(f->ctx, &f->densities, dens, (VkDeviceSize)n * 4, 0);
    double origin[3] = {field->origin[0], field->origin[1], field->origin[2]};
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        double p[3] = {pos[i * 4], pos[i * 4 + 1], pos[i * 4 + 2]};
        if (cs_level_field_sample(origin, field->cell, field->dims, field->values, p) < 0.0)
            continue;
        memmove(&pos[kept * 4], &pos[i * 4], 16);
        memmove(&vel[kept * 4], &vel[i * 4], 16);
        mat[kept] = mat[i];
        dens[kept] = dens[i];
        ids[kept] = kept;
        kept++;
    }
    const char *where = f->scene->path[0] ? f->scene->path : f->scene->name;
    bool ok = true;
    if (kept == 0)
        ok = cs_fail(err, "%s: fluid \"%s\": all %u block particles start inside the level or the geometry (where "
                          "its distance field is below 0); move the blocks into open space",
                     where, f->scene->fluid_name, n);
    else if (kept < n) {
        fprintf(stderr, "cistern: %s: fluid \"%s\": %u of %u block particles start inside the level or the "
                        "geometry and are left out\n", where, f->scene->fluid_name, n - kept, n);
        cs_buffer_upload(f->ctx, cs_fluid_pos(f), pos, (VkDeviceSize)kept * 16, 0);
        cs_buffer_upload(f->ctx, cs_fluid_vel(f), vel, (VkDeviceSize)kept * 16, 0);
        cs_buffer_upload(f->ctx, cs_fluid_mat(f), mat, (VkDeviceSize)kept * 4, 0);
        cs_buffer_upload(f->ctx, cs_fluid_ids(f), ids, (VkDeviceSize)kept * 4, 0);
        cs_buffer_upload(f->ctx, &f->densities, dens, (VkDeviceSize)kept * 4, 0);
        if (f->desc.uses_predicted)
            cs_buffer_upload(f->ctx, cs_fluid_pred(f), pos, (VkDeviceSize)kept * 16, 0);
        f->count = f->block_count = kept;
    }
    free(pos);
    free(vel);
    free(dens);
    free(mat);
    free(ids);
    return ok;
}

bool cs_fluid_set_level(cs_fluid *f, const cs_level_field *field, cs_error *err)
{
    const char *where = f->scene->path[0] ? f->scene->path : f->scene->name;
    if (f->dim != 3)
        return cs_fail(err, "%s: a level needs a 3D fluid (dim is %d)", where, f->dim);
    if (!leave_out_solid(f, field, err))
        return false;
    VkDeviceSize size = (VkDeviceSize)field->dims[0] * field->dims[1] * field->dims[2] * sizeof(float);
    char name[64];
    snprintf(name, sizeof name, "%s level field", f->solver);
    cs_error inner;
    if (!cs_buffer_check_size(f->ctx, name, size, &inner))
        return cs_fail(err, "%s: the level's distance field (%u x %u x %u nodes) does not fit: %s", where,
                       field->dims[0], field->dims[1], field->dims[2], inner.msg);
    cs_buffer buffer;
    if (!cs_buffer_create(f->ctx, &(cs_buffer_desc){.name = name, .size = size}, &buffer, err))
        return false;
    cs_buffer_upload(f->ctx, &buffer, field->values, size, 0);
    cs_buffer_destroy(f->ctx, &f->level_field);
    f->level_field = buffer;
    f->has_level = true;
    f->params.level_origin = (vec4){field->origin[0], field->origin[1], field->origin[2], 1.0f / field->cell};
    f->params.level_dims = (uvec4){field->dims[0], field->dims[1], field->dims[2], 1u};
    cs_fluid_upload_params(f);
    return true;
}

void cs_fluid_body_link(cs_fluid *f, cs_body_link *out)
{
    *out = (cs_body_link){
        .reads_set = &f->shared_body_set,
        .impulses = f->impulse_slots ? &f->body_impulses : NULL,
        .count = f->count,
        .capacity = f->capacity,
    };
}

// ---------------------------------------------------------------------------
// Read-back

enum {
    OUT_DENSITY_ERROR_SUM,
    OUT_DENSITY_ERROR_MAX,
    OUT_SPEED_MAX,
    OUT_KINETIC_SUM,
    OUT_NON_FINITE_SUM,
    OUT_OUTSIDE_SUM,
    OUT_MASS_SUM,
    OUT_COUNT
};

void cs_fluid_record_stats(cs_fluid *f, cs_recorder *rec)
{
    CS_ASSERT(rec->frame_slot < CS_FRAME_SLOTS, "frame slot %u", rec->frame_slot);
    f->stats_count[rec->frame_slot] = f->count;
    if (f->count == 0)
        return;
    cs_fluid_push pc = base_push(f);
    cs_pass_begin(rec, "stats");
    cs_fluid_dispatch(f, rec, f->stats, &(cs_dispatch_desc){
        .buffers = {&f->params_buffer, cs_fluid_pos(f), cs_fluid_vel(f), &f->densities, cs_fluid_mat(f),
                    &f->stats_terms[0], &f->stats_terms[1], &f->stats_terms[2], &f->stats_terms[3],
                    &f->stats_terms[4], &f->stats_terms[5]},
        .push = &pc, .push_size = sizeof pc, .threads = {f->count}});
    cs_barrier_compute(rec);
    static const struct {
        int term;
        cs_reduce_op op;
        int out;
    } reductions[] = {
        {CS_FLUID_STAT_DENSITY_ERROR, CS_REDUCE_SUM, OUT_DENSITY_ERROR_SUM},
        {CS_FLUID_STAT_DENSITY_ERROR, CS_REDUCE_MAX, OUT_DENSITY_ERROR_MAX},
        {CS_FLUID_STAT_SPEED, CS_REDUCE_MAX, OUT_SPEED_MAX},
        {CS_FLUID_STAT_KINETIC, CS_REDUCE_SUM, OUT_KINETIC_SUM},
        {CS_FLUID_STAT_NON_FINITE, CS_REDUCE_SUM, OUT_NON_FINITE_SUM},
        {CS_FLUID_STAT_OUTSIDE, CS_REDUCE_SUM, OUT_OUTSIDE_SUM},
        {CS_FLUID_STAT_MASS, CS_REDUCE_SUM, OUT_MASS_SUM},
    };
    for (size_t r = 0; r < CS_ARRAY_COUNT(reductions); r++)
        cs_reduce_record(rec, &f->reduce, reductions[r].op, &f->stats_terms[reductions[r].term], f->count,
                         &f->stats_out, (uint32_t)reductions[r].out);
    cs_barrier_compute_to_transfer(rec);
    cs_cmd_copy(rec, &f->stats_out, &f->stats_readback[rec->frame_slot], OUT_COUNT * sizeof(float));
    cs_pass_end(rec);
}

void cs_fluid_read_stats(cs_fluid *f, uint32_t frame_slot, cs_sim_stats *out)
{
    CS_ASSERT(frame_slot < CS_FRAME_SLOTS, "frame slot %u", frame_slot);
    uint32_t count = f->stats_count[frame_slot];
    memset(out, 0, sizeof *out);
    out->particles = count;
    if (count == 0)
        return;
    float v[OUT_COUNT];
    memcpy(v, f->stats_readback[frame_slot].mapped, sizeof v);
    uint32_t non_finite = (uint32_t)v[OUT_NON_FINITE_SUM];
    uint32_t finite = count - CS_MIN(non_finite, count);
    out->mean_density_error = finite ? v[OUT_DENSITY_ERROR_SUM] / (double)finite : 0.0;
    out->max_density_error = v[OUT_DENSITY_ERROR_MAX];
    out->max_speed = v[OUT_SPEED_MAX];
    out->kinetic_energy = v[OUT_KINETIC_SUM];
    out->total_mass = v[OUT_MASS_SUM];
    out->non_finite = non_finite;
    out->outside_domain = (uint32_t)v[OUT_OUTSIDE_SUM];
}

void cs_fluid_stats(cs_fluid *f, cs_sim_stats *out)
{
    cs_recorder *rec = &f->stats_rec;
    if (f->count) {
        cs_recorder_begin(rec);
        cs_fluid_record_stats(f, rec);
        cs_recorder_submit_wait(rec);
    }
    f->stats_count[rec->frame_slot] = f->count;
    cs_fluid_read_stats(f, rec->frame_slot, out);
}

void cs_fluid_particles(cs_fluid *f, cs_particle_view *out)
{
    *out = (cs_particle_view){
        .positions = cs_fluid_pos(f),
        .velocities = cs_fluid_vel(f),
        .densities = &f->densities,
        .materials = cs_fluid_mat(f),
        .count = f->count,
    };
}

void cs_fluid_download_by_id(cs_fluid *f, float *positions4, float *velocities4, float *densities,
                             uint32_t *materials)
{
    uint32_t n = f->count;
    if (n == 0)
        return;
    uint32_t *ids = malloc((size_t)n * 4);
    float *tmp = malloc((size_t)n * 16);
    CS_ASSERT(ids && tmp, "out of host memory");
    cs_buffer_download(f->ctx, cs_fluid_ids(f), ids, (VkDeviceSize)n * 4, 0);
    for (uint32_t i = 0; i < n; i++)
        CS_ASSERT(ids[i] < n, "particle id %u out of range (%u particles)", ids[i], n);
    struct {
        void *dst;
        cs_buffer *src;
        uint32_t stride;
    } arrays[] = {
        {positions4, cs_fluid_pos(f), 16},
        {velocities4, cs_fluid_vel(f), 16},
        {densities, &f->densities, 4},
        {materials, cs_fluid_mat(f), 4},
    };
    for (size_t a = 0; a < CS_ARRAY_COUNT(arrays); a++) {
        if (!arrays[a].dst)
            continue;
        uint32_t stride = arrays[a].stride;
        cs_buffer_download(f->ctx, arrays[a].src, tmp, (VkDeviceSize)n * stride, 0);
        for (uint32_t i = 0; i < n; i++)
            memcpy((char *)arrays[a].dst + (size_t)ids[i] * stride, (char *)tmp + (size_t)i * stride, stride);
    }
    free(ids);
    free(tmp);
}

uint32_t cs_fluid_float_buffers(cs_fluid *f, cs_float_buffer *out, uint32_t max)
{
    const struct {
        const char *name;
        cs_buffer *buffer;
        uint32_t per_particle;
    } all[] = {
        {"positions[0]", &f->positions[0], 4},  {"positions[1]", &f->positions[1], 4},
        {"velocities[0]", &f->velocities[0], 4}, {"velocities[1]", &f->velocities[1], 4},
        {"predicted[0]", &f->predicted[0], 4},  {"predicted[1]", &f->predicted[1], 4},
        {"densities", &f->densities, 1},
    };
    uint32_t n = 0;
    for (size_t k = 0; k < CS_ARRAY_COUNT(all) && n < max; k++) {
        // Buffers a solver does not use (predicted, for some) are never made.
        if (!all[k].buffer->buffer || f->count == 0)
            continue;
        out[n++] = (cs_float_buffer){all[k].name, all[k].buffer, f->count * all[k].per_particle};
    }
    return n;
}

// The rows a checkpoint saves of every particle fluid (fluid.h
// cs_fluid_state): the live particles of every per-particle array. The
// grid (keys, order, ranges) is not saved: every substep builds it again
// before anything reads it.
//
// The ranges (sim.h cs_state_range) are checked before anything is loaded.

static bool check_own_body_set(const void *base, const void *data, size_t bytes, char *why, size_t why_size)
{
    const cs_fluid *f = base;
    void *fresh = calloc(1, bytes ? bytes : 1);
    if (!fresh)
        return snprintf(why, why_size, "out of host memory to check it"), false;
    if (bytes)
        cs_buffer_download(f->ctx, &f->own_body_set, fresh, bytes, 0);
    bool ok = cs_body_set_check(data, fresh, bytes, why, why_size);
    free(fresh);
    return ok;
}

// Every material index names one of the scene's materials (the solvers
// read the parameters' table at it).
static bool check_materials(const void *base, const void *data, size_t bytes, char *why, size_t why_size)
{
    const cs_fluid *f = base;
    const uint32_t *m = data;
    for (size_t i = 0; i < bytes / 4; i++)
        if (m[i] >= f->scene->material_count)
            return snprintf(why, why_size, "particle %zu has material %u; the scene has %u", i, m[i],
                            f->scene->material_count), false;
    return true;
}

// Each emitter's progress within its budget (an emitter the scene does not
// have: 0), and all of them within the room the blocks left.
static bool check_emitted(const void *base, const void *data, size_t bytes, char *why, size_t why_size)
{
    const cs_fluid *f = base;
    const uint32_t *n = data;
    uint64_t total = 0;
    for (uint32_t e = 0; e < bytes / 4; e++) {
        uint32_t budget = e < f->scene->emitter_count ? f->scene->emitters[e].budget : 0;
        if (n[e] > budget)
            return snprintf(why, why_size, "emitter %u emitted %u particles; its budget is %u", e, n[e], budget),
                   false;
        total += n[e];
    }
    if (total > f->capacity - f->block_count)
        return snprintf(why, why_size, "the emitters made %llu particles; the blocks left room for %u",
                        (unsigned long long)total, f->capacity - f->block_count), false;
    return true;
}

// The state proper (current positions and velocities) is finite in every
// checkpoint a run writes (the frame loop stops on a non-finite particle);
// the solvers' terms and the predicted positions are written by a pass
// before any pass reads them, and hold whatever a slot had (NaN in unused
// slots of two_fluids_2d's arrays): any bits.
static const cs_state_row fluid_state_rows[] = {
    CS_STATE_LIVE_PAIR(cs_fluid, positions, count, capacity, pos_cur, CS_FINITE),
    CS_STATE_LIVE_PAIR(cs_fluid, velocities, count, capacity, vel_cur, CS_FINITE),
    CS_STATE_LIVE_PAIR(cs_fluid, predicted, count, capacity, pred_cur, CS_ANY_BITS),
    CS_STATE_LIVE_PAIR(cs_fluid, materials, count, capacity, state_cur, CS_CHECKED(check_materials)),
    CS_STATE_LIVE_PAIR(cs_fluid, ids, count, capacity, state_cur, CS_ANY_BITS), // a label: no pass indexes by it
    CS_STATE_LIVE_BUFFER(cs_fluid, densities, count, capacity, CS_ANY_BITS),
    CS_STATE_LIVE_BUFFER(cs_fluid, arrays, count, capacity, CS_ANY_BITS),
    // The contact records: cleared ("bodies: clear") before collide writes them.
    CS_STATE_LIVE_BUFFER(cs_fluid, body_impulses, count, capacity, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_fluid, own_body_set, CS_CHECKED(check_own_body_set)),
    CS_STATE_HOST(cs_fluid, count, CS_AT_MOST_MEMBER(cs_fluid, capacity)),
    CS_STATE_HOST(cs_fluid, pos_cur, CS_AT_MOST_VALUE(1)),
    CS_STATE_HOST(cs_fluid, vel_cur, CS_AT_MOST_VALUE(1)),
    CS_STATE_HOST(cs_fluid, pred_cur, CS_AT_MOST_VALUE(1)),
    CS_STATE_HOST(cs_fluid, state_cur, CS_AT_MOST_VALUE(1)),
    CS_STATE_HOST(cs_fluid, substep_index, CS_ANY_BITS), // the emitters' clock: any count is a time
    CS_STATE_HOST(cs_fluid, emitted, CS_CHECKED(check_emitted)),
};

void cs_fluid_state(cs_fluid *f, cs_state_entry *out, uint32_t *n, uint32_t max)
{
    cs_state_expand(fluid_state_rows, CS_ARRAY_COUNT(fluid_state_rows), f, "", out, n, max);
}
