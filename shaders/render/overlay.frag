#version 450
// overlay.frag — flat colour: the panel's or the text's.
#include "render_shared.h"
#include "render_common.glsl"
#include "overlay_shared.h"

layout(push_constant) uniform Push { cs_render_overlay_push pc; };

layout(location = 0) out vec4 out_color;

void main()
{
    out_color = output_color(pc.color.rgb, pc.modes.x);
}
