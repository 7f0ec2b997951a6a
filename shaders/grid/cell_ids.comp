#version 450
// "grid: cell ids": key[i] = cell of particle i, order[i] = i (the sort payload).
// A particle with a NaN or Inf coordinate gets the key cell_count, one past
// the last cell: it sorts after every other particle and no cell's range
// covers it, so no neighbour loop visits it. (Clamped into cell 0 instead,
// an exploded fluid would put every particle in one cell and make each
// neighbour pass O(N^2): the frame that reports the explosion would take
// minutes.) The same dispatch clears every cell's range to (0, 0) for
// "grid: ranges" (as clear.comp does; one dispatch and barrier fewer a
// build): invocation c clears cell c, the dispatch covers max(particles, cells).
#include "index.glsl"
#include "grid_shared.h"
#include "grid.glsl"
layout(local_size_x = CS_GRID_GROUP) in;
layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Order { uint order[]; };
layout(std430, binding = 3) writeonly buffer Ranges { uvec2 ranges[]; };
layout(push_constant) uniform Push { cs_grid_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i < pc.dims.x * pc.dims.y * pc.dims.z)
        ranges[i] = uvec2(0u);
    if (i >= pc.dims.w)
        return;
    vec3 x = positions[i].xyz;
    bool finite = !any(isnan(x)) && !any(isinf(x));
    ivec3 c = cs_grid_cell(x, pc.origin.xyz, pc.origin.w, pc.dims.xyz);
    keys[i] = finite ? cs_grid_cell_id(c, pc.dims.xyz) : pc.dims.x * pc.dims.y * pc.dims.z;
    order[i] = i;
}
