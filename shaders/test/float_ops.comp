#version 450
// Test shader: the float operations the path tracer's arithmetic is made of,
// for test_pathtrace to ask the device whether it computes them as IEEE 754
// single precision does (each correctly rounded, a * b + c not contracted
// into an FMA): dst[i] = (x * y + z, x / y, sqrt(|x|), 0).
#include "index.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(push_constant) uniform Push { uint count; } pc;
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 s = src[i];
    dst[i] = vec4(s.x * s.y + s.z, s.x / s.y, sqrt(abs(s.x)), 0.0);
}
