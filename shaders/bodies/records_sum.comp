#version 450
// "bodies: reduce", step 3 of 3: one workgroup per impulse slot sums the
// slot's contact records, which the stable sort (step 2) has put together
// in particle order: [lower_bound(slot), lower_bound(slot + 1)) of the
// sorted keys (binary searches). Invocation i adds the records i, i + 64,
// ... of the segment in order; eight invocations then fold eight of those
// each in order, and the first folds the eight. The shape depends only on
// the segment's length, so the same records give the same bits every run.
// Writes the 6 terms of the slot to sums[out_base + slot * 6 + term].
#include "index.glsl"
#include "bodies_shared.h"
layout(local_size_x = CS_BODY_REDUCE_GROUP) in;
layout(std430, binding = 0) readonly buffer Records { float impulses[]; };
layout(std430, binding = 1) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) readonly buffer Values { uint values[]; };
layout(std430, binding = 3) buffer Sums { float sums[]; };
layout(push_constant) uniform Push { cs_body_records_push pc; };

#if CS_BODY_REDUCE_GROUP != 64
#error "the fold below is 8 x 8 invocations"
#endif

shared float partial[CS_BODY_REDUCE_GROUP][CS_BODIES_IMPULSE_TERMS];

// The first sorted record whose key is >= key.
uint lower_bound(uint key)
{
    uint lo = 0u, hi = pc.records;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2u;
        if (keys[mid] < key)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

void main()
{
    uint slot = cs_linear_group();
    uint lane = gl_LocalInvocationID.x;
    uint begin = lower_bound(slot), end = lower_bound(slot + 1u);
    float acc[CS_BODIES_IMPULSE_TERMS] = float[](0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for (uint i = begin + lane; i < end; i += CS_BODY_REDUCE_GROUP) {
        uint at = values[i] * CS_BODY_RECORD_FLOATS;
        for (uint t = 0u; t < CS_BODIES_IMPULSE_TERMS; t++)
            acc[t] += impulses[at + 1u + t];
    }
    for (uint t = 0u; t < CS_BODIES_IMPULSE_TERMS; t++)
        partial[lane][t] = acc[t];
    barrier();
    if (lane < 8u) {
        for (uint t = 0u; t < CS_BODIES_IMPULSE_TERMS; t++) {
            float s = partial[lane * 8u][t];
            for (uint k = 1u; k < 8u; k++)
                s += partial[lane * 8u + k][t];
            acc[t] = s;
        }
    }
    barrier();
    if (lane < 8u)
        for (uint t = 0u; t < CS_BODIES_IMPULSE_TERMS; t++)
            partial[lane][t] = acc[t];
    barrier();
    if (lane == 0u && slot < pc.slots) {
        for (uint t = 0u; t < CS_BODIES_IMPULSE_TERMS; t++) {
            float s = partial[0][t];
            for (uint k = 1u; k < 8u; k++)
                s += partial[k][t];
            sums[pc.out_base + slot * CS_BODIES_IMPULSE_TERMS + t] = s;
        }
    }
}
