#version 450
// "grid: reorder": dst[i] = src[order[i]]; ELEMENT is uint or vec4.
#include "index.glsl"
#include "grid_shared.h"
#ifndef ELEMENT
#define ELEMENT uint
#endif
layout(local_size_x = CS_GRID_GROUP) in;
layout(std430, binding = 0) readonly buffer Order { uint order[]; };
layout(std430, binding = 1) readonly buffer Src { ELEMENT src[]; };
layout(std430, binding = 2) writeonly buffer Dst { ELEMENT dst[]; };
layout(push_constant) uniform Push { cs_grid_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i < pc.dims.w)
        dst[i] = src[order[i]];
}
