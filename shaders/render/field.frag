#version 450
// field.frag — one grid cell per fragment (nearest cell, so every cell shows
// its own value): the colour map of the mode, blended over the background
// gradient by how full the cell is. Empty cells are discarded: the
// background drawn before shows exactly as it would without a field.
#include "render_shared.h"
#include "render_common.glsl"

layout(std430, binding = 0) readonly buffer Cells { float cells[]; };       // stride floats per cell
layout(std430, binding = 1) readonly buffer MaterialTable { vec4 material_table[]; }; // rgb, rest density

layout(push_constant) uniform Push { cs_render_field_push pc; };

layout(location = 0) in vec2 in_cell;
layout(location = 0) out vec4 out_color;

void main()
{
    uvec2 c = uvec2(clamp(ivec2(floor(in_cell)), ivec2(0), ivec2(pc.dims.xy) - 1));
    uint base = (c.x + pc.dims.x * c.y) * pc.modes.z;
    float mass = cells[base];          // rest masses: 1 is a cell at rest density
    if (!(mass > 0.0))
        discard;
    vec3 map;
    uint mode = pc.modes.y;
    if (mode == CS_RENDER_COLOR_SPEED) {
        vec3 v = vec3(cells[base + 1u], cells[base + 2u], cells[base + 3u]);
        map = speed_color(length(v) / pc.edge_y_depth.w);
    } else if (mode == CS_RENDER_COLOR_DENSITY) {
        map = density_color((mass - pc.top.w) / (pc.bottom.w - pc.top.w));
    } else {
        map = material_table[0].rgb;
    }
    // The background gradient as background.frag draws it at this pixel.
    float v = gl_FragCoord.y / float(pc.dims.z);
    vec3 background = mix(pc.top.rgb, pc.bottom.rgb, clamp(v, 0.0, 1.0));
    out_color = output_color(mix(background, map, min(mass, 1.0)), pc.modes.x);
}
