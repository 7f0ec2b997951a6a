// main.c — the `cistern` command line: one table of options per command
// (cli.h), read by the parser, `cistern COMMAND --help` and docs/cli.md;
// after the table parse, each command's checks across options, then the
// hand-off to run, bench, sh, trace, level, view, scenes or devices. Every
// bad option is an error that says what to write.
#include "bench.h"
#include "cli.h"
#include "context.h"
#include "file_io.h"
#include "level_tr1.h"
#include "render.h"
#include "view.h"
#include "run.h"
#include "scene.h"
#include "scene_edit.h"
#include "sh_command.h"
#include "shader.h"
#include "scene_keys.h"
#include "sim.h"
#include "solvers.h"
#include "trace_command.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>

#define DEFAULT_SCENE "dam_break_3d"
#define CS_STR_(x) #x
#define CS_STR(x) CS_STR_(x)
#define COUNT_OF(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

// CS_CLI_SIZE (--size WxH) writes the height right after the width.
#define SIZE_FIELDS_ADJACENT(type) \
    _Static_assert(offsetof(type, height) == offsetof(type, width) + sizeof(uint32_t), #type ": height after width")
SIZE_FIELDS_ADJACENT(cs_run_options);
SIZE_FIELDS_ADJACENT(cs_bench_options);
SIZE_FIELDS_ADJACENT(cs_trace_options);
SIZE_FIELDS_ADJACENT(cs_view_options);

// ---- setters shared by several tables ------------------------------------

// --device N|NAME: any string but an empty one.
static bool set_device(const cs_cli_option *o, void *opts, const char *v)
{
    if (!v) {
        fprintf(stderr, "cistern: --device wants an index or a name (see `cistern devices`)\n");
        return false;
    }
    if (!*v) {
        fprintf(stderr, "cistern: --device wants an index or a name, not an empty string (see `cistern devices`)\n");
        return false;
    }
    *(const char **)((char *)opts + o->at) = v;
    return true;
}

// --set KEY.PATH=VALUE, repeatable: appended to a cs_scene_edits (scene_edit.h).
static bool set_scene_edit(const cs_cli_option *o, void *opts, const char *v)
{
    cs_error err;
    if (!v) {
        fprintf(stderr, "cistern: --set wants KEY.PATH=VALUE, e.g. --set fluids[0].materials[0].viscosity=0.2\n");
        return false;
    }
    if (!cs_scene_edits_add((cs_scene_edits *)((char *)opts + o->at), v, &err)) {
        fprintf(stderr, "cistern: --set %s\n", err.msg);
        return false;
    }
    return true;
}

#define SET_HELP "change one scene key before the scene is read, as if the file said so (repeatable; key paths as " \
                 "in the scene's error messages: fluids[0].materials[0].viscosity=0.2, gravity[1]=-3, " \
                 "surface.iso=0.4; VALUE is JSON, a bare word a string, null removes the key)"
#define DEVICE_HELP "pick a device by index or name substring (see `cistern devices`)"
#define VALIDATION_HELP "Vulkan validation + synchronization validation (slow)"

// ---- the scenes in scenes/ ------------------------------------------------

#define MAX_SCENES 256

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

// The scene names under CS_SOURCE_DIR/scenes (file names without .json),
// sorted, in storage that lives as long as the process. Returns the count.
static uint32_t scene_names(const char **names, uint32_t max)
{
    static char storage[MAX_SCENES][128];
    char dir_path[512];
    snprintf(dir_path, sizeof dir_path, "%s/scenes", CS_SOURCE_DIR);
    DIR *dir = opendir(dir_path);
    if (!dir)
        return 0;
    uint32_t n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < max && n < MAX_SCENES) {
        size_t len = strlen(e->d_name);
        if (len < 6 || len - 5 >= sizeof storage[0] || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        snprintf(storage[n], sizeof storage[n], "%.*s", (int)(len - 5), e->d_name);
        names[n] = storage[n];
        n++;
    }
    closedir(dir);
    qsort(names, n, sizeof names[0], compare_names);
    return n;
}

// A scene argument that names no file: the loader's message, with the
// nearest name in scenes/ when there is a likely one. True when `scene`
// is a path or a name whose file exists (the command loads it then).
static bool check_scene_name(const char *scene)
{
    if (!scene || strchr(scene, '/') || strstr(scene, ".json"))
        return true;
    char local[512], source[512];
    snprintf(local, sizeof local, "scenes/%s.json", scene);
    snprintf(source, sizeof source, "%s/scenes/%s.json", CS_SOURCE_DIR, scene);
    if (access(local, R_OK) == 0 || access(source, R_OK) == 0)
        return true;
    cs_scene s;
    cs_error err;
    if (cs_scene_load(scene, &s, &err)) { // appeared in between: let the command load it
        cs_scene_free(&s);
        return true;
    }
    const char *names[MAX_SCENES];
    const char *near = cs_cli_nearest(scene, names, scene_names(names, MAX_SCENES));
    if (near)
        fprintf(stderr, "cistern: %s; did you mean %s?\n", err.msg, near);
    else
        fprintf(stderr, "cistern: %s\n", err.msg);
    return false;
}

// `cistern scenes`: every scene, sorted, with its solvers, dimension and
// its "description".
static int list_scenes(void)
{
    const char *names[MAX_SCENES];
    uint32_t n = scene_names(names, MAX_SCENES);
    if (!n) {
        fprintf(stderr, "cistern: no scenes in %s/scenes\n", CS_SOURCE_DIR);
        return 1;
    }
    for (uint32_t k = 0; k < n; k++) {
        char path[800];
        snprintf(path, sizeof path, "%s/scenes/%s.json", CS_SOURCE_DIR, names[k]);
        cs_scene scene;
        cs_error err;
        if (cs_scene_load(path, &scene, &err)) {
            // The solvers of its fluids: "pbf", or "sph+pbf" for a world of two.
            char solvers[64] = "";
            size_t used = 0;
            for (uint32_t i = 0; i < scene.fluid_count && used < sizeof solvers; i++)
                used += (size_t)snprintf(solvers + used, sizeof solvers - used, "%s%s", i ? "+" : "",
                                         scene.fluids[i].solver);
            printf("%-22s %-9s %dD  %s\n", scene.name, solvers, scene.dim, scene.description);
            cs_scene_free(&scene);
        } else {
            printf("%-22s (broken: %s)\n", names[k], err.msg);
        }
    }
    return 0;
}

static bool has_display(void)
{
    const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

// ---- run ------------------------------------------------------------------

typedef struct run_args {
    cs_run_options run;
    int watch; // -1: on in a window, off headless
} run_args;

static bool set_watch(const cs_cli_option *o, void *opts, const char *v)
{
    (void)v;
    ((run_args *)opts)->watch = strcmp(o->name, "--watch") == 0;
    return true;
}

#define RUN_AT(member) CS_CLI_AT(run_args, run.member)

static const cs_cli_option run_options[] = {
    {.name = "--headless", .kind = CS_CLI_FLAG, RUN_AT(headless),
     .help = "no window, even when a display exists (default without one)"},
    {.name = "--frames", .kind = CS_CLI_UINT, RUN_AT(frames), .arg = "N", .min = 1, .max = UINT32_MAX,
     .help = "frames to simulate, at least 1 (headless default 120; window: until closed)"},
    {.name = "--out", .kind = CS_CLI_PATH, RUN_AT(out_dir), .arg = "DIR",
     .help = "where stats.csv, dumps and images go (default out/SCENE); it must be empty or new, so that no "
             "earlier run's files mix with this run's"},
    {.name = "--overwrite", .kind = CS_CLI_FLAG, RUN_AT(overwrite),
     .help = "use a non-empty --out: first delete cistern's own files there (stats.csv, frame_*.png, "
             "particles_*.ply/vtu, mesh_*.ply/obj/vtp, particles*.pvd, mesh*.pvd, screenshot_*.png, "
             "recording_*.mp4, checkpoint_*.ckpt), nothing else"},
    {.name = "--dump-every", .kind = CS_CLI_UINT, RUN_AT(dump_every), .arg = "K", .max = UINT32_MAX,
     .help = "write particles_NNNNN.ply (or .vtu) every K frames (default and 0: never)"},
    {.name = "--dump-format", .kind = CS_CLI_CHOICE, RUN_AT(dump_vtu), .arg = "ply|vtu", .choices = "ply|vtu",
     .def = "ply", .help = "particle dumps as binary PLY, or as VTK .vtu files listed with their simulated "
                           "times in particles.pvd, a time series ParaView opens (meshes then default to .vtp)"},
    {.name = "--mesh-every", .kind = CS_CLI_UINT, RUN_AT(mesh_every), .arg = "K", .max = UINT32_MAX,
     .help = "write the fluid surfaces as mesh_NNNNN.ply every K frames (3D scenes whose fluids have a "
             "\"surface\"; default and 0: never)"},
    {.name = "--mesh-format", .kind = CS_CLI_CHOICE, RUN_AT(mesh_format), .arg = "ply|obj|vtp",
     .choices = "ply|obj|vtp", .help = "meshes as binary PLY, as OBJ, or as VTK .vtp files listed in mesh.pvd "
                                       "(default: ply; vtp with --dump-format vtu)"},
    {.name = "--checkpoint-every", .kind = CS_CLI_UINT, RUN_AT(checkpoint_every), .arg = "K", .max = UINT32_MAX,
     .help = "write the whole world state to checkpoint_NNNNN.ckpt every K frames (atomic; the last two are "
             "kept), for --resume (runs headless; default and 0: never)"},
    {.name = "--resume", .kind = CS_CLI_PATH, RUN_AT(resume), .arg = "FILE",
     .help = "go on from a checkpoint of the same scene, bit for bit: --out is the run's folder (stats.csv and "
             "the numbered files go on where the checkpoint stopped; default: the checkpoint's folder), --frames the "
             "total (runs headless)"},
    {.name = "--png-every", .kind = CS_CLI_UINT, RUN_AT(png_every), .arg = "K", .max = UINT32_MAX, .def = "10",
     .help = "write frame_NNNNN.png every K frames, headless (0: never)"},
    {.name = "--record", .kind = CS_CLI_PATH, RUN_AT(record_path), .arg = "FILE.mp4",
     .help = "a video of every simulated frame at the simulated frame rate, encoded by ffmpeg (H.264, "
             "yuv420p), headless or in a window (where F9 stops it); an existing FILE needs --overwrite"},
    {.name = "--set", .kind = CS_CLI_SETTER, RUN_AT(edits), .arg = "KEY=VALUE", .set = set_scene_edit,
     .help = SET_HELP},
    {.name = "--particles", .kind = CS_CLI_UINT, RUN_AT(particles), .arg = "N", .min = 1, .max = UINT32_MAX,
     .help = "rescale the fluid blocks to about N particles (16k, 1M, ...; at least 1)"},
    {.name = "--color", .kind = CS_CLI_CHOICE, RUN_AT(color_mode), .arg = "MODE",
     .choices = "material|speed|density", .help = "colour particles by material, speed or density (default: the scene's)"},
    {.name = "--size", .kind = CS_CLI_SIZE, RUN_AT(width), .arg = "WxH",
     .help = "image or window size (default: the scene's)"},
    {.name = "--no-vsync", .kind = CS_CLI_FLAG, RUN_AT(no_vsync), .help = "present as fast as possible (window)"},
    {.name = "--overlay", .kind = CS_CLI_FLAG, RUN_AT(overlay),
     .help = "per-pass GPU ms of the previous frame (top 8 and the total) in the image's top-left corner: the "
             "window starts with it, headless PNGs carry it"},
    {.name = "--panel", .kind = CS_CLI_FLAG, RUN_AT(panel),
     .help = "the parameter panel (docs/panel.md): in a window, pause, step, restart, a scene picker, the colour "
             "map and every live scene value to edit; headless, drawn into the PNG frames"},
    {.name = "--watch", .kind = CS_CLI_FLAG, .set = set_watch,
     .help = "hot-reload shaders and the scene file on save (default: on in a window, off headless); a scene "
             "that does not load keeps the previous world running and shows why in the image"},
    {.name = "--no-watch", .kind = CS_CLI_FLAG, .set = set_watch, .help = "no shader or scene hot reload, even in a window"},
    {.name = "--capture-frame", .kind = CS_CLI_INT, RUN_AT(capture_frame), .arg = "N", .max = INT_MAX,
     .help = "RenderDoc capture of frame N (needs RenderDoc attached or --renderdoc)"},
    {.name = "--capture-path", .kind = CS_CLI_PATH, RUN_AT(capture_path), .arg = "PATH",
     .help = "capture file template (default: RenderDoc's temp dir)"},
    {.name = "--renderdoc", .kind = CS_CLI_FLAG, RUN_AT(load_renderdoc),
     .help = "load librenderdoc.so ourselves instead of running under renderdoccmd"},
    {.name = "--quiet", .kind = CS_CLI_FLAG, RUN_AT(quiet), .help = "no progress bar or summary"},
    {.name = "--verbose", .kind = CS_CLI_FLAG, RUN_AT(verbose),
     .help = "also the frame loop's report: queue submits and fence waits a frame, frames overlapped"},
    {.name = "--device", .kind = CS_CLI_SETTER, RUN_AT(device), .arg = "N|NAME", .set = set_device,
     .help = DEVICE_HELP},
    {.name = "--validation", .kind = CS_CLI_FLAG, RUN_AT(validation), .help = VALIDATION_HELP},
};

// The render features' own window keys, from their registry (features.c).
static void run_feature_keys(char *out, size_t size)
{
    char keys[1024];
    cs_render_feature_keys(keys, sizeof keys);
    snprintf(out, size, "%s%s%s", keys[0] ? "  render features: " : "", keys, keys[0] ? "\n" : "");
}

static const cs_cli_command run_command = {
    .name = "run",
    .args = "[SCENE] [options]",
    .summary = "simulate a scene (default: " DEFAULT_SCENE "), in a window or headless",
    .positional = "scene",
    .positional_at = offsetof(run_args, run.scene),
    .options = run_options,
    .option_count = COUNT_OF(run_options),
    .notes =
        "SCENE is a name under scenes/ (" DEFAULT_SCENE ") or a path to a .json file. Scene and level files must\n"
        "be regular files of at most " CS_STR(CS_INPUT_FILE_MAX_MIB) " MiB; larger ones, directories, devices and "
        "FIFOs are refused.\n"
        "A write that fails (disk full, file size limit) stops the run with the reason and exit code 1;\n"
        "the closing summary counts only the files that were written whole.\n"
        "\n"
        "window keys:\n"
        "  Space pause, N single step, R restart, C colour mode, V particles / surface / both,\n"
        "  G radiosity wall colours, L light probes on the fluid, B level lit by radiosity / baked\n"
        "  light, P per-pass GPU ms overlay, F12 screenshot (and RenderDoc capture),\n"
        "  F9 start / stop a video (DIR/recording_NNN.mp4, needs ffmpeg), Esc quit; WASD/QE fly, drag to look / orbit / pan\n",
    .notes_more = run_feature_keys,
};

static int cmd_run(int argc, char **argv)
{
    run_args a = {.run = {.scene = DEFAULT_SCENE, .capture_frame = -1, .color_mode = -1, .mesh_format = -1},
                  .watch = -1};
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&run_command, argc, argv, 2, &a, &parsed))
        return 2;
    cs_run_options *opt = &a.run;
    if (!check_scene_name(opt->scene))
        return 2;
    // Checkpoints follow the headless loop's frames (a window pauses and restarts).
    if (opt->checkpoint_every || opt->resume)
        opt->headless = true;
    if (!opt->headless && !has_display()) {
        opt->headless = true;
        if (!opt->quiet)
            fprintf(stderr, "cistern: no display found (DISPLAY/WAYLAND_DISPLAY unset): running headless\n");
    }
    if (!opt->headless && cs_cli_given(&run_command, &parsed, "--png-every")) {
        // A window draws into its swapchain, not the offscreen image the
        // PNGs are read from: said now rather than after a run of no PNGs.
        fprintf(stderr, "cistern: --png-every writes frame_NNNNN.png headless only; add --headless, or in the "
                        "window use F12 (screenshot) or --record FILE.mp4 / F9 (video)\n");
        return 2;
    }
    opt->watch = a.watch < 0 ? !opt->headless : a.watch == 1;
    // A ParaView series gets its surfaces in the same form unless told otherwise.
    if (opt->mesh_format < 0)
        opt->mesh_format = opt->dump_vtu ? CS_MESH_VTP : CS_MESH_PLY;
    int code = cs_run(opt);
    cs_scene_edits_free(&opt->edits);
    return code;
}

// ---- bench ----------------------------------------------------------------

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
    {.name = "--set", .kind = CS_CLI_SETTER, BENCH_AT(edits), .arg = "KEY=VALUE", .set = set_scene_edit,
     .help = SET_HELP},
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
    {.name = "--device", .kind = CS_CLI_SETTER, BENCH_AT(device), .arg = "N|NAME", .set = set_device,
     .help = DEVICE_HELP},
    {.name = "--validation", .kind = CS_CLI_FLAG, BENCH_AT(validation), .help = VALIDATION_HELP},
};

static const cs_cli_command bench_command = {
    .name = "bench",
    .args = "[SCENE] [options]",
    .summary = "sweep particle counts, time every pass (or --demo, --draw, --surface, --radiosity)",
    .positional = "scene",
    .positional_at = offsetof(cs_bench_options, scene),
    .options = bench_options,
    .option_count = COUNT_OF(bench_options),
    .notes = "bench --demo:      whole frames (substeps + draw), frames/s and every pass\n"
             "bench --draw:      GPU ms of drawing the scene's particles alone (--size WxH)\n"
             "bench --surface:   surface extraction (a sphere, SCENE splatted both ways) against the CPU\n"
             "bench --radiosity: radiosity and light probes (default cornell_box; --patches for patch counts)\n",
};

static int bench_parsed(cs_bench_options *opt, const cs_cli_parsed *parsed)
{
    cs_error err;
    bool scene_given = parsed->positional_given;
    bool steps_given = cs_cli_given(&bench_command, parsed, "--steps");
    bool warmup_given = cs_cli_given(&bench_command, parsed, "--warmup");
    bool particles_given = cs_cli_given(&bench_command, parsed, "--particles") && !opt->cells;
    bool nodes_given = cs_cli_given(&bench_command, parsed, "--nodes");
    if (opt->patch_target_count && !opt->radiosity) {
        fprintf(stderr, "cistern: --patches is a `bench --radiosity` option\n");
        return 2;
    }
    if (cs_cli_given(&bench_command, parsed, "--probes") && !opt->radiosity) {
        fprintf(stderr, "cistern: --probes is a `bench --radiosity` option\n");
        return 2;
    }
    if (scene_given && !check_scene_name(opt->scene))
        return 2;
    if (opt->radiosity && opt->out_dir) {
        fprintf(stderr, "cistern: bench --radiosity prints its table (markdown) and writes no files, so --out "
                        "would stay empty; redirect the table instead: cistern bench --radiosity > FILE.md\n");
        return 2;
    }
    if (opt->radiosity) {
        // Its own default scene (the Cornell box: DEFAULT_SCENE has no
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

static int cmd_bench(int argc, char **argv)
{
    cs_bench_options opt = {.scene = DEFAULT_SCENE};
    cs_cli_parsed parsed;
    int code = cs_cli_parse(&bench_command, argc, argv, 2, &opt, &parsed) ? bench_parsed(&opt, &parsed) : 2;
    cs_scene_edits_free(&opt.edits);
    return code;
}

// ---- sh -------------------------------------------------------------------

#define SH_AT(member) CS_CLI_AT(cs_sh_options, member)

static const cs_cli_option sh_options[] = {
    {.name = "--out", .kind = CS_CLI_PATH, SH_AT(out_dir), .arg = "DIR",
     .help = "irradiance_sh.png, irradiance_brute.png, compare.png, coefficients.csv (default out/sh/IMAGE); "
             "it must be empty or new, or add --overwrite"},
    {.name = "--overwrite", .kind = CS_CLI_FLAG, SH_AT(overwrite),
     .help = "use a non-empty --out: first delete those four files there, nothing else"},
    {.name = "--cube", .kind = CS_CLI_FLAG, SH_AT(cube),
     .help = "the image is six square cube faces side by side: +X -X +Y -Y +Z -Z"},
    {.name = "--quiet", .kind = CS_CLI_FLAG, SH_AT(quiet), .help = "no device line"},
    {.name = "--device", .kind = CS_CLI_SETTER, SH_AT(device), .arg = "N|NAME", .set = set_device,
     .help = DEVICE_HELP},
    {.name = "--validation", .kind = CS_CLI_FLAG, SH_AT(validation), .help = VALIDATION_HELP},
};

static const cs_cli_command sh_command = {
    .name = "sh",
    .args = "IMAGE.hdr [options]",
    .summary = "spherical-harmonic irradiance of an environment image",
    .positional = "image",
    .positional_at = offsetof(cs_sh_options, image),
    .options = sh_options,
    .option_count = COUNT_OF(sh_options),
    .notes = "IMAGE.hdr is a Radiance .hdr, lat-long of any shape, +z up = the top row. Prints the 9 RGB radiance\n"
             "coefficients and their irradiance form. The brute-force convolution runs on the image averaged\n"
             "down to at most 128 x 64 texels (cube: 32 x 32 a face).\n",
};

static int cmd_sh(int argc, char **argv)
{
    cs_sh_options opt = {0};
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&sh_command, argc, argv, 2, &opt, &parsed))
        return 2;
    if (!opt.image) {
        fprintf(stderr, "cistern: sh wants an image: cistern sh IMAGE.hdr [--out DIR] (a Radiance .hdr file)\n");
        return 2;
    }
    return cs_sh_command(&opt);
}

// ---- trace ----------------------------------------------------------------

// --variance N,K: N pixels (at least 1), K paths each (1 to 1000000).
static bool set_variance(const cs_cli_option *o, void *opts, const char *v)
{
    (void)o;
    cs_trace_options *opt = opts;
    char rest = 0;
    if (!v || !isdigit((unsigned char)v[0]) ||
        sscanf(v, "%u,%u%c", &opt->variance_pixels, &opt->variance_spp, &rest) != 2 || !opt->variance_pixels ||
        !opt->variance_spp || opt->variance_spp > 1000000) {
        fprintf(stderr, "cistern: --variance wants N,K: K more paths (1 to 1000000) for each of the N noisiest "
                        "pixels, e.g. 1000,256 (got \"%s\")\n", v ? v : "");
        return false;
    }
    return true;
}

#define TRACE_AT(member) CS_CLI_AT(cs_trace_options, member)

static const cs_cli_option trace_options[] = {
    {.name = "--set", .kind = CS_CLI_SETTER, TRACE_AT(edits), .arg = "KEY=VALUE", .set = set_scene_edit,
     .help = SET_HELP},
    {.name = "--spp", .kind = CS_CLI_UINT, TRACE_AT(spp), .arg = "N", .min = 1, .max = 1000000, .def = "64",
     .help = "paths a pixel (dispatched 64 at a time)"},
    {.name = "--size", .kind = CS_CLI_SIZE, TRACE_AT(width), .arg = "WxH", .def = "256x256", .help = "image size"},
    {.name = "--out", .kind = CS_CLI_PATH, TRACE_AT(out_dir), .arg = "DIR",
     .help = "trace.png (exposure 1 / mean luminance, x / (1 + x), sRGB), trace.pfm (mean radiance W/m^2/sr, "
             "float RGB), patches.csv (default out/trace/SCENE); it must be empty or new, or add --overwrite"},
    {.name = "--overwrite", .kind = CS_CLI_FLAG, TRACE_AT(overwrite),
     .help = "use a non-empty --out: first delete cistern's own files there, nothing else"},
    {.name = "--variance", .kind = CS_CLI_SETTER, TRACE_AT(variance_pixels), .arg = "N,K", .set = set_variance,
     .help = "then K more paths for each of the N pixels of highest variance (biased)"},
    {.name = "--probes", .kind = CS_CLI_FLAG, TRACE_AT(probes),
     .help = "patches.csv: every triangle's radiosity B = pi L and its standard error"},
    {.name = "--probe-paths", .kind = CS_CLI_UINT, TRACE_AT(probe_paths), .arg = "N", .min = 1, .max = 100000000,
     .def = "4096", .help = "paths a triangle for --probes (rounded up to a multiple of 64)"},
    {.name = "--radiosity", .kind = CS_CLI_FLOAT, TRACE_AT(radiosity_patch), .arg = "S", .min = 0.01, .max = 100,
     .unit = "a patch size in metres",
     .help = "also radiosity.png (the radiosity solution, patches of S metres, through the same camera and "
             "exposure) and compare.png (path tracer | radiosity)"},
    {.name = "--seed", .kind = CS_CLI_UINT, TRACE_AT(seed), .arg = "N", .max = UINT32_MAX, .def = "1",
     .help = "random seed"},
    {.name = "--quiet", .kind = CS_CLI_FLAG, TRACE_AT(quiet), .help = "no device line, progress or summary"},
    {.name = "--device", .kind = CS_CLI_SETTER, TRACE_AT(device), .arg = "N|NAME", .set = set_device,
     .help = DEVICE_HELP},
    {.name = "--validation", .kind = CS_CLI_FLAG, TRACE_AT(validation), .help = VALIDATION_HELP},
};

static const cs_cli_command trace_command = {
    .name = "trace",
    .args = "SCENE [options]",
    .summary = "path-trace a scene's static geometry (trace.png, trace.pfm)",
    .positional = "scene",
    .positional_at = offsetof(cs_trace_options, scene),
    .options = trace_options,
    .option_count = COUNT_OF(trace_options),
    .notes = "SCENE has \"geometry\", e.g. cornell_box (docs/light.md \"Path tracer\").\n"
             "The scene's \"camera\" is used when it has one; else a 45 degree view that frames the geometry.\n",
};

static int cmd_trace(int argc, char **argv)
{
    cs_trace_options opt = {0};
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&trace_command, argc, argv, 2, &opt, &parsed))
        return 2;
    if (!opt.scene) {
        fprintf(stderr, "cistern: trace wants a scene with \"geometry\": cistern trace SCENE [--spp N] "
                        "[--size WxH] [--out DIR] (e.g. cistern trace cornell_box)\n");
        return 2;
    }
    if (!check_scene_name(opt.scene))
        return 2;
    int code = cs_trace_command(&opt);
    cs_scene_edits_free(&opt.edits);
    return code;
}

// ---- level ----------------------------------------------------------------

typedef struct level_args {
    const char *file;
    const char *generate;
} level_args;

static const cs_cli_option level_options[] = {
    {.name = "--generate", .kind = CS_CLI_PATH, CS_CLI_AT(level_args, generate), .arg = "OUT.phd",
     .help = "write the generated demo level (levels/cistern_demo.phd) instead of reading FILE.PHD"},
};

static const cs_cli_command level_command = {
    .name = "level",
    .args = "FILE.PHD",
    .summary = "check a Tomb Raider 1 level and summarise it (rooms, portals, ...)",
    .positional = "file",
    .positional_at = offsetof(level_args, file),
    .options = level_options,
    .option_count = COUNT_OF(level_options),
    .notes = "Prints the level's rooms, portals, sectors, textures and meshes, or the first thing wrong with it\n"
             "(file, byte offset, field).\n",
};

static int level_generate(const char *path)
{
    cs_tr1_level lvl;
    cs_tr1_generate_demo(&lvl);
    uint8_t *data = NULL;
    size_t size = 0;
    bool ok = cs_tr1_write(&lvl, &data, &size);
    cs_tr1_free(&lvl);
    cs_error err;
    if (!ok)
        cs_fail(&err, "a count of the demo level does not fit its field");
    ok = ok && cs_write_whole_file(path, data, size, false, &err);
    free(data);
    if (!ok) {
        fprintf(stderr, "cistern: level: %s\n", err.msg);
        return 1;
    }
    printf("wrote %s (%zu bytes)\n", path, size);
    return 0;
}

// `cistern level FILE.PHD`: reads the whole file with the strict reader
// (docs/levels.md) and prints what it holds, or the first thing wrong with it.
static int cmd_level(int argc, char **argv)
{
    level_args a = {0};
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&level_command, argc, argv, 2, &a, &parsed))
        return 2;
    if (a.generate && !a.file)
        return level_generate(a.generate);
    if (!a.file || a.generate) {
        fprintf(stderr, "cistern: level wants one file: cistern level FILE.PHD (a Tomb Raider 1 level), "
                        "or cistern level --generate OUT.phd\n");
        return 2;
    }
    cs_error err;
    size_t size = 0;
    cs_tr1_level lvl;
    if (!cs_tr1_load(a.file, &lvl, &size, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 1;
    }
    cs_tr1_stats s = cs_tr1_count(&lvl);
    printf("%s: Tomb Raider 1 level, %zu bytes\n", a.file, size);
    printf("  rooms            %u\n", s.rooms);
    printf("  portals          %u\n", s.portals);
    printf("  sectors          %u\n", s.sectors);
    printf("  room geometry    %u vertices, %u rectangles, %u triangles, %u sprites\n", s.vertices, s.rects, s.tris,
           s.sprites);
    printf("  room lights      %u\n", s.lights);
    printf("  room meshes      %u (placed static meshes)\n", s.room_meshes);
    printf("  textures         %u textiles (256x256), %u object textures, %u sprite textures\n", s.textiles,
           s.object_textures, s.sprite_textures);
    printf("  meshes           %u meshes, %u static meshes, %u moveables\n", s.meshes, s.static_meshes,
           s.moveables);
    printf("  entities         %u\n", s.entities);
    cs_tr1_free(&lvl);
    return 0;
}

// ---- view -----------------------------------------------------------------

// view --camera X,Y,Z: three finite numbers (metres).
static bool set_view_camera(const cs_cli_option *o, void *opts, const char *v)
{
    cs_view_options *opt = opts;
    char end = 0;
    double p[3];
    if (!v || sscanf(v, "%lf,%lf,%lf%c", &p[0], &p[1], &p[2], &end) != 3 || !isfinite(p[0]) || !isfinite(p[1]) ||
        !isfinite(p[2]) || fabs(p[0]) > 1e6 || fabs(p[1]) > 1e6 || fabs(p[2]) > 1e6) {
        fprintf(stderr, "cistern: %s wants X,Y,Z in metres, each within 1e6 (got \"%s\")\n", o->name, v ? v : "");
        return false;
    }
    memcpy(opt->camera, p, sizeof p);
    opt->camera_given = true;
    return true;
}

#define VIEW_AT(member) CS_CLI_AT(cs_view_options, member)

static const cs_cli_option view_options[] = {
    {.name = "--headless", .kind = CS_CLI_FLAG, VIEW_AT(headless),
     .help = "one image per room (camera in its middle, facing its first portal), DIR/room_NNN.png, with the "
             "rooms the portal walk drew (default without a display)"},
    {.name = "--room", .kind = CS_CLI_INT, VIEW_AT(room), .arg = "N", .max = INT32_MAX,
     .help = "headless: only room N (default: every room; the level says how many it has)"},
    {.name = "--camera", .kind = CS_CLI_SETTER, VIEW_AT(camera), .arg = "X,Y,Z", .set = set_view_camera,
     .help = "headless: one image, camera.png, from this point (metres, looking along -z) instead of one a room; "
             "outside every room it says so in the image"},
    {.name = "--out", .kind = CS_CLI_PATH, VIEW_AT(out_dir), .arg = "DIR",
     .help = "default out/view/FILE; it must be empty or new, or add --overwrite"},
    {.name = "--overwrite", .kind = CS_CLI_FLAG, VIEW_AT(overwrite),
     .help = "use a non-empty --out: first delete room_*.png there, nothing else"},
    {.name = "--size", .kind = CS_CLI_SIZE, VIEW_AT(width), .arg = "WxH",
     .help = "image or window size (default 640x360 headless, 1280x720 window)"},
    {.name = "--scale", .kind = CS_CLI_FLOAT, VIEW_AT(units_per_metre), .arg = "UNITS", .min = 0.001, .max = 1e6,
     .unit = "level units per metre", .help = "level units per metre (default 512: a 1024-unit sector is 2 m)"},
    {.name = "--no-fog", .kind = CS_CLI_FLAG, VIEW_AT(no_fog), .help = "no depth cue"},
    {.name = "--light", .kind = CS_CLI_CHOICE, VIEW_AT(radiosity), .arg = "baked|radiosity",
     .choices = "baked|radiosity", .def = "baked",
     .help = "TR1's baked vertex light or the room lights and their bounces"},
    {.name = "--patch-size", .kind = CS_CLI_FLOAT, VIEW_AT(patch_size), .arg = "M", .min = 0.05, .max = 1000,
     .unit = "metres", .def = "4", .help = "radiosity patch size in metres"},
    {.name = "--panel", .kind = CS_CLI_FLAG, VIEW_AT(panel),
     .help = "a panel listing the rooms (their flags: water), the one the camera is in (or that it is outside every "
             "room) and a jump to each (docs/panel.md); headless, drawn into the images; with --flood, the run's "
             "panel"},
    {.name = "--frames", .kind = CS_CLI_UINT, VIEW_AT(frames), .arg = "N", .max = UINT32_MAX,
     .help = "window: stop after N frames (default and 0: when closed); --flood headless: frames run (default 120)"},
    {.name = "--flood", .kind = CS_CLI_FLAG, VIEW_AT(flood),
     .help = "fill the level's water rooms (room flag 0x0001) with PBF water and run it (as cistern run would; "
             "headless: a PNG every 10th frame in DIR, default out/view/FILE_flood, the scene beside it as DIR.json); "
             "--panel, --size, --frames, --no-fog apply, --room, --camera, --light, --patch-size are refused"},
    {.name = "--flood-rooms", .kind = CS_CLI_STRING, VIEW_AT(flood_rooms), .arg = "N,M,..",
     .help = "--flood: fill these rooms instead (water rooms or not)"},
    {.name = "--flood-particles", .kind = CS_CLI_UINT, VIEW_AT(flood_particles), .arg = "N", .min = 8,
     .max = 1u << 24, .def = "20000", .help = "--flood: the particle budget (the spacing is the finest that fits)"},
    {.name = "--quiet", .kind = CS_CLI_FLAG, VIEW_AT(quiet), .help = "no device line or summary"},
    {.name = "--device", .kind = CS_CLI_SETTER, VIEW_AT(device), .arg = "N|NAME", .set = set_device,
     .help = DEVICE_HELP},
    {.name = "--validation", .kind = CS_CLI_FLAG, VIEW_AT(validation), .help = VALIDATION_HELP},
};

static const cs_cli_command view_command = {
    .name = "view",
    .args = "FILE.PHD [options]",
    .summary = "fly through a Tomb Raider 1 level (headless: one image per room)",
    .positional = "level",
    .positional_at = offsetof(cs_view_options, level),
    .options = view_options,
    .option_count = COUNT_OF(view_options),
    .notes = "FILE.PHD: a Tomb Raider 1 level, e.g. levels/cistern_demo.phd; drawn through its portals.\n"
             "window keys: Tab next room, B baked light / radiosity, WASD/QE fly, drag to look, Esc quit\n",
};

// `cistern view FILE.PHD`: the level drawn through its portals (view.c).
static int cmd_view(int argc, char **argv)
{
    cs_view_options opt = {.room = -1};
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&view_command, argc, argv, 2, &opt, &parsed))
        return 2;
    if (!opt.level) {
        fprintf(stderr, "cistern: view wants a level: cistern view FILE.PHD (a Tomb Raider 1 level; "
                        "levels/cistern_demo.phd is shipped)\n");
        return 2;
    }
    // --flood runs a scene as `cistern run` does: the viewer's own options
    // have nothing to act on there, and were once ignored without a word;
    // --flood's own options do nothing without it.
    static const char *const viewer_only[] = {"--room", "--camera", "--light", "--patch-size"};
    static const char *const flood_only[] = {"--flood-rooms", "--flood-particles"};
    for (size_t i = 0; opt.flood && i < COUNT_OF(viewer_only); i++)
        if (cs_cli_given(&view_command, &parsed, viewer_only[i])) {
            fprintf(stderr, "cistern: view --flood: %s is the level viewer's, and --flood runs the flooded level as "
                            "`cistern run` does: drop %s (--panel, --size, --frames, --no-fog, --out apply)\n",
                    viewer_only[i], viewer_only[i]);
            return 2;
        }
    for (size_t i = 0; !opt.flood && i < COUNT_OF(flood_only); i++)
        if (cs_cli_given(&view_command, &parsed, flood_only[i])) {
            fprintf(stderr, "cistern: view: %s applies only with --flood: add --flood, or drop it\n", flood_only[i]);
            return 2;
        }
    return cs_view_command(&opt);
}

// ---- scenes, devices, help ------------------------------------------------

static const cs_cli_command scenes_command = {
    .name = "scenes",
    .summary = "list the scenes in scenes/ with their solvers and descriptions",
};

static int cmd_scenes(int argc, char **argv)
{
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&scenes_command, argc, argv, 2, NULL, &parsed))
        return 2;
    return list_scenes();
}

static const cs_cli_command devices_command = {
    .name = "devices",
    .summary = "list Vulkan devices, drivers and limits (the default marked)",
};

static int cmd_devices(int argc, char **argv)
{
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&devices_command, argc, argv, 2, NULL, &parsed))
        return 2;
    cs_error err;
    if (!cs_print_devices(stdout, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 1;
    }
    return 0;
}

static int cmd_help(int argc, char **argv);

static const cs_cli_command help_command = {
    .name = "help",
    .args = "[COMMAND]",
    .summary = "this text, or one command's options (= `cistern COMMAND --help`)",
    .positional = "command",
};

typedef struct command {
    const cs_cli_command *cli;
    int (*main)(int argc, char **argv);
} command;

static const command commands[] = {
    {&run_command, cmd_run},         {&bench_command, cmd_bench},     {&sh_command, cmd_sh},
    {&trace_command, cmd_trace},     {&level_command, cmd_level},     {&view_command, cmd_view},
    {&scenes_command, cmd_scenes},   {&devices_command, cmd_devices}, {&help_command, cmd_help},
};

static const char general_notes[] =
    "SCENE is a name under scenes/ (" DEFAULT_SCENE ") or a path to a .json file. Scene and level files must\n"
    "be regular files of at most " CS_STR(CS_INPUT_FILE_MAX_MIB) " MiB; larger ones, directories, devices and FIFOs "
    "are refused.\n"
    "`cistern help --scene-keys-markdown` prints every scene key (type, unit, range, default) as in\n"
    "docs/scenes.md, \"Key reference\".\n"
    "\n"
    "environment (developer and test switches, read once at start: host/gpu/settings.c):\n";

static void usage(FILE *out)
{
    fprintf(out, "cistern — a Vulkan compute lab for real-time particle fluids and light\n\n"
                 "usage: cistern COMMAND [arguments] [options]; `cistern COMMAND --help` lists its options\n\n");
    char heads[COUNT_OF(commands)][96];
    int width = 0;
    for (uint32_t k = 0; k < COUNT_OF(commands); k++) {
        const cs_cli_command *c = commands[k].cli;
        int n = snprintf(heads[k], sizeof heads[k], "cistern %s%s%s", c->name, c->args ? " " : "",
                         c->args ? c->args : "");
        width = CS_MAX(width, n);
    }
    for (uint32_t k = 0; k < COUNT_OF(commands); k++)
        fprintf(out, "  %-*s  %s\n", width, heads[k], commands[k].cli->summary);
    fprintf(out, "\nrun, bench, sh, trace and view take --device N|NAME (a device by index or name substring, see\n"
                 "`cistern devices`) and --validation (Vulkan validation + synchronization validation, slow).\n\n%s",
            general_notes);
    cs_settings_print_help(out);
}

// docs/cli.md, whole: tests/cli_docs.sh compares it with this output.
static void print_markdown(FILE *out)
{
    fprintf(out, "# The cistern command line\n\n"
                 "<!-- Generated by `cistern help --markdown` from the option tables in host/app/main.c;\n"
                 "     tests/cli_docs.sh fails when this file differs. Edit the tables, then run\n"
                 "     build/release/cistern help --markdown > docs/cli.md -->\n\n"
                 "| command | what |\n|---|---|\n");
    for (uint32_t k = 0; k < COUNT_OF(commands); k++) {
        const cs_cli_command *c = commands[k].cli;
        fprintf(out, "| `cistern %s%s", c->name, c->args ? " " : "");
        cs_cli_print_cell(out, c->args ? c->args : "");
        fprintf(out, "` | ");
        cs_cli_print_cell(out, c->summary);
        fprintf(out, " |\n");
    }
    fprintf(out, "\n```\n%s", general_notes);
    cs_settings_print_help(out);
    fprintf(out, "```\n\n");
    for (uint32_t k = 0; k < COUNT_OF(commands); k++)
        cs_cli_print_markdown(out, commands[k].cli);
}

// docs/scenes.md's key reference, between its markers: every block of the
// scene layer's key table, then each solver's block that has rows.
// tests/scene_keys_docs.sh compares it with the file.
static void print_scene_keys_markdown(FILE *out)
{
    fprintf(out, "<!-- Generated by `cistern help --scene-keys-markdown` from the key tables\n"
                 "     (host/scene/scene_key_tables.c, each solver's cs_sim_ops.keys); tests/scene_keys_docs.sh\n"
                 "     fails when this section differs. Edit the tables, then run\n"
                 "     bash tests/scene_keys_docs.sh build/release/cistern --write -->\n\n"
                 "Every key of the blocks below, from the tables the parser reads them with. "
                 "*live*: a parameter panel may change it while the scene runs. "
                 "Ranges are inclusive unless written with `>`.\n\n");
    uint32_t n;
    const cs_scene_key_block *const *blocks = cs_scene_key_blocks(&n);
    for (uint32_t b = 0; b < n; b++)
        cs_scene_keys_print_markdown(out, blocks[b]);
    for (int i = 0; cs_sim_registry[i]; i++)
        for (int k = 0; cs_sim_registry[i]->keys && cs_sim_registry[i]->keys[k]; k++)
            cs_scene_keys_print_markdown(out, cs_sim_registry[i]->keys[k]);
}

static const command *find_command(const char *name)
{
    for (uint32_t k = 0; k < COUNT_OF(commands); k++)
        if (strcmp(commands[k].cli->name, name) == 0)
            return &commands[k];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[COUNT_OF(commands)];
    for (uint32_t k = 0; k < COUNT_OF(commands); k++)
        names[k] = commands[k].cli->name;
    const char *near = cs_cli_nearest(name, names, COUNT_OF(commands));
    fprintf(stderr, "cistern: unknown command \"%s\"%s%s%s; `cistern help` lists them\n", name,
            near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    return 2;
}

// `cistern help`, `cistern help COMMAND`, `cistern help --markdown` (docs/cli.md).
static int cmd_help(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "--markdown") == 0) {
        print_markdown(stdout);
        return 0;
    }
    if (argc == 3 && strcmp(argv[2], "--scene-keys-markdown") == 0) {
        print_scene_keys_markdown(stdout);
        return 0;
    }
    if (argc == 3 && strcmp(argv[2], "--help") != 0 && strcmp(argv[2], "-h") != 0) {
        const command *c = find_command(argv[2]);
        if (!c)
            return unknown_command(argv[2]);
        cs_cli_print_help(stdout, c->cli);
        return 0;
    }
    usage(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    cs_cli_read_settings();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        return cmd_help(1, argv);
    const command *cmd = find_command(name);
    for (int i = 2; i < argc && cmd != &commands[COUNT_OF(commands) - 1]; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            if (cmd)
                cs_cli_print_help(stdout, cmd->cli);
            else
                usage(stdout);
            return 0;
        }
    if (!cmd)
        return unknown_command(name);
    return cmd->main(argc, argv);
}
