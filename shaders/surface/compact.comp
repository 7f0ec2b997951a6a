#version 450
// "surface: compact": per segment (segment.glsl; an invocation walks the
// segments of a padded row, as classify does), from the scanned segment
// counts (vbase, tbase, abase of the segment's first node), the node arrays
// emit reads, for the segment's active nodes only: info[p] (crossed-edge
// mask, case), vbase[p], tbase[p], and list[abase] = p in index order. Each
// slot is written once. Nodes that are not active are never read by emit.
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SURFACE_GROUP) in;
layout(std430, binding = 0) readonly buffer Bits { uint inside_bits[]; };
layout(std430, binding = 1) readonly buffer Table { uint table[]; };
layout(std430, binding = 2) readonly buffer SegV { uint seg_vbase[]; };
layout(std430, binding = 3) readonly buffer SegT { uint seg_tbase[]; };
layout(std430, binding = 4) readonly buffer SegA { uint seg_abase[]; };
layout(std430, binding = 5) writeonly buffer Info { uint info[]; };
layout(std430, binding = 6) writeonly buffer VBase { uint vbase[]; };
layout(std430, binding = 7) writeonly buffer TBase { uint tbase[]; };
layout(std430, binding = 8) writeonly buffer List { uint list[]; };
layout(push_constant) uniform Push { cs_surface_push pc; };
float field[1];
#include "surface.glsl"
#include "segment.glsl"

void main()
{
    uint row = cs_linear_index();
    if (row >= pc.dims.w)
        return;
    ivec3 n = surf_padded_dims();
    int y = int(row) % n.y, z = int(row) / n.y;
    int per_row = seg_per_row();
    seg_row r0 = seg_row_begin(y, z), r1 = seg_row_begin(y + 1, z), r2 = seg_row_begin(y, z + 1),
            r3 = seg_row_begin(y + 1, z + 1);
    for (int xb = 0; xb < per_row; xb++) {
        int x0 = xb * CS_SURFACE_SEG;
        uint s = row * uint(per_row) + uint(xb);
        seg_corners c = seg_next(r0, r1, r2, r3, x0);
        uint m = seg_candidates(c);
        uint v = seg_vbase[s], t = seg_tbase[s], a = seg_abase[s];
        while (m != 0u) {
            int i = findLSB(m);
            m &= m - 1u;
            uint tris;
            ivec3 q = ivec3(x0 + i, y, z);
            uint inf = seg_classify(q, seg_cell_bits(c, i), tris);
            uint mask = inf & 7u;
            if (mask != 0u || tris != 0u) {
                uint p = surf_padded_index(q);
                info[p] = inf;
                vbase[p] = v;
                tbase[p] = t;
                list[a] = p;
                v += uint(bitCount(mask));
                t += tris;
                a++;
            }
        }
    }
}
