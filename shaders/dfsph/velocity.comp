#version 450
// "dfsph: density velocity" / "dfsph: divergence velocity" (pc.mode): one
// Jacobi step of a pressure solve. The stiffnesses k (error.comp) act as
// pressures, k = p rho0 / rho^2 (Bender & Koschier 2017, eq. 13, the
// symmetric form, so the pair terms conserve momentum across materials):
//   v_i += dt (-sum_j m_j (k_i / rho0_i + k_j / rho0_j) grad W_ij - k_i grad psi_i)
// (the walls push with k_i alone), and kappa_i += k_i, what the next step's
// warm start takes half of. Reads the neighbours' positions and k only, so
// v_i is updated in place.
#include "dfsph.glsl"
layout(std430, binding = 3) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 4) buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 5) readonly buffer WallGradient { vec4 wall_gradient[]; };
layout(std430, binding = 6) readonly buffer Stiffness { float stiffness[]; };
layout(std430, binding = 7) buffer Kappas { vec4 kappas[]; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 own = positions[i];
    vec3 xi = own.xyz;
    float h2 = CS_H * CS_H;
    DFSPH_LOAD_MATERIALS(mass_of, rest_of)
    float ki = stiffness[i];
    float ki_over_rest = ki / dp.materials[uint(own.w)].y;
    vec3 acc = vec3(0.0);
    uvec3 dims = fp.grid_dims.xyz;
    ivec3 cell = CS_FLUID_CELL(xi);
    CS_NB_FOR_NEIGHBOURS(i, cell, dims, j)
    {
        vec4 xj = positions[j];
        vec3 d = CS_FLUID_XYZ(xj) - xi;
        float r2 = dot(d, d);
        if (r2 >= h2 || r2 <= 0.0)
            continue;
        uint mj = uint(xj.w);
        float pair = ki_over_rest + stiffness[j] / cs_pick_material(rest_of, mj);
        acc -= (cs_pick_material(mass_of, mj) * pair) * dfsph_grad(d, sqrt(r2));
    }
    CS_NB_END_NEIGHBOURS
    acc -= ki * wall_gradient[i].xyz;
    vec3 v = velocities[i].xyz + pc.dt * acc;
#if DIM == 2
    v.z = 0.0;
#endif
    velocities[i] = vec4(v, 0.0);
    vec4 kappa = kappas[i];
    if (pc.mode == CS_DFSPH_DENSITY)
        kappa.x += ki;
    else
        kappa.y += ki;
    kappas[i] = kappa;
}
