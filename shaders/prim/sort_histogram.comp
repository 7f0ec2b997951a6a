#version 450
// sort_histogram.comp — radix sort step 1: how many keys of each block have
// each digit. Written digit-major, hist[digit * block_count + block], so an
// exclusive scan of the whole table gives every (digit, block) its first
// output position: all smaller digits first, then earlier blocks.
#include "index.glsl"
#include "prim_shared.h"
#define WG_THREADS CS_SORT_THREADS
#include "prim_common.glsl"

layout(local_size_x = CS_SORT_THREADS) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys_u[]; };
layout(std430, binding = 0) readonly buffer Keys4 { uvec4 keys_v[]; };
layout(std430, binding = 1) writeonly buffer Hist { uint hist[]; };
layout(push_constant) uniform Push { cs_sort_push pc; };

#include "sort_common.glsl"

void main()
{
    uint group = cs_linear_group();
    if (group >= pc.block_count)
        return; // past the last block (folded dispatches round up)
    uint i, end;
    owned_range(group, i, end);
    uvec4 c8 = uvec4(0);
    for (; i + 4 <= end; i += 4) {
        uvec4 q = keys_v[i / 4];
        count8_add(c8, sort_digit(q.x));
        count8_add(c8, sort_digit(q.y));
        count8_add(c8, sort_digit(q.z));
        count8_add(c8, sort_digit(q.w));
    }
    for (; i < end; i++)
        count8_add(c8, sort_digit(keys_u[i]));

    uvec4 lo, hi;
    count8_widen(c8, lo, hi);
    wg_add2_first_subgroup(lo, hi);
    if (gl_SubgroupID != 0)
        return;
    for (uint d = gl_SubgroupInvocationID; d < CS_SORT_RADIX; d += gl_SubgroupSize)
        hist[d * pc.block_count + group] = count16_get(lo, hi, d);
}
