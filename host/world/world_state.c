// world_state.c — see world_state.h.
#include "world_state.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// The ranges (sim.h cs_state_range): checkpoint.c checks every loaded
// entry by them before anything is uploaded.
static const cs_state_row world_rows[] = {
    // The clock: any count of substeps is a time (lights' paths and
    // emitters take it as one).
    CS_STATE_HOST(cs_world, substep_index, CS_ANY_BITS),
};

// The probes' buffer: its header as create made it (dims and count index
// the probes), the renderer's flag 0 or 1, then the probes' floats.
static bool check_probes(const void *base, const void *data, size_t bytes, char *why, size_t why_size)
{
    const cs_world_radiosity *r = base;
    const cs_probe_grid *g = data;
    if (bytes < sizeof *g)
        return snprintf(why, why_size, "%zu bytes, less than its header", bytes), false;
    if (memcmp(g, &r->probes.grid, offsetof(cs_probe_grid, flags)) != 0)
        return snprintf(why, why_size, "its header (origin, spacing, dims %u x %u x %u, count %u) is not the "
                        "scene's (dims %u x %u x %u, count %u)", g->dims.x, g->dims.y, g->dims.z, g->dims.w,
                        r->probes.grid.dims.x, r->probes.grid.dims.y, r->probes.grid.dims.z,
                        r->probes.grid.dims.w), false;
    if (g->flags.x > 1)
        return snprintf(why, why_size, "its shading flag is %u, not 0 or 1", g->flags.x), false;
    const float *v = (const float *)(g + 1);
    for (size_t i = 0; i < (bytes - sizeof *g) / 4; i++)
        if (!isfinite(v[i]))
            return snprintf(why, why_size, "float %zu after the header is %g", i, (double)v[i]), false;
    return true;
}

static const cs_state_row radiosity_rows[] = {
    CS_STATE_HOST(cs_world_radiosity, frames, CS_ANY_BITS), // a count of frames: only its remainders are read
    CS_STATE_HOST(cs_world_radiosity, gpu.last_bounces, CS_ANY_BITS), // read modulo 2
    // Recorded again into every frame before the direct pass reads them.
    CS_STATE_BUFFER(cs_world_radiosity, gpu.lights, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_world_radiosity, gpu.area_lights, CS_ANY_BITS),
    // The light's results (finite in every checkpoint a run writes).
    CS_STATE_BUFFER(cs_world_radiosity, gpu.direct, CS_FINITE),
    CS_STATE_BUFFER(cs_world_radiosity, gpu.irradiance, CS_FINITE),
    CS_STATE_BUFFER(cs_world_radiosity, gpu.gathered, CS_FINITE),
    CS_STATE_BUFFER(cs_world_radiosity, gpu.radiosity, CS_FINITE),
    // The gathers' running sums: written before the probes' finish reads them.
    CS_STATE_BUFFER(cs_world_radiosity, probes.partials, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_world_radiosity, probes.probes, CS_CHECKED(check_probes)),
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
