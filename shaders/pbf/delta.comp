#version 450
// "pbf: delta": the position correction (eq. 12 with the tensile term s_corr
// of eq. 13), applied Jacobi-style (reads predicted, writes predicted_out),
// then the corrected position is pushed back inside the domain and walls
// (neighbours from the list while it holds, grid.h "neighbour lists"):
//   dx_i = 1/rho0 sum_j m_j (lambda_i + lambda_j + s_corr) grad W_ij,
//   s_corr = -(k / D0) max((W_ij / W(dq))^n - rest, 0)
// rest = 0 is the paper's term; the key scorr_background < 1 makes rest
// part of the term between neighbours at the lattice spacing, so the push
// acts only between pairs closer than that (fluid_pbf.c).
#include "index.glsl"
#ifdef WITH_IMPULSES
void cs_add_impulse(uint b, vec3 x, vec3 dv);
#define CS_BODY_PUSH(b, x, dx) cs_add_impulse(b, x, (dx) / CS_BODY_DT)
#endif
#define CS_LEVEL_FIELD // binds the level at CS_LEVEL_FIELD_BINDING
#include "../fluid/fluid.glsl"
#include "../grid/grid.glsl"
#include "pbf_shared.h"
#include "pbf_pack.glsl"
#include "pbf_bodies.glsl"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 2) readonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 3) readonly buffer Materials { uint materials[]; };
layout(std430, binding = 4) readonly buffer XLambda { vec4 x_lambda[]; }; // pbf_pack.glsl
layout(std430, binding = 5) writeonly buffer PredictedOut { vec4 predicted_out[]; };
layout(std430, binding = 6) readonly buffer NbCounts { uint nb_counts[]; };
layout(std430, binding = 7) readonly buffer NbList { uint nb_list[]; };
layout(std430, binding = 8) buffer NbState { uint nb_state[]; };
layout(std430, binding = 9) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 10) readonly buffer NbAnchor { vec4 nb_anchor[]; };
layout(std430, binding = 11) readonly buffer NbUse { uint nb_use[]; };
#ifdef WITH_IMPULSES
#define CS_IMPULSE_BINDING 12
#include "pbf_impulse.glsl"
#endif
layout(push_constant) uniform Push { cs_pbf_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 pi = predicted[i];
    vec3 xi = pi.xyz;
    float li = x_lambda[i].w;
#if PBF_PACK_HOLDS_MASS && DIM == 3
    float m_fluid = CS_MASS(0u); // the one material's mass, as predict wrote it in x*.w
#endif
    bool scorr_on = pc.solver.y > 0.0;
    uint scorr_n = uint(pc.solver.w); // an integer: t^n by multiplication (pow would be evaluated
                                      // for every candidate once the compiler flattens a branch)
    vec3 dx = vec3(0.0);
    ivec3 c = CS_FLUID_CELL(xi);
    // Decided by this iteration's lambda on the same positions (this pass
    // does not read the moved marks it writes).
    bool use_list = nb_use[i] != 0u;
    cs_kernels kern = cs_kernels_load(); // read once, not per neighbour
    CS_GRID_FOR_LISTED_NEIGHBOURS(ranges, c, fp.grid_dims, nb_counts, nb_list, nb_state, use_list, i, j) {
        if (j == i)
            continue;
        vec4 pj = x_lambda[j]; // x*, lambda in w (pbf_pack.glsl)
        vec3 r = xi - CS_FLUID_XYZ(pj);
        float r2 = dot(r, r);
        if (r2 >= kern.h2)
            continue;
        float scorr = 0.0;
        if (scorr_on) {
            float t = cs_poly6_k(kern, r2) * pc.solver.z, tn = t;
            for (uint k = 1u; k < scorr_n; k++)
                tn *= t;
            scorr = pc.solver.y * max(tn - pc.scorr_rest, 0.0);
        }
#if DIM == 2
        float mj = pj.z;
#elif PBF_PACK_HOLDS_MASS
        float mj = m_fluid;
#else
        float mj = predicted[j].w;
#endif
        dx += (mj * (li + pj.w - scorr)) * cs_spiky_grad_r2_k(kern, r, r2);
    } CS_GRID_END_LISTED_NEIGHBOURS
    // Boundaries push with i's own multiplier along their density gradient.
    float rho0 = CS_REST_DENSITY(materials[i]);
    float phi;
    vec3 grad_b;
    cs_boundary(xi, phi, grad_b);
    vec3 x = xi + dx / rho0 + li * grad_b;
    vec3 v = vec3(0.0);
#ifdef WITH_IMPULSES
    g_particle = i;
    g_mass = pi.w;
#endif
    // And along each body's share (lambda counted it in the density): the
    // push is the body's pressure on the particle, handed back to a moving
    // body as -m dx / dt at the particle (pbf_impulse.glsl), so the body
    // feels the pressure where it acts and turns under it.
    if (cs_body_count() > 0u) {
        uvec3 near = cs_body_candidates(xi, CS_H);
        for (uint k = near.x; k < near.y; k++) {
            uint b = cs_body_candidate(near, k);
            vec4 share = pbf_body_boundary(b, xi);
            if (!(share.w > 0.0))
                continue;
            vec3 push = li * share.xyz;
            x += push;
#ifdef WITH_IMPULSES
            cs_add_impulse(b, xi, push / CS_BODY_DT);
#endif
        }
    }
    cs_collide(x, v);
    predicted_out[i] = vec4(x, pi.w);
    // Skin check for the position set this writes (slot + 1): a particle
    // now more than skin / 2 from where the list was built marks its build
    // cell, and loops near that cell walk the cells from then on. atomicMin
    // of slot + 1 only: readers of this dispatch compare with slot, so what
    // they decide does not depend on timing, and the value is the same bits
    // every run.
    vec3 moved = x - nb_anchor[i].xyz;
    // (A non-finite particle's key is one past the last cell: no mark.)
    if (!(dot(moved, moved) <= pc.post.w) && keys[i] < fp.grid_dims.w)
        atomicMin(nb_state[CS_NB_CELLS + keys[i]], pc.slot + 1u);
}
