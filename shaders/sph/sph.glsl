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

// a^(n-1) for the density kernel (1 - q)^n; the near kernel is one power more.
float sph_pow_nm1(float a)
{
#if SPH_EXPONENT == 2
    return a;
#else
    return a * a;
#endif
}

// Boundary plane w (the domain box faces first, then the scene's walls):
// inward normal and offset, so the fluid side is dot(n, x) >= offset.
uint sph_wall_count() { return uint(2 * DIM) + fp.counts.x; }

vec4 sph_wall_plane(uint w)
{
    if (w < uint(2 * DIM)) {
        uint a = w >> 1u;
        vec3 n = vec3(0.0);
        n[a] = (w & 1u) == 0u ? 1.0 : -1.0;
        return vec4(n, (w & 1u) == 0u ? fp.domain_min[a] : -fp.domain_max[a]);
    }
    return fp.planes[w - uint(2 * DIM)];
}

#endif
