#version 450
// arrows.frag — flat arrow colour, fogged like the particles.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_arrows_push pc; };

layout(location = 0) in float in_depth;
layout(location = 1) flat in vec3 in_color;
layout(location = 0) out vec4 out_color;

void main()
{
    vec3 c = apply_fog(in_color, pc.fog, pc.misc.x, in_depth);
    out_color = output_color(c, uint(pc.misc.y));
}
