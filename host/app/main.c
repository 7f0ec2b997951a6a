// main.c — the `cistern` command line: parses options, hands off to run,
// bench or devices. Every bad option is an error that says what to write.
#include "bench.h"
#include "context.h"
#include "file_io.h"
#include "level_tr1.h"
#include "view.h"
#include "run.h"
#include "scene.h"
#include "sh_command.h"
#include "shader.h"
#include "sim.h"
#include "trace_command.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>

#define DEFAULT_SCENE "dam_break_3d"
#define CS_STR_(x) #x
#define CS_STR(x) CS_STR_(x)

static void usage(FILE *out)
{
    fprintf(out,
        "cistern — a Vulkan compute lab for real-time particle fluids and light\n"
        "\n"
        "usage:\n"
        "  cistern run [SCENE] [options]      simulate a scene (default: " DEFAULT_SCENE ")\n"
        "  cistern bench [SCENE] [options]    sweep particle counts, time every pass\n"
        "  cistern sh IMAGE.hdr [options]     spherical-harmonic irradiance of an environment image\n"
        "  cistern bench --surface [SCENE]    time surface extraction (sphere, SCENE splatted both ways)\n"
        "  cistern bench --radiosity [SCENE]  time radiosity and light probes (default cornell_box);\n"
        "                                     --patches 1k,8k,32k,100k,1M: at those patch counts instead\n"
        "  cistern bench --demo [SCENE]       frames/s of whole frames (substeps + draw), per pass\n"
        "  cistern bench --draw [SCENE]       GPU ms of drawing the scene's particles alone (--size WxH)\n"
        "  cistern trace SCENE [options]      path-trace a scene's static geometry (trace.png, trace.pfm)\n"
        "  cistern level FILE.PHD             check a Tomb Raider 1 level and summarise it (rooms, portals, ...)\n"
        "  cistern level --generate OUT.phd   write the generated demo level (levels/cistern_demo.phd)\n"
        "  cistern view FILE.PHD [options]    fly through a Tomb Raider 1 level (headless: one image per room)\n"
        "  cistern scenes                     list the scenes in scenes/\n"
        "  cistern devices                    list Vulkan devices, drivers and limits\n"
        "  cistern help                       this text\n"
        "\n"
        "SCENE is a name under scenes/ (dam_break_3d) or a path to a .json file. Scene and level files must\n"
        "be regular files of at most " CS_STR(CS_INPUT_FILE_MAX_MIB) " MiB; larger ones, directories, devices and FIFOs are refused.\n"
        "\n"
        "run options:\n"
        "  --headless             no window, even when a display exists (default without one)\n"
        "  --frames N             frames to simulate, at least 1 (headless default 120; window: until closed)\n"
        "  --out DIR              where stats.csv, dumps and images go (default out/SCENE); it must be empty\n"
        "                         or new, so that no earlier run's files mix with this run's\n"
        "  --overwrite            use a non-empty --out: first delete cistern's own files there (stats.csv,\n"
        "                         frame_*.png, particles_*.ply, mesh_*.ply/obj, screenshot_*.png), nothing else\n"
        "  --dump-every K         write particles_NNNNN.ply every K frames (default and 0: never)\n"
        "  --mesh-every K         write the fluid surfaces as mesh_NNNNN.ply every K frames (3D scenes\n"
        "                         whose fluids have a \"surface\"; default and 0: never)\n"
        "  --mesh-format F        ply (binary, default) | obj\n"
        "  --png-every K          write frame_NNNNN.png every K frames, headless (default 10; 0: never)\n"
        "  --particles N          rescale the fluid blocks to about N particles (16k, 1M, ...; at least 1)\n"
        "  --color MODE           material | speed | density\n"
        "  --size WxH             image or window size\n"
        "  --no-vsync             present as fast as possible (window)\n"
        "  --overlay              per-pass GPU ms of the previous frame (top 8 and the total) in the\n"
        "                         image's top-left corner: the window starts with it, headless PNGs carry it\n"
        "  --watch / --no-watch   hot-reload shaders on save (default: on in a window, off headless)\n"
        "  --capture-frame N      RenderDoc capture of frame N (needs RenderDoc attached or --renderdoc)\n"
        "  --capture-path PATH    capture file template (default: RenderDoc's temp dir)\n"
        "  --renderdoc            load librenderdoc.so ourselves instead of running under renderdoccmd\n"
        "  --quiet                no progress bar or summary\n"
        "  A write that fails (disk full, file size limit) stops the run with the reason and exit code 1;\n"
        "  the closing summary counts only the files that were written whole.\n"
        "\n"
        "window keys:\n"
        "  Space pause, N single step, R restart, C colour mode, V particles / surface / both,\n"
        "  G radiosity wall colours, L light probes on the fluid, B level lit by radiosity / baked\n"
        "  light, P per-pass GPU ms overlay, O vortons as arrows, F12 screenshot (and RenderDoc capture), Esc quit; WASD/QE fly, drag to look /\n"
        "  orbit / pan\n"
        "\n"
        "bench options:\n"
        "  --particles LIST       sizes, e.g. 16k,64k,256k,1M (default 16k,64k)\n"
        "  --cells LIST           grid pipelines (reint): cells along x, e.g. 512,2048\n"
        "  --steps N              timed steps per size, at least 1 (default 50)\n"
        "  --warmup N             untimed steps first (default 5)\n"
        "  --out DIR              results.json, results.csv, plot.png, plot.svg (default bench/SCENE); it must\n"
        "                         be empty or new, or add --overwrite (deletes only those and plot.dat/.gp)\n"
        "  --baseline FILE.json   print ratios against an earlier results.json\n"
        "  --max-step-ms MS       stop the sweep once a step takes longer, at least 1 (default 10000)\n"
        "  --demo                 time whole frames as a run makes them: the scene's substeps for a frame,\n"
        "                         surfaces, the draw (headless: to the offscreen image, no present), the\n"
        "                         stats check; frame ms, frames/s, sim / draw GPU ms and every pass a\n"
        "                         frame (default --particles 256k,1M,4M, --steps 10 frames, --warmup 2;\n"
        "                         --out default bench/SCENE_demo: results.json)\n"
        "  --draw                 the particles' draw alone (no substep: the scene as it starts), GPU ms of\n"
        "                         the draw pass, one-pixel particles and triangle pixels (default --particles\n"
        "                         64k,256k,1M, --size 1280x720, --steps 5, --warmup 1; --out default\n"
        "                         bench/SCENE_draw: results.json)\n"
        "\n"
        "sh options (IMAGE.hdr: a Radiance .hdr, lat-long of any shape, +z up = the top row):\n"
        "  --out DIR              irradiance_sh.png, irradiance_brute.png, compare.png, coefficients.csv\n"
        "                         (default out/sh/IMAGE); prints the 9 RGB radiance coefficients and their\n"
        "                         irradiance form; the brute force runs on the image averaged down to\n"
        "                         at most 128 x 64 texels (cube: 32 x 32 a face); it must be empty or new,\n"
        "                         or add --overwrite (deletes only those four files there)\n"
        "  --cube                 the image is six square cube faces side by side: +X -X +Y -Y +Z -Z\n"
        "  --quiet                no device line\n"
        "\n"
        "bench --surface options (SCENE: a 3D particle scene, default " DEFAULT_SCENE "):\n"
        "  --nodes LIST           field nodes per axis, e.g. 128,256,512 (default; sizes the device\n"
        "                         cannot hold are skipped with the reason)\n"
        "  --frames N             frames simulated before the particles are splatted (default 40)\n"
        "  --particles N          rescale the scene to about N particles first\n"
        "  --cpu-runs N           CPU reference runs per field (default 3; 0: none)\n"
        "  --steps N, --warmup N  timed and untimed runs per field (default 5 and 1)\n"
        "  --out DIR              default bench/surface\n"
        "\n"
        "trace options (SCENE: one with \"geometry\", e.g. cornell_box; docs/light.md \"Path tracer\"):\n"
        "  --spp N                paths a pixel, at least 1 (default 64; dispatched 64 at a time)\n"
        "  --size WxH             image size (default 256x256)\n"
        "  --out DIR              trace.png (exposure 1 / mean luminance, x / (1 + x), sRGB), trace.pfm (mean\n"
        "                         radiance W/m^2/sr, float RGB), patches.csv (default out/trace/SCENE); it must\n"
        "                         be empty or new, or add --overwrite (deletes only cistern's own files there)\n"
        "  --variance N,K         then K more paths for each of the N pixels of highest variance (biased)\n"
        "  --probes               patches.csv: every triangle's radiosity B = pi L and its standard error\n"
        "  --probe-paths N        paths a triangle for --probes (default 4096; rounded up to a multiple of 64)\n"
        "  --radiosity S          also radiosity.png (the radiosity solution, patches of S metres, through\n"
        "                         the same camera and exposure) and compare.png (path tracer | radiosity)\n"
        "  --seed N               random seed (default 1)\n"
        "  --quiet                no device line, progress or summary\n"
        "  The scene's \"camera\" is used when it has one; else a 45 degree view that frames the geometry.\n"
        "\n"
        "view options (FILE.PHD: a Tomb Raider 1 level, e.g. levels/cistern_demo.phd):\n"
        "  --headless             one image per room (camera in its middle, facing its first portal),\n"
        "                         DIR/room_NNN.png, with the rooms the portal walk drew (default\n"
        "                         without a display)\n"
        "  --room N               headless: only room N\n"
        "  --out DIR              default out/view/FILE; it must be empty or new, or add --overwrite\n"
        "                         (deletes only room_*.png there)\n"
        "  --size WxH             image or window size (default 640x360 headless, 1280x720 window)\n"
        "  --scale UNITS          level units per metre (default 512: a 1024-unit sector is 2 m)\n"
        "  --no-fog               no depth cue\n"
        "  --light baked|radiosity  TR1's baked vertex light (default) or the room lights and their bounces\n"
        "  --patch-size M         radiosity patch size in metres (default 4)\n"
        "  --frames N             window: stop after N frames\n"
        "  window keys: Tab next room, B baked light / radiosity, WASD/QE fly, drag to look, Esc quit\n"
        "\n"
        "common options:\n"
        "  --device N|NAME        pick a device by index or name substring (see `cistern devices`)\n"
        "  --validation           Vulkan validation + synchronization validation (slow)\n"
        "\n"
        "environment:\n"
        "  CISTERN_SHADER_DIR     shader tree to compile from (default: the source tree's shaders/)\n"
        "  CISTERN_NB_LAYOUT      particle|slot: neighbour lists (PBF, SPH, WCSPH) particle-major (CPU devices'\n"
        "                         default) or slot-major (GPUs' default); the same results either way\n"
        "  CISTERN_SPH_LISTS      on|off: Clavet SPH reads neighbour lists (default: on in 3D and for several\n"
        "                         materials in 2D); the same results either way\n"
        "  CISTERN_WCSPH_LISTS    on|off: WCSPH reads neighbour lists (default: on in 3D); the same results\n"
        "                         either way\n"
        "  CISTERN_SORT           4|8: radix sort digit bits (default: 8 on GPUs that can and whose 8-bit sort\n"
        "                         passes its self-test, 4 on CPUs); the same results either way\n"
        "  CISTERN_SORT_BLOCK     keys per block of the 8-bit sort, a power of two 128..65536 (default: 2048 on GPUs,\n"
        "                         8192 on CPUs); the same results either way\n");
}

// A whole number with an optional k / M suffix (16k, 1.5M), from min to max.
// Every comparison is written so that NaN fails it: strtod reads "nan", and
// casting NaN to an integer is undefined behaviour.
static bool parse_count(const char *flag, const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
    char *end;
    double v = strtod(text ? text : "", &end);
    if (!text || end == text)
        goto bad;
    if (*end == 'k' || *end == 'K')
        v *= 1e3, end++;
    else if (*end == 'M' || *end == 'm')
        v *= 1e6, end++;
    if (*end || !(v >= 0 && v <= 4e9) || v != floor(v))
        goto bad;
    if (v < min || v > max) {
        if (max == UINT32_MAX)
            fprintf(stderr, "cistern: %s must be at least %u (got \"%s\")\n", flag, min, text);
        else
            fprintf(stderr, "cistern: %s wants %u to %u (got \"%s\")\n", flag, min, max, text);
        return false;
    }
    *out = (uint32_t)v;
    return true;
bad:
    fprintf(stderr, "cistern: %s wants a whole number (got \"%s\")\n", flag, text ? text : "nothing");
    return false;
}

static bool parse_uint(const char *flag, const char *text, uint32_t *out)
{
    return parse_count(flag, text, 0, UINT32_MAX, out);
}

// At least 1: for counts where 0 would silently mean something else.
static bool parse_positive(const char *flag, const char *text, uint32_t *out)
{
    return parse_count(flag, text, 1, UINT32_MAX, out);
}

static int list_scenes(void)
{
    char dir_path[512];
    snprintf(dir_path, sizeof dir_path, "%s/scenes", CS_SOURCE_DIR);
    DIR *dir = opendir(dir_path);
    if (!dir) {
        fprintf(stderr, "cistern: cannot open %s\n", dir_path);
        return 1;
    }
    struct dirent *e;
    while ((e = readdir(dir))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char path[800];
        snprintf(path, sizeof path, "%s/%s", dir_path, e->d_name);
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
            printf("%-22s (broken: %s)\n", e->d_name, err.msg);
        }
    }
    closedir(dir);
    return 0;
}

static bool has_display(void)
{
    const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

// --size WIDTHxHEIGHT (run and view), each 1..16384.
static bool parse_size(const char *v, uint32_t *width, uint32_t *height)
{
    char rest = 0;
    // %c catches anything after HEIGHT; a digit first refuses "-5x3", which %u would wrap.
    if (!v || !isdigit((unsigned char)v[0]) || sscanf(v, "%ux%u%c", width, height, &rest) != 2 || !*width ||
        !*height || *width > 16384 || *height > 16384) {
        fprintf(stderr, "cistern: --size wants WIDTHxHEIGHT, e.g. 1280x720 (got \"%s\")\n", v ? v : "");
        return false;
    }
    return true;
}

// Options shared by run and bench; returns 1 if consumed (with value), 0 if
// not ours, -1 on error.
static int common_option(int argc, char **argv, int *i, const char **device, bool *validation)
{
    const char *a = argv[*i];
    if (strcmp(a, "--device") == 0) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "cistern: --device wants an index or a name (see `cistern devices`)\n");
            return -1;
        }
        *device = argv[++*i];
        if (!**device) {
            fprintf(stderr, "cistern: --device wants an index or a name, not an empty string "
                            "(see `cistern devices`)\n");
            return -1;
        }
        return 1;
    }
    if (strcmp(a, "--validation") == 0) {
        *validation = true;
        return 1;
    }
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    cs_run_options opt = {.scene = DEFAULT_SCENE, .capture_frame = -1, .color_mode = -1, .png_every = 10};
    int watch = -1;
    bool scene_given = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int c = common_option(argc, argv, &i, &opt.device, &opt.validation);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        uint32_t n;
        if (strcmp(a, "--headless") == 0) opt.headless = true;
        else if (strcmp(a, "--quiet") == 0) opt.quiet = true;
        else if (strcmp(a, "--no-vsync") == 0) opt.no_vsync = true;
        else if (strcmp(a, "--overlay") == 0) opt.overlay = true;
        else if (strcmp(a, "--renderdoc") == 0) opt.load_renderdoc = true;
        else if (strcmp(a, "--watch") == 0) watch = 1;
        else if (strcmp(a, "--no-watch") == 0) watch = 0;
        else if (strcmp(a, "--frames") == 0) { if (!parse_positive(a, v, &opt.frames)) return 2; i++; }
        else if (strcmp(a, "--overwrite") == 0) opt.overwrite = true;
        else if (strcmp(a, "--dump-every") == 0) { if (!parse_uint(a, v, &opt.dump_every)) return 2; i++; }
        else if (strcmp(a, "--png-every") == 0) { if (!parse_uint(a, v, &opt.png_every)) return 2; i++; }
        else if (strcmp(a, "--mesh-every") == 0) { if (!parse_uint(a, v, &opt.mesh_every)) return 2; i++; }
        else if (strcmp(a, "--mesh-format") == 0) {
            if (!v || (strcmp(v, "ply") != 0 && strcmp(v, "obj") != 0)) {
                fprintf(stderr, "cistern: --mesh-format wants ply or obj (got \"%s\")\n", v ? v : "");
                return 2;
            }
            opt.mesh_obj = strcmp(v, "obj") == 0;
            i++;
        }
        else if (strcmp(a, "--particles") == 0) { if (!parse_positive(a, v, &opt.particles)) return 2; i++; }
        else if (strcmp(a, "--capture-frame") == 0) {
            if (!parse_count(a, v, 0, INT_MAX, &n)) return 2;
            opt.capture_frame = (int)n;
            i++;
        } else if (strcmp(a, "--out") == 0 || strcmp(a, "--capture-path") == 0) {
            if (!v) {
                fprintf(stderr, "cistern: %s wants a path\n", a);
                return 2;
            }
            *(strcmp(a, "--out") == 0 ? &opt.out_dir : &opt.capture_path) = v;
            i++;
        } else if (strcmp(a, "--color") == 0) {
            const char *modes[] = {"material", "speed", "density"};
            for (int m = 0; m < 3 && v; m++)
                if (strcmp(v, modes[m]) == 0)
                    opt.color_mode = m;
            if (opt.color_mode < 0) {
                fprintf(stderr, "cistern: --color wants material, speed or density (got \"%s\")\n", v ? v : "");
                return 2;
            }
            i++;
        } else if (strcmp(a, "--size") == 0) {
            if (!parse_size(v, &opt.width, &opt.height))
                return 2;
            i++;
        } else if (a[0] == '-') {
            fprintf(stderr, "cistern: run: unknown option %s; `cistern help` lists them\n", a);
            return 2;
        } else if (!scene_given) {
            opt.scene = a;
            scene_given = true;
        } else {
            fprintf(stderr, "cistern: run: one scene at a time (got \"%s\" and \"%s\")\n", opt.scene, a);
            return 2;
        }
    }
    if (!opt.headless && !has_display()) {
        opt.headless = true;
        if (!opt.quiet)
            fprintf(stderr, "cistern: no display found (DISPLAY/WAYLAND_DISPLAY unset): running headless\n");
    }
    opt.watch = watch < 0 ? !opt.headless : watch == 1;
    return cs_run(&opt);
}

// --patches LIST (bench --radiosity): the --particles list syntax, each
// count within what one radiosity compile makes.
static bool parse_patch_counts(const char *v, cs_bench_options *opt)
{
    cs_bench_options counts = {0};
    cs_error err;
    if (!v || !cs_bench_parse_sizes(v, &counts, &err)) {
        const char *why = v ? strstr(err.msg, ": ") : NULL; // past cs_bench_parse_sizes' "--particles"
        fprintf(stderr, "cistern: --patches wants a list of patch counts, e.g. 1k,8k,32k,100k,1M%s%s\n",
                why ? ": " : "", why ? why + 2 : "");
        return false;
    }
    for (uint32_t k = 0; k < counts.size_count; k++) {
        if (counts.sizes[k] < 16 || counts.sizes[k] > CS_BENCH_MAX_PATCHES) {
            fprintf(stderr, "cistern: --patches: %u patches; give 16 to %u\n", counts.sizes[k], CS_BENCH_MAX_PATCHES);
            return false;
        }
        opt->patches[k] = counts.sizes[k];
    }
    opt->patch_target_count = counts.size_count;
    return true;
}

static int cmd_bench(int argc, char **argv)
{
    cs_bench_options opt = {.scene = DEFAULT_SCENE, .steps = 50, .warmup = 5, .max_step_ms = 10000, .frames = 40,
                            .cpu_runs = 3};
    cs_error err;
    cs_bench_parse_sizes("16k,64k", &opt, &err);
    bool scene_given = false, steps_given = false, warmup_given = false, particles_given = false,
         nodes_given = false;
    cs_bench_options nodes = {0};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int c = common_option(argc, argv, &i, &opt.device, &opt.validation);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        uint32_t n;
        if (strcmp(a, "--quiet") == 0) opt.quiet = true;
        else if (strcmp(a, "--surface") == 0) opt.surface = true;
        else if (strcmp(a, "--radiosity") == 0) opt.radiosity = true;
        else if (strcmp(a, "--demo") == 0) opt.demo = true;
        else if (strcmp(a, "--draw") == 0) opt.draw = true;
        else if (strcmp(a, "--overwrite") == 0) opt.overwrite = true;
        else if (strcmp(a, "--size") == 0) { if (!parse_size(v, &opt.width, &opt.height)) return 2; i++; }
        else if (strcmp(a, "--steps") == 0) {
            if (!parse_positive(a, v, &opt.steps)) return 2;
            steps_given = true;
            i++;
        } else if (strcmp(a, "--warmup") == 0) {
            if (!parse_uint(a, v, &opt.warmup)) return 2;
            warmup_given = true;
            i++;
        } else if (strcmp(a, "--frames") == 0) { if (!parse_uint(a, v, &opt.frames)) return 2; i++; }
        else if (strcmp(a, "--cpu-runs") == 0) { if (!parse_uint(a, v, &opt.cpu_runs)) return 2; i++; }
        else if (strcmp(a, "--nodes") == 0) {
            // Same list syntax as --particles; at least 2 nodes per axis.
            if (!v || !cs_bench_parse_sizes(v, &nodes, &err)) {
                const char *why = v ? strstr(err.msg, ": ") : NULL;   // past cs_bench_parse_sizes' "--particles"
                fprintf(stderr, "cistern: --nodes wants a list of node counts per axis, e.g. 128,256,512%s%s\n",
                        why ? ": " : "", why ? why + 2 : "");
                return 2;
            }
            for (uint32_t k = 0; k < nodes.size_count; k++)
                if (nodes.sizes[k] < 2 || nodes.sizes[k] > 2048) {
                    fprintf(stderr, "cistern: --nodes: %u nodes per axis; give 2 to 2048\n", nodes.sizes[k]);
                    return 2;
                }
            nodes_given = true;
            i++;
        }
        else if (strcmp(a, "--patches") == 0) {
            if (!parse_patch_counts(v, &opt)) return 2;
            i++;
        }
        else if (strcmp(a, "--max-step-ms") == 0) { if (!parse_positive(a, v, &n)) return 2; opt.max_step_ms = n; i++; }
        else if (strcmp(a, "--particles") == 0 || strcmp(a, "--cells") == 0) {
            opt.cells = strcmp(a, "--cells") == 0;
            particles_given = !opt.cells;
            if (!v || !cs_bench_parse_sizes(v, &opt, &err)) {
                fprintf(stderr, "cistern: %s\n", v ? err.msg : "--particles wants a list, e.g. 16k,64k,1M");
                return 2;
            }
            i++;
        } else if (strcmp(a, "--out") == 0 || strcmp(a, "--baseline") == 0) {
            if (!v) {
                fprintf(stderr, "cistern: %s wants a path\n", a);
                return 2;
            }
            *(strcmp(a, "--out") == 0 ? &opt.out_dir : &opt.baseline) = v;
            i++;
        } else if (a[0] == '-') {
            fprintf(stderr, "cistern: bench: unknown option %s; `cistern help` lists them\n", a);
            return 2;
        } else if (!scene_given) {
            opt.scene = a;
            scene_given = true;
        } else {
            fprintf(stderr, "cistern: bench: one scene at a time\n");
            return 2;
        }
    }
    if (opt.patch_target_count && !opt.radiosity) {
        fprintf(stderr, "cistern: --patches is a `bench --radiosity` option\n");
        return 2;
    }
    if (opt.radiosity) {
        // Its own default scene (the Cornell box: DEFAULT_SCENE has no
        // geometry) and fewer frames: a frame takes up to a second on lavapipe.
        opt.scene = scene_given ? opt.scene : NULL;
        opt.steps = steps_given ? opt.steps : 5;
        opt.warmup = warmup_given ? opt.warmup : 1;
        return cs_bench_radiosity(&opt);
    }
    if (opt.draw) {
        if (!particles_given)
            cs_bench_parse_sizes("64k,256k,1M", &opt, &err);
        opt.steps = steps_given ? opt.steps : 5;
        opt.warmup = warmup_given ? opt.warmup : 1;
        return cs_bench_draw(&opt);
    }
    if (opt.demo) {
        if (opt.cells || opt.surface) {
            fprintf(stderr, "cistern: bench --demo takes --particles (not --cells or --surface)\n");
            return 2;
        }
        if (!particles_given)
            cs_bench_parse_sizes("256k,1M,4M", &opt, &err);
        opt.steps = steps_given ? opt.steps : 10;
        opt.warmup = warmup_given ? opt.warmup : 2;
        return cs_bench_demo(&opt);
    }
    if (!opt.surface) {
        if (nodes_given) {
            fprintf(stderr, "cistern: --nodes is a `bench --surface` option\n");
            return 2;
        }
        return cs_bench(&opt);
    }
    // --surface: one particle count at most, no --cells; fewer runs by
    // default (a 256^3 extraction takes about a second on lavapipe).
    if (opt.cells || (particles_given && opt.size_count != 1)) {
        fprintf(stderr, "cistern: bench --surface takes one --particles count (and no --cells)\n");
        return 2;
    }
    opt.surface_particles = particles_given ? opt.sizes[0] : 0;
    if (!nodes_given)
        cs_bench_parse_sizes("128,256,512", &nodes, &err);
    memcpy(opt.nodes, nodes.sizes, sizeof opt.nodes);
    opt.node_count = nodes.size_count;
    if (!steps_given)
        opt.steps = 5;
    if (!warmup_given)
        opt.warmup = 1;
    return cs_bench_surface(&opt);
}

static int cmd_sh(int argc, char **argv)
{
    cs_sh_options opt = {0};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int c = common_option(argc, argv, &i, &opt.device, &opt.validation);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        if (strcmp(a, "--cube") == 0) opt.cube = true;
        else if (strcmp(a, "--overwrite") == 0) opt.overwrite = true;
        else if (strcmp(a, "--quiet") == 0) opt.quiet = true;
        else if (strcmp(a, "--out") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cistern: --out wants a path\n");
                return 2;
            }
            opt.out_dir = argv[++i];
        } else if (a[0] == '-') {
            fprintf(stderr, "cistern: sh: unknown option %s; `cistern help` lists them\n", a);
            return 2;
        } else if (!opt.image) {
            opt.image = a;
        } else {
            fprintf(stderr, "cistern: sh: one image at a time (got \"%s\" and \"%s\")\n", opt.image, a);
            return 2;
        }
    }
    if (!opt.image) {
        fprintf(stderr, "cistern: sh wants an image: cistern sh IMAGE.hdr [--out DIR] (a Radiance .hdr file)\n");
        return 2;
    }
    return cs_sh_command(&opt);
}

// --variance N,K: N pixels (at least 1), K paths each (at least 1).
static bool parse_variance(const char *v, uint32_t *pixels, uint32_t *spp)
{
    char rest = 0;
    if (!v || !isdigit((unsigned char)v[0]) || sscanf(v, "%u,%u%c", pixels, spp, &rest) != 2 || !*pixels ||
        !*spp || *spp > 1000000) {
        fprintf(stderr, "cistern: --variance wants N,K: K more paths (1 to 1000000) for each of the N noisiest "
                        "pixels, e.g. 1000,256 (got \"%s\")\n", v ? v : "");
        return false;
    }
    return true;
}

static int cmd_trace(int argc, char **argv)
{
    cs_trace_options opt = {.spp = 64, .width = 256, .height = 256, .probe_paths = 4096, .seed = 1};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int c = common_option(argc, argv, &i, &opt.device, &opt.validation);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        if (strcmp(a, "--quiet") == 0) opt.quiet = true;
        else if (strcmp(a, "--overwrite") == 0) opt.overwrite = true;
        else if (strcmp(a, "--probes") == 0) opt.probes = true;
        else if (strcmp(a, "--spp") == 0) { if (!parse_count(a, v, 1, 1000000, &opt.spp)) return 2; i++; }
        else if (strcmp(a, "--probe-paths") == 0) { if (!parse_count(a, v, 1, 100000000, &opt.probe_paths)) return 2; i++; }
        else if (strcmp(a, "--seed") == 0) { if (!parse_uint(a, v, &opt.seed)) return 2; i++; }
        else if (strcmp(a, "--size") == 0) { if (!parse_size(v, &opt.width, &opt.height)) return 2; i++; }
        else if (strcmp(a, "--radiosity") == 0) {
            char *end = NULL;
            opt.radiosity_patch = v ? strtod(v, &end) : 0.0;
            if (!v || end == v || *end || !(opt.radiosity_patch >= 0.01 && opt.radiosity_patch <= 100.0)) {
                fprintf(stderr, "cistern: --radiosity wants a patch size in metres, 0.01 to 100, e.g. 0.07 "
                                "(got \"%s\")\n", v ? v : "");
                return 2;
            }
            i++;
        } else if (strcmp(a, "--variance") == 0) {
            if (!parse_variance(v, &opt.variance_pixels, &opt.variance_spp)) return 2;
            i++;
        } else if (strcmp(a, "--out") == 0) {
            if (!v) {
                fprintf(stderr, "cistern: --out wants a path\n");
                return 2;
            }
            opt.out_dir = v;
            i++;
        } else if (a[0] == '-') {
            fprintf(stderr, "cistern: trace: unknown option %s; `cistern help` lists them\n", a);
            return 2;
        } else if (!opt.scene) {
            opt.scene = a;
        } else {
            fprintf(stderr, "cistern: trace: one scene at a time (got \"%s\" and \"%s\")\n", opt.scene, a);
            return 2;
        }
    }
    if (!opt.scene) {
        fprintf(stderr, "cistern: trace wants a scene with \"geometry\": cistern trace SCENE [--spp N] "
                        "[--size WxH] [--out DIR] (e.g. cistern trace cornell_box)\n");
        return 2;
    }
    return cs_trace_command(&opt);
}

// `cistern level FILE.PHD`: reads the whole file with the strict reader
// (docs/levels.md) and prints what it holds, or the first thing wrong with it.
static int cmd_level(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[2], "--generate") == 0) {
        cs_tr1_level lvl;
        cs_tr1_generate_demo(&lvl);
        uint8_t *data = NULL;
        size_t size = 0;
        bool ok = cs_tr1_write(&lvl, &data, &size);
        cs_tr1_free(&lvl);
        cs_error err;
        if (!ok)
            cs_fail(&err, "a count of the demo level does not fit its field");
        ok = ok && cs_write_whole_file(argv[3], data, size, false, &err);
        free(data);
        if (!ok) {
            fprintf(stderr, "cistern: level: %s\n", err.msg);
            return 1;
        }
        printf("wrote %s (%zu bytes)\n", argv[3], size);
        return 0;
    }
    if (argc != 3 || argv[2][0] == '-') {
        fprintf(stderr, "cistern: level wants one file: cistern level FILE.PHD (a Tomb Raider 1 level), "
                        "or cistern level --generate OUT.phd\n");
        return 2;
    }
    cs_error err;
    size_t size = 0;
    cs_tr1_level lvl;
    if (!cs_tr1_load(argv[2], &lvl, &size, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 1;
    }
    cs_tr1_stats s = cs_tr1_count(&lvl);
    printf("%s: Tomb Raider 1 level, %zu bytes\n", argv[2], size);
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

// `cistern view FILE.PHD`: the level drawn through its portals (view.c).
static int cmd_view(int argc, char **argv)
{
    cs_view_options opt = {.room = -1, .patch_size = 4.0};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int c = common_option(argc, argv, &i, &opt.device, &opt.validation);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        uint32_t n;
        if (strcmp(a, "--headless") == 0) opt.headless = true;
        else if (strcmp(a, "--quiet") == 0) opt.quiet = true;
        else if (strcmp(a, "--no-fog") == 0) opt.no_fog = true;
        else if (strcmp(a, "--overwrite") == 0) opt.overwrite = true;
        else if (strcmp(a, "--frames") == 0) { if (!parse_uint(a, v, &opt.frames)) return 2; i++; }
        else if (strcmp(a, "--light") == 0) {
            if (!v || (strcmp(v, "baked") != 0 && strcmp(v, "radiosity") != 0)) {
                fprintf(stderr, "cistern: --light wants baked or radiosity (got \"%s\")\n", v ? v : "");
                return 2;
            }
            opt.radiosity = strcmp(v, "radiosity") == 0;
            i++;
        } else if (strcmp(a, "--patch-size") == 0) {
            char *end = NULL;
            opt.patch_size = v ? strtod(v, &end) : 0;
            if (!v || end == v || *end || !(opt.patch_size >= 0.05) || opt.patch_size > 1e3) {
                fprintf(stderr, "cistern: --patch-size wants metres, 0.05 to 1000 (got \"%s\")\n", v ? v : "");
                return 2;
            }
            i++;
        }
        else if (strcmp(a, "--room") == 0) {
            if (!parse_count(a, v, 0, INT32_MAX, &n)) return 2; // the level's own range: view.c
            opt.room = (int)n;
            i++;
        } else if (strcmp(a, "--scale") == 0) {
            char *end = NULL;
            opt.units_per_metre = v ? strtod(v, &end) : 0;
            if (!v || end == v || *end || !(opt.units_per_metre > 0) || opt.units_per_metre > 1e6) {
                fprintf(stderr, "cistern: --scale wants level units per metre, a positive number (got \"%s\")\n",
                        v ? v : "");
                return 2;
            }
            i++;
        } else if (strcmp(a, "--out") == 0) {
            if (!v) {
                fprintf(stderr, "cistern: --out wants a path\n");
                return 2;
            }
            opt.out_dir = v;
            i++;
        } else if (strcmp(a, "--size") == 0) {
            if (!parse_size(v, &opt.width, &opt.height))
                return 2;
            i++;
        } else if (a[0] == '-') {
            fprintf(stderr, "cistern: view: unknown option %s; `cistern help` lists them\n", a);
            return 2;
        } else if (!opt.level) {
            opt.level = a;
        } else {
            fprintf(stderr, "cistern: view: one level at a time (got \"%s\" and \"%s\")\n", opt.level, a);
            return 2;
        }
    }
    if (!opt.level) {
        fprintf(stderr, "cistern: view wants a level: cistern view FILE.PHD (a Tomb Raider 1 level; "
                        "levels/cistern_demo.phd is shipped)\n");
        return 2;
    }
    return cs_view_command(&opt);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc, argv);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc, argv);
    if (strcmp(cmd, "sh") == 0)
        return cmd_sh(argc, argv);
    if (strcmp(cmd, "trace") == 0)
        return cmd_trace(argc, argv);
    if (strcmp(cmd, "level") == 0)
        return cmd_level(argc, argv);
    if (strcmp(cmd, "view") == 0)
        return cmd_view(argc, argv);
    if (strcmp(cmd, "scenes") == 0)
        return list_scenes();
    if (strcmp(cmd, "devices") == 0) {
        cs_error err;
        if (!cs_print_devices(stdout, &err)) {
            fprintf(stderr, "cistern: %s\n", err.msg);
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "cistern: unknown command \"%s\"; `cistern help` lists them\n", cmd);
    return 2;
}
