// output.h — what a run leaves on disk: particle dumps (binary PLY), the
// per-frame stats table (CSV), and a progress bar on a terminal.
#pragma once

#include "common.h"
#include "file_io.h"

// Binary little-endian PLY with x y z vx vy vz density material, readable by
// MeshLab, ParaView and Blender. positions/velocities are vec4 arrays.
bool cs_ply_write(const char *path, const char *comment, const float *positions4, const float *velocities4,
                  const float *densities, const uint32_t *materials, uint32_t count, cs_error *err);

// Reads back what cs_ply_write wrote (tests, tools). Arrays are malloc'd.
bool cs_ply_read(const char *path, float **positions4, float **velocities4, float **densities,
                 uint32_t **materials, uint32_t *count, cs_error *err);

// Whose files an output folder holds: what --overwrite may delete there.
typedef enum cs_out_kind {
    CS_OUT_RUN,   // run and trace: cs_is_run_output
    CS_OUT_SH,    // sh: irradiance_sh.png, irradiance_brute.png, compare.png, coefficients.csv
    CS_OUT_VIEW,  // view, headless: room_NNN.png
    CS_OUT_BENCH, // bench (particles, --demo, --draw, --surface): results.json/.csv, plot.png/.svg/.dat/.gp
} cs_out_kind;

// The folder of a command's outputs, made ready before anything runs:
// created if missing; refused when its path is empty, when it is not a
// directory, when one of the command's own names there is a symbolic link
// (never written through), or
// when it holds anything and overwrite is off (an earlier run's numbered
// files would mix with this one's). With overwrite, the command's own
// regular files there (cs_is_own_output) are deleted first and nothing else
// is touched.
bool cs_prepare_out_dir(const char *dir, bool overwrite, cs_out_kind kind, cs_error *err);

// A file name that `kind`'s command writes, or the NAME.tmp of an
// interrupted atomic write of one.
bool cs_is_own_output(cs_out_kind kind, const char *name);

// A file name a run writes: stats.csv, frame_NNNNN.png, particles_NNNNN.ply/.vtu,
// particles_FLUID_NNNNN.ply/.vtu, mesh_NNNNN.ply/.obj/.vtp,
// mesh_FLUID_NNNNN.ply/.obj/.vtp, particles.pvd, particles_FLUID.pvd,
// mesh.pvd, mesh_FLUID.pvd, screenshot_NNN.png, checkpoint_NNNNN.ckpt, trace.png, trace.pfm, patches.csv, radiosity.png,
// compare.png (`cistern trace`),
// and the NAME.tmp of an interrupted atomic write.
bool cs_is_run_output(const char *name);

// A one-line progress bar on stderr, drawn only when stderr is a terminal.
typedef struct cs_progress {
    bool tty;
    uint32_t total;
    double start;
    double last_draw;
} cs_progress;

void cs_progress_begin(cs_progress *p, uint32_t total);
void cs_progress_update(cs_progress *p, uint32_t done, const char *status);
void cs_progress_end(cs_progress *p);
