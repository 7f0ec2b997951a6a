// prim.h — GPU primitives the neighbour grid and the solvers stand on:
// exclusive prefix sum over u32, stable radix sort of u32 keys with a u32
// payload, and deterministic float reductions.
//
// Every *_record function records into the caller's recorder, inside the
// caller's pass (they add the barriers they need between their own
// dispatches, and end with a compute→compute barrier so the result can be
// read by the next dispatch). Counts are known on the host. All results are
// bit-identical from run to run on the same device and driver: no atomics
// decide an order or a float sum.
#pragma once

#include "recorder.h"

// ---- exclusive scan: out[i] = in[0] + ... + in[i-1] (u32, wrapping) ----
typedef struct cs_scan {
    cs_program local_scan, scan_block_sums, add_block_sums;
    cs_buffer block_sums[3];   // per-level partial sums
    uint32_t capacity;
} cs_scan;

bool cs_scan_create(cs_context *ctx, uint32_t capacity, cs_scan *scan, cs_error *err);
void cs_scan_destroy(cs_context *ctx, cs_scan *scan);
// `in` and `out` may be the same buffer. Optionally writes the grand total to
// total[0] (pass NULL to skip).
void cs_scan_record(cs_recorder *rec, cs_scan *scan, cs_buffer *in, cs_buffer *out, uint32_t count, cs_buffer *total);

// ---- stable sort of (key, value) pairs by key ----
typedef struct cs_sort {
    cs_program histogram, scan_histogram, scatter;
    cs_buffer keys_tmp, values_tmp, histograms;
    cs_scan scan;
    uint32_t capacity;
} cs_sort;

bool cs_sort_create(cs_context *ctx, uint32_t capacity, cs_sort *sort, cs_error *err);
void cs_sort_destroy(cs_context *ctx, cs_sort *sort);
// Sorts keys[0..count) ascending, carrying values along; equal keys keep
// their input order. Only the low `key_bits` bits are sorted (fewer bits,
// fewer passes: a grid of 2^20 cells needs 20). Result ends in keys/values.
void cs_sort_record(cs_recorder *rec, cs_sort *sort, cs_buffer *keys, cs_buffer *values, uint32_t count,
                    uint32_t key_bits);

// ---- deterministic reduction over floats ----
typedef enum cs_reduce_op { CS_REDUCE_SUM, CS_REDUCE_MIN, CS_REDUCE_MAX } cs_reduce_op;

typedef struct cs_reduce {
    cs_program reduce[3];      // per op
    cs_buffer partials[2];
    uint32_t capacity;
} cs_reduce;

bool cs_reduce_create(cs_context *ctx, uint32_t capacity, cs_reduce *reduce, cs_error *err);
void cs_reduce_destroy(cs_context *ctx, cs_reduce *reduce);
// Writes the result to out[out_index] (a float). The sum is a fixed-shape
// tree, so the same input gives the same bits every run. Empty input gives
// 0 for SUM, +inf for MIN, -inf for MAX.
void cs_reduce_record(cs_recorder *rec, cs_reduce *reduce, cs_reduce_op op, cs_buffer *in, uint32_t count,
                      cs_buffer *out, uint32_t out_index);
