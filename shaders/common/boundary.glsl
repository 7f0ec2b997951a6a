// boundary.glsl — the boundary set (boundary_shared.h) as shaders read it:
// the domain box's faces and the scene's walls, one list of half-spaces.
// Every particle solver's wall model walks this list (fluid.glsl's
// cs_collide, cs_restitute, cs_boundary; the SPH and WCSPH wall terms);
// none of them looks at the box or the walls on its own.
//
// Convention: normals point INTO the fluid, distances are signed and
// positive on the fluid side: d_k(x) = dot(n_k, x) - w_k.
//
// Before including, define CS_BOUNDARY_SET as the cs_boundary_set to read
// (fluid.glsl: the fluid's constant buffer, `fp.boundary_set`).
#ifndef CS_BOUNDARY_GLSL
#define CS_BOUNDARY_GLSL

#include "boundary_shared.h"

#ifndef CS_BOUNDARY_SET
#error "define CS_BOUNDARY_SET (the cs_boundary_set to read) before including boundary.glsl"
#endif

// What cs_boundary_nearest returns for an empty set (a fluid always has its
// box, so only a hand-made set can be empty): nothing within FLT_MAX.
#define CS_BOUNDARY_FAR 3.402823466e38

// Half-spaces in the set: box faces, then walls.
uint cs_boundary_count() { return CS_BOUNDARY_SET.counts.x; }

// The first cs_boundary_box_faces() half-spaces are the domain box's faces
// (2 dim of them): face k lies across axis k / 2, low face first.
uint cs_boundary_box_faces() { return CS_BOUNDARY_SET.counts.y; }
bool cs_boundary_is_box_face(uint k) { return k < CS_BOUNDARY_SET.counts.y; }
uint cs_boundary_face_axis(uint k) { return k >> 1u; }

// Half-space k: xyz = unit normal into the fluid, w = offset; the fluid side
// is dot(n, x) >= w.
vec4 cs_boundary_plane(uint k) { return CS_BOUNDARY_SET.planes[k]; }

// Signed distance from x to half-space k's plane, > 0 on the fluid side.
// A box face reads its own axis only: x[a] - min or max - x[a], the same
// bits a clamp against the box compares (and no 0 * x terms, which would
// turn an infinite coordinate on another axis into NaN).
float cs_boundary_distance(uint k, vec3 x)
{
    vec4 p = cs_boundary_plane(k);
    if (cs_boundary_is_box_face(k)) {
        uint a = cs_boundary_face_axis(k);
        return p[a] * x[a] - p.w; // p[a] = +-1: exact
    }
    return dot(p.xyz, x) - p.w;
}

// Visiting order for projections: the i-th half-space with the walls first
// and the box faces last, so a projection onto a wall can never leave a
// particle outside the box (the box's clamps come after and are exact).
uint cs_boundary_box_last(uint i)
{
    uint walls = cs_boundary_count() - cs_boundary_box_faces();
    return i < walls ? cs_boundary_box_faces() + i : i - walls;
}

// THE boundary query: the nearest boundary to x, as
//   xyz = its unit normal, pointing into the fluid,
//   w   = the signed distance, > 0 inside the fluid, < 0 outside.
// The fluid region is the intersection of the half-spaces, so its signed
// distance is min_k d_k(x): inside, the exact distance to the nearest plane;
// outside, the deepest penetration (the plane to push back through; past an
// outside edge or corner the Euclidean distance to the region is larger, up
// to sqrt(dim) times). Ties go to the lowest index (box faces before walls).
// A NaN coordinate gives a NaN distance, never "far from everything".
//
// This is the entry point the parts to come extend: rigid bodies and a
// level's distance field will enter as more candidates of this minimum
// (their own distance and normal), and a wall model written against it
// keeps working unchanged.
vec4 cs_boundary_nearest(vec3 x)
{
    vec4 best = vec4(0.0, 0.0, 0.0, CS_BOUNDARY_FAR);
    for (uint k = 0u; k < cs_boundary_count(); k++) {
        float d = cs_boundary_distance(k, x);
        if (isnan(d))
            return vec4(cs_boundary_plane(k).xyz, d);
        if (d < best.w)
            best = vec4(cs_boundary_plane(k).xyz, d);
    }
    return best;
}

#endif
