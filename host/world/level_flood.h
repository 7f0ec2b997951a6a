// level_flood.h — a level's water rooms filled with a particle fluid
// (`cistern view --flood`; docs/levels.md, "Water rooms").
//
// TR1 marks a room under water with room flag 0x0001 (CS_TR1_ROOM_WATER).
// The flood fills each chosen room's open sector columns, from the floor's
// highest point to the ceiling's lowest (a slanted floor's wedge fills as
// the water settles), with PBF particles on a lattice whose spacing is the
// smallest that keeps within a particle budget. Columns of equal floor and
// ceiling are merged into boxes (a scene's blocks, at most CS_MAX_BLOCKS
// in all). The scene it makes seals the water (cs_level_ref.seal_water):
// a water room's portals to dry rooms are walls, as the water surface is
// to the game, so the water stays where it was put.
#pragma once

#include "level_tr1.h"
#include "scene.h"

#define CS_FLOOD_MAX_ROOMS 64

typedef struct cs_level_flood {
    uint32_t room_count;
    uint32_t rooms[CS_FLOOD_MAX_ROOMS]; // the rooms filled
    uint32_t block_count;
    cs_fluid_block blocks[CS_MAX_BLOCKS]; // world metres
    uint32_t block_room[CS_MAX_BLOCKS];
    double spacing;                     // metres
    uint32_t particles;                 // the blocks' lattice points
    double volume;                      // of the blocks, m^3
    float domain_min[3], domain_max[3]; // the rooms' bounds and a sector around
} cs_level_flood;

// Plans the flood: `rooms` (room_count of them) or, with room_count 0,
// every water room. Refuses a listed room that does not exist, a level
// with no water room (when none is listed), rooms with no open sector,
// more boxes than CS_MAX_BLOCKS, and a budget under 8 particles.
bool cs_level_flood_plan(const cs_tr1_level *level, double units_per_metre, const uint32_t *rooms,
                         uint32_t room_count, uint32_t budget, cs_level_flood *out, cs_error *err);

// The flood as a scene (JSON text into out, size bytes): the level at
// `level_path` sealed, one PBF fluid with the planned blocks in the planned
// domain. False when it does not fit.
bool cs_level_flood_scene_json(const cs_level_flood *flood, const char *level_path, double units_per_metre,
                               char *out, size_t size);

// "rooms 3, 5 (2 water rooms): 19872 particles at 0.094 m spacing, 1.8 m^3"
void cs_level_flood_text(const cs_level_flood *flood, char *out, size_t size);
