// wcsph.glsl — what the WCSPH passes share: the solver's parameter buffer
// (binding 1), the grid's cell ranges (binding 2) and the kernel (cubic
// spline or Wendland C2 over support radius h, chosen at compile time with
// WCSPH_KERNEL from fluid_wcsph.c).
#ifndef CS_WCSPH_GLSL
#define CS_WCSPH_GLSL

#include "index.glsl"
#include "../fluid/fluid.glsl"
#include "../grid/grid.glsl"
#include "wcsph_shared.h"

#ifndef WCSPH_KERNEL
#define WCSPH_KERNEL CS_WCSPH_CUBIC
#endif

layout(local_size_x = CS_WCSPH_GROUP) in;
layout(std430, binding = 1) readonly buffer WcsphParams { cs_wcsph_params wp; };
layout(std430, binding = 2) readonly buffer Ranges { uvec2 ranges[]; };
layout(push_constant) uniform Push { cs_wcsph_push pc; };

// W(q) / norm for q = r/h < 1.
float wcsph_w(float q)
{
#if WCSPH_KERNEL == CS_WCSPH_CUBIC
    if (q <= 0.5)
        return 6.0 * q * q * (q - 1.0) + 1.0;
    float a = 1.0 - q;
    return 2.0 * a * a * a;
#else
    float a = 1.0 - q;
    float a2 = a * a;
    return a2 * a2 * (1.0 + 4.0 * q);
#endif
}

// dW/dq / norm for q < 1 (multiply by norm / h for dW/dr).
float wcsph_dw(float q)
{
#if WCSPH_KERNEL == CS_WCSPH_CUBIC
    if (q <= 0.5)
        return 6.0 * q * (3.0 * q - 2.0);
    float a = 1.0 - q;
    return -6.0 * a * a;
#else
    float a = 1.0 - q;
    return -20.0 * q * a * a * a;
#endif
}

// Linear interpolation in the wall tables (component c of wp.wall).
float wcsph_wall(float q, int c)
{
    if (q >= 1.0)
        return 0.0;
    float t = max(q, 0.0) * float(CS_WCSPH_WALL_STEPS);
    int k = min(int(t), CS_WCSPH_WALL_STEPS - 1);
    float f = t - float(k);
    return mix(wp.wall[k][c], wp.wall[k + 1][c], f);
}

// Bodies as rest fluid (shaders/bodies/body_share.glsl): cs_body_share
// returns (minus the gradient of the share times h: the direction and size
// of the push a wall term gives, the share) from the wall tables. Density
// adds rho0 share, like a wall's psi.
vec2 cs_body_share_table(float d)
{
    float q = d * wp.kernel.y;
    return vec2(wcsph_wall(q, 0), wcsph_wall(q, 1));
}
#include "../bodies/body_share.glsl"

// The share of the kernel at x that lies beyond the free surface (air), for
// surface_renormalise (density.comp divides the density sum by 1 - it):
// the semi-analytical renormalisation of Ferrand et al. (2013), rho_i =
// sum_j m_j W_ij / gamma_i with gamma_i the kernel's integral over the
// fluid, with the free surface located from the particles themselves.
// `filled` = sum_j V_j W_ij (V_j = m_j / rho0_j, self included) and `grad`
// its gradient; the walls' and bodies' shares (as in density.comp) are
// added to both, so next to a wall or a body the sum is whole and the
// gradient ~0. Beside a flat surface at q h, over a lattice like the wall
// tables', filled = 1 - psi(q) and |grad| h = push(q), and their ratio
// push / (1 - psi) (wp.wall[].z, falling from q = 0 to 0 at q = 1) does
// not change when the fluid is compressed: it gives q, and psi(q) is the
// missing share. Inside the fluid the gradient is ~0, so q ~1 and the share
// ~0; a lone particle (gradient 0) is left alone.
float wcsph_surface_share(vec3 x, float filled, vec3 grad)
{
    float inv_h = wp.kernel.y;
    if (wp.options.y != 0u) {
        float open = 1.0;
        vec3 open_grad = vec3(0.0); // grad(open) h / open
        for (uint w = 0u; w < cs_boundary_count(); w++) {
            float q = max(cs_boundary_distance(w, x), 0.0) * inv_h;
            float psi = wcsph_wall(q, 0);
            open *= 1.0 - psi;
            open_grad += (wcsph_wall(q, 1) / (1.0 - psi)) * cs_boundary_plane(w).xyz;
        }
        // The bodies' shares, as density.comp counts them (read here again
        // only with surface_renormalise on): only the broad phase's
        // candidates (bodies.glsl), in body order; the others' share is 0
        // and was skipped, so the sums are the all-bodies loop's, bit for
        // bit.
        uvec3 near = cs_body_candidates(x, CS_H);
        for (uint k = near.x; k < near.y; k++) {
            vec4 share = cs_body_share(cs_body_candidate(near, k), x);
            if (!(share.w > 0.0))
                continue;
            open *= 1.0 - share.w;
            open_grad += share.xyz / (1.0 - share.w);
        }
        filled += 1.0 - open;
        grad -= open * inv_h * open_grad;
    }
    if (!(filled > 0.0))
        return 0.0;
    float ratio = length(grad) * CS_H / filled;
    if (!(ratio > 0.0))
        return 0.0;
    float q = 0.0;
    if (ratio < wp.wall[0].z) {
        for (int k = 1; k <= CS_WCSPH_WALL_STEPS; k++) {
            float above = wp.wall[k - 1].z, here = wp.wall[k].z;
            if (here <= ratio) {
                q = (float(k - 1) + (above - ratio) / max(above - here, 1e-30)) / float(CS_WCSPH_WALL_STEPS);
                break;
            }
        }
    }
    return wcsph_wall(q, 0);
}

#endif
