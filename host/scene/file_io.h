// file_io.h — the two ends of cistern's file traffic that a user controls:
// input files (scenes, levels) read with a size limit (through
// cs_read_file_max, host/gpu/common.h, the one bounded reader), and every output file
// (stats.csv, PNG frames, PLY/OBJ dumps, bench tables) written through one
// checked writer, so a full disk or a file size limit stops the command with
// the system's reason instead of leaving a silently short file.
//
// It lives in the scene layer, the lowest layer that reads user files, so
// the pipelines (mesh export), the renderer (PNG) and the app share it.
#pragma once

#include "common.h"

#include <stdarg.h>

// Reads a scene or level file: cs_read_file_max (host/gpu/common.h: regular
// files only, refused by fstat before reading) with "scene and level files"
// in the size refusal.
char *cs_read_input_file(const char *path, size_t max_bytes, size_t *size_out, cs_error *err);

// A file being written. Every write is checked; the first failure is kept
// (its errno) and reported by cs_out_close with the path and strerror.
// With atomic, the bytes go to PATH.tmp and are renamed onto PATH only once
// all of them are on disk, so a reader (or a crash) never sees half a file.
// The first open ignores SIGXFSZ for the process: a write past a file size
// limit (ulimit -f) then fails with EFBIG and is reported like a full disk,
// instead of killing cistern silently with a partial file left.
// PATH.tmp is never opened through a symbolic link.
typedef struct cs_out_file {
    FILE *f;
    char path[600];
    char tmp[608];
    bool atomic;
    bool regular;       // a regular file (only those are removed after a failure)
    bool keep_flushed;  // cs_out_open_table: a failure keeps what was flushed
    long long flushed;  // bytes on disk at the last successful cs_out_flush
    int error;          // errno of the first failed call; 0 while all is well
    const char *failed; // which call failed ("write", "flush", "close", "rename")
} cs_out_file;

bool cs_out_open(cs_out_file *out, const char *path, bool atomic, cs_error *err);
// A table written row by row into an output folder (a run's stats.csv): not
// atomic, so the rows stay readable while it runs; never opened through a
// symbolic link (refused, saying so); after a failed write the file is cut
// back to what the last successful cs_out_flush pushed (whole rows) instead
// of removed, and removed only when that is nothing.
bool cs_out_open_table(cs_out_file *out, const char *path, cs_error *err);
// Appends bytes or formatted text; false once anything has failed.
// A table an earlier run wrote, continued: cut to its first `keep` bytes
// (whole rows), then appended to, as cs_out_open_table (a link refused,
// flushed rows kept on failure). `cistern run --resume`.
bool cs_out_open_table_append(cs_out_file *out, const char *path, long long keep, cs_error *err);
bool cs_out_write(cs_out_file *out, const void *data, size_t size);
bool cs_out_printf(cs_out_file *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Pushes what is buffered to the file, so an error shows now (stats rows).
bool cs_out_flush(cs_out_file *out, cs_error *err);
// Flushes, closes and (atomic) renames; on any failure since open, removes
// the partial file (a table: cuts it back to its last flush) and fills err:
// "PATH: cannot write: No space left on device".
bool cs_out_close(cs_out_file *out, cs_error *err);
// Closes after a failure elsewhere; the partial file is removed.
void cs_out_abandon(cs_out_file *out);

// The whole file in one call: open, write, close (atomic: see cs_out_file).
bool cs_write_whole_file(const char *path, const void *data, size_t size, bool atomic, cs_error *err);

// Creates a directory and its parents; fine if it exists as a directory.
// A path (or a parent) that is a regular file is an error with the reason.
bool cs_make_dirs(const char *path, cs_error *err);
