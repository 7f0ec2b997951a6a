// world_check.c — whether a frame went wrong (world.h, "Runs that go wrong").
#include "world.h"

#include <math.h>

// The speed past which a frame has gone wrong, in kernel supports (the
// smoothing radius, else the spacing) a substep: CFL 3. The shipped
// scenes' free fall over the domain's longest side plus their emitters'
// speed stay below 0.92 of a support a substep (rooms_radiosity; most
// below 0.5); SPH is stable below about 0.4.
#define SPEED_LIMIT_CFL 3.0

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
        // Faster than its kernel support (or cell) a substep, a particle
        // skips its neighbours and tunnels through walls: nothing after is
        // a simulation (a 5 m body in a 1.2 m box reached 1.8e10 m/s, and
        // exit 0). The particle fluids only (pbf, sph, wcsph: no grid
        // field, a level hook): reint's cells and the free-space vortons'
        // tracers have no kernel support to cross.
        double length = fmax(f->scene->smoothing_radius, f->scene->particle_spacing);
        // A solver that takes its own steps (DFSPH: CFL steps within the
        // scene's substep) is held to its own mean step.
        double step = s->solver_steps ? s->solver_dt_sum / s->solver_steps : (double)f->scene->dt;
        double limit = SPEED_LIMIT_CFL * length / step;
        bool particles = !f->ops->field && f->ops->level;
        if (particles && length > 0.0 && s->max_speed > limit) {
            snprintf(what, size, "%s: the fastest of %u %s moves %.3g m/s, past %.3g m/s (%g x %g m, the kernel "
                     "support or cell, a substep of %g s): the run has come apart (usual causes: fluid started "
                     "inside solid or a body, a body larger than the domain, a time step too large for the speeds)",
                     fluid, s->particles, items, s->max_speed, limit, SPEED_LIMIT_CFL, length, step);
            return false;
        }
    }
    return true;
}

// Rest-density check thresholds, as ratios of the implied density to the
// rest density. Refused outside [1/2, 2]: at 2x, WCSPH's Tait pressure
// (gamma 7) starts at 127 B, about 18 rho0 c^2, and the block explodes; PBF
// and Clavet push the block to twice its volume in the first steps; below
// 1/2 the block collapses to half its size. Such a block is a mistake (a
// scene refined without scaling "mass" by spacing^dim), never a choice.
// Warned outside [0.95, 1.05]: the shipped scenes sit within 2% of rest,
// and WCSPH (gamma 7) turns 5% into a pressure of 0.4 B, a start the
// stats' density error shows.
#define REST_REFUSE 2.0
#define REST_WARN 1.05

bool cs_world_check_rest_density(const cs_scene *scene, char *warnings, size_t size, cs_error *err)
{
    size_t used = 0;
    warnings[0] = 0;
    for (uint32_t f = 0; f < scene->fluid_count; f++) {
        const cs_scene *fs = &scene->fluids[f];
        const cs_sim_ops *ops = cs_sim_find(fs->solver);
        if (!ops || !ops->lattice_density)
            continue;
        for (uint32_t b = 0; b < fs->block_count; b++) {
            const cs_fluid_block *blk = &fs->blocks[b];
            const cs_material *mat = &fs->materials[blk->material];
            double rho, fitting;
            if (!ops->lattice_density(fs, blk->material, blk->spacing, &rho, &fitting))
                break; // the solver block is wrong: create says so
            double ratio = rho / mat->rest_density;
            char block[64], fix[400];
            snprintf(block, sizeof block, "blocks[%u]", b);
            if (fitting > 0.0)
                snprintf(fix, sizeof fix, "\"mass\": %.6g (materials[%u]) gives rest density at spacing %g (a "
                         "scene refined by k needs mass x k^%d)", fitting, blk->material, (double)blk->spacing,
                         fs->dim);
            else
                snprintf(fix, sizeof fix, "%s derives the particle mass from particle_spacing (%g): give the block "
                         "that spacing", fs->solver, (double)fs->particle_spacing);
            char what[700];
            snprintf(what, sizeof what, "material \"%s\" on spacing %g starts at rho/rho0 = %.3g (%s density sum "
                     "at an interior particle: %.6g for rest_density %g); %s",
                     mat->name, (double)blk->spacing, ratio, fs->solver, rho, (double)mat->rest_density, fix);
            if (!(ratio <= REST_REFUSE && ratio >= 1.0 / REST_REFUSE))
                return cs_scene_fail(fs, err, block, NULL, "%s; refused above %gx off rest", what, REST_REFUSE);
            if ((ratio > REST_WARN || ratio < 1.0 / REST_WARN) && used < size) {
                cs_error as_text;
                cs_scene_fail(fs, &as_text, block, NULL, "%s", what);
                used += (size_t)snprintf(warnings + used, size - used, "%swarning: %s", used ? "\n" : "",
                                         as_text.msg);
            }
        }
    }
    return true;
}
