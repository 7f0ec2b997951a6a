#version 450
// sky.frag — the sky (sky.glsl) in the direction of the pixel's eye ray:
// view direction (ndc.x / sx, ndc.y / sy, -1), or straight ahead for an
// orthographic camera, turned to the world by the view rows' transpose.
#include "render_shared.h"
#include "render_common.glsl"
#include "sky.glsl"

layout(push_constant) uniform Push { cs_render_sky_push pc; };

layout(location = 0) in vec2 in_ndc;
layout(location = 0) out vec4 out_color;

void main()
{
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 d = ortho ? vec3(0.0, 0.0, -1.0) : vec3(in_ndc.x / pc.proj.x, in_ndc.y / pc.proj.y, -1.0);
    vec3 w = normalize(d.x * pc.view_x.xyz + d.y * pc.view_y.xyz + d.z * pc.view_z.xyz);
    out_color = output_color(cs_sky(w), pc.modes.x);
}
