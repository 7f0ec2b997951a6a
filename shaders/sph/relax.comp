#version 450
// "sph: relax": Clavet's double-density relaxation as a Jacobi step, with
// seed 000's same-material cohesion, evaluated at the predicted positions
// x*, added to the viscosity-corrected position x_visc from "sph: density";
// then the velocity from the motion:
//   dx_i = -(dt^2/m_i) sum_j [ (P_i+P_j)/2 N_n a^(n-1) + (Pn_i+Pn_j)/2 N_n+1 a^n ] r_hat
//          + (kappa_i/m_i) sum_{j same material} m_j N_n a^(n-1) (x_j - x_i)
//   x' = x_visc + dx, v' = (x' - x_start) / dt.
// Clavet visits particles in turn and moves both particles of a pair at once
// (Gauss-Seidel: later particles see earlier displacements). Here every
// particle computes only its own displacement from the previous state, and
// the pressures are averaged over the pair, so the pair terms stay equal and
// opposite (momentum is conserved) and the result does not depend on the
// order of particles.
#include "sph.glsl"
layout(std430, binding = 3) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = 4) readonly buffer Materials { uint materials[]; };
layout(std430, binding = 5) readonly buffer Pressures { SPH_PRESSURE_TYPE pressures[]; }; // sph.glsl
layout(std430, binding = 6) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 7) writeonly buffer PosOut { vec4 pos_out[]; };
layout(std430, binding = 8) writeonly buffer VelOut { vec4 vel_out[]; };
layout(std430, binding = 9) readonly buffer PredVisc { vec4 pred_visc[]; };
#if NB_LISTS
layout(std430, binding = 10) readonly buffer NbCounts { uint nb_counts[]; }; // cs_neighbours (grid.h; the loop: grid.glsl CS_NB_FOR_NEIGHBOURS)
layout(std430, binding = 11) readonly buffer NbList { uint nb_list[]; };
layout(std430, binding = 12) readonly buffer NbState { uint nb_state[]; };
#endif
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 xi = pred[i].xyz;
    uint mi = materials[i];
#if SPH_RELAX_RECORD
    vec2 pi = pressures[i].zw;
#else
    vec2 pi = pressures[i];
#endif
    float massi = sp.materials[mi].pressure.w;
    float kappa = sp.materials[mi].viscosity.z;
    float h2 = CS_H * CS_H;
    float eps2 = sp.kernel.z * sp.kernel.z;
    float inv_h = fp.kernel.w;
    float push_scale = sp.kernel.w / massi; // dt^2 / m_i
    float pull_scale = kappa / massi * sp.kernel.x;
    vec3 dx = vec3(0.0);
    // The loop's parameters in registers: on lavapipe a storage-buffer
    // read per neighbour costs more than the arithmetic (fluid.glsl,
    // cs_pick_material). Cohesion pairs share i's material, so m_j = m_i.
    float norm = sp.kernel.x, norm_near = sp.kernel.y;
    uvec3 dims = fp.grid_dims.xyz;
    ivec3 cell = CS_FLUID_CELL(xi);
    CS_NB_FOR_NEIGHBOURS(i, cell, dims, j)
    {
#if SPH_RELAX_RECORD
        vec4 xj = pressures[j]; // (x*, y*, P, P_near): one read (sph.glsl)
#else
        // x* and the material in one read (predict.comp writes float(material) in w for Clavet).
        vec4 xj = pred[j];
#endif
        vec3 d = CS_FLUID_XYZ(xj) - xi;
        float r2 = dot(d, d);
        if (r2 < h2 && j != i && r2 > eps2) {
            float r = sqrt(r2);
            float a = 1.0 - r * inv_h;
            float anm1 = sph_pow_nm1(a);
#if SPH_RELAX_RECORD
            vec2 pj = xj.zw;
#else
            vec2 pj = pressures[j];
#endif
            float push = push_scale * (0.5 * (pi.x + pj.x) * norm * anm1 +
                                       0.5 * (pi.y + pj.y) * norm_near * anm1 * a);
#if SPH_RELAX_RECORD
            uint mj = 0u; // the one material
#else
            uint mj = uint(xj.w);
#endif
            float pull = mj == mi ? pull_scale * massi * anm1 * r : 0.0;
            dx += (pull - push) / r * d;
        }
    }
    CS_NB_END_NEIGHBOURS
    // Wall mirrors (see density.comp; one per half-space of the boundary
    // set): the virtual neighbour has the
    // particle's own pressures and sits along -n, so the push is along +n.
    // No cohesion with walls.
    if (sp.options.x != 0u) {
        for (uint w = 0u; w < cs_boundary_count(); w++) {
            vec4 plane = cs_boundary_plane(w);
            float r = 2.0 * max(cs_boundary_distance(w, xi), 0.0);
            if (r * r >= h2)
                continue;
            float a = 1.0 - r * inv_h;
            float anm1 = sph_pow_nm1(a);
            dx += (push_scale * (pi.x * sp.kernel.x * anm1 + pi.y * sp.kernel.y * anm1 * a)) * plane.xyz;
        }
    }
#if DIM == 2
    dx.z = 0.0;
#endif
    vec3 x = pred_visc[i].xyz + dx;
    vec3 v = (x - positions[i].xyz) / CS_DT;
    // Seed 000's walls: a particle closer to a plane than its radius (the
    // collision margin) gets the velocity that carries it back to that
    // distance in one step; its position stays, possibly past the plane.
    if (sp.options.y != 0u) {
        float radius = fp.wall.x;
        for (uint w = 0u; w < cs_boundary_count(); w++) {
            float dis = cs_boundary_distance(w, x);
            if (dis < radius)
                v += ((radius - max(dis, 0.0)) / CS_DT) * cs_boundary_plane(w).xyz;
        }
    }
#if DIM == 2
    v.z = 0.0;
#endif
    pos_out[i] = vec4(x, 0.0);
    vel_out[i] = vec4(v, 0.0);
}
