// world_internal.h — what world.c and world_surface.c share; not for
// callers of the world.
#pragma once

#include "world.h"

// Creates the surfaces the fluids' scenes ask for (after the fluids).
bool cs_world_create_surfaces(cs_world *world, cs_error *err);
void cs_world_destroy_surfaces(cs_world *world);
// Names the passes of fluid i when the world has several ("pool: ...").
void cs_world_set_prefix(const cs_world *world, cs_recorder *rec, uint32_t i);
// Bakes the scene's level into a distance field per fluid and hands it to
// the fluid (world_level.c); nothing without a level. A solver without
// level collisions, or a 2D fluid, is refused with the key named.
// level_file: the scene's level, read once by cs_world_create (NULL without one).
bool cs_world_create_level_fields(cs_world *world, const cs_tr1_level *level_file, cs_error *err);
// Copies the fluids' scenes into world->placed_fluids with every "room"
// block and emitter moved from its room's origin into world coordinates
// (world_rooms.c); refuses a room the level does not have and a result
// outside the fluid's domain. Nothing to do (true) when no entry names a room.
bool cs_world_place_in_rooms(cs_world *world, cs_error *err);
