#version 450
// background.vert — one triangle covering the screen; v runs 0 (top row)
// to 1 (bottom row) across the viewport.
#include "render_shared.h"

layout(push_constant) uniform Push { cs_render_background_push pc; };

layout(location = 0) out float out_v;

void main()
{
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2)); // (0,0) (2,0) (0,2)
    gl_Position = vec4(p * 2.0 - 1.0, 1.0, 1.0);
    out_v = p.y;
}
