// bvh.glsl — the GPU walk of a BVH (shaders/geometry/geometry_shared.h),
// the one copy every shader that casts rays includes (the path tracer,
// radiosity visibility and direct light). It is pipelines/trace/bvh.c's walk in
// float: a conservative slab test, the watertight ray/triangle test on both
// faces, nearest-hit and any-hit with one stack. The includer declares the
// buffers `nodes` (cs_bvh_node) and `tris` (cs_tri, in the BVH's leaf
// order) before including it.
//
// Watertight (Woop, Benthin, Wald 2013, "Watertight Ray/Triangle
// Intersection"): a ray through an edge or a vertex that triangles share
// meets one of them, on every device. Levels and patch lattices put
// vertices, edges and patch centres on a grid, so visibility rays pass
// exactly through shared edges and vertices; Moller-Trumbore decides those
// by its rounding, and where a driver contracts a*b+c into an FMA (NVIDIA)
// such a ray could miss both triangles of a closed quad and light leaked
// through a closed doorway (test_level_light). Here every decision is the
// sign of an edge function computed from the two shared vertices alone, in
// `precise` arithmetic (no contraction, no reassociation: one IEEE rounding
// per operation, which every Vulkan device gives for add, sub and mul), so
// the neighbour across an edge computes exactly its negation. A ray with
// an edge function of exactly 0 passes through that edge (two zeros: a
// vertex); the top-left rule of rasterisers gives it to exactly one of the
// triangles that share it, so a nearest hit there does not depend on the
// order the walk meets them in.
#ifndef CS_BVH_GLSL
#define CS_BVH_GLSL

#include "geometry_shared.h"

// What bvh_cast returns when the ray meets nothing.
#define CS_BVH_NO_HIT 0xffffffffu
// 1 + 2 gamma(3) in float, gamma(n) = n u / (1 - n u), u = 2^-24
// (1 + 3.58e-7), rounded up to a float: 1 + 4 * 2^-23 (pipelines/trace/bvh.c has
// the double one).
#define CS_BVH_FAR_PAD (1.0 + 4.0 / 8388608.0)

// Slab test against a node box, as pipelines/trace/bvh.c's ray_box. The far
// bound is widened by 1 + 2 gamma(3) (Ize 2013, "Robust BVH Ray Traversal";
// PBRT's bound for the rounding of (bound - o) * inv_dir), so a ray through
// a triangle's edge or vertex on its box's face is never culled by the box.
bool bvh_ray_box(uint node, vec3 o, vec3 inv_dir, float t_min, float t_max)
{
    vec3 t0 = (nodes[node].lo.xyz - o) * inv_dir;
    vec3 t1 = (nodes[node].hi.xyz - o) * inv_dir;
    for (int k = 0; k < 3; k++) {
        // Comparisons, not min() and max(), whose result with a NaN GLSL
        // leaves to the device: a NaN (0 * inf: the ray lies in the slab's
        // plane) keeps the bounds, as on the CPU.
        float near_t = t0[k], far_t = t1[k];
        if (near_t > far_t) {
            near_t = t1[k];
            far_t = t0[k];
        }
        far_t *= CS_BVH_FAR_PAD;
        if (near_t > t_min)
            t_min = near_t;
        if (far_t < t_max)
            t_max = far_t;
    }
    return t_min <= t_max;
}

// A ray prepared for the watertight test: the axis of the largest
// direction component becomes z (kz), x and y are the next two (swapped when
// d[kz] < 0, which keeps the winding), and the shear that maps the ray onto
// +z: (d[kx] / d[kz], d[ky] / d[kz], 1 / d[kz]).
struct bvh_ray {
    vec3 o;
    ivec3 k;     // kx, ky, kz
    vec3 shear;  // sx, sy, sz
    bool valid;  // false for a zero direction: meets nothing
};

bvh_ray bvh_prepare_ray(vec3 o, vec3 d)
{
    vec3 a = abs(d);
    int kz = a.x > a.y ? (a.x > a.z ? 0 : 2) : (a.y > a.z ? 1 : 2);
    int kx = kz == 2 ? 0 : kz + 1;
    int ky = kx == 2 ? 0 : kx + 1;
    if (d[kz] < 0.0) {
        int swap = kx;
        kx = ky;
        ky = swap;
    }
    bvh_ray r;
    r.o = o;
    r.k = ivec3(kx, ky, kz);
    r.valid = d[kz] != 0.0;
    float inv_z = 1.0 / d[kz];
    r.shear = r.valid ? vec3(d[kx] * inv_z, d[ky] * inv_z, inv_z) : vec3(0.0);
    return r;
}

// Whether an edge through the ray, going (dx, dy) in the sheared plane with
// the triangle's winding made positive, belongs to the triangle: the
// neighbour across it goes (-dx, -dy), so exactly one of the two takes it.
bool bvh_top_left(float dx, float dy)
{
    return dy > 0.0 || (dy == 0.0 && dx < 0.0);
}

// The watertight test, both faces; writes t, u, v (barycentrics of v1 and
// v2) when the ray meets triangle i at t in (t_min, t_max).
bool bvh_ray_triangle(uint i, bvh_ray r, float t_min, float t_max, out vec3 tuv)
{
    tuv = vec3(0.0);
    if (!r.valid)
        return false;
    // The vertices relative to the origin, permuted to (kx, ky, kz), then
    // sheared: the ray becomes the +z axis through (0, 0).
    precise vec3 a = tris[i].v0.xyz - r.o;
    precise vec3 b = tris[i].v1.xyz - r.o;
    precise vec3 c = tris[i].v2.xyz - r.o;
    precise float az = a[r.k.z], bz = b[r.k.z], cz = c[r.k.z];
    precise float ax = a[r.k.x] - r.shear.x * az, ay = a[r.k.y] - r.shear.y * az;
    precise float bx = b[r.k.x] - r.shear.x * bz, by = b[r.k.y] - r.shear.y * bz;
    precise float cx = c[r.k.x] - r.shear.x * cz, cy = c[r.k.y] - r.shear.y * cz;
    // Edge functions (twice the signed areas seen from the ray): the weights
    // of v0 (edge v1 v2), v1 (edge v2 v0) and v2 (edge v0 v1).
    precise float e0 = cx * by - cy * bx;
    precise float e1 = ax * cy - ay * cx;
    precise float e2 = bx * ay - by * ax;
    if ((e0 < 0.0 || e1 < 0.0 || e2 < 0.0) && (e0 > 0.0 || e1 > 0.0 || e2 > 0.0))
        return false;
    precise float det = e0 + e1 + e2;
    if (det == 0.0)
        return false;
    if (e0 == 0.0 || e1 == 0.0 || e2 == 0.0) {
        float w = det > 0.0 ? 1.0 : -1.0;
        if ((e0 == 0.0 && !bvh_top_left(w * (cx - bx), w * (cy - by))) ||
            (e1 == 0.0 && !bvh_top_left(w * (ax - cx), w * (ay - cy))) ||
            (e2 == 0.0 && !bvh_top_left(w * (bx - ax), w * (by - ay))))
            return false;
    }
    precise float t_det = e0 * (r.shear.z * az) + e1 * (r.shear.z * bz) + e2 * (r.shear.z * cz);
    float inv = 1.0 / det;
    float t = t_det * inv;
    if (!(t > t_min && t < t_max))
        return false;
    tuv = vec3(t, e1 * inv, e2 * inv);
    return true;
}

// Nearest hit for t in (t_min, t_max) (any hit with `any_hit`): the
// triangle index or CS_BVH_NO_HIT, and (t, u, v). The walk of pipelines/trace/bvh.c.
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
    bvh_ray ray = bvh_prepare_ray(o, d);
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
            if (bvh_ray_triangle(i, ray, t_min, best.x, tuv)) {
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
