#version 450
// "pbf: vorticity+xsph" (2/2), then x = x*:
//   vorticity confinement: eta = grad |omega| = sum_j V_j (|omega_j| - |omega_i|) grad W_ij,
//     N = eta / |eta|, v += dt * eps (N x omega_i)
//   XSPH viscosity: v += c sum_j V_j (v_j - v_i) W_ij
// Both read the velocities of the previous pass (Jacobi), write velocities_out.
#include "index.glsl"
#include "../fluid/fluid.glsl"
#include "../grid/grid.glsl"
#include "pbf_shared.h"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 2) readonly buffer Predicted { vec4 predicted[]; };
// With vorticity, curl's record (v, |omega|) so one read per neighbour
// brings both; without, the velocities (w unread).
layout(std430, binding = 3) readonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 4) readonly buffer Curl { vec4 curl[]; };
layout(std430, binding = 5) writeonly buffer VelocitiesOut { vec4 velocities_out[]; };
layout(std430, binding = 6) writeonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 7) readonly buffer NbCounts { uint nb_counts[]; };
layout(std430, binding = 8) readonly buffer NbList { uint nb_list[]; };
layout(std430, binding = 9) readonly buffer NbState { uint nb_state[]; };
layout(std430, binding = 10) readonly buffer Keys { uint keys[]; };
layout(push_constant) uniform Push { cs_pbf_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 xi = predicted[i].xyz;
    vec3 vi = velocities[i].xyz;
    bool vorticity = pc.post.x > 0.0;
    vec4 wi = vorticity ? curl[i] : vec4(0.0);
    vec3 xsph = vec3(0.0);
    vec3 eta = vec3(0.0);
    ivec3 c = CS_FLUID_CELL(xi);
    CS_NB_DECIDE(use_list, nb_state, nb_counts, keys, c, fp.grid_dims, i, pc.slot);
    cs_kernels kern = cs_kernels_load(); // read once, not per neighbour
    CS_GRID_FOR_LISTED_NEIGHBOURS(ranges, c, fp.grid_dims, nb_counts, nb_list, nb_state, use_list, i, j) {
        vec3 r = xi - CS_FLUID_XYZ(predicted[j]);
        float r2 = dot(r, r);
        if (j == i || r2 >= kern.h2)
            continue;
        float vj = pc.post.z; // rest volume m / rho0, the same for every material in PBF
        vec4 vel_j = velocities[j]; // w = |omega_j| when vorticity runs
        xsph += (vj * cs_poly6_k(kern, r2)) * (CS_FLUID_XYZ(vel_j) - vi);
        if (vorticity)
            eta += (vj * (vel_j.w - wi.w)) * cs_spiky_grad_r2_k(kern, r, r2);
    } CS_GRID_END_LISTED_NEIGHBOURS
    vec3 v = vi + pc.post.y * xsph;
    float eta_len = length(eta);
    if (vorticity && eta_len > 0.0)
        v += CS_DT * pc.post.x * cross(eta / eta_len, wi.xyz);
#if DIM == 2
    v.z = 0.0;
#endif
    // The substep's last word on v: the real-time mode's clamp holds after it.
    velocities_out[i] = vec4(cs_clamp_speed(v), 0.0);
    positions[i] = vec4(xi, 0.0);
}
