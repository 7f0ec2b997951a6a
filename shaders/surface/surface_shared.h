// surface_shared.h — layouts and constants of the marching-cubes pipeline
// (pipelines/surface.c and shaders/surface/), read by C and GLSL.
//
// The field is a float per node of nx*ny*nz nodes, node (i, j, k) at
// origin + spacing * (i, j, k), stored at i + nx * (j + ny * k). A node is
// INSIDE when field > iso; a NaN (and every node outside the grid) is
// outside. The extraction works on a padded lattice of (nx+2)(ny+2)(nz+2)
// nodes: padded node (i+1, j+1, k+1) is field node (i, j, k), the padding
// layer is outside, so the surface is closed around fluid touching the
// border. Padded node index p = pi + (nx+2) * (pj + (ny+2) * pk); the cell
// with min corner p exists when every pi < n+1; the edge from p along axis a
// is global edge 3p + a.
#ifndef SURFACE_SHARED_H
#define SURFACE_SHARED_H

#include "cs_shared.h"

#define CS_SURFACE_GROUP 64
// Nodes one classify invocation walks along x (reusing a column of corners).
#define CS_SURFACE_RUN 8
// Most triangles one cell's case emits (checked when the table is built).
#define CS_SURFACE_MAX_TRIS 5
// One table row per case: [0] = triangle count, then 3 local edges per
// triangle, counter-clockwise seen from outside (normal = outward).
#define CS_SURFACE_TABLE_STRIDE (1 + 3 * CS_SURFACE_MAX_TRIS)

// info[p]: bits 0..2 = which of the node's 3 forward edges are crossed,
// bits 3..10 = the case of the cell with min corner p (0 for no cell).
#define CS_SURFACE_CASE_SHIFT 3u

struct cs_surface_push {
    vec4 origin;     // xyz: world position of field node (0, 0, 0); w: node spacing
    uvec4 dims;      // xyz: field nodes per axis (no padding); w: threads of this dispatch
    float iso;
    uint padded_count;   // (nx+2)(ny+2)(nz+2)
    uint flags;          // CS_SURFACE_OPEN_BORDER
    uint pad0;
};

// Mesh only the cells inside the field: a surface reaching the border
// stays open there (and a field entirely inside gives no triangles).
#define CS_SURFACE_OPEN_BORDER 1u

// ---- particle splat: field at every node from the particles near it ----
struct cs_splat_push {
    vec4 origin;     // xyz: world position of field node (0, 0, 0); w: node spacing
    uvec4 dims;      // xyz: field nodes per axis; w: node count
    vec4 grid_origin;    // xyz: the particle grid's origin; w: its cell size
    uvec4 grid_dims;     // xyz: the particle grid's cells per axis
    float radius;        // kernel support
    float scale;         // field = scale * sum of kernel weights
    uint pad0, pad1;
};

// ---- a grid fluid's cells as the field (one node per cell) ----
struct cs_cells_push {
    uint count;          // cells (= field nodes)
    uint stride;         // floats per cell
    uint component;      // which float of a cell is the field
    uint pad0;
};

#endif
