#version 450
// geometry_level.vert — a level lit by radiosity, textured: as
// geometry.vert, but each corner sums B / albedo of the patches around it
// (geometry_shared.h) and passes on its texture coordinates: those of the
// texture an animated face shows at the frame's step (modes.w).
#include "render_shared.h"
#include "render_common.glsl"
#include "geometry_shared.h"
#include "level_shared.h"

layout(std430, binding = 0) readonly buffer Corners { vec4 corners[]; };       // xyz; w: the corner's weld (uint bits)
layout(std430, binding = 1) readonly buffer WeldStart { uint weld_start[]; }; // welds + 1
layout(std430, binding = 2) readonly buffer Welds { cs_weld_entry welds[]; };
layout(std430, binding = 3) readonly buffer Radiosity { vec4 radiosity[]; };  // per patch, rgb
layout(std430, binding = 4) readonly buffer InverseAlbedo { vec4 inverse_albedo[]; }; // per patch, rgb
layout(std430, binding = 5) readonly buffer Textures { cs_geometry_level_corner textures[]; }; // per corner
layout(std430, binding = 7) readonly buffer AnimEntries { vec4 anim_entries[]; }; // cs_level_anim_entry

#include "level_anim.glsl"

layout(push_constant) uniform Push { cs_render_geometry_push pc; };

layout(location = 0) out vec3 out_view_pos;
layout(location = 1) out vec3 out_irradiance;
layout(location = 2) out vec2 out_uv;
layout(location = 3) flat out uvec2 out_tile_flags;

void main()
{
    vec4 c = corners[gl_VertexIndex];
    uint weld = floatBitsToUint(c.w);
    vec3 e = vec3(0.0);
    if (weld < pc.modes.z) {
        for (uint k = weld_start[weld]; k < weld_start[weld + 1u]; k++) {
            cs_weld_entry w = welds[k];
            if (w.patch_index < pc.modes.y)
                e += w.weight * radiosity[w.patch_index].rgb * inverse_albedo[w.patch_index].rgb;
        }
    }
    out_irradiance = e;
    vec4 t = textures[gl_VertexIndex].uv_tile_flags, anim = textures[gl_VertexIndex].anim;
    out_uv = t.xy;
    out_tile_flags = uvec2(uint(t.z), uint(t.w));
    uint entry = uint(anim.x);
    if (entry > 0u) {
        uint shown = level_anim_shown(entry - 1u, pc.modes.w);
        if (shown != entry - 1u) {
            uint k = uint(anim.y);
            vec3 w = vec3(1.0 - anim.z - anim.w, anim.z, anim.w);
            out_uv = w.x * level_anim_corner(shown, k) + w.y * level_anim_corner(shown, k >> 2u) +
                     w.z * level_anim_corner(shown, k >> 4u);
            out_tile_flags = uvec2(uint(anim_entries[shown * 3u + 2u].x), level_anim_flags(shown, out_tile_flags.y));
        }
    }
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 vp = to_view(pc.view_x, pc.view_y, pc.view_z, c.xyz);
    out_view_pos = vp;
    gl_Position = to_clip(pc.proj, ortho, vp);
}
