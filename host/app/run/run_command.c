// run_command.c — `cistern run`: its option table (cli.h) and the checks
// across options before the frame loop (run.c) starts.
#include "cli.h"
#include "render.h"
#include "run.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

CS_CLI_SIZE_FIELDS_ADJACENT(cs_run_options);


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
    {.name = "--set", .kind = CS_CLI_SETTER, RUN_AT(edits), .arg = "KEY=VALUE", .set = cs_cli_set_scene_edit,
     .help = CS_CLI_SET_HELP},
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
    {.name = "--device", .kind = CS_CLI_SETTER, RUN_AT(device), .arg = "N|NAME", .set = cs_cli_set_device,
     .help = CS_CLI_DEVICE_HELP},
    {.name = "--validation", .kind = CS_CLI_FLAG, RUN_AT(validation), .help = CS_CLI_VALIDATION_HELP},
};

// The render features' own window keys, from their registry (features.c).
static void run_feature_keys(char *out, size_t size)
{
    char keys[1024];
    cs_render_feature_keys(keys, sizeof keys);
    snprintf(out, size, "%s%s%s", keys[0] ? "  render features: " : "", keys, keys[0] ? "\n" : "");
}

const cs_cli_command cs_run_cli = {
    .name = "run",
    .args = "[SCENE] [options]",
    .summary = "simulate a scene (default: " CS_CLI_DEFAULT_SCENE "), in a window or headless",
    .positional = "scene",
    .positional_at = offsetof(run_args, run.scene),
    .options = run_options,
    .option_count = CS_CLI_COUNT(run_options),
    .notes =
        "SCENE is a name under scenes/ (" CS_CLI_DEFAULT_SCENE ") or a path to a .json file. Scene and level files must\n"
        "be regular files of at most " CS_CLI_STR(CS_INPUT_FILE_MAX_MIB) " MiB; larger ones, directories, devices and "
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

int cs_run_main(int argc, char **argv)
{
    run_args a = {.run = {.scene = CS_CLI_DEFAULT_SCENE, .capture_frame = -1, .color_mode = -1, .mesh_format = -1},
                  .watch = -1};
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&cs_run_cli, argc, argv, 2, &a, &parsed))
        return 2;
    cs_run_options *opt = &a.run;
    if (!cs_cli_check_scene(opt->scene))
        return 2;
    // Checkpoints follow the headless loop's frames (a window pauses and restarts).
    if (opt->checkpoint_every || opt->resume)
        opt->headless = true;
    if (!opt->headless && !cs_cli_has_display()) {
        opt->headless = true;
        if (!opt->quiet)
            fprintf(stderr, "cistern: no display found (DISPLAY/WAYLAND_DISPLAY unset): running headless\n");
    }
    if (!opt->headless && cs_cli_given(&cs_run_cli, &parsed, "--png-every")) {
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

