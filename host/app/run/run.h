// run.h — `cistern run`: load a scene, step it frame by frame, write what
// was asked for (stats, particle dumps, images), in a window or headless.
#pragma once

#include "cli.h"
#include "common.h"
#include "scene_edit.h"

// --mesh-format: how surface meshes are written.
typedef enum cs_mesh_format { CS_MESH_PLY, CS_MESH_OBJ, CS_MESH_VTP } cs_mesh_format;

typedef struct cs_run_options {
    const char *scene;          // name under scenes/ or a path
    cs_scene_edits edits;       // --set: applied to the file's tree at every load (and reload)
    bool headless;              // forced; also chosen when there is no display
    uint32_t frames;            // 0: until the window closes (headless: 120)
    const char *out_dir;        // default out/<scene name>
    bool overwrite;             // a non-empty out_dir: delete cistern's own files there first
    uint32_t dump_every;        // particle dump every K frames (0: none)
    bool dump_vtu;              // dumps as VTK .vtu with particles.pvd instead of PLY
    uint32_t mesh_every;        // surface meshes every K frames (0: none)
    int mesh_format;            // cs_mesh_format (the CLI resolves its default from dump_vtu)
    uint32_t png_every;         // PNG every K frames (headless; 0: none)
    uint32_t checkpoint_every;  // checkpoint every K frames (headless; 0: none; checkpoint.h)
    const char *resume;         // a checkpoint to go on from (headless), or NULL
    const char *record_path;    // a video of every frame, through ffmpeg (record.h); NULL: none
    const char *device;
    bool validation;
    int capture_frame;          // RenderDoc capture of this frame (-1: none)
    const char *capture_path;   // template for .rdc files
    bool load_renderdoc;        // dlopen librenderdoc ourselves
    bool watch;                 // shader hot reload
    int color_mode;             // -1: the scene's
    uint32_t width, height;     // image / window size (0: the scene's)
    bool no_vsync;
    bool overlay;               // per-pass GPU ms in the image's corner (P toggles it in a window)
    bool panel;                 // the parameter panel (panel.h) over the window or the PNG frames
    uint32_t particles;         // rescale the fluid to about this many (0: as the scene says)
    bool quiet;
    bool verbose;               // also the frame loop's report (submits, fence waits, overlap)
} cs_run_options;

// Returns the process exit code (0 ok, 1 runtime failure, 2 bad input).
int cs_run(const cs_run_options *opt);

// The options of a run the panel's scene picker starts (a window's run ends
// with the scene picked, then a run of `picked` begins): those of `first`
// (the options the process started with) with its own output folder,
// `--out DIR/NAME` or `out/NAME` (NAME the picked file's name less .json;
// NAME_2, NAME_3, ... when that one already holds files, so the next run is
// never refused for the previous run's stats.csv; the folder itself under
// --overwrite), written to out_dir. --resume, --record and --set belonged to
// the first scene: dropped, and named in `note` ("--record, --set"; "" when
// none). False when NAME to NAME_999 all hold files.
bool cs_run_picked_options(const cs_run_options *first, const char *picked, cs_run_options *next, char *out_dir,
                           size_t out_size, char *note, size_t note_size);

// `cistern run` on the command line: its option table (cli.h) and its
// entry, called by main.c with the whole argv (the command is argv[1]).
extern const cs_cli_command cs_run_cli;
int cs_run_main(int argc, char **argv);
