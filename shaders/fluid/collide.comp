#version 450
// "collide": push positions out of the rigid bodies, keep them inside the
// domain box and on the fluid side of every wall; reflect the normal
// velocity with the restitution. Without WITH_VELOCITY only positions are
// projected. WITH_IMPULSES (with WITH_VELOCITY, when the scene has moving
// bodies) adds what each particle gives each moving body in this collide,
// -m dv at the contact point, to its per-particle, per-body-slot sums
// (planar: term t of slot s for particle i at (s * 6 + t) * capacity + i):
// linear impulse xyz, then the angular impulse about the body's centre of
// mass. The bodies module clears them every substep and reduces them
// (prim.h, deterministic); no float atomics.
#include "index.glsl"
#ifdef WITH_IMPULSES
void cs_add_impulse(uint b, vec3 x, vec3 dv);
#define CS_BODY_IMPULSE(b, x, dv) cs_add_impulse(b, x, dv)
#endif
#define CS_LEVEL_FIELD // binds the level at CS_LEVEL_FIELD_BINDING
#include "fluid.glsl"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) buffer Positions { vec4 positions[]; };
#ifdef WITH_VELOCITY
layout(std430, binding = 2) buffer Velocities { vec4 velocities[]; };
#endif
#ifdef WITH_IMPULSES
layout(std430, binding = 3) buffer Impulses { float impulses[]; };
#include "../bodies/body_records.glsl"
layout(std430, binding = 4) readonly buffer Materials { uint materials[]; };
uint g_particle;
float g_mass;
void cs_add_impulse(uint b, vec3 x, vec3 dv)
{
    cs_body_gpu body = CS_BODY_SET.bodies[b];
    if ((body.info.z & CS_BODY_DYNAMIC) == 0u)
        return;
    vec3 j = -g_mass * dv;
    vec3 l = cross(x - body.centre.xyz, j);
    cs_body_record_add(g_particle, body.info.w, j, l);
}
#endif
layout(push_constant) uniform Push { cs_fluid_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 position = positions[i];
    vec3 x = position.xyz;
#ifdef WITH_VELOCITY
    vec3 v = velocities[i].xyz;
#else
    vec3 v = vec3(0.0);
#endif
#ifdef WITH_IMPULSES
    g_particle = i;
    g_mass = CS_MASS(materials[i]);
#endif
    cs_collide(x, v);
    // w is the solver's (WCSPH: the material, cs_fluid_desc.
    // positions_w_material; Clavet SPH: 0): kept as it was.
    positions[i] = vec4(x, position.w);
#ifdef WITH_VELOCITY
    velocities[i] = vec4(v, 0.0);
#endif
}
