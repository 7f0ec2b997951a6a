// bvh.glsl — the GPU walk of a BVH (shaders/geometry/geometry_shared.h),
// the one copy every shader that casts rays includes (the path tracer,
// radiosity visibility and direct light). It is pipelines/bvh.c's walk in
// float: slab test, Moller-Trumbore on both faces, nearest-hit and any-hit
// with one stack. The includer declares the buffers `nodes` (cs_bvh_node)
// and `tris` (cs_tri, in the BVH's leaf order) before including it.
#ifndef CS_BVH_GLSL
#define CS_BVH_GLSL

#include "geometry_shared.h"

// What bvh_cast returns when the ray meets nothing.
#define CS_BVH_NO_HIT 0xffffffffu

// Slab test against a node box, as pipelines/bvh.c's ray_box.
bool bvh_ray_box(uint node, vec3 o, vec3 inv_dir, float t_min, float t_max)
{
    vec3 t0 = (nodes[node].lo.xyz - o) * inv_dir;
    vec3 t1 = (nodes[node].hi.xyz - o) * inv_dir;
    vec3 near_t = min(t0, t1), far_t = max(t0, t1);
    for (int k = 0; k < 3; k++) {
        // A NaN (0 * inf) keeps the bound, as on the CPU.
        if (near_t[k] > t_min)
            t_min = near_t[k];
        if (far_t[k] < t_max)
            t_max = far_t[k];
    }
    return t_min <= t_max;
}

// Moller-Trumbore, both faces; writes t, u, v when the ray meets triangle i
// at t in (t_min, t_max).
bool bvh_ray_triangle(uint i, vec3 o, vec3 d, float t_min, float t_max, out vec3 tuv)
{
    vec3 p0 = tris[i].v0.xyz;
    vec3 e1 = tris[i].v1.xyz - p0, e2 = tris[i].v2.xyz - p0;
    vec3 p = cross(d, e2);
    float det = dot(e1, p);
    tuv = vec3(0.0);
    if (det == 0.0)
        return false;
    float inv = 1.0 / det;
    vec3 s = o - p0;
    float u = dot(s, p) * inv;
    if (u < 0.0 || u > 1.0)
        return false;
    vec3 q = cross(s, e1);
    float v = dot(d, q) * inv;
    if (v < 0.0 || u + v > 1.0)
        return false;
    float t = dot(e2, q) * inv;
    if (!(t > t_min && t < t_max))
        return false;
    tuv = vec3(t, u, v);
    return true;
}

// Nearest hit for t in (t_min, t_max) (any hit with `any_hit`): the
// triangle index or CS_BVH_NO_HIT, and (t, u, v). The walk of pipelines/bvh.c.
uint bvh_cast(vec3 o, vec3 d, float t_min, float t_max, bool any_hit, out vec3 best)
{
    // Indices are masked (the stack size is a power of two) so that the
    // compiler sees every access in bounds: lavapipe drops the whole walk
    // when it cannot prove that.
    const uint mask = CS_BVH_STACK - 1u;
    uint stack[CS_BVH_STACK];
    uint top = 0u;
    stack[0] = 0u;
    top = 1u;
    vec3 inv_dir = 1.0 / d;
    uint hit = CS_BVH_NO_HIT;
    best = vec3(t_max, 0.0, 0.0);
    while (top > 0u) {
        top--;
        uint node = stack[top & mask];
        if (!bvh_ray_box(node, o, inv_dir, t_min, best.x))
            continue;
        uvec4 link = nodes[node].link;
        if (link.y == 0u && link.x != 0u) {
            if (top + 2u > CS_BVH_STACK)
                break; // cannot happen for the builder's balanced trees
            stack[top & mask] = link.x + 1u;
            stack[(top + 1u) & mask] = link.x;
            top += 2u;
            continue;
        }
        for (uint i = link.x; i < link.x + link.y; i++) {
            vec3 tuv;
            if (bvh_ray_triangle(i, o, d, t_min, best.x, tuv)) {
                hit = i;
                best = tuv;
                if (any_hit)
                    return hit;
            }
        }
    }
    return hit;
}

#endif
