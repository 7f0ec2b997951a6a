#version 450
// ui.vert — a user interface's triangles (ui_shared.h) by vertex pulling:
// index buffer, then the vertex's words; pixels of the target to clip space.
#include "render_shared.h"
#include "ui_shared.h"

layout(std430, binding = 0) readonly buffer Vertices { uint vertices[]; };
layout(std430, binding = 1) readonly buffer Indices { uint indices[]; };

layout(push_constant) uniform Push { cs_render_ui_push pc; };

layout(location = 0) out vec2 out_uv;
layout(location = 1) out vec4 out_color;

void main()
{
    uint base = indices[pc.modes.y + uint(gl_VertexIndex)] * CS_UI_VERTEX_WORDS;
    vec2 pixel = vec2(uintBitsToFloat(vertices[base]), uintBitsToFloat(vertices[base + 1u]));
    out_uv = vec2(uintBitsToFloat(vertices[base + 2u]), uintBitsToFloat(vertices[base + 3u]));
    out_color = unpackUnorm4x8(vertices[base + 4u]);
    gl_Position = vec4(pixel / pc.target.xy * 2.0 - 1.0, 0.0, 1.0);
}
