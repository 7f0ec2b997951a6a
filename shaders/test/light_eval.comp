#version 450
// Test shader (tests/test_light.c): out[i] = (irradiance of lights[i] at
// points[i] with normals[i], falloff of lights[i] at distance points[i].w).
#include "index.glsl"
#include "../light/light.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Lights { cs_light lights[]; };
layout(std430, binding = 1) readonly buffer Points { vec4 points[]; };   // xyz point, w a distance d
layout(std430, binding = 2) readonly buffer Normals { vec4 normals[]; };
layout(std430, binding = 3) writeonly buffer Out { vec4 outs[]; };
layout(push_constant) uniform Push { uint count; } pc;
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    cs_light light = lights[i];
    vec3 e = cs_light_irradiance(light, points[i].xyz, normals[i].xyz);
    float f = cs_light_falloff(points[i].w, light.position_radius.w, light.params.y, light.kind.y);
    outs[i] = vec4(e, f);
}
