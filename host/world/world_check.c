// world_check.c — whether a frame went wrong (world.h, "Runs that go wrong").
#include "world.h"

bool cs_world_check_stats(const cs_world *world, const cs_sim_stats *per_fluid, char *what, size_t size)
{
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        const cs_world_fluid *f = &world->fluids[i];
        const cs_sim_stats *s = &per_fluid[i];
        // A grid fluid counts cells, a particle fluid particles.
        const char *items = f->ops->field ? "cells" : "particles";
        char fluid[96];
        if (world->fluid_count > 1)
            snprintf(fluid, sizeof fluid, "fluid \"%s\" (solver %s)", f->scene->fluid_name, f->ops->solver);
        else
            snprintf(fluid, sizeof fluid, "solver %s", f->ops->solver);
        if (s->non_finite) {
            snprintf(what, size, "%s: %u of %u %s have NaN/Inf values (a time step or a "
                     "stiffness too large for the scene is the usual cause)", fluid, s->non_finite, s->particles, items);
            return false;
        }
        if (s->over_capacity) {
            snprintf(what, size, "%s: %u cell update%s overflowed the fixed-point mass capacity (4096 rest masses a "
                     "cell); "
                     "the fluid is compressed far past rest (too little pressure: raise reint.stiffness, or lower "
                     "gravity)", fluid, s->over_capacity, s->over_capacity == 1 ? "" : "s");
            return false;
        }
    }
    return true;
}
