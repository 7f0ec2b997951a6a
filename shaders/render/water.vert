#version 450
// water.vert — a fluid surface drawn as water (feature_water.c), both its
// back-face depth pass and its shading: the welded marching-cubes mesh by
// vertex pulling (the draw is indexed), in view space.
#include "render_shared.h"
#include "render_common.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Normals { vec4 normals[]; };

layout(push_constant) uniform Push { cs_render_water_push pc; };

layout(location = 0) out vec3 out_view_pos;
layout(location = 1) out vec3 out_view_normal;

void main()
{
    uint v = uint(gl_VertexIndex);
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 p = to_view(pc.view_x, pc.view_y, pc.view_z, positions[v].xyz);
    vec3 n = normals[v].xyz;
    // The view rows' xyz are a rotation: normals turn with them.
    out_view_normal = vec3(dot(pc.view_x.xyz, n), dot(pc.view_y.xyz, n), dot(pc.view_z.xyz, n));
    out_view_pos = p;
    gl_Position = to_clip(pc.proj, ortho, p);
}
