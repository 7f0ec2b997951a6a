// world_rooms.c — "room": N on a fluid block or an emitter: its coordinates
// are relative to the origin of room N of the scene's level, the room's
// min corner in world space (x, floor-most y, z: the bounds of its sector
// grid, walls included, and its y_bottom; docs/scenes.md). The scene
// parser cannot read the level, so the world moves them here, before the
// fluids are made, into copies of the fluids' scenes it owns.
#include "world_internal.h"

static bool names_a_room(const cs_scene *fs)
{
    for (uint32_t b = 0; b < fs->block_count; b++)
        if (fs->blocks[b].in_room)
            return true;
    for (uint32_t e = 0; e < fs->emitter_count; e++)
        if (fs->emitters[e].in_room)
            return true;
    return false;
}

static bool inside_domain(const cs_scene *fs, const float p[3], float slack)
{
    for (int a = 0; a < 3; a++)
        if (p[a] < fs->domain_min[a] - slack || p[a] > fs->domain_max[a] + slack)
            return false;
    return true;
}

// The room's origin, or a message naming the entry when the level has no such room.
static bool room_origin(const cs_world *world, const cs_scene *fs, const char *entry, uint32_t room, float origin[3],
                        cs_error *err)
{
    if (room >= world->level.room_count)
        return cs_scene_fail(fs, err, entry, "room", "%u is out of range: the level has %u rooms (0..%u)", room,
                             world->level.room_count, world->level.room_count - 1);
    for (int a = 0; a < 3; a++)
        origin[a] = (float)world->level.rooms[room].min[a];
    return true;
}

static bool place_blocks(const cs_world *world, cs_scene *fs, cs_error *err)
{
    for (uint32_t i = 0; i < fs->block_count; i++) {
        cs_fluid_block *b = &fs->blocks[i];
        if (!b->in_room)
            continue;
        char entry[32];
        snprintf(entry, sizeof entry, "blocks[%u]", i);
        float origin[3] = {0, 0, 0};
        if (!room_origin(world, fs, entry, b->room, origin, err))
            return false;
        for (int a = 0; a < 3; a++) {
            b->min[a] += origin[a];
            b->max[a] += origin[a];
        }
        b->in_room = false;
        float slack = 1e-4f * b->spacing; // as the parser allows a block flush with the domain
        if (!inside_domain(fs, b->min, slack) || !inside_domain(fs, b->max, slack))
            return cs_scene_fail(fs, err, entry, NULL,
                                 "box in room %u is [%g %g %g]..[%g %g %g] in world coordinates, outside the domain "
                                 "[%g %g %g]..[%g %g %g]", b->room, b->min[0], b->min[1], b->min[2], b->max[0],
                                 b->max[1], b->max[2], fs->domain_min[0], fs->domain_min[1], fs->domain_min[2],
                                 fs->domain_max[0], fs->domain_max[1], fs->domain_max[2]);
    }
    return true;
}

static bool place_emitters(const cs_world *world, cs_scene *fs, cs_error *err)
{
    for (uint32_t i = 0; i < fs->emitter_count; i++) {
        cs_emitter *e = &fs->emitters[i];
        if (!e->in_room)
            continue;
        char entry[32];
        snprintf(entry, sizeof entry, "emitters[%u]", i);
        float origin[3] = {0, 0, 0};
        if (!room_origin(world, fs, entry, e->room, origin, err))
            return false;
        for (int a = 0; a < 3; a++)
            e->position[a] += origin[a];
        e->in_room = false;
        if (!inside_domain(fs, e->position, 0.0f))
            return cs_scene_fail(fs, err, entry, "position",
                                 "in room %u is (%g %g %g) in world coordinates, outside the domain", e->room,
                                 e->position[0], e->position[1], e->position[2]);
    }
    return true;
}

bool cs_world_place_in_rooms(cs_world *world, cs_error *err)
{
    const cs_scene *scene = world->scene;
    bool any = false;
    for (uint32_t i = 0; i < scene->fluid_count; i++)
        any = any || names_a_room(&scene->fluids[i]);
    if (!any)
        return true;
    // The parser refuses "room" without a level, so the level is loaded here.
    CS_ASSERT(world->has_level, "a block or emitter names a room but the world has no level");
    world->placed_fluids = malloc(scene->fluid_count * sizeof *world->placed_fluids);
    CS_ASSERT(world->placed_fluids, "out of host memory");
    for (uint32_t i = 0; i < scene->fluid_count; i++) {
        cs_scene *fs = &world->placed_fluids[i];
        *fs = scene->fluids[i];
        if (!place_blocks(world, fs, err) || !place_emitters(world, fs, err))
            return false;
    }
    return true;
}
