// run_rooms.c — the rooms a run drew (run_rooms.h).
#include "run_rooms.h"

#include "world_radiosity.h"

#include <stdio.h>

cs_rooms_drawn cs_run_rooms_drawn(const cs_renderer *renderer, const cs_world *world, bool level_baked)
{
    if (!world->has_level)
        return (cs_rooms_drawn){0};
    uint32_t total = world->level.room_count;
    // A level lit by radiosity is the geometry feature's: its patches are
    // drawn whole, every room, and the level feature's walk does not run.
    bool radiosity = world->radiosity && world->radiosity->has_level && !level_baked;
    if (radiosity)
        return (cs_rooms_drawn){.drawn = total, .total = total, .culled = false};
    return (cs_rooms_drawn){.drawn = renderer->level_rooms_drawn, .total = total, .culled = true};
}

void cs_run_rooms_text(cs_rooms_drawn rooms, char *out, size_t size)
{
    if (rooms.total == 0)
        snprintf(out, size, "%s", "");
    else
        snprintf(out, size, "rooms %u of %u drawn%s", rooms.drawn, rooms.total,
                 rooms.culled ? "" : " (radiosity: no portal walk)");
}
