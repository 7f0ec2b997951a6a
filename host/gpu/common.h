// common.h — what every module of cistern includes: Vulkan through volk, the
// two kinds of failure, and small helpers.
//
// Two kinds of failure:
//  - a Vulkan call that must not fail goes through VK_CHECK, which prints
//    file:line, the call and the VkResult name, then aborts;
//  - anything a user can cause (a file, a scene key, a shader edit, a too
//    large particle count) returns false and fills a cs_error with a message
//    that names the file, line or key and says what to do. It never aborts.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <volk.h>

#define CS_ARRAY_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define CS_MIN(a, b) ((a) < (b) ? (a) : (b))
#define CS_MAX(a, b) ((a) > (b) ? (a) : (b))
#define CS_DIV_UP(n, d) (((n) + (d) - 1) / (d))

const char *cs_vk_result_name(VkResult r);

#define VK_CHECK(call)                                                        \
    do {                                                                      \
        VkResult vk_check_result_ = (call);                                   \
        if (vk_check_result_ != VK_SUCCESS) {                                 \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,     \
                    #call, cs_vk_result_name(vk_check_result_));              \
            abort();                                                          \
        }                                                                     \
    } while (0)

// A programming error inside cistern (not something a user can cause).
#define CS_ASSERT(cond, ...)                                                  \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: internal error: ", __FILE__, __LINE__);   \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            abort();                                                          \
        }                                                                     \
    } while (0)

// A user-facing error message. Functions that can fail because of input
// return bool and fill one of these; the caller prints it or adds context.
typedef struct cs_error {
    char msg[2048];
} cs_error;

// Formats into err (if not NULL) and returns false, so callers can write
// `return cs_fail(err, "...")`.
bool cs_fail(cs_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Input files larger than this are refused before anything is read (the
// biggest Tomb Raider 1 level is under 3 MiB, scenes and shaders a few KiB).
// Documented in `cistern help` and the README.
#define CS_INPUT_FILE_MAX_MIB 64
#define CS_INPUT_FILE_MAX ((size_t)CS_INPUT_FILE_MAX_MIB << 20)

// The one reader of files a user names (scenes, levels, shaders, .hdr
// images, --baseline): reads a regular file of at most max_bytes into a
// malloc'd, NUL-terminated buffer. It opens with O_NONBLOCK (a FIFO with no
// writer would block the open) and refuses directories, devices, FIFOs and
// sockets by fstat before reading, saying what the path is; a larger file is
// refused with its size and the limit ("`what` are limited to 64 MiB"), and
// reading stops at max_bytes + 1 should the file grow meanwhile. NULL + err
// (path, reason) on failure; size_out may be NULL.
char *cs_read_file_max(const char *path, size_t max_bytes, const char *what, size_t *size_out, cs_error *err);
// cs_read_file_max with CS_INPUT_FILE_MAX, for "input files".
char *cs_read_file(const char *path, size_t *size_out, cs_error *err);

// Monotonic wall clock in seconds.
double cs_now_seconds(void);

// "Did you mean": the Levenshtein distance of two short names (UINT32_MAX
// past 127 characters), and the name of `names` nearest to `word`, NULL
// when the nearest is more than max_edits away. The CLI (options,
// commands, scenes) and the scene keys both ask, each with its own limit.
uint32_t cs_edit_distance(const char *a, const char *b);
const char *cs_nearest_name(const char *word, const char *const *names, uint32_t count, uint32_t max_edits);

// Human-readable byte count ("128.0 MiB") into buf.
const char *cs_format_bytes(uint64_t bytes, char *buf, size_t buf_size);
// A count as people read it ("523", "33.5 k", "16.8 M") into buf.
const char *cs_format_count(uint64_t count, char *buf, size_t buf_size);

// The host memory a new allocation can take without swapping: MemAvailable
// of /proc/meminfo, UINT64_MAX where that cannot be read (no limit known).
uint64_t cs_host_memory_available(void);
