#version 450
// sky.vert — one triangle covering the screen at the far plane; passes the
// pixel's normalised device x, y on.
#include "render_shared.h"

layout(push_constant) uniform Push { cs_render_sky_push pc; };

layout(location = 0) out vec2 out_ndc;

void main()
{
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2)); // (0,0) (2,0) (0,2)
    out_ndc = p * 2.0 - 1.0;
    gl_Position = vec4(out_ndc, 1.0, 1.0);
}
