// prim.h — GPU primitives the neighbour grid and the solvers stand on:
// exclusive prefix sum over u32, stable radix sort of u32 keys with a u32
// payload, and deterministic float reductions. Owns their programs and
// scratch buffers; shaders in shaders/prim/, block shapes in
// shaders/prim/prim_shared.h, algorithms and measured speeds in
// docs/primitives.md.
//
// Every *_record function records into the caller's recorder, inside the
// caller's pass (it never begins a pass of its own). The caller makes the
// inputs visible first (the barrier after whatever wrote them); the function
// puts barriers between its own dispatches and ends with a compute→compute
// barrier so the result can be read by the next dispatch. Counts are known on
// the host and must not exceed the capacity given at creation. All results
// are bit-identical from run to run on the same device and driver: no
// atomics decide an order or a float sum.
//
// The sort uses subgroup arithmetic (integer sums only, so the order the
// hardware adds in cannot change a result); cs_sort_create fails with a
// message on a device without it. Its 8-bit path also uses subgroup ballots
// (masks, no order of their own).
#pragma once

#include "recorder.h"

#include "../../shaders/prim/prim_shared.h"

// ---- exclusive scan: out[i] = in[0] + ... + in[i-1] (u32, wrapping) ----
// Every invocation owns a chunk of CS_SCAN_ITEMS (32) elements. Up: the
// chunk sums form the next level, and so on until one chunk is left. Down:
// every chunk is scanned from its scanned sum. No barriers inside a shader,
// no shared memory; 2 dispatches per level (1M elements: 3 levels of sums).
typedef struct cs_scan {
    cs_program_id sums;            // scan_sums.comp: one sum per chunk
    cs_program_id chunks;          // scan_chunks.comp: scan of each chunk from its offset
    cs_buffer block_sums[CS_SCAN_MAX_LEVELS]; // per level: chunk sums, scanned in place
    cs_buffer scratch;          // bound to the bindings a dispatch does not use
    uint32_t capacity;
} cs_scan;

bool cs_scan_create(cs_context *ctx, uint32_t capacity, cs_scan *scan, cs_error *err);
void cs_scan_destroy(cs_context *ctx, cs_scan *scan);
// `in` and `out` may be the same buffer. Optionally writes the grand total to
// total[0] (pass NULL to skip); an empty scan writes a total of 0.
void cs_scan_record(cs_recorder *rec, cs_scan *scan, cs_buffer *in, cs_buffer *out, uint32_t count, cs_buffer *total);

// ---- stable sort of (key, value) pairs by key ----
// LSD radix sort with one of two digit widths, chosen per device when the
// sort is created (docs/primitives.md has both and the measurements):
//  - 4 bits a pass (tuned for lavapipe): per-block (CS_SORT_BLOCK = 8192
//    keys) digit histograms counted in registers, a scan of the histograms
//    in digit-major order, a stable scatter ranked by workgroup scans.
//  - 8 bits a pass (for GPUs: half the passes): 256-bucket histograms in
//    shared memory, the same scan, a scatter ranked per subgroup with
//    ballots. Needs subgroup ballots in compute and the shared memory for
//    one row of 256 counters per subgroup. Its keys per block are chosen
//    per device at creation (2048 on GPUs, 8192 on CPUs;
//    CISTERN_SORT_BLOCK=N forces a power of two from 128 to 65536).
// Both give the same output (a stable sort's output is unique). Passes
// ping-pong with keys_tmp/values_tmp; an odd number of passes ends with a
// copy back. A sort of count <= CS_SORT_BLOCK (8192) is one dispatch of one
// workgroup (sort_small.comp, 4-bit) on either path: same result, a fixed
// cost instead of 3 dispatches a pass.
typedef struct cs_sort {
    cs_program_id histogram, scatter, small;
    cs_buffer keys_tmp, values_tmp, histograms;
    cs_scan scan;               // scans the histograms
    uint32_t capacity;
    uint32_t digit_bits;        // 4 or 8: the multi-block path this sort runs
    uint32_t block_keys;        // keys per workgroup in the multi-block passes
} cs_sort;

// Picks the digit width for the device: CISTERN_SORT=4 or 8 in the
// environment forces one (8 fails where the device cannot run it);
// otherwise 8 where the device can run it, is not a CPU and passes
// cs_sort8_self_test (below), else 4.
bool cs_sort_create(cs_context *ctx, uint32_t capacity, cs_sort *sort, cs_error *err);
// The same with the digit width given: 4, 8, or 0 to pick as above; and
// the 8-bit path's keys per block, or 0 to pick as above (the 4-bit path's
// is always CS_SORT_BLOCK).
bool cs_sort_create_digits(cs_context *ctx, uint32_t capacity, uint32_t digit_bits, uint32_t block_keys,
                           cs_sort *sort, cs_error *err);
// What cs_sort_create (digits and block 0) picks on this device, with the
// environment as it is now: the digit width and the keys per block of the
// multi-block passes. Runs the 8-bit self-test where the choice needs it
// (its verdict is kept in the context, so a later create picks the same).
// Tests and `cistern run --watch` ask this which shaders are live.
bool cs_sort_choose(cs_context *ctx, uint32_t *digit_bits, uint32_t *block_keys, cs_error *err);
// The scatter shader (path under shaders/) of a sort of this digit width:
// prim/sort_scatter.comp (4 bits) or prim/sort8_scatter.comp (8 bits).
const char *cs_sort_scatter_source(uint32_t digit_bits);
// Whether this device can run the 8-bit path; if not, why (in *err).
bool cs_sort8_supported(cs_context *ctx, cs_error *err);
// The 8-bit path has run on few devices, and a wrong sort would silently
// corrupt every neighbour search. So when cs_sort_create picks it by itself
// (not when CISTERN_SORT=8 or the digits argument asks for it), it first
// runs this, once per context (the verdict is kept in cs_context) with the
// block it chose: fixed keys (32 and 20 key bits, runs of equal keys) of 3
// blocks + 17, sorted by the 8-bit multi-block passes in one submit,
// against a CPU stable sort.
// On a mismatch cs_sort_create prints one line on stderr and takes 4 bits.
// Returns false with what differed (or why it could not run) in *err.
bool cs_sort8_self_test(cs_context *ctx, cs_error *err);
// The SORT8_MAX_SUBGROUPS define the 8-bit scatter is compiled with: its
// workgroup over the device's smallest subgroup size.
uint32_t cs_sort8_max_subgroups(cs_context *ctx);
// Tests only: the self-test swaps two values of the GPU's result before
// comparing, so it must report a mismatch.
extern bool cs_sort8_self_test_tamper;
// Tests only: cs_sort_create chooses for a CPU device as it would for a GPU
// (8 bits after the self-test), so the fallback can run on lavapipe.
extern bool cs_sort_choose_as_gpu;
void cs_sort_destroy(cs_context *ctx, cs_sort *sort);
// Sorts keys[0..count) ascending, carrying values along; equal keys keep
// their input order. Only the low `key_bits` bits (0..32) are compared; the
// others travel with the key (fewer bits, fewer passes: a grid of 2^20 cells
// needs 20, i.e. 5 passes of 4 bits or 8 + 8 + 4). Result ends in
// keys/values. key_bits == 0 or count <= 1 records only the closing barrier.
void cs_sort_record(cs_recorder *rec, cs_sort *sort, cs_buffer *keys, cs_buffer *values, uint32_t count,
                    uint32_t key_bits);
// Tests and A/B timings: true sorts one block with the multi-block passes
// too (the path every sort took before sort_small.comp).
extern bool cs_sort_force_blocks;

// ---- deterministic reduction over floats ----
typedef enum cs_reduce_op { CS_REDUCE_SUM, CS_REDUCE_MIN, CS_REDUCE_MAX } cs_reduce_op;

typedef struct cs_reduce {
    cs_program_id reduce[3];      // per op (reduce.comp with REDUCE_OP)
    cs_buffer partials[2];     // block results of alternate levels
    uint32_t capacity;
} cs_reduce;

bool cs_reduce_create(cs_context *ctx, uint32_t capacity, cs_reduce *reduce, cs_error *err);
void cs_reduce_destroy(cs_context *ctx, cs_reduce *reduce);
// Writes the result to out[out_index] (a float); `out` must not be `in`. The
// sum is a fixed-shape tree, so the same input gives the same bits every run;
// cs_reduce_sum_depth() bounds its rounding error. Empty input gives 0 for
// SUM, +inf for MIN, -inf for MAX. MIN/MAX of inputs holding NaN are
// undefined (GLSL min/max).
void cs_reduce_record(cs_recorder *rec, cs_reduce *reduce, cs_reduce_op op, cs_buffer *in, uint32_t count,
                      cs_buffer *out, uint32_t out_index);
// The most float additions any one input element passes through in a SUM of
// `count` elements: the float result s' of the exact sum s then satisfies
// |s' - s| <= depth * 2^-24 / (1 - depth * 2^-24) * sum |x_i| (Higham, 4.2).
uint32_t cs_reduce_sum_depth(uint32_t count);
