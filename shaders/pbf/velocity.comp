#version 450
// "pbf: velocity": v = (x* - x) / dt; where x* touches a boundary the normal
// velocity into it is reflected with the restitution (WITH_IMPULSES: a
// body's reflection hands it -m dv, pbf_impulse.glsl). In the real-time
// mode the result is clamped (fluid.glsl cs_clamp_speed), so XSPH and
// vorticity next read clamped neighbours; the body already took its dv.
#include "index.glsl"
#ifdef WITH_IMPULSES
void cs_add_impulse(uint b, vec3 x, vec3 dv);
#define CS_BODY_IMPULSE(b, x, dv) cs_add_impulse(b, x, dv)
#endif
#define CS_LEVEL_FIELD // binds the level at CS_LEVEL_FIELD_BINDING
#include "../fluid/fluid.glsl"
#include "pbf_shared.h"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) readonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 3) writeonly buffer Velocities { vec4 velocities[]; };
#ifdef WITH_IMPULSES
#define CS_IMPULSE_BINDING 4
#include "pbf_impulse.glsl"
#endif
layout(push_constant) uniform Push { cs_pbf_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 xs = predicted[i].xyz;
    vec3 v = (xs - positions[i].xyz) / CS_DT;
#ifdef WITH_IMPULSES
    g_particle = i;
    g_mass = predicted[i].w;
#endif
    cs_restitute(xs, v);
    velocities[i] = vec4(cs_clamp_speed(v), 0.0);
}
