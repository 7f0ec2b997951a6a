// grid.h — the GPU neighbour grid: a bounded uniform grid over the scene
// domain whose cell size is the smoothing radius h, so every neighbour of a
// particle lies in its own cell or one of the 3^dim - 1 cells around it.
//
// Owns, per grid: the per-particle cell keys and sort payload, the per-cell
// [start, end) table, the stable radix sort (prim.h) and the programs of the
// build passes. One build is three labelled passes:
//
//   "grid: cell ids"  key[i] = cell of positions[i] (clamped into the grid),
//                     order[i] = i; a particle with a NaN or Inf coordinate
//                     gets key cell_count: sorted last, in no cell's range,
//                     visited by no neighbour loop
//   "grid: sort"      stable radix sort of (key, order) over key_bits bits:
//                     particles of one cell keep their index order, so the
//                     result is the same bits every run
//   "grid: ranges"    every sorted index where the key changes writes start /
//                     end of its cell (each entry written by exactly one
//                     invocation) over ranges that "grid: cell ids" cleared
//                     to (0, 0) in its own dispatch (one dispatch and one
//                     barrier fewer a build, which count at small sizes)
//
// After a build, order[i] is the index (before the build) of the particle
// that now comes i-th in cell order; cs_grid_record_gather() moves a particle
// array into that order (dst[i] = src[order[i]]). Callers (pipelines/fluid/fluid.c)
// reorder their state right after the build so neighbour loops read coherent
// memory and the cell table indexes the particle arrays directly.
//
// Clamping: a particle outside the domain is counted in the nearest edge
// cell. Clamping never increases the cell distance between two particles, so
// every pair closer than h is still found in the 3^dim block (only the
// edge cells get fuller). No cell has a capacity: any number of particles,
// all of them in one cell included, is sorted and found.
//
// GLSL side: shaders/grid/grid.glsl (cell of a position, the neighbour loop).
#pragma once

#include "prim.h"

#include "../../shaders/grid/grid_shared.h"

typedef struct cs_grid_desc {
    const char *name;          // for buffer names and messages ("pbf grid")
    int dim;                   // 2 or 3 (2D: one layer of cells, z ignored)
    float domain_min[3], domain_max[3];
    float cell_size;           // h
    uint32_t capacity;         // most particles one build will sort
} cs_grid_desc;

typedef struct cs_grid {
    int dim;
    float origin[3];           // domain_min
    float cell_size;
    uint32_t dims[3];          // cells per axis, at least 1 (z = 1 in 2D)
    uint32_t cell_count;       // dims[0] * dims[1] * dims[2]
    uint32_t key_bits;         // bits the sort looks at: enough for cell_count (the non-finite key)
    uint32_t capacity;
    cs_buffer keys;            // u32 per particle: cell id, ascending after a build
    cs_buffer order;           // u32 per particle: see above
    cs_buffer ranges;          // uvec2 per cell: [start, end) in sorted order; (0, 0) if empty
    cs_sort sort;
    cs_program_id cell_ids, clear, mark, gather4, gather16;
} cs_grid;

// Cell layout from a desc, without allocating (sizes, key bits). False when
// the domain or h cannot make a grid (message names desc->name).
bool cs_grid_layout(const cs_grid_desc *desc, cs_grid *out, cs_error *err);
// Checks every buffer the grid would allocate against the device limits.
bool cs_grid_check_sizes(const cs_context *ctx, const cs_grid_desc *desc, cs_error *err);
bool cs_grid_create(cs_context *ctx, const cs_grid_desc *desc, cs_grid *grid, cs_error *err);
void cs_grid_destroy(cs_context *ctx, cs_grid *grid);

// Records the three build passes over positions (vec4 per particle, xyz).
// Must be called outside a pass (it opens its own). Ends with a compute
// barrier: keys, order and ranges are readable by the next dispatch.
void cs_grid_record_build(cs_recorder *rec, cs_grid *grid, cs_buffer *positions, uint32_t count);

// The grid's push constants for `count` particles (grid_shared.h), for a
// caller's shader that writes the keys itself.
cs_grid_push cs_grid_push_for(const cs_grid *grid, uint32_t count);

// The "grid: sort" and "grid: ranges" passes of a build whose first step the
// caller's own dispatch did (fluid/predict.comp with CELL_IDS): keys[i] and
// order[i] = i written as "grid: cell ids" writes them, and every range
// cleared to (0, 0), with a compute barrier after. Outside a pass; ends with
// a compute barrier.
void cs_grid_record_sort_and_ranges(cs_recorder *rec, cs_grid *grid, uint32_t count);

// The sort and the ranges of a build over keys the caller wrote itself
// (keys[i] < cell_count, or cell_count for "in no cell"; order[i] = i), inside
// the caller's pass: for a grid whose cells are not positions (vorton.c's
// wall share hashes contact cells into cell_count buckets). Ends with a
// compute barrier.
void cs_grid_record_sort_keys(cs_recorder *rec, cs_grid *grid, uint32_t count);

// One gather dispatch inside the caller's pass: dst[i] = src[order[i]] for
// elements of `stride` bytes (4 or 16). No barrier: the caller adds one after
// its last gather.
void cs_grid_record_gather(cs_recorder *rec, cs_grid *grid, cs_buffer *src, cs_buffer *dst, uint32_t stride,
                           uint32_t count);

// ---- neighbour lists --------------------------------------------------------
// For solvers that loop over the same neighbourhoods many times per grid
// build (PBF: lambda and delta per iteration, curl, XSPH): after the build
// (and the caller's reorder), one labelled pass "grid: neighbours" writes,
// for every sorted particle i, the particles within radius = h + skin that
// the cell walk visits, in the walk's order:
//   clear  every cell's "moved" mark,
//   fill   (one cell walk) counts[i] = how many lie within the radius, the
//          first `slots` of them in i's list, and anchor[i] = x_i.
// Every particle has the same number of slots, so no count pass and no scan
// are needed to place the lists. A particle with more neighbours than slots
// (counts[i] > slots) keeps an incomplete list that no consumer reads: that
// particle walks the cells instead (no neighbour is ever dropped, and the
// host never reads anything back).
//
// Layout, chosen per device at create (CISTERN_NB_LAYOUT=particle|slot
// forces one): entry k of particle i sits at i * stride_i + k * stride_k.
//  - particle-major (stride_i = slots + 1, stride_k = 1) on CPU devices: each
//    invocation reads one contiguous run, which is what a CPU's caches like;
//  - slot-major (stride_i = 1, stride_k = capacity) on GPUs: the threads of
//    a subgroup handle consecutive particles, so entry k of all of them is
//    one contiguous run and each step of the loop is one coalesced load.
// Both visit the same particles in the same order: the same bits.
//
// The skin lets positions move after the build. Positions are numbered in
// sets (PBF: set k = after k delta steps). A solver's move pass marks, per
// build cell, the first set in which one of its particles is more than
// skin / 2 from its anchor (state[CS_NB_CELLS + cell], atomicMin). A
// consumer reading set k uses i's list only while the list is complete, i
// is still in its build cell and no cell of its 3^dim block is marked at or
// before k (CS_NB_DECIDE in grid.glsl); otherwise that particle walks the
// cells. Under that rule the list loop visits exactly the particles within h
// that the walk visits, in the same order: the results are the same bits.
typedef enum cs_nb_layout {
    CS_NB_LAYOUT_AUTO,     // particle-major on CPU devices, slot-major otherwise (or CISTERN_NB_LAYOUT)
    CS_NB_LAYOUT_PARTICLE, // list[i * (slots + 1) + k]
    CS_NB_LAYOUT_SLOT,     // list[i + k * capacity]
} cs_nb_layout;

typedef struct cs_neighbours_desc {
    const char *name;          // buffer names ("pbf neighbours")
    float radius;              // h + skin (keep the skin a fraction of h: see above)
    uint32_t capacity;         // most particles
    uint32_t slots;            // list entries per particle (lowered to fit the device's buffers; at least 1)
    uint32_t cell_count;       // the grid's cells (one moved mark each)
    cs_nb_layout layout;
} cs_neighbours_desc;

typedef struct cs_neighbours {
    float radius;
    uint32_t capacity, slots, cell_count;
    cs_nb_layout layout;       // as chosen (never AUTO)
    cs_buffer counts;          // u32 per particle: neighbours within the radius at the build
    cs_buffer list;            // u32, capacity x (slots + 1): sorted particle indices (+ the fill's scratch entry)
    cs_buffer state;           // u32: CS_NB_SLOTS, CS_NB_STRIDE_I, CS_NB_STRIDE_K, CS_NB_CELLS + cell
    cs_buffer anchor;          // vec4 per particle: positions at the build
    cs_buffer use;             // u32 per particle: a consumer's decision, for a later pass on the same set
    cs_program_id clear, fill;
} cs_neighbours;

// Sites of a full lattice of spacing `spacing` strictly within `radius` of
// one site, that site included: a solver sizes its slots from it (times a
// slack for compressed fluid and clamped edge cells).
uint64_t cs_neighbours_lattice_count(int dim, double radius, double spacing);
// False (err says what to set) when the settings' CISTERN_NB_LAYOUT holds
// a value other than particle or slot; solvers check it even where their
// lists are off.
bool cs_neighbours_check_env(const cs_context *ctx, cs_error *err);
// List slots for a scene: SLACK times the particles of a lattice of
// SPACING within RADIUS of one of them (itself included), at least 1.
uint32_t cs_neighbours_slots(int dim, double radius, double spacing, double slack);
bool cs_neighbours_create(cs_context *ctx, const cs_neighbours_desc *desc, cs_neighbours *nb, cs_error *err);
void cs_neighbours_destroy(cs_context *ctx, cs_neighbours *nb);
// Records "grid: neighbours" over positions (vec4, in the grid's sorted
// order, right after the grid build). Outside a pass; ends with a compute
// barrier.
void cs_neighbours_record_build(cs_recorder *rec, cs_neighbours *nb, cs_grid *grid, cs_buffer *positions,
                                uint32_t count);
// Binds counts, list and state at bindings first..first + 2: what a loop
// over the list reads (CS_GRID_FOR_LISTED_NEIGHBOURS, CS_NB_FOR_NEIGHBOURS).
void cs_neighbours_bind(cs_neighbours *nb, cs_dispatch_desc *dd, int first);
