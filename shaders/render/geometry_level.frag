#version 450
// geometry_level.frag — a level lit by radiosity, textured: the nearest
// texel (level.frag's fetch and cut-out) times B / albedo, through the
// exposure and the Reinhard curve (geometry_shared.h), then the fog.
#include "render_shared.h"
#include "render_common.glsl"
#include "geometry_shared.h"
#include "level_shared.h"

layout(push_constant) uniform Push { cs_render_geometry_push pc; };

layout(std430, binding = 6) readonly buffer Texels { uint texels[]; };

layout(location = 0) in vec3 in_view_pos;
layout(location = 1) in vec3 in_irradiance;
layout(location = 2) in vec2 in_uv;
layout(location = 3) flat in uvec2 in_tile_flags;

layout(location = 0) out vec4 out_color;

vec3 decode_srgb(vec3 c)
{
    vec3 lo = c / 12.92;
    vec3 hi = pow((c + 0.055) / 1.055, vec3(2.4));
    return mix(hi, lo, lessThanEqual(c, vec3(0.04045)));
}

void main()
{
    vec4 t;
    if ((in_tile_flags.y & CS_LEVEL_VERTEX_COLOUR) != 0u) {
        t = unpackUnorm4x8(in_tile_flags.x | 0xff000000u);
    } else {
        uvec2 texel = uvec2(clamp(floor(in_uv), vec2(0.0), vec2(255.0)));
        t = unpackUnorm4x8(texels[in_tile_flags.x * 65536u + texel.y * 256u + texel.x]);
    }
    if ((in_tile_flags.y & CS_LEVEL_VERTEX_ALPHA_TEST) != 0u && t.a < 0.5)
        discard;
    vec3 x = pc.misc.y * decode_srgb(t.rgb) * max(in_irradiance, vec3(0.0));
    vec3 lit = x / (1.0 + x);
    lit = apply_fog(lit, pc.fog, pc.misc.x, -in_view_pos.z);
    out_color = output_color(lit, pc.modes.x);
}
