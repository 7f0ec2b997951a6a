// render.h — the renderer core: draws a frame's render features (the
// background gradient, a 2D field, the domain box, particles as lit sphere
// impostors, fluid surfaces, ...; see feature.h and features.c) into a window's swapchain
// image or into an offscreen image (headless), plus the readback of that
// image to RGBA8 and the PNG writer.
//
// Owns: the render features (each with its own programs, hot-reloadable
// through the program registry), the depth image (resized to each target),
// the offscreen colour image and its host-visible readback buffers, and a
// small material table buffer the features share. Draws with dynamic
// rendering (Vulkan 1.3) inside one recorder pass named "draw". Features
// pull their data from the simulation's storage buffers (no vertex
// buffers): record cs_barrier_compute_to_graphics() between the simulation
// and cs_render_record().
//
// Frame shape (headless):
//     cs_recorder_begin(&rec);
//     ops->record_frame(state, &rec);
//     cs_barrier_compute_to_graphics(&rec);
//     cs_render_frame frame = {.scene = scene, .camera = &cam};
//     cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &view);
//     cs_render_record(&r, &rec, &frame);
//     cs_render_record_readback(&r, &rec);
//     cs_recorder_submit_wait(&rec);
//     cs_write_png(path, r.width, r.height, cs_render_pixels(&r), &err);
#pragma once

#include "camera.h"
#include "level_mesh.h"
#include "recorder.h"
#include "sim.h"

#define CS_MAX_RENDER_FEATURES 24

// An image the renderer draws into that it does not own (a swapchain
// image). It must be in `layout` (UNDEFINED is fine: the draw overwrites
// everything) and is left in COLOR_ATTACHMENT_OPTIMAL; the owner moves it
// on (present, copy).
typedef struct cs_render_target {
    VkImage image;
    VkImageView view;
    VkFormat format;           // must be the renderer's color_format
    uint32_t width, height;
    VkImageLayout layout;
} cs_render_target;

typedef struct cs_renderer_desc {
    // Format of the images drawn into: the swapchain's for a window, 0 for
    // headless (VK_FORMAT_R8G8B8A8_SRGB). Pipelines are built for it. UNORM
    // formats get the sRGB curve applied in the shaders.
    VkFormat color_format;
    // Headless: size of the offscreen image (0 = no offscreen image).
    uint32_t width, height;
    // Also read back the depth buffer (tests check the impostor depth).
    bool readback_depth;
} cs_renderer_desc;

typedef struct cs_renderer {
    cs_context *ctx;
    VkFormat color_format;
    VkFormat depth_format;
    bool encode_srgb;          // color_format is UNORM: shaders encode
    // One state per entry of cs_render_features (feature.h), same order.
    void *features[CS_MAX_RENDER_FEATURES];
    uint32_t feature_count;
    cs_image depth;            // sized to the last target drawn
    cs_image offscreen;        // headless target (may be empty)
    VkImageLayout offscreen_layout;
    uint32_t width, height;    // offscreen size
    bool readback_depth;
    cs_buffer readback;        // RGBA8 of the offscreen image, host-visible
    cs_buffer depth_readback;  // float depths, host-visible (readback_depth)
    uint8_t *pixels;           // RGBA8 converted from `readback`, rows top to bottom
    cs_buffer material_table;  // vec4 per material: linear rgb, rest density
    // The frame's material table: the frame scene's materials (material_count
    // of them), then each particle view's own fluid's (material_used in all).
    float material_cache[CS_MAX_FLUIDS * CS_MAX_MATERIALS][4];
    uint32_t material_count, material_used;
    uint32_t view_material_base[CS_MAX_FLUIDS], view_material_count[CS_MAX_FLUIDS];
    cs_buffer dummy;           // bound where a particle view lacks a buffer
    uint32_t level_rooms_drawn; // rooms of the last frame's level drawn (portal traversal)
    // The scene copy a feature that reads the scene samples (feature.h,
    // reads_scene): the colour drawn before it and the depth, sized to the
    // target; made when first needed. can_read_scene: the device samples
    // the colour format (with linear filtering) and the depth format.
    bool can_read_scene;
    cs_image scene_color, scene_depth;
    VkSampler linear_sampler, nearest_sampler;
    cs_program_id composite;   // scene_color → the target
    // The water feature draws particle views marked water (its screen-space
    // fluid, host/render/water_ssf.h); the particle feature leaves them out.
    bool can_splat_water;
} cs_renderer;

// A fluid surface to draw: a marching-cubes mesh (pipelines/surface/surface.h's
// outputs, read where they lie) and its colour.
typedef struct cs_render_surface {
    cs_buffer *positions;      // vec4 per vertex
    cs_buffer *normals;        // vec4 per vertex, unit, pointing out of the fluid
    cs_buffer *indices;        // 3 u32 per triangle (INDEX_BUFFER usage)
    uint32_t triangle_count;   // 0: nothing drawn
    float color[3];            // linear rgb: the fluid's first material
    // Drawn as water (render.draw "water"; feature_water.c): refraction,
    // reflection and absorption, sigma per channel in 1/m (the fluid's
    // first material's "absorption"). False: the opaque surface.
    bool water;
    float absorption[3];
} cs_render_surface;

// What a frame draws is a list of drawables: a kind and a pointer to its
// data. The world appends what it has (host/app/run/world_draw.c); each render
// feature declares the kinds it reads (feature.h) and the core hands it
// those, in frame order. A new kind of data is a new kind here; a new
// feature that draws existing kinds changes nothing here.
typedef enum cs_drawable_kind {
    // cs_particle_view: one fluid's particles, with its smoke and arrow
    // styles (the particle, smoke and arrow features each take their part).
    // A view of count 0 without draw_args draws nothing.
    CS_DRAWABLE_PARTICLES,
    // cs_field_view: a 2D grid pipeline's field (one value per cell, 4
    // floats per cell: mass / rest mass, world velocity) drawn over the
    // domain rectangle, nearest cell, under the box and the particles.
    // Colour mode speed: |velocity|; density: mass / rest mass; material:
    // material 0's colour. Each cell is blended over the background by its
    // fill, min(mass / rest mass, 1); empty cells show the background.
    CS_DRAWABLE_FIELD,
    // cs_render_surface: a fluid surface (3D), drawn lit and opaque after
    // the particles.
    CS_DRAWABLE_SURFACE,
    // cs_buffer: the world's body state buffer (cs_body_state per
    // scene->bodies entry, bodies.h), where the vertex shader reads each
    // pose, so a frame needs no read-back.
    CS_DRAWABLE_BODIES,
    // cs_render_level: a level's rooms, drawn through portals from the room
    // holding the camera.
    CS_DRAWABLE_LEVEL,
    // struct cs_world_radiosity (world_radiosity.h): the geometry drawn lit
    // by its last recorded frame, and its light probes lighting the fluids.
    CS_DRAWABLE_RADIOSITY,
    CS_DRAWABLE_KIND_COUNT
} cs_drawable_kind;

#define CS_DRAWABLE_BIT(kind) (1u << (kind))

typedef struct cs_drawable {
    cs_drawable_kind kind;
    void *data;                // the kind's struct; lives until the frame is recorded
} cs_drawable;

// Every fluid's particles and surface, then a field, bodies, a level,
// radiosity, and room to spare.
#define CS_RENDER_MAX_DRAWABLES (2 * CS_MAX_FLUIDS + 8)

// A level to draw (CS_DRAWABLE_LEVEL).
typedef struct cs_render_level {
    const cs_level_mesh *mesh;
    // A level lit by radiosity (the frame's radiosity has_level) is drawn
    // one way, never both (same faces): false shows the radiosity (the
    // geometry feature), true TR1's baked light (the level feature).
    // Either way the probes still light the fluids.
    bool baked;
    // The level's clock (seconds) for its animated textures: the step is
    // floor(t x 30 / 5) (cs_level_anim_step); 0 shows every face's own texture.
    double time;
} cs_render_level;

typedef struct cs_render_frame {
    const cs_render_target *target; // NULL: the offscreen image
    // What is drawn (cs_render_frame_add appends): nothing listed, nothing
    // drawn but the background, the box and the text.
    cs_drawable drawables[CS_RENDER_MAX_DRAWABLES];
    uint32_t drawable_count;
    const cs_scene *scene;     // domain box, dim, materials, render options
    const cs_view_camera *camera;
    // Overrides; 0/negative means "from the scene" (scene->render).
    int color_mode;            // -1: scene->render.color_mode; else a cs_color_mode
    float particle_radius;     // 0: scene->render.particle_radius, else half the spacing
    float speed_max;           // speed shown at the top of the speed map (0: free-fall speed over the domain height)
    float density_spread;      // density map covers rho/rho0 in 1 -/+ spread (0: 0.1)
    bool hide_box;             // skip the domain box lines
    bool no_fog;               // fog off whatever the scene says
    // The features whose window key was pressed an odd number of times
    // (bit i: registry entry i, cs_render_feature_bit); each feature says
    // what its key flips (feature.h).
    uint32_t flipped;
    // Text drawn over everything in the top-left corner on a dark panel
    // (feature_overlay.c; the window's per-pass GPU ms). NULL: none.
    const char *overlay;
    // Text drawn in the alert colour on the same panel, above `overlay`
    // (a shader that failed to hot-reload); shown whether or not the
    // overlay is. NULL: none.
    const char *alert;
    // A user interface drawn over everything (render_ui.h; the panel). NULL: none.
    const struct cs_render_ui *ui;
} cs_render_frame;

// Appends a drawable to the frame (NULL data: nothing appended); more than
// CS_RENDER_MAX_DRAWABLES is a programming error.
void cs_render_frame_add(cs_render_frame *frame, cs_drawable_kind kind, void *data);
// The data of the frame's first drawable of `kind`; NULL: none.
void *cs_render_frame_first(const cs_render_frame *frame, cs_drawable_kind kind);

// The registry's bit of the feature named `name` (for cs_render_frame's
// flipped); 0 when no feature has that name.
uint32_t cs_render_feature_bit(const char *name);
// The features a window key flips (GLFW key code): their bits, 0 for none.
uint32_t cs_render_features_of_key(int key);
// Checks the scene's render.features: every name one of a feature that
// reads it (feature.h's scene_flag), with "did you mean" for a typo.
bool cs_render_check_scene(const cs_scene *scene, cs_error *err);
// The window keys the features declare, one "K what" per feature, joined
// by ", " into `out` (the run command's help lists them).
void cs_render_feature_keys(char *out, size_t size);

bool cs_renderer_create(cs_context *ctx, const cs_renderer_desc *desc, cs_renderer *r, cs_error *err);

// The overlay: the pixels (x0, y0, x1, y1; y down) its panel covers for
// `text` (the alert and the overlay text, one after the other); nothing of
// it is drawn outside them.
void cs_render_overlay_panel(const char *text, float panel[4]);
// How many characters of overlay text fit across an image `width` pixels
// wide (the font's wide letters, the margins left out; at least 20): the
// width alerts are wrapped to, so that the end of a line is never off the
// image.
uint32_t cs_render_overlay_columns(uint32_t width);
// The overlay's text for a recorder's last frame: the `top` passes with
// the most GPU ms (same-named passes summed), then the frame's total.
void cs_render_overlay_format(const cs_recorder *rec, uint32_t top, char *out, size_t size);
// The radius the particle feature draws its spheres at: the frame's
// override, the scene's render.particle_radius, half the particle spacing,
// else 1% of the camera's scene radius.
// The speed at the top of the speed colour map: the frame's override, else
// a free fall through the domain's largest extent (m/s).
float cs_render_speed_max(const cs_scene *scene, float frame_speed_max);
float cs_render_particle_radius(const cs_scene *scene, const cs_view_camera *camera, float frame_radius);
void cs_renderer_destroy(cs_renderer *r);

// Resizes the offscreen image (waits for the device to go idle).
bool cs_renderer_resize(cs_renderer *r, uint32_t width, uint32_t height, cs_error *err);

// Records the "draw" pass. Call between cs_recorder_begin and submit, after
// cs_barrier_compute_to_graphics. One target size per recording: when the
// size changes, the depth image is recreated (after a device idle wait).
void cs_render_record(cs_renderer *r, cs_recorder *rec, const cs_render_frame *frame);

// Records the copy of the offscreen image (and depth, if asked) into the
// readback buffers as a "readback" pass. After cs_recorder_submit_wait,
// cs_render_pixels() returns RGBA8 rows, top row first.
void cs_render_record_readback(cs_renderer *r, cs_recorder *rec);
const uint8_t *cs_render_pixels(cs_renderer *r);
// Depth in [0, 1] (1: background), rows top first; NULL unless readback_depth.
const float *cs_render_depths(cs_renderer *r);

// Writes RGBA8 rows (top first) as a PNG; fails with the path and reason.
bool cs_write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba, cs_error *err);

// Colour mode names for titles and the CLI ("material", "speed", "density").
const char *cs_color_mode_name(int mode);
