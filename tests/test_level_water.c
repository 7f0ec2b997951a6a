// test_level_water.c — water in a level stays in the level's open space
// (docs/levels.md, "Fluid in a level"): a sealed room, sectors at different
// floor heights, and a longer run on the shipped level.
//
// 1. Sealed room, stepped floor. The demo level (level_gen.c) with room 1
//    (east, 4 x 4 sectors) cut off: its doorway portal removed on both sides,
//    so the room has no portal at all; and its two west sector columns
//    raised by one click (a step). Written to a temporary .phd and given
//    to a PBF scene whose domain box spans the hall and the east room, so
//    only the level keeps the water in. Two blocks, placed with "room": 1,
//    one on each floor, thrown west at 1.5 m/s, and one at the sealed
//    doorway's height thrown at it at 2 m/s (with the portal kept, 165 of
//    its particles go through into the hall). Every
//    10 frames (90 in all): no particle centre outside room 1's sector columns (each
//    column [x, z] x [its floor, ceiling], one tenth of a spacing allowed).
//    At the end, per sector: the lowest particle's height above that
//    sector's floor, less the collision margin (a particle radius, half a
//    spacing), within one particle radius.
// 2. The shipped level (levels/cistern_demo.phd), scenes/level_pour_3d.json
//    rescaled to about 800 block particles (spacing 0.15 m, the emitter's
//    budget scaled alike), 150 frames (2.5 s: the block runs through the
//    doorway and down the step while the emitter pours): zero particle centres in the
//    solid, measured with an independent bake at a quarter of the spacing.
//
// With cs_collide_level's push disabled (PBF's velocity half left on) all
// three fail: 1371 centres out of the sealed room, lowest centres up to
// 0.41 m off their sector's floor, 563 of 1849 centres in the shipped
// level's solid.
// ctest labels: slow,gpu -- 20
#include "test_util.h"

#include "level_sdf.h"
#include "level_tr1.h"
#include "world.h"

#include <unistd.h>

#define SEALED_ROOM 1
#define UNITS 1024.0          // units per metre: a sector is 1 m, a click 0.25 m
#define SPACING 0.1
#define RAISED_COLUMNS 2      // the room's west sector columns (x) raised by a click
#define TOLERANCE_SPACINGS 0.1
#define SEALED_FRAMES 90        // 1.08 s: the thrown water hits the sealed wall and settles
#define POUR_PARTICLES 800      // block particles of the rescaled pour scene
#define POUR_FRAMES 150

// Removes every portal between room `r` and another room (on both sides)
// and raises the floor of its first `columns` sector columns by one click.
static void seal_and_step(cs_tr1_level *level, uint32_t r, int columns)
{
    for (uint32_t i = 0; i < level->room_count; i++) {
        cs_tr1_room *room = &level->rooms[i];
        uint32_t kept = 0;
        for (uint32_t p = 0; p < room->portal_count; p++)
            if (i != r && room->portals[p].adjoining_room != r)
                room->portals[kept++] = room->portals[p];
        room->portal_count = kept;
    }
    cs_tr1_room *room = &level->rooms[r];
    for (int x = 0; x < columns; x++)
        for (uint32_t z = 0; z < room->z_sectors; z++)
            room->sectors[x * room->z_sectors + z].floor -= 1; // y grows downwards: one click up
}

// World metres of a sector's floor and ceiling, and of the room's x, z bounds.
static double floor_y(const cs_tr1_sector *s) { return -s->floor * 256.0 / UNITS; }
static double ceiling_y(const cs_tr1_sector *s) { return -s->ceiling * 256.0 / UNITS; }

// The sector of room r under world point (x, z), or NULL outside the room.
static const cs_tr1_sector *sector_at(const cs_tr1_room *room, double x, double z, uint32_t *index)
{
    double sx = (x * UNITS - room->x) / 1024.0, sz = (-z * UNITS - room->z) / 1024.0;
    if (!(sx >= 0 && sx < room->x_sectors && sz >= 0 && sz < room->z_sectors))
        return NULL;
    *index = (uint32_t)sx * room->z_sectors + (uint32_t)sz;
    return &room->sectors[*index];
}

// Particles whose centre lies outside the room's open columns.
static uint32_t outside_room(const cs_tr1_room *room, const float *pos, uint32_t n)
{
    double tol = TOLERANCE_SPACINGS * SPACING;
    uint32_t outside = 0;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = &pos[i * 4];
        uint32_t s;
        // Probe a tenth of a spacing inwards on x and z, so a centre on a wall counts as in.
        const cs_tr1_sector *sec = NULL;
        for (int k = 0; k < 9 && !sec; k++)
            sec = sector_at(room, p[0] + tol * (k % 3 - 1), p[2] + tol * (k / 3 - 1), &s);
        outside += !sec || p[1] < floor_y(sec) - tol || p[1] > ceiling_y(sec) + tol || !isfinite(p[1]);
    }
    return outside;
}

static void check_sealed_room(cs_context *ctx)
{
    cs_tr1_level level;
    cs_tr1_generate_demo(&level);
    seal_and_step(&level, SEALED_ROOM, RAISED_COLUMNS);
    uint8_t *bytes;
    size_t size;
    bool ok = cs_tr1_write(&level, &bytes, &size);
    CHECK(ok, "writing the sealed level");
    char path[256];
    snprintf(path, sizeof path, "/tmp/cistern_sealed_%ld.phd", (long)getpid());
    FILE *file = fopen(path, "wb");
    CHECK(file && fwrite(bytes, 1, size, file) == size, "writing %s", path);
    if (file)
        fclose(file);
    free(bytes);
    const cs_tr1_room *room = &level.rooms[SEALED_ROOM];
    // Blocks in room coordinates: the raised columns (x 0..2 m, floor +0.25 m)
    // and the low ones (x 2..4 m), 0.2 m deep, a spacing off the walls; and
    // one in front of the sealed doorway at its height (1..1.3 m above the
    // deepest floor, z 1..3 m), thrown at it: with the portal it leaves.
    char json[4096];
    snprintf(json, sizeof json,
             "{ \"dim\": 3, \"domain\": {\"min\": [0, -1.2, -4.2], \"max\": [8.2, 2.2, 0.2]},"
             "  \"gravity\": [0, -9.81, 0], \"dt\": 0.004, \"substeps\": 3, \"seed\": 5,"
             "  \"level\": {\"file\": \"%s\", \"units_per_metre\": %g},"
             "  \"fluids\": [{ \"solver\": \"pbf\", \"particle_spacing\": %g, \"smoothing_radius\": %g,"
             "    \"materials\": [{\"name\": \"water\", \"mass\": 1.0, \"rest_density\": 1000}],"
             "    \"blocks\": [{\"room\": %d, \"min\": [0.1, 0.25, 0.1], \"max\": [2.0, 0.45, 3.9], "
             "                  \"velocity\": [-1.5, 0, 0]},"
             "                 {\"room\": %d, \"min\": [2.0, 0.0, 0.1], \"max\": [3.9, 0.2, 3.9], "
             "                  \"velocity\": [-1.5, 0, 0]},"
             "                 {\"room\": %d, \"min\": [0.1, 1.05, 1.1], \"max\": [1.0, 1.35, 2.9], "
             "                  \"velocity\": [-2.0, 0, 0]}],"
             "    \"pbf\": {\"iterations\": 4} }] }",
             path, UNITS, SPACING, 2 * SPACING, SEALED_ROOM, SEALED_ROOM, SEALED_ROOM);
    cs_scene scene;
    cs_world world;
    cs_error err;
    ok = cs_scene_parse(json, strlen(json), "sealed.json", &scene, &err);
    CHECK(ok, "sealed scene: %s", ok ? "" : err.msg);
    ok = ok && cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "sealed world: %s", ok ? "" : err.msg);
    remove(path);
    if (!ok) {
        cs_tr1_free(&level);
        return;
    }
    uint32_t worst = 0, n = 0, checks = 0;
    float *pos = NULL;
    for (uint32_t f = 0; f < SEALED_FRAMES; f += 10, checks++) {
        test_world_run(ctx, &world, 10, "level water");
        free(pos);
        pos = test_fluid_positions(ctx, &world, 0, &n);
        worst = CS_MAX(worst, outside_room(room, pos, n));
    }
    printf("sealed room %d: %u particles, %u checks over %.2f s: at most %u outside the room at a check\n",
           SEALED_ROOM, n, checks, SEALED_FRAMES * 3 * 0.004, worst);
    CHECK(n > 0 && worst == 0, "sealed room: %u particle centres left the room", worst);
    // Floors: the lowest centre per sector, above that sector's floor.
    uint32_t sectors = room->x_sectors * room->z_sectors;
    double *lowest = malloc(sectors * sizeof *lowest);
    for (uint32_t s = 0; s < sectors; s++)
        lowest[s] = INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s;
        if (sector_at(room, pos[i * 4], pos[i * 4 + 2], &s))
            lowest[s] = fmin(lowest[s], pos[i * 4 + 1]);
    }
    double radius = 0.5 * SPACING, worst_off = 0.0;
    for (uint32_t s = 0; s < sectors; s++) {
        double floor = floor_y(&room->sectors[s]);
        double off = lowest[s] - floor - radius; // 0: resting on the collision margin
        printf("  sector (%u, %u): floor %+.2f m, lowest centre %+.4f m above it (margin %.3f)\n",
               s / room->z_sectors, s % room->z_sectors, floor, lowest[s] - floor, radius);
        worst_off = fmax(worst_off, fabs(off));
        CHECK(isfinite(off) && fabs(off) <= radius, "sector %u (floor %.2f m): lowest centre %.4f m above the floor, "
              "not within one radius (%.3f) of resting on it", s, floor, lowest[s] - floor, radius);
    }
    printf("floors: worst |lowest centre - floor - radius| %.4f m (limit %.3f)\n", worst_off, radius);
    free(lowest);
    free(pos);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
    cs_tr1_free(&level);
}

static void check_shipped_level(cs_context *ctx)
{
    cs_scene scene;
    cs_error err;
    bool ok = cs_scene_load(CS_SOURCE_DIR "/scenes/level_pour_3d.json", &scene, &err);
    CHECK(ok, "%s", ok ? "" : err.msg);
    if (!ok)
        return;
    cs_scene_scale_world(&scene, POUR_PARTICLES);
    cs_world world;
    ok = cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "pour world: %s", ok ? "" : err.msg);
    if (!ok) {
        cs_scene_free(&scene);
        return;
    }
    const uint32_t frames = POUR_FRAMES;
    test_world_run(ctx, &world, frames, "level water");
    uint32_t n;
    float *pos = test_fluid_positions(ctx, &world, 0, &n);
    const cs_scene *fs = world.fluids[0].scene;
    double spacing = fs->particle_spacing;
    cs_level_space space;
    ok = cs_level_space_load(scene.level.file, scene.level.units_per_metre, &space, &err);
    CHECK(ok, "%s", ok ? "" : err.msg);
    cs_level_grid grid;
    ok = ok && cs_level_grid_plan(&space, fs->domain_min, fs->domain_max, 0.25 * spacing, 4 * spacing, &grid, &err);
    if (ok) {
        float *values = malloc((size_t)grid.dims[0] * grid.dims[1] * grid.dims[2] * sizeof(float));
        cs_level_sdf_bake(&space, &grid, values);
        uint32_t inside = 0;
        double deepest = INFINITY;
        for (uint32_t i = 0; i < n; i++) {
            double p[3] = {pos[i * 4], pos[i * 4 + 1], pos[i * 4 + 2]};
            double d = cs_level_sdf_sample(&grid, values, p);
            deepest = fmin(deepest, d);
            inside += d < -TOLERANCE_SPACINGS * spacing || !isfinite(d);
        }
        printf("shipped level: %u particles (spacing %.3f m) after %u frames (%.2f s): %u in solid, min distance "
               "%+.4f m\n", n, spacing, frames, frames * fs->substeps * fs->dt, inside, deepest);
        CHECK(n > 0 && inside == 0, "shipped level: %u of %u particle centres in the solid (deepest %.4f m)", inside,
              n, deepest);
        free(values);
        cs_level_space_free(&space);
    }
    free(pos);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

int main(void)
{
    test_seed();
    cs_context ctx;
    test_context(&ctx);
    check_sealed_room(&ctx);
    check_shipped_level(&ctx);
    return test_finish(&ctx);
}
