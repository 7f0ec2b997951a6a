#version 450
// vic_interp.comp — the grid velocity back at the targets (vortons, or
// points with POINTS: tracers, probes), trilinear in the node velocities.
// A target outside the grid gets u = 0 (the grid holds all the vorticity
// the solve knows about; docs/vortons.md says when that matters).
// At vortons, also the stretching from the same interpolated field by
// central differences one node spacing h apart:
//   transpose  (grad u)^T omega: d(u . omega)/dx_a = [u(x + h e_a) - u(x - h e_a)] . omega / 2h
//   classical  (omega . grad) u = |omega| [u(x + h n) - u(x - h n)] / 2h,  n = omega / |omega|
// written to rate.xyz, added to what rates.comp left there when mode.y = 1
// (the local terms: diffusion, heat, buoyancy), else with rate.w = 0.
#include "vorton_shared.h"
#include "vic_shared.h"
#include "vic_common.glsl"

layout(local_size_x = VIC_WG) in;
layout(push_constant) uniform PushBlock { vic_push pc; };

layout(std430, binding = 0) readonly buffer NodeVel { vec4 node_vel[]; };
layout(std430, binding = 1) readonly buffer TgtPos { vec4 tgt_pos[]; };
layout(std430, binding = 3) writeonly buffer OutVel { vec4 out_vel[]; };
#ifndef POINTS
layout(std430, binding = 2) readonly buffer TgtVort { vec4 tgt_vort[]; };
layout(std430, binding = 4) buffer Rate { vec4 rate[]; };
#endif

// Trilinear velocity at x; 0 outside the grid.
vec3 sample_velocity(vec3 x)
{
    uint nodes = pc.size.x;
    float cells = float(nodes - 1u);
    vec3 g = (x - box.grid.xyz) / box.grid.w;
    if (!all(greaterThanEqual(g, vec3(0.0))) || !all(lessThanEqual(g, vec3(cells))))
        return vec3(0.0); // outside, or NaN
    ivec3 base = min(ivec3(floor(g)), ivec3(nodes - 2u));
    vec3 frac = g - vec3(base);
    vec3 sum = vec3(0.0);
    for (int z = 0; z <= 1; z++)
        for (int y = 0; y <= 1; y++)
            for (int x = 0; x <= 1; x++) {
                ivec3 d = ivec3(x, y, z);
                vec3 w3 = mix(1.0 - frac, frac, equal(d, ivec3(1)));
                sum += (w3.x * w3.y * w3.z) * node_vel[vic_node(base + d, nodes)].xyz;
            }
    return sum;
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.size.w)
        return;
    vec3 x = tgt_pos[i].xyz;
    out_vel[i] = vec4(sample_velocity(x), 0.0);
#ifndef POINTS
    float h = box.grid.w;
    vec3 omega = tgt_vort[i].xyz;
    vec3 stretch = vec3(0.0);
    if (pc.mode.x == VORTON_STRETCH_TRANSPOSE) {
        for (int a = 0; a < 3; a++) {
            vec3 e = vec3(0.0);
            e[a] = h;
            stretch[a] = dot(sample_velocity(x + e) - sample_velocity(x - e), omega) / (2.0 * h);
        }
    } else if (pc.mode.x == VORTON_STRETCH_CLASSICAL) {
        float len = length(omega);
        if (len > 0.0) {
            vec3 e = (h / len) * omega;
            stretch = len * (sample_velocity(x + e) - sample_velocity(x - e)) / (2.0 * h);
        }
    }
    vec4 before = pc.mode.y == 1u ? rate[i] : vec4(0.0);
    rate[i] = vec4(before.xyz + stretch, before.w);
#endif
}
