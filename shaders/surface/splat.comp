#version 450
// "surface: splat": the field at every node from the particles within
// `radius` of it: field = scale * sum of (1 - r^2/R^2)^3, a smooth kernel
// with compact support (value 1 at the particle, zero value and slope at R).
// A gather, one invocation per node: particles come from the neighbour
// grid's cells (grid.h: sorted positions, per-cell ranges) covering the
// node's ball, rows by z then y, indices ascending, so every node adds the
// same terms in the same order every run (no atomics).
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SURFACE_GROUP) in;
layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 2) writeonly buffer Field { float field[]; };
layout(push_constant) uniform Push { cs_splat_push pc; };

// The grid cell of a coordinate, clamped into the grid as grid.glsl does.
int cell_along(float x, int a)
{
    float v = (x - pc.grid_origin[a]) / pc.grid_origin.w;
    if (!(v >= 0.0))
        v = 0.0;
    return v >= float(pc.grid_dims[a]) ? int(pc.grid_dims[a]) - 1 : int(v);
}

void main()
{
    uint n = cs_linear_index();
    if (n >= pc.dims.w)
        return;
    uvec3 d = pc.dims.xyz;
    vec3 x = pc.origin.xyz + pc.origin.w * vec3(n % d.x, (n / d.x) % d.y, n / (d.x * d.y));
    float r2max = pc.radius * pc.radius;
    ivec3 lo, hi;
    for (int a = 0; a < 3; a++) {
        lo[a] = cell_along(x[a] - pc.radius, a);
        hi[a] = cell_along(x[a] + pc.radius, a);
    }
    float sum = 0.0;
    for (int z = lo.z; z <= hi.z; z++)
        for (int y = lo.y; y <= hi.y; y++) {
            // The cells of a row are consecutive: one span of sorted indices.
            uint row = (uint(z) * pc.grid_dims.y + uint(y)) * pc.grid_dims.x;
            uint s = 0xffffffffu, e = 0u;
            for (int cx = lo.x; cx <= hi.x; cx++) {
                uvec2 r = ranges[row + uint(cx)];
                if (r.y > r.x) {
                    s = min(s, r.x);
                    e = max(e, r.y);
                }
            }
            for (uint j = s; j < e; j++) {
                vec3 dx = positions[j].xyz - x;
                float q = dot(dx, dx) / r2max;
                if (q < 1.0) {
                    float w = 1.0 - q;
                    sum += w * w * w;
                }
            }
        }
    field[n] = pc.scale * sum;
}
