// boundary_shared.h — the boundary set: everything a fluid must stay out of,
// as one list of oriented half-spaces that C (pipelines/core/boundary.c builds
// it) and GLSL (shaders/common/boundary.glsl reads it) share.
//
// Half-space k is planes[k] = (n, w): n a unit normal pointing INTO the
// fluid, w an offset; the fluid side is dot(n, x) >= w, and
// d_k(x) = dot(n, x) - w is the signed distance to the plane (> 0 inside).
//
// Order (what the GLSL relies on):
//   [0, box_faces)      the domain box's faces, two per axis used (2D: x, y;
//                       3D: x, y, z), low face then high face:
//                       face 2a   = ( e_a,  domain_min[a]),
//                       face 2a+1 = (-e_a, -domain_max[a]).
//                       A face is tagged by its index: axis a = k / 2. The
//                       wall models compute a box face's distance on its
//                       axis alone and clamp onto it exactly.
//   [box_faces, count)  the scene's walls, in file order.
//
// The set sits inside the fluid's constant buffer (cs_fluid_params), so it
// costs no descriptor binding of its own.
#ifndef CS_BOUNDARY_SHARED_H
#define CS_BOUNDARY_SHARED_H

#include "cs_shared.h"

#define CS_BOUNDARY_MAX_BOX_FACES 6 // 3D box; a 2D box uses 4
#define CS_BOUNDARY_MAX_WALLS 16    // = CS_MAX_WALLS (host/scene/scene.h)
#define CS_BOUNDARY_MAX_PLANES (CS_BOUNDARY_MAX_BOX_FACES + CS_BOUNDARY_MAX_WALLS)

struct cs_boundary_set {
    uvec4 counts;                             // x = half-spaces (box faces + walls), y = box faces (2 dim),
                                              // z = dim, w = 0
    vec4 planes[CS_BOUNDARY_MAX_PLANES];      // xyz = unit normal into the fluid, w = offset
};

#ifndef CS_GLSL
typedef struct cs_boundary_set cs_boundary_set;
#endif

#endif
