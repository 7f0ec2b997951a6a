#version 450
// "pbf: velocity": v = (x* - x) / dt; where x* touches a boundary the normal
// velocity into it is reflected with the restitution.
#include "index.glsl"
#include "../fluid/fluid.glsl"
#include "pbf_shared.h"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) readonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 3) writeonly buffer Velocities { vec4 velocities[]; };
layout(push_constant) uniform Push { cs_pbf_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 xs = predicted[i].xyz;
    vec3 v = (xs - positions[i].xyz) / CS_DT;
    cs_restitute(xs, v);
    velocities[i] = vec4(v, 0.0);
}
