// world_frame_stats.c — the stats a frame carries in its own recording
// (world.h, "frames in flight"): recorded at the frame's end, read once the
// frame has completed, possibly while the next frame runs.
#include "world.h"

#include <math.h>

bool cs_world_stats_in_frame(const cs_world *world)
{
    for (uint32_t i = 0; i < world->fluid_count; i++)
        if (!world->fluids[i].ops->record_stats || !world->fluids[i].ops->read_stats)
            return false;
    return true;
}

void cs_world_record_stats(cs_world *world, cs_recorder *rec)
{
    CS_ASSERT(cs_world_stats_in_frame(world), "a fluid of this world has no in-frame stats");
    char prefix[sizeof rec->pass_prefix];
    memcpy(prefix, rec->pass_prefix, sizeof prefix);
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        cs_world_fluid *f = &world->fluids[i];
        // Named like the fluid's other passes ("pool: stats") when there are several.
        if (world->fluid_count > 1)
            snprintf(rec->pass_prefix, sizeof rec->pass_prefix, "%s", f->scene->fluid_name);
        f->ops->record_stats(f->state, rec);
    }
    memcpy(rec->pass_prefix, prefix, sizeof prefix);
}

void cs_world_combine_stats(const cs_world *world, const cs_sim_stats *per_fluid, cs_sim_stats *total)
{
    if (world->fluid_count == 1) {
        *total = per_fluid[0]; // exactly the fluid's figures, no re-rounding
        return;
    }
    *total = (cs_sim_stats){0};
    double error_sum = 0.0;
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        const cs_sim_stats *s = &per_fluid[i];
        total->particles += s->particles;
        error_sum += s->mean_density_error * s->particles;
        total->max_density_error = fmax(total->max_density_error, s->max_density_error);
        total->max_speed = fmax(total->max_speed, s->max_speed);
        total->kinetic_energy += s->kinetic_energy;
        total->total_mass += s->total_mass;
        total->non_finite += s->non_finite;
        total->outside_domain += s->outside_domain;
        total->solver_steps += s->solver_steps;
        total->density_iterations += s->density_iterations;
        total->divergence_iterations += s->divergence_iterations;
        total->solver_dt_sum += s->solver_dt_sum;
    }
    total->mean_density_error = total->particles ? error_sum / total->particles : 0.0;
}

void cs_world_read_stats(cs_world *world, uint32_t frame_slot, cs_sim_stats *total, cs_sim_stats *per_fluid)
{
    cs_sim_stats local[CS_MAX_FLUIDS];
    cs_sim_stats *each = per_fluid ? per_fluid : local;
    for (uint32_t i = 0; i < world->fluid_count; i++)
        world->fluids[i].ops->read_stats(world->fluids[i].state, frame_slot, &each[i]);
    cs_world_combine_stats(world, each, total);
}
