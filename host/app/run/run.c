// run.c — see run.h. The frame loop: simulate → draw → outputs.
//
// One loop serves both modes. Headless: a fixed number of frames, an image
// every --png-every frames. Window: until Esc, with pause/step/restart,
// colour modes, particles / surface / both (V), camera input, F12 captures.
// Both write stats.csv (one row per simulated frame), the PLY dumps and the
// surface meshes, and both hot-reload shaders when watching.
//
// A frame that shows or writes a surface is two submits (the mesh's size
// is read back between them, docs/surface.md "In the frame"):
//   [substeps, frame ends, surface fields + counts] submit
//   [surface emits, draw, readback or present]       submit
// Other frames are the second half's drawing in the first submit, as before.
//
// Frames in flight: a ring of CS_FRAMES_IN_FLIGHT recorders (each its own
// command buffer, fence and timestamps; recorder.h). A frame is recorded
// and submitted once, its stats included (cs_world_record_stats), and the
// loop waits only for the frame that last used the slot it reuses: that
// frame's stats row, check and timings are read then, one frame late,
// while the next frame runs. A frame whose results the host needs at once
// (a PNG, a PLY dump, a mesh file, a capture) is waited on right after its
// submit, and so is every frame of a world whose solvers cannot record their
// stats into the frame (cs_world_stats_in_frame).
#define _GNU_SOURCE
#include "run_state.h"

static int run_headless(run_state *r)
{
    const cs_run_options *opt = r->opt;
    uint32_t frames = opt->frames ? opt->frames : 120;
    cs_progress progress;
    if (!opt->quiet)
        cs_progress_begin(&progress, frames);
    cs_error err;
    for (uint32_t frame = r->first_frame; frame < frames; frame++) {
        if (r->watching)
            run_hot_reload(r);
        if (r->scene_watching && !run_reload_scene(r, frame, &err))
            goto failed;
        uint32_t slot = frame % CS_FRAMES_IN_FLIGHT;
        if (!run_finish_frame(r, slot, &err))
            goto failed;
        bool capture = (int)frame == opt->capture_frame;
        if (capture)
            cs_renderdoc_begin();
        bool png = r->rendering && opt->png_every && (frame % opt->png_every == 0 || frame + 1 == frames);
        bool record = r->rendering && r->video_wanted;
        bool image = png || record;
        uint32_t sim_frame = r->recorded_sim_frames;
        cs_recorder *rec = run_begin_frame(r, frame);
        cs_world_record_frame(&r->world, rec);
        // Meshing splits the frame in two submits (world.h).
        if ((run_mesh_due(r, sim_frame) || (image && run_draws_surfaces(r))) &&
            !cs_world_mesh_surfaces(&r->world, rec, &err)) {
            cs_recorder_submit_wait(rec); // the resumed recording, so nothing is left pending
            goto failed;
        }
        if (image) {
            run_record_draw(r, rec, NULL);
            cs_render_record_readback(&r->renderer, rec);
            r->slots[slot].rooms = cs_run_rooms_drawn(&r->renderer, &r->world, r->level_baked);
            r->slots[slot].drew = true;
        }
        r->slots[slot].image = image;
        r->slots[slot].png = png;
        r->slots[slot].record = record;
        r->slots[slot].capture = capture;
        run_submit_frame(r, rec, true, NULL);
        if (run_host_needs_frame(r, true, sim_frame, image, capture) && !run_finish_latest_frame(r, slot, &err))
            goto failed;
        if (run_checkpoint_due(r, sim_frame) && !run_write_checkpoint(r, sim_frame, &err))
            goto failed;
        if (!opt->quiet) {
            char status[128];
            snprintf(status, sizeof status, "%.2f ms GPU per frame", r->last_gpu_ms);
            cs_progress_update(&progress, frame + 1, status);
        }
    }
    if (!run_finish_all_frames(r, frames, &err))
        goto failed;
    if (!opt->quiet)
        cs_progress_end(&progress);
    if (r->last_rooms.total) {
        char rooms[96];
        cs_run_rooms_text(r->last_rooms, rooms, sizeof rooms);
        printf("cistern: %s: level: %s in the last image (frame %u)\n", r->scene.name, rooms, r->last_rooms_frame);
    }
    return 0;
failed:
    fprintf(stderr, "\ncistern: %s\n", err.msg);
    vkDeviceWaitIdle(r->ctx.device);
    return 1;
}

// The window's keys that flip a mode (pause, colours, overlay, video, ...).
static void apply_window_keys(run_state *r, const cs_window_events *ev)
{
    if (ev->toggle_pause)
        r->paused = !r->paused;
    if (ev->cycle_color_mode) {
        int mode = r->color_mode < 0 ? (int)r->scene.render.color_mode : r->color_mode;
        r->color_mode = (mode + 1) % 3;
    }
    if (ev->cycle_albedo && r->world.radiosity) {
        vkDeviceWaitIdle(r->ctx.device); // the patches buffer is overwritten
        cs_world_radiosity_cycle_albedo(&r->ctx, r->world.radiosity);
    }
    if (ev->toggle_probes && r->world.radiosity) {
        vkDeviceWaitIdle(r->ctx.device); // the probes' header is overwritten
        cs_world_radiosity_toggle_probes(&r->ctx, r->world.radiosity);
    }
    if (ev->toggle_level_light)
        r->level_baked = !r->level_baked;
    if (ev->toggle_overlay)
        r->overlay = !r->overlay;
    r->flipped_features ^= ev->flip_features;
    if (ev->toggle_record)
        run_toggle_video(r);
    if (ev->cycle_draw_mode) {
        if (r->world.surface_count)
            r->draw = (cs_draw_mode)((r->draw + 1) % CS_DRAW_MODE_COUNT);
        else
            fprintf(stderr, "cistern: V: no fluid of %s has a surface (\"surface\": {\"enabled\": true}, 3D "
                            "scenes)\n", r->scene.name);
    }
}

// R: the world made again from the scene, after its frames in flight
// finish (their stats rows). False: said why.
static bool restart_world(run_state *r, uint32_t drawn)
{
    cs_error err;
    if (!run_finish_all_frames(r, drawn, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return false;
    }
    vkDeviceWaitIdle(r->ctx.device);
    cs_world_destroy(&r->world);
    r->world_alive = false;
    if (!run_create_world(r, &err)) {
        fprintf(stderr, "cistern: restart failed: %s\n", err.msg);
        return false;
    }
    return true;
}

// The title, twice a second: fps, particles, colour mode, GPU timings,
// and first what stands wrong (the error itself is drawn in the image).
static void update_title(run_state *r, double frames_per_second)
{
    // The title reads the timings as a recorder's pass list.
    const cs_recorder timings = {.passes = r->last_pass_sums, .pass_count = r->last_pass_sum_count};
    // While a shader error stands the title says so first: it
    // replaces the hot reload's error title, and the error itself
    // is drawn in the image.
    char title[1024];
    size_t prefix = (size_t)snprintf(title, sizeof title, "%s%s%s",
                                     r->shader_error[0] ? "SHADER ERROR (see the image) - " : "",
                                     r->scene_error[0] ? "SCENE ERROR (see the image) - " : "",
                                     cs_record_active(&r->video) ? "REC - " : "");
    cs_window_format_title(title + prefix, sizeof title - prefix, r->scene.name, frames_per_second,
                           r->last_stats.particles,
                           r->color_mode < 0 ? (int)r->scene.render.color_mode : r->color_mode, r->paused,
                           &timings);
    char rooms[96];
    cs_run_rooms_text(r->last_rooms, rooms, sizeof rooms);
    size_t used = strlen(title);
    if (rooms[0] && used < sizeof title)
        snprintf(title + used, sizeof title - used, " - %s", rooms);
    cs_window_set_title(&r->window, title);
}

static int run_window(run_state *r)
{
    const cs_run_options *opt = r->opt;
    cs_error err;
    double last = cs_now_seconds(), title_time = last;
    uint32_t frames_since_title = 0, drawn = 0;
    for (;;) {
        cs_window_events ev;
        cs_window_poll(&r->window, &ev);
        if (r->panel)
            run_apply_panel(r, &ev);
        if (ev.dropped[0])
            run_open_dropped(r, &ev);
        if (ev.quit)
            break;
        double now = cs_now_seconds();
        cs_camera_update(&r->camera, &ev.input, now - last);
        last = now;
        run_update_pointer(r, &ev);
        apply_window_keys(r, &ev);
        if (ev.restart && !restart_world(r, drawn))
            return 1;
        if (r->watching)
            run_hot_reload(r);
        if (r->scene_watching && !run_reload_scene(r, drawn, &err)) {
            fprintf(stderr, "cistern: %s\n", err.msg);
            return 1;
        }
        // Wait for the frame that last used this slot (two frames ago), not
        // for the one just submitted.
        uint32_t slot = drawn % CS_FRAMES_IN_FLIGHT;
        if (!run_finish_frame(r, slot, &err)) {
            fprintf(stderr, "cistern: %s\n", err.msg);
            vkDeviceWaitIdle(r->ctx.device);
            return 1;
        }
        cs_render_target target;
        cs_submit_sync sync;
        if (!cs_window_acquire_frame(&r->window, slot, &target, &sync))
            continue;
        // Each N press (or the panel's Step) is one frame, however many
        // arrive in one poll: they wait here and go one a frame.
        r->steps_due = r->paused ? r->steps_due + ev.steps : 0;
        bool step = !r->paused || r->steps_due > 0;
        if (r->paused && step)
            r->steps_due--;
        // F12 or --capture-frame: a RenderDoc capture (when attached) and a
        // screenshot of the swapchain image.
        bool capture = ev.capture || (int)drawn == opt->capture_frame;
        // Only simulated frames go into the video: its time is the
        // simulation's, a pause does not stretch it.
        bool record = r->video_wanted && step;
        if (capture)
            cs_renderdoc_begin();
        uint32_t sim_frame = r->recorded_sim_frames;
        cs_recorder *rec = run_begin_frame(r, drawn);
        if (step)
            cs_world_record_frame(&r->world, rec);
        // A paused frame draws the meshes it has, unless they are stale
        // (a restart, or V pressed while paused).
        bool mesh = step && run_mesh_due(r, sim_frame);
        bool stale = run_draws_surfaces(r) && (step || !cs_world_surfaces_current(&r->world));
        if ((mesh || stale) && !cs_world_mesh_surfaces(&r->world, rec, &err)) {
            if (mesh) {
                fprintf(stderr, "cistern: %s\n", err.msg);
                cs_recorder_submit(rec, &sync);
                vkDeviceWaitIdle(r->ctx.device);
                return 1;
            }
            if (!r->warned_mesh)
                fprintf(stderr, "cistern: %s; drawing particles where the surface does not fit\n", err.msg);
            r->warned_mesh = true;
        }
        run_record_draw(r, rec, &target);
        r->slots[slot].rooms = cs_run_rooms_drawn(&r->renderer, &r->world, r->level_baked);
        r->slots[slot].drew = true;
        cs_window_record_present(&r->window, rec, capture || record);
        r->slots[slot].capture = capture;
        r->slots[slot].record = record;
        run_submit_frame(r, rec, step, &sync);
        cs_window_present(&r->window);
        if (run_host_needs_frame(r, step, sim_frame, false, capture || record) && !run_finish_latest_frame(r, slot, &err)) {
            fprintf(stderr, "cistern: %s\n", err.msg);
            vkDeviceWaitIdle(r->ctx.device);
            return 1;
        }
        drawn++;
        frames_since_title++;
        if (now - title_time > 0.5 && r->any_frame_done) {
            update_title(r, frames_since_title / (now - title_time));
            title_time = now;
            frames_since_title = 0;
        }
        if (opt->frames && drawn >= opt->frames)
            break;
    }
    if (!run_finish_all_frames(r, drawn, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 1;
    }
    return 0;
}

static bool open_window(run_state *r, cs_error *err)
{
    const cs_run_options *opt = r->opt;
    char title[128];
    snprintf(title, sizeof title, "cistern — %s", r->scene.name);
    // --size, else the scene's render.width and height (the parser gives
    // them their defaults, 1280 x 720), as for the headless images.
    uint32_t width = opt->width ? opt->width : r->scene.render.width;
    uint32_t height = opt->height ? opt->height : r->scene.render.height;
    return cs_window_create(&(cs_window_desc){.title = title, .width = width, .height = height,
                                              .vsync = !opt->no_vsync},
                            &r->window, err);
}

// How the frame loop used the queue: submits and host fence waits per
// frame (every kind: frames, stats, uploads, the window's), and how many
// frames were recorded while the frame before them still ran on the device.
static void print_frame_report(const run_state *r)
{
    uint32_t n = CS_MAX(r->frames_submitted, 1u);
    uint64_t submits = r->ctx.queue_submits - r->submits_before, waits = r->ctx.fence_waits - r->waits_before;
    fprintf(stderr, "cistern: frame loop: %u frames, %.2f queue submits and %.2f fence waits a frame, "
                    "%u waited on before the next was recorded, %u of %u recorded while the previous one ran "
                    "(%d in flight)\n",
            r->frames_submitted, (double)submits / n, (double)waits / n, r->waits_on_latest, r->frames_overlapped,
            r->frames_submitted ? r->frames_submitted - 1 : 0, CS_FRAMES_IN_FLIGHT);
}

// The closing line: what is on disk now, counted as it was written (a file
// whose write failed is not counted, and was removed).
static void print_summary(const run_state *r, bool stats_whole, bool stopped)
{
    // Absolute, so the user can open it from wherever they are.
    char where[PATH_MAX];
    if (!realpath(r->out_dir, where))
        snprintf(where, sizeof where, "%s", r->out_dir);
    if (stopped)
        fprintf(stderr, "cistern: stopped after %u frames of %s; wrote", r->sim_frames, r->scene.name);
    else
        fprintf(stderr, "cistern: %u frames of %s; wrote", r->sim_frames, r->scene.name);
    const char *sep = " ";
    if (stats_whole)
        fprintf(stderr, "%s%s/stats.csv (%u rows)", sep, where, r->stats_rows), sep = ", ";
    else if (r->stats_rows)
        fprintf(stderr, "%s%s/stats.csv (%u rows before the write failed)", sep, where, r->stats_rows), sep = ", ";
    if (r->dumps_written && r->opt->dump_vtu)
        fprintf(stderr, "%s%u VTU dumps (%s/particles_*.vtu, listed in particles*.pvd)", sep, r->dumps_written,
                where), sep = ", ";
    else if (r->dumps_written)
        fprintf(stderr, "%s%u PLY dumps (%s/particles_*.ply)", sep, r->dumps_written, where), sep = ", ";
    if (r->images_written)
        fprintf(stderr, "%s%u PNG images (%s/frame_*.png)", sep, r->images_written, where), sep = ", ";
    if (r->meshes_written)
        fprintf(stderr, "%s%u meshes (%s/mesh_*.%s%s)", sep, r->meshes_written, where, run_mesh_ext(r),
                r->opt->mesh_format == CS_MESH_VTP ? ", listed in mesh*.pvd" : ""), sep = ", ";
    if (r->checkpoints_written)
        fprintf(stderr, "%s%u checkpoints (the last %s, %.1f MiB, %.0f ms a write)", sep, r->checkpoints_written,
                r->last_checkpoint, (double)r->checkpoint_bytes / (1024.0 * 1024.0),
                r->checkpoint_ms / r->checkpoints_written), sep = ", ";
    fprintf(stderr, "%s\n", *sep == ' ' ? " nothing" : "");
}

// The scene read, --record and the output folder settled, all before
// Vulkan starts: a refusal costs nothing, and no run ends after minutes on
// a folder it cannot use. False: said why (exit 2); the scene is freed.
static bool settle_inputs(run_state *r)
{
    const cs_run_options *opt = r->opt;
    cs_error err;
    if (!cs_scene_load_edited(opt->scene, opt->edits.items, opt->edits.count, &r->scene, &err) ||
        !cs_render_check_scene(&r->scene, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return false;
    }
    if (opt->particles)
        cs_scene_scale_world(&r->scene, opt->particles);
    // --record: no ffmpeg, or a file there already, is refused rather than
    // found out after the first frame.
    if (opt->record_path) {
        char hint[200];
        struct stat st;
        bool exists = lstat(opt->record_path, &st) == 0;
        if (!cs_record_available(hint, sizeof hint))
            fprintf(stderr, "cistern: --record: %s\n", hint);
        else if (exists && (!S_ISREG(st.st_mode) || !opt->overwrite))
            fprintf(stderr, "cistern: --record: %s exists%s\n", opt->record_path,
                    S_ISREG(st.st_mode) ? "; --overwrite replaces it" : " and is not a regular file");
        else if (strlen(opt->record_path) >= sizeof r->video_path)
            fprintf(stderr, "cistern: --record: the path is too long\n");
        else
            snprintf(r->video_path, sizeof r->video_path, "%s", opt->record_path), r->video_wanted = true;
        if (!r->video_wanted) {
            cs_scene_free(&r->scene);
            return false;
        }
    }
    if (opt->out_dir)
        snprintf(r->out_dir, sizeof r->out_dir, "%s", opt->out_dir);
    else if (opt->resume)
        run_resume_default_out(opt->resume, r->out_dir, sizeof r->out_dir);
    else
        snprintf(r->out_dir, sizeof r->out_dir, "out/%s", r->scene.name);
    bool out_ready = opt->resume ? run_open_resumed_outputs(r, &err)
                                 : cs_prepare_out_dir(r->out_dir, opt->overwrite, CS_OUT_RUN, &err) &&
                                       run_open_stats(r, &err);
    if (!out_ready) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        cs_scene_free(&r->scene);
        return false;
    }
    return true;
}

// The device (and the window's surface on it), RenderDoc, the world (or
// the checkpoint's), then the renderer and the panel when images are
// wanted. Returns the exit code: 0 to run, 1 (the device) or 2 (the scene).
static int start_world(run_state *r)
{
    const cs_run_options *opt = r->opt;
    cs_error err;
    if (!opt->headless) {
        r->windowed = open_window(r, &err);
        if (!r->windowed)
            fprintf(stderr, "cistern: no window (%s); running headless\n", err.msg);
    }
    if (opt->load_renderdoc && !cs_renderdoc_load())
        fprintf(stderr, "cistern: --renderdoc: cannot load librenderdoc.so (apt-get install librenderdoc)\n");
    cs_context_desc desc = {.validation = opt->validation, .device = opt->device, .verbose = !opt->quiet,
                            .settings = cs_cli_settings()};
    if (r->windowed) {
        desc.instance_extensions = r->window.instance_extensions;
        desc.instance_extension_count = r->window.instance_extension_count;
    }
    r->draw = r->scene.render.draw;
    // Nothing asked of the panel yet: apply_panel runs before the panel's
    // first frame, and a zeroed request reads "material, particles" (it
    // overrode the scene's render.color_mode and render.draw at start).
    r->panel_asked = (cs_panel_requests){.color_mode = -1, .draw_mode = -1};
    if (!cs_context_create(&desc, &r->ctx, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 1;
    }
    if (r->windowed && !cs_window_attach(&r->window, &r->ctx, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 1;
    }
    if (cs_renderdoc_attach() && opt->capture_path)
        cs_renderdoc_set_path(opt->capture_path);
    if (opt->capture_frame >= 0 && !cs_renderdoc_available())
        fprintf(stderr, "cistern: --capture-frame: RenderDoc is not attached; run under `renderdoccmd capture` "
                        "or add --renderdoc\n");

    if (!run_create_world(r, &err)) {
        cs_scene_edit_blame(&err, opt->edits.items, opt->edits.count);
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 2;
    }
    if ((opt->checkpoint_every || opt->resume) && !run_start_from_checkpoint(r, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 2;
    }
    if (opt->mesh_every && r->world.surface_count == 0) {
        fprintf(stderr, "cistern: --mesh-every: no fluid of %s has a surface; give it \"surface\": {\"enabled\": "
                        "true} (3D scenes; docs/scenes.md)\n", r->scene.name);
        return 2;
    }
    if (r->world.density_warnings[0])
        fprintf(stderr, "cistern: %s\n", r->world.density_warnings);
    for (uint32_t i = 0; i < r->world.surface_count && !opt->quiet; i++)
        if (r->world.surfaces[i].note[0])
            fprintf(stderr, "cistern: %s\n", r->world.surfaces[i].note);
    bool drawable = false;
    for (uint32_t i = 0; i < r->world.fluid_count; i++)
        drawable |= r->world.fluids[i].ops->particles || r->world.fluids[i].ops->field;
    if (opt->record_path && !drawable && !r->windowed) {
        fprintf(stderr, "cistern: --record: %s draws nothing (no fluid with particles or a field)\n", r->scene.name);
        return 2;
    }
    bool want_images = r->windowed || ((opt->png_every || opt->record_path) && drawable);
    if (want_images) {
        uint32_t w = opt->width ? opt->width : r->scene.render.width;
        uint32_t h = opt->height ? opt->height : r->scene.render.height;
        cs_renderer_desc rd = {.width = w ? w : 960, .height = h ? h : 540};
        if (r->windowed)
            rd = (cs_renderer_desc){.color_format = r->window.format};
        r->rendering = cs_renderer_create(&r->ctx, &rd, &r->renderer, &err);
        if (!r->rendering) {
            fprintf(stderr, "cistern: %s\n", err.msg);
            return 1;
        }
        cs_camera_from_scene(&r->camera, &r->scene);
        r->panel = opt->panel ? cs_panel_create(r->windowed) : NULL;
    }
    return 0;
}

// --watch: the shader folder and the scene file, each reloaded on save.
static void start_watching(run_state *r)
{
    const cs_run_options *opt = r->opt;
    cs_error err;
    r->watching = cs_watch_open(&r->watch, cs_shader_dir(), 100, &err);
    if (!r->watching)
        fprintf(stderr, "cistern: %s\n", err.msg);
    else if (!opt->quiet) {
        // Which of the two radix sorts' shaders the grids run (prim.h:
        // 4-bit digits on CPU devices, 8-bit on GPUs that pass its
        // self-test), so an edit goes to the file that is live.
        uint32_t digit_bits, block_keys;
        cs_error unused;
        if (cs_sort_choose(&r->ctx, &digit_bits, &block_keys, &unused))
            fprintf(stderr, "cistern: watching %s for shader edits (radix sort: %u-bit digits, %s)\n",
                    cs_shader_dir(), digit_bits, cs_sort_scatter_source(digit_bits));
        else
            fprintf(stderr, "cistern: watching %s for shader edits\n", cs_shader_dir());
    }
    // The scene file too: a save rebuilds the world (reload_scene).
    cs_file_watch_open(&r->scene_watch, r->scene.path, 0.1);
    r->scene_watching = true;
    if (!opt->quiet)
        fprintf(stderr, "cistern: watching %s for scene edits\n", r->scene.path);
}

// After the loop: the video finished, stats.csv closed (it counts only
// once closed whole) and the summary. Returns the exit code.
static int finish_run(run_state *r, int code)
{
    const cs_run_options *opt = r->opt;
    cs_error err;
    run_stop_video(r);
    if (r->video_failed && code == 0)
        code = 1; // the video asked for is not whole
    run_warn_bodies_overflow(r);
    if (opt->verbose)
        print_frame_report(r);
    // stats.csv counts only once it is closed whole; a failure that stopped
    // the run was reported there already.
    bool stats_failed_before = r->stats.error != 0;
    bool stats_whole = cs_out_close(&r->stats, &err);
    r->stats_open = false;
    if (!stats_whole && !stats_failed_before)
        fprintf(stderr, "cistern: %s\n", err.msg);
    if (!stats_whole)
        code = 1;
    if (!opt->quiet)
        print_summary(r, stats_whole, code != 0);
    return code;
}

// Everything the run made, released in reverse, however far it got; the
// validation and checked-shader counts turn a clean exit into 1.
static int release_run(run_state *r, int code)
{
    const cs_run_options *opt = r->opt;
    run_stop_video(r); // a run that failed: ffmpeg still finishes what it has
    run_destroy_frames(r);
    if (r->stats_open)
        cs_out_abandon(&r->stats);
    if (r->watching)
        cs_watch_close(&r->watch);
    if (r->panel && cs_panel_edit_list(r->panel)->count) {
        // What was changed while it ran, to write into the scene file.
        const cs_panel_edits *edits = cs_panel_edit_list(r->panel);
        fprintf(stderr, "cistern: panel edits of %s (key.path=value):\n", r->scene.name);
        for (uint32_t i = 0; i < edits->count; i++)
            fprintf(stderr, "  %s\n", edits->items[i]);
    }
    cs_panel_destroy(r->panel);
    if (r->rendering)
        cs_renderer_destroy(&r->renderer);
    if (r->world_alive)
        cs_world_destroy(&r->world);
    if (r->windowed)
        cs_window_destroy(&r->window);
    cs_context_destroy(&r->ctx);
    for (uint32_t i = 0; i < CS_MAX_FLUIDS; i++)
        cs_pvd_free(&r->particle_series[i]), cs_pvd_free(&r->mesh_series[i]);
    cs_scene_free(&r->scene);
    cs_shader_shutdown();
    if (opt->validation && r->ctx.validation_errors) {
        fprintf(stderr, "cistern: %u Vulkan validation error(s) were reported\n", r->ctx.validation_errors);
        if (code == 0)
            code = 1;
    }
    if (r->ctx.shader_check_violations) { // CISTERN_CHECKED_SHADERS=1: each was printed after its submit
        fprintf(stderr, "cistern: %u out-of-bounds shader access(es) were reported (checked shaders)\n",
                r->ctx.shader_check_violations);
        if (code == 0)
            code = 1;
    }
    return code;
}

static int run(run_state *r)
{
    if (!settle_inputs(r))
        return 2;
    int code = start_world(r);
    if (code == 0) {
        if (r->opt->watch)
            start_watching(r);
        run_create_frames(r);
        r->submits_before = r->ctx.queue_submits;
        r->waits_before = r->ctx.fence_waits;
        code = r->windowed ? run_window(r) : run_headless(r);
        code = finish_run(r, code);
    }
    return release_run(r, code);
}

// True when `dir` is missing or holds nothing (a picked scene may write there).
static bool folder_free(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT;
    bool empty = true;
    struct dirent *e;
    while (empty && (e = readdir(d)))
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

bool cs_run_picked_options(const cs_run_options *first, const char *picked, cs_run_options *next, char *out_dir,
                           size_t out_size, char *note, size_t note_size)
{
    *next = *first;
    next->scene = picked;
    // The scene's name as the run will give it (the file name less .json).
    const char *base = strrchr(picked, '/');
    base = base ? base + 1 : picked;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    // Its own folder under --out (or out/): the first scene's files stay
    // where they are, and a folder that already holds files (the same scene
    // picked again, an earlier run) gets a number rather than a refusal,
    // which used to end the process with exit 2. --overwrite keeps its
    // meaning: the scene's folder, cistern's own files there replaced.
    const char *root = first->out_dir ? first->out_dir : "out";
    bool found = false;
    for (uint32_t n = 1; n < 1000 && !found; n++) {
        if (n == 1)
            snprintf(out_dir, out_size, "%s/%.*s", root, (int)len, base);
        else
            snprintf(out_dir, out_size, "%s/%.*s_%u", root, (int)len, base, n);
        found = first->overwrite || folder_free(out_dir);
    }
    if (!found)
        return false;
    next->out_dir = out_dir;
    // What belonged to the first scene only: a checkpoint of it, a video
    // file that now exists (F9 records in the window), --set edits of its
    // keys (another scene may not have them: they would refuse the run).
    size_t used = 0;
    note[0] = 0;
    if (first->resume)
        used += (size_t)snprintf(note + used, note_size - CS_MIN(used, note_size), "%s--resume", used ? ", " : "");
    if (first->record_path)
        used += (size_t)snprintf(note + used, note_size - CS_MIN(used, note_size), "%s--record", used ? ", " : "");
    if (first->edits.count)
        snprintf(note + used, note_size - CS_MIN(used, note_size), "%s--set", used ? ", " : "");
    next->resume = NULL;
    next->record_path = NULL;
    next->edits.count = 0;
    return true;
}

int cs_run(const cs_run_options *opt)
{
    // The run's state holds the scene and the world (hundreds of KiB): on
    // the heap, never the stack.
    run_state *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "cistern: out of host memory\n");
        return 1;
    }
    // The panel's scene picker ends a window's run with the scene picked:
    // the run starts again with it, the other options as they were.
    // Each picked scene writes into a folder of its own (cs_run_picked_options).
    cs_run_options again = *opt;
    char picked[512], out_dir[640], note[64];
    int code;
    for (;;) {
        r->opt = &again;
        r->color_mode = again.color_mode;
        r->overlay = again.overlay;
        code = run(r);
        if (code != 0 || !r->picked_scene[0])
            break;
        snprintf(picked, sizeof picked, "%s", r->picked_scene);
        if (!cs_run_picked_options(opt, picked, &again, out_dir, sizeof out_dir, note, sizeof note)) {
            fprintf(stderr, "cistern: %s: no free output folder under %s (tried up to _999); give --out another "
                            "folder\n", picked, opt->out_dir ? opt->out_dir : "out");
            code = 2;
            break;
        }
        fprintf(stderr, "cistern: picked %s: its files go to %s%s%s%s\n", picked, out_dir,
                note[0] ? " (" : "", note, note[0] ? " were for the first scene only)" : "");
        memset(r, 0, sizeof *r);
    }
    free(r);
    return code;
}
