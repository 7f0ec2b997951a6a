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

// The simulated seconds at the end of frame `frame` since the current world
// started (stats.csv's time_s: a restart starts it again at 0, the restart
// column counts the worlds).
static double world_time(const run_state *r, uint32_t frame)
{
    return (double)(frame - r->world_first_frame + 1) * r->world_frame_seconds;
}

// The same in the run's time, which goes on across restarts (a dump of the
// frame holds the particles of that moment; ParaView's series want times
// that only increase).
static double frame_time(const run_state *r, uint32_t frame)
{
    return r->world_start_time + world_time(r, frame);
}

static bool open_stats(run_state *r, cs_error *err)
{
    char path[600];
    snprintf(path, sizeof path, "%s/stats.csv", r->out_dir);
    // A table: the rows written so far stay readable when a run stops, and
    // stay when a write fails (a link there is refused, not written through).
    r->stats_open = cs_out_open_table(&r->stats, path, err);
    return r->stats_open;
}

// The header is written after the first frame, when the pass names are known.
// Each row is flushed, so a full disk stops the run at the frame it happens.
static bool write_stats_row(run_state *r, const cs_recorder *rec, const cs_sim_stats *s, cs_error *err)
{
    cs_out_file *out = &r->stats;
    if (r->stat_pass_count == 0) {
        for (uint32_t i = 0; i < rec->pass_count && r->stat_pass_count < 64; i++) {
            bool seen = false;
            for (uint32_t j = 0; j < r->stat_pass_count; j++)
                seen |= strcmp(r->stat_passes[j], rec->passes[i].name) == 0;
            if (!seen)
                memcpy(r->stat_passes[r->stat_pass_count++], rec->passes[i].name, 48);
        }
        cs_out_printf(out, "frame,time_s,particles,mean_density_error,max_density_error,max_speed,kinetic_energy,"
                          "total_mass,non_finite,outside_domain,gpu_total_ms,submit_wall_ms,restart,solver_steps,"
                          "density_iterations,divergence_iterations,solver_mean_dt");
        for (uint32_t j = 0; j < r->stat_pass_count; j++)
            cs_out_printf(out, ",gpu_ms:%s", r->stat_passes[j]);
        cs_out_printf(out, "\n");
    }
    uint32_t frame = r->sim_frames;
    double t = world_time(r, frame);
    cs_out_printf(out, "%u,%.6f,%u,%.6g,%.6g,%.6g,%.6g,%.9g,%u,%u,%.4f,%.4f,%u", frame, t, s->particles,
            s->mean_density_error, s->max_density_error, s->max_speed, s->kinetic_energy, s->total_mass,
            s->non_finite, s->outside_domain, cs_recorder_total_ms(rec), rec->submit_wall_ms, r->restarts);
    // DFSPH's own steps and solver iterations (sim.h); empty for solvers without.
    if (s->solver_steps)
        cs_out_printf(out, ",%u,%u,%u,%.6g", s->solver_steps, s->density_iterations, s->divergence_iterations,
                      s->solver_dt_sum / s->solver_steps);
    else
        cs_out_printf(out, ",,,,");
    // A pass that did not run in this frame (a solver's split, a surface
    // not meshed, another world's passes after a reload) is empty, not 0.
    for (uint32_t j = 0; j < r->stat_pass_count; j++) {
        double ms = cs_recorder_pass_ms(rec, r->stat_passes[j]);
        if (ms >= 0.0)
            cs_out_printf(out, ",%.4f", ms);
        else
            cs_out_printf(out, ",");
    }
    cs_out_printf(out, "\n");
    if (!cs_out_flush(out, err))
        return false;
    r->stats_rows++;
    return true;
}

// A numbered file of series `series` ("particles", "mesh"): SERIES_NNNNN.EXT
// for a world of one fluid, SERIES_<fluid>_NNNNN.EXT when there are several;
// the series' .pvd is named the same way without the number. `name` gets
// the file name, `path` the path in the output folder.
static void series_file(const run_state *r, const char *series, const char *fluid, uint32_t frame,
                        const char *ext, char *name, size_t name_size, char *path, size_t path_size)
{
    if (r->world.fluid_count == 1)
        snprintf(name, name_size, "%s_%05u.%s", series, frame, ext);
    else
        snprintf(name, name_size, "%s_%s_%05u.%s", series, fluid, frame, ext);
    snprintf(path, path_size, "%s/%s", r->out_dir, name);
}

// Lists a file just written whole in its series' .pvd, rewritten at once so
// that a run stopped later leaves a collection of every file written.
static bool add_to_series(run_state *r, cs_pvd *pvd, const char *series, const char *fluid, const char *name,
                          uint32_t frame, cs_error *err)
{
    char path[700];
    if (r->world.fluid_count == 1)
        snprintf(path, sizeof path, "%s/%s.pvd", r->out_dir, series);
    else
        snprintf(path, sizeof path, "%s/%s_%s.pvd", r->out_dir, series, fluid);
    return cs_pvd_add(pvd, path, name, frame_time(r, frame), err);
}

// One dump per fluid that has particles: particles_NNNNN.ply for a world of
// one fluid, particles_<fluid>_NNNNN.ply when there are several (.vtu with
// --dump-format vtu, each listed in particles[_<fluid>].pvd).
static bool dump_particles(run_state *r, cs_world *world, uint32_t frame, cs_error *err)
{
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        cs_world_fluid *f = &world->fluids[i];
        if (!f->ops->particles)
            continue;
        cs_particle_view v;
        f->ops->particles(f->state, &v);
        size_t n = v.count;
        float *pos = malloc(n * 16 + 16), *vel = malloc(n * 16 + 16), *den = malloc(n * 4 + 4);
        uint32_t *mat = malloc(n * 4 + 4);
        if (!pos || !vel || !den || !mat) {
            free(pos), free(vel), free(den), free(mat);
            return cs_fail(err, "out of host memory for a PLY dump of %zu particles", n);
        }
        cs_buffer_download(&r->ctx, v.positions, pos, n * 16, 0);
        cs_buffer_download(&r->ctx, v.velocities, vel, n * 16, 0);
        cs_buffer_download(&r->ctx, v.densities, den, n * 4, 0);
        cs_buffer_download(&r->ctx, v.materials, mat, n * 4, 0);
        const char *fluid = f->scene->fluid_name;
        char name[200], path[700], comment[160];
        series_file(r, "particles", fluid, frame, r->opt->dump_vtu ? "vtu" : "ply", name, sizeof name, path,
                    sizeof path); // r->world and a replay of it have the same fluids
        if (world->fluid_count == 1)
            snprintf(comment, sizeof comment, "cistern scene %s frame %u", r->scene.name, frame);
        else
            snprintf(comment, sizeof comment, "cistern scene %s fluid %s frame %u", r->scene.name, fluid, frame);
        bool ok = r->opt->dump_vtu ? cs_vtu_write(path, frame_time(r, frame), pos, vel, den, mat, v.count, err)
                                   : cs_ply_write(path, comment, pos, vel, den, mat, v.count, err);
        free(pos), free(vel), free(den), free(mat);
        if (!ok)
            return false;
        r->dumps_written++;
        if (r->opt->dump_vtu && !add_to_series(r, &r->particle_series[i], "particles", fluid, name, frame, err))
            return false;
    }
    return true;
}

// The extension of --mesh-format's files.
static const char *mesh_ext(const run_state *r)
{
    return r->opt->mesh_format == CS_MESH_OBJ ? "obj" : r->opt->mesh_format == CS_MESH_VTP ? "vtp" : "ply";
}

// One mesh file per surface: mesh_NNNNN.ply for a world of one fluid,
// mesh_<fluid>_NNNNN.ply when there are several (.obj with --mesh-format obj;
// .vtp with --mesh-format vtp, each listed in mesh[_<fluid>].pvd).
static bool write_meshes(run_state *r, uint32_t frame, cs_error *err)
{
    for (uint32_t i = 0; i < r->world.surface_count; i++) {
        const cs_world_surface *s = &r->world.surfaces[i];
        const cs_scene *fs = r->world.fluids[s->fluid].scene;
        uint32_t nv = s->drawable ? s->mesh.vertex_count : 0, nt = s->drawable ? s->mesh.triangle_count : 0;
        float *pos = malloc((size_t)nv * 12 + 12), *nrm = malloc((size_t)nv * 12 + 12);
        uint32_t *idx = malloc((size_t)nt * 12 + 12);
        if (!pos || !nrm || !idx) {
            free(pos), free(nrm), free(idx);
            return cs_fail(err, "out of host memory for a mesh of %u vertices and %u triangles", nv, nt);
        }
        if (s->drawable)
            cs_surface_download(&r->ctx, &s->mesh, pos, nrm, idx);
        cs_mesh_format format = (cs_mesh_format)r->opt->mesh_format;
        char name[200], path[700], comment[200];
        series_file(r, "mesh", fs->fluid_name, frame, mesh_ext(r), name, sizeof name, path, sizeof path);
        snprintf(comment, sizeof comment, "cistern scene %s fluid %s frame %u surface (iso %g)", r->scene.name,
                 fs->fluid_name, frame, (double)s->params.iso);
        bool ok = format == CS_MESH_OBJ   ? cs_surface_write_obj(path, comment, pos, nrm, nv, idx, nt, err)
                  : format == CS_MESH_VTP ? cs_vtp_write(path, frame_time(r, frame), pos, nrm, nv, idx, nt, err)
                                          : cs_surface_write_ply(path, pos, nrm, nv, idx, nt, err);
        free(pos), free(nrm), free(idx);
        if (!ok)
            return false;
        r->meshes_written++;
        if (format == CS_MESH_VTP &&
            !add_to_series(r, &r->mesh_series[s->fluid], "mesh", fs->fluid_name, name, frame, err))
            return false;
    }
    return true;
}

// Simulated frame `frame` writes its meshes (--mesh-every).
static bool mesh_due(const run_state *r, uint32_t frame)
{
    return r->opt->mesh_every && r->world.surface_count && frame % r->opt->mesh_every == 0;
}

// Simulated frame `frame` writes a PLY dump (--dump-every).
static bool dump_due(const run_state *r, uint32_t frame)
{
    return r->opt->dump_every && frame % r->opt->dump_every == 0;
}

// The drawing shows surfaces (V / render.draw), and there are some.
static bool draws_surfaces(const run_state *r)
{
    return r->world.surface_count && r->draw != CS_DRAW_PARTICLES;
}

// The panel's frame: what the run shows it, and what it draws.
static const cs_render_ui *panel_frame(run_state *r, uint32_t width, uint32_t height)
{
    const cs_recorder timings = {.passes = r->last_pass_sums, .pass_count = r->last_pass_sum_count};
    char text[2048] = "";
    if (r->any_frame_done)
        cs_render_overlay_format(&timings, 16, text, sizeof text);
    static char scenes[600];
    struct stat st;
    snprintf(scenes, sizeof scenes, stat("scenes", &st) == 0 ? "scenes" : "%s/scenes", CS_SOURCE_DIR);
    cs_panel_run shown = {
        .scene = &r->scene,
        .world = &r->world,
        .scenes_dir = r->windowed ? scenes : NULL,
        .paused = r->paused,
        .frame = r->recorded_sim_frames,
        .time = cs_world_time(&r->world),
        .color_mode = r->color_mode < 0 ? (int)r->scene.render.color_mode : r->color_mode,
        .speed_max = cs_render_speed_max(&r->scene, 0.0f),
        .density_spread = 0.1f,
        .draw = (int)r->draw,
        .level_baked = r->level_baked,
        .arrows_flipped = (r->flipped_features & cs_render_feature_bit("arrows")) != 0,
        .overlay = r->overlay,
        .timings = text,
        .alert = r->shader_error[0] ? r->shader_error : NULL,
        .saved = r->panel_saved,
    };
    cs_panel_requests asked;
    const cs_render_ui *ui = cs_panel_frame(r->panel, &shown, width, height, &asked);
    if (r->windowed)
        r->panel_asked = asked;
    return ui;
}

// The panel's save-as: the scene file with the --set edits, then the
// panel's, written next to the outputs as NAME_edited.json (scene_edit.h:
// parsed whole before anything is written).
static void save_panel_edits(run_state *r)
{
    const cs_panel_edits *made = cs_panel_edit_list(r->panel);
    cs_scene_edits list = {0};
    cs_error err;
    bool ok = true;
    for (uint32_t i = 0; ok && i < r->opt->edits.count; i++) {
        char text[CS_SCENE_EDIT_PATH_MAX + CS_SCENE_EDIT_VALUE_MAX + 2];
        snprintf(text, sizeof text, "%s=%s", r->opt->edits.items[i].path, r->opt->edits.items[i].value);
        ok = cs_scene_edits_add(&list, text, &err);
    }
    for (uint32_t i = 0; ok && i < made->count; i++)
        ok = cs_scene_edits_add(&list, made->items[i], &err);
    char path[600];
    snprintf(path, sizeof path, "%s/%s_edited.json", r->out_dir, r->scene.name);
    ok = ok && cs_scene_save_edited(r->scene.path, list.items, list.count, path, &err);
    if (ok)
        snprintf(r->panel_saved, sizeof r->panel_saved, "saved %s (%u edits)", path, list.count);
    else
        snprintf(r->panel_saved, sizeof r->panel_saved, "not saved: %.600s", err.msg);
    fprintf(stderr, "cistern: panel: %s\n", r->panel_saved);
    cs_scene_edits_free(&list);
}

// The panel's requests of the last frame, merged with this frame's keys.
static void apply_panel(run_state *r, cs_window_events *ev)
{
    cs_panel_input(r->panel, &r->window, ev);
    const cs_panel_requests *a = &r->panel_asked;
    ev->toggle_pause ^= a->keys.toggle_pause;
    ev->steps += a->keys.steps;
    ev->restart |= a->keys.restart;
    ev->cycle_albedo |= a->keys.cycle_albedo;
    ev->toggle_probes ^= a->keys.toggle_probes;
    ev->toggle_level_light ^= a->keys.toggle_level_light;
    ev->toggle_overlay ^= a->keys.toggle_overlay;
    ev->flip_features ^= a->keys.flip_features; // the arrows' checkbox: their feature's key (O)
    if (a->color_mode >= 0)
        r->color_mode = a->color_mode;
    if (a->draw_mode >= 0)
        r->draw = (cs_draw_mode)a->draw_mode;
    if (a->save_as)
        save_panel_edits(r);
    if (a->open_scene[0]) {
        snprintf(r->picked_scene, sizeof r->picked_scene, "%s", a->open_scene);
        ev->quit = true;
    }
    r->panel_asked = (cs_panel_requests){.color_mode = -1, .draw_mode = -1};
}

static void record_draw(run_state *r, cs_recorder *rec, const cs_render_target *target)
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
        frame.ui = panel_frame(r, target ? target->width : r->renderer.width, target ? target->height : r->renderer.height);
    cs_barrier_compute_to_graphics(rec);
    cs_render_record(&r->renderer, rec, &frame);
}

static bool write_image(run_state *r, uint32_t frame, cs_error *err)
{
    char path[600];
    snprintf(path, sizeof path, "%s/frame_%05u.png", r->out_dir, frame);
    if (!cs_write_png(path, r->renderer.width, r->renderer.height, cs_render_pixels(&r->renderer), err))
        return false;
    r->images_written++;
    return true;
}

// The characters an alert line may hold: what fits across the image (the
// window's swapchain, else the offscreen image), at most 200.
static uint32_t alert_columns(const run_state *r)
{
    uint32_t width = r->windowed && r->window.width ? r->window.width : r->renderer.width;
    return CS_MIN(cs_render_overlay_columns(width), 200u);
}

// The text drawn in the image while a shader error stands: a headline, the
// failed programs, then the first lines of the first error (file:line
// first, relative to the shader folder), wrapped to the image's width.
static void set_shader_error(run_state *r, const cs_reload_report *report)
{
    cs_shader_reload_alert(r->shader_error, sizeof r->shader_error, report->names, report->first_error.msg,
                           cs_shader_dir(), alert_columns(r), 8);
}

// Rebuilds every program (compute or graphics, any module) whose sources
// include a changed file, once the frame in flight is done, and says what
// happened: every rebuild is reported, and a failure keeps the previous
// pipeline running.
static void hot_reload(run_state *r)
{
    char (*paths)[512];
    uint32_t n = cs_watch_poll(&r->watch, &paths);
    if (n == 0)
        return;
    vkDeviceWaitIdle(r->ctx.device);
    const char **list = malloc(n * sizeof *list);
    CS_ASSERT(list, "out of memory for %u changed paths", n);
    for (uint32_t i = 0; i < n; i++)
        list[i] = paths[i];
    cs_reload_report report;
    cs_programs_reload_burst(&r->ctx, list, n, &report);
    free(list);
    // Every burst rebuilds the programs whose last build failed too
    // (program.h), so one without failures means the error is fixed.
    if (!report.failed)
        r->shader_error[0] = 0;
    const char *what = n == 1 ? paths[0] : "files";
    char changed[600];
    if (n == 1)
        snprintf(changed, sizeof changed, "%s changed", what);
    else
        snprintf(changed, sizeof changed, "%u files changed", n);
    if (report.failed) {
        fprintf(stderr,
                "\ncistern: %s: %u program%s failed to build (%s); every previous shader keeps running:\n%s\n",
                changed, report.failed, report.failed == 1 ? "" : "s", report.names, report.first_error.msg);
        set_shader_error(r, &report);
        if (r->windowed) {
            char title[600];
            snprintf(title, sizeof title, "cistern — SHADER ERROR (previous shaders running): %.400s",
                     report.first_error.msg);
            cs_window_set_title(&r->window, title);
        }
    } else if (report.rebuilt) {
        fprintf(stderr, "\ncistern: %s: rebuilt %u program%s (%s)\n", changed, report.rebuilt,
                report.rebuilt == 1 ? "" : "s", report.names);
    } else {
        fprintf(stderr, "\ncistern: %s; no program uses %s\n", changed, n == 1 ? "it" : "them");
    }
}

static bool create_world(run_state *r, cs_error *err)
{
    if (r->world_frame_seconds > 0.0) { // a restart: the run's time goes on from the last world's end
        r->world_start_time += (r->recorded_sim_frames - r->world_first_frame) * r->world_frame_seconds;
        r->restarts++;
    }
    r->world_alive = cs_world_create(&r->ctx, &r->scene, &r->world, err);
    r->world_first_frame = r->recorded_sim_frames;
    r->world_frame_seconds = (double)r->scene.dt * r->scene.substeps;
    r->level_baked = !r->scene.level.radiosity_shown;
    return r->world_alive;
}

static bool finish_all_frames(run_state *r, uint32_t next, cs_error *err);

// A reload the scene file refused: printed once per message, drawn in the
// image until a save loads.
static void refuse_reload(run_state *r, const char *msg)
{
    if (strcmp(msg, r->scene_error_msg) != 0)
        fprintf(stderr, "\ncistern: %s changed: %s; the previous scene keeps running\n", r->scene.path, msg);
    snprintf(r->scene_error_msg, sizeof r->scene_error_msg, "%s", msg);
    cs_scene_reload_alert(r->scene_error, sizeof r->scene_error, msg,
                          alert_columns(r));
}

// The scene file was saved (--watch): a new world from it, --set edits
// applied again, in place of the running one; the camera stays. The new
// scene must parse and its world be made (solver blocks are read there)
// before the running world goes, so a refused edit leaves it running: a
// trial world is made first, beside the running one, and destroyed (the
// world holds pointers into itself, so it is made again in place). `next`
// is the loop's next frame index. False only when the world cannot be made
// again from a scene that just made one (the run then stops).
static bool reload_scene(run_state *r, uint32_t next, cs_error *err)
{
    if (!cs_file_watch_poll(&r->scene_watch, cs_now_seconds()))
        return true;
    const cs_run_options *opt = r->opt;
    double start = cs_now_seconds();
    cs_scene *scene = calloc(1, sizeof *scene);
    cs_world *trial = calloc(1, sizeof *trial);
    CS_ASSERT(scene && trial, "out of host memory reloading the scene");
    cs_error why;
    bool parsed = cs_scene_load_edited(r->scene.path, opt->edits.items, opt->edits.count, scene, &why) &&
                  cs_render_check_scene(scene, &why);
    if (parsed && opt->particles)
        cs_scene_scale_world(scene, opt->particles);
    bool ok = parsed && finish_all_frames(r, next, err);
    if (parsed && !ok) { // a frame of the running world failed: that stops the run, as it would have
        cs_scene_free(scene), free(scene), free(trial);
        return false;
    }
    if (ok) {
        vkDeviceWaitIdle(r->ctx.device);
        ok = cs_world_create(&r->ctx, scene, trial, &why);
        if (ok)
            cs_world_destroy(trial);
        else
            cs_scene_edit_blame(&why, opt->edits.items, opt->edits.count);
    }
    free(trial);
    if (!ok) {
        refuse_reload(r, why.msg);
        if (parsed)
            cs_scene_free(scene);
        free(scene);
        return true;
    }
    cs_world_destroy(&r->world);
    r->world_alive = false;
    cs_scene_free(&r->scene);
    r->scene = *scene;
    free(scene);
    bool had_error = r->scene_error[0] != 0;
    r->scene_error[0] = r->scene_error_msg[0] = 0;
    if (!create_world(r, err))
        return false;
    fprintf(stderr, "\ncistern: %s changed: reloaded%s (restart %u in stats.csv; %.2f s)\n", r->scene.path,
            had_error ? ", the error is fixed" : "", r->restarts, cs_now_seconds() - start);
    return true;
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
        *dumped = world_at_frame && dump_particles(r, &r->world, frame, dump_err);
        return;
    }
    *hunted = cs_world_find_first_non_finite(replay, culprit, size);
    *dumped = dump_particles(r, world_at_frame ? &r->world : replay, frame, dump_err);
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
    if (!write_stats_row(r, rec, &stats, err))
        return false;
    if (!check_frame(r, per_fluid, err))
        return false;
    if (dump_due(r, r->sim_frames) && !dump_particles(r, &r->world, r->sim_frames, err))
        return false;
    if (mesh_due(r, r->sim_frames) && !write_meshes(r, r->sim_frames, err))
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

// ---- the video (--record, F9) ----

// The simulated frame rate: a second of video is a second of simulation.
static double video_fps(const run_state *r)
{
    return 1.0 / ((double)r->scene.dt * r->scene.substeps);
}

// Ends the recording, if one runs, and says where it went.
static void stop_video(run_state *r)
{
    r->video_wanted = false;
    if (!cs_record_active(&r->video))
        return;
    uint32_t frames = r->video.frames;
    cs_error err;
    if (!cs_record_stop(&r->video, &err)) {
        fprintf(stderr, "\ncistern: %s\n", err.msg);
        r->video_failed = true;
    } else if (!r->opt->quiet || r->windowed) {
        fprintf(stderr, "%scistern: recorded %u frames (%ux%u, %.6g fps) to %s\n", r->windowed ? "" : "\n", frames,
                r->video.width, r->video.height, video_fps(r), r->video.path);
    }
}

// One frame into the video: ffmpeg starts at the first, at its size. A
// size that changes (a resized window) or an ffmpeg that has gone away
// (a broken pipe) ends the recording with a message; the run goes on.
static void record_video_frame(run_state *r, const uint8_t *px, uint32_t w, uint32_t h)
{
    if (!r->video_wanted)
        return; // stopped (F9, an error) while this frame was in flight
    cs_error err;
    if (!px) {
        fprintf(stderr, "\ncistern: %s: this frame's image could not be copied; recording stopped\n", r->video_path);
        stop_video(r);
        return;
    }
    if (cs_record_active(&r->video) && (w != r->video.width || h != r->video.height)) {
        fprintf(stderr, "cistern: the window changed size (%ux%u to %ux%u); recording stopped\n", r->video.width,
                r->video.height, w, h);
        stop_video(r);
        return;
    }
    if (!cs_record_active(&r->video)) {
        if (!cs_record_start(&r->video, r->video_path, w, h, video_fps(r), &err)) {
            fprintf(stderr, "\ncistern: %s\n", err.msg);
            r->video_wanted = false;
            r->video_failed = true;
            return;
        }
        if (r->windowed)
            fprintf(stderr, "cistern: recording to %s (F9 stops)\n", r->video_path);
    }
    if (!cs_record_frame(&r->video, px, &err)) {
        fprintf(stderr, "\ncistern: %s\n", err.msg);
        r->video_wanted = false;
        r->video_failed = true;
    }
}

// F9 in a window: stops the recording, or starts one into the first free
// DIR/recording_NNN.mp4.
static void toggle_video(run_state *r)
{
    if (r->video_wanted || cs_record_active(&r->video)) {
        stop_video(r);
        return;
    }
    char hint[200];
    if (!cs_record_available(hint, sizeof hint)) {
        fprintf(stderr, "cistern: F9: no recording: %s\n", hint);
        return;
    }
    for (uint32_t n = 0; n < 1000; n++) {
        struct stat st;
        snprintf(r->video_path, sizeof r->video_path, "%s/recording_%03u.mp4", r->out_dir, n);
        if (lstat(r->video_path, &st) != 0) {
            r->video_wanted = true;
            return;
        }
    }
    fprintf(stderr, "cistern: F9: %s already holds recording_000.mp4 to recording_999.mp4\n", r->out_dir);
}

// ---- the ring of frames in flight ----

static void create_frames(run_state *r)
{
    for (uint32_t i = 0; i < CS_FRAMES_IN_FLIGHT; i++) {
        cs_recorder_create(&r->ctx, "frame", &r->frames[i]);
        r->frames[i].frame_slot = i;
    }
    r->frames_created = true;
}

// Once, after the run: what the bodies' fixed-size lists lost, if anything.
static void warn_bodies_overflow(run_state *r)
{
    if (!r->world.has_bodies)
        return;
    vkDeviceWaitIdle(r->ctx.device); // a failed run may leave frames in flight
    char warning[1024];
    cs_bodies_overflow_warning(cs_bodies_overflow(&r->world.bodies), warning, sizeof warning);
    if (warning[0])
        fprintf(stderr, "cistern: %s\n", warning);
}

static void destroy_frames(run_state *r)
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
static cs_recorder *begin_frame(run_state *r, uint32_t frame)
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
static void submit_frame(run_state *r, cs_recorder *rec, bool stepped, const cs_submit_sync *sync)
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
static bool finish_frame(run_state *r, uint32_t slot, cs_error *err)
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
    if (s->png && !write_image(r, s->frame, err))
        return false;
    if (s->record) {
        uint32_t w = r->renderer.width, h = r->renderer.height;
        const uint8_t *px = r->windowed ? cs_window_screenshot(&r->window, &w, &h) : cs_render_pixels(&r->renderer);
        record_video_frame(r, px, w, h);
    }
    if (!s->stepped)
        return true;
    CS_ASSERT(s->sim_frame == r->sim_frames, "simulated frame %u finished as frame %u", s->sim_frame, r->sim_frames);
    return after_sim_frame(r, rec, err);
}

// Finishes the frame in `slot`, the latest submitted, at once, and before
// it every older frame still pending, oldest first: rows, checks, dumps and
// reint's point count follow the frames in the order they were simulated.
static bool finish_latest_frame(run_state *r, uint32_t slot, cs_error *err)
{
    for (uint32_t k = 1; k <= CS_FRAMES_IN_FLIGHT; k++)
        if (!finish_frame(r, (slot + k) % CS_FRAMES_IN_FLIGHT, err))
            return false;
    return true;
}

// Finishes every pending frame, oldest first (`next` is the next frame's
// index: its slot holds the oldest).
static bool finish_all_frames(run_state *r, uint32_t next, cs_error *err)
{
    bool ok = true;
    r->draining = true;
    for (uint32_t k = 0; k < CS_FRAMES_IN_FLIGHT; k++) {
        cs_error e;
        if (!finish_frame(r, (next + k) % CS_FRAMES_IN_FLIGHT, &e) && ok) {
            *err = e;
            ok = false;
        }
    }
    r->draining = false;
    return ok;
}

// Simulated frame `frame`, once finished, is followed by a checkpoint
// (--checkpoint-every K: after frames K - 1, 2K - 1, ...; a resume starts
// at the frame after it; headless, where every frame simulates one).
// The run's last frame is followed by one too: a finished run can be
// extended (--resume with more --frames).
static bool checkpoint_due(const run_state *r, uint32_t frame)
{
    uint32_t frames = r->opt->frames ? r->opt->frames : 120;
    return r->opt->checkpoint_every && ((frame + 1) % r->opt->checkpoint_every == 0 || frame + 1 == frames);
}

// After frame `frame` and everything before it finished (rows, dumps): the
// world's state into DIR/checkpoint_NNNNN.ckpt, NNNNN = frame + 1.
static bool write_checkpoint(run_state *r, uint32_t frame, cs_error *err)
{
    uint64_t bytes;
    double start = cs_now_seconds();
    if (!cs_ckpt_write(&r->world, r->out_dir, frame + 1, r->scene_hash, r->last_checkpoint,
                       sizeof r->last_checkpoint, &bytes, err))
        return false;
    r->checkpoint_ms += 1e3 * (cs_now_seconds() - start);
    r->checkpoint_bytes = bytes;
    r->checkpoints_written++;
    return true;
}

// Whether the host needs frame `frame`'s results before the next frame is
// recorded: its image, dump or meshes, a capture, or stats that only a
// submit after it can read.
static bool host_needs_frame(const run_state *r, bool stepped, uint32_t sim_frame, bool image, bool capture)
{
    if (image || capture)
        return true;
    if (!stepped)
        return false;
    return dump_due(r, sim_frame) || mesh_due(r, sim_frame) || checkpoint_due(r, sim_frame) ||
           !cs_world_stats_in_frame(&r->world);
}

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
            hot_reload(r);
        if (r->scene_watching && !reload_scene(r, frame, &err))
            goto failed;
        uint32_t slot = frame % CS_FRAMES_IN_FLIGHT;
        if (!finish_frame(r, slot, &err))
            goto failed;
        bool capture = (int)frame == opt->capture_frame;
        if (capture)
            cs_renderdoc_begin();
        bool png = r->rendering && opt->png_every && (frame % opt->png_every == 0 || frame + 1 == frames);
        bool record = r->rendering && r->video_wanted;
        bool image = png || record;
        uint32_t sim_frame = r->recorded_sim_frames;
        cs_recorder *rec = begin_frame(r, frame);
        cs_world_record_frame(&r->world, rec);
        // Meshing splits the frame in two submits (world.h).
        if ((mesh_due(r, sim_frame) || (image && draws_surfaces(r))) &&
            !cs_world_mesh_surfaces(&r->world, rec, &err)) {
            cs_recorder_submit_wait(rec); // the resumed recording, so nothing is left pending
            goto failed;
        }
        if (image) {
            record_draw(r, rec, NULL);
            cs_render_record_readback(&r->renderer, rec);
            r->slots[slot].rooms = cs_run_rooms_drawn(&r->renderer, &r->world, r->level_baked);
            r->slots[slot].drew = true;
        }
        r->slots[slot].image = image;
        r->slots[slot].png = png;
        r->slots[slot].record = record;
        r->slots[slot].capture = capture;
        submit_frame(r, rec, true, NULL);
        if (host_needs_frame(r, true, sim_frame, image, capture) && !finish_latest_frame(r, slot, &err))
            goto failed;
        if (checkpoint_due(r, sim_frame) && !write_checkpoint(r, sim_frame, &err))
            goto failed;
        if (!opt->quiet) {
            char status[128];
            snprintf(status, sizeof status, "%.2f ms GPU per frame", r->last_gpu_ms);
            cs_progress_update(&progress, frame + 1, status);
        }
    }
    if (!finish_all_frames(r, frames, &err))
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

// Ctrl + a mouse button held: the pointer (scene "pointer") goes to the
// point under the cursor; let go, the scene's track has it again.
static void update_pointer(run_state *r, const cs_window_events *ev)
{
    float at[3];
    cs_camera_matrices m;
    bool held = ev->pointer_mode != 0 && ev->width > 0 && ev->height > 0;
    if (held) {
        cs_camera_matrices_get(&r->camera, (double)ev->width / ev->height, &m);
        held = cs_camera_unproject(&r->camera, &m, ev->width, ev->height, ev->pointer_pixel, at);
    }
    cs_world_set_pointer(&r->world, held ? at : NULL, held ? ev->pointer_mode : 0);
}

static int run_window(run_state *r)
{
    const cs_run_options *opt = r->opt;
    cs_error err;
    bool paused = false;
    double last = cs_now_seconds(), title_time = last;
    uint32_t frames_since_title = 0, drawn = 0;
    for (;;) {
        cs_window_events ev;
        cs_window_poll(&r->window, &ev);
        if (r->panel)
            apply_panel(r, &ev);
        if (ev.quit)
            break;
        double now = cs_now_seconds();
        cs_camera_update(&r->camera, &ev.input, now - last);
        last = now;
        update_pointer(r, &ev);
        if (ev.toggle_pause)
            paused = !paused;
        r->paused = paused;
        if (ev.cycle_color_mode) {
            int mode = r->color_mode < 0 ? (int)r->scene.render.color_mode : r->color_mode;
            r->color_mode = (mode + 1) % 3;
        }
        if (ev.cycle_albedo && r->world.radiosity) {
            vkDeviceWaitIdle(r->ctx.device); // the patches buffer is overwritten
            cs_world_radiosity_cycle_albedo(&r->ctx, r->world.radiosity);
        }
        if (ev.toggle_probes && r->world.radiosity) {
            vkDeviceWaitIdle(r->ctx.device); // the probes' header is overwritten
            cs_world_radiosity_toggle_probes(&r->ctx, r->world.radiosity);
        }
        if (ev.toggle_level_light)
            r->level_baked = !r->level_baked;
        if (ev.toggle_overlay)
            r->overlay = !r->overlay;
        r->flipped_features ^= ev.flip_features;
        if (ev.toggle_record)
            toggle_video(r);
        if (ev.cycle_draw_mode) {
            if (r->world.surface_count)
                r->draw = (cs_draw_mode)((r->draw + 1) % 3);
            else
                fprintf(stderr, "cistern: V: no fluid of %s has a surface (\"surface\": {\"enabled\": true}, 3D "
                                "scenes)\n", r->scene.name);
        }
        if (ev.restart) {
            // The world's frames in flight finish (their rows) before it goes.
            if (!finish_all_frames(r, drawn, &err)) {
                fprintf(stderr, "cistern: %s\n", err.msg);
                return 1;
            }
            vkDeviceWaitIdle(r->ctx.device);
            cs_world_destroy(&r->world);
            r->world_alive = false;
            if (!create_world(r, &err)) {
                fprintf(stderr, "cistern: restart failed: %s\n", err.msg);
                return 1;
            }
        }
        if (r->watching)
            hot_reload(r);
        if (r->scene_watching && !reload_scene(r, drawn, &err)) {
            fprintf(stderr, "cistern: %s\n", err.msg);
            return 1;
        }
        // Wait for the frame that last used this slot (two frames ago), not
        // for the one just submitted.
        uint32_t slot = drawn % CS_FRAMES_IN_FLIGHT;
        if (!finish_frame(r, slot, &err)) {
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
        r->steps_due = paused ? r->steps_due + ev.steps : 0;
        bool step = !paused || r->steps_due > 0;
        if (paused && step)
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
        cs_recorder *rec = begin_frame(r, drawn);
        if (step)
            cs_world_record_frame(&r->world, rec);
        // A paused frame draws the meshes it has, unless they are stale
        // (a restart, or V pressed while paused).
        bool mesh = step && mesh_due(r, sim_frame);
        bool stale = draws_surfaces(r) && (step || !cs_world_surfaces_current(&r->world));
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
        record_draw(r, rec, &target);
        r->slots[slot].rooms = cs_run_rooms_drawn(&r->renderer, &r->world, r->level_baked);
        r->slots[slot].drew = true;
        cs_window_record_present(&r->window, rec, capture || record);
        r->slots[slot].capture = capture;
        r->slots[slot].record = record;
        submit_frame(r, rec, step, &sync);
        cs_window_present(&r->window);
        if (host_needs_frame(r, step, sim_frame, false, capture || record) && !finish_latest_frame(r, slot, &err)) {
            fprintf(stderr, "cistern: %s\n", err.msg);
            vkDeviceWaitIdle(r->ctx.device);
            return 1;
        }
        drawn++;
        frames_since_title++;
        if (now - title_time > 0.5 && r->any_frame_done) {
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
            cs_window_format_title(title + prefix, sizeof title - prefix, r->scene.name, frames_since_title / (now - title_time),
                                   r->last_stats.particles,
                                   r->color_mode < 0 ? (int)r->scene.render.color_mode : r->color_mode, paused,
                                   &timings);
            char rooms[96];
            cs_run_rooms_text(r->last_rooms, rooms, sizeof rooms);
            size_t used = strlen(title);
            if (rooms[0] && used < sizeof title)
                snprintf(title + used, sizeof title - used, " - %s", rooms);
            cs_window_set_title(&r->window, title);
            title_time = now;
            frames_since_title = 0;
        }
        if (opt->frames && drawn >= opt->frames)
            break;
    }
    if (!finish_all_frames(r, drawn, &err)) {
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
        fprintf(stderr, "%s%u meshes (%s/mesh_*.%s%s)", sep, r->meshes_written, where, mesh_ext(r),
                r->opt->mesh_format == CS_MESH_VTP ? ", listed in mesh*.pvd" : ""), sep = ", ";
    if (r->checkpoints_written)
        fprintf(stderr, "%s%u checkpoints (the last %s, %.1f MiB, %.0f ms a write)", sep, r->checkpoints_written,
                r->last_checkpoint, (double)r->checkpoint_bytes / (1024.0 * 1024.0),
                r->checkpoint_ms / r->checkpoints_written), sep = ", ";
    fprintf(stderr, "%s\n", *sep == ' ' ? " nothing" : "");
}

// ---- checkpoints (checkpoint.h) ----

// --resume without --out: the checkpoint's own folder.
static void resume_default_out(const char *checkpoint, char *out, size_t size)
{
    const char *slash = strrchr(checkpoint, '/');
    if (!slash)
        snprintf(out, size, ".");
    else
        snprintf(out, size, "%.*s", (int)(slash - checkpoint), checkpoint);
}

// --resume: the run's folder as the killed run left it. stats.csv keeps
// its header and the rows of the frames the checkpoint holds, and goes on
// from there (cut by open_resumed_stats once the checkpoint has loaded);
// the numbered files of later frames are written again.
static bool open_resumed_outputs(run_state *r, cs_error *err)
{
    // The checkpoint's header first: a refusal leaves stats.csv as it was.
    cs_ckpt_header h;
    if (!cs_ckpt_scene_hash(&r->scene, r->opt->particles, &r->scene_hash, err) ||
        !cs_ckpt_check(r->opt->resume, r->scene_hash, r->scene.name, &h, err))
        return false;
    struct stat st;
    if (stat(r->out_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cs_fail(err, "--resume: %s is not the run's folder (it does not exist or is not a directory); "
                            "give --out the folder the checkpoint's run wrote into", r->out_dir);
    char path[600];
    snprintf(path, sizeof path, "%s/stats.csv", r->out_dir);
    long long keep;
    uint32_t rows;
    if (!cs_ckpt_stats_kept(path, h.frame, &keep, &rows, r->stat_passes, 64, &r->stat_pass_count, err))
        return false;
    if (rows != h.frame)
        return cs_fail(err, "--resume %s: %s holds %u rows before frame %u, where the checkpoint continues; "
                            "give --out the folder of the run that wrote the checkpoint", r->opt->resume, path, rows,
                       h.frame);
    r->resume_stats_keep = keep;
    r->stats_rows = rows;
    return true;
}

// After the checkpoint loaded (every value checked): stats.csv cut to the
// rows it keeps, and opened to go on.
static bool open_resumed_stats(run_state *r, cs_error *err)
{
    char path[600];
    snprintf(path, sizeof path, "%s/stats.csv", r->out_dir);
    r->stats_open = cs_out_open_table_append(&r->stats, path, r->resume_stats_keep, err);
    return r->stats_open;
}

// The ParaView collections of a resumed run list the files of the frames
// before the checkpoint too.
static bool resume_series(run_state *r, cs_error *err)
{
    for (uint32_t frame = 0; frame < r->first_frame; frame++) {
        for (uint32_t i = 0; i < r->world.fluid_count && r->opt->dump_vtu && dump_due(r, frame); i++) {
            const char *fluid = r->world.fluids[i].scene->fluid_name;
            char name[256], path[800];
            struct stat st;
            series_file(r, "particles", fluid, frame, "vtu", name, sizeof name, path, sizeof path);
            if (stat(path, &st) == 0 && !add_to_series(r, &r->particle_series[i], "particles", fluid, name, frame, err))
                return false;
        }
        for (uint32_t s = 0; s < r->world.surface_count && r->opt->mesh_format == CS_MESH_VTP && mesh_due(r, frame);
             s++) {
            uint32_t i = r->world.surfaces[s].fluid;
            const char *fluid = r->world.fluids[i].scene->fluid_name;
            char name[256], path[800];
            struct stat st;
            series_file(r, "mesh", fluid, frame, "vtp", name, sizeof name, path, sizeof path);
            if (stat(path, &st) == 0 && !add_to_series(r, &r->mesh_series[i], "mesh", fluid, name, frame, err))
                return false;
        }
    }
    return true;
}

// --checkpoint-every: the scene's hash, and every solver able to be saved;
// --resume: the world loaded from the checkpoint, the run's counters set
// to its frame.
static bool start_from_checkpoint(run_state *r, cs_error *err)
{
    if (!cs_ckpt_scene_hash(&r->scene, r->opt->particles, &r->scene_hash, err))
        return false;
    if (!r->opt->resume)
        return true;
    char warning[1024];
    uint32_t frame;
    if (!cs_ckpt_load(&r->world, r->opt->resume, r->scene_hash, &frame, warning, sizeof warning, err) ||
        !open_resumed_stats(r, err))
        return false;
    if (warning[0])
        fprintf(stderr, "cistern: warning: %s\n", warning);
    r->first_frame = r->sim_frames = r->recorded_sim_frames = frame;
    // A frame that goes wrong is replayed from the scene's start (the world
    // is bit-deterministic, world_first_nan.c), not from the checkpoint.
    r->world_first_frame = 0;
    if (!r->opt->quiet)
        fprintf(stderr, "cistern: resuming %s at frame %u from %s\n", r->scene.name, frame, r->opt->resume);
    return resume_series(r, err);
}

static int run(run_state *r)
{
    const cs_run_options *opt = r->opt;
    cs_error err;
    if (!cs_scene_load_edited(opt->scene, opt->edits.items, opt->edits.count, &r->scene, &err) ||
        !cs_render_check_scene(&r->scene, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 2;
    }
    if (opt->particles)
        cs_scene_scale_world(&r->scene, opt->particles);
    // --record is settled before anything starts, too: no ffmpeg, or a
    // file there already, is refused (exit 2) rather than found out after
    // the first frame.
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
            return 2;
        }
    }
    // The output folder is settled before Vulkan starts: a refusal costs
    // nothing, and no run ends after minutes on a folder it cannot use.
    if (opt->out_dir)
        snprintf(r->out_dir, sizeof r->out_dir, "%s", opt->out_dir);
    else if (opt->resume)
        resume_default_out(opt->resume, r->out_dir, sizeof r->out_dir);
    else
        snprintf(r->out_dir, sizeof r->out_dir, "out/%s", r->scene.name);
    bool out_ready = opt->resume ? open_resumed_outputs(r, &err)
                                 : cs_prepare_out_dir(r->out_dir, opt->overwrite, CS_OUT_RUN, &err) && open_stats(r, &err);
    if (!out_ready) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        cs_scene_free(&r->scene);
        return 2;
    }
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
    int code = 0;
    r->draw = r->scene.render.draw;
    // Nothing asked of the panel yet: apply_panel runs before the panel's
    // first frame, and a zeroed request reads "material, particles" (it
    // overrode the scene's render.color_mode and render.draw at start).
    r->panel_asked = (cs_panel_requests){.color_mode = -1, .draw_mode = -1};
    if (!cs_context_create(&desc, &r->ctx, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        code = 1;
        goto done;
    }
    if (r->windowed && !cs_window_attach(&r->window, &r->ctx, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        code = 1;
        goto done;
    }
    if (cs_renderdoc_attach() && opt->capture_path)
        cs_renderdoc_set_path(opt->capture_path);
    if (opt->capture_frame >= 0 && !cs_renderdoc_available())
        fprintf(stderr, "cistern: --capture-frame: RenderDoc is not attached; run under `renderdoccmd capture` "
                        "or add --renderdoc\n");

    if (!create_world(r, &err)) {
        cs_scene_edit_blame(&err, opt->edits.items, opt->edits.count);
        fprintf(stderr, "cistern: %s\n", err.msg);
        code = 2;
        goto done;
    }
    if ((opt->checkpoint_every || opt->resume) && !start_from_checkpoint(r, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        code = 2;
        goto done;
    }
    if (opt->mesh_every && r->world.surface_count == 0) {
        fprintf(stderr, "cistern: --mesh-every: no fluid of %s has a surface; give it \"surface\": {\"enabled\": "
                        "true} (3D scenes; docs/scenes.md)\n", r->scene.name);
        code = 2;
        goto done;
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
        code = 2;
        goto done;
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
            code = 1;
            goto done;
        }
        cs_camera_from_scene(&r->camera, &r->scene);
        r->panel = opt->panel ? cs_panel_create(r->windowed) : NULL;
    }
    if (opt->watch) {
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
    }
    if (opt->watch) {
        // The scene file too: a save rebuilds the world (reload_scene).
        cs_file_watch_open(&r->scene_watch, r->scene.path, 0.1);
        r->scene_watching = true;
        if (!opt->quiet)
            fprintf(stderr, "cistern: watching %s for scene edits\n", r->scene.path);
    }
    create_frames(r);
    r->submits_before = r->ctx.queue_submits;
    r->waits_before = r->ctx.fence_waits;
    code = r->windowed ? run_window(r) : run_headless(r);
    stop_video(r);
    if (r->video_failed && code == 0)
        code = 1; // the video asked for is not whole
    warn_bodies_overflow(r);
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
done:
    stop_video(r); // a run that failed: ffmpeg still finishes what it has
    destroy_frames(r);
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
