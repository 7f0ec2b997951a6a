#version 450
// "collide": keep positions inside the domain box and on the fluid side of
// every wall; reflect the normal velocity with the restitution. Without
// WITH_VELOCITY only positions are projected.
#include "index.glsl"
#include "fluid.glsl"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) buffer Positions { vec4 positions[]; };
#ifdef WITH_VELOCITY
layout(std430, binding = 2) buffer Velocities { vec4 velocities[]; };
#endif
layout(push_constant) uniform Push { cs_fluid_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 x = positions[i].xyz;
#ifdef WITH_VELOCITY
    vec3 v = velocities[i].xyz;
#else
    vec3 v = vec3(0.0);
#endif
    cs_collide(x, v);
    positions[i] = vec4(x, 0.0);
#ifdef WITH_VELOCITY
    velocities[i] = vec4(v, 0.0);
#endif
}
