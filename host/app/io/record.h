// record.h — video out of the frame loop (`cistern run --record FILE.mp4`,
// F9 in a window): an `ffmpeg` child process reads raw RGBA frames on its
// stdin and encodes them (H.264 with libx264, else MPEG-4 part 2; yuv420p,
// sized up to even dimensions), at the simulated frame rate.
//
//     cs_record rec;
//     if (!cs_record_start(&rec, "out/run.mp4", 960, 540, 60.0, &err)) ...
//     cs_record_frame(&rec, rgba, &err);   // false: ffmpeg is gone, recording stopped
//     cs_record_stop(&rec, &err);          // closes the pipe, waits for ffmpeg
//
// A child that dies (a full disk, a kill) breaks the pipe: the write fails
// with EPIPE (SIGPIPE is ignored from the first start on, so the process
// never dies of it) and the recording stops with a message.
#pragma once

#include "common.h"

#include <sys/types.h>

typedef struct cs_record {
    pid_t pid;                 // the ffmpeg child (0: not recording)
    int fd;                    // the write end of its stdin
    uint32_t width, height;    // of every frame
    uint32_t frames;           // written whole
    char path[512];
} cs_record;

// True when an `ffmpeg` executable is on PATH; `hint` gets what to install
// when it is not.
bool cs_record_available(char *hint, size_t size);
// Starts ffmpeg writing `path` (any container ffmpeg knows by the name;
// .mp4 is the one documented) from frames of width x height RGBA at `fps`.
bool cs_record_start(cs_record *rec, const char *path, uint32_t width, uint32_t height, double fps, cs_error *err);
// Writes one frame (width * height * 4 bytes, rows top down). False when
// ffmpeg has gone away: the recording is then stopped (cs_record_stop's
// reaping done) and err says why.
bool cs_record_frame(cs_record *rec, const uint8_t *rgba, cs_error *err);
// Ends the stream and waits for ffmpeg to finish the file; false when it
// failed. A no-op on a recording not started or already stopped.
bool cs_record_stop(cs_record *rec, cs_error *err);
// Whether a recording is running.
bool cs_record_active(const cs_record *rec);
