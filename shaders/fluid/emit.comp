#version 450
// "emit": writes the particles an emitter gives birth to this substep at
// [first, first + n). Particle k of the emitter (its sequence number) sits in
// slot k mod (slots across the jet) of the jet's cross-section and was born
// at start + k / rate, so it has already travelled speed * age along the jet.
// Everything derives from k: the same schedule gives the same particles.
#include "index.glsl"
#include "fluid.glsl"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) writeonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) writeonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 3) writeonly buffer Materials { uint materials[]; };
layout(std430, binding = 4) writeonly buffer Ids { uint ids[]; };
layout(push_constant) uniform Push { cs_fluid_push pc; };

// A well-mixed 32-bit hash (lowbias32) for the per-particle speed jitter.
uint cs_hash(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

void main()
{
    uint k = cs_linear_index();
    if (k >= pc.count) // count = particles born in this dispatch
        return;
    uint seq = pc.emitted_before + k;
    uint nu = uint(pc.across_u.w), nv = uint(pc.across_v.w);
    uint slot = seq % (nu * nv);
    float su = float(slot % nu) - 0.5 * float(nu - 1u);
    float sv = float(slot / nu) - 0.5 * float(nv - 1u);
    float age = pc.origin.w - float(k) * pc.timing.x;
    uint h = cs_hash(pc.seed.x ^ cs_hash(seq * 0x9e3779b9u + pc.seed.y));
    float u = float(h >> 8) * (2.0 / 16777216.0) - 1.0;
    float speed = pc.direction.w * (1.0 + pc.timing.y * u);
    vec3 dir = pc.direction.xyz;
    vec3 x = pc.origin.xyz + su * pc.across_u.xyz + sv * pc.across_v.xyz + dir * (speed * max(age, 0.0));
    vec3 v = dir * speed;
#if DIM == 2
    x.z = 0.0;
    v.z = 0.0;
#endif
    uint i = pc.first + k;
#ifdef POSITIONS_W_MATERIAL
    // WCSPH (cs_fluid_desc.positions_w_material): the material travels in
    // w, so its neighbour loops read one array for both.
    positions[i] = vec4(x, float(pc.material));
#else
    positions[i] = vec4(x, 0.0);
#endif
    velocities[i] = vec4(v, 0.0);
    materials[i] = pc.material;
    ids[i] = i;
}
