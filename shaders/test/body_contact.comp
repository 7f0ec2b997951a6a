#version 450
// Test shader (tests/test_bodies.c): for point i against body pc.body,
// out[2 i] = cs_body_contact(body, x, v_rel) (normal, distance) and
// out[2 i + 1] = the contact point x - distance * normal.
#include "index.glsl"
#include "../bodies/bodies_shared.h"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Set { cs_body_set set; };
layout(std430, binding = 1) readonly buffer Points { vec4 points[]; };
layout(std430, binding = 2) readonly buffer Rel { vec4 rel[]; };
layout(std430, binding = 3) writeonly buffer Out { vec4 outs[]; };
layout(push_constant) uniform Push { uint count; uint body; float dt; } pc;
#define CS_BODY_SET set
#define CS_BODY_DT pc.dt
#include "../bodies/bodies.glsl"
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 x = points[i].xyz;
    vec4 c = cs_body_contact(pc.body, x, rel[i].xyz);
    outs[2u * i] = c;
    outs[2u * i + 1u] = vec4(x - c.w * c.xyz, 0.0);
}
