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

// Body b's share of the kernel around x: the fraction of a particle's
// kernel that the body's volume fills, as rest fluid would (density +=
// rho0 share, like a wall's psi), and minus its gradient times h (the
// direction and size of the push a wall term gives). A convex polytope is
// the intersection of its planes' inner half-spaces; its share is taken as
// the product over planes of each half-space's share (separable, as the
// walls' 1 - prod (1 - psi)): phi_k = psi(d_k / h) for a plane x is in
// front of (d_k > 0), 1 - psi(-d_k / h) for one it is behind. Exact for a
// single face; at an edge both sides of the rim read 1/2 of the face's
// share and what the rim loses inside comes back outside, so over a line
// across the rim the share integrates to the footprint. (The nearest face
// alone gave the whole psi past the edges, 7% of a floating box's lift on
// top of the hydrostatic force: it floated 8% high.) The gradient of a
// product: share * sum_k push(|q_k|) / phi_k n_k (push = -dpsi/dq, the
// same sign on both sides of a plane). The plane x is farthest in front of
// counts as at least 0 (a particle inside a body, before the collision
// moves it out, reads as on the face). A sphere: its tangent plane.
// Returns (minus the gradient times h, the share); 0 beyond h of the body.
vec4 wcsph_body_share(uint b, vec3 x)
{
    cs_body_gpu body = CS_BODY_SET.bodies[b];
    vec3 r = x - body.centre.xyz;
    float reach = body.centre.w + CS_H;
    if (!(dot(r, r) <= reach * reach))
        return vec4(0.0);
    float inv_h = wp.kernel.y;
    if (body.omega.w > 0.0) {
        float len = length(r);
        vec3 n = len > 0.0 ? r / len : vec3(0.0, 1.0, 0.0);
        float q = max(len - body.omega.w, 0.0) * inv_h;
        return vec4(wcsph_wall(q, 1) * n, wcsph_wall(q, 0));
    }
    float front = -3.402823466e38;
    for (uint k = 0u; k < body.info.y; k++) {
        vec4 p = CS_BODY_SET.planes[body.info.x + k];
        front = max(front, dot(p.xyz, x) - p.w);
    }
    if (!(front < CS_H))
        return vec4(0.0);
    float share = 1.0;
    vec3 push = vec3(0.0);
    bool clamped = false;
    for (uint k = 0u; k < body.info.y; k++) {
        vec4 p = CS_BODY_SET.planes[body.info.x + k];
        float d = dot(p.xyz, x) - p.w;
        if (d == front && !clamped) {
            d = max(d, 0.0);
            clamped = true;
        }
        float q = abs(d) * inv_h;
        float psi = wcsph_wall(q, 0);
        float phi = d >= 0.0 ? psi : 1.0 - psi;
        if (!(phi > 0.0))
            return vec4(0.0);
        share *= phi;
        push += (wcsph_wall(q, 1) / phi) * p.xyz;
    }
    return vec4(share * push, share);
}

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
            vec4 share = wcsph_body_share(cs_body_candidate(near, k), x);
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
