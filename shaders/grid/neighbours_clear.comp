#version 450
// "grid: neighbours" (1/2): no cell has moved yet (every first-moved slot ~0u).
#include "index.glsl"
#include "grid_shared.h"
layout(local_size_x = CS_GRID_GROUP) in;
layout(std430, binding = 0) writeonly buffer State { uint state[]; };
layout(push_constant) uniform Push { cs_neighbours_push pc; };
void main()
{
    uint c = cs_linear_index();
    if (c < pc.cells.x)
        state[CS_NB_CELLS + c] = 0xffffffffu;
}
