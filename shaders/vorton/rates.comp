#version 450
// rates.comp — the direct O(N^2) sum: every target gathers every vorton.
//
// One invocation per target. The sources are walked in tiles of VORTON_TILE
// vortons, each tile loaded into shared memory once per workgroup (one
// vorton per invocation), so a source is read from memory N / VORTON_WG
// times instead of N times. The sum runs in source order for every target:
// the same inputs give the same bits every run (no atomics).
//
// Velocity (regularised Biot-Savart, Rosenhead-Moore kernel, core delta):
//   u(x) = sum_j alpha_j x r / (4 pi (|r|^2 + delta^2)^(3/2)),  r = x - x_j
// Vorton targets (TARGET_POINTS undefined) also get, per source:
//   stretching/tilting  transpose: (grad u)^T omega_i; classical: (omega_i . grad) u
//   viscous diffusion   PSE: nu / eps^2 V_j (omega_j - omega_i) eta_eps(r)
//   heat diffusion      PSE: kappa / eps^2 V_j (T_j - T_i) eta_eps(r)
//   buoyancy            baroclinic: -beta grad(T) x g, grad(T) from a Gaussian
//                       kernel in the antisymmetric form (conserves sum alpha)
// with delta^2 = eps^2 = (sigma_i^2 + sigma_j^2) / 2 between two vortons
// (symmetric, so every pairwise exchange is antisymmetric) and delta =
// sigma_j at a point. docs/vortons.md derives each term.
#include "vorton_shared.h"

layout(local_size_x = VORTON_WG) in;
layout(push_constant) uniform PushBlock { vorton_push pc; };

layout(std430, binding = 0) readonly buffer SrcPos { vec4 src_pos[]; };
layout(std430, binding = 1) readonly buffer SrcVort { vec4 src_vort[]; };
layout(std430, binding = 2) readonly buffer TgtPos { vec4 tgt_pos[]; };
layout(std430, binding = 4) buffer OutVel { vec4 out_vel[]; };
#ifndef TARGET_POINTS
layout(std430, binding = 3) readonly buffer TgtVort { vec4 tgt_vort[]; };
layout(std430, binding = 5) buffer OutRate { vec4 out_rate[]; };
// The running sums between chunks (VORTON_SOURCE_CHUNK): per target
// (stretch, heat), (diffuse, 0), (grad T, 0).
layout(std430, binding = 6) buffer Partial { vec4 partial[]; };
#endif

shared vec4 tile_pos[VORTON_TILE];
shared vec4 tile_vort[VORTON_TILE];

const float INV_4PI = float(1.0 / (4.0 * VORTON_PI));
// PSE's Gaussian: eta(x) = 4 / pi^(3/2) exp(-|x|^2), second moment 2 per axis.
const float PSE_NORM = float(4.0 / (VORTON_PI * 1.7724538509055159));
// The smoothing kernel W(x) = pi^(-3/2) exp(-|x|^2) (unit integral).
const float GAUSS_NORM = float(1.0 / (VORTON_PI * 1.7724538509055159));

void main()
{
    uint i = gl_GlobalInvocationID.x;
    uint lid = gl_LocalInvocationID.x;
    uint sources = pc.counts.x;
    bool live = i < pc.counts.y;
    vec4 p = live ? tgt_pos[i] : vec4(0.0);
    vec3 x = p.xyz;
#ifndef TARGET_POINTS
    vec4 w = live ? tgt_vort[i] : vec4(0.0);
    vec3 omega = w.xyz;
    float excess = w.w - pc.physics.w; // T_i - T_ambient
    vec3 stretch = vec3(0.0);
    vec3 diffuse = vec3(0.0);
    vec3 grad_t = vec3(0.0);
    float heat = 0.0;
#endif
    vec3 u = vec3(0.0);
    bool resume = (pc.chunk.z & VORTON_CHUNK_RESUME) != 0u;
    if (resume && live) {
        u = out_vel[i].xyz;
#ifndef TARGET_POINTS
        vec4 a = partial[3u * i], b = partial[3u * i + 1u], c = partial[3u * i + 2u];
        stretch = a.xyz;
        heat = a.w;
        diffuse = b.xyz;
        grad_t = c.xyz;
#endif
    }
    sources = min(sources, pc.chunk.y);

    for (uint base = pc.chunk.x; base < sources; base += VORTON_TILE) {
        uint j = base + lid;
        tile_pos[lid] = j < sources ? src_pos[j] : vec4(0.0);
        tile_vort[lid] = j < sources ? src_vort[j] : vec4(0.0);
        barrier();
        uint n = min(uint(VORTON_TILE), sources - base);
        for (uint k = 0u; k < n; k++) {
            vec4 sp = tile_pos[k];
            vec4 sw = tile_vort[k];
            float sigma_j = sp.w;
            float volume_j = sigma_j * sigma_j * sigma_j;
            vec3 alpha = sw.xyz * volume_j;
            vec3 r = x - sp.xyz;
            float rho2 = dot(r, r);
#ifdef TARGET_POINTS
            float delta2 = sigma_j * sigma_j;
#else
            float delta2 = 0.5 * (p.w * p.w + sigma_j * sigma_j);
#endif
            float q = rho2 + delta2;
            float f = INV_4PI / (q * sqrt(q));
            u += f * cross(alpha, r);
#ifndef TARGET_POINTS
            if (pc.counts.z == VORTON_STRETCH_TRANSPOSE) {
                vec3 c = cross(omega, alpha);
                stretch += f * c - (3.0 * f / q) * dot(r, c) * r;
            } else if (pc.counts.z == VORTON_STRETCH_CLASSICAL) {
                stretch += f * cross(alpha, omega) - (3.0 * f / q) * dot(omega, r) * cross(alpha, r);
            }
            float eps2 = delta2;
            float gauss = exp(-rho2 / eps2) / (eps2 * sqrt(eps2));
            float eta = PSE_NORM * gauss;
            diffuse += (volume_j * eta / eps2) * (sw.xyz - omega);
            heat += (volume_j * eta / eps2) * (sw.w - w.w);
            // grad W(r) = -2 r / eps^2 W(r); antisymmetric sum form.
            float excess_j = sw.w - pc.physics.w;
            grad_t += volume_j * (excess + excess_j) * (-2.0 * GAUSS_NORM * gauss / eps2) * r;
#endif
        }
        barrier();
    }
    if (!live)
        return;
    out_vel[i] = vec4(u, 0.0);
#ifndef TARGET_POINTS
    if ((pc.chunk.z & VORTON_CHUNK_LAST) == 0u) {
        partial[3u * i] = vec4(stretch, heat);
        partial[3u * i + 1u] = vec4(diffuse, 0.0);
        partial[3u * i + 2u] = vec4(grad_t, 0.0);
        return;
    }
    vec3 buoyancy = -pc.physics.z * cross(grad_t, pc.gravity_dt.xyz);
    vec3 domega = stretch + pc.physics.x * diffuse + buoyancy;
    out_rate[i] = vec4(domega, pc.physics.y * heat);
#endif
}
