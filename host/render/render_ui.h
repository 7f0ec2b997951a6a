// render_ui.h — a user interface drawn over a frame (cs_render_frame.ui):
// triangles in pixels with a texture coordinate and a colour, cut into
// commands that each keep to a clip rectangle, and one RGBA8 texture (a
// font atlas). It is the shape of Dear ImGui's ImDrawData, flattened, so
// the renderer stays C and knows nothing of ImGui (host/app/panel/panel.h makes
// it); feature_ui.c draws it, the same way into a window and headless.
#pragma once

#include <stdint.h>

// 20 bytes, as ImDrawVert: position (pixels, y down), texture coordinate,
// colour as R, G, B, A bytes (sRGB, straight alpha).
typedef struct cs_render_ui_vertex {
    float x, y;
    float u, v;
    uint32_t rgba;
} cs_render_ui_vertex;

// `count` indices from `first` (into cs_render_ui.indices), drawn where
// x0 <= x < x1 and y0 <= y < y1 (pixels).
typedef struct cs_render_ui_command {
    uint32_t first, count;
    float clip[4];
} cs_render_ui_command;

typedef struct cs_render_ui {
    const cs_render_ui_vertex *vertices;
    uint32_t vertex_count;
    const uint32_t *indices;   // into vertices (each command's offset already added)
    uint32_t index_count;
    const cs_render_ui_command *commands;
    uint32_t command_count;
    // The texture every vertex samples: RGBA8 rows, top first. The renderer
    // copies it when `atlas_id` changes (0: none yet).
    const uint32_t *atlas;
    uint32_t atlas_width, atlas_height;
    uint64_t atlas_id;
} cs_render_ui;
