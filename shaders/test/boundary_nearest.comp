#version 450
// Test shader (tests/test_boundary.c): out[i] = cs_boundary_nearest(points[i])
// for a boundary set uploaded on its own (the set says its own dim: the
// shader needs no DIM).
#include "index.glsl"
#include "boundary_shared.h"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Set { cs_boundary_set set; };
layout(std430, binding = 1) readonly buffer Points { vec4 points[]; };
layout(std430, binding = 2) writeonly buffer Nearest { vec4 nearest[]; };
layout(push_constant) uniform Push { uint count; } pc;
#define CS_BOUNDARY_SET set
#include "boundary.glsl"
void main()
{
    uint i = cs_linear_index();
    if (i < pc.count)
        nearest[i] = cs_boundary_nearest(points[i].xyz);
}
