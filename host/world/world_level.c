// world_level.c — the level as every particle fluid's boundary: the level's
// open space is baked into a signed distance field over each fluid's domain
// (level_sdf.h) and handed to the fluid (cs_sim_ops.level), whose collide
// passes keep particles in it (docs/levels.md, "Fluid in a level").
#include "level_sdf.h"
#include "world_internal.h"

#include <math.h>
#include <stdio.h>

// The field's band, in smoothing radii: distances further than this from a
// wall are clamped. Collisions only look within the margin (half a
// spacing), and the normal's differences half a cell beyond it.
#define LEVEL_BAND_RADII 2.0

static double fluid_spacing(const cs_scene *fs)
{
    return fs->particle_spacing > 0.0f ? fs->particle_spacing : 0.5 * fs->smoothing_radius;
}

static bool give_fluid_level(cs_context *ctx, cs_world_fluid *f, const cs_level_space *space, cs_error *err)
{
    const cs_scene *fs = f->scene;
    if (!f->ops->level)
        return cs_scene_fail(fs, err, "", "solver", "\"%s\" does not collide with a level; remove \"level\" or use "
                             "a particle solver (pbf, sph, wcsph)", f->ops->solver);
    if (fs->dim != 3)
        return cs_scene_fail(fs, err, "", "dim", "a level needs a 3D scene (dim is %d)", fs->dim);
    // Cell at most the particle spacing (and a divisor of a click, so walls
    // lie on nodes). A field that does not fit one storage buffer of this
    // device gets the next coarser cell that still divides a click: walls
    // stay on nodes, only corners round off more (said on stderr).
    double band = CS_MAX(LEVEL_BAND_RADII * fs->smoothing_radius, 4.0 * fluid_spacing(fs));
    VkDeviceSize buffer_limit = ctx->props.limits.maxStorageBufferRange;
    cs_level_grid grid;
    cs_error inner;
    double max_cell = fluid_spacing(fs);
    for (;;) {
        if (!cs_level_grid_plan(space, fs->domain_min, fs->domain_max, max_cell, band, &grid, &inner))
            return cs_scene_fail(fs, err, "level", "file", "%s", inner.msg);
        VkDeviceSize bytes = (VkDeviceSize)grid.dims[0] * grid.dims[1] * grid.dims[2] * sizeof(float);
        if (bytes <= buffer_limit)
            break;
        if (grid.cell >= space->click)
            break; // a click per cell and still too big: the fluid's own check refuses it, with sizes
        double per_click = round(space->click / grid.cell);
        max_cell = space->click / (per_click - 1.0); // the next divisor of a click above this cell
    }
    if (grid.cell > fluid_spacing(fs) * 1.0001)
        fprintf(stderr,
                "cistern: level field cell %.4g m (coarser than the particle spacing %.4g m) to fit the device's "
                "%llu-byte storage buffers; level corners are rounded to that cell\n",
                grid.cell, fluid_spacing(fs), (unsigned long long)buffer_limit);
    size_t nodes = (size_t)grid.dims[0] * grid.dims[1] * grid.dims[2];
    float *values = malloc(nodes * sizeof *values);
    CS_ASSERT(values, "out of host memory for %zu level field nodes", nodes);
    cs_level_sdf_bake(space, &grid, values);
    cs_level_field field = {
        .origin = {(float)grid.origin[0], (float)grid.origin[1], (float)grid.origin[2]},
        .cell = (float)grid.cell,
        .dims = {grid.dims[0], grid.dims[1], grid.dims[2]},
        .values = values,
    };
    bool ok = f->ops->level(f->state, &field, err);
    free(values);
    return ok;
}

bool cs_world_create_level_fields(cs_world *world, cs_error *err)
{
    const cs_scene *scene = world->scene;
    if (!scene->level.enabled || world->fluid_count == 0)
        return true;
    cs_level_space space;
    cs_error inner;
    if (!cs_level_space_load(scene->level.file, scene->level.units_per_metre, &space, &inner))
        return cs_scene_fail(scene, err, "level", "file", "%s", inner.msg);
    bool ok = true;
    for (uint32_t i = 0; i < world->fluid_count && ok; i++)
        ok = give_fluid_level(world->ctx, &world->fluids[i], &space, err);
    cs_level_space_free(&space);
    return ok;
}
