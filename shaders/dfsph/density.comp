#version 450
// "dfsph: density + factor": at the positions the grid was built on,
//   rho_i / rho0_i = sum_j V_j W_ij (self included) + psi_i,
// psi_i = 1 - prod_k (1 - psi(d_k / h)) the walls' share (layers of rest
// fluid behind every half-space of the boundary set, combined as
// independent fractions so corners are not counted twice), and the DFSPH
// factor (Bender & Koschier 2017, eq. 9, with the walls as Akinci et al.'s
// static boundary)
//   alpha_i = 1 / (|sum_j V_j grad W_ij + grad psi_i|^2 + sum_j V_j V_i' |grad W_ij|^2),
// V_i' = m_i / rho0_i; 0 for a particle without neighbours. It also keeps
// grad psi_i (the pressure passes push against the walls along it) and the
// neighbour count (the divergence solve leaves sparse particles out).
//
// Out: densities (kg/m^3: stats, dumps, the renderer), terms (rho/rho0,
// alpha, neighbours incl. self, 0), wall gradient (grad psi, 0).
#include "dfsph.glsl"
layout(std430, binding = 3) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 4) writeonly buffer Densities { float densities[]; };
layout(std430, binding = 5) writeonly buffer Terms { vec4 terms[]; };
layout(std430, binding = 6) writeonly buffer WallGradient { vec4 wall_gradient[]; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 own = positions[i];
    vec3 xi = own.xyz;
    uint mi = uint(own.w);
    float inv_h = dp.kernel.y, h2 = CS_H * CS_H;
    DFSPH_LOAD_MATERIALS(mass_of, rest_of)
    float inv_rest = 1.0 / dp.materials[mi].y;
    float own_volume = dp.materials[mi].x * inv_rest;
    float sum_w = 0.0, squares = 0.0, neighbours = 0.0;
    vec3 grad_sum = vec3(0.0);
    uvec3 dims = fp.grid_dims.xyz;
    ivec3 cell = CS_FLUID_CELL(xi);
    CS_NB_FOR_NEIGHBOURS(i, cell, dims, j)
    {
        vec4 xj = positions[j];
        vec3 d = CS_FLUID_XYZ(xj) - xi;
        float r2 = dot(d, d);
        if (r2 >= h2)
            continue;
        float volume = cs_pick_material(mass_of, uint(xj.w)) * inv_rest;
        float r = sqrt(r2);
        sum_w += volume * dfsph_w(r * inv_h);
        neighbours += 1.0;
        if (r > 0.0) {
            vec3 g = volume * dfsph_grad(d, r);
            grad_sum += g;
            squares += dot(g, g) * (own_volume / volume);
        }
    }
    CS_NB_END_NEIGHBOURS
    float rho_hat = dp.kernel.x * sum_w;
    // The walls: their share and its gradient, grad psi_k = -push_k / h n_k
    // (n_k into the fluid), each times the other walls' open share.
    float open = 1.0;
    for (uint w = 0u; w < cs_boundary_count(); w++)
        open *= 1.0 - dfsph_wall(max(cs_boundary_distance(w, xi), 0.0) * inv_h, 0);
    vec3 wall_grad = vec3(0.0);
    for (uint w = 0u; w < cs_boundary_count(); w++) {
        float q = max(cs_boundary_distance(w, xi), 0.0) * inv_h;
        if (q < 1.0) // psi <= 1/2, so the division is safe
            wall_grad -= (dfsph_wall(q, 1) * inv_h * open / (1.0 - dfsph_wall(q, 0))) * cs_boundary_plane(w).xyz;
    }
    rho_hat += 1.0 - open;
    vec3 total = grad_sum + wall_grad;
    float s = dot(total, total) + squares;
    float alpha = s > 0.0 ? 1.0 / s : 0.0;
    densities[i] = rho_hat * dp.materials[mi].y;
    terms[i] = vec4(rho_hat, alpha, neighbours, 0.0);
    wall_gradient[i] = vec4(wall_grad, 0.0);
}
