// fluid_dfsph.h — divergence-free SPH (Bender & Koschier 2015, "Divergence-
// Free Smoothed Particle Hydrodynamics"; 2017 TVCG, "Divergence-Free SPH for
// Incompressible and Viscous Fluids"), "dfsph", on the particle-fluid base
// (fluid.h): the shared grid, emitters, collisions, stats and dumps. The
// positions carry the material in w (cs_fluid_desc.positions_w_material);
// the predicted-position pair, reordered with the particles, holds each
// particle's pressure sums for the warm start instead (x: the density
// solve's kappa, y: the divergence solve's; zw 0).
//
// One scene substep, as recorded (every pass labelled and timed):
//   emit
//   "dfsph: speed" → max |v| (prim.h reduction) → read back (a submit and
//      wait): the step count n from the CFL bound, dt = scene dt / n
//   n times:
//     grid on x (+ reorder)
//     "dfsph: density + factor"    rho/rho0 (+ walls' share), alpha_i, grad psi_i
//     divergence solve:  "dfsph: divergence error" (warm start)
//                        "dfsph: divergence velocity"
//                        until the mean error < divergence_error (>= 1, <= max_iterations):
//                          "dfsph: divergence error", mean read back, "dfsph: divergence velocity"
//     "dfsph: non-pressure forces" gravity, artificial viscosity (as WCSPH's), the pointer
//     density solve:     the same with "dfsph: density error" / "dfsph: density velocity",
//                        >= 2 iterations, until the mean error < density_error
//     "dfsph: advect"    x += dt v
//     collide (the boundary set, the level; base)
// Every pass is Jacobi-style and every sum runs in a fixed order, and the
// host's decisions (steps, iterations) read only GPU results of the same
// recording: the same scene gives the same bits every run.
//
// Walls: every half-space of the boundary set counts as layers of rest
// fluid behind it (the tables WCSPH builds, cs_wcsph_wall_table_value), so
// a lattice block starts at rest density at the walls too; in the solves
// the walls are a static boundary (Akinci et al. 2012's form): they add
// grad psi to alpha's gradient sum, v_i . grad psi to the density change,
// and push with k_i alone.
//
// Scene block "dfsph": { "density_error": 0.001, "divergence_error": 0.001,
//   "max_iterations": 100, "cfl": 0.4, "dt_min": 1e-5, "dt_max": 0.005,
//   "max_steps": 200 } (docs/scenes.md, docs/fluids.md).
#pragma once

#include "../../shaders/dfsph/dfsph_shared.h"
#include "fluid.h"
#include "prim.h"

// fluid.arrays[]: per particle.
enum {
    CS_DFSPH_ARRAY_TERMS = 0,         // vec4 (rho/rho0, alpha, neighbours incl. self, 0)
    CS_DFSPH_ARRAY_WALL_GRADIENT = 1, // vec4 (grad psi, 0)
    CS_DFSPH_ARRAY_STIFFNESS = 2,     // float k of the current iteration
    CS_DFSPH_ARRAY_ERRORS = 3,        // float: an error pass's per-particle error, or |v| (speed pass)
};

// The solver's own readback: the sums a recording's host decisions read.
enum { CS_DFSPH_SUM_ERROR = 0, CS_DFSPH_SUM_SPEED = 1, CS_DFSPH_SUMS = 4 };

// What a frame's steps did, for stats.csv (cs_sim_stats).
typedef struct cs_dfsph_counts {
    uint32_t steps;
    uint32_t density_iterations, divergence_iterations;
    double dt_sum; // seconds: the frame's steps' dt summed (mean dt = dt_sum / steps)
} cs_dfsph_counts;

typedef struct cs_dfsph {
    cs_fluid fluid; // its dt is the scene's; a step's dt is a push constant
    // The "dfsph" block (scene keys).
    float density_error;     // target mean (rho*/rho0 - 1)+ of the density solve
    float divergence_error;  // target mean dt (d(rho/rho0)/dt)+ of the divergence solve
    uint32_t max_iterations; // per solve and step
    float cfl;               // dt <= cfl spacing / v_max
    float dt_min, dt_max;    // s
    uint32_t max_steps;      // solver steps per frame at most
    cs_dfsph_params params;  // host copy of params_buffer
    cs_buffer params_buffer;
    cs_program_id density, error, velocity, forces, advect, speed;
    cs_buffer sums;     // CS_DFSPH_SUMS floats the reductions write
    cs_buffer readback; // host-visible copy of sums
    // Counts since the last stats record, and the frame slots' copies
    // (recorder.h: read a frame later).
    cs_dfsph_counts counts;
    cs_dfsph_counts slot_counts[CS_FRAME_SLOTS];
    // The last solves' final mean errors (tests, docs).
    double last_density_error, last_divergence_error;
} cs_dfsph;

extern const cs_scene_key_block cs_dfsph_keys; // the block's rows
// The "dfsph" block into d's options (defaults for keys left out).
bool cs_dfsph_read_block(const cs_scene *scene, cs_dfsph *d, cs_error *err);
bool cs_dfsph_create(cs_context *ctx, const cs_scene *scene, cs_dfsph *d, cs_error *err);
void cs_dfsph_destroy(cs_dfsph *d);

// One scene substep (above): reads back inside the recording (submit, wait,
// resume) for the CFL step and the solves' errors.
void cs_dfsph_record_substep(cs_dfsph *d, cs_recorder *rec);

// The passes one at a time, for the tests: each records one labelled pass
// on the current state with step length dt.
void cs_dfsph_record_density(cs_dfsph *d, cs_recorder *rec);
void cs_dfsph_record_error(cs_dfsph *d, cs_recorder *rec, uint32_t mode, bool warm, float dt);
void cs_dfsph_record_velocity(cs_dfsph *d, cs_recorder *rec, uint32_t mode, float dt);
void cs_dfsph_record_forces(cs_dfsph *d, cs_recorder *rec, float dt);
void cs_dfsph_record_advect(cs_dfsph *d, cs_recorder *rec, float dt);
// The step count the CFL bound gives a scene substep of `dt_scene` s with
// the fastest particle at v_max m/s (v_max grown by |g| dt_scene: gravity
// acts during the substep), within dt_min, dt_max and max_steps.
uint32_t cs_dfsph_steps(const cs_dfsph *d, double dt_scene, double v_max);

extern const cs_sim_ops cs_dfsph_ops;
