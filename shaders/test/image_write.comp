#version 450
// Test shader: writes a known pattern into a storage image (image bindings
// in cs_dispatch, tests/test_core.c).
layout(local_size_x = 8, local_size_y = 8) in;
layout(rgba32f, binding = 0) uniform writeonly image2D target;
layout(push_constant) uniform Push { uvec2 size; } pc;
void main()
{
    uvec2 p = gl_GlobalInvocationID.xy;
    if (any(greaterThanEqual(p, pc.size)))
        return;
    imageStore(target, ivec2(p), vec4(float(p.x), float(p.y), float(p.x * 1000u + p.y), 1.0));
}
