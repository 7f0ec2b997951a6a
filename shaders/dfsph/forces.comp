#version 450
// "dfsph: non-pressure forces": gravity, Monaghan's artificial viscosity
// for approaching pairs exactly as WCSPH's forces.comp has it
// (Pi_ij = -nu (v_ij . x_ij) / (|x_ij|^2 + 0.01 h_s^2),
// nu = 2 alpha h_s c / (rho_i + rho_j), alpha and c averaged over the pair;
// c here is only the viscosity's velocity scale, there is no equation of
// state) and the pointer. DFSPH's steps are 10-50x WCSPH's, past the
// explicit viscosity's own bound (dt < ~h_s^2 / nu: a 2D pool at h_s = 1 cm
// and dt = 4 ms blew up at its surface in 3 frames), so the viscous change
// is taken implicitly in the pairs' rates: with d_i = sum_j of the rate
// at which pair ij's term changes with v_i (approaching pairs),
//   v' = v + dt a_visc / (1 + 2 dt d_i) + dt g,
// which is WCSPH's explicit term when dt d_i << 1 and never more than
// stops an approaching pair (the pair's relative speed times
// 1 / (1 + 2 dt d) in (0, 1]). Jacobi: reads the neighbours' velocities,
// writes the alternate buffer.
#include "dfsph.glsl"
layout(std430, binding = 3) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 4) readonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 5) readonly buffer Densities { float densities[]; };
layout(std430, binding = 6) writeonly buffer VelOut { vec4 vel_out[]; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 own = positions[i];
    vec3 xi = own.xyz;
    vec3 vi = CS_FLUID_XYZ(velocities[i]);
    uint mi = uint(own.w);
    vec4 mati = dp.materials[mi];
    float rhoi = densities[i];
    float hs = dp.kernel.z, h2 = CS_H * CS_H;
    float mass_of[CS_FLUID_MAX_MATERIALS], alpha_of[CS_FLUID_MAX_MATERIALS], sound_of[CS_FLUID_MAX_MATERIALS];
    for (uint m = 0u; m < CS_FLUID_MAX_MATERIALS; m++) {
        bool used = m < uint(CS_MATERIAL_COUNT);
        mass_of[m] = used ? dp.materials[m].x : 0.0;
        alpha_of[m] = used ? dp.materials[m].z : 0.0;
        sound_of[m] = used ? dp.materials[m].w : 0.0;
    }
    vec3 acc = vec3(0.0);
    float rate = 0.0;
    uvec3 dims = fp.grid_dims.xyz;
    ivec3 cell = CS_FLUID_CELL(xi);
    CS_NB_FOR_NEIGHBOURS(i, cell, dims, j)
    {
        vec4 xj = positions[j];
        vec3 d = CS_FLUID_XYZ(xj) - xi; // x_j - x_i
        float r2 = dot(d, d);
        if (r2 >= h2 || r2 <= 0.0)
            continue;
        float vx = -dot(vi - CS_FLUID_XYZ(velocities[j]), d); // v_ij . x_ij
        if (!(vx < 0.0))
            continue;
        uint mj = uint(xj.w);
        float nu = (mati.z + cs_pick_material(alpha_of, mj)) * 0.5 * hs * (mati.w + cs_pick_material(sound_of, mj)) /
                   (rhoi + densities[j]);
        float r = sqrt(r2);
        float scaled = cs_pick_material(mass_of, mj) * nu / (r2 + 0.01 * hs * hs);
        acc += (scaled * vx) * dfsph_grad(d, r); // -m_j Pi_ij grad W_ij, Pi_ij = -nu vx / (r^2 + 0.01 h_s^2)
        // |d a / d v_i| along the pair: scaled r |dW/dr|.
        rate += scaled * r * abs(dp.kernel.x * dp.kernel.y * dfsph_dw(r * dp.kernel.y));
    }
    CS_NB_END_NEIGHBOURS
    acc = acc / (1.0 + 2.0 * pc.dt * rate) + fp.gravity.xyz;
    vec3 v = cs_pointer_velocity(xi, vi + pc.dt * acc, pc.dt);
#if DIM == 2
    v.z = 0.0;
#endif
    vel_out[i] = vec4(v, 0.0);
}
