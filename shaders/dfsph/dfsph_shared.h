// dfsph_shared.h — parameters of the divergence-free SPH solver
// (pipelines/fluid/fluid_dfsph.c and shaders/dfsph/*.comp include this same file).
#ifndef CS_DFSPH_SHARED_H
#define CS_DFSPH_SHARED_H

#include "cs_shared.h"

#define CS_DFSPH_GROUP 64
// Wall tables: samples at q = k / CS_DFSPH_WALL_STEPS, k = 0..STEPS (the
// layers of rest fluid behind a wall, as WCSPH's: fluid_wcsph.h).
#define CS_DFSPH_WALL_STEPS 64

// What the pressure passes solve for (push constant `mode`).
#define CS_DFSPH_DENSITY 0u    // the constant-density solve: rho* = rho + dt drho/dt -> rho0
#define CS_DFSPH_DIVERGENCE 1u // the divergence-free solve: drho/dt -> 0

// Read-only storage buffer (binding 1 of every dfsph shader).
struct cs_dfsph_params {
    vec4 kernel;     // x = cubic spline norm (W = x f(r/h)), y = 1/h, z = smoothing length h/2, w = 0
    // x = neighbours (self included) below which a particle takes no part in
    // the divergence solve (a particle at a free surface, too few to measure
    // a divergence); yzw = 0
    uvec4 options;
    vec4 materials[8]; // x = mass, y = rest density rho0, z = viscosity alpha, w = its speed scale c
    // For a particle at distance d = q h from a wall with fluid at rest
    // behind it: x = psi(q), the share of the kernel the wall's layers fill
    // (rho/rho0 += psi); y = push(q) = -dpsi/dq; zw = 0. Both 0 at q >= 1.
    vec4 wall[CS_DFSPH_WALL_STEPS + 1];
};

struct cs_dfsph_push {
    uint count;
    uint mode;       // CS_DFSPH_DENSITY or CS_DFSPH_DIVERGENCE
    uint warm;       // error pass: 1 = the warm start (k = half last step's kappa where compressed)
    float dt;        // this solver step
};

#ifndef CS_GLSL
typedef struct cs_dfsph_params cs_dfsph_params;
typedef struct cs_dfsph_push cs_dfsph_push;
#endif

#endif
