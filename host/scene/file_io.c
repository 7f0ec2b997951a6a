// file_io.c — see file_io.h.
#define _GNU_SOURCE
#include "file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

// What a non-regular file is, for the refusal message.
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

// Reads up to max_bytes + 1 bytes, so a file that grew past the limit after
// fstat (or a /proc file that reports size 0) is still caught.
static char *read_bounded(int fd, const char *path, size_t max_bytes, size_t *size_out, cs_error *err)
{
    size_t cap = 4096, size = 0;
    char *data = malloc(cap);
    if (!data) {
        cs_fail(err, "%s: out of memory reading it", path);
        return NULL;
    }
    for (;;) {
        if (size + 1 >= cap) {
            size_t grown = cap * 2;
            char *bigger = realloc(data, grown);
            if (!bigger) {
                free(data);
                cs_fail(err, "%s: out of memory after %zu bytes", path, size);
                return NULL;
            }
            data = bigger, cap = grown;
        }
        ssize_t got = read(fd, data + size, cap - size - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            cs_fail(err, "%s: read error: %s", path, strerror(errno));
            free(data);
            return NULL;
        }
        if (got == 0)
            break;
        size += (size_t)got;
        if (size > max_bytes) {
            free(data);
            cs_fail(err, "%s: larger than %zu MiB, the limit for scene and level files", path, max_bytes >> 20);
            return NULL;
        }
    }
    data[size] = 0;
    *size_out = size;
    return data;
}

char *cs_read_input_file(const char *path, size_t max_bytes, size_t *size_out, cs_error *err)
{
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever
    // before fstat could refuse it.
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        cs_fail(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        cs_fail(err, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        cs_fail(err, "%s: is %s, not a file cistern can read", path, file_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    if ((uint64_t)st.st_size > max_bytes) {
        char size_text[32];
        cs_fail(err, "%s: %s; scene and level files are limited to %zu MiB", path,
                cs_format_bytes((uint64_t)st.st_size, size_text, sizeof size_text), max_bytes >> 20);
        close(fd);
        return NULL;
    }
    size_t size = 0;
    char *data = read_bounded(fd, path, max_bytes, &size, err);
    close(fd);
    if (data && size_out)
        *size_out = size;
    return data;
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
