#version 450
// tiles.vert — the floor tiles' rectangle (feature_tiles.c) as two
// triangles from the vertex index: the domain's floor grown by box_max.w
// on every side.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_box_push pc; };

layout(location = 0) out vec3 out_world;
layout(location = 1) out float out_depth;   // view depth, for fog

void main()
{
    const vec2 corners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));
    vec2 c = corners[gl_VertexIndex % 6];
    float reach = pc.box_max.w;
    vec2 lo = pc.box_min.xz - reach, hi = pc.box_max.xz + reach;
    vec3 p = vec3(mix(lo.x, hi.x, c.x), pc.box_min.y, mix(lo.y, hi.y, c.y));
    bool ortho = (uint(pc.misc.y) & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 v = to_view(pc.view_x, pc.view_y, pc.view_z, p);
    gl_Position = to_clip(pc.proj, ortho, v);
    out_world = p;
    out_depth = -v.z;
}
