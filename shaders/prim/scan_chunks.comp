#version 450
// scan_chunks.comp — the downward step of one scan level: every chunk of
// CS_SCAN_ITEMS elements is scanned in order, starting from its offset
// (CS_SCAN_ADD_OFFSETS: offsets[chunk], the scanned chunk sums of the level
// above; else 0, when the whole input is one chunk):
//   out[i] = offsets[chunk] + in[chunk start] + ... + in[i - 1].
// The invocation that owns the last element writes the grand total
// (CS_SCAN_WRITE_TOTAL); an empty input writes 0. `in` and `out` may be the
// same buffer: each invocation reads every quad before writing it back.
#include "index.glsl"
#include "prim_shared.h"

layout(local_size_x = CS_SCAN_THREADS) in;
layout(std430, binding = 0) readonly buffer In { uint in_u[]; };
layout(std430, binding = 0) readonly buffer In4 { uvec4 in_v[]; };
layout(std430, binding = 1) writeonly buffer Out { uint out_u[]; };
layout(std430, binding = 1) writeonly buffer Out4 { uvec4 out_v[]; };
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 3) writeonly buffer Total { uint total_out[]; };
layout(push_constant) uniform Push { cs_scan_push pc; };

void main()
{
    uint chunk = cs_linear_index();
    uint i = chunk * CS_SCAN_ITEMS;
    bool write_total = (pc.flags & CS_SCAN_WRITE_TOTAL) != 0u;
    if (i >= pc.count) {
        if (pc.count == 0u && chunk == 0u && write_total)
            total_out[0] = 0u;
        return;
    }
    uint end = min(i + CS_SCAN_ITEMS, pc.count);
    uint run = (pc.flags & CS_SCAN_ADD_OFFSETS) != 0u ? offsets[chunk] : 0u;
    for (; i + 4 <= end; i += 4) {
        uvec4 q = in_v[i / 4];
        out_v[i / 4] = uvec4(run, run + q.x, run + q.x + q.y, run + q.x + q.y + q.z);
        run += (q.x + q.y) + (q.z + q.w);
    }
    for (; i < end; i++) {
        uint x = in_u[i];
        out_u[i] = run;
        run += x;
    }
    if (write_total && end == pc.count)
        total_out[0] = run;
}
