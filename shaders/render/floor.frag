#version 450
// floor.frag — the floor grid's lines: the box's colour at half strength,
// fogged like the rest.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_box_push pc; };

layout(location = 0) in float in_depth;
layout(location = 0) out vec4 out_color;

void main()
{
    vec3 c = apply_fog(0.5 * vec3(CS_RENDER_BOX_COLOR), pc.fog, pc.misc.x, in_depth);
    out_color = output_color(c, uint(pc.misc.y));
}
