#version 450
// upsweep.comp — one round of pushing radiosity up the cluster tree
// (docs/light.md, "Cluster hierarchy"): for each cluster k of the round,
//     B[patch_count + k] = sum over its children c of (A_c / A_k) B[c]
// children in their stored order, so the sum is the same every run; its
// children belong to earlier rounds (or are patches), already written.
// B is node-indexed: patches first, then clusters.
#include "index.glsl"
#include "../radiosity/radiosity_shared.h"
layout(local_size_x = CS_RADIOSITY_GROUP) in;
layout(std430, binding = 0) readonly buffer ChildStart { uint child_start[]; };
layout(std430, binding = 1) readonly buffer Children { cs_link children[]; };
layout(std430, binding = 2) buffer Radiosity { vec4 radiosity[]; };
layout(push_constant) uniform Push { cs_upsweep_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.cluster_count)
        return;
    uint k = pc.first_cluster + i;
    vec3 sum = vec3(0.0);
    for (uint l = child_start[k]; l < child_start[k + 1u]; l++)
        sum += children[l].factor * radiosity[children[l].target].rgb;
    radiosity[pc.patch_count + k] = vec4(sum, 0.0);
}
