// world_level.c — the level and the scene's static geometry as every
// particle fluid's boundary: the level's open space (level_sdf.h) and the
// geometry's triangles (geometry_sdf.h) are baked into one signed distance
// field over each fluid's domain (the minimum of the two where a scene has
// both: open space is open in both) and handed to the fluid
// (cs_sim_ops.level), whose collide passes keep particles in it
// (docs/levels.md, "Fluid in a level"; docs/light.md, "Fluid against the
// scene's geometry").
#include "geometry_sdf.h"
#include "level_sdf.h"
#include "world_internal.h"

#include <math.h>
#include <stdio.h>

// The field's band, in smoothing radii: distances further than this from a
// wall are clamped. Collisions only look within the margin (half a
// spacing), and the normal's differences half a cell beyond it.
#define LEVEL_BAND_RADII 2.0
// The geometry's solid depth behind each triangle, in bands (4 smoothing
// radii, at least 8 spacings): 0.16 m for cornell_fluid, so the Cornell
// blocks (0.166 m across) are solid to the centre, and far more than a
// particle moves in a substep.
#define GEOMETRY_THICKNESS_BANDS 2.0

static double fluid_spacing(const cs_scene *fs)
{
    return fs->particle_spacing > 0.0f ? fs->particle_spacing : 0.5 * fs->smoothing_radius;
}

static double fluid_band(const cs_scene *fs)
{
    return CS_MAX(LEVEL_BAND_RADII * fs->smoothing_radius, 4.0 * fluid_spacing(fs));
}

// The level's grid for this fluid (its cell divides a click, coarsened to
// fit the device's storage buffers).
static bool plan_level_grid(cs_context *ctx, const cs_scene *fs, const cs_level_space *space, cs_level_grid *grid,
                            cs_error *err)
{
    // Cell at most the particle spacing (and a divisor of a click, so walls
    // lie on nodes). A field that does not fit one storage buffer of this
    // device gets the next coarser cell that still divides a click: walls
    // stay on nodes, only corners round off more (said on stderr).
    double band = fluid_band(fs);
    VkDeviceSize buffer_limit = ctx->props.limits.maxStorageBufferRange;
    cs_error inner;
    double max_cell = fluid_spacing(fs);
    for (;;) {
        if (!cs_level_grid_plan(space, fs->domain_min, fs->domain_max, max_cell, band, grid, &inner))
            return cs_scene_fail(fs, err, "level", "file", "%s", inner.msg);
        VkDeviceSize bytes = (VkDeviceSize)grid->dims[0] * grid->dims[1] * grid->dims[2] * sizeof(float);
        if (bytes <= buffer_limit)
            break;
        if (grid->cell >= space->click)
            break; // a click per cell and still too big: the fluid's own check refuses it, with sizes
        double per_click = round(space->click / grid->cell);
        max_cell = space->click / (per_click - 1.0); // the next divisor of a click above this cell
    }
    if (grid->cell > fluid_spacing(fs) * 1.0001)
        fprintf(stderr,
                "cistern: level field cell %.4g m (coarser than the particle spacing %.4g m) to fit the device's "
                "%llu-byte storage buffers; level corners are rounded to that cell\n",
                grid->cell, fluid_spacing(fs), (unsigned long long)buffer_limit);
    return true;
}

// The geometry's distance into `values`: with a level (values already hold
// its field) the minimum of both, else the geometry's alone.
static bool bake_geometry(const cs_scene *fs, const cs_geometry *geometry, const cs_level_grid *grid,
                          bool has_level, float *values, cs_error *err)
{
    size_t nodes = (size_t)grid->dims[0] * grid->dims[1] * grid->dims[2];
    float *own = has_level ? malloc(nodes * sizeof *own) : values;
    CS_ASSERT(own, "out of host memory for %zu geometry field nodes", nodes);
    cs_error inner;
    bool ok = cs_geometry_sdf_bake(geometry->tris, geometry->tri_count, grid, GEOMETRY_THICKNESS_BANDS * grid->band,
                                   own, &inner);
    if (!ok)
        cs_scene_fail(fs, err, "", "geometry", "%s", inner.msg);
    if (ok && has_level)
        for (size_t i = 0; i < nodes; i++)
            values[i] = fminf(values[i], own[i]);
    if (own != values)
        free(own);
    return ok;
}

// Collides the fluid with the level (space, may be NULL) and the geometry
// (may be NULL), at least one of them given.
static bool give_fluid_field(cs_context *ctx, cs_world_fluid *f, const cs_level_space *space,
                             const cs_geometry *geometry, cs_error *err)
{
    const cs_scene *fs = f->scene;
    if (!space && (!f->ops->level || fs->dim != 3)) {
        // Geometry alone never refused a scene before it collided: a solver
        // without the hook keeps running through it, and says so.
        fprintf(stderr, "cistern: fluid \"%s\" (%s, dim %d) does not collide with the scene's geometry\n",
                fs->fluid_name, f->ops->solver, fs->dim);
        return true;
    }
    if (!f->ops->level)
        return cs_scene_fail(fs, err, "", "solver", "\"%s\" does not collide with a level; remove \"level\" or use "
                             "a particle solver (pbf, sph, wcsph)", f->ops->solver);
    if (fs->dim != 3)
        return cs_scene_fail(fs, err, "", "dim", "a level needs a 3D scene (dim is %d)", fs->dim);
    cs_level_grid grid;
    cs_error inner;
    bool planned = space ? plan_level_grid(ctx, fs, space, &grid, err)
                         : cs_geometry_grid_plan(fs->domain_min, fs->domain_max, fluid_spacing(fs), fluid_band(fs),
                                                 &grid, &inner);
    if (!planned)
        return space ? false : cs_scene_fail(fs, err, "", "geometry", "%s", inner.msg);
    size_t nodes = (size_t)grid.dims[0] * grid.dims[1] * grid.dims[2];
    float *values = malloc(nodes * sizeof *values);
    CS_ASSERT(values, "out of host memory for %zu level field nodes", nodes);
    if (space)
        cs_level_sdf_bake(space, &grid, values);
    if (geometry && !bake_geometry(fs, geometry, &grid, space != NULL, values, err)) {
        free(values);
        return false;
    }
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

bool cs_world_create_level_fields(cs_world *world, const cs_tr1_level *level_file, cs_error *err)
{
    const cs_scene *scene = world->scene;
    const cs_geometry *geometry = scene->geometry && scene->geometry->tri_count ? scene->geometry : NULL;
    if ((!scene->level.enabled && !geometry) || world->fluid_count == 0)
        return true;
    cs_level_space space;
    cs_error inner;
    memset(&space, 0, sizeof space);
    if (scene->level.enabled) {
        CS_ASSERT(level_file, "a scene with a level but no level file read");
        if (!cs_level_space_build_sealed(level_file, scene->level.units_per_metre, scene->level.seal_water, &space,
                                         &inner))
            return cs_scene_fail(scene, err, "level", "file", "%s: %s", scene->level.file, inner.msg);
    }
    bool ok = true;
    for (uint32_t i = 0; i < world->fluid_count && ok; i++)
        ok = give_fluid_field(world->ctx, &world->fluids[i], scene->level.enabled ? &space : NULL, geometry, err);
    if (scene->level.enabled)
        cs_level_space_free(&space);
    return ok;
}
