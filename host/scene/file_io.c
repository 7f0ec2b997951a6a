// file_io.c — see file_io.h.
#define _GNU_SOURCE
#include "file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

char *cs_read_input_file(const char *path, size_t max_bytes, size_t *size_out, cs_error *err)
{
    return cs_read_file_max(path, max_bytes, "scene and level files", size_out, err);
}

// ---- the checked writer ------------------------------------------------------

static void out_failed(cs_out_file *out, const char *call)
{
    if (!out->error) {
        out->error = errno ? errno : EIO;
        out->failed = call;
    }
}

// Opened for writing (created, truncated); with no_follow a symbolic link
// at path is refused (ELOOP) rather than written through.
static FILE *open_write(const char *path, bool no_follow)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (no_follow ? O_NOFOLLOW : 0), 0666);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int why = errno;
        close(fd);
        errno = why;
    }
    return f;
}

static bool open_failed(const char *path, cs_error *err)
{
    if (errno == ELOOP)
        return cs_fail(err, "%s: is a symbolic link; cistern does not write through links (the file it points to "
                            "may be outside the output folder): remove the link, or choose another --out",
                       path);
    return cs_fail(err, "%s: cannot write: %s", path, strerror(errno));
}

static bool out_open(cs_out_file *out, const char *path, bool atomic, bool table, cs_error *err)
{
    // Once per process: past `ulimit -f` a write then fails with EFBIG,
    // which is reported, instead of SIGXFSZ ending the process.
    static bool xfsz_ignored;
    if (!xfsz_ignored) {
        signal(SIGXFSZ, SIG_IGN);
        xfsz_ignored = true;
    }
    *out = (cs_out_file){.atomic = atomic, .keep_flushed = table};
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->tmp, sizeof out->tmp, "%s.tmp", path);
    out->f = open_write(atomic ? out->tmp : path, atomic || table);
    if (!out->f)
        return open_failed(atomic ? out->tmp : path, err);
    // Only a regular file may be removed after a failure: the path of a
    // non-atomic write can be /dev/full or /dev/stdout.
    struct stat st;
    out->regular = fstat(fileno(out->f), &st) == 0 && S_ISREG(st.st_mode);
    return true;
}

bool cs_out_open(cs_out_file *out, const char *path, bool atomic, cs_error *err)
{
    return out_open(out, path, atomic, false, err);
}

bool cs_out_open_table(cs_out_file *out, const char *path, cs_error *err)
{
    return out_open(out, path, false, true, err);
}

bool cs_out_open_table_append(cs_out_file *out, const char *path, long long keep, cs_error *err)
{
    signal(SIGXFSZ, SIG_IGN); // as out_open: a write past `ulimit -f` fails with EFBIG
    *out = (cs_out_file){.keep_flushed = true, .flushed = keep};
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->tmp, sizeof out->tmp, "%s.tmp", path);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0)
        return open_failed(path, err);
    struct stat st;
    out->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (out->regular && ftruncate(fd, (off_t)keep) != 0) {
        int why = errno;
        close(fd);
        return cs_fail(err, "%s: cannot cut to its first %lld bytes: %s", path, keep, strerror(why));
    }
    out->f = fdopen(fd, "ab");
    if (!out->f) {
        int why = errno;
        close(fd);
        return cs_fail(err, "%s: cannot write: %s", path, strerror(why));
    }
    return true;
}

bool cs_out_write(cs_out_file *out, const void *data, size_t size)
{
    if (out->error)
        return false;
    errno = 0;
    if (size && fwrite(data, 1, size, out->f) != size)
        out_failed(out, "write");
    return !out->error;
}

bool cs_out_printf(cs_out_file *out, const char *fmt, ...)
{
    if (out->error)
        return false;
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    int n = vfprintf(out->f, fmt, ap);
    va_end(ap);
    if (n < 0)
        out_failed(out, "write");
    return !out->error;
}

static bool out_error(const cs_out_file *out, cs_error *err)
{
    return cs_fail(err, "%s: cannot write (%s failed): %s", out->path, out->failed, strerror(out->error));
}

bool cs_out_flush(cs_out_file *out, cs_error *err)
{
    errno = 0;
    if (!out->error && fflush(out->f) != 0)
        out_failed(out, "flush");
    if (out->error)
        return out_error(out, err);
    off_t at = ftello(out->f);
    if (at >= 0)
        out->flushed = (long long)at;
    return true;
}

// After a failure: a table keeps its flushed bytes (whole rows; a partial
// row past them is cut off), anything else is removed.
static void drop_partial(const cs_out_file *out, const char *written)
{
    if (!out->regular)
        return;
    if (out->keep_flushed && out->flushed > 0 && truncate(written, (off_t)out->flushed) == 0)
        return;
    unlink(written); // a short file would pass for a whole one
}

bool cs_out_close(cs_out_file *out, cs_error *err)
{
    if (!out->f)
        return cs_fail(err, "%s: not open", out->path);
    errno = 0;
    if (!out->error && fflush(out->f) != 0)
        out_failed(out, "flush");
    if (!out->error && ferror(out->f))
        out_failed(out, "write");
    errno = 0;
    if (fclose(out->f) != 0)
        out_failed(out, "close");
    out->f = NULL;
    const char *written = out->atomic ? out->tmp : out->path;
    if (!out->error && out->atomic && rename(out->tmp, out->path) != 0) {
        int why = errno;
        unlink(out->tmp);
        return cs_fail(err, "%s: cannot rename %s onto it: %s", out->path, out->tmp, strerror(why));
    }
    if (out->error) {
        drop_partial(out, written);
        return out_error(out, err);
    }
    return true;
}

void cs_out_abandon(cs_out_file *out)
{
    if (!out->f)
        return;
    fclose(out->f);
    out->f = NULL;
    drop_partial(out, out->atomic ? out->tmp : out->path);
}

bool cs_write_whole_file(const char *path, const void *data, size_t size, bool atomic, cs_error *err)
{
    cs_out_file out;
    if (!cs_out_open(&out, path, atomic, err))
        return false;
    cs_out_write(&out, data, size);
    return cs_out_close(&out, err);
}

bool cs_make_dirs(const char *path, cs_error *err)
{
    if (!path[0])
        return cs_fail(err, "an empty path is not a directory: give a folder name");
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        bool last = *p == 0;
        if (*p == '/' || last) {
            char saved = *p;
            *p = 0;
            struct stat st;
            if (mkdir(buf, 0755) != 0) {
                if (errno != EEXIST)
                    return cs_fail(err, "%s: cannot create directory: %s", buf, strerror(errno));
                // EEXIST also means "a file of that name": say so now, not
                // as a puzzling failure to write into it later.
                if (stat(buf, &st) == 0 && !S_ISDIR(st.st_mode))
                    return cs_fail(err, "%s: cannot use as a directory: %s", buf, strerror(ENOTDIR));
            }
            *p = saved;
        }
        if (last)
            break;
    }
    return true;
}
