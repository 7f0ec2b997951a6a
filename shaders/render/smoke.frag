#version 450
// smoke.frag — one sprite's gaussian, added to the target (additive blend:
// the sum does not depend on the drawing order, so no sort is needed).
// Alpha 0: the blend keeps the target's alpha.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_smoke_push pc; };

layout(location = 0) in vec2 in_offset;
layout(location = 1) flat in vec3 in_color;

layout(location = 0) out vec4 out_color;

void main()
{
    float r2 = dot(in_offset, in_offset);
    if (r2 > CS_RENDER_SMOKE_EXTENT * CS_RENDER_SMOKE_EXTENT)
        discard;
    out_color = vec4(in_color * exp(-0.5 * r2), 0.0);
}
