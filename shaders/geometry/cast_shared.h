// cast_shared.h — a list of rays cast on the GPU against a BVH
// (shaders/geometry/cast.comp, pipelines/trace/raycast.[ch]): the C and GLSL
// layouts of one ray, one hit and the pass's push constants.
#ifndef CAST_SHARED_H
#define CAST_SHARED_H

#include "cs_shared.h"

// origin + t dir for t in (t_min, t_max); dir need not be unit length.
struct cs_ray {
    vec4 origin_tmin;   // xyz origin, w t_min
    vec4 dir_tmax;      // xyz direction, w t_max
};

// The nearest hit (or, with CS_CAST_ANY_HIT, any hit) of one ray.
struct cs_cast_hit {
    uint tri;           // index in the BVH's triangle list, CS_CAST_NO_HIT when none
    float t, u, v;      // the hit point is origin + t dir = v0 + u (v1 - v0) + v (v2 - v0)
};

struct cs_cast_push {
    uint ray_count;
    uint flags;         // CS_CAST_ANY_HIT
    uint pad0, pad1;
};

#define CS_CAST_NO_HIT 0xffffffffu
#define CS_CAST_ANY_HIT 1u
#define CS_CAST_GROUP 64u

#ifndef CS_GLSL
typedef struct cs_ray cs_ray;
typedef struct cs_cast_hit cs_cast_hit;
typedef struct cs_cast_push cs_cast_push;
#endif

#endif
