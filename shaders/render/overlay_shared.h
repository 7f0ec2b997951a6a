// overlay_shared.h — the on-screen text overlay (C: host/render/
// feature_overlay.c, GLSL: shaders/render/overlay.vert/.frag): a dark panel
// in the top-left corner and the text on it as stb_easy_font's quads,
// scaled by CS_OVERLAY_SCALE. Each quad is one vec4 in pixels of the target
// (x0, y0, x1, y1; y down), drawn as two triangles; quad 0 is the panel.
#ifndef RENDER_OVERLAY_SHARED_H
#define RENDER_OVERLAY_SHARED_H

#include "cs_shared.h"

#define CS_OVERLAY_SCALE 2.0           // pixels per stb_easy_font unit
#define CS_OVERLAY_MARGIN 8.0          // pixels from the corner to the panel, and from the panel to the text
#define CS_OVERLAY_MAX_QUADS 16384u    // text past this is cut (~ 40 lines of 60 characters)
#define CS_OVERLAY_PANEL 0.02, 0.02, 0.03  // linear rgb
#define CS_OVERLAY_TEXT 1.0, 0.85, 0.3     // linear rgb
#define CS_OVERLAY_ALERT 1.0, 0.08, 0.05   // linear rgb: a shader error's text (cs_render_frame.alert)

struct cs_render_overlay_push {
    vec4 target;                       // width, height (pixels), unused
    vec4 color;                        // linear rgb, unused
    uvec4 modes;                       // flags (CS_RENDER_FLAG_*), first quad, unused
};

#endif
