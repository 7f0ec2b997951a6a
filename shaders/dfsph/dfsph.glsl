// dfsph.glsl — what the DFSPH passes share: the solver's parameter buffer
// (binding 1), the grid's cell ranges (binding 2), the push constants, the
// cubic spline over support radius h (as WCSPH's cubic) and the walls as
// layers of rest fluid behind them (the same tables as WCSPH's).
//
// Notation (pipelines/fluid/fluid_dfsph.h): particle i of material m_i sees
// neighbour j with volume V_j = m_j / rho0_i (its mass over i's rest
// density), so rho_i / rho0_i = sum_j V_j W_ij + psi_i, psi_i the walls'
// share. grad W_ij is the gradient at x_i.
#ifndef CS_DFSPH_GLSL
#define CS_DFSPH_GLSL

#include "index.glsl"
#include "../fluid/fluid.glsl"
#include "../grid/grid.glsl"
#include "dfsph_shared.h"

layout(local_size_x = CS_DFSPH_GROUP) in;
layout(std430, binding = 1) readonly buffer DfsphParams { cs_dfsph_params dp; };
layout(std430, binding = 2) readonly buffer Ranges { uvec2 ranges[]; };
layout(push_constant) uniform Push { cs_dfsph_push pc; };

// W(q) / norm for q = r/h < 1 (Monaghan's cubic spline over its support).
float dfsph_w(float q)
{
    if (q <= 0.5)
        return 6.0 * q * q * (q - 1.0) + 1.0;
    float a = 1.0 - q;
    return 2.0 * a * a * a;
}

// dW/dq / norm for q < 1.
float dfsph_dw(float q)
{
    if (q <= 0.5)
        return 6.0 * q * (3.0 * q - 2.0);
    float a = 1.0 - q;
    return -6.0 * a * a;
}

// grad_i W_ij for d = x_j - x_i at distance r (0 < r < h).
vec3 dfsph_grad(vec3 d, float r)
{
    return (-dp.kernel.x * dp.kernel.y * dfsph_dw(r * dp.kernel.y) / r) * d;
}

// Linear interpolation in the wall tables (component c of dp.wall).
float dfsph_wall(float q, int c)
{
    if (q >= 1.0)
        return 0.0;
    float t = max(q, 0.0) * float(CS_DFSPH_WALL_STEPS);
    int k = min(int(t), CS_DFSPH_WALL_STEPS - 1);
    float f = t - float(k);
    return mix(dp.wall[k][c], dp.wall[k + 1][c], f);
}

// The per-material values a neighbour loop picks from registers
// (fluid.glsl cs_pick_material): masses and rest densities.
#define DFSPH_LOAD_MATERIALS(MASS_OF, REST_OF)                                         \
    float MASS_OF[CS_FLUID_MAX_MATERIALS], REST_OF[CS_FLUID_MAX_MATERIALS];             \
    for (uint m_ = 0u; m_ < CS_FLUID_MAX_MATERIALS; m_++) {                             \
        MASS_OF[m_] = m_ < uint(CS_MATERIAL_COUNT) ? dp.materials[m_].x : 0.0;          \
        REST_OF[m_] = m_ < uint(CS_MATERIAL_COUNT) ? dp.materials[m_].y : 1.0;          \
    }

#endif
