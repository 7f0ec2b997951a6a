#version 450
// probe.comp — per-triangle outgoing radiance: slot i = tri * LANES + lane
// adds pc.spp paths that start at uniform points on the front of triangle
// `tri` (the emission there plus what the surface reflects towards the
// front). sum[i] = (rgb sum, count), sum_sq[i] = (rgb sum of squares, 0).
#include "index.glsl"
#include "../geometry/geometry_shared.h"
#include "pathtrace_shared.h"

layout(local_size_x = CS_PT_THREADS) in;
layout(std430, binding = 0) readonly buffer Nodes { cs_bvh_node nodes[]; };
layout(std430, binding = 1) readonly buffer Tris { cs_tri tris[]; };
layout(std430, binding = 2) readonly buffer Lights { cs_pt_light lights[]; };
layout(std430, binding = 3) buffer Sum { vec4 sum[]; };
layout(std430, binding = 4) buffer SumSq { vec4 sum_sq[]; };
layout(push_constant) uniform Push { cs_pt_push pc; };

#include "pathtrace.glsl"

void main()
{
    uint i = cs_linear_index();
    if (i >= pc.item_count)
        return;
    uint tri = i / CS_PT_PROBE_LANES;
    vec4 acc = sum[i], acc_sq = sum_sq[i];
    uint first = uint(acc.w);
    uvec3 path;
    for (uint k = 0u; k < pc.spp; k++) {
        uint s = first + k;
        vec3 p = pt_tri_point(tri, pt_random(i, s, 0u, CS_PT_DIM_START_U), pt_random(i, s, 0u, CS_PT_DIM_START_V));
        vec3 L = pt_trace(i, s, vec3(0.0), vec3(0.0), tri, p, path);
        acc += vec4(L, 1.0);
        acc_sq += vec4(L * L, 0.0);
    }
    sum[i] = acc;
    sum_sq[i] = acc_sq;
}
