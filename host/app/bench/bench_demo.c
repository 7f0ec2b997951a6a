// bench_demo.c — `cistern bench --demo SCENE`: frames per second of the
// whole frame, as `cistern run` would make it, at each particle count.
//
// A frame is what the run loop records: the scene's substeps for one frame
// of simulated time (the scaled scene's dt x substeps; 1/60 s in the shipped
// scenes), the frame's closing work, the surfaces' meshing when the scene
// draws them, the draw, then the stats and check that every run frame ends
// with. Frames go through the same ring of frames in flight as run's loop
// (CS_FRAMES_IN_FLIGHT recorders, stats recorded in the frame and read one
// frame late), so the frame time is what a user sees with the overlap:
// frames/s is the timed frames' count over their whole span, from the first
// one's submit to the last one finished (the loop's period alone reads too
// fast while the ring still has free slots); the period's median and p90
// are reported next to it. Headless: the draw
// goes to the renderer's offscreen image; nothing is presented and nothing
// is read back, so a window adds its present (and vsync) on top. Queue
// submits and fence waits a frame are counted as run reports them. The GPU
// split reads the recorder's timestamps: "sim" is every pass cs_world_record_frame
// recorded, "draw" everything after it (meshing and the render features).
//
// Every count runs twice: in the physical mode (the file's clock, scaled:
// 12 substeps a frame for the dam break at 1 M) and in the real-time mode
// (the scene's "realtime" block turned on: its few substeps, the speed
// clamp; docs/fluids.md "Real-time mode"). A scene whose fluids the mode
// refuses (not PBF) gets a skipped row saying why.
#define _GNU_SOURCE
#include "bench.h"

#include "camera.h"
#include "context.h"
#include "output.h"
#include "recorder.h"
#include "render.h"
#include "scene.h"
#include "scene_edit.h"
#include "sim.h"
#include "world.h"
#include "world_draw.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#define DEMO_MAX_PASSES 64

typedef struct demo_pass {
    char name[48];
    double median_ms; // GPU ms a frame: the sum of its runs in the frame (one per substep)
    double *frame_ms; // per timed frame; -1 when it did not run
} demo_pass;

typedef struct demo_result {
    uint32_t requested, particles, substeps, frames;
    bool realtime;     // the real-time mode's row
    float speed_limit; // its clamp (m/s, the first fluid's); 0 in the physical mode
    bool skipped, failed;
    char reason[640];
    double frame_ms, frame_p90_ms;       // host wall clock of the loop's period (median, p90)
    double frame_p10_ms;                 // and p10: the spread (p90 - p10) / median goes in results.json
    double frame_mean_ms, fps;           // the timed frames' whole span (drain included) / frames
    double gpu_ms, sim_ms, draw_ms;       // medians of the GPU timestamps
    double sim_seconds;                   // simulated time a frame
    double submits_per_frame, waits_per_frame; // queue submits and host fence waits (every kind)
    uint32_t waits_on_latest;             // frames waited on before the next was recorded
    uint32_t frames_overlapped;           // recorded while the previous frame still ran
    double dispatches, barriers;          // compute dispatches and memory barriers a frame (medians)
    demo_pass passes[DEMO_MAX_PASSES];
    uint32_t pass_count;
} demo_result;

// A frame of the ring, submitted and not yet finished.
typedef struct demo_slot {
    bool pending;
    bool meshed;              // false: its surfaces' meshing failed (mesh_error)
    uint32_t index;           // the loop's frame index
    uint32_t timed;           // its column in the timed frames, UINT32_MAX in the warm-up
    uint32_t sim_passes;      // passes cs_world_record_frame recorded (the rest: draw)
    char mesh_error[320];
} demo_slot;

// Per timed frame: the GPU split, filed when the frame finishes.
typedef struct demo_series {
    double *sims, *draws, *gpus;
    double *dispatches, *barriers;  // recorded in the frame (cs_recorder counts)
} demo_series;

typedef struct demo_state {
    cs_context *ctx;
    cs_scene scene;
    cs_world world;
    cs_renderer renderer;
    cs_view_camera camera;
    cs_recorder frames[CS_FRAMES_IN_FLIGHT]; // the ring: slot = frame index % CS_FRAMES_IN_FLIGHT
    demo_slot slots[CS_FRAMES_IN_FLIGHT];
    uint32_t last_submitted;
    bool draining;            // finishing every frame at the end
} demo_state;

static void free_demo_state(demo_state **d) { free(*d); }

// What run.c's record_draw draws (world_draw.h), to the offscreen image.
static void record_demo_draw(demo_state *d, cs_recorder *rec)
{
    cs_world_draw arrays;
    cs_render_frame frame =
        cs_world_draw_frame(&d->world, d->scene.render.draw, !d->scene.level.radiosity_shown, &arrays);
    frame.camera = &d->camera;
    cs_barrier_compute_to_graphics(rec);
    cs_render_record(&d->renderer, rec, &frame);
}

static uint32_t pass_index(demo_result *res, const char *name, uint32_t frames)
{
    for (uint32_t q = 0; q < res->pass_count; q++)
        if (strcmp(res->passes[q].name, name) == 0)
            return q;
    if (res->pass_count == DEMO_MAX_PASSES)
        return UINT32_MAX;
    demo_pass *p = &res->passes[res->pass_count];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->frame_ms = malloc(frames * sizeof(double));
    CS_ASSERT(p->frame_ms, "out of memory for %u frames", frames);
    for (uint32_t f = 0; f < frames; f++)
        p->frame_ms[f] = -1.0;
    return res->pass_count++;
}

// The ring of frames in flight, as run.c keeps it: a frame is recorded
// and submitted in its slot (its stats recorded in it when the solvers
// can), and the loop waits only for the frame that last used the slot it
// reuses; that frame's stats check and timings are read then, one frame
// late, while the next frame runs. Worlds whose solvers cannot record their
// stats in the frame, and frames that mesh a surface (a count read back in
// the middle), wait as run's loop does.
static void create_demo_frames(demo_state *d)
{
    for (uint32_t i = 0; i < CS_FRAMES_IN_FLIGHT; i++) {
        cs_recorder_create(d->ctx, "demo", &d->frames[i]);
        d->frames[i].frame_slot = i;
    }
}

static void destroy_demo_frames(demo_state *d)
{
    for (uint32_t i = 0; i < CS_FRAMES_IN_FLIGHT; i++)
        cs_recorder_destroy(&d->frames[i]);
}

// Waits for the frame in `slot` (when pending), checks its stats and files
// its GPU timings under its timed column; false (res->reason) when it went
// wrong.
static bool finish_demo_frame(demo_state *d, demo_result *res, uint32_t slot, uint32_t frames, demo_series *series)
{
    demo_slot *s = &d->slots[slot];
    if (!s->pending)
        return true;
    s->pending = false;
    cs_recorder *rec = &d->frames[slot];
    if (!d->draining && s->index == d->last_submitted)
        res->waits_on_latest++;
    cs_recorder_wait(rec);
    char what[sizeof res->reason] = "";
    bool ok = s->meshed;
    if (!ok)
        snprintf(what, sizeof what, "%s", s->mesh_error);
    cs_sim_stats total, per_fluid[CS_MAX_FLUIDS];
    if (ok && cs_world_stats_in_frame(&d->world))
        cs_world_read_stats(&d->world, rec->frame_slot, &total, per_fluid);
    else if (ok)
        cs_world_stats(&d->world, &total, per_fluid);
    ok = ok && cs_world_check_stats(&d->world, per_fluid, what, sizeof what);
    if (!ok) {
        snprintf(res->reason, sizeof res->reason, "frame %u%s: %.600s", s->index,
                 s->timed == UINT32_MAX ? " (warm-up)" : "", what);
        return false;
    }
    res->particles = total.particles;
    if (s->timed == UINT32_MAX)
        return true;
    double sim_ms = 0.0, draw_ms = 0.0;
    for (uint32_t p = 0; p < rec->pass_count; p++)
        *(p < s->sim_passes ? &sim_ms : &draw_ms) += rec->passes[p].ms;
    series->sims[s->timed] = sim_ms, series->draws[s->timed] = draw_ms, series->gpus[s->timed] = sim_ms + draw_ms;
    series->dispatches[s->timed] = rec->dispatch_count, series->barriers[s->timed] = rec->barrier_count;
    cs_pass_timing sums[DEMO_MAX_PASSES];
    uint32_t sum_count = cs_recorder_pass_sums(rec, sums, DEMO_MAX_PASSES);
    for (uint32_t k = 0; k < sum_count; k++) {
        uint32_t q = pass_index(res, sums[k].name, frames);
        if (q != UINT32_MAX)
            res->passes[q].frame_ms[s->timed] = sums[k].ms;
    }
    return true;
}

// Records and submits frame `index` (column `timed`, UINT32_MAX in the
// warm-up) in its slot, which must have been finished. Returns whether the
// host needs the frame finished before the next is recorded: stats only a
// submit of their own can read, or a meshing error.
static bool submit_demo_frame(demo_state *d, demo_result *res, uint32_t index, uint32_t timed)
{
    uint32_t slot = index % CS_FRAMES_IN_FLIGHT;
    cs_recorder *rec = &d->frames[slot];
    const cs_recorder *previous = &d->frames[(slot + CS_FRAMES_IN_FLIGHT - 1) % CS_FRAMES_IN_FLIGHT];
    if (index > 0 && !cs_recorder_done(previous))
        res->frames_overlapped++;
    demo_slot *s = &d->slots[slot];
    *s = (demo_slot){.index = index, .timed = timed, .meshed = true};
    cs_recorder_begin(rec);
    cs_world_record_frame(&d->world, rec);
    s->sim_passes = rec->pass_count;
    bool surfaces = d->world.surface_count && d->scene.render.draw != CS_DRAW_PARTICLES;
    cs_error err;
    if (surfaces && !cs_world_mesh_surfaces(&d->world, rec, &err)) {
        s->meshed = false;
        snprintf(s->mesh_error, sizeof s->mesh_error, "%s", err.msg);
    }
    if (s->meshed)
        record_demo_draw(d, rec);
    bool in_frame = cs_world_stats_in_frame(&d->world);
    if (s->meshed && in_frame)
        cs_world_record_stats(&d->world, rec);
    cs_recorder_submit(rec, NULL);
    s->pending = true;
    d->last_submitted = index;
    return !in_frame || !s->meshed;
}

// The scene with --set's edits and one more: realtime.enabled, the mode.
static bool load_demo_scene(const cs_bench_options *opt, bool realtime, cs_scene *scene, cs_error *err)
{
    cs_scene_edit *edits = calloc(opt->edits.count + 1, sizeof *edits);
    CS_ASSERT(edits, "out of host memory");
    if (opt->edits.count)
        memcpy(edits, opt->edits.items, opt->edits.count * sizeof *edits);
    bool ok = cs_scene_edit_parse(realtime ? "realtime.enabled=true" : "realtime.enabled=false",
                                  &edits[opt->edits.count], err) &&
              cs_scene_load_edited(opt->scene, edits, opt->edits.count + 1, scene, err);
    free(edits);
    return ok;
}

static void demo_size(cs_context *ctx, const cs_bench_options *opt, uint32_t requested, bool realtime, demo_result *res)
{
    memset(res, 0, sizeof *res);
    res->requested = requested;
    res->realtime = realtime;
    // It holds a world and a scene: on the heap, not the stack.
    demo_state *d __attribute__((cleanup(free_demo_state))) = calloc(1, sizeof *d);
    CS_ASSERT(d, "out of host memory");
    d->ctx = ctx;
    cs_error err;
    if (!load_demo_scene(opt, realtime, &d->scene, &err)) {
        res->skipped = true;
        snprintf(res->reason, sizeof res->reason, "%s", err.msg);
        return;
    }
    cs_scene_scale_world(&d->scene, requested);
    res->substeps = d->scene.substeps;
    if (realtime && d->scene.fluid_count)
        res->speed_limit =
            (float)((double)d->scene.realtime.max_step * d->scene.fluids[0].smoothing_radius / d->scene.dt);
    res->sim_seconds = (double)d->scene.dt * d->scene.substeps;
    bool world = cs_world_create(ctx, &d->scene, &d->world, &err);
    cs_renderer_desc rd = {.width = d->scene.render.width ? d->scene.render.width : 960,
                           .height = d->scene.render.height ? d->scene.render.height : 540};
    bool renderer = world && cs_renderer_create(ctx, &rd, &d->renderer, &err);
    if (!renderer) {
        res->skipped = true;
        snprintf(res->reason, sizeof res->reason, "%s", err.msg);
        if (world)
            cs_world_destroy(&d->world);
        cs_scene_free(&d->scene);
        return;
    }
    cs_camera_from_scene(&d->camera, &d->scene);
    create_demo_frames(d);
    uint32_t frames = opt->steps;
    double *walls = calloc(frames, sizeof(double));
    demo_series series = {calloc(frames, sizeof(double)), calloc(frames, sizeof(double)),
                          calloc(frames, sizeof(double)), calloc(frames, sizeof(double)),
                          calloc(frames, sizeof(double))};
    CS_ASSERT(walls && series.sims && series.draws && series.gpus && series.dispatches && series.barriers,
              "out of memory for %u frames", frames);
    cs_progress progress;
    if (!opt->quiet)
        cs_progress_begin(&progress, opt->warmup + frames);
    // A frame's time is the loop's period, as a user sees frames arrive:
    // from one frame's submit to the next's, the wait for the slot and the
    // previous frame's check included.
    double mark = cs_now_seconds(), timed_start = mark;
    uint64_t submits_before = ctx->queue_submits, waits_before = ctx->fence_waits;
    uint32_t submitted = 0;
    for (uint32_t i = 0; i < opt->warmup + frames && !res->failed; i++) {
        bool timed = i >= opt->warmup;
        uint32_t f = timed ? i - opt->warmup : UINT32_MAX;
        if (i == opt->warmup) {
            // The timed frames start from an empty ring, as a run's loop
            // does, so each counts its own waits and nothing of the warm-up.
            d->draining = true;
            for (uint32_t k = 0; k < CS_FRAMES_IN_FLIGHT && !res->failed; k++)
                res->failed = !finish_demo_frame(d, res, (i + k) % CS_FRAMES_IN_FLIGHT, frames, &series);
            d->draining = false;
            if (res->failed)
                break;
            mark = timed_start = cs_now_seconds();
            submits_before = ctx->queue_submits, waits_before = ctx->fence_waits;
            res->waits_on_latest = res->frames_overlapped = 0;
        }
        uint32_t slot = i % CS_FRAMES_IN_FLIGHT;
        if (!finish_demo_frame(d, res, slot, frames, &series)) {
            res->failed = true;
            break;
        }
        bool needed_now = submit_demo_frame(d, res, i, f);
        submitted = i + 1;
        if (needed_now && !finish_demo_frame(d, res, slot, frames, &series))
            res->failed = true;
        double now = cs_now_seconds(), wall = (now - mark) * 1e3;
        mark = now;
        if (timed) {
            walls[f] = wall;
            res->frames++;
        }
        if (!opt->quiet) {
            char status[96];
            snprintf(status, sizeof status, "demo %u particles%s, %.0f ms a frame", requested,
                     timed ? "" : " (warm-up)", wall);
            cs_progress_update(&progress, i + 1, status);
        }
        if (timed && wall > opt->max_step_ms)
            break; // one slow frame is enough to know
    }
    // The frames still in flight, oldest first.
    d->draining = true;
    for (uint32_t k = 0; k < CS_FRAMES_IN_FLIGHT && !res->failed; k++)
        res->failed = !finish_demo_frame(d, res, (submitted + k) % CS_FRAMES_IN_FLIGHT, frames, &series);
    // Frames per second over the whole timed span, up to the last frame
    // finished: the loop's periods alone undercount, since the first frames
    // of the span find free slots and wait for nothing.
    double timed_span_ms = (cs_now_seconds() - timed_start) * 1e3;
    vkDeviceWaitIdle(ctx->device); // a failure left frames pending: nothing runs when the world goes
    uint32_t timed_submitted = submitted > opt->warmup ? submitted - opt->warmup : 0;
    if (timed_submitted) {
        res->submits_per_frame = (double)(ctx->queue_submits - submits_before) / timed_submitted;
        res->waits_per_frame = (double)(ctx->fence_waits - waits_before) / timed_submitted;
    }
    if (!opt->quiet)
        cs_progress_end(&progress);
    uint32_t n = res->frames;
    res->frame_ms = cs_bench_percentile(walls, n, 0.5);
    res->frame_p90_ms = cs_bench_percentile(walls, n, 0.9);
    res->frame_p10_ms = cs_bench_percentile(walls, n, 0.1);
    res->frame_mean_ms = n ? timed_span_ms / n : 0.0;
    res->fps = res->frame_mean_ms > 0 ? 1e3 / res->frame_mean_ms : 0.0;
    res->sim_ms = cs_bench_percentile(series.sims, n, 0.5);
    res->draw_ms = cs_bench_percentile(series.draws, n, 0.5);
    res->gpu_ms = cs_bench_percentile(series.gpus, n, 0.5);
    res->dispatches = cs_bench_percentile(series.dispatches, n, 0.5);
    res->barriers = cs_bench_percentile(series.barriers, n, 0.5);
    for (uint32_t q = 0; q < res->pass_count; q++) {
        // A pass that skipped some frames (an emitter's) counts 0 there.
        for (uint32_t k = 0; k < n; k++)
            res->passes[q].frame_ms[k] = fmax(res->passes[q].frame_ms[k], 0.0);
        res->passes[q].median_ms = cs_bench_percentile(res->passes[q].frame_ms, n, 0.5);
        free(res->passes[q].frame_ms);
        res->passes[q].frame_ms = NULL;
    }
    free(walls), free(series.sims), free(series.draws), free(series.gpus), free(series.dispatches),
        free(series.barriers);
    destroy_demo_frames(d);
    cs_renderer_destroy(&d->renderer);
    cs_world_destroy(&d->world);
    cs_scene_free(&d->scene);
}

static cJSON *demo_json(const cs_context *ctx, const cs_bench_options *opt, const char *scene_name,
                        const demo_result *res, uint32_t n)
{
    char device[512];
    cs_context_device_string(ctx, device, sizeof device);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "scene", scene_name);
    cJSON_AddStringToObject(root, "mode", "demo");
    cJSON_AddStringToObject(root, "frame", "substeps + frame end + surfaces + draw to the offscreen image + "
                                           "stats check; headless, no present");
    cJSON_AddStringToObject(root, "device_and_driver", device);
    cJSON_AddNumberToObject(root, "frames", opt->steps);
    cJSON_AddNumberToObject(root, "warmup", opt->warmup);
    cJSON_AddNumberToObject(root, "frames_in_flight", CS_FRAMES_IN_FLIGHT);
    cJSON *sizes = cJSON_AddArrayToObject(root, "sizes");
    for (uint32_t i = 0; i < n; i++) {
        const demo_result *r = &res[i];
        cJSON *s = cJSON_CreateObject();
        cJSON_AddNumberToObject(s, "requested", r->requested);
        cJSON_AddStringToObject(s, "stepping", r->realtime ? "realtime" : "physical");
        if (r->skipped) {
            cJSON_AddStringToObject(s, "skipped", r->reason);
            cJSON_AddItemToArray(sizes, s);
            continue;
        }
        cJSON_AddNumberToObject(s, "particles", r->particles);
        cJSON_AddBoolToObject(s, "stable", !r->failed);
        if (r->failed)
            cJSON_AddStringToObject(s, "failure", r->reason);
        cJSON_AddNumberToObject(s, "substeps", r->substeps);
        if (r->realtime)
            cJSON_AddNumberToObject(s, "speed_limit_m_per_s", r->speed_limit);
        cJSON_AddNumberToObject(s, "sim_seconds_per_frame", r->sim_seconds);
        cJSON_AddNumberToObject(s, "frames_timed", r->frames);
        cJSON_AddNumberToObject(s, "frame_mean_ms", r->frame_mean_ms);
        cJSON_AddNumberToObject(s, "frame_median_ms", r->frame_ms);
        cJSON_AddNumberToObject(s, "frame_p90_ms", r->frame_p90_ms);
        cJSON_AddNumberToObject(s, "frame_p10_ms", r->frame_p10_ms);
        cJSON_AddNumberToObject(s, "spread", r->frame_ms > 0 ? (r->frame_p90_ms - r->frame_p10_ms) / r->frame_ms : 0);
        cJSON_AddNumberToObject(s, "frames_per_s", r->fps);
        cJSON_AddNumberToObject(s, "gpu_median_ms", r->gpu_ms);
        cJSON_AddNumberToObject(s, "sim_gpu_median_ms", r->sim_ms);
        cJSON_AddNumberToObject(s, "draw_gpu_median_ms", r->draw_ms);
        cJSON_AddNumberToObject(s, "queue_submits_per_frame", r->submits_per_frame);
        cJSON_AddNumberToObject(s, "fence_waits_per_frame", r->waits_per_frame);
        cJSON_AddNumberToObject(s, "waited_on_latest", r->waits_on_latest);
        cJSON_AddNumberToObject(s, "frames_overlapped", r->frames_overlapped);
        cJSON_AddNumberToObject(s, "dispatches_per_frame", r->dispatches);
        cJSON_AddNumberToObject(s, "barriers_per_frame", r->barriers);
        cJSON *passes = cJSON_AddObjectToObject(s, "passes");
        for (uint32_t q = 0; q < r->pass_count; q++)
            cJSON_AddNumberToObject(passes, r->passes[q].name, r->passes[q].median_ms);
        cJSON_AddItemToArray(sizes, s);
    }
    return root;
}

static void print_demo_table(const char *scene_name, const char *device, const demo_result *res, uint32_t n)
{
    printf("\ncistern bench --demo %s on %s\n", scene_name, device);
    printf("(a frame: substeps + draw to the offscreen image + stats check; headless, no present)\n");
    printf("(%d frames in flight; frame ms: the timed frames' span, last one finished, over their count;\n"
           " submits and waits: queue submits and host fence waits a frame)\n",
           CS_FRAMES_IN_FLIGHT);
    printf("(stepping: physical, the file's clock scaled with the particles; real-time, the scene's \"realtime\"\n"
           " block on: its substeps a frame, speeds clamped, docs/fluids.md \"Real-time mode\")\n");
    printf("%11s %9s %11s %9s %9s %9s %9s %8s %8s %10s %8s\n", "particles", "substeps", "frame ms", "frames/s",
           "gpu ms", "sim ms", "draw ms", "submits", "waits", "stepping", "physics");
    for (uint32_t i = 0; i < n; i++) {
        const demo_result *r = &res[i];
        const char *stepping = r->realtime ? "real-time" : "physical";
        if (r->skipped) {
            printf("%11u  %s skipped: %.200s\n", r->requested, stepping, r->reason);
            continue;
        }
        printf("%11u %9u %11.3f %9.3f %9.3f %9.3f %9.3f %8.2f %8.2f %10s  %s%s\n", r->particles, r->substeps,
               r->frame_mean_ms, r->fps, r->gpu_ms, r->sim_ms, r->draw_ms, r->submits_per_frame, r->waits_per_frame,
               stepping, r->failed ? "FAILED: " : "stable", r->failed ? r->reason : "");
        if (r->realtime)
            printf("%11s   speeds clamped to %.3f m/s (realtime.max_step smoothing radii a substep)\n", "",
                   (double)r->speed_limit);
        printf("%11s   %.0f compute dispatches and %.0f barriers a frame (%.1f and %.1f a substep)\n", "",
               r->dispatches, r->barriers, r->dispatches / CS_MAX(r->substeps, 1u),
               r->barriers / CS_MAX(r->substeps, 1u));
        for (uint32_t q = 0; q < r->pass_count; q++)
            printf("%11s   %-34s %9.3f ms a frame\n", "", r->passes[q].name, r->passes[q].median_ms);
    }
}

int cs_bench_demo(const cs_bench_options *opt)
{
    cs_error err;
    cs_context ctx;
    cs_bench_start start;
    int begun = cs_bench_begin(opt, "bench/SCENE_demo", &ctx, &start);
    if (begun != 0)
        return begun;
    const char *scene_name = start.scene_name, *dir = start.dir, *device = start.device;
    // Two rows a count: the physical mode, then the real-time mode.
    demo_result *res = calloc(2 * (size_t)opt->size_count, sizeof *res);
    CS_ASSERT(res, "out of memory");
    uint32_t n = 0;
    bool failed = false, slow[2] = {false, false};
    for (; n < 2 * opt->size_count; n++) {
        uint32_t size = opt->sizes[n / 2];
        bool realtime = n % 2 == 1;
        if (failed || slow[realtime]) {
            res[n] = (demo_result){.requested = size, .realtime = realtime, .skipped = true};
            snprintf(res[n].reason, sizeof res[n].reason, "not run: %s", failed ? "a smaller size went wrong"
                     : "the previous size already took longer than --max-step-ms a frame");
            continue;
        }
        demo_size(&ctx, opt, size, realtime, &res[n]);
        const char *mode = realtime ? " (real-time mode)" : "";
        if (res[n].skipped)
            fprintf(stderr, "cistern: skipped %u particles%s: %s\n", size, mode, res[n].reason);
        if (res[n].failed)
            fprintf(stderr, "cistern: bench --demo %s, %u particles%s: stopped at %s\n", opt->scene, size, mode,
                    res[n].reason);
        failed = res[n].failed;
        slow[realtime] = !res[n].skipped && res[n].frame_ms > opt->max_step_ms;
    }
    print_demo_table(scene_name, device, res, n);
    int code = failed ? 1 : 0;
    cJSON *json = demo_json(&ctx, opt, scene_name, res, n);
    if (cs_bench_write_json(dir, json, &err)) {
        printf("wrote %s/results.json\n", dir);
    } else {
        fprintf(stderr, "cistern: %s\n", err.msg);
        code = 1;
    }
    cJSON_Delete(json);
    free(res);
    cs_context_destroy(&ctx);
    cs_shader_shutdown();
    if (opt->validation && ctx.validation_errors) {
        fprintf(stderr, "cistern: %u Vulkan validation error(s) were reported\n", ctx.validation_errors);
        code = code ? code : 1;
    }
    return code;
}
