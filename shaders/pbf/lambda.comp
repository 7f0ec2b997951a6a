#version 450
// "pbf: lambda": density at the predicted positions and the constraint
// multiplier of C_i = rho_i / rho0 - 1 (Macklin & Mueller 2013, eq. 11):
//   lambda_i = -C_i / (sum_k |grad_k C_i|^2 + epsilon)
// with grad_i C_i = sum_j (m_j / rho0) grad W_ij and grad_j C_i = -(m_j / rho0) grad W_ij.
#include "index.glsl"
#include "../fluid/fluid.glsl"
#include "../grid/grid.glsl"
#include "pbf_shared.h"
#include "pbf_pack.glsl"
#include "pbf_bodies.glsl"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 2) readonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 3) readonly buffer Materials { uint materials[]; };
layout(std430, binding = 4) writeonly buffer XLambda { vec4 x_lambda[]; }; // pbf_pack.glsl
layout(std430, binding = 5) writeonly buffer Density { float density[]; };
layout(std430, binding = 6) readonly buffer NbCounts { uint nb_counts[]; };
layout(std430, binding = 7) readonly buffer NbList { uint nb_list[]; };
layout(std430, binding = 8) readonly buffer NbState { uint nb_state[]; };
layout(std430, binding = 9) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 10) writeonly buffer NbUse { uint nb_use[]; };
layout(push_constant) uniform Push { cs_pbf_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 pi = predicted[i];
    vec3 xi = pi.xyz;
    float inv_rho0 = 1.0 / CS_REST_DENSITY(materials[i]);
    float rho = 0.0;
    vec3 grad_i = vec3(0.0);
    float sum_sq = 0.0;
    ivec3 c = CS_FLUID_CELL(xi);
    CS_NB_DECIDE(use_list, nb_state, nb_counts, keys, c, fp.grid_dims, i, pc.slot);
    nb_use[i] = use_list ? 1u : 0u; // delta of this iteration reads the same set: it reuses this
    cs_kernels kern = cs_kernels_load(); // read once, not per neighbour
    CS_GRID_FOR_LISTED_NEIGHBOURS(ranges, c, fp.grid_dims, nb_counts, nb_list, nb_state, use_list, i, j) {
        vec4 pj = predicted[j]; // xyz, w = mass (predict.comp)
        vec3 r = xi - CS_FLUID_XYZ(pj);
        float r2 = dot(r, r);
        if (r2 >= kern.h2)
            continue;
        float mj = pj.w;
        rho += mj * cs_poly6_k(kern, r2);
        vec3 g = (mj * inv_rho0) * cs_spiky_grad_r2_k(kern, r, r2);
        grad_i += g;
        sum_sq += dot(g, g);
    } CS_GRID_END_LISTED_NEIGHBOURS
    // Boundaries: rest fluid beyond every face / wall closer than h adds
    // density and a (fixed, so only i's own) gradient term.
    float phi;
    vec3 grad_b;
    cs_boundary(xi, phi, grad_b);
    // Rigid bodies the same way (pbf_bodies.glsl): without them
    // the layer next to a body misses the body's share of its kernel, reads
    // under-dense and is never pushed, so it stands off the body and the
    // body sinks into the gap (a box of 0.3 rho0 floated 25% deep against
    // the visible surface). Only the broad phase's candidates.
    if (cs_body_count() > 0u) {
        uvec3 near = cs_body_candidates(xi, CS_H);
        for (uint k = near.x; k < near.y; k++) {
            vec4 share = pbf_body_boundary(cs_body_candidate(near, k), xi);
            phi += share.w;
            grad_b += share.xyz;
        }
    }
    rho += CS_REST_DENSITY(materials[i]) * phi;
    grad_i += grad_b;
    // Unilateral: a fluid pushes but does not pull. Particles at a free
    // surface or a wall miss part of their neighbourhood; a two-sided
    // constraint would pull their neighbours in until the surface collapses.
    float C = max(rho * inv_rho0 - 1.0, 0.0);
    float lambda = -C / (sum_sq + dot(grad_i, grad_i) + pc.solver.x);
    x_lambda[i] = pbf_pack_x_lambda(pi, lambda); // delta's neighbour record
    density[i] = rho;
}
