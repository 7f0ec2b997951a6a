#version 450
// One bounce of the gather (docs/light.md, "Radiosity"): for patch i,
//     B_out[i] = E_i + rho_i (H_i + sum over its links of F_ij B_in[j])
// with H the direct irradiance. One invocation a patch, its links in
// order, so the sum is the same every run. The sum itself (G_i) is kept
// for the next frame's feedback.comp.
#include "index.glsl"
#include "../radiosity/radiosity_shared.h"
layout(local_size_x = CS_RADIOSITY_GROUP) in;
layout(std430, binding = 0) readonly buffer Patches { cs_patch patches[]; };
layout(std430, binding = 1) readonly buffer LinkStart { uint link_start[]; };
layout(std430, binding = 2) readonly buffer Links { cs_link links[]; };
layout(std430, binding = 3) readonly buffer Direct { vec4 direct[]; };
layout(std430, binding = 4) readonly buffer Previous { vec4 previous[]; };
layout(std430, binding = 5) writeonly buffer Next { vec4 next[]; };
layout(std430, binding = 6) writeonly buffer Gathered { vec4 gathered_out[]; };
// Invocation k does patch order[k]: patches by link count, so the lanes of
// one SIMD loop (llvmpipe) run about as long (cs_radiosity_gather_order).
layout(std430, binding = 7) readonly buffer Order { uint order[]; };
layout(push_constant) uniform Push { cs_gather_push pc; };
void main()
{
    uint k = cs_linear_index();
    if (k >= pc.patch_count)
        return;
    uint i = order[k];
    vec3 gathered = vec3(0.0);
    for (uint l = link_start[i]; l < link_start[i + 1u]; l++)
        gathered += links[l].factor * previous[links[l].target].rgb;
    cs_patch p = patches[i];
    next[i] = vec4(p.emission.rgb + p.albedo.rgb * (direct[i].rgb + gathered), 0.0);
    gathered_out[i] = vec4(gathered, 0.0);
}
