// pbf_impulse.glsl — PBF's share of the two-way body coupling: what a
// particle's collisions give each moving body, -m dv at the contact point,
// added to the particle's own contact records (bodies/body_records.glsl, as
// fluid/collide.comp WITH_IMPULSES). One invocation per particle writes
// only its own records, so no atomics; the bodies module clears them every
// substep and sums them per body deterministically.
//
// PBF moves positions, so "pbf: delta" reports each body push dx as the
// velocity change dx / dt it becomes in "pbf: velocity" (CS_BODY_PUSH), and
// "pbf: velocity" reports the restitution's dv (CS_BODY_IMPULSE).
//
// Define CS_IMPULSE_BINDING, include after fluid.glsl, and set g_particle
// and g_mass in main before colliding.
layout(std430, binding = CS_IMPULSE_BINDING) buffer Impulses { float impulses[]; };
#include "../bodies/body_records.glsl"
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
