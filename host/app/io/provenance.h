// provenance.h — where a benchmark figure comes from, so that two results
// can be lined up: the build (commit, whether the tree was dirty, build
// type), the machine (host cores, load average when the run started and
// when it ended), the run (UTC date, command line, the CISTERN_* settings,
// a hash of the scene file's bytes). `cistern bench` prints it in its
// header and writes it into every results.json ("provenance"). The device
// and driver are written beside it by each bench, as before.
#pragma once

#include "common.h"

#include <cjson/cJSON.h>
#include <stdio.h>

typedef struct cs_provenance {
    char commit[64];
    bool dirty;               // uncommitted changes to tracked files when it was built
    char build_type[32];
    char date_utc[32];        // ISO 8601, when the run started
    uint32_t cores;           // online host cores (lavapipe runs on them)
    double load_start[3];     // 1, 5 and 15 minute load averages
    double load_end[3];
    bool ended;
    char command_line[1024];
    char settings[1024];      // every CISTERN_* variable set, "NAME=VALUE NAME=VALUE"
    char scene_file[512];
    bool scene_hashed;
    uint64_t scene_hash;      // FNV-1a 64 of the scene file's bytes
} cs_provenance;

// Starts the record: build, date, cores, load, command line, settings, and
// the scene file's hash when scene_file is a readable file (may be NULL).
void cs_provenance_begin(cs_provenance *p, const char *scene_file);
// The load average at the end.
void cs_provenance_end(cs_provenance *p);
// One or two lines for a header ("cistern: build ..., host ...").
void cs_provenance_print(const cs_provenance *p, FILE *f);
// Adds "provenance": {...} to root.
void cs_provenance_add_json(const cs_provenance *p, cJSON *root);
// True when other work had the machine when the run started: a 1-minute
// load average above half the cores (timings then measure the sharing as
// much as the code). why says so, with the numbers.
bool cs_provenance_busy(const cs_provenance *p, char *why, size_t size);
