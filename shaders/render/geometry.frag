#version 450
// geometry.frag — radiosity through the exposure and the Reinhard curve
// (geometry_shared.h), then the scene's fog.
#include "render_shared.h"
#include "render_common.glsl"
#include "geometry_shared.h"

layout(push_constant) uniform Push { cs_render_geometry_push pc; };

layout(location = 0) in vec3 in_view_pos;
layout(location = 1) in vec3 in_radiosity;

layout(location = 0) out vec4 out_color;

void main()
{
    vec3 x = pc.misc.y * max(in_radiosity, vec3(0.0));
    vec3 lit = x / (1.0 + x);
    lit = apply_fog(lit, pc.fog, pc.misc.x, -in_view_pos.z);
    out_color = output_color(lit, pc.modes.x);
}
