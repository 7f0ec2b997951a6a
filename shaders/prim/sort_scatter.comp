#version 450
// sort_scatter.comp — radix sort step 3: every key (with its value) goes to
//   offsets[digit * block_count + block]            (scanned histogram)
//   + keys of that digit in earlier invocations     (workgroup scan)
//   + keys of that digit earlier in this invocation (running count).
// Each invocation owns contiguous elements and walks them in order, and
// ranks come from scans, not atomics: equal digits keep their input order,
// so the sort is stable and the same every run. Keys are read twice (count,
// then place) rather than kept in an array across the barriers, which
// lavapipe would have to save and restore per SIMD batch.
#include "index.glsl"
#include "prim_shared.h"
#define WG_THREADS CS_SORT_THREADS
#include "prim_common.glsl"

layout(local_size_x = CS_SORT_THREADS) in;
layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in_u[]; };
layout(std430, binding = 0) readonly buffer KeysIn4 { uvec4 keys_in_v[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in_u[]; };
layout(std430, binding = 1) readonly buffer ValuesIn4 { uvec4 values_in_v[]; };
layout(std430, binding = 2) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 3) writeonly buffer ValuesOut { uint values_out[]; };
layout(std430, binding = 4) readonly buffer Offsets { uint offsets[]; };
layout(push_constant) uniform Push { cs_sort_push pc; };

#include "sort_common.glsl"

shared uint block_base[CS_SORT_RADIX];

void main()
{
    uint group = cs_linear_group();
    if (group >= pc.block_count)
        return; // past the last block (folded dispatches round up)
    // Made visible by the barriers inside wg_exclusive_add2.
    if (gl_LocalInvocationIndex < CS_SORT_RADIX)
        block_base[gl_LocalInvocationIndex] = offsets[gl_LocalInvocationIndex * pc.block_count + group];

    uint first, end;
    owned_range(group, first, end);
    uvec4 c8 = uvec4(0);
    uint i = first;
    for (; i + 4 <= end; i += 4) {
        uvec4 q = keys_in_v[i / 4];
        count8_add(c8, sort_digit(q.x));
        count8_add(c8, sort_digit(q.y));
        count8_add(c8, sort_digit(q.z));
        count8_add(c8, sort_digit(q.w));
    }
    for (; i < end; i++)
        count8_add(c8, sort_digit(keys_in_u[i]));

    // lo/hi become, per digit, the keys owned by earlier invocations.
    uvec4 lo, hi, total_lo, total_hi;
    count8_widen(c8, lo, hi);
    wg_exclusive_add2(lo, hi, total_lo, total_hi);

    uvec4 run = uvec4(0); // count8: keys of each digit placed so far here
    i = first;
    for (; i + 4 <= end; i += 4) {
        uvec4 q = keys_in_v[i / 4];
        uvec4 v = values_in_v[i / 4];
        for (uint c = 0; c < 4; c++) {
            uint d = sort_digit(q[c]);
            uint pos = block_base[d] + count16_get(lo, hi, d) + count8_get(run, d);
            count8_add(run, d);
            keys_out[pos] = q[c];
            values_out[pos] = v[c];
        }
    }
    for (; i < end; i++) {
        uint key = keys_in_u[i];
        uint d = sort_digit(key);
        uint pos = block_base[d] + count16_get(lo, hi, d) + count8_get(run, d);
        count8_add(run, d);
        keys_out[pos] = key;
        values_out[pos] = values_in_u[i];
    }
}
