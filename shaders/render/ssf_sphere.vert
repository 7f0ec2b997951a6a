#version 450
// ssf_sphere.vert — a particle as a camera-facing quad of the sphere's
// radius around its centre (view space), for the screen-space fluid's
// depth and thickness splats (water_ssf.c): 6 vertices a particle.
#include "render_shared.h"
#include "render_common.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };

layout(push_constant) uniform Push { cs_render_ssf_push pc; };

layout(location = 0) flat out vec3 out_center; // view space
layout(location = 1) out vec2 out_uv;          // -1..1 across the quad

void main()
{
    const vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
    uint particle = uint(gl_VertexIndex) / CS_RENDER_SSF_VERTICES;
    vec2 uv = corners[uint(gl_VertexIndex) % CS_RENDER_SSF_VERTICES];
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 c = to_view(pc.view_x, pc.view_y, pc.view_z, positions[particle].xyz);
    out_center = c;
    out_uv = uv;
    gl_Position = to_clip(pc.proj, ortho, c + vec3(uv * pc.params.x, 0.0));
}
