// grid.glsl — the neighbour grid as shaders read it (built by pipelines/core/grid.c).
//
// Cells: c = floor((x - origin) / cell size) per axis, clamped into
// [0, dims - 1]; a NaN coordinate lands in 0 along its axis. Cell id = (z * ny + y) * nx + x.
// ranges[id] = uvec2(start, end): the particles of the cell are the sorted
// indices [start, end); an empty cell is (0, 0).
#ifndef CS_GRID_GLSL
#define CS_GRID_GLSL

#include "grid_shared.h" // CS_NB_* (neighbour-list info words)

ivec3 cs_grid_cell(vec3 x, vec3 origin, float inv_cell, uvec3 dims)
{
    vec3 f = (x - origin) * inv_cell;
    ivec3 c;
    for (int a = 0; a < 3; a++) {
        float v = f[a];
        if (!(v >= 0.0)) // below the domain, or NaN
            v = 0.0;
        c[a] = v >= float(dims[a]) ? int(dims[a]) - 1 : int(v);
    }
    return c;
}

uint cs_grid_cell_id(ivec3 c, uvec3 dims)
{
    return (uint(c.z) * dims.y + uint(c.y)) * dims.x + uint(c.x);
}

// Visits every particle index J in the 3^dim cells around CELL (an ivec3
// from cs_grid_cell), the particle itself included. RANGES is the name of the
// shader's uvec2 ranges array. The three cells of a row have consecutive ids,
// so their particles are one contiguous span of the sorted order: one loop
// per row. Order: rows by z then y, indices ascending — fixed, so sums over
// neighbours are the same bits every run. In 2D dims.z = 1 and only the
// z = 0 layer is visited. Use as
//     CS_GRID_FOR_NEIGHBOURS(ranges, cell, dims, j) { ... } CS_GRID_END_NEIGHBOURS
// (`continue` inside the body skips to the next j).
#define CS_GRID_FOR_NEIGHBOURS(RANGES, CELL, DIMS, J)                                          \
    for (int gz_ = max((CELL).z - 1, 0); gz_ <= min((CELL).z + 1, int((DIMS).z) - 1); gz_++)    \
        for (int gy_ = max((CELL).y - 1, 0); gy_ <= min((CELL).y + 1, int((DIMS).y) - 1); gy_++) { \
            uint row_ = (uint(gz_) * (DIMS).y + uint(gy_)) * (DIMS).x;                          \
            uint s_ = 0xffffffffu, e_ = 0u;                                                     \
            for (int gx_ = max((CELL).x - 1, 0); gx_ <= min((CELL).x + 1, int((DIMS).x) - 1); gx_++) { \
                uvec2 r_ = RANGES[row_ + uint(gx_)];                                            \
                if (r_.y > r_.x) {                                                              \
                    s_ = min(s_, r_.x);                                                         \
                    e_ = max(e_, r_.y);                                                         \
                }                                                                               \
            }                                                                                   \
            for (uint J = s_; J < e_; J++)
#define CS_GRID_END_NEIGHBOURS }

// The same loop over a neighbour list (cs_neighbours, grid.h) when USE_LIST,
// else over the cells exactly as CS_GRID_FOR_NEIGHBOURS. The list holds, for
// sorted particle I, every J within the list radius (h + skin) at the build,
// in the cell walk's order; the body still tests its own r^2 < h^2. Decide
// USE_LIST with CS_NB_DECIDE (it also checks the list is complete). COUNTS =
// the shader's per-particle counts array, INFO = its u32 state array (the
// list's strides). Use as
//     CS_GRID_FOR_LISTED_NEIGHBOURS(ranges, cell, dims, counts, list, info, use, i, j) { ... }
//     CS_GRID_END_LISTED_NEIGHBOURS
// The list index is 0 in the walk branch, so a compiler that evaluates both
// sides of the select still reads inside the list.
#define CS_GRID_FOR_LISTED_NEIGHBOURS(RANGES, CELL, DIMS, COUNTS, LIST, INFO, USE_LIST, I, J)          \
    for (int seg_ = 0, zlo_ = max((CELL).z - 1, 0), ylo_ = max((CELL).y - 1, 0),                       \
             ny_ = min((CELL).y + 1, int((DIMS).y) - 1) - ylo_ + 1,                                    \
             segs_ = (USE_LIST) ? 1 : (min((CELL).z + 1, int((DIMS).z) - 1) - zlo_ + 1) * ny_;        \
         seg_ < segs_; seg_++) {                                                                       \
        uint s_ = 0xffffffffu, e_ = 0u;                                                                \
        uint at_ = (I) * INFO[CS_NB_STRIDE_I], step_ = INFO[CS_NB_STRIDE_K];                           \
        if (USE_LIST) {                                                                                \
            s_ = 0u;                                                                                   \
            e_ = COUNTS[I];                                                                            \
        } else {                                                                                       \
            uint row_ = (uint(zlo_ + seg_ / ny_) * (DIMS).y + uint(ylo_ + seg_ % ny_)) * (DIMS).x;     \
            for (int gx_ = max((CELL).x - 1, 0); gx_ <= min((CELL).x + 1, int((DIMS).x) - 1); gx_++) { \
                uvec2 r_ = RANGES[row_ + uint(gx_)];                                                   \
                if (r_.y > r_.x) {                                                                     \
                    s_ = min(s_, r_.x);                                                                \
                    e_ = max(e_, r_.y);                                                                \
                }                                                                                      \
            }                                                                                          \
        }                                                                                              \
        for (uint t_ = s_; t_ < e_; t_++) {                                                            \
            uint J = (USE_LIST) ? LIST[(USE_LIST) ? at_ + t_ * step_ : 0u] : t_;
#define CS_GRID_END_LISTED_NEIGHBOURS }}

// The neighbour loop of a solver whose lists need no skin: built on the
// very positions its loops read, with nothing moving them in between
// (Clavet SPH on x*, WCSPH on x), with a radius a hair above h (so that the
// build's own r^2 test, in another shader that may round its dot product
// differently, keeps every pair a loop accepts). NB_LISTS (a define from
// the solver, 0 by default): loop over the list (cs_neighbours, grid.h);
// the loop body keeps its own r < h test, so it sums exactly the walk's
// pairs in the walk's order: the same bits. A particle whose list
// overflowed (more neighbours than slots) walks the cells. Needs the
// shader's ranges, nb_counts, nb_list and nb_state arrays (cs_neighbours_bind).
// Without NB_LISTS: the plain cell walk (the listed loop's walk branch is
// slower on llvmpipe). Use as
//     CS_NB_FOR_NEIGHBOURS(i, cell, dims, j) { ... } CS_NB_END_NEIGHBOURS
#ifndef NB_LISTS
#define NB_LISTS 0
#endif
#if NB_LISTS
#define CS_NB_FOR_NEIGHBOURS(I, CELL, DIMS, J)                               \
    bool use_list_ = nb_counts[I] <= nb_state[CS_NB_SLOTS];                 \
    CS_GRID_FOR_LISTED_NEIGHBOURS(ranges, CELL, DIMS, nb_counts, nb_list, nb_state, use_list_, I, J)
#define CS_NB_END_NEIGHBOURS CS_GRID_END_LISTED_NEIGHBOURS
#else
#define CS_NB_FOR_NEIGHBOURS(I, CELL, DIMS, J) CS_GRID_FOR_NEIGHBOURS(ranges, CELL, DIMS, J)
#define CS_NB_END_NEIGHBOURS CS_GRID_END_NEIGHBOURS
#endif

// Declares bool USE: whether sorted particle I, now in cell CELL, may read
// its list instead of walking for position set SLOT. True when its list is
// complete (COUNTS[I] <= the slots), I is still in the cell it was listed
// from (KEYS = the grid's sorted keys) and no particle listed from any cell
// of the block the walk would visit has moved more than skin / 2 in sets
// 0..SLOT. Then every pair the walk finds within h is in the list (both ends
// moved at most skin / 2, so they were within h + skin at the build, in the
// same block), and the list holds nothing the walk does not visit: the loop
// visits the same particles within h in the same order, so the sums are the
// same bits.
#define CS_NB_DECIDE(USE, STATE, COUNTS, KEYS, CELL, DIMS, I, SLOT)                                      \
    bool USE = COUNTS[I] <= STATE[CS_NB_SLOTS] && KEYS[I] == cs_grid_cell_id(CELL, (DIMS).xyz);            \
    for (int uz_ = max((CELL).z - 1, 0); USE && uz_ <= min((CELL).z + 1, int((DIMS).z) - 1); uz_++)      \
        for (int uy_ = max((CELL).y - 1, 0); uy_ <= min((CELL).y + 1, int((DIMS).y) - 1); uy_++) {        \
            uint urow_ = (uint(uz_) * (DIMS).y + uint(uy_)) * (DIMS).x;                                  \
            for (int ux_ = max((CELL).x - 1, 0); ux_ <= min((CELL).x + 1, int((DIMS).x) - 1); ux_++)      \
                if (STATE[CS_NB_CELLS + urow_ + uint(ux_)] <= (SLOT))                                    \
                    USE = false;                                                                          \
        }

#endif
