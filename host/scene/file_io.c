// file_io.c — see file_io.h.
#define _GNU_SOURCE
#include "file_io.h"

#include <errno.h>
#include <fcntl.h>
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

bool cs_out_open(cs_out_file *out, const char *path, bool atomic, cs_error *err)
{
    *out = (cs_out_file){.atomic = atomic};
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->tmp, sizeof out->tmp, "%s.tmp", path);
    out->f = fopen(atomic ? out->tmp : path, "wb");
    if (!out->f)
        return cs_fail(err, "%s: cannot write: %s", path, strerror(errno));
    // Only a regular file may be removed after a failure: the path of a
    // non-atomic write can be /dev/full or /dev/stdout.
    struct stat st;
    out->regular = fstat(fileno(out->f), &st) == 0 && S_ISREG(st.st_mode);
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
    return out->error ? out_error(out, err) : true;
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
        if (out->regular)
            unlink(written); // a short file would pass for a whole one
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
    if (out->regular)
        unlink(out->atomic ? out->tmp : out->path);
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
