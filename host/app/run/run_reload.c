// run_reload.c — the world made, and made again: shader hot reload, scene file reload, errors shown in the image.
// Part of the frame loop (run.c); its state is run_state.h's.
#define _GNU_SOURCE
#include "run_state.h"

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
void run_hot_reload(run_state *r)
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

bool run_create_world(run_state *r, cs_error *err)
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
bool run_reload_scene(run_state *r, uint32_t next, cs_error *err)
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
    bool ok = parsed && run_finish_all_frames(r, next, err);
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
    if (!run_create_world(r, err))
        return false;
    // Checkpoints written from now on hold the reloaded scene's state: they
    // carry its hash, so that it, not the file the run started from, resumes.
    if (opt->checkpoint_every && !cs_ckpt_scene_hash(&r->scene, opt->particles, &r->scene_hash, err))
        return false;
    fprintf(stderr, "\ncistern: %s changed: reloaded%s (restart %u in stats.csv; %.2f s)\n", r->scene.path,
            had_error ? ", the error is fixed" : "", r->restarts, cs_now_seconds() - start);
    return true;
}

// A file dropped onto the window: a scene that loads ends this run and
// starts one with it, as the panel's picker does (cs_run). Anything else is
// refused in the image, like a scene edit that does not load, and the
// running world keeps going.
void run_open_dropped(run_state *r, cs_window_events *ev)
{
    cs_scene probe;
    cs_error err;
    if (!cs_scene_load(ev->dropped, &probe, &err)) {
        char msg[sizeof r->scene_error_msg];
        snprintf(msg, sizeof msg, "dropped %s: %s", ev->dropped, err.msg);
        fprintf(stderr, "\ncistern: %s; the running scene keeps going\n", msg);
        snprintf(r->scene_error_msg, sizeof r->scene_error_msg, "%s", msg);
        cs_scene_reload_alert(r->scene_error, sizeof r->scene_error, msg, alert_columns(r));
        return;
    }
    cs_scene_free(&probe);
    snprintf(r->picked_scene, sizeof r->picked_scene, "%s", ev->dropped);
    ev->quit = true;
}
