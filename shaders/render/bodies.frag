#version 450
// bodies.frag — a rigid body's faces: its colour lit by the particles'
// directional light (shade(): Blinn-Phong plus ambient, fixed in view
// space), then the particles' depth fog. Polytope faces carry their plane's
// normal at every vertex, so they come out flat; a sphere's normals are
// radial.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_bodies_push pc; };

layout(location = 0) in vec3 in_view_pos;
layout(location = 1) in vec3 in_view_normal;
layout(location = 2) flat in vec3 in_color;

layout(location = 0) out vec4 out_color;

void main()
{
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 to_eye = ortho ? vec3(0.0, 0.0, 1.0) : normalize(-in_view_pos);
    float len = length(in_view_normal);
    vec3 n = len > 1e-6 ? in_view_normal / len : to_eye;
    // Two-sided: a face seen from behind (a 2D polygon drawn from -z) is
    // lit as if it faced the eye.
    if (dot(n, to_eye) < 0.0)
        n = -n;
    vec3 lit = shade(in_color, n, to_eye);
    lit = apply_fog(lit, pc.fog, pc.misc.x, -in_view_pos.z);
    out_color = output_color(lit, pc.modes.x);
}
