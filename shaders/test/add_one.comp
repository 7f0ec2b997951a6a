#version 450
// Test shader: dst[i] = src[i] + 1. Used by the harness tests, including the
// planted missing barrier.
#include "index.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint count; } pc;
void main()
{
    uint i = cs_linear_index();
    if (i < pc.count)
        dst[i] = src[i] + 1u;
}
