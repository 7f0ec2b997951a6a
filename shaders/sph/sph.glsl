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

// Relax's neighbour record (pipelines/fluid_sph.c, cs_sph_relax_record): in
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

// The neighbour loop of density and relax. SPH_LISTS (a define from
// pipelines/fluid_sph.c): read the neighbour list (cs_neighbours, grid.h),
// built on x* right after the grid build with a radius a hair above h.
// Nothing moves x* between the build and the two loops, so every pair a
// loop accepts (r < h, still tested in the loop) is in the list, in the
// cell walk's order: the same sums, the same bits. A particle whose list
// overflowed (more neighbours than slots) walks the cells. Needs the
// shader's nb_counts, nb_list and nb_state arrays. Without SPH_LISTS: the
// plain cell walk (the listed loop's walk branch is slower on llvmpipe).
#ifndef SPH_LISTS
#define SPH_LISTS 0
#endif
#if SPH_LISTS
#define SPH_FOR_NEIGHBOURS(I, CELL, DIMS, J)                                   \
    bool use_list_ = nb_counts[I] <= nb_state[CS_NB_SLOTS];                   \
    CS_GRID_FOR_LISTED_NEIGHBOURS(ranges, CELL, DIMS, nb_counts, nb_list, nb_state, use_list_, I, J)
#define SPH_END_NEIGHBOURS CS_GRID_END_LISTED_NEIGHBOURS
#else
#define SPH_FOR_NEIGHBOURS(I, CELL, DIMS, J) CS_GRID_FOR_NEIGHBOURS(ranges, CELL, DIMS, J)
#define SPH_END_NEIGHBOURS CS_GRID_END_NEIGHBOURS
#endif

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
