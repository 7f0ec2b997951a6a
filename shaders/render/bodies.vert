#version 450
// bodies.vert — rigid bodies by vertex pulling: every body's triangles in
// its own frame about its centre of mass (built once on the host,
// host/render/feature_bodies.c), placed with the pose the GPU integration
// left in the bodies' state buffer, so drawing reads no pose back.
#include "render_shared.h"
#include "render_common.glsl"
#include "../bodies/bodies_shared.h"

// 3 vec4 per vertex: xyz position + body index (w), xyz normal, rgb colour.
layout(std430, binding = 0) readonly buffer Vertices { vec4 vertices[]; };
layout(std430, binding = 1) readonly buffer States { cs_body_state states[]; };

layout(push_constant) uniform Push { cs_render_bodies_push pc; };

layout(location = 0) out vec3 out_view_pos;
layout(location = 1) out vec3 out_view_normal;
layout(location = 2) flat out vec3 out_color;

// v rotated by the unit quaternion q = (u, w): v + w t + u x t, t = 2 u x v
// (the same formula as pipelines/bodies/bodies.c).
vec3 rotate(vec4 q, vec3 v)
{
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

void main()
{
    uint v = uint(gl_VertexIndex);
    vec4 p = vertices[3u * v], n = vertices[3u * v + 1u];
    out_color = vertices[3u * v + 2u].rgb;
    uint body = uint(p.w + 0.5);
    if (body >= pc.modes.y) {
        // A mesh for more bodies than the buffer holds: nothing to draw
        // (outside the clip volume) rather than a read past its end.
        out_view_pos = vec3(0.0);
        out_view_normal = vec3(0.0, 0.0, 1.0);
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    cs_body_state s = states[body];
    vec3 world = s.position.xyz + rotate(s.orientation, p.xyz);
    vec3 wn = rotate(s.orientation, n.xyz);
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 vp = to_view(pc.view_x, pc.view_y, pc.view_z, world);
    // The view rows' xyz are a rotation: normals turn with them.
    out_view_normal = vec3(dot(pc.view_x.xyz, wn), dot(pc.view_y.xyz, wn), dot(pc.view_z.xyz, wn));
    out_view_pos = vp;
    gl_Position = to_clip(pc.proj, ortho, vp);
}
