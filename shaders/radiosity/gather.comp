#version 450
// One bounce of the gather (docs/light.md, "Radiosity"): for every
// receiving node i (a patch, or with receiver clusters a cluster),
//     G[i] = sum over its links of F_ij B_in[j]
// the irradiance its links bring. One invocation a node, its links in
// order, so the sum is the same every run. pushdown.comp then gives every
// patch its own G and its ancestors' and writes B.
#include "index.glsl"
#include "../radiosity/radiosity_shared.h"
layout(local_size_x = CS_RADIOSITY_GROUP) in;
layout(std430, binding = 0) readonly buffer LinkStart { uint link_start[]; };
layout(std430, binding = 1) readonly buffer Links { cs_link links[]; };
layout(std430, binding = 2) readonly buffer Previous { vec4 previous[]; };
layout(std430, binding = 3) writeonly buffer Irradiance { vec4 irradiance[]; };
// Invocation k does node order[k]: nodes by link count, so the lanes of
// one SIMD loop (llvmpipe) run about as long (cs_radiosity_gather_order).
layout(std430, binding = 4) readonly buffer Order { uint order[]; };
layout(push_constant) uniform Push { cs_gather_push pc; };
void main()
{
    uint k = cs_linear_index();
    if (k >= pc.node_count)
        return;
    uint i = order[k];
    vec3 gathered = vec3(0.0);
    for (uint l = link_start[i]; l < link_start[i + 1u]; l++)
        gathered += links[l].factor * previous[links[l].target].rgb;
    irradiance[i] = vec4(gathered, 0.0);
}
