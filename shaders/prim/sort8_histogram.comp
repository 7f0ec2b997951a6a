#version 450
// sort8_histogram.comp — 8-bit radix sort step 1: how many keys of each
// block have each digit, written digit-major, hist[digit * block_count +
// block], like sort_histogram.comp (an exclusive scan of the table then
// gives every (digit, block) its first output position). Counts come from
// shared-memory atomics: a count does not depend on the order the additions
// land in, so the result is the same every run.
#include "index.glsl"
#include "prim_shared.h"

#ifndef SORT8_BLOCK
#error "cs_sort_create defines SORT8_BLOCK, the keys per block it chose for the device"
#endif

layout(local_size_x = CS_SORT8_THREADS) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Hist { uint hist[]; };
layout(push_constant) uniform Push { cs_sort_push pc; };

shared uint digit_counts[CS_SORT8_RADIX];

void main()
{
    uint group = cs_linear_group();
    if (group >= pc.block_count)
        return; // past the last block (folded dispatches round up); the whole workgroup leaves
    uint radix = 1u << pc.bits; // the last pass may have fewer bits
    for (uint d = gl_LocalInvocationIndex; d < radix; d += CS_SORT8_THREADS)
        digit_counts[d] = 0u;
    barrier();
    // Strided by the workgroup so neighbouring invocations read neighbouring keys.
    uint first = group * SORT8_BLOCK, end = min(first + SORT8_BLOCK, pc.count);
    for (uint i = first + gl_LocalInvocationIndex; i < end; i += CS_SORT8_THREADS)
        atomicAdd(digit_counts[bitfieldExtract(keys[i], int(pc.shift), int(pc.bits))], 1u);
    barrier();
    for (uint d = gl_LocalInvocationIndex; d < radix; d += CS_SORT8_THREADS)
        hist[d * pc.block_count + group] = digit_counts[d];
}
