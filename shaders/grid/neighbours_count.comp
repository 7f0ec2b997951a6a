#version 450
// "grid: neighbours" (2/4): counts[i] = particles j (i itself included) with
// |x_i - x_j|^2 < radius^2, found by walking the 3^dim cells around i.
#include "index.glsl"
#include "grid_shared.h"
#include "grid.glsl"
layout(local_size_x = CS_GRID_GROUP) in;
layout(std430, binding = 0) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 1) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) writeonly buffer Counts { uint counts[]; };
layout(push_constant) uniform Push { cs_neighbours_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.dims.w)
        return;
    vec3 xi = positions[i].xyz;
    ivec3 c = cs_grid_cell(xi, pc.origin.xyz, pc.origin.w, pc.dims.xyz);
    uint n = 0u;
    CS_GRID_FOR_NEIGHBOURS(ranges, c, pc.dims, j) {
        vec3 d = xi - positions[j].xyz;
        if (dot(d, d) < pc.radius.x)
            n++;
    } CS_GRID_END_NEIGHBOURS
    counts[i] = n;
}
