#version 450
// "bodies: broad phase": the grid's per-cell body lists (bodies_shared.h
// cs_body_grid) from the bodies integrate just wrote into the set, in three
// stages, one dispatch each:
//   COUNT: one invocation per cell counts the bodies whose span
//          (bodies.glsl cs_body_grid_span) covers it, into starts[cell + 1];
//   SCAN:  one invocation turns the counts into starts (prefix sum) and
//          marks the grid ready, or not when the entries do not fit;
//   FILL:  one invocation per cell writes its bodies in body order.
// Each list is in body order by construction: no atomics, the same lists
// every run. Loop budget (lavapipe ends an invocation's loops after 65535
// iterations): COUNT and FILL walk CS_BODIES_MAX bodies, SCAN
// CS_BODY_GRID_CELLS cells.
#include "index.glsl"
#include "bodies_shared.h"
layout(local_size_x = CS_BODY_GRID_GROUP) in;
layout(std430, binding = 0) buffer Set { cs_body_set set; };
layout(push_constant) uniform Push { cs_body_grid_push pc; };
#define CS_BODY_SET set
#define CS_BODY_DT 0.0
#include "bodies.glsl"

bool span_covers(uint b, ivec3 c)
{
    ivec3 lo, hi;
    cs_body_grid_span(b, lo, hi);
    return all(greaterThanEqual(c, lo)) && all(lessThanEqual(c, hi));
}

ivec3 cell_coords(uint cell)
{
    uvec3 d = set.grid.dims.xyz;
    return ivec3(cell % d.x, (cell / d.x) % d.y, cell / (d.x * d.y));
}

void count_cell(uint cell)
{
    ivec3 c = cell_coords(cell);
    uint n = 0u;
    for (uint b = 0u; b < set.counts.x; b++)
        n += span_covers(b, c) ? 1u : 0u;
    set.grid.starts[cell + 1u] = n;
}

void scan_cells()
{
    uint total = 0u;
    set.grid.starts[0] = 0u;
    for (uint cell = 0u; cell < pc.cells; cell++) {
        total += set.grid.starts[cell + 1u];
        set.grid.starts[cell + 1u] = total;
    }
    set.grid.dims.w = total <= uint(CS_BODY_GRID_ENTRIES) ? CS_BODY_GRID_READY : 0u;
}

void fill_cell(uint cell)
{
    if (set.grid.dims.w != CS_BODY_GRID_READY)
        return;
    ivec3 c = cell_coords(cell);
    uint at = set.grid.starts[cell];
    for (uint b = 0u; b < set.counts.x; b++)
        if (span_covers(b, c))
            set.grid.entries[at++] = b;
}

void main()
{
    uint i = cs_linear_index();
    if (pc.stage == CS_BODY_GRID_STAGE_SCAN) {
        if (i == 0u)
            scan_cells();
        return;
    }
    if (i >= pc.cells)
        return;
    if (pc.stage == CS_BODY_GRID_STAGE_COUNT)
        count_cell(i);
    else
        fill_cell(i);
}
