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
    uvec4 modes;                   // x: flags; y: patches in the radiosity buffer; z: welds; w unused
};

#ifndef CS_GLSL
typedef struct cs_weld_entry cs_weld_entry;
typedef struct cs_render_geometry_push cs_render_geometry_push;
#endif

#endif
