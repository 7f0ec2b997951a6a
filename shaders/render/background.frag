#version 450
// background.frag — a vertical gradient between two colours.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_background_push pc; };

layout(location = 0) in float out_v;
layout(location = 0) out vec4 out_color;

void main()
{
    out_color = output_color(mix(pc.top.rgb, pc.bottom.rgb, clamp(out_v, 0.0, 1.0)), pc.modes.x);
}
