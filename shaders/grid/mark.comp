#version 450
// "grid: ranges" (2/2): where the sorted key changes, a cell starts and the
// previous one ends. Each start and each end is written by exactly one
// invocation, so the table is the same every run. Keys past the last cell
// (non-finite particles, cell_ids.comp) have no range.
#include "index.glsl"
#include "grid_shared.h"
layout(local_size_x = CS_GRID_GROUP) in;
layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer Ranges { uvec2 ranges[]; };
layout(push_constant) uniform Push { cs_grid_push pc; };
void main()
{
    uint i = cs_linear_index();
    uint n = pc.dims.w;
    if (i >= n)
        return;
    uint k = keys[i];
    if (k >= pc.dims.x * pc.dims.y * pc.dims.z)
        return;
    if (i == 0u || keys[i - 1u] != k)
        ranges[k].x = i;
    if (i + 1u == n || keys[i + 1u] != k)
        ranges[k].y = i + 1u;
}
