#version 450
// pushdown.comp — the end of a bounce (docs/light.md, "Receiver
// clusters"): for patch i,
//     G_i = G[i] + open_i (sum over its ancestors a of G[a] + (x_i - x_a) . grad G[a])
//     B_out[i] = E_i + rho_i (H_i + G_i)
// the irradiance a cluster gathered reaches each of its patches unchanged
// to first order (irradiance is per unit area: a cluster's links carry
// its area-weighted mean cosine, and their gradients its change) unless the patch is enclosed by an object
// (open_i, its openness: 0 under a block, 1 almost everywhere). Added in
// that order, parent first, so the sum is the same every run. G_i is kept
// for the next feedback frame.
#include "index.glsl"
#include "../radiosity/radiosity_shared.h"
layout(local_size_x = CS_RADIOSITY_GROUP) in;
layout(std430, binding = 0) readonly buffer Patches { cs_patch patches[]; };
layout(std430, binding = 1) readonly buffer Direct { vec4 direct[]; };
layout(std430, binding = 2) readonly buffer Parents { uint parents[]; };
layout(std430, binding = 3) readonly buffer Irradiance { vec4 irradiance[]; };
layout(std430, binding = 4) writeonly buffer Next { vec4 next[]; };
layout(std430, binding = 5) writeonly buffer Gathered { vec4 gathered_out[]; };
layout(std430, binding = 6) readonly buffer Openness { float openness[]; };
layout(std430, binding = 7) readonly buffer ClusterCentres { vec4 cluster_centres[]; };
layout(std430, binding = 8) readonly buffer IrradianceGradient { vec4 irradiance_gradient[]; };
layout(push_constant) uniform Push { cs_gather_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.patch_count)
        return;
    cs_patch p = patches[i];
    vec3 above = vec3(0.0);
    for (uint a = parents[i]; a != CS_RADIOSITY_NO_PARENT; a = parents[a]) {
        uint k = a - pc.patch_count;
        vec3 offset = p.center_area.xyz - cluster_centres[k].xyz;
        above += irradiance[a].rgb + offset.x * irradiance_gradient[3u * k].rgb +
                 offset.y * irradiance_gradient[3u * k + 1u].rgb + offset.z * irradiance_gradient[3u * k + 2u].rgb;
    }
    vec3 gathered = irradiance[i].rgb + openness[i] * above;
    next[i] = vec4(p.emission.rgb + p.albedo.rgb * (direct[i].rgb + gathered), 0.0);
    gathered_out[i] = vec4(gathered, 0.0);
}
