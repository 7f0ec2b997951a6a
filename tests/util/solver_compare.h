// solver_compare.h — what a test that checks a solver's GPU substep
// against its CPU reference (test_sph.c, test_wcsph.c) needs to compare
// the two: read-back, float to double, non-finite counts and the error of
// vec4 increments with its rounding floor.
#pragma once

#include "test_util.h"

// Reads n records of `stride` bytes back (nothing when n is 0).
void compare_download(cs_context *ctx, cs_buffer *b, void *dst, uint32_t n, uint32_t stride);
// A double copy of `count` floats (one spare element; free it).
double *compare_to_double(const float *src, size_t count);
// How many of the floats are NaN or infinite.
uint32_t compare_non_finite(const float *v, size_t count);

// Error of vec4 increments (gpu - gpu_base against ref - ref_base; plain
// values when the bases are NULL): err = max_i |gpu_i - ref_i|, scale =
// max_i |ref_i|. The GPU stores positions, not increments, so an increment
// read back carries the rounding of the position itself: `floor` is that
// rounding (a few float ulps of the largest coordinate), allowed on top of
// the relative bound. A NaN anywhere is an infinite error.
typedef struct vec_error {
    double err, scale, floor;
} vec_error;

vec_error compare_vec(const double *gpu, const double *gpu_base, const double *ref, const double *ref_base, uint32_t n,
                      int dim);
// err / scale (err when the reference is all zero).
double compare_rel(vec_error e);
// err within tol x scale + floor.
bool compare_within(vec_error e, double tol);
