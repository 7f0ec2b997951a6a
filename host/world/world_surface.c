// world_surface.c — the fluids' surfaces: sizing their grids, building their
// fields from the fluids each frame one is asked for, and the two-submit
// extraction (see world.h and docs/surface.md, "In the frame").
#include "fluid.h"
#include "world_internal.h"

#include <math.h>

// Field nodes per particle spacing when the scene gives no resolution.
#define DEFAULT_CELLS_PER_SPACING 2.0f

// ∫ (1 - r²/R²)³ over the ball of radius R, divided by R³: the splat
// kernel's integral. A lattice of spacing s sums to about this × (R/s)³.
static const double k_kernel_integral = 64.0 * 3.14159265358979323846 / 315.0;

static uint64_t padded_nodes(const uint32_t dims[3])
{
    return ((uint64_t)dims[0] + 2) * ((uint64_t)dims[1] + 2) * ((uint64_t)dims[2] + 2);
}

// Nodes of a particle fluid's field at node spacing `cell`: the fluid's
// domain grown by the kernel radius on every side, so the field has fallen
// to 0 at the border (a particle inside the domain reaches no farther).
static void splat_layout(const cs_scene *fs, float radius, float cell, float origin[3], uint32_t dims[3])
{
    for (int a = 0; a < 3; a++) {
        origin[a] = fs->domain_min[a] - radius;
        double extent = (double)fs->domain_max[a] - fs->domain_min[a] + 2.0 * radius;
        double n = ceil(extent / cell) + 1.0;
        dims[a] = n > 1e6 ? 1000000u : (uint32_t)n; // the parser keeps cell below the domain; 1e6 caps nonsense
    }
}

static bool buffer(cs_context *ctx, const char *fluid, const char *what, VkDeviceSize size, cs_buffer *buf,
                   cs_error *err)
{
    char name[96];
    snprintf(name, sizeof name, "%s surface %s", fluid, what);
    return cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = size}, buf, err);
}

// The limit a refused grid is told about, in the device's own numbers.
static void describe_limit(const cs_context *ctx, char *out, size_t size)
{
    char range[32], left[32];
    VkDeviceSize heap = 0;
    for (uint32_t h = 0; h < ctx->memory_props.memoryHeapCount; h++)
        heap = CS_MAX(heap, ctx->memory_props.memoryHeaps[h].size);
    cs_format_bytes(ctx->props.limits.maxStorageBufferRange, range, sizeof range);
    cs_format_bytes(heap > ctx->bytes_allocated ? heap - ctx->bytes_allocated : 0, left, sizeof left);
    snprintf(out, size, "%s holds at most %llu nodes (%s per storage buffer, 4 bytes a node; %s left in its "
                        "largest heap, %u bytes a node)",
             ctx->props.deviceName, (unsigned long long)cs_surface_max_nodes(ctx), range, left,
             CS_SURFACE_BYTES_PER_NODE);
}

// x to 3 significant digits, rounded up or down (a suggestion printed with
// %.3g must stay on the safe side).
static double round_3(double x, bool up)
{
    if (!(x > 0))
        return x;
    double unit = pow(10.0, floor(log10(x)) - 2.0);
    return (up ? ceil(x / unit) : floor(x / unit)) * unit;
}

// A particle fluid's field: node spacing from the scene (or the default,
// coarsened until the device holds it), the splat's kernel and scale.
static bool size_splat(cs_context *ctx, const cs_scene *fs, cs_world_surface *s, cs_error *err)
{
    const cs_surface_options *o = &fs->surface;
    float spacing = fs->particle_spacing;
    float radius = o->radius * spacing;
    bool given = o->cell_size > 0 || o->cells_per_spacing > 0;
    float cell = o->cell_size > 0 ? o->cell_size : spacing / (o->cells_per_spacing > 0 ? o->cells_per_spacing
                                                                                      : DEFAULT_CELLS_PER_SPACING);
    float origin[3];
    uint32_t dims[3];
    splat_layout(fs, radius, cell, origin, dims);
    uint64_t most = cs_surface_max_nodes(ctx), padded = padded_nodes(dims);
    if (padded > most && given) {
        const char *key = o->cell_size > 0 ? "cell_size" : "cells_per_spacing";
        // How much coarser the nodes must be, with a little room.
        double k = cbrt((double)padded / (double)CS_MAX(most, 1)) * 1.02;
        char limit[256], need[32];
        describe_limit(ctx, limit, sizeof limit);
        cs_format_bytes(padded * CS_SURFACE_BYTES_PER_NODE, need, sizeof need);
        if (o->cell_size > 0)
            return cs_scene_surface_fail(fs, err, key,
                                         "a surface grid of %u x %u x %u nodes (%llu with its padding, %s) does not "
                                         "fit the device: %s; use a cell_size of at least %.3g",
                                         dims[0], dims[1], dims[2], (unsigned long long)padded, need, limit,
                                         round_3(cell * k, true));
        return cs_scene_surface_fail(fs, err, key,
                                     "a surface grid of %u x %u x %u nodes (%llu with its padding, %s) does not fit "
                                     "the device: %s; use at most %.3g cells per spacing",
                                     dims[0], dims[1], dims[2], (unsigned long long)padded, need, limit,
                                     round_3(o->cells_per_spacing / k, false));
    }
    float extent = INFINITY;
    for (int a = 0; a < 3; a++)
        extent = fminf(extent, fs->domain_max[a] - fs->domain_min[a]);
    if (padded > most) {
        // The default is a wish, not a demand: take the finest that fits.
        float wanted = cell;
        while (padded > most && cell < extent) {
            cell *= 1.05f;
            splat_layout(fs, radius, cell, origin, dims);
            padded = padded_nodes(dims);
        }
        if (padded > most) {
            char limit[256];
            describe_limit(ctx, limit, sizeof limit);
            return cs_scene_surface_fail(fs, err, "enabled", "no surface grid over this domain fits the device (%s)",
                                         limit);
        }
        snprintf(s->note, sizeof s->note,
                 "%s surface: %g nodes per particle spacing (node spacing %g) do not fit %s; using %.3g (node "
                 "spacing %.3g, %u x %u x %u nodes); set surface.cell_size to choose",
                 fs->fluid_name, (double)DEFAULT_CELLS_PER_SPACING, wanted, ctx->props.deviceName, spacing / cell,
                 cell, dims[0], dims[1], dims[2]);
    }
    s->params = (cs_surface_params){.origin = {origin[0], origin[1], origin[2]}, .spacing = cell, .iso = o->iso};
    s->splat = (cs_splat_params){
        .origin = {origin[0], origin[1], origin[2]},
        .spacing = cell,
        .dims = {dims[0], dims[1], dims[2]},
        .radius = radius,
        // A lattice of the particle spacing at rest reads about 1 anywhere
        // inside: iso is in units of that.
        .scale = (float)pow((double)spacing / radius, 3.0) / (float)k_kernel_integral,
    };
    return true;
}

static bool create_surface(cs_world *world, uint32_t i, cs_world_surface *s, cs_error *err)
{
    cs_context *ctx = world->ctx;
    const cs_world_fluid *f = &world->fluids[i];
    const cs_scene *fs = f->scene;
    s->fluid = i;
    s->meshed_at = CS_WORLD_NOT_MESHED;
    uint32_t dims[3];
    if (f->ops->field) {
        // A grid fluid: one node per cell centre, the cells' mass / rest mass.
        cs_field_view fv;
        f->ops->field(f->state, &fv);
        s->from_cells = true;
        float c = fv.cell_size;
        s->params = (cs_surface_params){
            .origin = {fv.origin[0] + 0.5f * c, fv.origin[1] + 0.5f * c, fv.origin[2] + 0.5f * c},
            .spacing = c,
            .iso = fs->surface.iso,
        };
        memcpy(dims, fv.dims, sizeof dims);
        if (padded_nodes(dims) > cs_surface_max_nodes(ctx)) {
            char limit[256];
            describe_limit(ctx, limit, sizeof limit);
            return cs_scene_surface_fail(fs, err, "enabled",
                                         "the surface of %u x %u x %u cells (%llu nodes with its padding) does not "
                                         "fit the device: %s; use fewer cells or turn the surface off",
                                         dims[0], dims[1], dims[2], (unsigned long long)padded_nodes(dims), limit);
        }
    } else if (f->ops->particles) {
        if (!size_splat(ctx, fs, s, err))
            return false;
        memcpy(dims, s->splat.dims, sizeof dims);
        char name[64];
        snprintf(name, sizeof name, "%s surface grid", fs->fluid_name);
        uint32_t capacity = CS_MAX(cs_fluid_scene_capacity(fs), 1u);
        cs_grid_desc gd = {.name = name, .dim = 3, .cell_size = s->splat.radius, .capacity = capacity};
        memcpy(gd.domain_min, fs->domain_min, sizeof gd.domain_min);
        memcpy(gd.domain_max, fs->domain_max, sizeof gd.domain_max);
        if (!cs_grid_create(ctx, &gd, &s->grid, err) ||
            !buffer(ctx, fs->fluid_name, "sorted positions", (VkDeviceSize)capacity * 16, &s->sorted, err))
            return false;
    } else {
        return cs_scene_surface_fail(fs, err, "enabled", "the %s solver offers neither particles nor cells to mesh",
                                     fs->solver);
    }
    char name[64];
    snprintf(name, sizeof name, "%s surface", fs->fluid_name);
    uint64_t nodes = (uint64_t)dims[0] * dims[1] * dims[2];
    return buffer(ctx, fs->fluid_name, "field", nodes * 4, &s->field, err) &&
           cs_surface_create(ctx, &(cs_surface_desc){.name = name, .dims = {dims[0], dims[1], dims[2]}}, &s->mesh,
                             err) &&
           cs_splat_create(ctx, &s->programs, err);
}

static void destroy_surface(cs_context *ctx, cs_world_surface *s)
{
    cs_surface_destroy(ctx, &s->mesh);
    cs_splat_destroy(ctx, &s->programs);
    cs_buffer_destroy(ctx, &s->field);
    cs_buffer_destroy(ctx, &s->sorted);
    cs_grid_destroy(ctx, &s->grid); // empty for a grid fluid: a no-op
}

bool cs_world_create_surfaces(cs_world *world, cs_error *err)
{
    uint32_t wanted = 0;
    for (uint32_t i = 0; i < world->fluid_count; i++)
        wanted += world->fluids[i].scene->surface.enabled;
    if (wanted == 0)
        return true;
    world->surfaces = calloc(wanted, sizeof *world->surfaces);
    CS_ASSERT(world->surfaces, "out of host memory for %u surfaces", wanted);
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        if (!world->fluids[i].scene->surface.enabled)
            continue;
        // Counted before it is made, so a surface that fails half way is
        // still released.
        cs_world_surface *s = &world->surfaces[world->surface_count++];
        if (!create_surface(world, i, s, err))
            return false;
    }
    return true;
}

void cs_world_destroy_surfaces(cs_world *world)
{
    for (uint32_t i = 0; i < world->surface_count; i++)
        destroy_surface(world->ctx, &world->surfaces[i]);
    free(world->surfaces);
    world->surfaces = NULL;
    world->surface_count = 0;
}

// The splat's passes: the fluid's current positions sorted into the
// surface's own grid (the fluid's grid was built on positions that have
// moved since, and reordering the fluid's own state would change its next
// substep's bits), then the gather over it.
static void record_splat(cs_world *world, cs_recorder *rec, cs_world_surface *s)
{
    const cs_world_fluid *f = &world->fluids[s->fluid];
    cs_particle_view pv;
    f->ops->particles(f->state, &pv);
    char prefix[sizeof rec->pass_prefix];
    memcpy(prefix, rec->pass_prefix, sizeof prefix);
    // The grid passes read "surface: grid: sort" ("pool: surface: grid: sort"
    // with several fluids), apart from the fluid's own "grid: sort".
    snprintf(rec->pass_prefix, sizeof rec->pass_prefix, "%s%ssurface", prefix, prefix[0] ? ": " : "");
    cs_grid_record_build(rec, &s->grid, pv.positions, pv.count);
    memcpy(rec->pass_prefix, prefix, sizeof prefix);
    cs_pass_begin(rec, "surface: gather");
    cs_grid_record_gather(rec, &s->grid, pv.positions, &s->sorted, 16, pv.count);
    cs_barrier_compute(rec);
    cs_pass_end(rec);
    cs_splat_record(rec, &s->programs, &s->grid, &s->sorted, &s->field, &s->splat);
}

void cs_world_record_surface_count(cs_world *world, cs_recorder *rec)
{
    for (uint32_t i = 0; i < world->surface_count; i++) {
        cs_world_surface *s = &world->surfaces[i];
        const cs_world_fluid *f = &world->fluids[s->fluid];
        cs_world_set_prefix(world, rec, s->fluid);
        if (s->from_cells) {
            cs_field_view fv;
            f->ops->field(f->state, &fv);
            uint32_t cells = fv.dims[0] * fv.dims[1] * fv.dims[2];
            cs_splat_record_cells(rec, &s->programs, fv.cells, fv.stride_floats, 0, cells, &s->field);
        } else {
            record_splat(world, rec, s);
        }
        cs_surface_record_count(rec, &s->mesh, &s->field, &s->params);
        s->counted = true;
        s->counted_at = world->substep_index;
    }
    rec->pass_prefix[0] = 0;
}

bool cs_world_prepare_surfaces(cs_world *world, cs_error *err)
{
    bool ok = true;
    for (uint32_t i = 0; i < world->surface_count; i++) {
        cs_world_surface *s = &world->surfaces[i];
        if (!s->counted)
            continue;
        cs_error why;
        if (!cs_surface_prepare_emit(world->ctx, &s->mesh, &why)) {
            // Its outputs may be gone: nothing to draw until a mesh fits.
            s->counted = false;
            s->drawable = false;
            s->meshed_at = CS_WORLD_NOT_MESHED;
            if (ok)
                *err = why;
            ok = false;
        }
    }
    return ok;
}

void cs_world_record_surface_emit(cs_world *world, cs_recorder *rec)
{
    for (uint32_t i = 0; i < world->surface_count; i++) {
        cs_world_surface *s = &world->surfaces[i];
        if (!s->counted)
            continue;
        cs_world_set_prefix(world, rec, s->fluid);
        cs_surface_record_emit(rec, &s->mesh, &s->field);
        s->counted = false;
        s->drawable = true;
        s->meshed_at = s->counted_at;
    }
    rec->pass_prefix[0] = 0;
}

bool cs_world_mesh_surfaces(cs_world *world, cs_recorder *rec, cs_error *err)
{
    if (world->surface_count == 0)
        return true;
    cs_world_record_surface_count(world, rec);
    cs_recorder_submit_wait(rec);
    bool ok = cs_world_prepare_surfaces(world, err);
    cs_recorder_resume(rec);
    cs_world_record_surface_emit(world, rec);
    return ok;
}

bool cs_world_surfaces_current(const cs_world *world)
{
    for (uint32_t i = 0; i < world->surface_count; i++) {
        const cs_world_surface *s = &world->surfaces[i];
        if (!s->drawable || s->meshed_at != world->substep_index)
            return false;
    }
    return true;
}

cs_world_surface *cs_world_surface_of(cs_world *world, uint32_t fluid)
{
    for (uint32_t i = 0; i < world->surface_count; i++)
        if (world->surfaces[i].fluid == fluid)
            return &world->surfaces[i];
    return NULL;
}
