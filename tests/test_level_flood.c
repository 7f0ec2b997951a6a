// test_level_flood.c — a level's water rooms filled with water that stays
// in (cs_level_flood, `cistern view --flood`; docs/levels.md, "Water rooms").
//
// The fixture level (cs_tr1_generate_fixture, 1024 units/m): its north room
// (3, 4 x 3 sectors, 1.75 m high) is the one water room; a wall portal the
// room's full height joins it to the hall, whose floor is 0.25 m higher.
// 1. The plan: every water room and only those (room 3), one box (its
//    sectors share their heights), its lattice within the budget and over
//    90% of it; listed rooms are filled whatever their flag; a missing room,
//    a level without water rooms and a tiny budget are refused by message.
//    On the ringed fixture (rooms with wall rings, as retail levels): a
//    room's door sectors are not filled, and a flood of more boxes than it
//    holds is refused with the real count.
// 2. The flood's own scene (cs_level_flood_scene_json) run with PBF for 300
//    frames (3.6 s): every 30 frames, no particle centre outside room 3's
//    sector columns or in the solid (the level's distance field baked again
//    here at a quarter of the spacing, below -0.1 spacing), none not finite.
// 3. The same scene with "seal_water": false for 60 frames: water leaves
//    through the portal into the hall (the check of 2 can fail).
// ctest labels: slow,gpu -- 30
#include "test_util.h"

#include "level_flood.h"
#include "level_sdf.h"
#include "level_tr1.h"
#include "world.h"

#include <unistd.h>

#define WATER_ROOM 3
#define UNITS 1024.0
#define BUDGET 2000
#define FRAMES 300
#define CHECK_EVERY 30
#define UNSEALED_FRAMES 60

static void check_plan(const cs_tr1_level *level)
{
    cs_level_flood f;
    cs_error err;
    bool ok = cs_level_flood_plan(level, UNITS, NULL, 0, BUDGET, &f, &err);
    CHECK(ok, "plan: %s", ok ? "" : err.msg);
    if (ok) {
        char text[256];
        cs_level_flood_text(&f, text, sizeof text);
        printf("plan: %s\n", text);
        CHECK(f.room_count == 1 && f.rooms[0] == WATER_ROOM && f.block_count == 1,
              "plan: %u rooms (first %u), %u boxes; the fixture has one water room (3) of one height", f.room_count,
              f.rooms[0], f.block_count);
        CHECK(f.particles <= BUDGET && f.particles > BUDGET * 9 / 10, "plan: %u particles for a budget of %u",
              f.particles, BUDGET);
    }
    uint32_t listed[2] = {0, WATER_ROOM};
    ok = cs_level_flood_plan(level, UNITS, listed, 2, BUDGET, &f, &err);
    CHECK(ok && f.room_count == 2 && f.block_count == 2, "listed rooms 0 and 3: %s", ok ? "" : err.msg);
    uint32_t missing = 9;
    ok = cs_level_flood_plan(level, UNITS, &missing, 1, BUDGET, &f, &err);
    CHECK(!ok && strstr(err.msg, "room 9 does not exist"), "a missing room: %s", ok ? "accepted" : err.msg);
    ok = cs_level_flood_plan(level, UNITS, NULL, 0, 4, &f, &err);
    CHECK(!ok && strstr(err.msg, "at least 8"), "a budget of 4: %s", ok ? "accepted" : err.msg);
    cs_tr1_level dry;
    cs_tr1_generate_demo(&dry);
    dry.rooms[WATER_ROOM].flags = 0;
    ok = cs_level_flood_plan(&dry, UNITS, NULL, 0, BUDGET, &f, &err);
    CHECK(!ok && strstr(err.msg, "no water room"), "the demo level, room 3 dry: %s", ok ? "accepted" : err.msg);
    cs_tr1_free(&dry);
}

// The ringed fixture (cs_tr1_generate_ringed, here 1024 units/m: a sector
// is 1 m): the middle room (1) spans sectors x 4..10 with its wall ring, its
// door sectors at x 4 (leading west) lie over the west room's floor. By the
// game's rule they are the west room's space: the middle's water fills x
// 5..9 only, z 1..3 (world z -3..-1), one box. Then every interior sector
// of the three rooms given its own floor height: 8 + 8 + 4 boxes, past the
// flood's 16, refused with the real count.
static void check_ringed_plan(void)
{
    cs_tr1_level level;
    cs_tr1_generate_ringed(&level);
    cs_level_flood f;
    cs_error err;
    uint32_t middle = 1;
    bool ok = cs_level_flood_plan(&level, UNITS, &middle, 1, BUDGET, &f, &err);
    CHECK(ok, "ringed, the middle room: %s", ok ? "" : err.msg);
    if (ok) {
        printf("ringed, middle room: %u box(es), x %g..%g, z %g..%g\n", f.block_count, f.blocks[0].min[0],
               f.blocks[0].max[0], f.blocks[0].min[2], f.blocks[0].max[2]);
        CHECK(f.block_count == 1 && f.blocks[0].min[0] == 5.0f && f.blocks[0].max[0] == 9.0f &&
                  f.blocks[0].min[2] == -3.0f && f.blocks[0].max[2] == -1.0f,
              "ringed, middle room: %u boxes, the first x %g..%g z %g..%g; want one, x 5..9 z -3..-1 (no door "
              "sector)", f.block_count, f.blocks[0].min[0], f.blocks[0].max[0], f.blocks[0].min[2],
              f.blocks[0].max[2]);
    }
    int height = 1;
    for (uint32_t r = 0; r < level.room_count; r++) {
        cs_tr1_room *room = &level.rooms[r];
        for (uint32_t k = 0; k < (uint32_t)room->x_sectors * room->z_sectors; k++)
            if (room->sectors[k].floor != -127 && cs_tr1_sector_door(&level, &room->sectors[k]) < 0)
                room->sectors[k].floor = (int8_t)(room->sectors[k].ceiling + height++);
    }
    uint32_t all[3] = {0, 1, 2};
    ok = cs_level_flood_plan(&level, UNITS, all, 3, BUDGET, &f, &err);
    printf("ringed, 20 heights: %s\n", ok ? "accepted" : err.msg);
    CHECK(!ok && strstr(err.msg, "need 20 boxes") && strstr(err.msg, "room 0, 8"),
          "ringed, 20 sectors of 20 heights in 3 rooms: %s", ok ? "accepted" : err.msg);
    cs_tr1_free(&level);
}

// Centres outside the room's sector columns (each [x, z] x [floor,
// ceiling], tol allowed), or not finite.
static uint32_t outside_room(const cs_tr1_room *room, const float *pos, uint32_t n, double tol)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = &pos[i * 4];
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
            out++;
            continue;
        }
        bool inside = false;
        for (int k = 0; k < 9 && !inside; k++) { // probe tol inwards, so a centre on a wall counts as in
            double x = (p[0] + tol * (k % 3 - 1)) * UNITS - room->x, z = -(p[2] + tol * (k / 3 - 1)) * UNITS - room->z;
            double sx = x / 1024.0, sz = z / 1024.0;
            if (!(sx >= 0 && sx < room->x_sectors && sz >= 0 && sz < room->z_sectors))
                continue;
            const cs_tr1_sector *s = &room->sectors[(uint32_t)sx * room->z_sectors + (uint32_t)sz];
            inside = p[1] >= -s->floor * 256.0 / UNITS - tol && p[1] <= -s->ceiling * 256.0 / UNITS + tol;
        }
        out += !inside;
    }
    return out;
}

// Runs the flood's scene; returns the most centres outside the room and in
// the solid at any check (-1: the world was not made).
static int run_flood(cs_context *ctx, const cs_tr1_level *level, const char *json, uint32_t frames, bool report,
                     uint32_t *in_solid_out)
{
    cs_scene scene;
    cs_world world;
    cs_error err;
    bool ok = cs_scene_parse(json, strlen(json), "flood.json", &scene, &err);
    CHECK(ok, "flood scene: %s", ok ? "" : err.msg);
    if (!ok)
        return -1;
    ok = cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "flood world: %s", ok ? "" : err.msg);
    if (!ok) {
        cs_scene_free(&scene);
        return -1;
    }
    const cs_scene *fs = world.fluids[0].scene;
    double spacing = fs->particle_spacing, tol = 0.1 * spacing;
    // The field baked again at a quarter of the spacing, sealed as the scene is.
    cs_level_space space;
    cs_level_grid grid;
    ok = cs_level_space_build_sealed(level, UNITS, scene.level.seal_water, &space, &err) &&
         cs_level_grid_plan(&space, fs->domain_min, fs->domain_max, 0.25 * spacing, 4 * spacing, &grid, &err);
    CHECK(ok, "the check's field: %s", ok ? "" : err.msg);
    float *values = ok ? malloc((size_t)grid.dims[0] * grid.dims[1] * grid.dims[2] * sizeof(float)) : NULL;
    if (ok)
        cs_level_sdf_bake(&space, &grid, values);
    uint32_t worst_out = 0, worst_solid = 0, n = 0;
    double deepest = INFINITY;
    for (uint32_t f = 0; ok && f < frames; f += CHECK_EVERY) {
        test_world_run(ctx, &world, CHECK_EVERY, "level flood");
        float *pos = test_fluid_positions(ctx, &world, 0, &n);
        uint32_t out = outside_room(&level->rooms[WATER_ROOM], pos, n, tol), solid = 0;
        for (uint32_t i = 0; i < n; i++) {
            double p[3] = {pos[i * 4], pos[i * 4 + 1], pos[i * 4 + 2]};
            double d = cs_level_sdf_sample(&grid, values, p);
            deepest = fmin(deepest, d);
            solid += !(d >= -tol);
        }
        worst_out = CS_MAX(worst_out, out);
        worst_solid = CS_MAX(worst_solid, solid);
        if (report)
            printf("  frame %3u: %u particles, %u out of the room, %u in solid\n", f + CHECK_EVERY, n, out, solid);
        free(pos);
    }
    printf("flood (seal_water %s): %u particles, spacing %.3f m, %u frames (%.2f s): at most %u out of the room and "
           "%u in solid at a check, least distance %+.4f m\n",
           scene.level.seal_water ? "true" : "false", n, spacing, frames, frames * fs->substeps * fs->dt, worst_out,
           worst_solid, deepest);
    free(values);
    if (ok)
        cs_level_space_free(&space);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
    *in_solid_out = worst_solid;
    return ok ? (int)worst_out : -1;
}

static void check_flood(cs_context *ctx, const cs_tr1_level *level)
{
    uint8_t *bytes;
    size_t size;
    bool ok = cs_tr1_write(level, &bytes, &size);
    CHECK(ok, "writing the fixture");
    if (!ok)
        return;
    char path[256];
    snprintf(path, sizeof path, "/tmp/cistern_flood_%ld.phd", (long)getpid());
    FILE *file = fopen(path, "wb");
    CHECK(file && fwrite(bytes, 1, size, file) == size, "writing %s", path);
    if (file)
        fclose(file);
    free(bytes);
    cs_level_flood f;
    cs_error err;
    ok = cs_level_flood_plan(level, UNITS, NULL, 0, BUDGET, &f, &err);
    static char json[16384];
    ok = ok && cs_level_flood_scene_json(&f, path, UNITS, json, sizeof json);
    CHECK(ok, "the flood's scene");
    if (ok) {
        uint32_t solid = 0;
        int out = run_flood(ctx, level, json, FRAMES, true, &solid);
        CHECK(out == 0 && solid == 0, "flooded room %d: %d centres out of the room, %u in solid at a check",
              WATER_ROOM, out, solid);
        // Unsealed, the portal to the hall is open and the water spills.
        char *seal = strstr(json, "\"seal_water\": true");
        CHECK(seal != NULL, "the flood's scene seals the water");
        if (seal) {
            memcpy(seal, "\"seal_water\":false", strlen("\"seal_water\":false"));
            out = run_flood(ctx, level, json, UNSEALED_FRAMES, false, &solid);
            CHECK(out > 0, "unsealed, no water left room %d through its portal (%d)", WATER_ROOM, out);
        }
    }
    remove(path);
}

int main(void)
{
    test_seed();
    cs_tr1_level level;
    cs_tr1_generate_fixture(&level);
    check_plan(&level);
    check_ringed_plan();
    cs_context ctx;
    test_context(&ctx);
    check_flood(&ctx, &level);
    cs_tr1_free(&level);
    return test_finish(&ctx);
}
