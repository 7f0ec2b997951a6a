#version 450
// "surface: splat kernels", second dispatch: per grid cell, how far beyond
// the cell's box the ellipsoids of its particles can reach:
//   reach[cell] = max over its particles j of dist(c_j, box) + e_j
// (c_j the smoothed centre, e_j the longest semi-axis, padded). A point
// farther than that from the box gets nothing from the cell, which lets the
// field pass skip whole cells. Measured from the box itself, so it also
// covers particles clamped into an edge cell from outside the domain.
// Empty cells: 0. A max needs no order: same bits every run.
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SURFACE_GROUP) in;
layout(std430, binding = 0) readonly buffer Centres { vec4 centres[]; };
layout(std430, binding = 1) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 2) writeonly buffer Reach { float cell_reach[]; };
layout(push_constant) uniform Push { cs_splat_aniso_push pc; };

void main()
{
    uint c = cs_linear_index();
    if (c >= pc.grid_dims.w)
        return;
    uvec3 d = pc.grid_dims.xyz;
    vec3 lo = pc.grid_origin.xyz + pc.grid_origin.w * vec3(c % d.x, (c / d.x) % d.y, c / (d.x * d.y));
    vec3 hi = lo + pc.grid_origin.w;
    uvec2 r = ranges[c];
    float most = 0.0;
    for (uint j = r.x; j < r.y; j++) {
        vec4 cen = centres[j];
        vec3 out_of_box = cen.xyz - clamp(cen.xyz, lo, hi);
        float reach = length(out_of_box) + sqrt(cen.w);
        if (reach > most)   // a NaN centre (a NaN particle) reaches nothing
            most = reach;
    }
    // Padded for the rounding of the distance above.
    cell_reach[c] = most * (1.0 + CS_SPLAT_EXTENT_PAD);
}
