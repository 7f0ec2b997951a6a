#version 450
// "grid: cell ids": key[i] = cell of particle i, order[i] = i (the sort payload).
#include "index.glsl"
#include "grid_shared.h"
#include "grid.glsl"
layout(local_size_x = CS_GRID_GROUP) in;
layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Order { uint order[]; };
layout(push_constant) uniform Push { cs_grid_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.dims.w)
        return;
    ivec3 c = cs_grid_cell(positions[i].xyz, pc.origin.xyz, pc.origin.w, pc.dims.xyz);
    keys[i] = cs_grid_cell_id(c, pc.dims.xyz);
    order[i] = i;
}
