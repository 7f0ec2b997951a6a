// vorton_shared.h — what the vortex-particle solver's host code
// (pipelines/vorton/vorton.c), its shaders (shaders/vorton/) and its CPU reference
// (tests/ref/vorton_ref.h) share. docs/vortons.md has the equations.
//
// A vorton i is stored as two vec4s:
//   pos[i]  = (x, y, z, sigma)      sigma: its radius
//   vort[i] = (omega_x, omega_y, omega_z, T)   vorticity and temperature
// It stands for the volume V = sigma^3 (a lattice of spacing sigma), so its
// strength is alpha = omega V; sigma is also its core: the velocity kernel
// is regularised over sigma (Rosenhead-Moore, below), so cores of
// neighbours on such a lattice overlap, as a regularised sum needs.
#ifndef VORTON_SHARED_H
#define VORTON_SHARED_H

#include "cs_shared.h"

// One invocation per target; the direct sum walks the sources in tiles of
// VORTON_TILE vortons held in shared memory (one load per invocation).
#define VORTON_WG 64
#define VORTON_TILE 64

// How the stretching/tilting term (alpha . grad) u is evaluated.
// Transpose: (grad u)^T alpha, whose pairwise terms are antisymmetric, so
// the total vorticity sum(alpha) is conserved exactly (up to round-off);
// classical: (alpha . grad) u, the textbook form, which is not.
#define VORTON_STRETCH_TRANSPOSE 0u
#define VORTON_STRETCH_CLASSICAL 1u
#define VORTON_STRETCH_NONE 2u

// How the velocity (and the stretching) comes from the vorticity.
#define VORTON_VELOCITY_DIRECT 0u // the O(N^2) regularised Biot-Savart sum (rates.comp)
#define VORTON_VELOCITY_GRID 1u   // vortex-in-cell: multigrid Poisson solve on a grid (vic_*.comp)

// What a rates dispatch computes for its targets.
#define VORTON_TARGET_VORTONS 0u // velocity + d(omega)/dt + dT/dt
#define VORTON_TARGET_POINTS 1u  // velocity only (tracers, probe points)

#define VORTON_PI 3.14159265358979323846

// Push constants of every vorton shader.
struct vorton_push {
    // x: vortons (sources); y: targets of this dispatch; z: stretching
    // scheme (VORTON_STRETCH_*); w: target kind (VORTON_TARGET_*)
    uvec4 counts;
    // x: kinematic viscosity nu (m^2/s); y: thermal diffusivity kappa
    // (m^2/s); z: thermal expansion beta (1/K); w: ambient temperature (K)
    vec4 physics;
    // xyz: gravity (m/s^2); w: the step this dispatch takes (s, integrate)
    vec4 gravity_dt;
    // Bodies (collide.comp): x: capacity (the stride of the per-particle
    // arrays below); y: VORTON_BODIES_* flags; z: the no-slip rule
    // (VORTON_NO_SLIP_*); w: the wall share's bucket count (a power of
    // two; wall_share.comp)
    uvec4 body_slots;
    // x: fluid density rho (kg/m^3); y: 1 / the wall share's cell edge
    // (1/m; wall_share.comp); z, w: 0
    vec4 fluid;
    // rates.comp's share of the sources: x: first, y: one past the last;
    // z: VORTON_CHUNK_* flags; w: 0
    uvec4 chunk;
};

// The direct sum is split across dispatches of at most VORTON_SOURCE_CHUNK
// sources each: lavapipe gives an invocation 65535 loop iterations in all
// (docs/architecture.md), and one source is one iteration (plus one per
// tile). Each dispatch carries its running sums on in the output buffers,
// so the result has the same bits for any split.
#define VORTON_SOURCE_CHUNK 32768u
#define VORTON_CHUNK_RESUME 1u // start from the sums a previous chunk left
#define VORTON_CHUNK_LAST 2u   // write the finished rates (else the running sums)

// collide.comp's flags (vorton_push.body_slots.y).
#define VORTON_BODIES_IMPULSES 1u // write what each vorton gives each moving body (the world's impulse slots)
#define VORTON_BODIES_HEAT 2u     // write the heat each vorton takes from each body (bodies with a heat capacity)

// How collide.comp's no-slip changes a band vorton's tangential vorticity
// (docs/vortons.md "Bodies"; u_t: the slip, the fluid's tangential velocity
// at the vorton less the body's surface velocity; f: the body's friction).
#define VORTON_NO_SLIP_SET 0u  // replace by it, w_t = (1 - f) w_t + f (n x u_t) / sigma, u_t at the vorton
// Flux: the slip u_s at the contact point is the jump across a viscous
// (Rayleigh) layer below the vortons; the impulse that layer's stress hands
// the fluid each step goes to the vortons near the wall as vorticity along
// n x u_s, spread with weights that sum to 1 over the wall (wall_share.comp),
// |omega| capped at one core's layer 2 |u_s| / sigma (collide.comp
// add_wall_flux; docs/vortons.md "The no-slip rule").
#define VORTON_NO_SLIP_FLUX 1u

// The flux rule's spreading: a vorton whose distance d from the surface
// (after the eject, so d >= sigma) is within sigma + 2 L gets the weight
// w = exp(-((d - sigma) / L)^2), L = max(sqrt(4 nu dt), FRACTION sigma):
// the diffusion length of one step, or a fixed fraction of the core where
// that is shorter (the vortons sit at least one core from the wall, so a
// sub-core diffusion length would reach none of them).
#define VORTON_WALL_SPREAD_FRACTION 0.5
#define VORTON_WALL_SPREAD_REACH 2.0 // in units of L, past one core

// "vorton: wall share" bins the contact points in cubes of this many
// sigma_max (the largest vorton radius) and sums over the 27 around a
// vorton's own: a vorton left out is at least 5 sigma_i away, where the
// share's Gaussian exp(-r^2 / sigma_i^2) is below exp(-25) = 1.4e-11
// (wall_share.comp).
#define VORTON_WALL_SHARE_CELLS 5.0

// A body's thermal state, after the cs_body_set in the vortons' bodies
// buffer (one vec4 per body): x: temperature T_b (K; 0: adiabatic, no
// exchange); y: rho c_p / C_b (1/m^3: a fluid volume's heat in body kelvin;
// 0: a fixed reservoir); z: T_b - T0, kept so that a body's heat balance
// does not round at the scale of T (K); w: 0.

#ifndef CS_GLSL
typedef struct vorton_push vorton_push;
#endif

#endif
