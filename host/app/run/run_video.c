// run_video.c — the video (--record, F9): frames piped to ffmpeg (record.h).
// Part of the frame loop (run.c); its state is run_state.h's.
#define _GNU_SOURCE
#include "run_state.h"

// The simulated frame rate: a second of video is a second of simulation.
static double video_fps(const run_state *r)
{
    return 1.0 / ((double)r->scene.dt * r->scene.substeps);
}

// Ends the recording, if one runs, and says where it went.
void run_stop_video(run_state *r)
{
    r->video_wanted = false;
    if (!cs_record_active(&r->video))
        return;
    uint32_t frames = r->video.frames;
    cs_error err;
    if (!cs_record_stop(&r->video, &err)) {
        fprintf(stderr, "\ncistern: %s\n", err.msg);
        r->video_failed = true;
    } else if (!r->opt->quiet || r->windowed) {
        fprintf(stderr, "%scistern: recorded %u frames (%ux%u, %.6g fps) to %s\n", r->windowed ? "" : "\n", frames,
                r->video.width, r->video.height, video_fps(r), r->video.path);
    }
}

// One frame into the video: ffmpeg starts at the first, at its size. A
// size that changes (a resized window) or an ffmpeg that has gone away
// (a broken pipe) ends the recording with a message; the run goes on.
void run_record_video_frame(run_state *r, const uint8_t *px, uint32_t w, uint32_t h)
{
    if (!r->video_wanted)
        return; // stopped (F9, an error) while this frame was in flight
    cs_error err;
    if (!px) {
        fprintf(stderr, "\ncistern: %s: this frame's image could not be copied; recording stopped\n", r->video_path);
        run_stop_video(r);
        return;
    }
    if (cs_record_active(&r->video) && (w != r->video.width || h != r->video.height)) {
        fprintf(stderr, "cistern: the window changed size (%ux%u to %ux%u); recording stopped\n", r->video.width,
                r->video.height, w, h);
        run_stop_video(r);
        return;
    }
    if (!cs_record_active(&r->video)) {
        if (!cs_record_start(&r->video, r->video_path, w, h, video_fps(r), &err)) {
            fprintf(stderr, "\ncistern: %s\n", err.msg);
            r->video_wanted = false;
            r->video_failed = true;
            return;
        }
        if (r->windowed)
            fprintf(stderr, "cistern: recording to %s (F9 stops)\n", r->video_path);
    }
    if (!cs_record_frame(&r->video, px, &err)) {
        fprintf(stderr, "\ncistern: %s\n", err.msg);
        r->video_wanted = false;
        r->video_failed = true;
    }
}

// F9 in a window: stops the recording, or starts one into the first free
// DIR/recording_NNN.mp4.
void run_toggle_video(run_state *r)
{
    if (r->video_wanted || cs_record_active(&r->video)) {
        run_stop_video(r);
        return;
    }
    char hint[200];
    if (!cs_record_available(hint, sizeof hint)) {
        fprintf(stderr, "cistern: F9: no recording: %s\n", hint);
        return;
    }
    for (uint32_t n = 0; n < 1000; n++) {
        struct stat st;
        snprintf(r->video_path, sizeof r->video_path, "%s/recording_%03u.mp4", r->out_dir, n);
        if (lstat(r->video_path, &st) != 0) {
            r->video_wanted = true;
            return;
        }
    }
    fprintf(stderr, "cistern: F9: %s already holds recording_000.mp4 to recording_999.mp4\n", r->out_dir);
}
