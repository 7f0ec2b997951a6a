// record.c — see record.h. The child is started with posix_spawnp: the
// parent holds GPU memory mappings that a fork would copy-on-write for
// nothing. Its stdin is a pipe whose write end is close-on-exec, so ffmpeg
// sees end-of-file (and finishes the file) exactly when cs_record_stop
// closes it.
#define _GNU_SOURCE
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

bool cs_record_active(const cs_record *rec)
{
    return rec->pid > 0;
}

bool cs_record_available(char *hint, size_t size)
{
    const char *path = getenv("PATH");
    char dir[4096];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(dir, sizeof dir, "%.*s/ffmpeg", (int)n, p);
        struct stat st;
        if (n && stat(dir, &st) == 0 && S_ISREG(st.st_mode) && access(dir, X_OK) == 0)
            return true;
        p += n + (p[n] == ':');
    }
    snprintf(hint, size, "ffmpeg is not on PATH; install it (Debian: apt-get install ffmpeg, or "
                         "tools/install-deps.sh)");
    return false;
}

// libx264 when this ffmpeg has it (Debian's does), else its own MPEG-4
// part 2 encoder, which every build has. Asked once per process.
static bool has_libx264(void)
{
    static int known = -1;
    if (known >= 0)
        return known;
    known = 0;
    FILE *p = popen("ffmpeg -hide_banner -loglevel error -encoders 2>/dev/null", "r");
    if (!p)
        return false;
    char line[256];
    while (fgets(line, sizeof line, p))
        if (strstr(line, " libx264 "))
            known = 1;
    pclose(p);
    return known;
}

// Reaps the child; false (with err) when it did not exit 0.
static bool reap(cs_record *rec, cs_error *err)
{
    int status = 0;
    pid_t pid = rec->pid;
    rec->pid = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return cs_fail(err, "%s: cannot wait for ffmpeg: %s", rec->path, strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return true;
    if (WIFSIGNALED(status))
        return cs_fail(err, "%s: ffmpeg was killed by signal %d after %u frame%s", rec->path, WTERMSIG(status),
                       rec->frames, rec->frames == 1 ? "" : "s");
    return cs_fail(err, "%s: ffmpeg failed (exit code %d) after %u frame%s; its messages are above", rec->path,
                   WEXITSTATUS(status), rec->frames, rec->frames == 1 ? "" : "s");
}

bool cs_record_start(cs_record *rec, const char *path, uint32_t width, uint32_t height, double fps, cs_error *err)
{
    *rec = (cs_record){.fd = -1, .width = width, .height = height};
    snprintf(rec->path, sizeof rec->path, "%s", path);
    if (!(fps > 0 && fps < 1e6))
        return cs_fail(err, "%s: frame rate %g is not one ffmpeg can take", path, fps);
    // A child that dies must not take this process with it: with SIGPIPE
    // ignored a write to its pipe fails with EPIPE instead. The child gets
    // the default back (posix_spawnattr_setsigdefault below).
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, NULL);

    char size[32], rate[32];
    snprintf(size, sizeof size, "%ux%u", width, height);
    snprintf(rate, sizeof rate, "%.9g", fps);
    bool x264 = has_libx264();
    // -bitexact: no encoder version string or creation time in the file, so
    // that two recordings of one deterministic run are the same bytes.
    // yuv420p needs even dimensions: an odd size is padded by a row or column.
    const char *argv[] = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-nostats",
                          "-f", "rawvideo", "-pix_fmt", "rgba", "-video_size", size, "-framerate", rate,
                          "-i", "pipe:0",
                          "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                          "-c:v", x264 ? "libx264" : "mpeg4",
                          x264 ? "-preset" : "-q:v", x264 ? "veryfast" : "3",
                          x264 ? "-crf" : "-g", x264 ? "18" : "60",
                          "-threads", "1", // a fixed split of the work: the same bytes on any machine
                          "-pix_fmt", "yuv420p", "-fflags", "+bitexact", "-flags:v", "+bitexact",
                          "-y", path, NULL};
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return cs_fail(err, "%s: cannot make a pipe for ffmpeg: %s", path, strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    int rc = posix_spawnp(&pid, "ffmpeg", &actions, &attr, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(fds[0]);
    if (rc != 0) {
        close(fds[1]);
        return cs_fail(err, "%s: cannot start ffmpeg: %s (Debian: apt-get install ffmpeg)", path, strerror(rc));
    }
    rec->pid = pid;
    rec->fd = fds[1];
    return true;
}

bool cs_record_frame(cs_record *rec, const uint8_t *rgba, cs_error *err)
{
    if (!cs_record_active(rec))
        return cs_fail(err, "%s: not recording", rec->path);
    size_t left = (size_t)rec->width * rec->height * 4;
    while (left) {
        ssize_t n = write(rec->fd, rgba, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(rec->fd);
            rec->fd = -1;
            cs_error why;
            if (reap(rec, &why)) // it exited 0 without reading everything
                snprintf(why.msg, sizeof why.msg, "%s: ffmpeg stopped reading after %u frame%s", rec->path,
                         rec->frames, rec->frames == 1 ? "" : "s");
            return cs_fail(err, "%s (%s); recording stopped", why.msg, e == EPIPE ? "broken pipe" : strerror(e));
        }
        rgba += n;
        left -= (size_t)n;
    }
    rec->frames++;
    return true;
}

bool cs_record_stop(cs_record *rec, cs_error *err)
{
    if (!cs_record_active(rec))
        return true;
    close(rec->fd);
    rec->fd = -1;
    return reap(rec, err);
}
