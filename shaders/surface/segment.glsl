// segment.glsl — a segment of the padded lattice: CS_SURFACE_SEG (32)
// consecutive padded nodes of one padded row, x from 32 * xb, numbered
// xb + (segments per row) * row. The second classify dispatch and compact
// walk the segments of a padded row per invocation; both get the inside bits
// of the cells' corners from the bit field that "surface: bits" wrote (one
// bit per field node, field order) and run the per-node classification only
// for nodes whose cell has corners on both sides. Needs `pc`
// (cs_surface_push), a readonly uint buffer `inside_bits[]` and the case
// table `table[]` declared before inclusion, and surface.glsl.
#ifndef SURFACE_SEGMENT_GLSL
#define SURFACE_SEGMENT_GLSL

// Segments per padded row.
int seg_per_row() { return (int(pc.dims.x) + 2 + CS_SURFACE_SEG - 1) / CS_SURFACE_SEG; }

// Words of the inside bits.
int seg_words() { return int((pc.dims.x * pc.dims.y * pc.dims.z + 31u) >> 5); }

// One padded row's inside bits, walked a segment at a time: segment xb
// needs the words holding field x in [32 xb - 1, 32 xb + 32), which are
// the previous segment's second word and one more, so a row of k segments
// reads k + 1 words.
struct seg_row { uint lo; int w; uint off; bool ok; };

seg_row seg_row_begin(int y, int z)
{
    ivec3 d = ivec3(pc.dims.xyz);
    seg_row r;
    r.ok = y >= 1 && y <= d.y && z >= 1 && z <= d.z && d.x >= 1;
    // Field linear index of padded x = 0 (field x = -1): at least -1.
    int l = -1 + d.x * ((y - 1) + d.y * (z - 1));
    r.w = l >> 5;            // -1 for l = -1
    r.off = uint(l & 31);
    uint lo = inside_bits[clamp(r.w, 0, seg_words() - 1)];
    r.lo = (r.ok && r.w >= 0) ? lo : 0u;
    return r;
}

// Bit i (0..31) of .x and bit 0 of .y: is padded node (x0 + i, y, z),
// i = 0..32, inside, for the next segment of the row (x0 = 32 xb, called
// for xb = 0, 1, ... in turn). Rows and nodes beyond the field (padding)
// are outside.
uvec2 seg_row_next(inout seg_row r, int x0)
{
    int words = seg_words();
    uint hi = inside_bits[clamp(r.w + 1, 0, words - 1)];
    hi = (r.ok && r.w + 1 < words) ? hi : 0u;
    uint b = (r.lo >> r.off) | ((hi << (31u - r.off)) << 1u);
    uint b32 = (hi >> r.off) & 1u;
    r.lo = hi;
    r.w++;
    // Valid: padded x in [1, nx].
    int nx = int(pc.dims.x);
    int first = max(1 - x0, 0), last = min(nx - x0, 31);
    uint valid = last < first ? 0u : ((0xffffffffu >> uint(31 - last)) & (0xffffffffu << uint(first)));
    bool v32 = x0 + 32 >= 1 && x0 + 32 <= nx;
    return uvec2(b & valid, v32 ? b32 : 0u);
}

// The 8 corner masks of the segment's cells: corner k (x + (k & 1), y +
// (k >> 1 & 1), z + (k >> 2 & 1)), bit i for the cell at x0 + i, from the
// four rows (y, z), (y + 1, z), (y, z + 1), (y + 1, z + 1).
struct seg_corners { uint c[8]; };

seg_corners seg_next(inout seg_row r0, inout seg_row r1, inout seg_row r2, inout seg_row r3, int x0)
{
    seg_corners s;
    uvec2 b0 = seg_row_next(r0, x0), b1 = seg_row_next(r1, x0), b2 = seg_row_next(r2, x0),
          b3 = seg_row_next(r3, x0);
    s.c[0] = b0.x;
    s.c[1] = (b0.x >> 1) | (b0.y << 31);
    s.c[2] = b1.x;
    s.c[3] = (b1.x >> 1) | (b1.y << 31);
    s.c[4] = b2.x;
    s.c[5] = (b2.x >> 1) | (b2.y << 31);
    s.c[6] = b3.x;
    s.c[7] = (b3.x >> 1) | (b3.y << 31);
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
