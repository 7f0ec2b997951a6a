// common.c — error formatting, file reading, clocks.
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <errno.h>
#include <stdarg.h>
#include <time.h>

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

char *cs_read_file(const char *path, size_t *size_out, cs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cs_fail(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, size = 0;
    char *data = malloc(cap);
    for (;;) {
        if (size + 1 >= cap) {
            cap *= 2;
            data = realloc(data, cap);
        }
        size_t got = fread(data + size, 1, cap - size - 1, f);
        size += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        free(data);
        cs_fail(err, "%s: read error", path);
        return NULL;
    }
    data[size] = 0;
    if (size_out)
        *size_out = size;
    return data;
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
