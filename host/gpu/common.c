// common.c — error formatting, file reading, clocks.
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *cs_vk_result_name(VkResult r)
{
    switch (r) {
#define CS_RESULT_CASE(x) case x: return #x
        CS_RESULT_CASE(VK_SUCCESS);
        CS_RESULT_CASE(VK_NOT_READY);
        CS_RESULT_CASE(VK_TIMEOUT);
        CS_RESULT_CASE(VK_EVENT_SET);
        CS_RESULT_CASE(VK_EVENT_RESET);
        CS_RESULT_CASE(VK_INCOMPLETE);
        CS_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY);
        CS_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY);
        CS_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED);
        CS_RESULT_CASE(VK_ERROR_DEVICE_LOST);
        CS_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED);
        CS_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT);
        CS_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT);
        CS_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT);
        CS_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER);
        CS_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS);
        CS_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED);
        CS_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL);
        CS_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY);
        CS_RESULT_CASE(VK_ERROR_SURFACE_LOST_KHR);
        CS_RESULT_CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR);
        CS_RESULT_CASE(VK_SUBOPTIMAL_KHR);
        CS_RESULT_CASE(VK_ERROR_OUT_OF_DATE_KHR);
        CS_RESULT_CASE(VK_ERROR_VALIDATION_FAILED_EXT);
#undef CS_RESULT_CASE
    default: return "VK_ERROR_(unknown)";
    }
}

bool cs_fail(cs_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return false;
}

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

// "64 MiB" for whole MiB (the documented limits), else cs_format_bytes.
static const char *limit_text(size_t max_bytes, char *buf, size_t size)
{
    if (max_bytes && max_bytes % ((size_t)1 << 20) == 0)
        snprintf(buf, size, "%zu MiB", max_bytes >> 20);
    else
        cs_format_bytes(max_bytes, buf, size);
    return buf;
}

static bool too_large(const char *path, uint64_t size, size_t max_bytes, const char *what, cs_error *err)
{
    char size_text[32], limit[32];
    return cs_fail(err, "%s: %s; %s are limited to %s", path, cs_format_bytes(size, size_text, sizeof size_text),
                   what, limit_text(max_bytes, limit, sizeof limit));
}

// Reads up to max_bytes + 1 bytes, so a file that grew past the limit after
// fstat (or a /proc file that reports size 0) is still caught.
static char *read_bounded(int fd, const char *path, size_t max_bytes, const char *what, size_t *size_out,
                          cs_error *err)
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
            too_large(path, size, max_bytes, what, err);
            return NULL;
        }
    }
    data[size] = 0;
    *size_out = size;
    return data;
}

char *cs_read_file_max(const char *path, size_t max_bytes, const char *what, size_t *size_out, cs_error *err)
{
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
        cs_fail(err, "%s: is %s, not a file cistern can read: name a regular file", path, file_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    if ((uint64_t)st.st_size > max_bytes) {
        too_large(path, (uint64_t)st.st_size, max_bytes, what, err);
        close(fd);
        return NULL;
    }
    size_t size = 0;
    char *data = read_bounded(fd, path, max_bytes, what, &size, err);
    close(fd);
    if (data && size_out)
        *size_out = size;
    return data;
}

char *cs_read_file(const char *path, size_t *size_out, cs_error *err)
{
    return cs_read_file_max(path, CS_INPUT_FILE_MAX, "input files", size_out, err);
}

uint32_t cs_edit_distance(const char *a, const char *b)
{
    // One row of the dynamic-programming table; names are short.
    uint32_t row[128];
    size_t la = strlen(a), lb = strlen(b);
    if (la > 127 || lb > 127)
        return UINT32_MAX;
    for (size_t j = 0; j <= lb; j++)
        row[j] = (uint32_t)j;
    for (size_t i = 1; i <= la; i++) {
        uint32_t diag = row[0];
        row[0] = (uint32_t)i;
        for (size_t j = 1; j <= lb; j++) {
            uint32_t up = row[j];
            uint32_t best = diag + (a[i - 1] != b[j - 1]);
            best = CS_MIN(best, up + 1);
            best = CS_MIN(best, row[j - 1] + 1);
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *cs_nearest_name(const char *word, const char *const *names, uint32_t count, uint32_t max_edits)
{
    uint32_t best = UINT32_MAX;
    const char *nearest = NULL;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t d = cs_edit_distance(word, names[k]);
        if (d < best)
            best = d, nearest = names[k];
    }
    return best <= max_edits ? nearest : NULL;
}

double cs_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *cs_format_bytes(uint64_t bytes, char *buf, size_t buf_size)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, buf_size, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

const char *cs_format_count(uint64_t count, char *buf, size_t buf_size)
{
    if (count < 10000)
        snprintf(buf, buf_size, "%llu", (unsigned long long)count);
    else if (count < 1000000)
        snprintf(buf, buf_size, "%.1f k", (double)count * 1e-3);
    else if (count < 1000000000)
        snprintf(buf, buf_size, "%.1f M", (double)count * 1e-6);
    else if (count < 1000000000000ull)
        snprintf(buf, buf_size, "%.1f G", (double)count * 1e-9);
    else
        snprintf(buf, buf_size, "%.1f T", (double)count * 1e-12);
    return buf;
}

uint64_t cs_host_memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return UINT64_MAX;
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    fclose(f);
    return found ? (uint64_t)kib * 1024u : UINT64_MAX;
}
