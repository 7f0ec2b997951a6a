// run_state.h — the frame loop's state (run.c) and what its parts (run_*.c)
// offer each other. Private to host/app/run/: nothing outside includes it.
#pragma once
#include "run.h"

#include "camera.h"
#include "cli.h"
#include "context.h"
#include "output.h"
#include "panel.h"
#include "prim.h"
#include "record.h"
#include "recorder.h"
#include "render.h"
#include "renderdoc.h"
#include "run_rooms.h"
#include "scene.h"
#include "scene_reload.h"
#include "sim.h"
#include "vtk_out.h"
#include "watch.h"
#include "checkpoint.h"
#include "window.h"
#include "world.h"
#include "world_draw.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

typedef struct run_state {
    const cs_run_options *opt;
    cs_scene scene;
    cs_context ctx;
    cs_world world;
    bool world_alive;
    cs_recorder frames[CS_FRAMES_IN_FLIGHT]; // the ring: slot = frame index % CS_FRAMES_IN_FLIGHT
    bool frames_created;
    struct frame_slot {
        bool pending;          // submitted, not yet finished (finish_frame)
        bool stepped;          // it simulated a frame: a stats row comes of it
        bool image;            // headless: it drew into the offscreen image and read it back
        bool png;              // headless: that image is a PNG (--png-every)
        bool record;           // its image goes into the video (headless: the read-back one; window: the screenshot copy)
        bool capture;          // a RenderDoc capture and/or a screenshot
        uint32_t frame;        // index of the loop's frame (headless: the PNG's number)
        uint32_t sim_frame;    // stepped: the simulated frame it holds (its stats row)
        bool drew;             // it drew the scene: `rooms` is what it drew of the level
        cs_rooms_drawn rooms;
    } slots[CS_FRAMES_IN_FLIGHT];
    // The latest finished frame's GPU timings (title, progress line), copied
    // when it finishes: its recorder is begun again for a later frame, which
    // clears them while they are still shown.
    cs_pass_timing last_pass_sums[64];
    uint32_t last_pass_sum_count;
    double last_gpu_ms;
    bool any_frame_done;
    cs_sim_stats last_stats;   // and its stats
    uint32_t recorded_sim_frames; // simulated frames recorded (sim_frames: finished)
    uint32_t world_first_frame; // the simulated frame the current world started at (restarts)
    uint32_t restarts;         // worlds made after the first (R, a scene reload): stats.csv's restart
    double world_start_time;   // simulated seconds of the run when the current world started
    double world_frame_seconds; // the current world's dt x substeps
    uint32_t frames_submitted;
    uint32_t frames_overlapped; // recorded while the previous frame still ran on the device
    uint64_t submits_before, waits_before; // the context's counters when the loop started
    uint32_t last_submitted_frame;
    uint32_t waits_on_latest;  // frames waited on before the next frame was recorded
    bool draining;             // finishing every frame at the loop's end
    cs_watch watch;
    bool watching;
    cs_window window;
    bool windowed;
    cs_renderer renderer;
    bool rendering;
    cs_view_camera camera;
    int color_mode;
    cs_draw_mode draw;         // what fluids with a surface show
    bool level_baked;          // a level lit by radiosity shows TR1's baked light instead (B)
    bool overlay;              // per-pass GPU ms drawn in the corner (--overlay, P)
    uint32_t flipped_features; // render features flipped by their window keys (cs_render_frame's flipped)
    char overlay_text[2048];   // the last submitted frame's, cs_render_overlay_format
    // A hot reload that failed: its first error, drawn in red in the image
    // (window and PNGs) until a reload builds every program again; empty
    // when none stands. The title alone cannot carry it: the fps title
    // replaces it twice a second, and headless frames have none.
    char shader_error[1280];
    // The scene file's watcher (--watch) and a reload that failed: the
    // message, drawn like a shader error until a save loads again.
    cs_file_watch scene_watch;
    bool scene_watching;
    char scene_error[1024];
    char scene_error_msg[2048]; // as printed, so the same error is printed once
    char alert[2400];           // what the image shows: both errors when both stand
    cs_rooms_drawn last_rooms; // the level's rooms the last finished drawn frame drew (run_rooms.h)
    uint32_t last_rooms_frame;
    bool warned_mesh;          // a surface that did not fit was reported (window)
    char out_dir[512];
    cs_out_file stats;
    bool stats_open;
    // The video (--record, F9): video_wanted while frames should go to it;
    // ffmpeg starts with the first (record.h), whose size it keeps.
    cs_record video;
    bool video_wanted;
    bool video_failed;         // ffmpeg failed or went away: the file is not whole
    char video_path[600];
    char stat_passes[64][48];
    uint32_t stat_pass_count;
    uint32_t sim_frames;       // frames simulated (the stats row index)
    uint32_t stats_rows, dumps_written, images_written, meshes_written, captures;
    // ParaView's collections (--dump-format vtu, --mesh-format vtp): one per
    // fluid with particles, one per fluid with a surface, by fluid index.
    cs_pvd particle_series[CS_MAX_FLUIDS], mesh_series[CS_MAX_FLUIDS];
    // Checkpoints (--checkpoint-every, --resume; checkpoint.h): the scene's
    // hash, the frame a resumed run starts at, what was written.
    uint64_t scene_hash;
    // --resume: the bytes of stats.csv the checkpoint's frames keep; the
    // file is cut to them only once the checkpoint has loaded (a refusal
    // at load leaves it as it was).
    long long resume_stats_keep;
    uint32_t first_frame;
    uint32_t checkpoints_written;
    uint64_t checkpoint_bytes;
    double checkpoint_ms;
    char last_checkpoint[1024];

    // --panel (panel.h): drawn over every image; in a window, what it was
    // asked in the last frame is applied with the next frame's keys.
    cs_panel *panel;
    cs_panel_requests panel_asked;
    bool paused;               // the window's pause, for the panel
    uint32_t steps_due;        // single steps asked for and not yet made (paused)
    char picked_scene[512];    // the panel's scene picker: the run starts again with it
    char panel_saved[700];     // what the panel's last save-as did
} run_state;

// run_outputs.c
bool run_open_stats(run_state *r, cs_error *err);
bool run_write_stats_row(run_state *r, const cs_recorder *rec, const cs_sim_stats *s, cs_error *err);
void run_series_file(const run_state *r, const char *series, const char *fluid, uint32_t frame,
                        const char *ext, char *name, size_t name_size, char *path, size_t path_size);
bool run_add_to_series(run_state *r, cs_pvd *pvd, const char *series, const char *fluid, const char *name,
                          uint32_t frame, cs_error *err);
bool run_dump_particles(run_state *r, cs_world *world, uint32_t frame, cs_error *err);
const char *run_mesh_ext(const run_state *r);
bool run_write_meshes(run_state *r, uint32_t frame, cs_error *err);
bool run_mesh_due(const run_state *r, uint32_t frame);
bool run_dump_due(const run_state *r, uint32_t frame);
bool run_write_image(run_state *r, uint32_t frame, cs_error *err);

// run_resume.c
bool run_checkpoint_due(const run_state *r, uint32_t frame);
bool run_write_checkpoint(run_state *r, uint32_t frame, cs_error *err);
void run_resume_default_out(const char *checkpoint, char *out, size_t size);
bool run_open_resumed_outputs(run_state *r, cs_error *err);
bool run_start_from_checkpoint(run_state *r, cs_error *err);

// run_frames.c
bool run_draws_surfaces(const run_state *r);
void run_record_draw(run_state *r, cs_recorder *rec, const cs_render_target *target);
void run_create_frames(run_state *r);
void run_warn_bodies_overflow(run_state *r);
void run_destroy_frames(run_state *r);
cs_recorder *run_begin_frame(run_state *r, uint32_t frame);
void run_submit_frame(run_state *r, cs_recorder *rec, bool stepped, const cs_submit_sync *sync);
bool run_finish_frame(run_state *r, uint32_t slot, cs_error *err);
bool run_finish_latest_frame(run_state *r, uint32_t slot, cs_error *err);
bool run_finish_all_frames(run_state *r, uint32_t next, cs_error *err);
bool run_host_needs_frame(const run_state *r, bool stepped, uint32_t sim_frame, bool image, bool capture);

// run_reload.c
void run_open_dropped(run_state *r, cs_window_events *ev);
void run_hot_reload(run_state *r);
bool run_create_world(run_state *r, cs_error *err);
bool run_reload_scene(run_state *r, uint32_t next, cs_error *err);

// run_video.c
void run_stop_video(run_state *r);
void run_record_video_frame(run_state *r, const uint8_t *px, uint32_t w, uint32_t h);
void run_toggle_video(run_state *r);

// run_panel.c
const cs_render_ui *run_panel_frame(run_state *r, uint32_t width, uint32_t height);
void run_apply_panel(run_state *r, cs_window_events *ev);
void run_update_pointer(run_state *r, const cs_window_events *ev);
