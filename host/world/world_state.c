// world_state.c — see world_state.h.
#include "world_state.h"

#include <stdio.h>

static const cs_state_row world_rows[] = {
    CS_STATE_HOST(cs_world, substep_index),
};

static const cs_state_row radiosity_rows[] = {
    CS_STATE_HOST(cs_world_radiosity, frames),
    CS_STATE_HOST(cs_world_radiosity, gpu.last_bounces),
    CS_STATE_BUFFER(cs_world_radiosity, gpu.lights),
    CS_STATE_BUFFER(cs_world_radiosity, gpu.area_lights),
    CS_STATE_BUFFER(cs_world_radiosity, gpu.direct),
    CS_STATE_BUFFER(cs_world_radiosity, gpu.irradiance),
    CS_STATE_BUFFER(cs_world_radiosity, gpu.gathered),
    CS_STATE_BUFFER(cs_world_radiosity, gpu.radiosity),
    CS_STATE_BUFFER(cs_world_radiosity, probes.partials),
    CS_STATE_BUFFER(cs_world_radiosity, probes.probes),
};

bool cs_world_state_parts(cs_world *world, cs_world_part_state *parts, uint32_t *count, cs_error *err)
{
    uint32_t n = 0;
    cs_world_part_state *p = &parts[n++];
    *p = (cs_world_part_state){.name = "world"};
    cs_state_expand(world_rows, CS_ARRAY_COUNT(world_rows), world, "", p->entries, &p->count, CS_STATE_MAX_ENTRIES);
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        cs_world_fluid *f = &world->fluids[i];
        if (!f->ops->state)
            return cs_scene_fail(f->scene, err, "", "solver", "\"%s\" cannot be checkpointed yet (its solver "
                                 "lists no state); run without --checkpoint-every", f->ops->solver);
        p = &parts[n++];
        *p = (cs_world_part_state){0};
        snprintf(p->name, sizeof p->name, "fluid %u %s (%s)", i, f->scene->fluid_name, f->ops->solver);
        p->count = f->ops->state(f->state, p->entries, CS_STATE_MAX_ENTRIES);
    }
    if (world->has_bodies) {
        p = &parts[n++];
        *p = (cs_world_part_state){.name = "bodies"};
        cs_bodies_state(&world->bodies, p->entries, &p->count, CS_STATE_MAX_ENTRIES);
    }
    if (world->radiosity && world->radiosity->gpu_made) {
        p = &parts[n++];
        *p = (cs_world_part_state){.name = "radiosity"};
        cs_state_expand(radiosity_rows, CS_ARRAY_COUNT(radiosity_rows), world->radiosity, "", p->entries, &p->count,
                        CS_STATE_MAX_ENTRIES);
    }
    *count = n;
    return true;
}

void cs_world_state_loaded(cs_world *world)
{
    // The bodies publish their set at the end of the first substep
    // (bodies.c, "Published once"); a fresh world has not stepped, so its
    // fluids would read their initial set for one substep more.
    if (!world->has_bodies || world->substep_index == 0)
        return;
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        cs_body_link link;
        world->fluids[i].ops->bodies(world->fluids[i].state, &link);
        if (link.reads_set)
            *link.reads_set = &world->bodies.set;
    }
}
