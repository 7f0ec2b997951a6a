#version 450
// "grid: ranges" (1/2): every cell empty, (0, 0).
#include "index.glsl"
#include "grid_shared.h"
layout(local_size_x = CS_GRID_GROUP) in;
layout(std430, binding = 0) writeonly buffer Ranges { uvec2 ranges[]; };
layout(push_constant) uniform Push { cs_grid_push pc; };
void main()
{
    uint c = cs_linear_index();
    if (c < pc.dims.w)
        ranges[c] = uvec2(0u);
}
