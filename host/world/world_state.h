// world_state.h — what a checkpoint saves of a world: its parts, each with
// the table of buffers and host fields the next substep reads.
//
// The parts, in the order a checkpoint holds them:
//   "world"                        the substep clock
//   "fluid <i> <name> (<solver>)"  every fluid: its solver's table (sim.h state)
//   "bodies"                       the rigid bodies (bodies.h cs_bodies_state)
//   "radiosity"                    the geometry's light: the feedback and
//                                  gathers' last results, the probes, the
//                                  frame count (lights' paths follow the clock)
// Each part's rows are tables next to the struct they describe (sim.h
// cs_state_row); nothing here lists a solver's buffers. What a checkpoint
// does not hold is made again the same by cs_world_create from the scene:
// parameters, the level's mesh and distance fields, the surfaces (meshed
// from the state each frame they are shown).
#pragma once

#include "world.h"

typedef struct cs_world_part_state {
    char name[96];
    cs_state_entry entries[CS_STATE_MAX_ENTRIES];
    uint32_t count;
} cs_world_part_state;

#define CS_WORLD_MAX_PARTS (CS_MAX_FLUIDS + 3)

// Lists the world's parts into parts[0 .. *count). False (err names the
// fluid and its solver) when a part cannot be saved.
bool cs_world_state_parts(cs_world *world, cs_world_part_state *parts, uint32_t *count, cs_error *err);

// After every part's entries were loaded into a fresh world of the same
// scene: what follows from them on the host (the fluids read the bodies'
// published set once the bodies have stepped).
void cs_world_state_loaded(cs_world *world);
