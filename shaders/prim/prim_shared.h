// prim_shared.h — work shapes and push constants of the GPU primitives,
// read by both pipelines/core/prim.c and the shaders in shaders/prim/.
//
// Each invocation owns ITEMS contiguous elements and walks them in order
// with uvec4/vec4 loads (what lavapipe's SIMD-across-invocations code runs
// fastest); the ragged end is a short scalar loop, not a second code path.
// The shapes were measured on lavapipe: docs/primitives.md.
#ifndef PRIM_SHARED_H
#define PRIM_SHARED_H

#include "cs_shared.h"

// ---- exclusive scan (u32) ----
// No workgroup cooperation: every invocation scans its own chunk of
// CS_SCAN_ITEMS elements, and the chunk sums form the next level.
#define CS_SCAN_THREADS 64
#define CS_SCAN_ITEMS 32          // elements per chunk (one invocation)
#define CS_SCAN_MAX_LEVELS 7      // 32^7 > 2^32: enough for any u32 count
#define CS_SCAN_ADD_OFFSETS 1u    // start chunk c at offsets[c]
#define CS_SCAN_WRITE_TOTAL 2u    // the last chunk writes the grand total to total[0]

struct cs_scan_push {
    uint count;
    uint flags;
};

// ---- radix sort (u32 key + u32 payload), 4 bits per pass ----
// A workgroup owns a block of THREADS * ITEMS keys. An invocation owns at
// most 255 keys (8-bit digit counters), a block at most 65535 (16-bit ones).
#define CS_SORT_THREADS 128
#define CS_SORT_ITEMS 64
#define CS_SORT_BLOCK (CS_SORT_THREADS * CS_SORT_ITEMS)
#define CS_SORT_RADIX_BITS 4
#define CS_SORT_RADIX 16

struct cs_sort_push {
    uint count;
    uint block_count;  // histograms are digit-major: hist[digit * block_count + block]
    uint shift;        // first key bit of this pass's digit
    uint bits;         // digit width of this pass (4 or 8, or fewer for the last)
};

// ---- radix sort, 8 bits per pass (the path for GPUs) ----
// A workgroup owns a block of SORT8_BLOCK keys, split into one contiguous
// run per subgroup; a subgroup ranks its run row by row (one key per lane)
// with ballots. SORT8_BLOCK is a define cs_sort_create chooses per device
// (pipelines/core/prim.c says why): a power of two from BLOCK_MIN to BLOCK_MAX.
// A sort of at most CS_SORT_BLOCK keys stays one sort_small.comp dispatch
// on either path. The shader sizes its per-subgroup counters with
// SORT8_MAX_SUBGROUPS, a define cs_sort_create derives from the device's
// smallest subgroup size.
#define CS_SORT8_THREADS 128
#define CS_SORT8_BLOCK_CPU 8192   // llvmpipe: the 4-bit path's block, measured there
#define CS_SORT8_BLOCK_GPU 2048   // ~4 workgroups per SM at 1 M keys on an H100
#define CS_SORT8_BLOCK_MIN 128    // one key per run even with 128 one-lane subgroups
#define CS_SORT8_BLOCK_MAX 65536  // well inside lavapipe's loop budget; 256 workgroups at 16 M keys
#define CS_SORT8_RADIX_BITS 8
#define CS_SORT8_RADIX 256

// ---- deterministic float reduction ----
// A workgroup folds a block of THREADS * ITEMS elements in a fixed shape.
#define CS_REDUCE_THREADS 128
#define CS_REDUCE_ITEMS 64
#define CS_REDUCE_BLOCK (CS_REDUCE_THREADS * CS_REDUCE_ITEMS)
#define CS_REDUCE_OP_SUM 0
#define CS_REDUCE_OP_MIN 1
#define CS_REDUCE_OP_MAX 2

struct cs_reduce_push {
    uint count;
    uint out_index;    // this level writes out[out_index + block]
};

#endif
