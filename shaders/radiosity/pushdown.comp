#version 450
// pushdown.comp — the end of a bounce (docs/light.md, "Receiver
// clusters"): for patch i,
//     G_i = G[i] + open_i (G[parent(i)] + G[parent(parent(i))] + ...)
//     B_out[i] = E_i + rho_i (H_i + G_i)
// the irradiance a cluster gathered reaches each of its patches unchanged
// (irradiance is per unit area: a cluster's links already carry its
// area-weighted mean cosine) unless the patch is enclosed by an object
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
layout(push_constant) uniform Push { cs_gather_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.patch_count)
        return;
    vec3 above = vec3(0.0);
    for (uint a = parents[i]; a != CS_RADIOSITY_NO_PARENT; a = parents[a])
        above += irradiance[a].rgb;
    vec3 gathered = irradiance[i].rgb + openness[i] * above;
    cs_patch p = patches[i];
    next[i] = vec4(p.emission.rgb + p.albedo.rgb * (direct[i].rgb + gathered), 0.0);
    gathered_out[i] = vec4(gathered, 0.0);
}
