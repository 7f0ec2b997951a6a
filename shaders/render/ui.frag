#version 450
// ui.frag — vertex colour times the atlas, filtered bilinearly by hand (the
// atlas is a storage buffer of RGBA8 words, clamped at its edges). The
// interface's colours are sRGB, as its authors chose them: decoded to
// linear here, and encoded again for a UNORM target.
#include "render_shared.h"
#include "render_common.glsl"
#include "ui_shared.h"

layout(std430, binding = 2) readonly buffer Atlas { uint atlas[]; };

layout(push_constant) uniform Push { cs_render_ui_push pc; };

layout(location = 0) in vec2 in_uv;
layout(location = 1) in vec4 in_color;

layout(location = 0) out vec4 out_color;

vec4 texel(ivec2 p)
{
    ivec2 size = ivec2(pc.target.zw);
    p = clamp(p, ivec2(0), size - 1);
    return unpackUnorm4x8(atlas[p.y * size.x + p.x]);
}

vec3 decode_srgb(vec3 c)
{
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c));
}

void main()
{
    vec2 t = in_uv * pc.target.zw - 0.5;
    ivec2 i = ivec2(floor(t));
    vec2 f = t - floor(t);
    vec4 a = mix(texel(i), texel(i + ivec2(1, 0)), f.x);
    vec4 b = mix(texel(i + ivec2(0, 1)), texel(i + ivec2(1, 1)), f.x);
    vec4 c = in_color * mix(a, b, f.y);
    vec3 linear = decode_srgb(c.rgb);
    out_color = vec4((pc.modes.x & CS_RENDER_FLAG_ENCODE_SRGB) != 0u ? encode_srgb(linear) : linear, c.a);
}
