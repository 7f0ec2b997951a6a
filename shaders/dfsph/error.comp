#version 450
// "dfsph: density error" / "dfsph: divergence error" (pc.mode): the
// residual of one pressure solve at the current velocities, and the
// stiffness k_i the next velocity pass applies (Bender & Koschier 2017,
// eq. 12 and 16, Jacobi: every k from the same velocities).
//   div_i = sum_j V_j (v_i - v_j) . grad W_ij + v_i . grad psi_i   (d(rho/rho0)/dt; walls at rest)
//   density:    r_i = max(rho_i/rho0_i + dt div_i - 1, 0),  k_i = r_i alpha_i / dt^2,  error_i = r_i
//   divergence: r_i = max(div_i, 0) (0 with fewer than options.x neighbours),
//               k_i = r_i alpha_i / dt,  error_i = dt r_i
// Only compression is corrected: a free surface is not pulled together.
// The solver stops when the mean of error_i (a deterministic reduction,
// prim.h) is below its target.
//
// Warm start (pc.warm): k_i = half the kappa the last step's solve summed
// (kept per particle in `kappas`: x density, y divergence, reordered with
// the particles) where r_i > 0, else 0, and the sum starts again from 0
// (the velocity pass adds every k it applies).
#include "dfsph.glsl"
layout(std430, binding = 3) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 4) readonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 5) readonly buffer Terms { vec4 terms[]; };
layout(std430, binding = 6) readonly buffer WallGradient { vec4 wall_gradient[]; };
layout(std430, binding = 7) buffer Kappas { vec4 kappas[]; };
layout(std430, binding = 8) writeonly buffer Stiffness { float stiffness[]; };
layout(std430, binding = 9) writeonly buffer Errors { float errors[]; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 own = positions[i];
    vec3 xi = own.xyz;
    vec3 vi = CS_FLUID_XYZ(velocities[i]);
    float inv_h = dp.kernel.y, h2 = CS_H * CS_H;
    DFSPH_LOAD_MATERIALS(mass_of, rest_of)
    float inv_rest = 1.0 / dp.materials[uint(own.w)].y;
    float div = 0.0;
    uvec3 dims = fp.grid_dims.xyz;
    ivec3 cell = CS_FLUID_CELL(xi);
    CS_NB_FOR_NEIGHBOURS(i, cell, dims, j)
    {
        vec4 xj = positions[j];
        vec3 d = CS_FLUID_XYZ(xj) - xi;
        float r2 = dot(d, d);
        if (r2 >= h2 || r2 <= 0.0)
            continue;
        float volume = cs_pick_material(mass_of, uint(xj.w)) * inv_rest;
        div += volume * dot(vi - CS_FLUID_XYZ(velocities[j]), dfsph_grad(d, sqrt(r2)));
    }
    CS_NB_END_NEIGHBOURS
    div += dot(vi, wall_gradient[i].xyz);
    vec4 t = terms[i];
    float dt = pc.dt, r, k, e;
    if (pc.mode == CS_DFSPH_DENSITY) {
        r = max(t.x + dt * div - 1.0, 0.0);
        k = r * t.y / (dt * dt);
        e = r;
    } else {
        r = t.z < float(dp.options.x) ? 0.0 : max(div, 0.0);
        k = r * t.y / dt;
        e = dt * r;
    }
    if (pc.warm != 0u) {
        vec4 kappa = kappas[i];
        float last = pc.mode == CS_DFSPH_DENSITY ? kappa.x : kappa.y;
        k = r > 0.0 ? 0.5 * last : 0.0;
        if (pc.mode == CS_DFSPH_DENSITY)
            kappa.x = 0.0;
        else
            kappa.y = 0.0;
        kappas[i] = kappa;
    }
    stiffness[i] = k;
    errors[i] = e;
}
