#version 450
// scan_sums.comp — the upward step of one scan level: the sum of every
// chunk of CS_SCAN_ITEMS elements, sums[c] = in[c * ITEMS] + ... (the last
// chunk may be short). No shared memory and no barrier: on lavapipe a
// barrier turns the shader into coroutines that cost more than the whole
// upper level this design adds instead.
#include "index.glsl"
#include "prim_shared.h"

layout(local_size_x = CS_SCAN_THREADS) in;
// One buffer, two views: uvec4 for whole quads, uint for the ragged end.
layout(std430, binding = 0) readonly buffer In { uint in_u[]; };
layout(std430, binding = 0) readonly buffer In4 { uvec4 in_v[]; };
layout(std430, binding = 1) writeonly buffer Sums { uint sums[]; };
layout(push_constant) uniform Push { cs_scan_push pc; };

void main()
{
    uint chunk = cs_linear_index();
    uint i = chunk * CS_SCAN_ITEMS;
    if (i >= pc.count)
        return;
    uint end = min(i + CS_SCAN_ITEMS, pc.count);
    uint sum = 0;
    for (; i + 4 <= end; i += 4) {
        uvec4 q = in_v[i / 4];
        sum += (q.x + q.y) + (q.z + q.w);
    }
    for (; i < end; i++)
        sum += in_u[i];
    sums[chunk] = sum;
}
