// bench_command.c — `cistern bench`: its option table (cli.h) and the
// checks across options before a sweep (bench.c and its siblings) runs.
#include "bench.h"
#include "cli.h"
#include "scene_edit.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

CS_CLI_SIZE_FIELDS_ADJACENT(cs_bench_options);


// --particles LIST and --cells LIST: the same sizes, counted in particles
// or in grid cells along x.
static bool set_sizes(const cs_cli_option *o, void *opts, const char *v)
{
    cs_bench_options *opt = opts;
    cs_error err;
    opt->cells = strcmp(o->name, "--cells") == 0;
    if (!v || !cs_bench_parse_sizes(v, opt, &err)) {
        fprintf(stderr, "cistern: %s\n", v ? err.msg : "--particles wants a list, e.g. 16k,64k,1M");
        return false;
    }
    return true;
}

// The --particles list syntax for another count (--nodes, --patches), each
// from min to max; the parser's "--particles" replaced by the option's name.
static bool parse_count_list(const cs_cli_option *o, const char *v, const char *what, uint32_t *counts,
                             uint32_t *count)
{
    cs_bench_options list = {0};
    cs_error err;
    if (!v || !cs_bench_parse_sizes(v, &list, &err)) {
        const char *why = v ? strstr(err.msg, ": ") : NULL; // past cs_bench_parse_sizes' "--particles"
        fprintf(stderr, "cistern: %s wants a list of %s%s%s\n", o->name, what, why ? ": " : "", why ? why + 2 : "");
        return false;
    }
    for (uint32_t k = 0; k < list.size_count; k++) {
        if (list.sizes[k] < o->min || list.sizes[k] > o->max) {
            fprintf(stderr, "cistern: %s: %u %s; give %u to %u\n", o->name, list.sizes[k],
                    strcmp(o->name, "--nodes") == 0    ? "nodes per axis"
                    : strcmp(o->name, "--probes") == 0 ? "probes"
                                                       : "patches",
                    (uint32_t)o->min, (uint32_t)o->max);
            return false;
        }
        counts[k] = list.sizes[k];
    }
    *count = list.size_count;
    return true;
}

static bool set_nodes(const cs_cli_option *o, void *opts, const char *v)
{
    cs_bench_options *opt = opts;
    return parse_count_list(o, v, "node counts per axis, e.g. 128,256,512", opt->nodes, &opt->node_count);
}

static bool set_patches(const cs_cli_option *o, void *opts, const char *v)
{
    cs_bench_options *opt = opts;
    return parse_count_list(o, v, "patch counts, e.g. 1k,8k,32k,100k,1M", opt->patches, &opt->patch_target_count);
}

static bool set_probes(const cs_cli_option *o, void *opts, const char *v)
{
    cs_bench_options *opt = opts;
    return parse_count_list(o, v, "light-probe counts, e.g. 1k,8k", opt->probes, &opt->probe_count);
}

static bool set_max_step_ms(const cs_cli_option *o, void *opts, const char *v)
{
    uint32_t n;
    if (!cs_cli_parse_count(o->name, v, 1, UINT32_MAX, &n))
        return false;
    ((cs_bench_options *)opts)->max_step_ms = n;
    return true;
}

#define BENCH_AT(member) CS_CLI_AT(cs_bench_options, member)

static const cs_cli_option bench_options[] = {
    {.name = "--particles", .kind = CS_CLI_SETTER, BENCH_AT(sizes), .arg = "LIST", .set = set_sizes, .def = "16k,64k",
     .help = "particle counts, e.g. 16k,64k,256k,1M (--demo: 256k,1M,4M; --draw: 64k,256k,1M; "
             "--surface: one count, the scene rescaled to it first)"},
    {.name = "--cells", .kind = CS_CLI_SETTER, BENCH_AT(sizes), .arg = "LIST", .set = set_sizes,
     .help = "grid pipelines (reint): cells along x, e.g. 512,2048"},
    {.name = "--set", .kind = CS_CLI_SETTER, BENCH_AT(edits), .arg = "KEY=VALUE", .set = cs_cli_set_scene_edit,
     .help = CS_CLI_SET_HELP},
    {.name = "--steps", .kind = CS_CLI_UINT, BENCH_AT(steps), .arg = "N", .min = 1, .max = UINT32_MAX, .def = "50",
     .help = "timed steps per size, at least 1 (--demo: 10 frames; --draw, --surface, --radiosity: 5)"},
    {.name = "--warmup", .kind = CS_CLI_UINT, BENCH_AT(warmup), .arg = "N", .max = UINT32_MAX, .def = "5",
     .help = "untimed steps first (--demo: 2; --draw, --surface, --radiosity: 1)"},
    {.name = "--out", .kind = CS_CLI_PATH, BENCH_AT(out_dir), .arg = "DIR",
     .help = "results.json, results.csv, plot.png, plot.svg (default bench/SCENE; --demo bench/SCENE_demo, "
             "--draw bench/SCENE_draw, --surface bench/surface)"},
    {.name = "--overwrite", .kind = CS_CLI_FLAG, BENCH_AT(overwrite),
     .help = "use a non-empty --out: first delete the bench's own files there (results.json/.csv, "
             "plot.png/.svg/.dat/.gp), nothing else"},
    {.name = "--batches", .kind = CS_CLI_UINT, BENCH_AT(batches), .arg = "N", .min = 1, .max = 16, .def = "3",
     .help = "time each size in up to N batches of --steps, until two batches' medians agree within 5%"},
    {.name = "--budget-s", .kind = CS_CLI_FLOAT, BENCH_AT(budget_s), .arg = "S", .min = 0.001, .max = 1e6,
     .def = "60", .unit = "seconds", .help = "no new batch once a size has been timed this long"},
    {.name = "--baseline", .kind = CS_CLI_PATH, BENCH_AT(baseline), .arg = "FILE.json",
     .help = "ratios against any results file (a results.json, or results/DEVICE.json), matched by scene, size "
             "and pass; exit 3 when a row or pass has no match"},
    {.name = "--max-step-ms", .kind = CS_CLI_SETTER, BENCH_AT(max_step_ms), .arg = "MS", .set = set_max_step_ms,
     .def = "10000", .help = "stop the sweep once a step takes longer, at least 1"},
    {.name = "--demo", .kind = CS_CLI_FLAG, BENCH_AT(demo),
     .help = "time whole frames as a run makes them: the scene's substeps for a frame, surfaces, the draw "
             "(headless: to the offscreen image, no present), the stats check; frame ms, frames/s, sim / draw GPU "
             "ms and every pass a frame"},
    {.name = "--draw", .kind = CS_CLI_FLAG, BENCH_AT(draw),
     .help = "the particles' draw alone (no substep: the scene as it starts), GPU ms of the draw pass, one-pixel "
             "particles and triangle pixels"},
    {.name = "--size", .kind = CS_CLI_SIZE, BENCH_AT(width), .arg = "WxH",
     .help = "--draw: the image size (default 1280x720)"},
    {.name = "--surface", .kind = CS_CLI_FLAG, BENCH_AT(surface),
     .help = "time surface extraction: a sphere, and SCENE (a 3D particle scene) splatted with both kernels, "
             "against the CPU reference"},
    {.name = "--nodes", .kind = CS_CLI_SETTER, BENCH_AT(nodes), .arg = "LIST", .min = 2, .max = 2048,
     .set = set_nodes, .def = "128,256,512",
     .help = "--surface: field nodes per axis (sizes the device cannot hold are skipped with the reason)"},
    {.name = "--frames", .kind = CS_CLI_UINT, BENCH_AT(frames), .arg = "N", .max = UINT32_MAX, .def = "40",
     .help = "--surface: frames simulated before the particles are splatted"},
    {.name = "--cpu-runs", .kind = CS_CLI_UINT, BENCH_AT(cpu_runs), .arg = "N", .max = UINT32_MAX, .def = "3",
     .help = "--surface: CPU reference runs per field (0: none)"},
    {.name = "--radiosity", .kind = CS_CLI_FLAG, BENCH_AT(radiosity),
     .help = "time radiosity and light probes (default scene cornell_box)"},
    {.name = "--patches", .kind = CS_CLI_SETTER, BENCH_AT(patches), .arg = "LIST", .min = 16,
     .max = CS_BENCH_MAX_PATCHES, .set = set_patches,
     .help = "--radiosity: at these patch counts instead, e.g. 1k,8k,32k,100k,1M"},
    {.name = "--probes", .kind = CS_CLI_SETTER, BENCH_AT(probes), .arg = "LIST", .min = 1, .max = 1u << 21,
     .set = set_probes, .def = "1k,8k",
     .help = "--radiosity: light-probe counts of the probe rows (each the nearest n^3), after the patch sweep or "
             "--patches"},
    {.name = "--quiet", .kind = CS_CLI_FLAG, BENCH_AT(quiet), .help = "no device line or progress"},
    {.name = "--device", .kind = CS_CLI_SETTER, BENCH_AT(device), .arg = "N|NAME", .set = cs_cli_set_device,
     .help = CS_CLI_DEVICE_HELP},
    {.name = "--validation", .kind = CS_CLI_FLAG, BENCH_AT(validation), .help = CS_CLI_VALIDATION_HELP},
};

const cs_cli_command cs_bench_cli = {
    .name = "bench",
    .args = "[SCENE] [options]",
    .summary = "sweep particle counts, time every pass (or --demo, --draw, --surface, --radiosity)",
    .positional = "scene",
    .positional_at = offsetof(cs_bench_options, scene),
    .options = bench_options,
    .option_count = CS_CLI_COUNT(bench_options),
    .notes = "bench --demo:      whole frames (substeps + draw), frames/s and every pass\n"
             "bench --draw:      GPU ms of drawing the scene's particles alone (--size WxH)\n"
             "bench --surface:   surface extraction (a sphere, SCENE splatted both ways) against the CPU\n"
             "bench --radiosity: radiosity and light probes (default cornell_box; --patches for patch counts)\n",
};

static int bench_parsed(cs_bench_options *opt, const cs_cli_parsed *parsed)
{
    cs_error err;
    bool scene_given = parsed->positional_given;
    bool steps_given = cs_cli_given(&cs_bench_cli, parsed, "--steps");
    bool warmup_given = cs_cli_given(&cs_bench_cli, parsed, "--warmup");
    bool particles_given = cs_cli_given(&cs_bench_cli, parsed, "--particles") && !opt->cells;
    bool nodes_given = cs_cli_given(&cs_bench_cli, parsed, "--nodes");
    if (opt->patch_target_count && !opt->radiosity) {
        fprintf(stderr, "cistern: --patches is a `bench --radiosity` option\n");
        return 2;
    }
    if (cs_cli_given(&cs_bench_cli, parsed, "--probes") && !opt->radiosity) {
        fprintf(stderr, "cistern: --probes is a `bench --radiosity` option\n");
        return 2;
    }
    if (scene_given && !cs_cli_check_scene(opt->scene))
        return 2;
    if (opt->radiosity && opt->out_dir) {
        fprintf(stderr, "cistern: bench --radiosity prints its table (markdown) and writes no files, so --out "
                        "would stay empty; redirect the table instead: cistern bench --radiosity > FILE.md\n");
        return 2;
    }
    if (opt->radiosity) {
        // Its own default scene (the Cornell box: CS_CLI_DEFAULT_SCENE has no
        // geometry) and fewer frames: a frame takes up to a second on lavapipe.
        opt->scene = scene_given ? opt->scene : NULL;
        opt->steps = steps_given ? opt->steps : 5;
        opt->warmup = warmup_given ? opt->warmup : 1;
        return cs_bench_radiosity(opt);
    }
    if (opt->draw) {
        if (!particles_given)
            cs_bench_parse_sizes("64k,256k,1M", opt, &err);
        opt->steps = steps_given ? opt->steps : 5;
        opt->warmup = warmup_given ? opt->warmup : 1;
        return cs_bench_draw(opt);
    }
    if (opt->demo) {
        if (opt->cells || opt->surface) {
            fprintf(stderr, "cistern: bench --demo takes --particles (not --cells or --surface)\n");
            return 2;
        }
        if (!particles_given)
            cs_bench_parse_sizes("256k,1M,4M", opt, &err);
        opt->steps = steps_given ? opt->steps : 10;
        opt->warmup = warmup_given ? opt->warmup : 2;
        return cs_bench_demo(opt);
    }
    if (!opt->surface) {
        if (nodes_given) {
            fprintf(stderr, "cistern: --nodes is a `bench --surface` option\n");
            return 2;
        }
        return cs_bench(opt);
    }
    // --surface: one particle count at most, no --cells; fewer runs by
    // default (a 256^3 extraction takes about a second on lavapipe).
    if (opt->cells || (particles_given && opt->size_count != 1)) {
        fprintf(stderr, "cistern: bench --surface takes one --particles count (and no --cells)\n");
        return 2;
    }
    opt->surface_particles = particles_given ? opt->sizes[0] : 0;
    if (!steps_given)
        opt->steps = 5;
    if (!warmup_given)
        opt->warmup = 1;
    return cs_bench_surface(opt);
}

int cs_bench_main(int argc, char **argv)
{
    cs_bench_options opt = {.scene = CS_CLI_DEFAULT_SCENE};
    cs_cli_parsed parsed;
    int code = cs_cli_parse(&cs_bench_cli, argc, argv, 2, &opt, &parsed) ? bench_parsed(&opt, &parsed) : 2;
    cs_scene_edits_free(&opt.edits);
    return code;
}

