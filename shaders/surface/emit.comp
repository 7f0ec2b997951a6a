#version 450
// "surface: emit": one invocation per active node p. Writes the vertices of
// p's crossed forward edges at vbase[p] + (rank among them), so vertices
// come in global edge id order (3p + axis), and the triangles of the cell
// with min corner p at tbase[p] + k in table order. A triangle's corners
// are the vertices of its local edges' global edges: no vertex is made twice.
//
// Written for lavapipe, where every storage access is a loop over the
// lanes and a branch runs both sides: the field values the three possible
// vertices need (their ends and the ends' neighbours for the gradients, 19
// nodes) are read once, not once per vertex and gradient; the cell's 12
// edge vertices come from the info and vbase of the 7 nodes that own them
// (14 reads, not 2 per triangle corner); the case's triangles are one
// packed table row (2 u32). The arithmetic is the same as before, value
// for value, so the mesh is the same bits.
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SURFACE_GROUP) in;
layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 1) readonly buffer Table { uint table[]; };
layout(std430, binding = 2) readonly buffer Info { uint info[]; };
layout(std430, binding = 3) readonly buffer VBase { uint vbase[]; };
layout(std430, binding = 4) readonly buffer TBase { uint tbase[]; };
layout(std430, binding = 5) readonly buffer List { uint list[]; };
layout(std430, binding = 6) writeonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 7) writeonly buffer Normals { vec4 normals[]; };
layout(std430, binding = 8) writeonly buffer Indices { uint indices[]; };
layout(push_constant) uniform Push { cs_surface_push pc; };
#include "surface.glsl"

// A node's value and whether it is usable (in the grid and finite), as
// surf_usable; inside as surf_inside.
struct node_val { float f; bool usable; bool inside; };

node_val load_node(ivec3 q)
{
    float f;
    bool in_grid = surf_value(q, f);
    return node_val(f, in_grid && !isnan(f) && !isinf(f), in_grid && f > pc.iso);
}

// surf_gradient from the node and its 6 neighbours (-x, +x, -y, +y, -z, +z).
vec3 gradient(node_val c, node_val mx, node_val px, node_val my, node_val py, node_val mz, node_val pz)
{
    if (!c.usable)
        return vec3(0.0);
    node_val m[3] = node_val[3](mx, my, mz), p[3] = node_val[3](px, py, pz);
    vec3 g = vec3(0.0);
    for (int a = 0; a < 3; a++) {
        bool up = p[a].usable, um = m[a].usable;
        float h = pc.origin.w * float(int(up) + int(um));
        g[a] = h > 0.0 ? ((up ? p[a].f : c.f) - (um ? m[a].f : c.f)) / h : 0.0;
    }
    return g;
}

// As surf's emit_vertex, from values already read: the edge from q along
// axis a (unit vector e) to qb, gq and gb the gradients at its ends.
void emit_vertex(ivec3 q, int a, vec3 e, node_val na, node_val nb, vec3 gq, vec3 gb, uint v)
{
    float t = (na.usable && nb.usable) ? clamp((pc.iso - na.f) / (nb.f - na.f), float(CS_SURFACE_T_MIN),
                                               1.0 - float(CS_SURFACE_T_MIN))
                                       : 0.5;
    vec3 node = vec3(q - 1);
    node[a] += t;
    positions[v] = vec4(pc.origin.xyz + pc.origin.w * node, 1.0);
    vec3 g = -mix(gq, gb, t);
    float len = length(g);
    vec3 nrm = (len > 0.0 && !isinf(len) && !isnan(len)) ? g / len : e * (na.inside ? 1.0 : -1.0);
    normals[v] = vec4(nrm, 0.0);
}

void main()
{
    uint i = cs_linear_index();
    if (i >= pc.dims.w)
        return;
    uint p = list[i];
    ivec3 q = surf_padded_coord(p);
    uint inf = info[p];
    uint v = vbase[p];
    const ivec3 X = ivec3(1, 0, 0), Y = ivec3(0, 1, 0), Z = ivec3(0, 0, 1);

    // Vertices. The ends' neighbourhoods: 19 nodes around q.
    node_val c = load_node(q);
    node_val mx = load_node(q - X), px = load_node(q + X), my = load_node(q - Y), py = load_node(q + Y),
             mz = load_node(q - Z), pz = load_node(q + Z);
    node_val px2 = load_node(q + 2 * X), py2 = load_node(q + 2 * Y), pz2 = load_node(q + 2 * Z);
    node_val pxpy = load_node(q + X + Y), pxpz = load_node(q + X + Z), pypz = load_node(q + Y + Z);
    node_val pxmy = load_node(q + X - Y), pxmz = load_node(q + X - Z), pymx = load_node(q + Y - X),
             pymz = load_node(q + Y - Z), pzmx = load_node(q + Z - X), pzmy = load_node(q + Z - Y);
    vec3 gq = gradient(c, mx, px, my, py, mz, pz);
    if ((inf & 1u) != 0u)
        emit_vertex(q, 0, vec3(X), c, px, gq, gradient(px, c, px2, pxmy, pxpy, pxmz, pxpz), v++);
    if ((inf & 2u) != 0u)
        emit_vertex(q, 1, vec3(Y), c, py, gq, gradient(py, pymx, pxpy, c, py2, pymz, pypz), v++);
    if ((inf & 4u) != 0u)
        emit_vertex(q, 2, vec3(Z), c, pz, gq, gradient(pz, pzmx, pxpz, pzmy, pypz, c, pz2), v++);

    // Triangles. Local edge e runs along axis e / 4 from the corner whose
    // other axes (a+1, a+2) are bits 0 and 1 of e % 4: its vertex is
    // vbase + rank of the owning node (7 owners: every corner but (1,1,1)).
    uint cs = inf >> CS_SURFACE_CASE_SHIFT;
    uvec2 row = uvec2(table[CS_SURFACE_PACKED_TABLE + 2u * cs], table[CS_SURFACE_PACKED_TABLE + 2u * cs + 1u]);
    uint tris = row.x & 7u;
    if (tris == 0u)
        return;
    uint last = uint(pc.padded_count) - 1u;
    ivec3 n = surf_padded_dims();
    uint sx = 1u, sy = uint(n.x), sz = uint(n.x * n.y);
    // Owners by corner offset (dx + 2 dy + 4 dz): 0 is p itself.
    uint o_x = min(p + sx, last), o_y = min(p + sy, last), o_z = min(p + sz, last);
    uint o_xy = min(p + sx + sy, last), o_xz = min(p + sx + sz, last), o_yz = min(p + sy + sz, last);
    uint i_x = info[o_x], i_y = info[o_y], i_z = info[o_z], i_xy = info[o_xy], i_xz = info[o_xz], i_yz = info[o_yz];
    uint b_x = vbase[o_x], b_y = vbase[o_y], b_z = vbase[o_z], b_xy = vbase[o_xy], b_xz = vbase[o_xz],
         b_yz = vbase[o_yz];
    // Rank of axis a at a node: popcount(info & below(a)).
    uint b0 = vbase[p];
    uint ev[12];
    // Axis x (e 0..3): bit 0 = y, bit 1 = z.
    ev[0] = b0;
    ev[1] = b_y;
    ev[2] = b_z;
    ev[3] = b_yz;
    // Axis y (e 4..7): bit 0 = z, bit 1 = x; rank: the x edge below.
    ev[4] = b0 + (inf & 1u);
    ev[5] = b_z + (i_z & 1u);
    ev[6] = b_x + (i_x & 1u);
    ev[7] = b_xz + (i_xz & 1u);
    // Axis z (e 8..11): bit 0 = x, bit 1 = y; rank: the x and y edges below.
    ev[8] = b0 + uint(bitCount(inf & 3u));
    ev[9] = b_x + uint(bitCount(i_x & 3u));
    ev[10] = b_y + uint(bitCount(i_y & 3u));
    ev[11] = b_xy + uint(bitCount(i_xy & 3u));
    uint t = tbase[p];
    // Edges 0..6 in row.x from bit 4, 7..14 in row.y: 4 bits each.
    for (uint k = 0u; k < tris; k++, t++)
        for (uint j = 0u; j < 3u; j++) {
            uint slot = 3u * k + j;
            uint e = slot < 7u ? (row.x >> (4u + 4u * slot)) & 15u : (row.y >> (4u * (slot - 7u))) & 15u;
            indices[3u * t + j] = ev[e];
        }
}
