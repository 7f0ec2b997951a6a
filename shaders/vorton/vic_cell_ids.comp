#version 450
// vic_cell_ids.comp — "grid: cell ids" of the vortex-in-cell bins, from the
// box of this solve (the buffer vic_box.comp wrote, not push constants):
// key[i] = cell of vorton i, clamped into the n^3 cells as
// shaders/grid/grid.glsl's cs_grid_cell does; a non-finite position gets key n^3 (in no
// cell); order[i] = i. pipelines/core/grid.c's sort and ranges take it from there.
#include "vorton_shared.h"
#include "vic_shared.h"
#include "vic_common.glsl"

layout(local_size_x = VIC_WG) in;
layout(push_constant) uniform PushBlock { vic_push pc; };

layout(std430, binding = 0) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Order { uint order[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.size.w)
        return;
    uint cells = pc.size.x - 1u;
    vec3 x = pos[i].xyz;
    bool finite = !any(isnan(x)) && !any(isinf(x));
    vec3 g = (x - box.grid.xyz) / box.grid.w;
    uvec3 c;
    for (int a = 0; a < 3; a++) {
        float v = g[a] >= 0.0 ? g[a] : 0.0; // below the box (NaN is keyed apart below)
        c[a] = v >= float(cells) ? cells - 1u : uint(v);
    }
    keys[i] = finite ? (c.z * cells + c.y) * cells + c.x : cells * cells * cells;
    order[i] = i;
}
