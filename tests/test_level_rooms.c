// test_level_rooms.c — "room": N on fluid blocks and emitters: coordinates
// relative to room N's origin, the room's min corner in world space (x,
// floor-most y, z) (docs/scenes.md, host/world/world_rooms.c).
//
// The demo level (levels/cistern_demo.phd) at 512 units/m. The expected
// origin is computed here from the TR1 room header alone (x, z, y_bottom,
// the sector counts), not from the level mesh the world uses. For a random
// room (the seed is printed): a block and an emitter given in that room's
// coordinates must land at origin + offset, every block particle inside the
// moved box; an entry without "room" stays where it was written. Refused
// with the key named: "room" without a level (at parse), a room the level
// does not have, a room-relative box that lands outside the domain.
// ctest labels: quick,gpu -- 1
#include "test_util.h"

#include "level_tr1.h"
#include "world.h"

#define DEMO_PATH CS_SOURCE_DIR "/levels/cistern_demo.phd"
#define UNITS_PER_METRE 512.0
#define SPACING 0.25

// The room's origin from its header: TR1 (x, -y, -z) / units, y_bottom the floor-most.
static void expected_origin(const cs_tr1_room *room, double out[3])
{
    out[0] = room->x / UNITS_PER_METRE;
    out[1] = -(double)room->y_bottom / UNITS_PER_METRE;
    out[2] = -(room->z + 1024.0 * room->z_sectors) / UNITS_PER_METRE;
}

// The level's bounds over all rooms, for a domain that holds every room.
static void level_bounds(const cs_tr1_level *level, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (uint32_t r = 0; r < level->room_count; r++) {
        const cs_tr1_room *room = &level->rooms[r];
        double o[3];
        expected_origin(room, o);
        double top[3] = {o[0] + 1024.0 * room->x_sectors / UNITS_PER_METRE, -(double)room->y_top / UNITS_PER_METRE,
                         o[2] + 1024.0 * room->z_sectors / UNITS_PER_METRE};
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], o[a]);
            hi[a] = fmax(hi[a], top[a]);
        }
    }
}

// A scene with the demo level (or none), one block and one emitter in
// `room` at the given offsets, and a block in world coordinates at `world_block`.
static void scene_json(bool with_level, uint32_t room, const double lo[3], const double hi[3], const double off[3],
                       const double world_block[3], char *out, size_t size)
{
    char level[512] = "";
    if (with_level)
        snprintf(level, sizeof level, "\"level\": {\"file\": \"%s\", \"units_per_metre\": %.9g},", DEMO_PATH,
                 UNITS_PER_METRE);
    snprintf(out, size,
             "{ \"dim\": 3, \"domain\": {\"min\": [%.9g, %.9g, %.9g], \"max\": [%.9g, %.9g, %.9g]}, %s"
             "  \"fluids\": [{ \"solver\": \"pbf\", \"particle_spacing\": %.9g, \"smoothing_radius\": %.9g,"
             "    \"materials\": [{\"name\": \"water\", \"mass\": 15.625, \"rest_density\": 1000}],"
             "    \"blocks\": [{\"room\": %u, \"min\": [%.9g, %.9g, %.9g], \"max\": [%.9g, %.9g, %.9g]},"
             "                 {\"min\": [%.9g, %.9g, %.9g], \"max\": [%.9g, %.9g, %.9g]}],"
             "    \"emitters\": [{\"room\": %u, \"position\": [%.9g, %.9g, %.9g], \"direction\": [0, -1, 0],"
             "                   \"budget\": 10}],"
             "    \"pbf\": {} }] }",
             lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], level, SPACING, 2 * SPACING, room, off[0], off[1], off[2],
             off[0] + 2 * SPACING, off[1] + 2 * SPACING, off[2] + 2 * SPACING, world_block[0], world_block[1],
             world_block[2], world_block[0] + 2 * SPACING, world_block[1] + 2 * SPACING, world_block[2] + 2 * SPACING,
             room, off[0] + SPACING, off[1] + SPACING, off[2] + SPACING);
}

// Creates the world; returns false with the message in err when refused.
static bool make_world(cs_context *ctx, const char *json, cs_scene *scene, cs_world *world, cs_error *err)
{
    if (!cs_scene_parse(json, strlen(json), "rooms.json", scene, err))
        return false;
    if (!cs_world_create(ctx, scene, world, err)) {
        cs_scene_free(scene);
        return false;
    }
    return true;
}

static void check_placement(cs_context *ctx, const cs_tr1_level *level, const double lo[3], const double hi[3])
{
    uint32_t room = test_rand_u32() % level->room_count;
    const cs_tr1_room *r = &level->rooms[room];
    double origin[3];
    expected_origin(r, origin);
    // Offsets inside the room's footprint: one sector in, a little above the floor.
    // On a 1/64 m grid (and %.9g in the JSON), so coordinates are written
    // exactly: a box's extent rounded just under two spacings holds a particle less.
    double off[3] = {1.0 + floor(32 * test_rand_unit()) / 64, 0.25 + floor(16 * test_rand_unit()) / 64,
                     1.0 + floor(32 * test_rand_unit()) / 64};
    // Beside the room block (x + 3 spacings), written in world coordinates.
    double world_block[3] = {origin[0] + off[0] + 3 * SPACING, origin[1] + off[1], origin[2] + off[2]};
    char json[4096];
    scene_json(true, room, lo, hi, off, world_block, json, sizeof json);
    cs_scene scene;
    cs_world world;
    cs_error err;
    bool ok = make_world(ctx, json, &scene, &world, &err);
    CHECK(ok, "room %u: %s", room, ok ? "" : err.msg);
    if (!ok)
        return;
    const cs_scene *fs = world.fluids[0].scene;
    double tol = 1e-4;
    for (int a = 0; a < 3; a++) {
        CHECK(fabs(fs->blocks[0].min[a] - (origin[a] + off[a])) < tol, "room %u: block min[%d] %g, expected %g", room,
              a, fs->blocks[0].min[a], origin[a] + off[a]);
        CHECK(fabs(fs->emitters[0].position[a] - (origin[a] + off[a] + SPACING)) < tol,
              "room %u: emitter position[%d] %g, expected %g", room, a, fs->emitters[0].position[a],
              origin[a] + off[a] + SPACING);
        CHECK(fabs(fs->blocks[1].min[a] - world_block[a]) < tol, "room %u: a block without \"room\" moved (axis %d)",
              room, a);
    }
    // The particles themselves: the first block's 8 inside the moved box.
    cs_particle_view v;
    world.fluids[0].ops->particles(world.fluids[0].state, &v);
    float *pos = malloc((size_t)v.count * 16 + 16);
    cs_buffer_download(ctx, v.positions, pos, (VkDeviceSize)v.count * 16, 0);
    uint32_t in_box = 0;
    for (uint32_t i = 0; i < v.count; i++) {
        bool inside = true;
        for (int a = 0; a < 3; a++)
            inside = inside && pos[i * 4 + a] > origin[a] + off[a] && pos[i * 4 + a] < origin[a] + off[a] + 2 * SPACING;
        in_box += inside;
    }
    printf("room %u: origin (%.3f %.3f %.3f), block at +(%.3f %.3f %.3f): %u of %u particles in the moved box\n",
           room, origin[0], origin[1], origin[2], off[0], off[1], off[2], in_box, v.count);
    CHECK(v.count == 16 && in_box == 8, "room %u: %u of %u particles in the room-relative block (expected 8 of 16)",
          room, in_box, v.count);
    free(pos);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

static void check_refused(cs_context *ctx, const char *what, const char *json, const char *needle)
{
    cs_scene scene;
    cs_world world;
    cs_error err;
    bool ok = make_world(ctx, json, &scene, &world, &err);
    CHECK(!ok, "%s: accepted", what);
    if (ok) {
        cs_world_destroy(&world);
        cs_scene_free(&scene);
        return;
    }
    printf("%s: %s\n", what, err.msg);
    CHECK(strstr(err.msg, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", what, err.msg, needle);
}

int main(void)
{
    test_seed();
    cs_context ctx;
    test_context(&ctx);
    cs_tr1_level level;
    cs_error err;
    bool ok = cs_tr1_load(DEMO_PATH, &level, NULL, &err);
    CHECK(ok, "%s", ok ? "" : err.msg);
    if (!ok)
        return test_finish(&ctx);
    double lo[3], hi[3];
    level_bounds(&level, lo, hi);
    for (int i = 0; i < 3; i++)
        check_placement(&ctx, &level, lo, hi);

    char json[4096];
    double off[3] = {1, 0.5, 1}, world_block[3] = {lo[0] + 1, lo[1] + 1, lo[2] + 1};
    scene_json(false, 0, lo, hi, off, world_block, json, sizeof json);
    check_refused(&ctx, "no level", json, "blocks[0].room: needs a \"level\"");
    scene_json(true, level.room_count, lo, hi, off, world_block, json, sizeof json);
    check_refused(&ctx, "room out of range", json, "blocks[0].room: ");
    check_refused(&ctx, "room out of range", json, "out of range");
    double far[3] = {hi[0] - lo[0] + 1.0, 0.5, 1.0}; // past the level's east end from any room
    scene_json(true, 0, lo, hi, far, world_block, json, sizeof json);
    check_refused(&ctx, "outside the domain", json, "outside the domain");
    cs_tr1_free(&level);
    return test_finish(&ctx);
}
