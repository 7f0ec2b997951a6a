// grid_shared.h — push constants of the neighbour-grid build passes
// (pipelines/core/grid.c and shaders/grid/*.comp include this same file).
#ifndef CS_GRID_SHARED_H
#define CS_GRID_SHARED_H

#include "cs_shared.h"

#define CS_GRID_GROUP 64

struct cs_grid_push {
    vec4 origin;   // xyz = domain min; w = 1 / cell size
    uvec4 dims;    // xyz = cells per axis; w = particle count (or cell count for "clear")
};

// Neighbour lists (grid.h, cs_neighbours): words of the state buffer. Entry
// k of sorted particle i is list[i * STRIDE_I + k * STRIDE_K] (k < SLOTS).
#define CS_NB_SLOTS 0        // entries a particle's list holds (written once at create)
#define CS_NB_STRIDE_I 1     // list index step from one particle to the next
#define CS_NB_STRIDE_K 2     // list index step from one entry of a particle to its next
#define CS_NB_CELLS 3        // + cell id: first position set in which a particle of that (build)
                             // cell is more than skin / 2 from its anchor; ~0u: none yet

struct cs_neighbours_push {
    vec4 origin;   // as cs_grid_push
    uvec4 dims;    // as cs_grid_push
    vec4 radius;   // x = list radius^2 (h + skin)^2
    uvec4 cells;   // x = cell count (for the clear); y = slots, z = stride_i, w = stride_k (the fill)
};

#ifndef CS_GLSL
typedef struct cs_grid_push cs_grid_push;
typedef struct cs_neighbours_push cs_neighbours_push;
#endif

#endif
