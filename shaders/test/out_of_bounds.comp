#version 450
// Test shader for checked shaders (tests/test_checked_shaders.c): it indexes
// its buffers out of bounds on purpose, in the way the push constant asks.
#include "index.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(std430, binding = 2) readonly buffer Where { uint where[]; };
layout(push_constant) uniform Push {
    uint count;   // invocations that work
    int shift;    // dst[i] = src[i + shift]
    uint scatter; // 1: dst[where[i]] = i instead
} pc;
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    if (pc.scatter == 1u) {
        dst[where[i]] = i;
        return;
    }
    dst[i] = src[int(i) + pc.shift];
}
