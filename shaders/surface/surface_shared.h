// surface_shared.h — layouts and constants of the marching-cubes pipeline
// (pipelines/surface/surface.c and shaders/surface/), read by C and GLSL.
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
// Padded nodes of a segment (classify, compact): a run along a padded row,
// one bit each in a u32.
#define CS_SURFACE_SEG 32
// Most triangles one cell's case emits (checked when the table is built).
#define CS_SURFACE_MAX_TRIS 5
// One table row per case: [0] = triangle count, then 3 local edges per
// triangle, counter-clockwise seen from outside (normal = outward).
#define CS_SURFACE_TABLE_STRIDE (1 + 3 * CS_SURFACE_MAX_TRIS)

// After the 256 rows, the same table packed for emit: 2 u32 per case, the
// triangle count in bits 0..3 of the first, then the 15 local edges, 4 bits
// each, from bit 4 of the first word (7 edges) on into the second (8).
#define CS_SURFACE_PACKED_TABLE (256 * CS_SURFACE_TABLE_STRIDE)

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
// A vertex's position along its edge is kept within [T_MIN, 1 - T_MIN] of
// the edge: a node whose field equals the iso value (or rounds onto it)
// would otherwise put the vertices of all its crossed edges on the node
// itself, giving zero-area triangles. 1/1024 is exact in float and moves a
// vertex by at most a thousandth of a cell.
#define CS_SURFACE_T_MIN (1.0 / 1024.0)

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

// ---- anisotropic splat (Yu & Turk 2013), see surface.h ----
// A field workgroup (CS_SPLAT_TILE^2 * CS_SPLAT_TILE invocations) is a tile
// of CS_SPLAT_TILE x CS_SPLAT_TILE x (CS_SPLAT_TILE * CS_SPLAT_NODES_PER)
// nodes sharing one list of candidate cells.
#define CS_SPLAT_TILE 4
#define CS_SPLAT_TILE_GROUP 64
// Nodes one invocation of a field tile owns (along z, CS_SPLAT_TILE apart):
// a tile is 4 x 4 x (4 * this) nodes.
#define CS_SPLAT_NODES_PER 4
// Candidate cells each invocation of a field tile tests per round.
#define CS_SPLAT_CELLS_PER 8
// Cyclic Jacobi sweeps (3 rotations each) of the per-particle 3x3
// eigen-decomposition: a fixed count, so every run does the same arithmetic.
// Jacobi converges quadratically; 6 sweeps leave off-diagonals at float
// rounding for any symmetric 3x3 input.
#define CS_SPLAT_JACOBI_SWEEPS 6
// The culling tests compare squared distances against the largest semi-axis
// squared, padded by this relative amount so float rounding never drops a
// particle whose ellipsoid (|G d| < 1) contains the point.
#define CS_SPLAT_EXTENT_PAD 1e-4

// Per particle slot i (the grid's sorted order), written by
// "surface: splat kernels" for slots the last grid build filled:
//   centres[i]     = (smoothed centre xyz, (1 + PAD) * largest semi-axis^2)
//   covariance[2i] = (c_xx, c_xy, c_xz, c_yy), [2i+1] = (c_yz, c_zz,
//                    sum of weights, neighbours other than i)
//   kernels[2i]    = (g_xx, g_xy, g_xz, g_yy), [2i+1] = (g_yz, g_zz,
//                    1 if anisotropic else 0, 0)
struct cs_splat_aniso_push {
    vec4 origin;         // xyz: field node (0, 0, 0); w: node spacing
    uvec4 dims;          // xyz: field nodes per axis; w: tiles (field pass) or particle slots (kernels pass)
    vec4 grid_origin;    // xyz: the particle grid's origin; w: its cell size
    uvec4 grid_dims;     // xyz: the particle grid's cells per axis; w: cell count
    float radius;        // R: the isotropic kernel's support; det(G) = 1 / R^3
    float scale;         // field = scale * sum of kernel weights
    float neighbour_radius;  // covariance and smoothing neighbourhood
    float smoothing;     // lambda: centre = x + lambda * (weighted mean - x)
    float max_ratio;     // k_r: every eigenvalue >= the largest / k_r
    uint min_neighbours; // N_eps: fewer neighbours give the isotropic kernel
    uint pad0, pad1;
};

#endif
