// bvh.h — a bounding volume hierarchy over a triangle list
// (shaders/geometry/geometry_shared.h: cs_tri, cs_bvh_node), built on the
// CPU once, and walked on the CPU here (double precision: the reference)
// and on the GPU by shaders/geometry/bvh.glsl (lavapipe has no ray tracing
// extension). Layout: node 0 the root; an inner node's children adjacent;
// leaves of at most CS_BVH_LEAF_SIZE triangles, contiguous in `tris`.
//
// Build: top down, median split of the triangles' centroids along the
// longest axis of their centroids' box (a balanced tree, so the depth is
// about log2(n / leaf size) + 1, well inside the GLSL stack).
#pragma once

#include "common.h"

#include "../../shaders/geometry/geometry_shared.h"

typedef struct cs_bvh {
    cs_bvh_node *nodes;
    uint32_t node_count;
    cs_tri *tris;            // the input triangles in leaf order
    uint32_t *tri_source;    // tris[i] is input triangle tri_source[i]
    uint32_t tri_count;
    uint32_t depth;          // levels, the root's included
} cs_bvh;

// Builds over `count` triangles (0 gives one empty leaf). False only when
// memory runs out.
bool cs_bvh_build(const cs_tri *tris, uint32_t count, cs_bvh *bvh, cs_error *err);
void cs_bvh_free(cs_bvh *bvh);

typedef struct cs_ray_hit {
    bool hit;
    double t;                // origin + t dir; t in (t_min, t_max)
    uint32_t tri;            // index in bvh->tris (leaf order)
    double u, v;             // barycentrics of v1 and v2
} cs_ray_hit;

// Nearest hit of origin + t dir for t in (t_min, t_max), both faces of every
// triangle (the watertight test in double, as the GPU's in float:
// shaders/geometry/bvh.glsl). dir need not be unit length.
cs_ray_hit cs_bvh_cast(const cs_bvh *bvh, const double origin[3], const double dir[3], double t_min, double t_max);
// True when nothing lies between t_min and t_max (a shadow ray): stops at
// the first hit.
bool cs_bvh_unoccluded(const cs_bvh *bvh, const double origin[3], const double dir[3], double t_min, double t_max);
