#version 450
// field.vert — the 2D domain rectangle as two triangles (6 vertices from the
// vertex index, no vertex buffer), placed in clip space by the host; passes
// the position in cells to the fragment shader.
#include "render_shared.h"

layout(push_constant) uniform Push { cs_render_field_push pc; };

layout(location = 0) out vec2 out_cell;   // position in cells: (0,0) low corner, dims high corner

const vec2 k_corners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));

void main()
{
    vec2 uv = k_corners[gl_VertexIndex];
    vec2 clip = pc.corner_edge_x.xy + uv.x * pc.corner_edge_x.zw + uv.y * pc.edge_y_depth.xy;
    gl_Position = vec4(clip, pc.edge_y_depth.z, 1.0);
    out_cell = uv * vec2(pc.dims.xy);
}
