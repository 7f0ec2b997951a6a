#version 450
// "wcsph: forces": pressure gradient (symmetric form, momentum conserving),
// Monaghan's artificial viscosity for approaching pairs
// (Pi_ij = -nu (v_ij . x_ij) / (|x_ij|^2 + 0.01 h_s^2), nu = 2 alpha h_s c / (rho_i + rho_j),
// Becker & Teschner eq. 11), same-material cohesion (their eq. 14), wall
// pressure, gravity;
// then symplectic Euler: v' = v + dt a, x' = x + dt v'. Jacobi-style: reads
// the previous state of every particle, writes the new state to the
// alternate buffers.
//
// Per candidate neighbour j it reads three arrays: positions[j] (xyz, w =
// float(material), which pos_out keeps), and for pairs within h
// velocities[j] and neighbour_terms[j] = (rho_j, p_j / rho_j^2) that
// density.comp wrote with the same float operations this pass did on the
// densities and pressures (same bits). Before: five (positions, materials,
// densities, pressures, velocities); docs/benchmarks.md, "Compact
// neighbour data (WCSPH)". With NB_LISTS the candidates are the neighbour
// list that density's pass built on these same positions (fluid_wcsph.c).
#include "wcsph.glsl"
layout(std430, binding = 3) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 4) readonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 5) readonly buffer NeighbourTerms { vec2 neighbour_terms[]; };
layout(std430, binding = 6) writeonly buffer PosOut { vec4 pos_out[]; };
layout(std430, binding = 7) writeonly buffer VelOut { vec4 vel_out[]; };
#ifdef WITH_IMPULSES
// With moving bodies: the wall pressure a body's face gives particle i is
// handed back to the body, -m a dt at x_i (about its centre of mass), in
// particle i's contact records (bodies/body_records.glsl; cleared and
// summed per body by the bodies module).
layout(std430, binding = 8) buffer Impulses { float impulses[]; };
#include "../bodies/body_records.glsl"
#endif
#if NB_LISTS
layout(std430, binding = 9) readonly buffer NbCounts { uint nb_counts[]; }; // cs_neighbours (grid.glsl CS_NB_FOR_NEIGHBOURS)
layout(std430, binding = 10) readonly buffer NbList { uint nb_list[]; };
layout(std430, binding = 11) readonly buffer NbState { uint nb_state[]; };
#endif
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 own = positions[i];
    vec3 xi = own.xyz;
    vec3 vi = velocities[i].xyz;
    uint mi = uint(own.w);
    cs_wcsph_material mati = wp.materials[mi];
    vec2 terms_i = neighbour_terms[i];
    float rhoi = terms_i.x;
    float pi_term = terms_i.y; // p_i / rho_i^2
    float h = CS_H;
    float inv_h = wp.kernel.y;
    float hs = wp.kernel.z;
    float grad_scale = wp.kernel.x * inv_h; // dW/dr = norm / h * dW/dq
    float cohesion_scale = mati.viscosity.z / mati.eos.w * wp.kernel.x;
    vec3 acc = vec3(0.0);
    // The loop's per-material values in registers (fluid.glsl,
    // cs_pick_material): on lavapipe a storage-buffer read per neighbour
    // (the whole material, 8 floats) cost more than the arithmetic.
    float mass_of[CS_FLUID_MAX_MATERIALS], alpha_of[CS_FLUID_MAX_MATERIALS], sound_of[CS_FLUID_MAX_MATERIALS];
    for (uint m = 0u; m < CS_FLUID_MAX_MATERIALS; m++) {
        mass_of[m] = alpha_of[m] = sound_of[m] = 0.0;
        if (m < uint(CS_MATERIAL_COUNT)) {
            mass_of[m] = wp.materials[m].eos.w;
            alpha_of[m] = wp.materials[m].viscosity.x;
            sound_of[m] = wp.materials[m].viscosity.y;
        }
    }
    uvec3 dims = fp.grid_dims.xyz;
    ivec3 cell = CS_FLUID_CELL(xi);
    CS_NB_FOR_NEIGHBOURS(i, cell, dims, j)
    {
        if (j == i)
            continue;
        vec4 xj = positions[j];
        vec3 d = CS_FLUID_XYZ(xj) - xi; // x_j - x_i
        float r = length(d);
        if (r >= h || r <= 0.0)
            continue;
        uint mj = uint(xj.w);
        float massj = cs_pick_material(mass_of, mj);
        float q = r * inv_h;
        vec2 terms_j = neighbour_terms[j];
        float rhoj = terms_j.x;
        float coef = -massj * (pi_term + terms_j.y);
        float vx = -dot(vi - CS_FLUID_XYZ(velocities[j]), d); // v_ij . x_ij
        if (vx < 0.0) {
            float nu = (mati.viscosity.x + cs_pick_material(alpha_of, mj)) * 0.5 * hs *
                       (mati.viscosity.y + cs_pick_material(sound_of, mj)) / (rhoi + rhoj);
            coef += massj * nu * vx / (r * r + 0.01 * hs * hs);
        }
        // grad_i W = (x_i - x_j)/r dW/dr
        acc -= (coef * grad_scale * wcsph_dw(q) / r) * d;
        if (mj == mi)
            acc += (cohesion_scale * massj * wcsph_w(q)) * d;
    }
    CS_NB_END_NEIGHBOURS
    // Wall pressure (every half-space of the boundary set): minus the
    // gradient of the walls' share of the density (rho0 (1 - prod_k (1 -
    // psi_k))) times p_i / rho_i^2, as for Akinci et al.'s boundary
    // particles: the force that conserves energy with the density the walls
    // add. Along wall k's normal: rho0 p/rho^2 push_k/h
    // prod_{l != k} (1 - psi_l), push = -dpsi/dq.
    if (wp.options.y != 0u) {
        float open = 1.0;
        for (uint w = 0u; w < cs_boundary_count(); w++)
            open *= 1.0 - wcsph_wall(max(cs_boundary_distance(w, xi), 0.0) * inv_h, 0);
        // Rigid bodies: each one's share of the kernel (cs_body_share,
        // shaders/bodies/body_share.glsl) is one more factor in the product (density.comp
        // counts the same shares); with no bodies nothing here changes.
        // Only the broad phase's candidates (bodies.glsl): the others'
        // share is 0 (a factor of exactly 1, no push).
        uvec3 near = cs_body_candidates(xi, CS_H);
        for (uint k = near.x; k < near.y; k++)
            open *= 1.0 - cs_body_share(cs_body_candidate(near, k), xi).w;
        float scale = mati.eos.x * pi_term * inv_h;
        for (uint w = 0u; w < cs_boundary_count(); w++) {
            float q = max(cs_boundary_distance(w, xi), 0.0) * inv_h;
            if (q < 1.0) // psi <= 1/2, so the division is safe
                acc += (scale * wcsph_wall(q, 1) * open / (1.0 - wcsph_wall(q, 0))) * cs_boundary_plane(w).xyz;
        }
        // The bodies push like walls (minus the gradient of their share),
        // and each body gets the opposite of what it gave the particle:
        // -m a dt at x_i, about its centre of mass.
        for (uint k = near.x; k < near.y; k++) {
            uint b = cs_body_candidate(near, k);
            vec4 share = cs_body_share(b, xi);
            if (!(share.w > 0.0))
                continue;
            vec3 a_b = (scale * open / (1.0 - share.w)) * share.xyz;
            acc += a_b;
#ifdef WITH_IMPULSES
            cs_body_gpu body = CS_BODY_SET.bodies[b];
            if ((body.info.z & CS_BODY_DYNAMIC) != 0u) {
                vec3 j = -(CS_MASS(mi) * wp.kernel.w) * a_b;
                vec3 l = cross(xi - body.centre.xyz, j);
                cs_body_record_add(i, body.info.w, j, l);
            }
#endif
        }
    }
    acc += fp.gravity.xyz;
    float dt = wp.kernel.w;
    vec3 v = cs_pointer_velocity(xi, vi + dt * acc, dt);
#if DIM == 2
    v.z = 0.0;
#endif
    vel_out[i] = vec4(v, 0.0);
    pos_out[i] = vec4(xi + dt * v, own.w); // w: the material, kept
}
