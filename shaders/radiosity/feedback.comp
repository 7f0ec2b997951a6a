#version 450
// feedback.comp — the input of a feedback frame's one gather (docs/light.md,
// "Feedback"): for patch i,
//     B_in[i] = E_i + rho_i (H_i(t) + G_i(t - 1))
// with G(t - 1) the irradiance the previous frame's gather collected: the
// previous frame's radiosity with this frame's direct light, so the
// gather that follows gives direct light and the first bounce of the
// current lights and the higher bounces one frame late.
#include "index.glsl"
#include "../radiosity/radiosity_shared.h"
layout(local_size_x = CS_RADIOSITY_GROUP) in;
layout(std430, binding = 0) readonly buffer Patches { cs_patch patches[]; };
layout(std430, binding = 1) readonly buffer Direct { vec4 direct[]; };
layout(std430, binding = 2) readonly buffer Gathered { vec4 gathered[]; };
layout(std430, binding = 3) writeonly buffer Radiosity { vec4 radiosity[]; };
layout(push_constant) uniform Push { cs_gather_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.patch_count)
        return;
    cs_patch p = patches[i];
    radiosity[i] = vec4(p.emission.rgb + p.albedo.rgb * (direct[i].rgb + gathered[i].rgb), 0.0);
}
