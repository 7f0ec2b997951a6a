// bench.h — `cistern bench`: sweep particle counts, time every pass with GPU
// timestamps, report medians and p90s, write CSV/JSON and plots.
#pragma once

#include "cli.h"
#include "common.h"
#include "scene_edit.h"
#include "context.h"

#include <cjson/cJSON.h>

#define CS_BENCH_MAX_SIZES 16
// Most patches `bench --radiosity --patches` asks for (CS_RADIOSITY_MAX_PATCHES).
#define CS_BENCH_MAX_PATCHES (1u << 22)

typedef struct cs_bench_options {
    const char *scene;
    cs_scene_edits edits;       // --set: applied to every load of the scene
    uint32_t sizes[CS_BENCH_MAX_SIZES];
    uint32_t size_count;
    bool cells;              // sizes are grid cells along x (grid pipelines: reint)
    uint32_t steps;          // timed steps per size, per batch
    uint32_t batches;        // most batches of `steps` per size, until two agree (0: 3)
    double budget_s;         // no new batch after this many seconds of timing a size (0: 60)
    uint32_t warmup;         // untimed steps first (lavapipe compiles at first dispatch)
    const char *out_dir;     // default bench/<scene>
    bool overwrite;          // a non-empty out_dir: delete the bench's own files there first
    const char *baseline;    // earlier JSON to compare against
    const char *device;
    bool validation;
    double max_step_ms;      // stop the sweep when a step takes longer (default 10 s)
    bool quiet;
    // --surface (bench_surface.c): extraction at nodes[i]^3 on a sphere and
    // on the scene's particles (after `frames` frames, rescaled to
    // surface_particles when not 0) splatted with both kernels; the CPU
    // reference runs cpu_runs times per field.
    bool surface;
    bool radiosity;          // --radiosity (bench_radiosity.c): compile and per-pass times at a few patch sizes
    uint32_t patches[CS_BENCH_MAX_SIZES]; // --patches: patch counts instead (each at the nearest patch_size)
    uint32_t patch_target_count;
    // --probes: light-probe counts of the probe rows (each the nearest n^3),
    // after the patch sweep or --patches; none given: 1k and 8k.
    uint32_t probes[CS_BENCH_MAX_SIZES];
    uint32_t probe_count;
    bool demo;               // --demo (bench_demo.c): whole frames (substeps + draw) at each particle count
    bool draw;               // --draw (bench_draw.c): the particles' draw alone, at --size (default 1280x720)
    uint32_t width, height;  // --size WxH for --draw
    uint32_t nodes[CS_BENCH_MAX_SIZES];
    uint32_t node_count;
    uint32_t frames;
    uint32_t surface_particles;
    uint32_t cpu_runs;
} cs_bench_options;

// `baseline` (bench.c): any results file (one bench's results.json, or a
// per-device results/<device>.json); rows are matched by scene, size and
// pass, and a row that cannot be matched fails the bench.

// Parses "16k,64k,1M,250000" into sizes. Returns false with a message naming
// the bad item.
bool cs_bench_parse_sizes(const char *text, cs_bench_options *opt, cs_error *err);

int cs_bench(const cs_bench_options *opt);
// `cistern bench --surface`: see bench_surface.c and docs/benchmarks.md.
int cs_bench_surface(const cs_bench_options *opt);
// `cistern bench --radiosity`: see bench_radiosity.c and docs/benchmarks.md.
int cs_bench_radiosity(const cs_bench_options *opt);
// `cistern bench --demo`: see bench_demo.c and docs/benchmarks.md.
int cs_bench_demo(const cs_bench_options *opt);
// `cistern bench --draw`: see bench_draw.c and docs/benchmarks.md.
int cs_bench_draw(const cs_bench_options *opt);

// The Vulkan context the options ask for (--validation, --device; verbose
// unless --quiet) and its device string for the tables' titles. False,
// with the error printed, when it cannot be created.
bool cs_bench_open_context(const cs_bench_options *opt, cs_context *ctx, char *device, size_t size);

// What a sweep that writes files settles before its timed work, in one
// order, so that every sweep exits the same way on the same mistake:
// 1. the scene loads (its name into start->scene_name), else exit 2: bad input;
// 2. the output folder (`cistern run`'s rule: empty or new, or --overwrite,
//    which deletes only the bench's own files) is opt->out_dir, or
//    default_dir with "SCENE" replaced by the scene's name, into start->dir;
//    refused: exit 2;
// 3. the device starts (cs_bench_open_context), else exit 1.
// Returns 0 with ctx created and start filled, or the exit code with the
// error printed and nothing to free.
typedef struct cs_bench_start {
    char scene_name[256];
    char dir[512];
    char device[512];
} cs_bench_start;
int cs_bench_begin(const cs_bench_options *opt, const char *default_dir, cs_context *ctx, cs_bench_start *start);

// Writes JSON as DIR/results.json (DIR made first), with the run's
// provenance (provenance.h) added as "provenance". Does not take JSON.
// False with err set when the directory or the file cannot be written.
bool cs_bench_write_json(const char *dir, cJSON *json, cs_error *err);

// Percentile q (0..1) of n samples, nearest rank on a sorted copy (0 when
// n is 0). The one statistic both benchmarks quote.
double cs_bench_percentile(const double *samples, uint32_t n, double q);
// The machine had other work while the bench ran (provenance.h): why, in
// `out`; false when it was idle.
bool cs_bench_machine_busy(char *out, size_t size);

// Plots: true when gnuplot is installed (else says how to get it).
bool cs_bench_have_gnuplot(void);
// Writes DIR/plot.gp for DIR/plot.dat (the caller's data, one gnuplot
// "index" block per series, in `series` order) and runs gnuplot for
// DIR/plot.png and DIR/plot.svg, log-log. styles[q] (may be NULL) adds
// gnuplot line options to series q ("lw 3", "dt 2"). False (err) only when
// plot.gp cannot be written; a failing gnuplot is a note on stderr.
bool cs_bench_plot(const char *dir, const char *title, const char *xlabel, const char *ylabel,
                   const char *const *series, const char *const *styles, uint32_t series_count, cs_error *err);
// The same with `extra` (may be NULL) appended to the plot command: more
// plots of the same data file (", '' index 0 using 1:2:3:4 with yerrorbars ...").
bool cs_bench_plot_with(const char *dir, const char *title, const char *xlabel, const char *ylabel,
                        const char *const *series, const char *const *styles, uint32_t series_count,
                        const char *extra, cs_error *err);

// `cistern bench` on the command line: its option table (cli.h) and its
// entry, called by main.c with the whole argv (the command is argv[1]).
extern const cs_cli_command cs_bench_cli;
int cs_bench_main(int argc, char **argv);
