// geometry_shared.h — a scene's static geometry as the GPU sees it: one flat
// list of triangles with their diffuse albedo and emission, and a bounding
// volume hierarchy (BVH) over them that a compute shader walks with a
// stack (shaders/geometry/bvh.glsl). Built on the host: the triangles by
// host/scene/geometry.c from the scene's "geometry" key (docs/scenes.md),
// the BVH by pipelines/trace/bvh.c, whose CPU traversal is the reference the GPU
// one is tested against. docs/light.md, "Radiosity", has the rest.
#ifndef GEOMETRY_SHARED_H
#define GEOMETRY_SHARED_H

#include "cs_shared.h"

// One triangle, 96 bytes. The front face is the side the normal
// (v1 - v0) x (v2 - v0) points to (counter-clockwise seen from the front).
struct cs_tri {
    vec4 v0;        // xyz; w 0
    vec4 v1;        // xyz; w 0
    vec4 v2;        // xyz; w 0
    vec4 albedo;    // rgb diffuse reflectance in [0, 1]; w 0
    vec4 emission;  // rgb emitted radiosity (W/m^2 per channel, Lambertian); w 0
    uvec4 info;     // x: index of the scene's geometry element it came from; y: a level face's first vertex + 1 in its level mesh (level_light.h), else 0; z, w 0
};

// One BVH node, 48 bytes. Node 0 is the root. An inner node (link.y == 0,
// link.x != 0: no child is the root) has two adjacent children, link.x and
// link.x + 1. A leaf holds link.y triangles from index link.x of the BVH's
// own (reordered) triangle list. A geometry without triangles is one empty
// leaf, link = (0, 0): a walk tests its box and finds no triangle in it.
struct cs_bvh_node {
    vec4 lo;        // xyz box minimum; w 0
    vec4 hi;        // xyz box maximum; w 0
    uvec4 link;     // x: first child (inner) or first triangle (leaf); y: triangle count, 0 for an inner node; z, w 0
};

// Most triangles one leaf holds; the depth of the tree is then at most
// about log2(count / CS_BVH_LEAF_SIZE) + 1 for a median split, and the
// GLSL stack (CS_BVH_STACK) holds one pending child per level.
#define CS_BVH_LEAF_SIZE 4u
#define CS_BVH_STACK 64u

#ifndef CS_GLSL
typedef struct cs_tri cs_tri;
typedef struct cs_bvh_node cs_bvh_node;
#endif

#endif
