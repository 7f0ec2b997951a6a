// run_rooms.h — how many of a level's rooms a run's last drawn frame drew
// (docs/levels.md, "Rooms drawn in a run"): the window title, the overlay
// and the headless run's stdout line report it.
#ifndef CS_RUN_ROOMS_H
#define CS_RUN_ROOMS_H

#include "render.h"
#include "world.h"

typedef struct cs_rooms_drawn {
    uint32_t drawn;   // rooms the portal walk reached (all of them when not culled)
    uint32_t total;   // rooms of the level; 0: the world has no level
    bool culled;      // false: the level is drawn lit by radiosity, every room (no portal walk)
} cs_rooms_drawn;

// The rooms of the frame the renderer recorded last. `level_baked`: the
// run shows TR1's baked light (the level feature, which walks the portals).
cs_rooms_drawn cs_run_rooms_drawn(const cs_renderer *renderer, const cs_world *world, bool level_baked);

// "rooms 2 of 4 drawn" (or "rooms 4 of 4 drawn (radiosity: no portal
// walk)"); "" without a level.
void cs_run_rooms_text(cs_rooms_drawn rooms, char *out, size_t size);

#endif
