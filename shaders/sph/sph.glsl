// sph.glsl — what the Clavet SPH passes share: the solver's parameter buffer
// (binding 1; the fluid base's is binding 0), the grid's cell ranges
// (binding 2) and the kernel powers. SPH_EXPONENT (2: Clavet et al. 2005,
// 3: seed 000's steeper pair) is a compile-time define from fluid_sph.c.
#ifndef CS_SPH_GLSL
#define CS_SPH_GLSL

#include "index.glsl"
#include "../fluid/fluid.glsl"
#include "../grid/grid.glsl"
#include "sph_shared.h"

#ifndef SPH_EXPONENT
#define SPH_EXPONENT 3
#endif

layout(local_size_x = CS_SPH_GROUP) in;
layout(std430, binding = 1) readonly buffer SphParams { cs_sph_params sp; };
layout(std430, binding = 2) readonly buffer Ranges { uvec2 ranges[]; };
layout(push_constant) uniform Push { cs_sph_push pc; };

// Relax's neighbour record (pipelines/fluid/fluid_sph.c, cs_sph_relax_record): in
// 2D with one material, density writes (x*, y*, P, P_near) and relax's loop
// reads only that array per neighbour (x* carries the material in w for the
// cohesion test, which one material does not need; z of x* is 0 in 2D and
// CS_FLUID_XYZ drops it). The values are copies: the same bits.
#if DIM == 2 && CS_MATERIAL_COUNT == 1
#define SPH_RELAX_RECORD 1
#define SPH_PRESSURE_TYPE vec4
#else
#define SPH_RELAX_RECORD 0
#define SPH_PRESSURE_TYPE vec2
#endif

// The neighbour loop of density and relax: CS_NB_FOR_NEIGHBOURS
// (grid.glsl), the list built on x* right after the grid build when
// NB_LISTS (fluid_sph.c). Nothing moves x* between the build and the two
// loops, so no skin is needed.
// a^(n-1) for the density kernel (1 - q)^n; the near kernel is one power more.
float sph_pow_nm1(float a)
{
#if SPH_EXPONENT == 2
    return a;
#else
    return a * a;
#endif
}

#endif
