#version 450
// density.comp — SPH density and pressure of every cell's distribution.
//
// Each cell's distribution is treated as one SPH particle at its centre of
// mass. The grid is the neighbour search: every distribution within the
// kernel radius h lies in the (2 ceil(h) + 1)^d cells around this one.
// Past a wall the neighbours are mirror images (reint_mirror); a level's
// solid cell is the wall image of this cell's own distribution
// (reint_wall_image_offset).
#include "reint_common.glsl"

REINT_LOCAL_SIZE;

layout(std430, binding = 0) readonly buffer Mass { uint mass[]; };
layout(std430, binding = 1) readonly buffer Pos { VSTORE pos[]; };
layout(std430, binding = 2) writeonly buffer Dens { vec2 dens[]; }; // x: density / rest density, y: pressure
layout(std430, binding = 3) readonly buffer CellFlags { uint cell_flags[]; }; // read only with a level

void main()
{
    IVEC c;
    if (!reint_cell(c))
        return;
    uint i = reint_index(c);
    if (mass[i] == 0u) {
        dens[i] = vec2(0.0); // vacuum: never read as a neighbour
        return;
    }
    VEC xi = FROM_STORE(pos[i]);
    float h = pc.radii.z;
    int k = pc.reach.y;
    int kz = DIM == 3 ? k : 0;
    bool interior = reint_interior(c, k);
    bool level = reint_level_bound();
    float mi = float(mass[i]);
    float sum = 0.0;
    for (int oz = -kz; oz <= kz; oz++)
        for (int oy = -k; oy <= k; oy++)
            for (int ox = -k; ox <= k; ox++) {
                IVEC o = TRIM3(ivec3(ox, oy, oz));
                IVEC src, flip;
                reint_neighbour(c, o, interior, src, flip);
                uint j = reint_index(src);
                if (level && (cell_flags[j] & REINT_CELL_SOLID) != 0u) {
                    VEC d = VEC(o) + reint_wall_image_offset(xi, o) - xi;
                    sum += mi * reint_w_density(dot(d, d), h);
                    continue;
                }
                uint mj = mass[j];
                if (mj == 0u)
                    continue;
                VEC xj = FROM_STORE(pos[j]);
                xj = mix(xj, 1.0 - xj, VEC(flip));
                VEC d = VEC(o) + xj - xi;
                sum += float(mj) * reint_w_density(dot(d, d), h);
            }
    float rho = sum * pc.sph.w / float(REINT_MASS_ONE_F);
    dens[i] = vec2(rho, reint_eos(rho));
}
