// fluid.glsl — what every fluid shader shares: the constant parameters
// buffer (cs_fluid_params, fluid_shared.h), the SPH kernels with their 2D
// and 3D normalisations, and collisions with the domain box and the walls.
//
// Before including, a shader may #define CS_FLUID_PARAMS_BINDING (default 0).
// DIM (2 or 3) is defined by cs_fluid_program(). In 2D every z is 0.
#ifndef CS_FLUID_GLSL
#define CS_FLUID_GLSL

#include "fluid_shared.h"

#ifndef DIM
#define DIM 3 // cs_fluid_program always defines it; 3 lets the tree-wide compile test build each shader
#endif
#ifndef CS_FLUID_PARAMS_BINDING
#define CS_FLUID_PARAMS_BINDING 0
#endif

layout(std430, binding = CS_FLUID_PARAMS_BINDING) readonly buffer FluidParams { cs_fluid_params fp; };

#define CS_H (fp.domain_min.w)
#define CS_DT (fp.domain_max.w)
#define CS_RESTITUTION (fp.gravity.w)
#define CS_MASS(m) (fp.materials[m].x)
#define CS_REST_DENSITY(m) (fp.materials[m].y)
#define CS_REST_VOLUME(m) (fp.materials[m].z)

// Cell of a position in the fluid's neighbour grid (grid.glsl).
#define CS_FLUID_CELL(x) cs_grid_cell((x), fp.grid_origin.xyz, fp.grid_origin.w, fp.grid_dims.xyz)

// Poly6 of r^2: K (h^2 - r^2)^3 for r < h. K = 315 / (64 pi h^9) in 3D,
// 4 / (pi h^8) in 2D (both integrate to 1 over the disc / ball).
float cs_poly6(float r2)
{
    float d = fp.kernel.z - r2;
    return d > 0.0 ? fp.kernel.x * d * d * d : 0.0;
}

// Gradient of the spiky kernel K (h - r)^3 with respect to x_i, for
// r = x_i - x_j: -3K (h - |r|)^2 r / |r| (points from i towards j).
// 3K = 45 / (pi h^6) in 3D, 30 / (pi h^5) in 2D. Zero at r = 0 and r >= h.
vec3 cs_spiky_grad(vec3 r, float len)
{
    if (len <= 0.0 || len >= CS_H)
        return vec3(0.0);
    float d = CS_H - len;
    return (-fp.kernel.y * d * d / len) * r;
}

// The same from r^2 (one inverse square root instead of a sqrt and a divide).
vec3 cs_spiky_grad_r2(vec3 r, float r2)
{
    if (r2 <= 0.0 || r2 >= fp.kernel.z)
        return vec3(0.0);
    float inv_len = inversesqrt(r2);
    float d = CS_H - r2 * inv_len;
    return (-fp.kernel.y * d * d * inv_len) * r;
}

// Pushes x back inside: onto every wall it went through, then into the
// domain box (last, so no particle ever ends outside the box). The normal
// velocity into a boundary is reflected, scaled by the restitution.
void cs_collide(inout vec3 x, inout vec3 v)
{
    float e = CS_RESTITUTION;
    for (uint p = 0u; p < fp.counts.x; p++) {
        vec3 n = fp.planes[p].xyz;
        float d = dot(n, x) - fp.planes[p].w;
        if (d < 0.0) {
            x -= d * n;
            float vn = dot(v, n);
            if (vn < 0.0)
                v -= (1.0 + e) * vn * n;
        }
    }
    for (int a = 0; a < DIM; a++) {
        if (x[a] < fp.domain_min[a]) {
            x[a] = fp.domain_min[a];
            if (v[a] < 0.0)
                v[a] = -e * v[a];
        }
        if (x[a] > fp.domain_max[a]) {
            x[a] = fp.domain_max[a];
            if (v[a] > 0.0)
                v[a] = -e * v[a];
        }
    }
#if DIM == 2
    x.z = 0.0;
    v.z = 0.0;
#endif
}

// For position-based solvers: x was already pushed inside (cs_collide on the
// predicted position) and v derived from the motion; where x touches a
// boundary and v still points into it, reflect v with the restitution.
void cs_restitute(vec3 x, inout vec3 v)
{
    float e = CS_RESTITUTION;
    float touch = 1e-5 * CS_H;
    for (uint p = 0u; p < fp.counts.x; p++) {
        vec3 n = fp.planes[p].xyz;
        float vn = dot(v, n);
        if (dot(n, x) - fp.planes[p].w <= touch && vn < 0.0)
            v -= (1.0 + e) * vn * n;
    }
    for (int a = 0; a < DIM; a++) {
        if (x[a] <= fp.domain_min[a] && v[a] < 0.0)
            v[a] = -e * v[a];
        if (x[a] >= fp.domain_max[a] && v[a] > 0.0)
            v[a] = -e * v[a];
    }
}

// Boundary model (fluid_shared.h, boundary tables): every domain face and
// wall closer than h acts like rest fluid filling the half-space beyond it.
// phi: the kernel (poly6) fraction that region covers (a particle on a wall
// gets half its density from it); grad: the integral of the spiky gradient
// over it (units 1/length, pointing into the boundary). The box's faces
// combine as 1 - prod_axes (1 - phi_axis), so the region behind an edge or a
// corner is not counted twice (exact for one face; within ~1% of the lattice
// at edges and corners, where a plain sum gives +3% and +9%). Walls add on.
vec2 cs_boundary_sample(float d)
{
    float t = clamp(d * fp.kernel.w, 0.0, 1.0) * float(CS_FLUID_BOUNDARY_SAMPLES - 1);
    int k = min(int(t), CS_FLUID_BOUNDARY_SAMPLES - 2);
    return mix(fp.boundary[k].xy, fp.boundary[k + 1].xy, t - float(k));
}

void cs_boundary(vec3 x, out float phi, out vec3 grad)
{
    float inv_h = fp.kernel.w;
    vec3 inside = vec3(1.0); // per axis: 1 - the fraction beyond that axis' faces
    vec3 g_axis = vec3(0.0);
    for (int a = 0; a < DIM; a++) {
        vec2 lo = cs_boundary_sample(x[a] - fp.domain_min[a]);
        vec2 hi = cs_boundary_sample(fp.domain_max[a] - x[a]);
        inside[a] = 1.0 - lo.x - hi.x;
        g_axis[a] = (hi.y - lo.y) * inv_h;
    }
    phi = 1.0 - inside.x * inside.y * inside.z;
    grad = g_axis * vec3(inside.y * inside.z, inside.x * inside.z, inside.x * inside.y);
    for (uint p = 0u; p < fp.counts.x; p++) {
        float d = dot(fp.planes[p].xyz, x) - fp.planes[p].w;
        if (d < CS_H) {
            vec2 s = cs_boundary_sample(d);
            phi += s.x;
            grad -= (s.y * inv_h) * fp.planes[p].xyz;
        }
    }
}

bool cs_finite(vec3 x)
{
    return !any(isnan(x)) && !any(isinf(x));
}

#endif
