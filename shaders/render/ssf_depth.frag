#version 450
// ssf_depth.frag — the sphere's near point under the pixel: its view
// distance (-z) into the R32F image and its depth into the splat's depth
// buffer (the nearest sphere wins); behind the opaque scene: dropped.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_ssf_push pc; };
layout(binding = 1) uniform sampler2D scene_depth;

layout(location = 0) flat in vec3 in_center;
layout(location = 1) in vec2 in_uv;
layout(location = 0) out vec4 out_depth;

void main()
{
    float r2 = dot(in_uv, in_uv);
    if (r2 > 1.0)
        discard;
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 p = in_center + vec3(in_uv, sqrt(1.0 - r2)) * pc.params.x;
    vec4 clip = to_clip(pc.proj, ortho, p);
    float depth = clip.z / clip.w;
    if (depth >= texelFetch(scene_depth, ivec2(gl_FragCoord.xy), 0).r)
        discard;
    gl_FragDepth = depth;
    out_depth = vec4(-p.z, 0.0, 0.0, 0.0);
}
