#version 450
// Test shader: reads an image through a combined image sampler into a
// buffer (image bindings in cs_dispatch, tests/test_core.c).
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform sampler2D source;
layout(std430, binding = 1) writeonly buffer Out { vec4 texels[]; };
layout(push_constant) uniform Push { uvec2 size; } pc;
void main()
{
    uvec2 p = gl_GlobalInvocationID.xy;
    if (any(greaterThanEqual(p, pc.size)))
        return;
    texels[p.x + pc.size.x * p.y] = texelFetch(source, ivec2(p), 0);
}
