// vic_shared.h — the vortex-in-cell velocity solve ("velocity": "grid"):
// what pipelines/vorton/vorton_grid.c and shaders/vorton/vic_*.comp share.
// docs/vortons.md ("Velocity from vorticity: the grid method") has the
// equations, the boundary treatment and the measured errors.
//
// The grid is a cube of n cells per axis (n a power of two), spacing h, from
// `origin`, both read from the box buffer (struct vic_box, binding
// VIC_BOX_BINDING of every vic_*.comp): vic_box.comp moves and sizes it to
// follow the vortons before each solve, on the GPU. The unknowns live on its (n + 1)^3 nodes, node (i, j, k) at
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

// The box follows the vortons: their min / max (finite positions only) with
// VIC_BOX_MARGIN cells of margin each side. It stays put while they fit;
// otherwise it is re-centred with its origin on the lattice base.xyz + h Z^3
// (whole cells: the nodes do not jitter), its edge one of the steps
// base.w * 2^(k / VIC_BOX_STEPS), k = 0 .. VIC_BOX_MAX_STEP (never below the
// scene's box: its resolution is the one asked for). It shrinks only when
// two steps smaller would fit (no flapping between two sizes).
#define VIC_BOX_BINDING 7
#define VIC_BOX_MARGIN 2
#define VIC_BOX_STEPS 4
#define VIC_BOX_MAX_STEP 16
// Vortons one workgroup of the min / max pass folds (VIC_WG x 16).
#define VIC_BOX_CHUNK 1024

struct vic_box {
    vec4 grid;   // xyz: origin (low corner); w: node spacing h of the finest level
    vec4 base;   // xyz: the scene's box origin (the lattice anchor); w: its edge
    vec4 lo;     // xyz: min of the vortons at the last solve (w: 1 when any was finite)
    vec4 hi;     // xyz: their max
    uvec4 state; // x: size step k; y: times the box moved
};

struct vic_push {
    vec4 level;  // x: node spacing of this level in finest spacings (2^level)
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
typedef struct vic_box vic_box;
#endif

#endif
