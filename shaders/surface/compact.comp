#version 450
// "surface: compact": the active nodes (a crossed edge or a cell with
// triangles) in index order: list[abase[p]] = p. abase is the exclusive
// scan of the classify pass's active flags; each slot is written once.
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SURFACE_GROUP) in;
layout(std430, binding = 0) readonly buffer Active { uint active_flag[]; };
layout(std430, binding = 1) readonly buffer ABase { uint abase[]; };
layout(std430, binding = 2) writeonly buffer List { uint list[]; };
layout(push_constant) uniform Push { cs_surface_push pc; };

void main()
{
    uint p = cs_linear_index();
    if (p >= pc.padded_count)
        return;
    if (active_flag[p] != 0u)
        list[abase[p]] = p;
}
