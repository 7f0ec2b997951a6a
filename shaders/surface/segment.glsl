// segment.glsl — a segment of the padded lattice: CS_SURFACE_SEG (32)
// consecutive padded nodes of one padded row, x from 32 * xb. "surface:
// count" and "surface: fill" walk the segments; both get the inside bits
// of the cells' corners from the bit field that "surface: bits" wrote (one
// bit per field node, field order) and run the per-node classification only
// for nodes whose cell has corners on both sides. Needs `pc`
// (cs_surface_push), a readonly uint buffer `inside_bits[]` and the case
// table `table[]` declared before inclusion, and surface.glsl.
#ifndef SURFACE_SEGMENT_GLSL
#define SURFACE_SEGMENT_GLSL

// Segments per padded row, and in the whole lattice.
int seg_per_row() { return (int(pc.dims.x) + 2 + CS_SURFACE_SEG - 1) / CS_SURFACE_SEG; }

// Bit i (0..31) of .x and bit 0 of .y: is padded node (x0 + i, y, z),
// i = 0..32, inside. Rows and nodes beyond the field (padding) are outside.
uvec2 seg_row_bits(int x0, int y, int z)
{
    ivec3 d = ivec3(pc.dims.xyz);
    if (y < 1 || y > d.y || z < 1 || z > d.z || d.x < 1)
        return uvec2(0u);
    // Field linear index of padded x0 (field x = x0 - 1): at least -1.
    int l = (x0 - 1) + d.x * ((y - 1) + d.y * (z - 1));
    int w = l >> 5;          // -1 for l = -1
    uint off = uint(l & 31);
    int words = int((pc.dims.x * pc.dims.y * pc.dims.z + 31u) >> 5);
    uint lo = inside_bits[max(w, 0)];
    lo = w < 0 ? 0u : lo;
    uint hi = inside_bits[min(w + 1, words - 1)];
    hi = w + 1 < words ? hi : 0u;
    uint b = (lo >> off) | ((hi << (31u - off)) << 1u);
    uint b32 = (hi >> off) & 1u;
    // Valid: padded x in [1, nx].
    int first = max(1 - x0, 0), last = min(d.x - x0, 31);
    uint valid = last < first ? 0u : ((0xffffffffu >> uint(31 - last)) & (0xffffffffu << uint(first)));
    bool v32 = x0 + 32 >= 1 && x0 + 32 <= d.x;
    return uvec2(b & valid, v32 ? b32 : 0u);
}

// The 8 corner masks of the segment's cells: corner k (x + (k & 1), y +
// (k >> 1 & 1), z + (k >> 2 & 1)), bit i for the cell at x0 + i.
struct seg_corners { uint c[8]; };

seg_corners seg_load(int x0, int y, int z)
{
    seg_corners s;
    for (int k = 0; k < 4; k++) {
        uvec2 r = seg_row_bits(x0, y + (k & 1), z + (k >> 1));
        s.c[2 * k] = r.x;
        s.c[2 * k + 1] = (r.x >> 1) | (r.y << 31);
    }
    return s;
}

// Nodes whose cell has corners on both sides: every node with a crossed
// forward edge or a cell with triangles is one of them.
uint seg_candidates(seg_corners s)
{
    uint any = 0u, all = 0xffffffffu;
    for (int k = 0; k < 8; k++) {
        any |= s.c[k];
        all &= s.c[k];
    }
    return any & ~all;
}

// As "surface: classify" did per node: the crossed-edge mask (bits 0..2)
// and the case of padded node q's cell from its corner bits (corner c at
// bit c), with the lattice's and the open border's conditions.
uint seg_classify(ivec3 q, uint bits, out uint tris)
{
    ivec3 n = surf_padded_dims();
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
    tris = table[cs * CS_SURFACE_TABLE_STRIDE];
    return mask | (cs << CS_SURFACE_CASE_SHIFT);
}

uint seg_cell_bits(seg_corners s, int i)
{
    uint bits = 0u;
    for (int k = 0; k < 8; k++)
        bits |= ((s.c[k] >> uint(i)) & 1u) << uint(k);
    return bits;
}

#endif
