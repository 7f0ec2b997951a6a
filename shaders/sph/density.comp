#version 450
// "sph: density": one neighbour loop over the predicted positions x* that
// gathers what Clavet's relaxation needs from the previous state:
//  - density and near density with the (1 - q)^n and (1 - q)^(n+1) kernels
//    (normalised, mass-weighted, self excluded as in Clavet's neighbour
//    sums), then P = k (rho - rho0) and P_near = k_near rho_near (eq. 2-5);
//  - the viscosity impulses (section 5.3): for every approaching pair
//    (u = (v_i - v_j) . r_hat > 0, r_hat = (x_j - x_i)/r) the impulse
//    I = dt (1 - q)(sigma u + beta u^2) r_hat, shared in inverse proportion
//    to mass (1/2 each for equal masses, so momentum is conserved). Each
//    particle sums its own share dv and writes x_visc = x* + dt dv, what
//    advancing with the corrected velocity gives; "sph: relax" starts from
//    it. Clavet applies the impulses before advancing, so his pressure sees
//    them; here both read x* (one neighbour pass less, Jacobi-style).
#include "sph.glsl"
layout(std430, binding = 3) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = 4) readonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 5) readonly buffer Materials { uint materials[]; };
layout(std430, binding = 6) writeonly buffer Densities { float densities[]; };
layout(std430, binding = 7) writeonly buffer Pressures { SPH_PRESSURE_TYPE pressures[]; }; // (P, P_near); sph.glsl
layout(std430, binding = 8) writeonly buffer PredVisc { vec4 pred_visc[]; };
#if NB_LISTS
layout(std430, binding = 9) readonly buffer NbCounts { uint nb_counts[]; };  // cs_neighbours (grid.h; the loop: grid.glsl CS_NB_FOR_NEIGHBOURS)
layout(std430, binding = 10) readonly buffer NbList { uint nb_list[]; };
layout(std430, binding = 11) readonly buffer NbState { uint nb_state[]; };
#endif
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 xi = pred[i].xyz;
    vec3 vi = velocities[i].xyz;
    uint mi = materials[i];
    vec4 pvi = sp.materials[mi].viscosity;
    float massi = sp.materials[mi].pressure.w;
    float h2 = CS_H * CS_H;
    float inv_h = fp.kernel.w;
    float eps = sp.kernel.z;
    float dt = CS_DT;
    float rho = 0.0, rho_near = 0.0;
    vec3 dv = vec3(0.0);
    // What the loop reads of the parameters, in registers (fluid.glsl,
    // cs_pick_material: a storage-buffer read per neighbour is lavapipe's
    // most expensive operation).
    float mass_of[CS_FLUID_MAX_MATERIALS];
    float sigma_of[CS_FLUID_MAX_MATERIALS];
    float beta_of[CS_FLUID_MAX_MATERIALS];
    for (uint m = 0u; m < CS_FLUID_MAX_MATERIALS; m++) {
        mass_of[m] = sigma_of[m] = beta_of[m] = 0.0;
        if (m < uint(CS_MATERIAL_COUNT)) {
            mass_of[m] = sp.materials[m].pressure.w;
            sigma_of[m] = sp.materials[m].viscosity.x;
            beta_of[m] = sp.materials[m].viscosity.y;
        }
    }
    bool seed_share = sp.options.y != 0u;
    uvec3 dims = fp.grid_dims.xyz;
    ivec3 cell = CS_FLUID_CELL(xi);
    CS_NB_FOR_NEIGHBOURS(i, cell, dims, j)
    {
        // x* and the material in one read (predict.comp writes float(material) in w for Clavet).
        vec4 pj = pred[j];
        vec3 d = CS_FLUID_XYZ(pj) - xi;
        float r2 = dot(d, d);
        if (r2 < h2 && j != i) {
            float r = sqrt(r2);
            float a = 1.0 - r * inv_h;
            float an = sph_pow_nm1(a) * a;
            uint mj = uint(pj.w);
            float massj = cs_pick_material(mass_of, mj);
            rho += massj * an;
            rho_near += massj * an * a;
            vec3 n = d / max(r, eps);
            float u = dot(vi - CS_FLUID_XYZ(velocities[j]), n);
            if (u > 0.0 && r > eps) {
                float sigma = 0.5 * (pvi.x + cs_pick_material(sigma_of, mj));
                float beta = 0.5 * (pvi.y + cs_pick_material(beta_of, mj));
                // Seed 000 moves by I dt (x_j - x_i), not I dt r_hat, and
                // halves I whatever the masses: its viscosity is r/2 of this.
                float share = seed_share ? 0.5 * r : massj / (massi + massj);
                dv -= (dt * a * (sigma * u + beta * u * u) * share) * n;
            }
        }
    }
    CS_NB_END_NEIGHBOURS
    // Wall mirrors: each half-space of the boundary set (box faces, walls)
    // closer than h/2 reflects the particle into a virtual neighbour of its
    // own mass at distance 2d, so a particle driven into a wall meets near
    // pressure (as it would meet a neighbour) instead of piling up on the
    // plane where the collision clamps it.
    if (sp.options.x != 0u) {
        for (uint w = 0u; w < cs_boundary_count(); w++) {
            float r = 2.0 * max(cs_boundary_distance(w, xi), 0.0);
            if (r * r >= h2)
                continue;
            float a = 1.0 - r * inv_h;
            float an = sph_pow_nm1(a) * a;
            rho += massi * an;
            rho_near += massi * an * a;
        }
    }
    rho *= sp.kernel.x;
    rho_near *= sp.kernel.y;
    vec4 m = sp.materials[mi].pressure;
    densities[i] = rho;
    vec2 p = vec2(m.x * (rho - m.z), m.y * rho_near);
#if SPH_RELAX_RECORD
    pressures[i] = vec4(xi.xy, p); // relax's neighbour record
#else
    pressures[i] = p;
#endif
#if DIM == 2
    dv.z = 0.0;
#endif
    pred_visc[i] = vec4(xi + dt * dv, 0.0);
}
