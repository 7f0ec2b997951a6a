// feature.h — render features: the things the renderer draws, one module
// each, in the order of one registry (features.c).
//
// The renderer core (render.c) owns the attachments, the camera matrices,
// the material table and the frame's shared data (cs_render_view); it opens
// one dynamic rendering scope and calls every feature's record() in registry
// order. A feature owns its programs and whatever buffers it needs, decides
// from the frame whether it has anything to draw, and draws with cs_draw.
//
// Adding a feature: a new host/render/feature_<name>.c defining a
// cs_render_feature, and one line in features.c. The core does not change.
#pragma once

#include "render.h"

#include "../../shaders/render/render_shared.h"

// Per-frame data every feature reads: computed once by the core.
typedef struct cs_render_view {
    const cs_render_frame *frame;
    const cs_scene *scene;
    cs_camera_matrices matrices;
    vec4 view_rows[3];         // world → view rows (x, y, z), as the shaders take them
    vec4 proj;                 // sx, sy, a, b
    vec4 fog;                  // rgb, density (0: off)
    float fog_start;           // view depth where the fog starts
    vec4 background_top, background_bottom; // the gradient, linear rgb
    uint32_t flags;            // CS_RENDER_FLAG_*
    int color_mode;            // cs_color_mode of this frame
    float density_spread;      // density map covers rho/rho0 in 1 -/+ spread
    float speed_max;           // speed at the top of the speed map
    uint32_t width, height;    // target size in pixels
} cs_render_view;

typedef struct cs_render_feature {
    const char *name;
    // Builds the feature's programs and buffers; *state is the feature's own.
    bool (*create)(cs_renderer *r, void **state, cs_error *err);
    void (*destroy)(cs_renderer *r, void *state);
    // Records its draws inside the core's rendering scope.
    void (*record)(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view);
} cs_render_feature;

// The registry, in drawing order, NULL-terminated.
extern const cs_render_feature *const cs_render_features[];

// A graphics program for the renderer's attachments (its colour and depth
// formats), vertices pulled from storage buffers; `cull` drops back faces
// (fronts wind counter-clockwise in the framebuffer) or nothing.
bool cs_render_program(cs_renderer *r, const char *name, const char *vert, const char *frag,
                       VkPrimitiveTopology topology, bool depth_test, bool depth_write, VkCompareOp depth_compare,
                       VkCullModeFlags cull, cs_program_id *out, cs_error *err);
