#version 450
// overlay.vert — the overlay's quads (overlay_shared.h) by vertex pulling:
// 6 vertices a quad, pixels of the target to clip space (Vulkan's y is down,
// as the pixels').
#include "render_shared.h"
#include "overlay_shared.h"

layout(std430, binding = 0) readonly buffer Quads { vec4 quads[]; };

layout(push_constant) uniform Push { cs_render_overlay_push pc; };

const uvec2 k_corners[6] = uvec2[](uvec2(0, 1), uvec2(2, 1), uvec2(2, 3), uvec2(0, 1), uvec2(2, 3), uvec2(0, 3));

void main()
{
    vec4 q = quads[pc.modes.y + uint(gl_VertexIndex) / 6u];
    uvec2 c = k_corners[uint(gl_VertexIndex) % 6u];
    vec2 pixel = vec2(q[c.x], q[c.y]);
    gl_Position = vec4(pixel / pc.target.xy * 2.0 - 1.0, 0.0, 1.0);
}
