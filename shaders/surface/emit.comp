#version 450
// "surface: emit": one invocation per active node p. Writes the vertices of
// p's crossed forward edges at vbase[p] + (rank among them), so vertices
// come in global edge id order (3p + axis), and the triangles of the cell
// with min corner p at tbase[p] + k in table order. A triangle's corners
// are the vertices of its local edges' global edges: no vertex is made twice.
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

void emit_vertex(ivec3 q, int a, uint v)
{
    ivec3 e = ivec3(0);
    e[a] = 1;
    ivec3 qb = q + e;
    bool in_a = surf_inside(q);
    float fa, fb;
    bool ua = surf_usable(q, fa), ub = surf_usable(qb, fb);
    // Both ends usable: linear interpolation (fa != fb: one is > iso, the
    // other not). A padding, NaN or infinite end: the edge's midpoint.
    float t = (ua && ub) ? clamp((pc.iso - fa) / (fb - fa), float(CS_SURFACE_T_MIN), 1.0 - float(CS_SURFACE_T_MIN))
                         : 0.5;
    vec3 node = vec3(q - 1);
    node[a] += t;
    positions[v] = vec4(pc.origin.xyz + pc.origin.w * node, 1.0);
    // Outward normal: minus the gradient (inside is the larger field),
    // interpolated along the edge; along the edge, from the inside end to
    // the outside end, where the gradient is zero or not finite.
    vec3 g = -mix(surf_gradient(q), surf_gradient(qb), t);
    float len = length(g);
    vec3 nrm = (len > 0.0 && !isinf(len) && !isnan(len)) ? g / len : vec3(e) * (in_a ? 1.0 : -1.0);
    normals[v] = vec4(nrm, 0.0);
}

uint vertex_of(ivec3 q, int a)
{
    uint p = surf_padded_index(q);
    uint below = info[p] & ((1u << a) - 1u);
    return vbase[p] + bitCount(below);
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
    for (int a = 0; a < 3; a++)
        if ((inf & (1u << a)) != 0u)
            emit_vertex(q, a, v++);
    uint row = (inf >> CS_SURFACE_CASE_SHIFT) * CS_SURFACE_TABLE_STRIDE;
    uint tris = table[row];
    uint t = tbase[p];
    for (uint k = 0u; k < tris; k++, t++)
        for (uint j = 0u; j < 3u; j++) {
            uint e = table[row + 1u + 3u * k + j];
            indices[3u * t + j] = vertex_of(q + surf_edge_corner(e), surf_edge_axis(e));
        }
}
