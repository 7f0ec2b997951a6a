#version 450
// box.vert — the domain box as 12 lines (24 vertices), generated from the
// vertex index: no vertex buffer.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_box_push pc; };

layout(location = 0) out float out_depth;   // view depth, for fog

// Corner index bits: x = bit 0, y = bit 1, z = bit 2.
const uint k_edges[24] = uint[](0, 1, 2, 3, 4, 5, 6, 7,   // along x
                                0, 2, 1, 3, 4, 6, 5, 7,   // along y
                                0, 4, 1, 5, 2, 6, 3, 7);  // along z

void main()
{
    uint corner = k_edges[gl_VertexIndex];
    vec3 p = mix(pc.box_min.xyz, pc.box_max.xyz, vec3(corner & 1u, (corner >> 1) & 1u, (corner >> 2) & 1u));
    bool ortho = (uint(pc.misc.y) & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 v = to_view(pc.view_x, pc.view_y, pc.view_z, p);
    gl_Position = to_clip(pc.proj, ortho, v);
    out_depth = -v.z;
}
