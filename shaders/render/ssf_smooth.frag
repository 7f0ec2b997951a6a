#version 450
// ssf_smooth.frag — the splatted view depth smoothed by a bilateral filter
// along one axis (modes.y; run once along x, then along y: a separable
// approximation), a Gaussian in pixels, half-width params.z, times a
// Gaussian in depth difference, falloff params.w metres, so the spheres'
// bumps flatten into
// a surface while separate sheets stay apart. Empty pixels (0) stay empty
// and are not averaged in. With modes.z = 1 it blurs the thickness instead:
// no depth weight, empty pixels count as 0.
#include "render_shared.h"

layout(push_constant) uniform Push { cs_render_ssf_push pc; };
layout(binding = 0) uniform sampler2D splat_depth;

layout(location = 0) out vec4 out_depth;

void main()
{
    ivec2 px = ivec2(gl_FragCoord.xy);
    ivec2 size = textureSize(splat_depth, 0);
    float z0 = texelFetch(splat_depth, px, 0).r;
    bool plain = pc.modes.z == 1u; // the thickness: a plain Gaussian, zeros counted
    if (z0 <= 0.0 && !plain) {
        out_depth = vec4(0.0);
        return;
    }
    int half_width = int(min(pc.params.z, float(CS_RENDER_SSF_FILTER_MAX)));
    float sigma_px = max(0.5 * pc.params.z, 0.5), falloff = pc.params.w;
    float sum = 0.0, weight = 0.0;
    ivec2 axis = pc.modes.y == 0u ? ivec2(1, 0) : ivec2(0, 1);
    for (int k = -half_width; k <= half_width; k++) {
        float z = texelFetch(splat_depth, clamp(px + k * axis, ivec2(0), size - 1), 0).r;
        if (z <= 0.0 && !plain)
            continue;
        float dz = plain ? 0.0 : (z - z0) / falloff;
        float w = exp(-float(k * k) / (2.0 * sigma_px * sigma_px) - dz * dz);
        sum += w * z;
        weight += w;
    }
    out_depth = vec4(sum / weight, 0.0, 0.0, 0.0);
}
