// feature.h — render features: the things the renderer draws, one module
// each, in the order of one registry (features.c).
//
// The renderer core (render.c) owns the attachments, the camera matrices,
// the material table and the frame's shared data (cs_render_view); it opens
// one dynamic rendering scope and calls every feature's record() in registry
// order, handing each the frame's drawables of the kinds it declared
// (cs_render_view's items). A feature owns its programs and whatever
// buffers it needs, decides from its items whether it has anything to
// draw, and draws with cs_draw.
//
// Adding a feature: a new host/render/feature_<name>.c defining a
// cs_render_feature (the kinds it draws, its window key, whether the
// scene's render.features can switch it), its shaders under
// shaders/render/, and one line in features.c. The core, the frame, the
// window, the world and the scene parser do not change (feature_floor.c
// was added so).
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
    // Set by the core for the feature it calls, from its declaration:
    // the frame's drawables of the kinds it draws, in frame order...
    const cs_drawable *items[CS_RENDER_MAX_DRAWABLES];
    uint32_t item_count;
    bool flipped;              // ...whether its window key was pressed an odd number of times
    bool asked;                // ...and whether the scene's render.features names it
    // For a feature that reads the scene (reads_scene below), from its
    // prepare on: the colour of everything drawn before it (the target's
    // format; linear filtering) and its depth (nearest), both in
    // SHADER_READ_ONLY_OPTIMAL. Empty (view 0) for other features.
    cs_image_binding scene_color, scene_depth;
} cs_render_view;

// The data of the first of the feature's items of `kind`; NULL: none.
void *cs_render_first(const cs_render_view *view, cs_drawable_kind kind);

typedef struct cs_render_feature {
    const char *name;          // the name render.features and cs_render_feature_bit know it by
    uint32_t draws;            // CS_DRAWABLE_BIT of each kind it reads (0: none, it draws from the view alone)
    // Optional: a window key (GLFW key code: 'F', ...) that flips the
    // feature (cs_render_view's flipped), and what it does, for the help.
    int key;
    const char *key_help;
    // Optional: what naming the feature in the scene's render.features
    // does (cs_render_view's asked), for the docs; NULL: the scene cannot
    // name it.
    const char *scene_flag;
    // Builds the feature's programs and buffers; *state is the feature's own.
    bool (*create)(cs_renderer *r, void **state, cs_error *err);
    void (*destroy)(cs_renderer *r, void *state);
    // Records its draws inside the core's rendering scope.
    void (*record)(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view);
    // Optional, for a feature that shows what lies behind it (refraction):
    // true when this frame's items need the scene drawn so far. The core
    // then draws the features before it into its own colour image, copies
    // the depth, hands both over (the view's scene_color, scene_depth),
    // calls prepare outside any rendering scope (a feature's own passes: a
    // depth pre-pass), copies that colour into the target and calls
    // record. One such feature a frame (the first that asks), and only
    // where the device can sample the formats (cs_renderer.can_read_scene).
    bool (*reads_scene)(cs_renderer *r, void *state, const cs_render_view *view);
    void (*prepare)(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view);
} cs_render_feature;

// The registry, in drawing order, NULL-terminated.
extern const cs_render_feature *const cs_render_features[];

// A graphics program for the renderer's attachments (its colour and depth
// formats), vertices pulled from storage buffers; `cull` drops back faces
// (fronts wind counter-clockwise in the framebuffer) or nothing.
bool cs_render_program(cs_renderer *r, const char *name, const char *vert, const char *frag,
                       VkPrimitiveTopology topology, bool depth_test, bool depth_write, VkCompareOp depth_compare,
                       VkCullModeFlags cull, cs_program_id *out, cs_error *err);
// The same with no colour attachment, for a feature's own depth-only pass
// (its depth image in the renderer's depth_format).
bool cs_render_depth_program(cs_renderer *r, const char *name, const char *vert, const char *frag,
                             VkCompareOp depth_compare, cs_program_id *out, cs_error *err);
