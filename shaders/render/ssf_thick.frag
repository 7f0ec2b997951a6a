#version 450
// ssf_thick.frag — the sphere's chord under the pixel, scaled to the
// particle's volume (params.y), added into the thickness image; a sphere
// behind the opaque scene adds nothing.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_ssf_push pc; };
layout(binding = 1) uniform sampler2D scene_depth;

layout(location = 0) flat in vec3 in_center;
layout(location = 1) in vec2 in_uv;
layout(location = 0) out vec4 out_thickness;

void main()
{
    float r2 = dot(in_uv, in_uv);
    if (r2 > 1.0)
        discard;
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    float half_chord = sqrt(1.0 - r2) * pc.params.x;
    vec4 clip = to_clip(pc.proj, ortho, in_center + vec3(0.0, 0.0, half_chord));
    if (clip.z / clip.w >= texelFetch(scene_depth, ivec2(gl_FragCoord.xy), 0).r)
        discard;
    out_thickness = vec4(2.0 * half_chord * pc.params.y, 0.0, 0.0, 0.0);
}
