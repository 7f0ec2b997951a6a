#version 450
// "surface: classify", second dispatch: per segment of CS_SURFACE_SEG
// padded nodes along a padded row (segment.glsl), how many vertices,
// triangles and active nodes (a crossed forward edge or a cell with
// triangles) its nodes have: vcount[s], tcount[s], active[s]. The corners
// come from the inside bits (8 word loads a segment); only nodes whose
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
    uint s = cs_linear_index();
    if (s >= pc.dims.w)
        return;
    ivec3 n = surf_padded_dims();
    int per_row = seg_per_row();
    int row = int(s) / per_row;
    int x0 = (int(s) - row * per_row) * CS_SURFACE_SEG, y = row % n.y, z = row / n.y;
    seg_corners c = seg_load(x0, y, z);
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
