#version 450
// Test shader (tests/test_bodies.c): for point i against body pc.body,
// out[3 i] = cs_body_contact(body, x, v_rel) (normal, distance),
// out[3 i + 1] = the contact point x - distance * normal, and
// out[3 i + 2] = the particle collisions' contact within pc.reach of the
// surface: cs_body_contact_within, then cs_body_rounded_distance where the
// point is outside and within reach (cs_bodies_collide's rule).
#include "index.glsl"
#include "../bodies/bodies_shared.h"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Set { cs_body_set set; };
layout(std430, binding = 1) readonly buffer Points { vec4 points[]; };
layout(std430, binding = 2) readonly buffer Rel { vec4 rel[]; };
layout(std430, binding = 3) writeonly buffer Out { vec4 outs[]; };
layout(push_constant) uniform Push { uint count; uint body; float dt; float reach; } pc;
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
    outs[3u * i] = c;
    outs[3u * i + 1u] = vec4(x - c.w * c.xyz, 0.0);
    vec4 w = cs_body_contact_within(pc.body, x, rel[i].xyz, pc.reach);
    if (w.w > 0.0 && w.w < pc.reach)
        w = cs_body_rounded_distance(pc.body, x, w);
    outs[3u * i + 2u] = w;
}
