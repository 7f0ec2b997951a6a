// world.h — the world: every part a scene holds, run substep by substep.
//
// Owns: one simulation state per fluid of the scene (each its own solver,
// materials, grid and, optionally, its own domain), and the substep clock
// they share. Later parts (a level, bodies, lights, probes, surfaces) join
// here as further arrays with their own per-substep and per-frame hooks.
//
// A frame, as cs_world_record_frame records it:
//
//   for each substep s of the frame:             (scene.substeps of them)
//       for each fluid, in scene order:  ops->record_substep(state, rec, &step)
//       bodies: integrate what the fluids gave them, publish their new pose
//   for each fluid:  ops->record_frame_end(state, rec)   (views, reductions)
//
// Fluids do not interact yet: each sees the world's walls and its own
// domain box, not the other fluids. With more than one fluid, each fluid's
// passes are named "<fluid name>: <pass>" (the recorder's pass prefix) so
// captures, stats.csv and benchmarks tell them apart; a world of one fluid
// keeps the bare names.
//
// run, bench and the window hold a cs_world, never a solver.
#pragma once

#include "bodies.h"
#include "sim.h"

typedef struct cs_world_fluid {
    const cs_scene *scene;     // the file's fluids[i] (complete: world keys + its own)
    const cs_sim_ops *ops;
    void *state;
} cs_world_fluid;

typedef struct cs_world {
    cs_context *ctx;
    const cs_scene *scene;     // the file; the caller keeps it alive
    cs_world_fluid fluids[CS_MAX_FLUIDS];
    uint32_t fluid_count;
    // The rigid bodies (scene "bodies"; bodies.h), when the scene has any:
    // cleared before the fluids' substep, reduced, integrated and published
    // after it.
    cs_bodies bodies;
    bool has_bodies;
    uint64_t substep_index;    // substeps recorded so far
} cs_world;

// Creates every part. An unknown solver names the key and lists the solvers
// this build has; a part the device cannot hold is refused before the next
// part is made. On failure nothing is left allocated.
bool cs_world_create(cs_context *ctx, const cs_scene *scene, cs_world *world, cs_error *err);
void cs_world_destroy(cs_world *world);

// Records one frame: scene.substeps substeps, then the parts' frame ends.
void cs_world_record_frame(cs_world *world, cs_recorder *rec);
// The pieces of a frame, for callers that time substeps one by one (bench):
// substep `frame_substep` of a frame of `frame_substeps`, and the frame end.
void cs_world_record_substep(cs_world *world, cs_recorder *rec, uint32_t frame_substep, uint32_t frame_substeps);
void cs_world_record_frame_end(cs_world *world, cs_recorder *rec);

// Simulated time at the start of the next substep, seconds.
double cs_world_time(const cs_world *world);

// After the recording was submitted and waited on: the stats of every fluid
// together (counts, mass and energy summed; maxima; the mean density error
// weighted by particle count). `per_fluid` may be NULL, else holds
// fluid_count entries.
void cs_world_stats(cs_world *world, cs_sim_stats *total, cs_sim_stats *per_fluid);

// "pbf", "sph", ... the solvers this build has, comma separated, quoted.
void cs_world_list_solvers(char *out, size_t size);
