#version 450
// reduce.comp — one level of the deterministic float reduction (REDUCE_OP is
// CS_REDUCE_OP_SUM, _MIN or _MAX). Every workgroup folds one block of
// CS_REDUCE_BLOCK elements in a fixed shape and writes out[out_index + block]:
//   1. each invocation: four running lanes over its CS_REDUCE_ITEMS
//      contiguous elements (vec4 loads, in order; missing elements of the
//      last block count as the identity), then (x + y) + (z + w);
//   2. eight invocations each fold 16 of those pairwise (depth 4);
//   3. one invocation folds the eight pairwise (depth 3).
// The shape depends only on the element count, never on timing or on the
// device's subgroup size, so the same input gives the same bits every run.
// Two barriers rather than a seven-step tree: lavapipe pays per barrier.
#extension GL_EXT_control_flow_attributes : require
#include "index.glsl"
#include "prim_shared.h"

layout(local_size_x = CS_REDUCE_THREADS) in;
layout(std430, binding = 0) readonly buffer In { float in_f[]; };
layout(std430, binding = 0) readonly buffer In4 { vec4 in_v[]; };
layout(std430, binding = 1) writeonly buffer Out { float out_f[]; };
layout(push_constant) uniform Push { cs_reduce_push pc; };

#ifndef REDUCE_OP
#define REDUCE_OP CS_REDUCE_OP_SUM // built alone (test_shaders_compile)
#endif
#if REDUCE_OP == CS_REDUCE_OP_SUM
#define IDENTITY 0.0
#define OP(a, b) ((a) + (b))
#elif REDUCE_OP == CS_REDUCE_OP_MIN
#define IDENTITY uintBitsToFloat(0x7f800000u) // +inf
#define OP(a, b) min(a, b)
#elif REDUCE_OP == CS_REDUCE_OP_MAX
#define IDENTITY uintBitsToFloat(0xff800000u) // -inf
#define OP(a, b) max(a, b)
#else
#error "REDUCE_OP must be CS_REDUCE_OP_SUM, _MIN or _MAX"
#endif

#if CS_REDUCE_THREADS != 128 || (CS_REDUCE_ITEMS % 4) != 0
#error "the tree below folds 128 = 8 x 16 invocations of whole quads"
#endif

shared float partial[CS_REDUCE_THREADS];
shared float partial8[8];

void main()
{
    uint group = cs_linear_group();
    // At least one block, so an empty input still writes the identity.
    uint block_count = max(1u, (pc.count + CS_REDUCE_BLOCK - 1) / CS_REDUCE_BLOCK);
    if (group >= block_count)
        return;
    uint lid = gl_LocalInvocationIndex;

    uint i = group * CS_REDUCE_BLOCK + lid * CS_REDUCE_ITEMS;
    uint end = min(i + CS_REDUCE_ITEMS, pc.count);
    vec4 acc = vec4(IDENTITY);
    for (; i + 4 <= end; i += 4)
        acc = OP(acc, in_v[i / 4]);
    if (i < end) { // the last 1..3 elements: a quad padded with the identity
        vec4 q = vec4(IDENTITY);
        for (uint c = 0; c < 3; c++)
            if (i + c < end)
                q[c] = in_f[i + c];
        acc = OP(acc, q);
    }
    partial[lid] = OP(OP(acc.x, acc.y), OP(acc.z, acc.w));
    barrier();

    if (lid < 8) {
        float x[16];
        [[unroll]] for (uint k = 0; k < 16; k++)
            x[k] = partial[lid * 16 + k];
        [[unroll]] for (uint width = 8; width > 0; width /= 2)
            [[unroll]] for (uint k = 0; k < width; k++)
                x[k] = OP(x[2 * k], x[2 * k + 1]);
        partial8[lid] = x[0];
    }
    barrier();

    if (lid == 0) {
        float x[8];
        [[unroll]] for (uint k = 0; k < 8; k++)
            x[k] = partial8[k];
        [[unroll]] for (uint width = 4; width > 0; width /= 2)
            [[unroll]] for (uint k = 0; k < width; k++)
                x[k] = OP(x[2 * k], x[2 * k + 1]);
        out_f[pc.out_index + group] = x[0];
    }
}
