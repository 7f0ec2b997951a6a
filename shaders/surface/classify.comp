#version 450
// "surface: classify", second dispatch: per segment of CS_SURFACE_SEG
// padded nodes along a padded row (segment.glsl), how many vertices,
// triangles and active nodes (a crossed forward edge or a cell with
// triangles) its nodes have: vcount[s], tcount[s], active[s]. One
// invocation walks the segments of a padded row; the corners come from
// the inside bits of 4 rows (one new word a row a segment); only nodes whose
// cell has corners on both sides are classified one by one (a loop over
// their bits, so a segment away from the surface does no per-node work).
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SURFACE_GROUP) in;
layout(std430, binding = 0) readonly buffer Bits { uint inside_bits[]; };
layout(std430, binding = 1) readonly buffer Table { uint table[]; };
layout(std430, binding = 2) writeonly buffer VCount { uint vcount[]; };
layout(std430, binding = 3) writeonly buffer TCount { uint tcount[]; };
layout(std430, binding = 4) writeonly buffer Active { uint active_flag[]; };
layout(push_constant) uniform Push { cs_surface_push pc; };
// surface.glsl reads field[] only in functions this shader does not call.
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
        uint v = 0u, t = 0u, a = 0u;
        while (m != 0u) {
            int i = findLSB(m);
            m &= m - 1u;
            uint tris;
            uint inf = seg_classify(ivec3(x0 + i, y, z), seg_cell_bits(c, i), tris);
            uint mask = inf & 7u;
            v += uint(bitCount(mask));
            t += tris;
            a += (mask != 0u || tris != 0u) ? 1u : 0u;
        }
        vcount[s] = v;
        tcount[s] = t;
        active_flag[s] = a;
    }
}
