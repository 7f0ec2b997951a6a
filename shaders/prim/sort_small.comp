#version 450
// sort_small.comp — the whole radix sort of one block (count <=
// CS_SORT_BLOCK) in one workgroup and one dispatch: every 4-bit pass counts,
// scans and scatters like sort_histogram + the histogram scan +
// sort_scatter do for a single block, so the result is the same stable
// order, bit for bit. At small sizes the multi-block sort's 3 dispatches and
// 3 barriers a pass cost more than the sorting (lavapipe: tens of
// microseconds each). Passes ping-pong between keys/values and the scratch
// pair inside the workgroup (coherent buffers, a buffer barrier between
// passes); an odd number of passes ends with a copy back.
#include "index.glsl"
#include "prim_shared.h"
#define WG_THREADS CS_SORT_THREADS
#include "prim_common.glsl"

layout(local_size_x = CS_SORT_THREADS) in;
layout(std430, binding = 0) coherent buffer Keys { uint keys_u[]; };
layout(std430, binding = 0) coherent buffer Keys4 { uvec4 keys_v[]; };
layout(std430, binding = 1) coherent buffer Values { uint values_u[]; };
layout(std430, binding = 1) coherent buffer Values4 { uvec4 values_v[]; };
layout(std430, binding = 2) coherent buffer KeysTmp { uint tmp_keys_u[]; };
layout(std430, binding = 2) coherent buffer KeysTmp4 { uvec4 tmp_keys_v[]; };
layout(std430, binding = 3) coherent buffer ValuesTmp { uint tmp_values_u[]; };
layout(std430, binding = 3) coherent buffer ValuesTmp4 { uvec4 tmp_values_v[]; };
// count, 1 block, shift unused, bits = all key bits of the sort.
layout(push_constant) uniform Push { cs_sort_push sort_in; };

// The pass being run (sort_common.glsl's sort_digit reads pc.shift, pc.bits).
cs_sort_push pc;

#include "sort_common.glsl"

shared uint block_base[CS_SORT_RADIX];

uvec4 load_keys4(bool from_tmp, uint q) { return from_tmp ? tmp_keys_v[q] : keys_v[q]; }
uvec4 load_values4(bool from_tmp, uint q) { return from_tmp ? tmp_values_v[q] : values_v[q]; }
uint load_key(bool from_tmp, uint i) { return from_tmp ? tmp_keys_u[i] : keys_u[i]; }
uint load_value(bool from_tmp, uint i) { return from_tmp ? tmp_values_u[i] : values_u[i]; }

void store(bool to_tmp, uint pos, uint key, uint value)
{
    if (to_tmp) {
        tmp_keys_u[pos] = key;
        tmp_values_u[pos] = value;
    } else {
        keys_u[pos] = key;
        values_u[pos] = value;
    }
}

// One pass over this invocation's elements [first, end), from one pair to the other.
void sort_pass(bool from_tmp, uint first, uint end)
{
    uvec4 c8 = uvec4(0);
    uint i = first;
    for (; i + 4 <= end; i += 4) {
        uvec4 q = load_keys4(from_tmp, i / 4);
        count8_add(c8, sort_digit(q.x));
        count8_add(c8, sort_digit(q.y));
        count8_add(c8, sort_digit(q.z));
        count8_add(c8, sort_digit(q.w));
    }
    for (; i < end; i++)
        count8_add(c8, sort_digit(load_key(from_tmp, i)));

    uvec4 lo, hi, total_lo, total_hi;
    count8_widen(c8, lo, hi);
    wg_exclusive_add2(lo, hi, total_lo, total_hi);
    // The block's digit offsets: the exclusive scan of its digit totals
    // (the multi-block sort's histogram scan with one block).
    if (gl_LocalInvocationIndex == 0u) {
        uint run = 0u;
        for (uint d = 0u; d < CS_SORT_RADIX; d++) {
            block_base[d] = run;
            run += count16_get(total_lo, total_hi, d);
        }
    }
    barrier();

    uvec4 run = uvec4(0);
    i = first;
    for (; i + 4 <= end; i += 4) {
        uvec4 q = load_keys4(from_tmp, i / 4);
        uvec4 v = load_values4(from_tmp, i / 4);
        for (uint c = 0; c < 4; c++) {
            uint d = sort_digit(q[c]);
            uint pos = block_base[d] + count16_get(lo, hi, d) + count8_get(run, d);
            count8_add(run, d);
            store(!from_tmp, pos, q[c], v[c]);
        }
    }
    for (; i < end; i++) {
        uint key = load_key(from_tmp, i);
        uint d = sort_digit(key);
        uint pos = block_base[d] + count16_get(lo, hi, d) + count8_get(run, d);
        count8_add(run, d);
        store(!from_tmp, pos, key, load_value(from_tmp, i));
    }
}

void main()
{
    pc = sort_in;
    uint first, end;
    owned_range(0u, first, end);
    uint passes = (sort_in.bits + CS_SORT_RADIX_BITS - 1u) / CS_SORT_RADIX_BITS;
    for (uint p = 0u; p < passes; p++) {
        pc.shift = p * CS_SORT_RADIX_BITS;
        pc.bits = min(uint(CS_SORT_RADIX_BITS), sort_in.bits - pc.shift);
        sort_pass((p & 1u) == 1u, first, end);
        // Every invocation's writes before anyone reads the next pass's
        // input (and before the shared sums are used again).
        memoryBarrierBuffer();
        barrier();
    }
    if ((passes & 1u) == 1u) {
        for (uint i = first; i < end; i++) {
            keys_u[i] = tmp_keys_u[i];
            values_u[i] = tmp_values_u[i];
        }
    }
}
