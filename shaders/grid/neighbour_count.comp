#version 450
// Test support (tests/test_grid.c): walks the neighbour loop of grid.glsl for
// sorted particle i and writes (neighbours within h, sum of their original
// indices, xor of a hash of them, cells visited) so the test can compare the
// GLSL loop with a brute-force search.
#include "index.glsl"
#include "grid_shared.h"
#include "grid.glsl"
layout(local_size_x = CS_GRID_GROUP) in;
layout(std430, binding = 0) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 1) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) readonly buffer Order { uint order[]; };
layout(std430, binding = 3) writeonly buffer Result { uvec4 result[]; };
layout(push_constant) uniform Push {
    cs_grid_push pc;
    vec4 radius; // x = h^2
};
uint hash(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.dims.w)
        return;
    vec3 xi = positions[i].xyz;
    ivec3 c = cs_grid_cell(xi, pc.origin.xyz, pc.origin.w, pc.dims.xyz);
    uvec4 r = uvec4(0u);
    CS_GRID_FOR_NEIGHBOURS(ranges, c, pc.dims, j) {
        vec3 d = xi - positions[j].xyz;
        if (dot(d, d) < radius.x) {
            uint o = order[j];
            r.x += 1u;
            r.y += o;
            r.z ^= hash(o);
        }
    } CS_GRID_END_NEIGHBOURS
    result[i] = r;
}
