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

// A body face is a finite part of its plane: the wall layers behind it
// reach only as far as the body does. Each other plane of body b that x is
// behind (inside its half-space, at distance -d) leaves the fraction
// 1 - psi(-d / h) of the kernel on the body's side; their product scales
// the face's density share and push (separable approximation; at the rim
// of a box's bottom face it halves the lift a whole plane would give).
// Spheres: 1 (their tangent plane stands).
float wcsph_body_cover(uint b, vec3 x, vec3 face_normal)
{
    cs_body_gpu body = fp.bodies.bodies[b];
    float cover = 1.0;
    if (body.omega.w > 0.0)
        return cover;
    for (uint k = 0u; k < body.info.y; k++) {
        vec4 p = fp.bodies.planes[body.info.x + k];
        float d = dot(p.xyz, x) - p.w;
        if (d < 0.0 && dot(p.xyz, face_normal) < 0.999)
            cover *= 1.0 - wcsph_wall(-d * wp.kernel.y, 0);
    }
    return cover;
}

#endif
