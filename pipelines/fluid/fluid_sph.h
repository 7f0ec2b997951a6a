// fluid_sph.h — Clavet et al. 2005 double-density relaxation ("sph") on the
// particle-fluid base (fluid.h). Owns the solver's parameter buffer, its
// two programs and one scratch array (pressure, near pressure); particle
// state, grid, emitters, collisions and stats belong to the base.
//
// One substep, as recorded (every pass labelled and timed):
//   emit → predict (v += g dt, x* = x + v dt) → grid on x* (+ reorder)
//   → "grid: neighbours" (lists on x*, unless 2D with one material: fluid_sph.c)
//   → "sph: density + viscosity" (rho, rho_near, P, P_near at x*; the
//                                 viscosity impulses give x_visc = x* + dt dv)
//   → "sph: relax"     (x' = x_visc + dx(x*, P), v = (x' - x) / dt)
//   → collide (the boundary set: domain box faces, walls; boundary.h).
// Both solver passes are Jacobi-style: each particle reads the previous
// state of its neighbours and writes its own result to a separate buffer,
// so a step is the same bits every run and matches a CPU reference
// (tests/ref/sph_ref.h). Clavet's Algorithms 1-2 are sequential instead:
// viscosity impulses move both particles of a pair at once and the
// relaxation displaces both particles of each pair in turn (Gauss-Seidel:
// later pairs see the moved positions), which spreads a correction a little
// further per pass but depends on the visiting order and cannot run in
// parallel without races. Here every pair term is computed once from the
// same previous state (pressures averaged over the pair, impulses split by
// mass), so the terms stay equal and opposite and momentum is conserved.
// Viscosity shares the density pass's neighbour loop and reads x* like the
// relaxation (Clavet applies it before advancing): one neighbour pass less,
// which is a third of the solver's time.
//
// Walls: the base clamps positions onto the domain box and the walls, so a
// jet driven into a wall piles its particles onto the plane, where near
// pressure between them flings some off at several times the jet speed.
// With wall_mirror (default) a particle closer than h/2 to a half-space of
// the boundary set (a box face or a wall, boundary.h) also sees its mirror
// image (same mass and pressures, distance 2d) in the density and
// relaxation sums: the wall pushes back like a neighbour, as seed 000's soft
// walls do, and particles hover off the plane.
//
// Time step: the relaxation moves particles by what they would travel in dt
// under the pressure; once particles cross a good part of h per substep
// (a collapsing column at 10 m/s with dt = 1/140 s moves 0.07 m = h/4),
// it overshoots and the fluid boils (seed 000's own loop does the same on
// that dam break). "split": N runs every scene substep as N solver substeps
// of dt/N (seed 000's cohesion, a displacement per substep, is divided by N
// so the fluid looks the same per second).
//
// seed_compatible: seed 000's walls (a velocity push in "sph: relax", no
// mirrors, no collide pass) and its viscosity (r/2 of Clavet's impulse);
// docs/scenes.md, "Seed 000's two-fluid scene", has why and the figures.
//
// Scene block "sph": { "kernel": "seed" | "clavet", "wall_mirror": true, "split": 1,
//                      "seed_compatible": false }
// (docs/scenes.md).
#pragma once

#include "../../shaders/sph/sph_shared.h"
#include "fluid.h"

// fluid.arrays[CS_SPH_ARRAY_PRESSURES], written by "sph: density" for
// "sph: relax": per particle vec2 (P, P_near); in 2D with one material, relax's
// neighbour record vec4 (x*, y*, P, P_near) instead, so its loop reads one
// array per neighbour (shaders/sph/sph.glsl, SPH_RELAX_RECORD).
enum { CS_SPH_ARRAY_PRESSURES = 0 };

// Whether the pressures array holds relax's neighbour record (see above).
bool cs_sph_relax_record(int dim, uint32_t material_count);

typedef struct cs_sph {
    cs_fluid fluid;
    int exponent;             // density kernel (1 - q)^n: 2 Clavet, 3 seed 000
    bool wall_mirror;         // walls push back through mirror particles
    bool seed_compatible;     // seed 000's viscosity and velocity-push walls (no collide pass)
    uint32_t split;           // each scene substep runs as `split` solver substeps (fluid.scene holds the split dt)
    cs_sph_params params;     // host copy of params_buffer
    cs_buffer params_buffer;
    cs_program_id density[2], relax[2]; // [0] the cell walk, [1] the list loop (compiled when first used)
    cs_neighbours nb;         // built on x* after the grid, read by density and relax (fluid_sph.c)
    bool lists;               // build and read the lists (fluid_sph.c, lists_wanted)
} cs_sph;

// Parses scene->solver_params (the "sph" block), creates the base and the
// solver's programs. A NULL solver_params takes the defaults.
bool cs_sph_create(cs_context *ctx, const cs_scene *scene, cs_sph *s, cs_error *err);
extern const cs_scene_key_block cs_sph_keys; // the block's rows
// The "sph" block into s's options (exponent, wall_mirror, split,
// seed_compatible); cs_sph_create calls it. Messages name `sph.key`.
bool cs_sph_read_block(const cs_scene *scene, cs_sph *s, cs_error *err);
void cs_sph_destroy(cs_sph *s);

// Switches the neighbour lists on or off (off: no "grid: neighbours" pass,
// both loops walk the cells; the results are the same bits either way).
// The first switch on creates the lists and the list programs.
// cs_sph_create chooses by dimension and materials (fluid_sph.c, lists_wanted);
// tests force both.
bool cs_sph_set_neighbour_lists(cs_sph *s, bool on, cs_error *err);

// One whole substep (see above).
void cs_sph_record_substep(cs_sph *s, cs_recorder *rec);
// The solver's passes one by one (tests drive them between the base's).
// Density first builds the neighbour lists on x* (when on: it is the first
// pass after the grid build), then writes densities, pressures and x_visc into the alternate
// predicted buffer; relax reads x* (current) and x_visc and writes the new
// positions and velocities (the current buffers swap).
void cs_sph_record_density(cs_sph *s, cs_recorder *rec);
void cs_sph_record_relax(cs_sph *s, cs_recorder *rec);

// Normalisation of (1 - r/h)^n over the disc (dim 2) or ball (dim 3) of radius h.
double cs_sph_kernel_norm(int dim, int n, double h);

extern const cs_sim_ops cs_sph_ops;
