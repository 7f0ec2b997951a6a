#version 450
// "surface: classify": per padded node p, which of its 3 forward edges the
// surface crosses and the case of the cell with min corner p; writes the
// counts the scans turn into output offsets.
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SURFACE_GROUP) in;
layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 1) readonly buffer Table { uint table[]; };
layout(std430, binding = 2) writeonly buffer Info { uint info[]; };
layout(std430, binding = 3) writeonly buffer VCount { uint vcount[]; };
layout(std430, binding = 4) writeonly buffer TCount { uint tcount[]; };
layout(std430, binding = 5) writeonly buffer Active { uint active_flag[]; };
layout(push_constant) uniform Push { cs_surface_push pc; };
#include "surface.glsl"

void main()
{
    uint p = cs_linear_index();
    if (p >= pc.padded_count)
        return;
    ivec3 q = surf_padded_coord(p);
    ivec3 n = surf_padded_dims();
    // The 8 corners of the cell at q, read once: corners 1, 2, 4 are also
    // the far ends of q's forward edges. Beyond the lattice is outside.
    uint bits = 0u;
    for (uint c = 0u; c < 8u; c++)
        if (surf_inside(q + surf_corner(c)))
            bits |= 1u << c;
    // Open border: only edges and cells between field nodes.
    bool open = (pc.flags & CS_SURFACE_OPEN_BORDER) != 0u;
    bool q_in = surf_in_grid(q);
    uint mask = 0u;
    for (int a = 0; a < 3; a++) {
        ivec3 e = ivec3(0);
        e[a] = 1;
        bool crossed = ((bits ^ (bits >> (1u << a))) & 1u) != 0u;
        if (crossed && q[a] + 1 < n[a] && (!open || (q_in && surf_in_grid(q + e))))
            mask |= 1u << a;
    }
    uint cs = 0u;
    if (all(lessThan(q + 1, n)) && (!open || (q_in && surf_in_grid(q + 1))))
        cs = bits;
    uint tris = table[cs * CS_SURFACE_TABLE_STRIDE];
    info[p] = mask | (cs << CS_SURFACE_CASE_SHIFT);
    vcount[p] = bitCount(mask);
    tcount[p] = tris;
    active_flag[p] = (mask != 0u || tris != 0u) ? 1u : 0u;
}
