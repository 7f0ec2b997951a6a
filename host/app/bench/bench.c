// bench.c — see bench.h.
//
// Each size gets a fresh pipeline (so memory use is per size), a warm-up,
// then `steps` single-step submits. Per step we keep every pass's GPU time
// and the wall time of the submit; the table reports medians and p90s. A
// step is one substep; the per-frame work closes every steps_per_frame-th
// step, as in a run, and is reported as its mean per step. The
// growth exponent is the least-squares slope of log(ms/step) on
// log(particles): 1.0 is linear scaling.
#define _GNU_SOURCE
#include "bench_result.h"

#include "cli.h"
#include "context.h"
#include "output.h"
#include "provenance.h"
#include "recorder.h"
#include "reint.h"
#include "scene.h"
#include "sim.h"
#include "world.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>


// Noise rules (docs/benchmarks.md "Noise"): a size is timed in batches of
// `steps` steps until two batches' medians agree within BATCH_AGREE, up to
// opt->batches batches or opt->budget_s seconds of timed steps. A row is
// marked noisy when its steps spread wider than NOISY_SPREAD ((p90 - p10) /
// median) or its batches disagree by more than NOISY_DRIFT.
#define DEFAULT_BATCHES 3
#define DEFAULT_BUDGET_S 60.0
#define BATCH_AGREE 0.05
#define NOISY_SPREAD 0.25
#define NOISY_DRIFT 0.10


// Fastest a sane particle can move: a fall through the whole domain height
// along gravity, sqrt(2 |g| H), plus the fastest thing the scene starts or
// emits (blocks' velocities, emitter speeds with their jitter), times 3 for
// splashes. 0 when nothing drives the scene (then no speed check).
static double speed_bound(const cs_scene *scene)
{
    double g = 0, fall = 0;
    for (int a = 0; a < 3; a++)
        g += (double)scene->gravity[a] * scene->gravity[a];
    g = sqrt(g);
    for (int a = 0; a < 3 && g > 0; a++)
        fall += fabs(scene->gravity[a]) / g * ((double)scene->domain_max[a] - scene->domain_min[a]);
    double start = 0;
    for (uint32_t i = 0; i < scene->block_count; i++) {
        const float *v = scene->blocks[i].velocity;
        start = fmax(start, sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]));
    }
    for (uint32_t e = 0; e < scene->emitter_count; e++)
        start = fmax(start, scene->emitters[e].speed * (1.0 + scene->emitters[e].speed_jitter));
    return 3.0 * (sqrt(2.0 * g * fall) + start);
}

// Every pass name seen in a timed step, in first-seen order.
static void add_pass_names(bench_result *res, const cs_recorder *rec)
{
    for (uint32_t p = 0; p < rec->pass_count && res->pass_count < MAX_PASSES; p++) {
        bool seen = false;
        for (uint32_t q = 0; q < res->pass_count; q++)
            seen |= strcmp(res->passes[q].name, rec->passes[p].name) == 0;
        if (!seen)
            memcpy(res->passes[res->pass_count++].name, rec->passes[p].name, 48);
    }
}

// A pass that ran in only some of the timed steps is per-frame work (it
// closes a frame) or an emitter's: each step carries its mean over the
// steps, its cost spread over the frame's substeps, so that neither the
// medians hide it nor the steps that close a frame stand out. The step
// totals are then the sums of the passes as each step carries them.
static void amortise_frame_passes(bench_result *res, double *per_pass, uint32_t steps, uint32_t done,
                                  double *totals)
{
    for (uint32_t s = 0; s < done; s++)
        totals[s] = 0.0;
    for (uint32_t q = 0; q < res->pass_count; q++) {
        double *ms = per_pass + (size_t)q * steps;
        uint32_t ran = 0;
        double sum = 0.0;
        for (uint32_t s = 0; s < done; s++)
            if (ms[s] >= 0.0)
                ran++, sum += ms[s];
        res->passes[q].per_frame = ran < done;
        res->passes[q].runs = ran;
        for (uint32_t s = 0; s < done; s++) {
            ms[s] = res->passes[q].per_frame ? sum / done : ms[s];
            totals[s] += ms[s];
        }
    }
}

static uint32_t bench_batches(const cs_bench_options *opt)
{
    return opt->batches ? CS_MIN(opt->batches, (uint32_t)MAX_BATCHES) : DEFAULT_BATCHES;
}

static double bench_budget_s(const cs_bench_options *opt)
{
    return opt->budget_s > 0 ? opt->budget_s : DEFAULT_BUDGET_S;
}

// CISTERN_BENCH_PLANT_NOISE=K (K >= 2): see the timing loop. 0 when unset.
static uint32_t planted_noise_every(void)
{
    const char *v = cs_cli_settings()->bench_plant_noise;
    long k = strtol(v, NULL, 10);
    return k >= 2 && k < 1000000 ? (uint32_t)k : 0;
}

// Marks the size noisy, with the reasons, from its spread, its batches and
// the machine's load when the bench started.
static void judge_noise(bench_result *res, uint32_t done)
{
    size_t used = 0;
    char *why = res->noise_reason;
    size_t size = sizeof res->noise_reason;
    res->spread = res->median_ms > 0 ? (res->p90_ms - res->p10_ms) / res->median_ms : 0.0;
    if (done >= 5 && res->spread > NOISY_SPREAD)
        used += (size_t)snprintf(why + used, size - used, "%sthe steps spread %.0f%% of the median (p10 %.3f, p90 %.3f ms)",
                                 used ? "; " : "", 100.0 * res->spread, res->p10_ms, res->p90_ms);
    if (res->batches >= 2) {
        double lo = res->batch_median_ms[0], hi = lo;
        for (uint32_t b = 1; b < res->batches; b++)
            lo = fmin(lo, res->batch_median_ms[b]), hi = fmax(hi, res->batch_median_ms[b]);
        if (lo > 0 && hi / lo - 1.0 > NOISY_DRIFT && used < size)
            used += (size_t)snprintf(why + used, size - used, "%sits %u batches' medians differ by %.0f%%",
                                     used ? "; " : "", res->batches, 100.0 * (hi / lo - 1.0));
    }
    char busy[200];
    if (cs_bench_machine_busy(busy, sizeof busy) && used < size)
        used += (size_t)snprintf(why + used, size - used, "%s%s", used ? "; " : "", busy);
    res->noisy = used > 0;
}

// The bench's scene at `requested` particles (or grid cells along x), one
// substep a step and no surfaces. False: res->skipped says why.
static bool load_sized_scene(const cs_bench_options *opt, uint32_t requested, cs_scene *out, bench_result *res)
{
    cs_error err;
    if (!cs_scene_load_edited(opt->scene, opt->edits.items, opt->edits.count, out, &err)) {
        res->skipped = true;
        snprintf(res->skip_reason, sizeof res->skip_reason, "%s", err.msg);
        return false;
    }
    bool resized = true;
    if (opt->cells) {
        // Every grid fluid of the scene gets the resolution.
        bool any = false;
        for (uint32_t i = 0; resized && i < out->fluid_count; i++) {
            if (strcmp(out->fluids[i].solver, "reint") == 0) {
                resized = cs_reint_scene_set_resolution(&out->fluids[i], requested, &err);
                any = true;
            }
        }
        if (resized && !any)
            resized = cs_fail(&err, "%s: --cells needs a grid fluid (solver \"reint\"); use --particles", out->path);
    } else {
        cs_scene_scale_world(out, requested);
    }
    if (!resized) {
        res->skipped = true;
        snprintf(res->skip_reason, sizeof res->skip_reason, "%s", err.msg);
        cs_scene_free(out);
        return false;
    }
    // One step per submit: per-step timings. A step is one substep of the
    // scaled scene (dt shrinks with the spacing, docs/scenes.md "Particle-count
    // scaling"), so a frame of the scaled scene is steps_per_frame steps.
    res->dt = out->dt;
    res->steps_per_frame = out->substeps;
    out->substeps = 1;
    // The bench times the solvers' steps; surfaces are meshed only in frames
    // that show them, never here, so none is made (their grids would also
    // cap the sizes a sweep reaches).
    for (uint32_t i = 0; i < out->fluid_count; i++) {
        out->fluids[i].substeps = 1;
        out->fluids[i].surface.enabled = false;
    }
    return true;
}

// After the timed steps: the particle (or cell) count, and whether the
// state is one a benchmark may report (finite, in the domain, no faster
// than speed_bound): a fast but exploding simulation is no result.
static void judge_final_state(const cs_bench_options *opt, const cs_scene *scene, cs_world *world, bench_result *res)
{
    cs_sim_stats stats = {0};
    cs_world_stats(world, &stats, NULL);
    res->particles = stats.particles;
    double bound = 0.0;
    for (uint32_t i = 0; i < scene->fluid_count; i++)
        bound = fmax(bound, speed_bound(&scene->fluids[i]));
    res->stable = !res->failed;
    if (res->failed)
        ; // unstable_reason says which step and what
    else if (stats.non_finite > 0)
        snprintf(res->unstable_reason, sizeof res->unstable_reason, "%u particles have NaN/Inf values",
                 stats.non_finite);
    else if (stats.outside_domain > 0)
        snprintf(res->unstable_reason, sizeof res->unstable_reason, "%u particles left the domain",
                 stats.outside_domain);
    else if (bound > 0 && !(stats.max_speed <= bound))
        snprintf(res->unstable_reason, sizeof res->unstable_reason,
                 "max speed %.3g exceeds %.3g (3 x (sqrt(2 g H) + fastest start/emitter speed))", stats.max_speed,
                 bound);
    res->stable = !res->failed && res->unstable_reason[0] == 0;
    if (opt->cells) {
        // Grid pipelines: every cell is updated every step, filled or not.
        res->particles = 0;
        for (uint32_t i = 0; i < world->fluid_count; i++) {
            cs_world_fluid *f = &world->fluids[i];
            if (!f->ops->field)
                continue;
            cs_field_view field;
            f->ops->field(f->state, &field);
            res->particles += field.dims[0] * field.dims[1] * CS_MAX(field.dims[2], 1u);
        }
    }
}

// Medians and percentiles of the timed steps, whole and per pass.
static void summarise_steps(bench_result *res, const double *totals, const double *walls, const double *per_pass,
                            uint32_t capacity, uint32_t done)
{
    res->median_ms = cs_bench_percentile(totals, done, 0.5);
    res->p10_ms = cs_bench_percentile(totals, done, 0.1);
    res->p90_ms = cs_bench_percentile(totals, done, 0.9);
    res->wall_median_ms = cs_bench_percentile(walls, done, 0.5);
    res->particle_steps_per_s = res->median_ms > 0 ? res->particles / (res->median_ms * 1e-3) : 0;
    for (uint32_t q = 0; q < res->pass_count; q++) {
        res->passes[q].median_ms = cs_bench_percentile(per_pass + (size_t)q * capacity, done, 0.5);
        res->passes[q].p10_ms = cs_bench_percentile(per_pass + (size_t)q * capacity, done, 0.1);
        res->passes[q].p90_ms = cs_bench_percentile(per_pass + (size_t)q * capacity, done, 0.9);
    }
}

static void run_size(cs_context *ctx, const cs_bench_options *opt, uint32_t requested, bench_result *res)
{
    memset(res, 0, sizeof *res);
    res->requested = requested;
    cs_error err;
    cs_scene scene;
    if (!load_sized_scene(opt, requested, &scene, res))
        return;
    CS_HEAP_WORLD(world);
    uint64_t before = ctx->bytes_allocated;
    if (!cs_world_create(ctx, &scene, world, &err)) {
        res->skipped = true;
        snprintf(res->skip_reason, sizeof res->skip_reason, "%s", err.msg);
        cs_scene_free(&scene);
        return;
    }
    res->memory_bytes = ctx->bytes_allocated - before;
    cs_recorder rec;
    cs_recorder_create(ctx, "bench", &rec);
    // Timed steps come in batches of opt->steps; `capacity` is the most
    // that can be timed, the stride of per_pass.
    uint32_t batch = opt->steps, max_batches = bench_batches(opt);
    uint32_t capacity = batch * max_batches;
    double *totals = calloc(capacity, sizeof(double)), *walls = calloc(capacity, sizeof(double));
    double *raw_totals = calloc(capacity, sizeof(double));
    double *per_pass = calloc((size_t)capacity * MAX_PASSES, sizeof(double));
    CS_ASSERT(totals && walls && raw_totals && per_pass, "out of memory for %u timed steps", capacity);
    for (size_t k = 0; k < (size_t)capacity * MAX_PASSES; k++)
        per_pass[k] = -1.0; // not run (yet): a pass first seen late did not run in the steps before
    uint32_t plant = planted_noise_every();
    cs_progress progress;
    if (!opt->quiet)
        cs_progress_begin(&progress, opt->warmup + capacity);
    uint32_t done = 0;
    double timing_start = 0.0;
    // Steps are substeps; the per-frame work (reint's stats and points, the
    // radiosity) closes every steps_per_frame-th step, as in a run, and so
    // do the stats read-back and the sanity check.
    uint32_t per_frame = CS_MAX(res->steps_per_frame, 1u);
    bool batches_agree = false;
    for (uint32_t i = 0; i < opt->warmup + capacity; i++) {
        if (i == opt->warmup)
            timing_start = cs_now_seconds();
        bool frame_ends = (i + 1) % per_frame == 0;
        cs_recorder_begin(&rec);
        cs_world_record_substep(world, &rec, i % per_frame, per_frame);
        // CISTERN_BENCH_PLANT_NOISE=K: every K-th timed step does the
        // work of four, as a machine shared with other work would make it
        // look; the noise check must flag it (tests/bench_trust.sh).
        if (plant && i >= opt->warmup && (i - opt->warmup) % plant == plant - 1)
            for (int extra = 0; extra < 3; extra++)
                cs_world_record_substep(world, &rec, i % per_frame, per_frame);
        if (frame_ends)
            cs_world_record_frame_end(world, &rec);
        cs_recorder_submit_wait(&rec);
        if (i >= opt->warmup) {
            uint32_t s = i - opt->warmup;
            walls[s] = rec.submit_wall_ms;
            raw_totals[s] = cs_recorder_total_ms(&rec);
            add_pass_names(res, &rec);
            for (uint32_t q = 0; q < res->pass_count; q++)
                per_pass[(size_t)q * capacity + s] = cs_recorder_pass_ms(&rec, res->passes[q].name); // -1: not run
            done++;
        }
        // A step that went wrong is not timed further: its figures would
        // time garbage (NaN particles, a saturated cell).
        cs_sim_stats step_stats[CS_MAX_FLUIDS], step_total;
        if (frame_ends)
            cs_world_stats(world, &step_total, step_stats);
        char what[512];
        if (frame_ends && !cs_world_check_stats(world, step_stats, what, sizeof what)) {
            res->failed = true;
            done -= i >= opt->warmup; // its timing is not one of a sane step
            snprintf(res->unstable_reason, sizeof res->unstable_reason, "step %u%s: %s", i,
                     i < opt->warmup ? " (warm-up)" : "", what);
            break;
        }
        if (i >= opt->warmup && cs_recorder_total_ms(&rec) > opt->max_step_ms)
            break; // one slow step is enough to know
        // A batch closes: stop once two batches agree, or the budget is spent.
        if (i >= opt->warmup && done % batch == 0) {
            uint32_t b = done / batch - 1;
            res->batch_median_ms[b] = cs_bench_percentile(raw_totals + (size_t)b * batch, batch, 0.5);
            res->batches = b + 1;
            if (b > 0) {
                double m0 = res->batch_median_ms[b - 1], m1 = res->batch_median_ms[b];
                batches_agree = fabs(m1 - m0) <= BATCH_AGREE * fmin(m0, m1);
            }
            if (batches_agree || cs_now_seconds() - timing_start > bench_budget_s(opt))
                break;
        }
        if (!opt->quiet) {
            char status[96];
            snprintf(status, sizeof status, "%u particles%s", requested, i < opt->warmup ? " (warm-up)" : "");
            cs_progress_update(&progress, i + 1, status);
        }
    }
    amortise_frame_passes(res, per_pass, capacity, done, totals);
    res->timed_steps = done;
    if (!opt->quiet)
        cs_progress_end(&progress);
    judge_final_state(opt, &scene, world, res);
    summarise_steps(res, totals, walls, per_pass, capacity, done);
    judge_noise(res, done);
    free(totals), free(walls), free(raw_totals), free(per_pass);
    cs_recorder_destroy(&rec);
    cs_world_destroy(world);
    cs_scene_free(&scene);
}

// Least-squares slope of log(ms) over log(particles).
static double growth_exponent(const bench_result *res, uint32_t n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (res[i].skipped || res[i].median_ms <= 0 || res[i].particles == 0)
            continue;
        double x = log((double)res[i].particles), y = log(res[i].median_ms);
        sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
    }
    if (k < 2 || k * sxx - sx * sx == 0)
        return NAN;
    return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

static cJSON *results_json(const cs_context *ctx, const cs_bench_options *opt, const char *scene_name,
                           const bench_result *res, uint32_t n, double exponent)
{
    char device[512];
    cs_context_device_string(ctx, device, sizeof device);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "scene", scene_name);
    cJSON_AddStringToObject(root, "device", ctx->props.deviceName);
    cJSON_AddStringToObject(root, "driver", ctx->driver.driverInfo);
    cJSON_AddStringToObject(root, "device_and_driver", device);
    cJSON_AddStringToObject(root, "unit", opt->cells ? "cells" : "particles");
    cJSON_AddNumberToObject(root, "steps", opt->steps);
    cJSON_AddNumberToObject(root, "max_batches", bench_batches(opt));
    cJSON_AddNumberToObject(root, "budget_s", bench_budget_s(opt));
    cJSON_AddNumberToObject(root, "warmup", opt->warmup);
    if (!isnan(exponent))
        cJSON_AddNumberToObject(root, "growth_exponent", exponent);
    cJSON *sizes = cJSON_AddArrayToObject(root, "sizes");
    for (uint32_t i = 0; i < n; i++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddNumberToObject(s, "requested", res[i].requested);
        if (res[i].skipped) {
            cJSON_AddStringToObject(s, "skipped", res[i].skip_reason);
        } else {
            cJSON_AddNumberToObject(s, "particles", res[i].particles);
            cJSON_AddBoolToObject(s, "stable", res[i].stable);
            if (!res[i].stable)
                cJSON_AddStringToObject(s, "unstable_reason", res[i].unstable_reason);
            cJSON_AddNumberToObject(s, "dt", res[i].dt);
            cJSON_AddNumberToObject(s, "steps_per_frame", res[i].steps_per_frame);
            cJSON_AddNumberToObject(s, "median_ms", res[i].median_ms);
            cJSON_AddNumberToObject(s, "p10_ms", res[i].p10_ms);
            cJSON_AddNumberToObject(s, "p90_ms", res[i].p90_ms);
            cJSON_AddNumberToObject(s, "spread", res[i].spread);
            cJSON_AddNumberToObject(s, "timed_steps", res[i].timed_steps);
            cJSON_AddItemToObject(s, "batch_median_ms", cJSON_CreateDoubleArray(res[i].batch_median_ms,
                                                                                (int)res[i].batches));
            cJSON_AddBoolToObject(s, "noisy", res[i].noisy);
            if (res[i].noisy)
                cJSON_AddStringToObject(s, "noise", res[i].noise_reason);
            cJSON_AddNumberToObject(s, "wall_median_ms", res[i].wall_median_ms);
            cJSON_AddNumberToObject(s, "particle_steps_per_s", res[i].particle_steps_per_s);
            cJSON_AddNumberToObject(s, "memory_bytes", (double)res[i].memory_bytes);
            cJSON *passes = cJSON_AddObjectToObject(s, "passes");
            for (uint32_t q = 0; q < res[i].pass_count; q++) {
                cJSON *p = cJSON_AddObjectToObject(passes, res[i].passes[q].name);
                cJSON_AddNumberToObject(p, "median_ms", res[i].passes[q].median_ms);
                cJSON_AddNumberToObject(p, "p10_ms", res[i].passes[q].p10_ms);
                cJSON_AddNumberToObject(p, "p90_ms", res[i].passes[q].p90_ms);
                cJSON_AddNumberToObject(p, "runs", res[i].passes[q].runs);
            }
        }
        cJSON_AddItemToArray(sizes, s);
    }
    return root;
}

static bool write_csv(const char *path, const bench_result *res, uint32_t n, cs_error *err)
{
    cs_out_file f;
    if (!cs_out_open(&f, path, true, err))
        return false;
    cs_out_printf(&f, "particles,pass,median_ms,p10_ms,p90_ms\n");
    for (uint32_t i = 0; i < n; i++) {
        if (res[i].skipped)
            continue;
        cs_out_printf(&f, "%u,total,%.5f,%.5f,%.5f\n", res[i].particles, res[i].median_ms, res[i].p10_ms,
                      res[i].p90_ms);
        cs_out_printf(&f, "%u,wall,%.5f,,\n", res[i].particles, res[i].wall_median_ms);
        for (uint32_t q = 0; q < res[i].pass_count; q++)
            cs_out_printf(&f, "%u,%s,%.5f,%.5f,%.5f\n", res[i].particles, res[i].passes[q].name,
                          res[i].passes[q].median_ms, res[i].passes[q].p10_ms, res[i].passes[q].p90_ms);
    }
    return cs_out_close(&f, err);
}

static bool write_plots(const char *dir, const char *title, const bench_result *res, uint32_t n, cs_error *err)
{
    if (!cs_bench_have_gnuplot())
        return true;
    const bench_result *first = NULL;
    for (uint32_t i = 0; i < n && !first; i++)
        if (!res[i].skipped)
            first = &res[i];
    if (!first)
        return true;
    char data_path[600];
    snprintf(data_path, sizeof data_path, "%s/plot.dat", dir);
    cs_out_file out, *d = &out;
    if (!cs_out_open(d, data_path, true, err))
        return false;
    // One block per series (gnuplot "index"): total (median, p10, p90),
    // then each pass (median), then the noisy sizes (the total's median).
    // A median alone hides how far the steps spread: the total carries its
    // p10-p90 bar and a noisy size a mark of its own (results.json and the
    // table say why it is noisy).
    const char *series[1 + MAX_PASSES], *styles[1 + MAX_PASSES] = {"lw 3"};
    uint32_t series_count = 0;
    for (int q = -1; q < (int)first->pass_count; q++) {
        series[series_count++] = q < 0 ? "total" : first->passes[q].name;
        cs_out_printf(d, "# %s\n", q < 0 ? "total: particles, median, p10, p90 ms" : first->passes[q].name);
        for (uint32_t i = 0; i < n; i++) {
            if (res[i].skipped)
                continue;
            double ms = q < 0 ? res[i].median_ms : 0;
            for (uint32_t k = 0; q >= 0 && k < res[i].pass_count; k++)
                if (strcmp(res[i].passes[k].name, first->passes[q].name) == 0)
                    ms = res[i].passes[k].median_ms;
            if (ms > 0 && q < 0)
                cs_out_printf(d, "%u %.6f %.6f %.6f\n", res[i].particles, ms, res[i].p10_ms > 0 ? res[i].p10_ms : ms,
                              res[i].p90_ms > 0 ? res[i].p90_ms : ms);
            else if (ms > 0)
                cs_out_printf(d, "%u %.6f\n", res[i].particles, ms);
        }
        cs_out_printf(d, "\n\n");
    }
    uint32_t noisy = 0;
    for (uint32_t i = 0; i < n; i++)
        noisy += !res[i].skipped && res[i].noisy && res[i].median_ms > 0;
    char extra[400];
    int used = snprintf(extra, sizeof extra,
                        ", '' index 0 using 1:2:3:4 with yerrorbars lc rgb 'black' pt 0 title 'total: p10-p90 of the steps'");
    if (noisy) {
        // An index block of its own: gnuplot refuses an empty one, so it is
        // written only when a size is noisy.
        cs_out_printf(d, "# noisy sizes: particles, total median ms\n");
        for (uint32_t i = 0; i < n; i++)
            if (!res[i].skipped && res[i].noisy && res[i].median_ms > 0)
                cs_out_printf(d, "%u %.6f\n", res[i].particles, res[i].median_ms);
        cs_out_printf(d, "\n\n");
        snprintf(extra + used, sizeof extra - (size_t)used,
                 ", '' index %u with points pt 6 ps 3 lw 2 lc rgb 'red' title 'noisy (results.json says why)'",
                 series_count);
    }
    return cs_out_close(d, err) && cs_bench_plot_with(dir, title, "particles", "GPU ms per step (median)", series,
                                                      styles, series_count, extra, err);
}

// --cells sizes grid fluids only: on a scene without one every size would
// be skipped and the run end in an empty table with exit 0, so it is
// refused before anything starts.
static bool cells_have_a_grid(const cs_bench_options *opt)
{
    if (!opt->cells)
        return true;
    cs_error err;
    cs_scene *scene = calloc(1, sizeof *scene);
    CS_ASSERT(scene, "out of host memory");
    bool grid = false;
    if (cs_scene_load_edited(opt->scene, opt->edits.items, opt->edits.count, scene, &err)) {
        for (uint32_t i = 0; i < scene->fluid_count; i++)
            grid |= strcmp(scene->fluids[i].solver, "reint") == 0;
        if (!grid)
            fprintf(stderr, "cistern: bench --cells: %s has no grid fluid (solver \"reint\"), so --cells would "
                            "size nothing; use --particles, or a reint scene (reint_dam_2d, reint_3d)\n",
                    scene->name);
        cs_scene_free(scene);
    } else {
        fprintf(stderr, "cistern: %s\n", err.msg);
    }
    free(scene);
    return grid;
}

int cs_bench(const cs_bench_options *opt)
{
    cs_error err;
    // --cells on a particle scene is refused before the device starts too.
    if (!cells_have_a_grid(opt))
        return 2;
    cs_context ctx;
    cs_bench_start start;
    int begun = cs_bench_begin(opt, "bench/SCENE", &ctx, &start);
    if (begun != 0)
        return begun;
    const char *scene_name = start.scene_name, *dir = start.dir, *device = start.device;
    // The results (100 KiB together) live on the heap, not the stack.
    bench_result *res = calloc(CS_BENCH_MAX_SIZES, sizeof *res);
    CS_ASSERT(res, "out of host memory");
    uint32_t n = 0;
    bool stop = false, failed = false;
    for (uint32_t i = 0; i < opt->size_count; i++, n++) {
        if (stop) {
            res[i] = (bench_result){.requested = opt->sizes[i], .skipped = true};
            if (failed)
                snprintf(res[i].skip_reason, sizeof res[i].skip_reason, "not run: a smaller size went wrong");
            else
                snprintf(res[i].skip_reason, sizeof res[i].skip_reason,
                         "not run: the previous size already took more than %.0f ms per step", opt->max_step_ms);
            continue;
        }
        run_size(&ctx, opt, opt->sizes[i], &res[i]);
        if (res[i].skipped)
            fprintf(stderr, "cistern: skipped %u particles: %s\n", opt->sizes[i], res[i].skip_reason);
        if (res[i].failed) {
            fprintf(stderr, "cistern: bench %s, %u %s: stopped at %s\n", opt->scene, opt->sizes[i],
                    opt->cells ? "cells" : "particles", res[i].unstable_reason);
            failed = true;
        }
        stop = failed || (!res[i].skipped && res[i].median_ms > opt->max_step_ms);
    }
    double exponent = growth_exponent(res, n);

    // The table.
    printf("\ncistern bench %s on %s\n", scene_name, device);
    const char *unit = opt->cells ? "cells" : "particles";
    printf("%11s %11s %11s %11s %15s %11s %11s %6s  %s\n", unit, "median ms", "p90 ms", "wall ms",
           opt->cells ? "cell-steps/s" : "particle-steps/s", "memory", "dt", "steps", "physics");
    for (uint32_t i = 0; i < n; i++) {
        if (res[i].skipped) {
            printf("%11u  skipped: %.100s\n", res[i].requested, res[i].skip_reason);
            continue;
        }
        char mem[32];
        printf("%11u %11.3f %11.3f %11.3f %15.3e %11s %11.4g %6u  %s%s\n", res[i].particles, res[i].median_ms,
               res[i].p90_ms, res[i].wall_median_ms, res[i].particle_steps_per_s,
               cs_format_bytes(res[i].memory_bytes, mem, sizeof mem), res[i].dt, res[i].steps_per_frame,
               res[i].stable ? "stable" : "UNSTABLE: ", res[i].stable ? "" : res[i].unstable_reason);
        printf("%11s   timed %u steps in %u batch%s of %u (medians", "", res[i].timed_steps, res[i].batches,
               res[i].batches == 1 ? "" : "es", opt->steps);
        for (uint32_t b = 0; b < res[i].batches; b++)
            printf(" %.3f", res[i].batch_median_ms[b]);
        printf(" ms); p10 %.3f ms, spread (p90 - p10) / median %.0f%%\n", res[i].p10_ms, 100.0 * res[i].spread);
        if (res[i].noisy) {
            printf("%11s   NOISY: %s\n", "", res[i].noise_reason);
            fprintf(stderr, "cistern: warning: %u %s: noisy timing: %s\n", res[i].particles, unit,
                    res[i].noise_reason);
        }
        for (uint32_t q = 0; q < res[i].pass_count; q++) {
            const bench_pass *p = &res[i].passes[q];
            printf("%11s   %-28s %9.3f ms (p90 %.3f)", "", p->name, p->median_ms, p->p90_ms);
            if (p->per_frame)
                printf("  ran in %u of %u steps: mean per step", p->runs, res[i].timed_steps);
            printf("\n");
        }
    }
    if (!isnan(exponent))
        printf("growth exponent of ms/step against %s: %.2f (1.0 is linear; a step is one substep of dt, "
               "a frame is `steps` of them)\n",
               unit, exponent);

    int code = 0;
    cJSON *json = results_json(&ctx, opt, scene_name, res, n, exponent);
    bool ok = cs_bench_write_json(dir, json, &err);
    cJSON_Delete(json);
    char path[600];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    ok = ok && write_csv(path, res, n, &err);
    char title[700];
    snprintf(title, sizeof title, "cistern %s on %s", scene_name, ctx.props.deviceName);
    ok = ok && write_plots(dir, title, res, n, &err);
    if (ok) {
        printf("wrote %s/results.json, results.csv, plot.png, plot.svg\n", dir);
    } else {
        fprintf(stderr, "cistern: %s\n", err.msg);
        code = 1;
    }
    if (opt->baseline && !cs_bench_compare_baseline(opt->baseline, scene_name, unit, res, n))
        code = code ? code : 3;
    free(res);
    cs_context_destroy(&ctx);
    cs_shader_shutdown();
    return failed ? 1 : code;
}
