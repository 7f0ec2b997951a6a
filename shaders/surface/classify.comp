#version 450
// "surface: classify": per padded node p, which of its 3 forward edges the
// surface crosses and the case of the cell with min corner p; writes the
// counts the scans turn into output offsets. An invocation walks a run of
// CS_SURFACE_RUN nodes along x in one padded row, carrying the column of 4
// inside bits (y, z and their +1) from one node to the next: 4 field reads
// per node instead of 8, no index division per node.
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

// Inside bits of the column at padded (x, y..y+1, z..z+1): bit (dy + 2 dz).
uint column(int x, int y, int z)
{
    uint b = 0u;
    for (uint k = 0u; k < 4u; k++)
        if (surf_inside(ivec3(x, y + int(k & 1u), z + int(k >> 1))))
            b |= 1u << k;
    return b;
}

void main()
{
    uint t = cs_linear_index();
    if (t >= pc.dims.w)
        return;
    ivec3 n = surf_padded_dims();
    int runs = (n.x + CS_SURFACE_RUN - 1) / CS_SURFACE_RUN;
    int row = int(t) / runs;
    int y = row % n.y, z = row / n.y;
    int x0 = (int(t) % runs) * CS_SURFACE_RUN, x1 = min(x0 + CS_SURFACE_RUN, n.x);
    bool open = (pc.flags & CS_SURFACE_OPEN_BORDER) != 0u;
    uint col = column(x0, y, z);
    for (int x = x0; x < x1; x++) {
        // The 8 corners of the cell at q (corner c: x + (c & 1), column bit
        // c >> 1); corners 1, 2, 4 are the far ends of q's forward edges.
        // Beyond the lattice is outside.
        uint next = column(x + 1, y, z);
        uint bits = 0u;
        for (uint c = 0u; c < 8u; c++)
            bits |= (((c & 1u) != 0u ? next : col) >> (c >> 1) & 1u) << c;
        col = next;
        ivec3 q = ivec3(x, y, z);
        uint p = surf_padded_index(q);
        // Open border: only edges and cells between field nodes.
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
}
