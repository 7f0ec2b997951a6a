#version 450
// smoke.vert — smoke sprites by vertex pulling: 6 vertices (two triangles)
// per particle, a square facing the camera (view-space axes) at the
// particle's centre, CS_RENDER_SMOKE_EXTENT standard deviations across each
// way. The colour comes from the temperature ramp and is faded by the fog
// here, once per sprite.
#include "render_shared.h"
#include "render_common.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Temperatures { float temperatures[]; };

layout(push_constant) uniform Push { cs_render_smoke_push pc; };

layout(location = 0) out vec2 out_offset;        // from the centre, in standard deviations
layout(location = 1) flat out vec3 out_color;    // linear rgb added at the centre

const vec2 k_corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

vec3 smoke_color(float temperature)
{
    float t = clamp((temperature - pc.params.z) / max(pc.params.w - pc.params.z, 1e-6), 0.0, 1.0);
    return mix(vec3(CS_RENDER_SMOKE_COOL), vec3(CS_RENDER_SMOKE_HOT), t);
}

void main()
{
    uint i = uint(gl_VertexIndex) / 6u;
    vec2 corner = k_corners[uint(gl_VertexIndex) % 6u] * CS_RENDER_SMOKE_EXTENT;
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    float sigma = pc.params.x;
    vec3 c = to_view(pc.view_x, pc.view_y, pc.view_z, positions[i].xyz);
    vec3 q = c + vec3(corner * sigma, 0.0);
    gl_Position = to_clip(pc.proj, ortho, q);
    out_offset = corner;
    // Light added through fog reaches the eye attenuated by the same factor
    // the fog gives an opaque surface; the fog's own colour is already there.
    float fade = exp(-pc.fog.w * max(-c.z - pc.misc.x, 0.0));
    float temperature = pc.modes.z != 0u ? temperatures[i] : pc.params.z; // none: the cool end
    out_color = smoke_color(temperature) * pc.params.y * fade;
}
