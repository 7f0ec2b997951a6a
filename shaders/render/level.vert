#version 450
// level.vert — one room of a level: three vec4 per vertex pulled from the
// level's vertex buffer from params.w on (cs_level_vertex). Sprites turn to
// the camera about the vertical axis, as TR1 draws them. Faces of an
// animated texture range show the texture of the frame's animation step
// (sprite_right.w; level_anim.glsl).
#include "render_shared.h"
#include "level_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_level_push pc; };

layout(std430, binding = 0) readonly buffer Vertices { vec4 vertices[]; };
layout(std430, binding = 2) readonly buffer AnimEntries { vec4 anim_entries[]; };

#include "level_anim.glsl"

layout(location = 0) out vec2 out_uv;
layout(location = 1) flat out uvec2 out_tile_flags;
layout(location = 2) out float out_light;
layout(location = 3) out float out_depth;

void main()
{
    uint v = (uint(pc.params.w) + uint(gl_VertexIndex)) * 3u;
    vec4 position_light = vertices[v], uv_tile_flags = vertices[v + 1u], offset = vertices[v + 2u];
    uint flags = uint(uv_tile_flags.w), render_flags = uint(pc.params.z);
    vec3 p = position_light.xyz;
    if ((flags & CS_LEVEL_VERTEX_SPRITE) != 0u)
        p += offset.x * pc.sprite_right.xyz + vec3(0.0, offset.y, 0.0);
    vec3 view = to_view(pc.view_x, pc.view_y, pc.view_z, p);
    gl_Position = to_clip(pc.proj, (render_flags & CS_RENDER_FLAG_ORTHO) != 0u, view);
    out_uv = uv_tile_flags.xy;
    out_tile_flags = uvec2(uint(uv_tile_flags.z), flags);
    uint entry = uint(offset.z);
    if (entry > 0u) {
        uint shown = level_anim_shown(entry - 1u, uint(pc.sprite_right.w));
        if (shown != entry - 1u) {
            out_uv = level_anim_corner(shown, uint(offset.w));
            out_tile_flags = uvec2(uint(anim_entries[shown * 3u + 2u].x), level_anim_flags(shown, flags));
        }
    }
    out_light = position_light.w;
    out_depth = -view.z;
}
