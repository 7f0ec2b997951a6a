#version 450
// forces.comp — SPH pressure, artificial viscosity and gravity on every
// cell's distribution, then the velocity limit that keeps advection local.
//
// Acceleration of the distribution in cell i (unit cell volume, masses m_j in
// rest cell masses, densities relative to rest):
//   a_i = g - sum_j m_j (P_i / rho_i^2 + P_j / rho_j^2 + Pi_ij) grad_i W_spiky(x_i - x_j)
//   v_i' = v_i + dt a_i
// With negative pressure kept (reint.negative_pressure), P / rho^2 of the
// linear EOS is k (1 - 1/rho), which diverges in the thin under-dense edge of
// a free surface and tears it into spray; so the rho in P / rho^2 is floored
// at 1 (rest density). Clamped pressure is 0 below rest density anyway.
// Pi_ij is Monaghan's artificial viscosity: for approaching pairs
// (v_ij . x_ij < 0), Pi_ij = -alpha c0 mu_ij / rho_ij with
// mu_ij = h v_ij . x_ij / (|x_ij|^2 + 0.01 h^2), rho_ij the mean density and
// c0 the speed of sound at rest; 0 otherwise. It damps the acoustic modes an
// explicit weakly compressible fluid otherwise keeps ringing.
// Past a wall the neighbours are mirror images (reint_mirror), including
// this cell's own image: that is the wall's push. A level's solid neighbour
// cell is the wall image of this cell (reint_common.glsl: its mass, mirrored
// centre and velocity, its density and pressure), so a level's floors and
// walls push like the box's.
// Velocity limit: after the update |v_i'| dt is clamped to R - r cells
// (scaling the vector, keeping its direction). A centre of mass inside its
// cell then moves less than R - r cells along every axis, so its box of
// half-size r stays inside the (2R + 1)^d cells the advect pass searches.
#include "reint_common.glsl"

REINT_LOCAL_SIZE;

layout(std430, binding = 0) readonly buffer Mass { uint mass[]; };
layout(std430, binding = 1) readonly buffer Pos { VSTORE pos[]; };
layout(std430, binding = 2) readonly buffer Vel { VSTORE vel[]; };
layout(std430, binding = 3) readonly buffer Dens { vec2 dens[]; };
layout(std430, binding = 4) writeonly buffer VelOut { VSTORE vel_out[]; };
layout(std430, binding = 5) readonly buffer CellFlags { uint cell_flags[]; }; // read only with a level

void main()
{
    IVEC c;
    if (!reint_cell(c))
        return;
    uint i = reint_index(c);
    if (mass[i] == 0u) {
        vel_out[i] = TO_STORE(VEC(0.0));
        return;
    }
    VEC xi = FROM_STORE(pos[i]);
    VEC vi = FROM_STORE(vel[i]);
    vec2 di = dens[i];
    float pi_term = di.y / (max(di.x, 1.0) * max(di.x, 1.0));
    float h = pc.radii.z;
    float alpha_c0 = pc.sph.z * pc.scale.z;
    float dt = pc.gravity_dt.w;
    int k = pc.reach.y;
    int kz = DIM == 3 ? k : 0;
    bool interior = reint_interior(c, k);
    bool level = reint_level_bound();

    VEC acc = VEC(0.0);
    for (int oz = -kz; oz <= kz; oz++)
        for (int oy = -k; oy <= k; oy++)
            for (int ox = -k; ox <= k; ox++) {
                IVEC o = TRIM3(ivec3(ox, oy, oz));
                if (o == IVEC(0))
                    continue;
                IVEC src, flip;
                reint_neighbour(c, o, interior, src, flip);
                uint j = reint_index(src);
                bool wall = level && (cell_flags[j] & REINT_CELL_SOLID) != 0u;
                uint mj_units = wall ? mass[i] : mass[j];
                if (mj_units == 0u)
                    continue;
                VEC xj = wall ? reint_wall_image_offset(xi, o) : mix(FROM_STORE(pos[j]), 1.0 - FROM_STORE(pos[j]), VEC(flip));
                VEC d = xi - (VEC(o) + xj); // x_i - x_j
                float r2 = dot(d, d);
                // Two centres at the same point have no direction between
                // them: no force.
                if (r2 >= h * h || r2 < 1e-12 * h * h)
                    continue;
                float mj = float(mj_units) / float(REINT_MASS_ONE_F);
                vec2 dj = wall ? di : dens[j];
                VEC vj = wall ? vi * (1.0 - 2.0 * reint_wall_axes(o)) : FROM_STORE(vel[j]) * (1.0 - 2.0 * VEC(flip));
                float approach = dot(vi - vj, d);
                float visc = 0.0;
                if (approach < 0.0) {
                    float mu = h * approach / (r2 + 0.01 * h * h);
                    visc = -alpha_c0 * mu / (0.5 * (di.x + dj.x));
                }
                float r = sqrt(r2);
                acc += mj * (pi_term + dj.y / (max(dj.x, 1.0) * max(dj.x, 1.0)) + visc) * reint_grad_spiky(r, h) * (d / r);
            }
    VEC v = vi + dt * (acc + TRIM3(pc.gravity_dt.xyz));

    // The velocity limit (see the header comment).
    float max_step = pc.radii.y;
    float step = length(v) * dt;
    if (step > max_step)
        v *= max_step / step;
    vel_out[i] = TO_STORE(v);
}
