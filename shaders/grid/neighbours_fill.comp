#version 450
// "grid: neighbours" (2/2): one cell walk per particle: the particles within
// the list radius, in the walk's order (rows by z then y, indices
// ascending), so a loop over the list sums in the same order as a loop over
// the cells. The first `slots` go to the list (entry k of particle i at
// i * stride_i + k * stride_k, grid.h; entry `slots` is scratch, written
// by candidates that do not fit); counts[i] is how many there are, so
// a consumer sees counts[i] > slots and walks the cells for a list that did
// not fit (no neighbour is ever dropped). Also keeps the positions of this
// build (anchor, for the skin check).
#include "index.glsl"
#include "grid_shared.h"
#include "grid.glsl"
layout(local_size_x = CS_GRID_GROUP) in;
layout(std430, binding = 0) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 1) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) writeonly buffer Counts { uint counts[]; };
layout(std430, binding = 3) writeonly buffer List { uint list[]; };
layout(std430, binding = 4) writeonly buffer Anchor { vec4 anchor[]; };
layout(push_constant) uniform Push { cs_neighbours_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.dims.w)
        return;
    vec4 pi = positions[i];
    anchor[i] = pi;
    vec3 xi = pi.xyz;
    ivec3 c = cs_grid_cell(xi, pc.origin.xyz, pc.origin.w, pc.dims.xyz);
    uint slots = pc.cells.y, at = i * pc.cells.z, step = pc.cells.w;
    uint n = 0u;
    CS_GRID_FOR_NEIGHBOURS(ranges, c, pc.dims, j) {
        // The whole vec4, not .xyz: llvmpipe loads a vec3 of a storage
        // buffer lane by lane and component by component, a vec4 in one
        // go (64k particles in 2D: fill 57 -> 27 ms).
        vec4 pj = positions[j];
        vec3 d = xi - pj.xyz;
        // Every candidate is stored, unconditionally, at the next free
        // entry (or the scratch entry `slots` once the list is full); only
        // one within the radius advances n, so the next candidate
        // overwrites one that is not. A store under a per-lane condition
        // costs far more than a plain one on llvmpipe (64k particles in 2D:
        // 69 -> 26-53 ms for the fill, docs/benchmarks.md).
        list[at + min(n, slots) * step] = j;
        n += dot(d, d) < pc.radius.x ? 1u : 0u;
    } CS_GRID_END_NEIGHBOURS
    counts[i] = n;
}
