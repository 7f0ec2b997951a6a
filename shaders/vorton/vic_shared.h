// vic_shared.h — the vortex-in-cell velocity solve ("velocity": "grid"):
// what pipelines/vorton_grid.c and shaders/vorton/vic_*.comp share.
// docs/vortons.md ("Velocity from vorticity: the grid method") has the
// equations, the boundary treatment and the measured errors.
//
// The grid is a cube of n cells per axis (n a power of two), spacing h, from
// `origin`; the unknowns live on its (n + 1)^3 nodes, node (i, j, k) at
// origin + h (i, j, k), stored at (k (n + 1) + j) (n + 1) + i. Boundary nodes
// (any index 0 or n) hold Dirichlet values. Every node array is a vec4 per
// node (xyz: the three components; w unused).
#ifndef VIC_SHARED_H
#define VIC_SHARED_H

#include "cs_shared.h"

#define VIC_WG 64
// Nodes per axis of one boundary block (the moments the boundary sum uses).
// 8, not 4: at 64 cells 4 made the boundary sum (6 n^2 nodes x blocks)
// most of a step on llvmpipe; 8 keeps the errors of test_vorton_grid.
#define VIC_BLOCK 8

struct vic_push {
    vec4 grid;   // xyz: origin; w: node spacing h of this level
    // x: nodes per axis of this level; y: nodes per axis of the other level
    // (restrict: the coarse one; prolong: the coarse one); z: parity
    // (smooth) or blocks per axis (moments, boundary); w: element count
    uvec4 size;
    // x: stretching scheme (VORTON_STRETCH_*, interp); y: 1 when interp
    // adds to the rates already there (the local terms of rates.comp)
    uvec4 mode;
};

#ifndef CS_GLSL
typedef struct vic_push vic_push;
#endif

#endif
