// wcsph_shared.h — parameters of the weakly compressible SPH solver
// (pipelines/fluid/fluid_wcsph.c and shaders/wcsph/*.comp include this same file).
#ifndef CS_WCSPH_SHARED_H
#define CS_WCSPH_SHARED_H

#include "cs_shared.h"

#define CS_WCSPH_GROUP 64
#define CS_WCSPH_CUBIC 0
#define CS_WCSPH_WENDLAND 1
// Wall tables: samples at q = k / CS_WCSPH_WALL_STEPS, k = 0..STEPS.
#define CS_WCSPH_WALL_STEPS 64

struct cs_wcsph_material {
    vec4 eos;        // x = rest density rho0, y = Tait B = rho0 c^2 / gamma, z = gamma, w = mass
    vec4 viscosity;  // x = alpha, y = speed of sound c, z = surface tension kappa, w = 0
};
#ifndef CS_GLSL
typedef struct cs_wcsph_material cs_wcsph_material;
#endif

// Read-only storage buffer (binding 1 of every wcsph shader).
struct cs_wcsph_params {
    vec4 kernel;     // x = kernel norm (W = x * f(q)), y = 1/h, z = smoothing length h/2, w = dt (this substep)
    uvec4 options;   // x = clamp negative pressure (0/1), y = wall density (0/1)
    cs_wcsph_material materials[8];
    // For a particle at distance d = q h from a wall with fluid at rest
    // behind it: x = psi(q), the kernel volume beyond the wall (density
    // += rho0 psi); y = area(q) h, the kernel integrated over the wall plane
    // (pressure acceleration += 2 rho0 p / rho^2 area(q) n). Both 0 at q >= 1.
    vec4 wall[CS_WCSPH_WALL_STEPS + 1];
};

struct cs_wcsph_push {
    uint count;
    uint pad0, pad1, pad2;
};

#ifndef CS_GLSL
typedef struct cs_wcsph_params cs_wcsph_params;
typedef struct cs_wcsph_push cs_wcsph_push;
#endif

#endif
