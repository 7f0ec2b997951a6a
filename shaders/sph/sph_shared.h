// sph_shared.h — parameters of the Clavet double-density relaxation solver
// (pipelines/fluid/fluid_sph.c and shaders/sph/*.comp include this same file).
#ifndef CS_SPH_SHARED_H
#define CS_SPH_SHARED_H

#include "cs_shared.h"

#define CS_SPH_GROUP 64

// Per material. Masses and rest densities come from the fluid base's
// parameters too; they are repeated here so one vec4 load serves a pair.
struct cs_sph_material {
    vec4 pressure;   // x = stiffness k, y = near stiffness k_near, z = rest density, w = mass
    vec4 viscosity;  // x = sigma (linear), y = beta (quadratic), z = surface tension, w = 0
};
#ifndef CS_GLSL
typedef struct cs_sph_material cs_sph_material;
#endif

// Read-only storage buffer (binding 1 of every sph shader).
struct cs_sph_params {
    vec4 kernel;     // x = N_n (density kernel norm), y = N_n+1 (near), z = epsilon (pair distance
                     // below which a pair has no direction), w = dt^2
    uvec4 options;   // x = wall mirrors (0/1), y = seed 000 compatible viscosity and walls (0/1)
    cs_sph_material materials[8];
};

struct cs_sph_push {
    uint count;      // live particles
    uint pad0, pad1, pad2;
};

#ifndef CS_GLSL
typedef struct cs_sph_params cs_sph_params;
typedef struct cs_sph_push cs_sph_push;
#endif

#endif
