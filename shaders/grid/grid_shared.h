// grid_shared.h — push constants of the neighbour-grid build passes
// (pipelines/grid.c and shaders/grid/*.comp include this same file).
#ifndef CS_GRID_SHARED_H
#define CS_GRID_SHARED_H

#include "cs_shared.h"

#define CS_GRID_GROUP 64

struct cs_grid_push {
    vec4 origin;   // xyz = domain min; w = 1 / cell size
    uvec4 dims;    // xyz = cells per axis; w = particle count (or cell count for "clear")
};

#ifndef CS_GLSL
typedef struct cs_grid_push cs_grid_push;
#endif

#endif
