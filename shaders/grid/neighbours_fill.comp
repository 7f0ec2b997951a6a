#version 450
// "grid: neighbours" (4/4): after the exclusive scan of the counts, writes
// particle i's neighbours to list[starts[i] ...] in the order of the cell walk
// (rows by z then y, indices ascending), so a loop over the list sums in the
// same order as a loop over the cells. If the scanned total is more than the
// list holds, nothing is written: consumers see total > capacity and walk the
// cells instead (no neighbour is ever dropped). Also keeps the positions of
// this build (anchor, for the skin check).
#include "index.glsl"
#include "grid_shared.h"
#include "grid.glsl"
layout(local_size_x = CS_GRID_GROUP) in;
layout(std430, binding = 0) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 1) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) readonly buffer Starts { uint starts[]; };
layout(std430, binding = 3) writeonly buffer List { uint list[]; };
layout(std430, binding = 4) readonly buffer State { uint state[]; };
layout(std430, binding = 5) writeonly buffer Anchor { vec4 anchor[]; };
layout(push_constant) uniform Push { cs_neighbours_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.dims.w)
        return;
    vec4 pi = positions[i];
    anchor[i] = pi;
    if (state[CS_NB_TOTAL] > state[CS_NB_CAPACITY])
        return;
    vec3 xi = pi.xyz;
    ivec3 c = cs_grid_cell(xi, pc.origin.xyz, pc.origin.w, pc.dims.xyz);
    uint at = starts[i];
    CS_GRID_FOR_NEIGHBOURS(ranges, c, pc.dims, j) {
        vec3 d = xi - positions[j].xyz;
        if (dot(d, d) < pc.radius.x)
            list[at++] = j;
    } CS_GRID_END_NEIGHBOURS
}
