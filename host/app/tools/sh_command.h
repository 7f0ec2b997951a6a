// sh_command.h — `cistern sh IMAGE.hdr`: project an environment image onto
// spherical harmonics on the GPU, print its 9 RGB radiance coefficients and
// their irradiance form, and write the SH irradiance map next to a
// brute-force convolution of the same image (PNG, tone-mapped, sRGB).
#pragma once

#include "cli.h"
#include "common.h"

typedef struct cs_sh_options {
    const char *image;          // a Radiance .hdr file
    bool cube;                  // the image is a strip of six cube faces
    const char *out_dir;        // default out/sh/<image name>
    bool overwrite;             // a non-empty out_dir: delete sh's own files there first
    const char *device;
    bool validation;
    bool quiet;
} cs_sh_options;

// Returns the process exit code (0 ok, 1 runtime failure, 2 bad input).
int cs_sh_command(const cs_sh_options *opt);

// `cistern sh` on the command line: its option table (cli.h) and its
// entry, called by main.c with the whole argv (the command is argv[1]).
extern const cs_cli_command cs_sh_cli;
int cs_sh_main(int argc, char **argv);
