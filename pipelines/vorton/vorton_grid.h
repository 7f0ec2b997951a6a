// vorton_grid.h — the vortex-in-cell velocity solve of the vorton solver
// (`"velocity": "grid"`; docs/vortons.md has the equations, the boundary
// treatment and the measured errors against the direct sum).
//
// A cube of n cells per axis (n a power of two, at least 4), node spacing h.
// Its origin and h live in a small GPU buffer (struct vic_box), which every
// pass reads: the box follows the vortons (vic_shared.h has the rule) unless
// the desc asks for a fixed one. One solve is, each its own labelled pass:
//   "vorton: grid box"       the vortons' min / max (a fixed-shape fold),
//                            then the box of this solve (vic_box.comp)
//   "grid: cell ids", "grid: sort", "grid: ranges"   the vortons binned by
//                       cell of that box (vic_cell_ids.comp, then
//                       pipelines/core/grid.h's stable sort: no atomics)
//   "vorton: grid splat"     f = vorticity on the nodes, a per-node gather
//                            with trilinear weights (vic_splat.comp)
//   "vorton: grid boundary"  Dirichlet psi on the boundary nodes from the
//                            free-space sum of the node vorticity, by blocks
//                            of VIC_BLOCK^3 (8^3) nodes to dipole order
//   "vorton: grid solve"     `cycles` multigrid V(2,2) cycles of
//                            -lap(psi) = f (red-black Gauss-Seidel), all
//                            three components together
//   "vorton: grid curl"      u = curl(psi) on the nodes, central differences
// then cs_vorton_grid_record_interp() reads u (and its differences, for the
// stretching) at any targets. Memory: about 4 vec4 per node over all levels.
#pragma once

#include "grid.h"

#include "../../shaders/vorton/vic_shared.h"

#define CS_VORTON_GRID_MAX_LEVELS 12

typedef struct cs_vorton_grid_desc {
    float origin[3];   // the cube's low corner at the start
    float size;        // its edge (m): the smallest the box gets
    bool fixed_box;    // true: the box never moves (the grid before it followed)
    uint32_t cells;    // per axis: a power of two, 4 .. 512
    uint32_t cycles;   // V-cycles per solve, at least 1
    uint32_t capacity; // most vortons one solve bins
} cs_vorton_grid_desc;

typedef struct cs_vorton_grid {
    cs_context *ctx;
    float origin[3];           // the box at the start (the box buffer has the current one)
    float h;                   // node spacing of the finest level at the start
    bool fixed_box;
    uint32_t cells, cycles, levels, blocks;
    cs_buffer box;             // struct vic_box: origin and h of the last solve
    cs_buffer box_partials;    // 2 vec4 (min, max) per VIC_BOX_CHUNK vortons
    cs_grid bins;              // vortons by cell
    cs_buffer psi[CS_VORTON_GRID_MAX_LEVELS], f[CS_VORTON_GRID_MAX_LEVELS], res[CS_VORTON_GRID_MAX_LEVELS];
    cs_buffer vel;             // node velocity of the last solve
    cs_buffer moments;         // 4 vec4 per boundary block
    cs_program_id box_partials_prog, box_choose, cell_ids, splat, moments_prog, boundary, smooth, residual, restrict_prog, prolong, curl, interp,
        interp_points;
} cs_vorton_grid;

bool cs_vorton_grid_create(cs_context *ctx, const cs_vorton_grid_desc *desc, cs_vorton_grid *g, cs_error *err);
void cs_vorton_grid_destroy(cs_vorton_grid *g);

// Records the solve for `count` vortons (pos, vort: vec4 each, vorton_shared.h).
// Opens its own passes; ends with a compute barrier (vel readable).
void cs_vorton_grid_record_solve(cs_recorder *rec, cs_vorton_grid *g, cs_buffer *pos, cs_buffer *vort,
                                 uint32_t count);

// The box of the last solve (a download: tests and tools only).
void cs_vorton_grid_read_box(cs_vorton_grid *g, vic_box *out);

// Inside the caller's pass: velocity of the last solve at `count` targets
// into out_vel. With `vort` (vortons), also the stretching scheme's term
// into rate.xyz, added to rate when `accumulate`, else written with rate.w
// = 0. No barrier: the caller adds one.
void cs_vorton_grid_record_interp(cs_recorder *rec, cs_vorton_grid *g, cs_buffer *pos, cs_buffer *vort,
                                  cs_buffer *out_vel, cs_buffer *rate, uint32_t count, uint32_t stretching,
                                  bool accumulate);
