// trace_command.h — `cistern trace SCENE`: render a scene's static geometry
// with the GPU path tracer (pipelines/trace/pathtrace.h) and write
//   trace.png    tone-mapped (exposure 1 / mean luminance, x / (1 + x), sRGB)
//   trace.pfm    the mean radiance per pixel, float RGB (bottom row first)
//   patches.csv  with --probes: every triangle's radiosity B = pi L and its
//                standard error, from paths that start on the triangle
//   radiosity.png, compare.png  with --radiosity S: the radiosity solution
//                (patches of S m) through the same camera and exposure, and
//                path tracer | radiosity side by side
// Samples go in batches of at most CS_TRACE_BATCH paths a pixel per
// dispatch (lavapipe lost work in longer ones: docs/light.md).
#pragma once

#include "cli.h"
#include "common.h"
#include "scene_edit.h"

#define CS_TRACE_BATCH 64u

typedef struct cs_trace_options {
    const char *scene;
    cs_scene_edits edits;       // --set
    uint32_t spp;               // paths a pixel (default 64)
    uint32_t width, height;     // default 256 x 256
    const char *out_dir;        // default out/trace/<scene name>
    bool overwrite;             // a non-empty out_dir: delete cistern's own files first
    uint32_t variance_pixels;   // --variance N,K: the N noisiest pixels ...
    uint32_t variance_spp;      // ... get K more paths each (0: no variance pass)
    bool probes;                // write patches.csv
    uint32_t probe_paths;       // paths a triangle (rounded up to 64 lanes x batches)
    uint32_t seed;
    double radiosity_patch;     // --radiosity S: also radiosity.png and compare.png (0: no)
    const char *device;
    bool validation;
    bool quiet;
} cs_trace_options;

// Returns the process exit code (0 ok, 1 runtime failure, 2 bad input).
int cs_trace_command(const cs_trace_options *opt);

// A float RGB image (3 floats a pixel, rows top-down: row 0 the top) as a
// PFM: "PF\n", "width height\n", the scale "-1\n" (little-endian; +1 on a
// big-endian host), then the rows from the bottom up, as the format wants.
// Through the checked writer (file_io.h).
bool cs_write_pfm(const char *path, uint32_t width, uint32_t height, const float *rgb, cs_error *err);

// `cistern trace` on the command line: its option table (cli.h) and its
// entry, called by main.c with the whole argv (the command is argv[1]).
extern const cs_cli_command cs_trace_cli;
int cs_trace_main(int argc, char **argv);
