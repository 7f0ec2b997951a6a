#version 450
// floor.vert — the floor grid (feature_floor.c) as lines generated from the
// vertex index: no vertex buffer. box_min/box_max are the floor rectangle's
// corners (same y), box_min.w the cell size, misc.z how many lines run
// along z (one per x position); the rest run along x.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_box_push pc; };

layout(location = 0) out float out_depth;   // view depth, for fog

void main()
{
    uint line = uint(gl_VertexIndex) / 2u;
    bool far_end = (uint(gl_VertexIndex) & 1u) != 0u;
    uint lines_x = uint(pc.misc.z);
    float cell = pc.box_min.w;
    vec3 p = pc.box_min.xyz;
    if (line < lines_x) {
        p.x = min(pc.box_min.x + float(line) * cell, pc.box_max.x);
        p.z = far_end ? pc.box_max.z : pc.box_min.z;
    } else {
        p.z = min(pc.box_min.z + float(line - lines_x) * cell, pc.box_max.z);
        p.x = far_end ? pc.box_max.x : pc.box_min.x;
    }
    bool ortho = (uint(pc.misc.y) & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 v = to_view(pc.view_x, pc.view_y, pc.view_z, p);
    gl_Position = to_clip(pc.proj, ortho, v);
    out_depth = -v.z;
}
