#version 450
// "wcsph: density": rho_i = sum_j m_j W_ij (self included), then the Tait
// equation p = B ((rho/rho0)^gamma - 1), B = rho0 c^2 / gamma (Becker &
// Teschner 2007, eq. 6-7). Negative pressure is clamped to 0 when asked:
// at the free surface the sum is truncated and would pull particles into
// clumps. With wall density on, the walls add their share of fluid at rest
// behind them (see fluid_wcsph.h). With surface_renormalise (options.z) the
// sum is divided by the share of the kernel inside the fluid at the free
// surface (wcsph.glsl wcsph_surface_share), so the top rows read their
// density from their spacing instead of half a kernel.
//
// Buffers: positions (xyz, w = float(material): every writer of WCSPH
// positions keeps it there, fluid.h), so a candidate neighbour is one vec4
// read; out: densities and pressures (stats, bodies, dumps, the renderer
// and the tests read them) and forces' per-neighbour pair (rho, p / rho^2),
// so forces reads one vec2 per neighbour instead of two floats in two
// arrays (docs/benchmarks.md, "Compact neighbour data (WCSPH)").
// With NB_LISTS the loop reads the neighbour list built on these positions
// right before this pass (fluid_wcsph.c; the same bits as the walk).
#include "wcsph.glsl"
layout(std430, binding = 3) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 4) writeonly buffer Densities { float densities[]; };
layout(std430, binding = 5) writeonly buffer Pressures { float pressures[]; };
layout(std430, binding = 6) writeonly buffer NeighbourTerms { vec2 neighbour_terms[]; };
#if NB_LISTS
layout(std430, binding = 7) readonly buffer NbCounts { uint nb_counts[]; }; // cs_neighbours (grid.glsl CS_NB_FOR_NEIGHBOURS)
layout(std430, binding = 8) readonly buffer NbList { uint nb_list[]; };
layout(std430, binding = 9) readonly buffer NbState { uint nb_state[]; };
#endif
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 own = positions[i];
    vec3 xi = own.xyz;
    float inv_h = wp.kernel.y;
    float h2 = CS_H * CS_H;
    float rho = 0.0;
    bool renormalise = wp.options.z != 0u;
    // With the renormalisation: the particles' share of the kernel,
    // sum_j (m_j / rho0_j) W_ij, and its gradient (both without the norm).
    float filled = 0.0;
    vec3 filled_grad = vec3(0.0);
    // The neighbours' masses and rest densities in registers (fluid.glsl,
    // cs_pick_material): no storage-buffer read per neighbour but its
    // position, which carries its material in w.
    float mass_of[CS_FLUID_MAX_MATERIALS], rest_of[CS_FLUID_MAX_MATERIALS];
    for (uint m = 0u; m < CS_FLUID_MAX_MATERIALS; m++) {
        mass_of[m] = m < uint(CS_MATERIAL_COUNT) ? wp.materials[m].eos.w : 0.0;
        rest_of[m] = m < uint(CS_MATERIAL_COUNT) ? wp.materials[m].eos.x : 1.0;
    }
    uvec3 dims = fp.grid_dims.xyz;
    ivec3 cell = CS_FLUID_CELL(xi);
    CS_NB_FOR_NEIGHBOURS(i, cell, dims, j)
    {
        vec4 xj = positions[j];
        vec3 d = CS_FLUID_XYZ(xj) - xi;
        float r2 = dot(d, d);
        if (r2 >= h2)
            continue;
        uint mj = uint(xj.w);
        float massj = cs_pick_material(mass_of, mj);
        rho += massj * wcsph_w(sqrt(r2) * inv_h);
        if (renormalise && r2 > 0.0) {
            float r = sqrt(r2);
            float volume = massj / cs_pick_material(rest_of, mj);
            filled += volume * wcsph_w(r * inv_h);
            filled_grad -= (volume * wcsph_dw(r * inv_h) / r) * d; // grad_i W_ij, d = x_j - x_i
        } else if (renormalise) {
            filled += massj / cs_pick_material(rest_of, mj);
        }
    }
    CS_NB_END_NEIGHBOURS
    rho *= wp.kernel.x;
    vec4 eos = wp.materials[uint(own.w)].eos;
    // The boundary set's half-spaces (box faces, walls) count as fluid at
    // rest behind them, so the layer touching a wall is not under-dense (it
    // would otherwise be squeezed into the wall).
    // Near a corner the regions beyond two walls overlap: combine them as
    // independent fractions, 1 - prod(1 - psi_k), instead of summing.
    if (wp.options.y != 0u) {
        float open = 1.0;
        for (uint w = 0u; w < cs_boundary_count(); w++)
            open *= 1.0 - wcsph_wall(max(cs_boundary_distance(w, xi), 0.0) * inv_h, 0);
        // Rigid bodies the same way: the share of the kernel each body
        // fills (shaders/bodies/body_share.glsl) counts as rest fluid
        // (forces.comp: the pressure that goes with it, handed back to the
        // body).
        // Only the broad phase's candidates (bodies.glsl): the others'
        // share is 0, a factor of exactly 1.
        uvec3 near = cs_body_candidates(xi, CS_H);
        for (uint k = near.x; k < near.y; k++)
            open *= 1.0 - cs_body_share(cs_body_candidate(near, k), xi).w;
        rho += eos.x * (1.0 - open);
    }
    if (renormalise)
        rho /= 1.0 - wcsph_surface_share(xi, filled * wp.kernel.x, filled_grad * (wp.kernel.x * inv_h));
    float p = eos.y * (pow(rho / eos.x, eos.z) - 1.0);
    if (wp.options.x != 0u)
        p = max(p, 0.0);
    densities[i] = rho;
    pressures[i] = p;
    // What forces.comp needs of particle i as a neighbour (and as itself):
    // rho and p / rho^2 by the very float operations forces did with the
    // two stored values, so its sums keep their bits (on lavapipe, shown by
    // the PLY bytes; Vulkan lets a driver round a division within 2.5 ulp,
    // and compile the two shaders' divisions differently).
    neighbour_terms[i] = vec2(rho, p / (rho * rho));
}
