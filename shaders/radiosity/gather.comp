#version 450
// One bounce of the gather (docs/light.md, "Radiosity"): for every
// receiving node i (a patch, or with receiver clusters a cluster),
//     G[i] = sum over its links of F_ij B_in[j]
// the irradiance its links bring, and for a cluster its gradient over the
// receiving point, sum of grad F_ij B_in[j] (per axis, rgb). One invocation a node, its links in
// order, so the sum is the same every run. pushdown.comp then gives every
// patch its own G and its ancestors' and writes B.
#include "index.glsl"
#include "../radiosity/radiosity_shared.h"
layout(local_size_x = CS_RADIOSITY_GROUP) in;
layout(std430, binding = 0) readonly buffer LinkStart { uint link_start[]; };
// The links in two buffers, each within maxStorageBufferRange (100 k
// patches need more than llvmpipe's 128 MiB): link l < first_buffer_links
// in the first, the rest in the second (binding 7).
layout(std430, binding = 1) readonly buffer Links { cs_link links[]; };
layout(std430, binding = 2) readonly buffer Previous { vec4 previous[]; };
layout(std430, binding = 3) writeonly buffer Irradiance { vec4 irradiance[]; };
// Invocation k does node order[k]: nodes by link count, so the lanes of
// one SIMD loop (llvmpipe) run about as long (cs_radiosity_gather_order).
layout(std430, binding = 4) readonly buffer Order { uint order[]; };
// grad F of link first_cluster_link + g (the clusters' links; xyz).
layout(std430, binding = 5) readonly buffer LinkGradients { vec4 link_gradients[]; };
// Per cluster three vec4: d G / dx, dy, dz (rgb).
layout(std430, binding = 6) writeonly buffer IrradianceGradient { vec4 irradiance_gradient[]; };
layout(std430, binding = 7) readonly buffer MoreLinks { cs_link more_links[]; };
layout(push_constant) uniform Push { cs_gather_push pc; };

// (Fields one by one: a cs_link copied out of a buffer block breaks shaderc's optimizer.)
uint link_target(uint l)
{
    return l < pc.first_buffer_links ? links[l].target : more_links[l - pc.first_buffer_links].target;
}

float link_factor(uint l)
{
    return l < pc.first_buffer_links ? links[l].factor : more_links[l - pc.first_buffer_links].factor;
}

void main()
{
    uint k = cs_linear_index();
    if (k >= pc.node_count)
        return;
    uint i = order[k];
    vec3 gathered = vec3(0.0);
    if (i < pc.patch_count) {
        for (uint l = link_start[i]; l < link_start[i + 1u]; l++) {
            gathered += link_factor(l) * previous[link_target(l)].rgb;
        }
        irradiance[i] = vec4(gathered, 0.0);
        return;
    }
    vec3 dx = vec3(0.0), dy = vec3(0.0), dz = vec3(0.0);
    for (uint l = link_start[i]; l < link_start[i + 1u]; l++) {
        vec3 b = previous[link_target(l)].rgb;
        vec3 g = link_gradients[l - pc.first_cluster_link].xyz;
        gathered += link_factor(l) * b;
        dx += g.x * b;
        dy += g.y * b;
        dz += g.z * b;
    }
    irradiance[i] = vec4(gathered, 0.0);
    uint first = 3u * (i - pc.patch_count);
    irradiance_gradient[first] = vec4(dx, 0.0);
    irradiance_gradient[first + 1u] = vec4(dy, 0.0);
    irradiance_gradient[first + 2u] = vec4(dz, 0.0);
}
