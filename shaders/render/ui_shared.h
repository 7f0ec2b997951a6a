// ui_shared.h — a user interface over the frame (C: host/render/
// feature_ui.c, render_ui.h; GLSL: shaders/render/ui.vert/.frag): vertices
// of 5 words (x, y, u, v in floats, then R, G, B, A bytes; ImDrawVert's
// layout), indices into them, and an RGBA8 atlas of one word a texel that
// the fragment shader filters bilinearly itself.
#ifndef RENDER_UI_SHARED_H
#define RENDER_UI_SHARED_H

#include "cs_shared.h"

#define CS_UI_VERTEX_WORDS 5u

struct cs_render_ui_push {
    vec4 target;                       // width, height (pixels), atlas width, atlas height
    uvec4 modes;                       // flags (CS_RENDER_FLAG_*), first index, unused, unused
};

#endif
