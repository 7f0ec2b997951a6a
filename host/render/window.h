// window.h — a GLFW window with a Vulkan swapchain, input as events, and
// screenshots copied out of the swapchain.
//
// GLFW is loaded at run time (dlopen "libglfw.so.3") through a small function
// table, and only when a window is asked for: the cistern binary links
// neither GLFW nor X11, so headless runs start on GPU servers that have
// only the Vulkan loader and a driver.
//
// Owns: the GLFW library handle and window, the surface, the swapchain with
// its image views, one present semaphore per swapchain image, the acquire
// fence, and the screenshot buffer. The window system's instance extensions
// are known before the Vulkan context exists, so the order is:
//
//     cs_window win;
//     if (!cs_window_create(&(cs_window_desc){.title = "cistern", .width = 1280, .height = 720,
//                                             .vsync = true}, &win, &err)) ...   // no display, no GLFW
//     cs_context_desc cd = {.instance_extensions = win.instance_extensions,
//                           .instance_extension_count = win.instance_extension_count, ...};
//     cs_context_create(&cd, &ctx, &err);
//     cs_window_attach(&win, &ctx, &err);                  // surface + swapchain
//     cs_renderer_create(&ctx, &(cs_renderer_desc){.color_format = win.format}, &r, &err);
//     for (;;) {
//         cs_window_events ev;
//         cs_window_poll(&win, &ev);                       // keys, mouse, resize, close
//         if (ev.quit) break;
//         cs_camera_update(&cam, &ev.input, dt);
//         cs_render_target target;
//         if (!cs_window_acquire(&win, &target)) continue;  // minimised: nothing to draw
//         cs_recorder_begin(&rec);
//         ... simulation passes ...; cs_barrier_compute_to_graphics(&rec);
//         cs_render_record(&r, &rec, &(cs_render_frame){.target = &target, ...});
//         cs_window_record_present(&win, &rec, ev.capture);  // + screenshot copy when asked
//         cs_recorder_submit_wait(&rec);
//         cs_window_present(&win);
//         if (ev.capture) cs_window_save_screenshot(&win, "shot.png", &err);
//     }
//     cs_renderer_destroy(&r);
//     cs_window_destroy(&win);                             // before cs_context_destroy
//     cs_context_destroy(&ctx);
#pragma once

#include "camera.h"
#include "recorder.h"
#include "render.h"

#define CS_WINDOW_MAX_IMAGES 8

typedef struct cs_window_desc {
    const char *title;
    uint32_t width, height;    // 0: 1280 x 720
    bool vsync;                // FIFO; off: MAILBOX, else IMMEDIATE
    bool hidden;               // create without showing (tests)
} cs_window_desc;

// What happened since the last poll. Pause is a toggle (pressed twice in one
// poll: no change); the others are set by a press; camera input accumulates.
typedef struct cs_window_events {
    bool quit;                 // Esc or the close button
    bool escape;               // it was Esc (a panel editing a value takes it back: Esc ends the edit)
    bool close_requested;      // it was the close button
    bool toggle_pause;         // Space
    uint32_t steps;            // N presses (key repeat counts): single steps while paused
    bool restart;              // R
    bool cycle_color_mode;     // C: material -> speed -> density
    bool cycle_draw_mode;      // V: particles -> surface -> both -> water (fluids with a surface)
    bool cycle_albedo;         // G: the radiosity geometry's coloured walls rotate their rgb
    bool toggle_probes;        // L: particles lit by the light probes or not (scenes with radiosity.probes)
    bool next_room;            // Tab: jump to the next room of a level
    bool toggle_level_light;   // B: a level lit by radiosity <-> TR1's baked vertex light
    bool toggle_overlay;       // P: the per-pass GPU ms overlay on or off
    uint32_t flip_features;    // the render features whose key was pressed (odd times): cs_render_frame's flipped bits
    bool capture;              // F12: screenshot (and RenderDoc capture, if the loop wants)
    bool toggle_record;        // F9: video recording on or off (run.c, record.h)
    bool resized;              // the framebuffer changed size
    uint32_t width, height;    // framebuffer size now (0 when minimised)
    cs_camera_input input;     // WASD/QE fly, left-drag look, right-drag orbit, middle-drag pan, scroll
    // The pointer (scene "pointer"): 1 while Ctrl + left button pulls, -1
    // while Ctrl + right button pushes, else 0; at the cursor, framebuffer
    // pixels from the top left.
    int pointer_mode;
    double pointer_pixel[2];
    bool ctrl, shift, alt;     // modifiers held at the poll or pressed since the last (the panel: Ctrl+click, drags)
    // A file dropped onto the window (the first of them), empty when none:
    // a run opens a dropped scene as its picker does.
    char dropped[1024];
} cs_window_events;

#define CS_WINDOW_KEYS 512   // GLFW key codes below this (ImGui's KeysDown has as many)

typedef struct cs_window {
    void *lib;                 // dlopen handle of libglfw
    void *glfw;                // GLFWwindow*
    const char *const *instance_extensions; // from glfwGetRequiredInstanceExtensions
    uint32_t instance_extension_count;

    cs_context *ctx;
    VkSurfaceKHR surface;
    VkSwapchainKHR swapchain;
    VkFormat format;           // the swapchain's (fixed after attach): give it to cs_renderer_desc
    VkColorSpaceKHR color_space;
    VkPresentModeKHR present_mode;
    uint32_t width, height;    // swapchain extent
    uint32_t image_count;
    VkImage images[CS_WINDOW_MAX_IMAGES];
    VkImageView views[CS_WINDOW_MAX_IMAGES];
    VkSemaphore present_ready[CS_WINDOW_MAX_IMAGES]; // one per image: reused only after its present
    VkFence acquire_fence;
    // Frames in flight (cs_window_acquire_frame): one acquire semaphore per
    // frame slot, waited on by that frame's submit, which also signals the
    // image's present_ready itself (no host wait, no extra submit).
    VkSemaphore image_acquired[CS_FRAMES_IN_FLIGHT];
    bool present_signalled;    // the acquired image's present_ready is signalled by the frame's submit
    uint32_t image_index;      // acquired image, UINT32_MAX when none
    bool vsync;
    bool needs_rebuild;        // resize, out of date, suboptimal, vsync change
    bool can_copy;             // swapchain images allow TRANSFER_SRC

    cs_buffer screenshot;      // host-visible copy of the last captured image
    uint32_t screenshot_width, screenshot_height;
    bool screenshot_ready;
    uint8_t *screenshot_rgba;

    // Input state between polls (filled by GLFW callbacks).
    cs_window_events pending;
    double cursor[2];
    bool have_cursor;
    bool buttons[3];
    // Presses since a panel last read them (host/app/panel/panel.h): a click
    // whose press and release fall between two polls (a slow frame) would
    // otherwise never be seen down.
    bool pressed[3];
    int pointer_mode;          // the pointer held: 1 pull, -1 push, 0 none (on_button)
    // The keyboard for a panel's text entry, by GLFW key code: held, and
    // pressed since the panel last read it (a tap between two polls); the
    // characters typed since then.
    bool keys_down[CS_WINDOW_KEYS];
    bool keys_pressed[CS_WINDOW_KEYS];
    uint32_t typed[32];
    uint32_t typed_count;
    uint32_t frames_presented;
} cs_window;

// What GLFW's drop callback calls: the first path becomes the next poll's
// `dropped`. Public so that a test can drop a file without a file manager.
void cs_window_drop(cs_window *win, int count, const char *const *paths);
// Loads GLFW, opens the window (no client API) and reads the instance
// extensions Vulkan needs for it. Fails with a message when GLFW is not
// installed, there is no display, or GLFW has no Vulkan support.
bool cs_window_create(const cs_window_desc *desc, cs_window *win, cs_error *err);
// Creates the surface and the swapchain on a context made with
// win->instance_extensions. Fails when the device cannot present to it.
bool cs_window_attach(cs_window *win, cs_context *ctx, cs_error *err);
// Destroys everything, the GLFW window and library included. Call before
// cs_context_destroy (the surface belongs to the instance).
void cs_window_destroy(cs_window *win);

// Processes window-system events and fills `ev` with what happened since
// the previous poll.
void cs_window_poll(cs_window *win, cs_window_events *ev);

// Acquires the next swapchain image (rebuilding the swapchain first after a
// resize or an out-of-date report) and describes it as a render target.
// Returns false when there is nothing to draw into this frame (minimised
// window): skip drawing and poll again.
bool cs_window_acquire(cs_window *win, cs_render_target *target);
// The same for a loop with frames in flight: the image is acquired with
// frame slot `frame_slot`'s semaphore and the host does not wait for it;
// the frame's one submit must use `sync` (wait for the image before drawing
// into it, signal the image's present semaphore), and cs_window_present
// then adds no submit of its own.
bool cs_window_acquire_frame(cs_window *win, uint32_t frame_slot, cs_render_target *target, cs_submit_sync *sync);
// Records, after cs_render_record into the acquired image: the copy into the
// screenshot buffer when `screenshot` (a "screenshot" pass), then the
// transition to PRESENT_SRC.
void cs_window_record_present(cs_window *win, cs_recorder *rec, bool screenshot);
// After cs_recorder_submit_wait (or, after cs_window_acquire_frame, the
// frame's cs_recorder_submit with its sync): presents the image. Returns false when the
// swapchain was out of date (the next acquire rebuilds it).
bool cs_window_present(cs_window *win);

// The last screenshot as RGBA8 rows, top first (NULL if none was taken).
const uint8_t *cs_window_screenshot(cs_window *win, uint32_t *width, uint32_t *height);
bool cs_window_save_screenshot(cs_window *win, const char *path, cs_error *err);

void cs_window_set_title(cs_window *win, const char *title);
// Takes effect at the next acquire (the swapchain is rebuilt).
void cs_window_set_vsync(cs_window *win, bool vsync);
// Resizes the window (tests; users drag the border).
void cs_window_set_size(cs_window *win, uint32_t width, uint32_t height);

// Formats the title-bar line: scene, fps, particles, colour mode, then the
// GPU time of every pass of the last frame ("draw 0.41 ms").
void cs_window_format_title(char *buf, size_t size, const char *scene_name, double fps, uint32_t particles,
                            int color_mode, bool paused, const cs_recorder *rec);
