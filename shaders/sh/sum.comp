#version 450
// sum.comp — second level of the SH projection: workgroup v folds row v of
// the partials (partial_count values) into coeffs[v]. Invocation j sums a
// contiguous run of ceil(count / THREADS) partials in order; 16 invocations
// then fold 16 of those each pairwise, and one folds the 16 results
// pairwise. The shape depends only on the count, so the same environment
// gives the same bits every run.
#extension GL_EXT_control_flow_attributes : require
#include "index.glsl"
#include "sh_shared.h"

layout(local_size_x = CS_SH_SUM_THREADS) in;
layout(std430, binding = 0) readonly buffer Partials { float partials[]; };
layout(std430, binding = 1) writeonly buffer Coeffs { float coeffs[]; };
layout(push_constant) uniform Push { cs_sh_sum_push pc; };

#if CS_SH_SUM_THREADS != 256
#error "the tree below folds 256 = 16 x 16 invocations"
#endif

shared float partial[CS_SH_SUM_THREADS];
shared float partial16[16];

void main()
{
    uint v = cs_linear_group();
    if (v >= CS_SH_VALUES)
        return;
    uint lid = gl_LocalInvocationIndex;
    uint count = pc.partial_count;
    uint run = (count + CS_SH_SUM_THREADS - 1) / CS_SH_SUM_THREADS;
    uint begin = min(lid * run, count), end = min(begin + run, count);
    float acc = 0.0;
    for (uint i = begin; i < end; i++)
        acc += partials[v * count + i];
    partial[lid] = acc;
    barrier();

    if (lid < 16) {
        float x[16];
        [[unroll]] for (uint k = 0; k < 16; k++)
            x[k] = partial[lid * 16 + k];
        [[unroll]] for (uint width = 8; width > 0; width /= 2)
            [[unroll]] for (uint k = 0; k < width; k++)
                x[k] = x[2 * k] + x[2 * k + 1];
        partial16[lid] = x[0];
    }
    barrier();

    if (lid == 0) {
        float x[16];
        [[unroll]] for (uint k = 0; k < 16; k++)
            x[k] = partial16[k];
        [[unroll]] for (uint width = 8; width > 0; width /= 2)
            [[unroll]] for (uint k = 0; k < width; k++)
                x[k] = x[2 * k] + x[2 * k + 1];
        coeffs[v] = x[0];
    }
}
