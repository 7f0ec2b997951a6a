// sort_common.glsl — what the radix sort's histogram and scatter passes
// share: the digit of a key, and digit counters packed several to a uint.
//
// Counters are read and written through selects, never a dynamic index:
// they stay in registers (lavapipe turns a per-invocation dynamic index into
// a scalar loop over its SIMD lanes).
//  - count8: one invocation's counts, 16 digits x 8 bits in a uvec4 (digit d
//    in component d / 4, byte d % 4); an invocation owns at most 255 keys.
//  - count16: workgroup counts, 16 digits x 16 bits in two uvec4s lo, hi
//    (word w = 2 * (d / 4) + d % 2 of the eight, half (d / 2) % 2); a block
//    holds at most 65535 keys, so a field never carries into its neighbour.
//    This layout makes widening a count8 two masks and a shift.
#ifndef SORT_COMMON_GLSL
#define SORT_COMMON_GLSL

#if CS_SORT_ITEMS > 255 || CS_SORT_BLOCK > 65535 || (CS_SORT_ITEMS % 4) != 0
#error "counters must not overflow: at most 255 keys per invocation, 65535 per block, whole quads"
#endif

uint sort_digit(uint key)
{
    return bitfieldExtract(key, int(pc.shift), int(pc.bits));
}

void count8_add(inout uvec4 c, uint d)
{
    uint inc = 1u << ((d & 3u) * 8u);
    uint w = d >> 2;
    c.x += w == 0u ? inc : 0u;
    c.y += w == 1u ? inc : 0u;
    c.z += w == 2u ? inc : 0u;
    c.w += w == 3u ? inc : 0u;
}

uint count8_get(uvec4 c, uint d)
{
    uint w = d >> 2;
    uint x = w == 0u ? c.x : w == 1u ? c.y : w == 2u ? c.z : c.w;
    return (x >> ((d & 3u) * 8u)) & 0xffu;
}

void count8_widen(uvec4 c, out uvec4 lo, out uvec4 hi)
{
    const uint m = 0x00ff00ffu;
    lo = uvec4(c.x & m, (c.x >> 8) & m, c.y & m, (c.y >> 8) & m);
    hi = uvec4(c.z & m, (c.z >> 8) & m, c.w & m, (c.w >> 8) & m);
}

uint count16_get(uvec4 lo, uvec4 hi, uint d)
{
    uint w = 2u * (d >> 2) + (d & 1u);
    uvec4 h = w < 4u ? lo : hi;
    uint q = w & 3u;
    uint x = q == 0u ? h.x : q == 1u ? h.y : q == 2u ? h.z : h.w;
    return (x >> (((d >> 1) & 1u) * 16u)) & 0xffffu;
}

// The elements this invocation owns: [first, end) of its workgroup's block.
// Walked in order, quads first, so equal digits keep their input order.
void owned_range(uint group, out uint first, out uint end)
{
    first = group * CS_SORT_BLOCK + wg_rank() * CS_SORT_ITEMS;
    end = min(first + CS_SORT_ITEMS, pc.count);
    first = min(first, end);
}

#endif
