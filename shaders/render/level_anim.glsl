// level_anim.glsl — TR1 animated textures (cs_level_anim_entry in
// host/world/level_mesh.h; cs_level_vertex_animated is the CPU twin). The
// includer declares `anim_entries`, three vec4 an entry: corners 0-1,
// corners 2-3, (tile, alpha-test flag, range's first entry, range's count).
// At step s, entry e of a range shows entry first + (e - first + s) mod count.

uint level_anim_shown(uint entry, uint step)
{
    vec4 info = anim_entries[entry * 3u + 2u];
    uint first = uint(info.z), count = uint(info.w);
    return first + (entry - first + step % count) % count;
}

vec2 level_anim_corner(uint entry, uint corner)
{
    vec4 c = anim_entries[entry * 3u + (corner & 3u) / 2u];
    return (corner & 1u) == 0u ? c.xy : c.zw;
}

// The face's alpha-test flag replaced by that of the texture shown.
uint level_anim_flags(uint entry, uint flags)
{
    return (flags & ~CS_LEVEL_VERTEX_ALPHA_TEST) | uint(anim_entries[entry * 3u + 2u].y);
}
