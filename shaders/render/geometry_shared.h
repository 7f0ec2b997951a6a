// geometry_shared.h — the radiosity-lit geometry's drawing (C:
// host/render/feature_geometry.c, GLSL: shaders/render/geometry.vert/.frag).
//
// Smooth shading: the patch triangles are drawn, and each of their corners
// takes the area-weighted mean of the radiosity of the patches that share
// that corner (corners welded by position within one geometry element and
// facing the same way), so the patch grid does not show. The vertex shader
// sums it from the frame's radiosity buffer: nothing is read back.
//
// Displayed linear colour, per channel (a Reinhard curve):
//     c = x / (1 + x),  x = exposure * B
// with B the radiosity (W/m^2) and exposure the scene's
// radiosity.exposure. The colour target encodes sRGB after it.
//
// A level lit by radiosity is drawn textured (geometry_level.vert/.frag):
// each corner takes the area-weighted mean of its patches' B / albedo
// (albedo: the face's mean texture colour, level_light.h), the light a
// white surface there would reflect, and the fragment shows
//     x = exposure * texel * (B / albedo)
// with texel the nearest texel's linear colour, so a face's texels average
// back to its patch's B. Faces not from the level show B (texel = albedo).
#ifndef RENDER_GEOMETRY_SHARED_H
#define RENDER_GEOMETRY_SHARED_H

#include "cs_shared.h"

// One weld's neighbour: a patch and its share (its area over the weld's
// total area).
struct cs_weld_entry {
    uint patch_index;
    float weight;
};

struct cs_render_geometry_push {
    vec4 view_x, view_y, view_z;
    vec4 proj;
    vec4 fog;
    vec4 misc;                     // x: fog start (view depth); y: exposure; zw unused
    uvec4 modes;                   // x: flags; y: patches in the radiosity buffer; z: welds; w: level animation step
};

// A level corner's texture: xy texel coordinates in the textile, z the
// textile index (or the sRGB colour of a coloured face), w the level
// vertex flags (level_shared.h), as floats as cs_level_vertex holds them.
// anim: x the level face's animated entry + 1 (0: not animated), y the
// object-texture corners of the face's three vertices (k0 + 4 k1 + 16 k2),
// zw the corner's barycentric weights of vertices 1 and 2 on the face, so
// the shader can put the corner on the texture the face cycles to.
struct cs_geometry_level_corner {
    vec4 uv_tile_flags;
    vec4 anim;
};

#ifndef CS_GLSL
typedef struct cs_geometry_level_corner cs_geometry_level_corner;
typedef struct cs_weld_entry cs_weld_entry;
typedef struct cs_render_geometry_push cs_render_geometry_push;
#endif

#endif
