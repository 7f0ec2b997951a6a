#version 450
// sort8_scatter.comp — 8-bit radix sort step 3: every key (with its value)
// of the block goes to its stable position, in three steps:
//  1. each subgroup counts the digits of its own contiguous run of the
//     block (shared-memory atomics: counts only, the order they land in does
//     not matter);
//  2. per digit, the subgroups' counts are turned into each subgroup's first
//     output position: the scanned histogram offsets[digit * block_count +
//     block] plus the counts of earlier subgroups, added in subgroup order;
//  3. each subgroup walks its run row by row, one key per lane, lanes in
//     input order. Ballots over the digit's bits give every lane the mask of
//     lanes holding the same digit; its rank is the number of those below it.
//     The highest of them moves the subgroup's next position for that digit
//     on past the row.
// Every rank follows input order (rows in order, lanes in order, subgroups
// in order), so equal digits keep their order: stable, and the same every
// run. Keys are read twice (count, then place) as in sort_scatter.comp.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "index.glsl"
#include "prim_shared.h"

#ifndef SORT8_MAX_SUBGROUPS
#error "cs_sort_create defines SORT8_MAX_SUBGROUPS from the device's smallest subgroup size"
#endif
#ifndef SORT8_BLOCK
#error "cs_sort_create defines SORT8_BLOCK, the keys per block it chose for the device"
#endif

layout(local_size_x = CS_SORT8_THREADS) in;
layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 3) writeonly buffer ValuesOut { uint values_out[]; };
layout(std430, binding = 4) readonly buffer Offsets { uint offsets[]; };
layout(push_constant) uniform Push { cs_sort_push pc; };

// Row s * RADIX + d: subgroup s's count of digit d (step 1), then its next
// output position for digit d (steps 2 and 3). Each row is touched by its
// own subgroup only, except in step 2 (between the two barriers).
shared uint subgroup_next[SORT8_MAX_SUBGROUPS * CS_SORT8_RADIX];

uint digit_of(uint key)
{
    return bitfieldExtract(key, int(pc.shift), int(pc.bits));
}

// The lanes whose digit equals this lane's, among the lanes where `valid`.
uvec4 lanes_with_same_digit(bool valid, uint digit)
{
    uvec4 same = subgroupBallot(valid);
    for (uint b = 0u; b < pc.bits; b++) {
        bool bit = bitfieldExtract(digit, int(b), 1) != 0u;
        uvec4 ones = subgroupBallot(bit);
        same &= bit ? ones : ~ones;
    }
    return same;
}

void main()
{
    uint group = cs_linear_group();
    if (group >= pc.block_count)
        return; // past the last block (folded dispatches round up); the whole workgroup leaves
    uint radix = 1u << pc.bits; // the last pass may have fewer bits
    uint lane = gl_SubgroupInvocationID, lanes = gl_SubgroupSize;
    uint row = gl_SubgroupID * CS_SORT8_RADIX;
    // This subgroup's run [run_first, run_end): subgroups own equal
    // contiguous parts of the block, in subgroup order (SORT8_BLOCK is a
    // power of two of at least 128, so every run is whole and not empty).
    uint run_length = SORT8_BLOCK / gl_NumSubgroups;
    uint run_first = group * SORT8_BLOCK + gl_SubgroupID * run_length;
    uint run_end = min(run_first + run_length, pc.count);

    // 1. Count.
    for (uint d = lane; d < radix; d += lanes)
        subgroup_next[row + d] = 0u;
    subgroupBarrier(); // the zeros before any lane's additions
    for (uint i = run_first + lane; i < run_end; i += lanes)
        atomicAdd(subgroup_next[row + digit_of(keys_in[i])], 1u);
    barrier();

    // 2. Counts to first positions, subgroup after subgroup.
    for (uint d = gl_LocalInvocationIndex; d < radix; d += CS_SORT8_THREADS) {
        uint next = offsets[d * pc.block_count + group];
        for (uint s = 0u; s < gl_NumSubgroups; s++) {
            uint count = subgroup_next[s * CS_SORT8_RADIX + d];
            subgroup_next[s * CS_SORT8_RADIX + d] = next;
            next += count;
        }
    }
    barrier();

    // 3. Rank and place, row by row (the loop is uniform in the subgroup,
    // as the ballots and subgroup barriers need).
    for (uint row_first = run_first; row_first < run_end; row_first += lanes) {
        uint i = row_first + lane;
        bool valid = i < run_end;
        uint key = valid ? keys_in[i] : 0u;
        uint digit = digit_of(key);
        uvec4 same = lanes_with_same_digit(valid, digit);
        uint below = subgroupBallotExclusiveBitCount(same);
        uint pos = valid ? subgroup_next[row + digit] + below : 0u;
        subgroupBarrier(); // every lane has read its digit's position before one moves it
        if (valid) {
            if (below + 1u == subgroupBallotBitCount(same))
                subgroup_next[row + digit] = pos + 1u; // the last lane of this digit
            keys_out[pos] = key;
            values_out[pos] = values_in[i];
        }
        subgroupBarrier(); // the moved positions before the next row reads them
    }
}
