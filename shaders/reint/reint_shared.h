// reint_shared.h — constants and structs the reintegration-tracking host code
// (pipelines/reint/reint.c), its shaders (shaders/reint/) and its CPU reference
// (tests/ref/reint_ref.h) all read, so the three cannot drift apart.
#ifndef REINT_SHARED_H
#define REINT_SHARED_H

#include "cs_shared.h"

// Workgroups: one invocation per cell, 256 per group in both dimensions.
#define REINT_WG_2D_X 16
#define REINT_WG_2D_Y 16
#define REINT_WG_3D_X 8
#define REINT_WG_3D_Y 8
#define REINT_WG_3D_Z 4

// Mass is stored in fixed point: REINT_MASS_ONE units are one rest cell mass
// (a cell at rest density). Integer mass makes the gather exact, so total
// mass is conserved bit for bit. 2^20 leaves room for 4096 rest masses in a
// cell before a u32 overflows, far beyond any compression the pressure allows
// at sane settings; a gather that overflows anyway is saturated and counted
// (advect.comp), and `cistern run` stops with a message.
#define REINT_MASS_ONE 1048576u
#define REINT_MASS_ONE_F 1048576.0
// Overlap fractions per axis are quantised to REINT_WEIGHT_BITS fixed point
// before they split a source's integer mass.
#define REINT_WEIGHT_BITS 24
#define REINT_WEIGHT_ONE_F 16777216.0
// A box of half-size r < 1 covers at most 3 cells along an axis.
#define REINT_MAX_SPAN 3

// Cell flags of a fluid in a level (advect.comp; pipelines/reint/reint.c sets them
// from the level's distance field). A solid cell's centre is in the level's
// solid: no mass enters it. A blocked face lies on a wall (a thick wall's
// face or a zero-thickness wall between rooms): no mass crosses it. Face bit
// of axis a, low side (-) or high side (+): REINT_FACE_BIT(a, side).
#define REINT_CELL_SOLID 1u
#define REINT_FACE_BIT(axis, high) (2u << (2u * (axis) + (high)))

#define REINT_EOS_LINEAR 0 // P = k rho (rho - 1)      (seed's default)
#define REINT_EOS_TAIT 1   // P = k (rho^gamma - 1)    (Cole / Tait)

// Cells lighter than this (a thousandth of a rest cell mass) are mist: the
// thin exponential tail the diffusion spreads above a free surface. SPH
// accelerates a distribution regardless of its mass, so mist can move fast
// while carrying no momentum to speak of; max speed ignores it (kinetic
// energy, mass and the non-finite count do not).
#define REINT_MIST_UNITS (REINT_MASS_ONE / 1000u)

// The stats pass: a fixed number of workgroups, each striding over the grid,
// so the reduction has the same shape (and the same bits) every run.
#define REINT_STATS_GROUPS 256
#define REINT_STATS_WG 64

// The points view ("reint: points"): every cell holding more than this much
// mass becomes one particle at its centre of mass. A tenth of a rest mass
// keeps the mist tail (and the thinnest spray) out of the picture and the
// PLY dumps while every cell of the fluid body shows.
#define REINT_POINTS_MIN_UNITS (REINT_MASS_ONE / 10u)
// The points pass's draw arguments: a VkDrawIndirectCommand (6 vertices per
// point, one instance) followed by the point count, as uints.
#define REINT_POINTS_ARGS_UINTS 8

// Push constants of every reint shader. Lengths are in cells, time in
// seconds, densities relative to the rest density (1 = a rest cell mass per
// cell volume).
struct reint_push {
    uvec4 dims;       // cells along x, y, z (z = 1 in 2D); w: total cells
    vec4 gravity_dt;  // xyz: gravity (cells/s^2); w: dt (s)
    vec4 radii;       // x: diffusion radius r; y: largest step per axis
                      // (R - r, cells); z: kernel radius h; w: wall restitution
    vec4 sph;         // x: stiffness k (cells^2/s^2); y: Tait gamma;
                      // z: artificial viscosity alpha; w: density kernel normalisation
    vec4 scale;       // x: pressure-gradient kernel normalisation; y: cell size (world);
                      // z: speed of sound at rest (cells/s); w: 1 when the cell flags
                      // of a level are bound (advect.comp), 0 otherwise
    ivec4 reach;      // x: search radius R; y: kernel reach ceil(h); z: EOS;
                      // w: 1 keeps negative pressure, 0 clamps it at 0
    vec4 origin;      // xyz: world position of the grid's low corner; w: rest
                      // density (world), for the points view
};

// One stats partial per stats workgroup; the host adds them in order.
struct reint_stats_partial {
    uvec4 counts;     // x, y: total mass units (low, high word); z: non-finite
                      // cells; w: cells holding mass
    uvec4 counts2;    // x: centres of mass outside their cell; yzw: unused
    vec4 values;      // x: max speed of cells above mist (cells/s); y: sum of m |v|^2 / 2
                      // (rest masses * cells^2/s^2); z, w: sum and max of
                      // |m - 1| over cells holding mass (m in rest masses)
};

#ifndef CS_GLSL
typedef struct reint_push reint_push;
typedef struct reint_stats_partial reint_stats_partial;
#endif

#endif
