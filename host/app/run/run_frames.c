// run_frames.c — the ring of frames in flight: begin, submit, finish (stats row, checks, timings), the frame's drawing.
// Part of the frame loop (run.c); its state is run_state.h's.
#define _GNU_SOURCE
#include "run_state.h"

// The drawing shows surfaces (V / render.draw), and there are some.
bool run_draws_surfaces(const run_state *r)
{
    return r->world.surface_count && r->draw != CS_DRAW_PARTICLES;
}

void run_record_draw(run_state *r, cs_recorder *rec, const cs_render_target *target)
{
    cs_world_draw arrays;
    cs_render_frame frame = cs_world_draw_frame(&r->world, r->draw, r->level_baked, &arrays);
    frame.target = target;
    frame.camera = &r->camera;
    frame.color_mode = r->color_mode;
    frame.overlay = r->overlay && r->overlay_text[0] ? r->overlay_text : NULL;
    snprintf(r->alert, sizeof r->alert, "%s%s%s", r->shader_error, r->shader_error[0] && r->scene_error[0] ? "\n" : "",
             r->scene_error);
    frame.alert = r->alert[0] ? r->alert : NULL;
    frame.flipped = r->flipped_features;
    if (r->panel)
        frame.ui = run_panel_frame(r, target ? target->width : r->renderer.width, target ? target->height : r->renderer.height);
    cs_barrier_compute_to_graphics(rec);
    cs_render_record(&r->renderer, rec, &frame);
}

// Simulated frame `frame` (of the run) went wrong: which pass first wrote
// NaN/Inf (into `culprit`), and a particle dump of the frame. The current
// world started at world_first_frame (an R restart makes a new one); a fresh
// world replayed to the start of the frame (bit-deterministic) is hunted
// through it, and ends where the run's world ended it. With frames in
// flight the run's world may be past the frame already; then the dump is
// the replay's. One replay serves both.
static void replay_failed_frame(run_state *r, uint32_t frame, char *culprit, size_t size, bool *hunted, bool *dumped,
                                cs_error *dump_err)
{
    vkDeviceWaitIdle(r->ctx.device);
    *hunted = *dumped = false;
    bool world_at_frame = r->recorded_sim_frames == frame + 1;
    cs_world *replay = calloc(1, sizeof *replay); // a world is too large for the stack
    if (!replay || !cs_world_replay(&r->ctx, &r->scene, frame - r->world_first_frame, replay, dump_err)) {
        if (!replay)
            cs_fail(dump_err, "out of host memory for a replay of frame %u", frame);
        free(replay);
        // The world could not be made again: the run's own is all there is.
        *dumped = world_at_frame && run_dump_particles(r, &r->world, frame, dump_err);
        return;
    }
    *hunted = cs_world_find_first_non_finite(replay, culprit, size);
    *dumped = run_dump_particles(r, world_at_frame ? &r->world : replay, frame, dump_err);
    cs_world_destroy(replay);
    free(replay);
}

// A frame that went wrong (NaN/Inf values, a cell past its capacity) ends
// the run: a last particle dump of it, then a message naming the frame, the
// fluid's solver and what went wrong (docs/fluids.md, "When a run goes wrong").
// stats.csv already holds its row.
static bool check_frame(run_state *r, const cs_sim_stats *per_fluid, cs_error *err)
{
    char what[512];
    if (cs_world_check_stats(&r->world, per_fluid, what, sizeof what))
        return true;
    uint32_t frame = r->sim_frames;
    char first_pass[400] = "", culprit[320];
    bool hunted, dumped;
    cs_error dump_err;
    replay_failed_frame(r, frame, culprit, sizeof culprit, &hunted, &dumped, &dump_err);
    if (hunted)
        snprintf(first_pass, sizeof first_pass, "; first non-finite output: %s", culprit);
    return cs_fail(err, "%s: frame %u (t = %.4g s): %s%s; stopped. %s/stats.csv has frames 0-%u%s%s",
                   r->scene.path, frame, (double)(frame + 1) * r->scene.dt * r->scene.substeps, what, first_pass,
                   r->out_dir, frame,
                   !dumped              ? "; no particle dump: "
                   : r->opt->dump_vtu ? ", particles_*.vtu the particles of this frame"
                                        : ", particles_*.ply the particles of this frame",
                   dumped ? "" : dump_err.msg);
}

// One simulated frame, once it has completed: stats row, check, dumps;
// false when it went wrong.
static bool after_sim_frame(run_state *r, const cs_recorder *rec, cs_error *err)
{
    cs_sim_stats stats = {0}, per_fluid[CS_MAX_FLUIDS];
    // One read-back serves the row and the check: the frame's own, or a
    // stats submit of its own for solvers without in-frame stats.
    if (cs_world_stats_in_frame(&r->world))
        cs_world_read_stats(&r->world, rec->frame_slot, &stats, per_fluid);
    else
        cs_world_stats(&r->world, &stats, per_fluid);
    r->last_stats = stats;
    if (!run_write_stats_row(r, rec, &stats, err))
        return false;
    if (!check_frame(r, per_fluid, err))
        return false;
    if (run_dump_due(r, r->sim_frames) && !run_dump_particles(r, &r->world, r->sim_frames, err))
        return false;
    if (run_mesh_due(r, r->sim_frames) && !run_write_meshes(r, r->sim_frames, err))
        return false;
    r->sim_frames++;
    return true;
}

// The overlay's text for a finished frame: the passes' GPU ms, then the
// level's rooms drawn when there is a level.
static void format_overlay(run_state *r, const cs_recorder *rec)
{
    cs_render_overlay_format(rec, 8, r->overlay_text, sizeof r->overlay_text);
    char rooms[96];
    cs_run_rooms_text(r->last_rooms, rooms, sizeof rooms);
    size_t used = strlen(r->overlay_text);
    if (rooms[0] && used < sizeof r->overlay_text)
        snprintf(r->overlay_text + used, sizeof r->overlay_text - used, "%s\n", rooms);
}

void run_create_frames(run_state *r)
{
    for (uint32_t i = 0; i < CS_FRAMES_IN_FLIGHT; i++) {
        cs_recorder_create(&r->ctx, "frame", &r->frames[i]);
        r->frames[i].frame_slot = i;
    }
    r->frames_created = true;
}

// Once, after the run: what the bodies' fixed-size lists lost, if anything.
void run_warn_bodies_overflow(run_state *r)
{
    if (!r->world.has_bodies)
        return;
    vkDeviceWaitIdle(r->ctx.device); // a failed run may leave frames in flight
    char warning[1024];
    cs_bodies_overflow_warning(cs_bodies_overflow(&r->world.bodies), warning, sizeof warning);
    if (warning[0])
        fprintf(stderr, "cistern: %s\n", warning);
}

void run_destroy_frames(run_state *r)
{
    if (!r->frames_created)
        return;
    for (uint32_t i = 0; i < CS_FRAMES_IN_FLIGHT; i++)
        cs_recorder_destroy(&r->frames[i]);
    r->frames_created = false;
}

// Starts recording frame `frame` in its slot; the slot's previous frame
// must have been finished. Counts the frame as overlapped when the frame
// before it is still running on the device: the CPU records frame N + 1
// before the GPU ends frame N.
cs_recorder *run_begin_frame(run_state *r, uint32_t frame)
{
    uint32_t slot = frame % CS_FRAMES_IN_FLIGHT;
    CS_ASSERT(!r->slots[slot].pending, "frame slot %u reused before it was finished", slot);
    const cs_recorder *previous = &r->frames[(slot + CS_FRAMES_IN_FLIGHT - 1) % CS_FRAMES_IN_FLIGHT];
    if (frame > 0 && !cs_recorder_done(previous))
        r->frames_overlapped++;
    cs_recorder *rec = &r->frames[slot];
    cs_recorder_begin(rec);
    r->slots[slot] = (struct frame_slot){.frame = frame, .sim_frame = r->recorded_sim_frames};
    return rec;
}

// Closes a stepped frame's recording with its stats (when the solvers can
// record them) and submits it.
void run_submit_frame(run_state *r, cs_recorder *rec, bool stepped, const cs_submit_sync *sync)
{
    if (stepped && cs_world_stats_in_frame(&r->world))
        cs_world_record_stats(&r->world, rec);
    cs_recorder_submit(rec, sync);
    r->slots[rec->frame_slot].pending = true;
    r->slots[rec->frame_slot].stepped = stepped;
    r->last_submitted_frame = r->slots[rec->frame_slot].frame;
    r->frames_submitted++;
    if (stepped)
        r->recorded_sim_frames++;
}

// Waits for the frame in `slot` (if it is still pending) and does what
// comes after it on the host: the overlay's timings, the capture's end and
// screenshot, the PNG, the stats row and the check.
bool run_finish_frame(run_state *r, uint32_t slot, cs_error *err)
{
    struct frame_slot *s = &r->slots[slot];
    if (!s->pending)
        return true;
    s->pending = false;
    cs_recorder *rec = &r->frames[slot];
    // Waiting for the frame just submitted, before the next is recorded,
    // is what the ring avoids; only frames the host needs at once do it.
    if (!r->draining && r->frames_submitted && s->frame == r->last_submitted_frame)
        r->waits_on_latest++;
    cs_recorder_wait(rec);
    r->last_pass_sum_count = cs_recorder_pass_sums(rec, r->last_pass_sums, (uint32_t)CS_ARRAY_COUNT(r->last_pass_sums));
    r->last_gpu_ms = cs_recorder_total_ms(rec);
    r->any_frame_done = true;
    if (s->drew) {
        r->last_rooms = s->rooms;
        r->last_rooms_frame = s->frame;
    }
    format_overlay(r, rec);
    if (s->capture) {
        char path[512] = "";
        if (cs_renderdoc_end(path, sizeof path))
            fprintf(stderr, "%scistern: captured frame %u to %s\n", r->opt->quiet || r->windowed ? "" : "\n", s->frame,
                    *path ? path : "(RenderDoc's default path)");
        if (r->windowed) {
            char shot[600];
            snprintf(shot, sizeof shot, "%s/screenshot_%03u.png", r->out_dir, r->captures++);
            if (cs_window_save_screenshot(&r->window, shot, err))
                fprintf(stderr, "cistern: screenshot written to %s\n", shot);
            else
                fprintf(stderr, "cistern: %s\n", err->msg);
        }
    }
    if (s->png && !run_write_image(r, s->frame, err))
        return false;
    if (s->record) {
        uint32_t w = r->renderer.width, h = r->renderer.height;
        const uint8_t *px = r->windowed ? cs_window_screenshot(&r->window, &w, &h) : cs_render_pixels(&r->renderer);
        run_record_video_frame(r, px, w, h);
    }
    if (!s->stepped)
        return true;
    CS_ASSERT(s->sim_frame == r->sim_frames, "simulated frame %u finished as frame %u", s->sim_frame, r->sim_frames);
    return after_sim_frame(r, rec, err);
}

// Finishes the frame in `slot`, the latest submitted, at once, and before
// it every older frame still pending, oldest first: rows, checks, dumps and
// reint's point count follow the frames in the order they were simulated.
bool run_finish_latest_frame(run_state *r, uint32_t slot, cs_error *err)
{
    for (uint32_t k = 1; k <= CS_FRAMES_IN_FLIGHT; k++)
        if (!run_finish_frame(r, (slot + k) % CS_FRAMES_IN_FLIGHT, err))
            return false;
    return true;
}

// Finishes every pending frame, oldest first (`next` is the next frame's
// index: its slot holds the oldest).
bool run_finish_all_frames(run_state *r, uint32_t next, cs_error *err)
{
    bool ok = true;
    r->draining = true;
    for (uint32_t k = 0; k < CS_FRAMES_IN_FLIGHT; k++) {
        cs_error e;
        if (!run_finish_frame(r, (next + k) % CS_FRAMES_IN_FLIGHT, &e) && ok) {
            *err = e;
            ok = false;
        }
    }
    r->draining = false;
    return ok;
}

// Whether the host needs frame `frame`'s results before the next frame is
// recorded: its image, dump or meshes, a capture, or stats that only a
// submit after it can read.
bool run_host_needs_frame(const run_state *r, bool stepped, uint32_t sim_frame, bool image, bool capture)
{
    if (image || capture)
        return true;
    if (!stepped)
        return false;
    return run_dump_due(r, sim_frame) || run_mesh_due(r, sim_frame) || run_checkpoint_due(r, sim_frame) ||
           !cs_world_stats_in_frame(&r->world);
}
