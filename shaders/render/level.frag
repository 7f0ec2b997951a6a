#version 450
// level.frag — TR1 look: the nearest texel of the textile (no filtering),
// palette index 0 cut out where the face is alpha-tested, times the baked
// vertex light (coloured faces: their colour), faded to black with depth. Textiles hold sRGB bytes; the
// shading is done in linear light.
#include "render_shared.h"
#include "level_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_level_push pc; };

layout(std430, binding = 1) readonly buffer Texels { uint texels[]; };

layout(location = 0) in vec2 in_uv;
layout(location = 1) flat in uvec2 in_tile_flags;
layout(location = 2) in float in_light;
layout(location = 3) in float in_depth;
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
    vec3 c = decode_srgb(t.rgb) * in_light;
    float fog_start = pc.params.x, fog_end = pc.params.y;
    if (fog_end > fog_start)
        c *= 1.0 - clamp((in_depth - fog_start) / (fog_end - fog_start), 0.0, 1.0);
    out_color = output_color(c, uint(pc.params.z));
}
