#version 450
// tiles.frag — the checker: tile (i, k) = floor((x, z) - domain min) / tile,
// light where i + k is even; lit by the sun (sky.glsl) over a flat floor.
#include "render_shared.h"
#include "render_common.glsl"
#include "sky.glsl"

layout(push_constant) uniform Push { cs_render_box_push pc; };

layout(location = 0) in vec3 in_world;
layout(location = 1) in float in_depth;
layout(location = 0) out vec4 out_color;

void main()
{
    vec2 cell = floor((in_world.xz - pc.box_min.xz) / pc.box_min.w);
    bool light = mod(cell.x + cell.y, 2.0) == 0.0;
    vec3 albedo = light ? vec3(CS_RENDER_TILE_LIGHT) : vec3(CS_RENDER_TILE_DARK);
    float sun = max(cs_sun_direction().y, 0.0);
    vec3 c = albedo * (CS_RENDER_TILE_AMBIENT + (1.0 - CS_RENDER_TILE_AMBIENT) * sun);
    out_color = output_color(apply_fog(c, pc.fog, pc.misc.x, in_depth), uint(pc.misc.y));
}
