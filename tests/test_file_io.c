// test_file_io.c — the input reader every user file goes through
// (cs_read_file in host/gpu/common.c: shaders, .hdr images, --baseline;
// cs_read_input_file: scenes and levels). CPU only.
//   - directories, character devices and FIFOs are refused with what they
//     are, before any read (a FIFO with no writer must not block the open);
//   - a file past the limit is refused with its size and the limit, before
//     it is read (a sparse file: no disk used);
//   - a regular file is read whole, NUL-terminated.
// ctest labels: quick -- 0.01
#define _POSIX_C_SOURCE 200809L // mkdtemp, mkfifo

#include "test_util.h"

#include "file_io.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_dir[64];

static void expect_refused(const char *path, size_t max_bytes, const char *needle1, const char *needle2)
{
    cs_error err = {0};
    size_t size = 0;
    char *data = max_bytes ? cs_read_file_max(path, max_bytes, "test inputs", &size, &err)
                           : cs_read_file(path, &size, &err);
    CHECK(!data, "%s: read (%zu bytes), wanted a refusal with \"%s\"", path, size, needle1);
    free(data);
    if (data)
        return;
    printf("refused: %s\n", err.msg);
    CHECK(strstr(err.msg, path), "message \"%s\" lacks the path %s", err.msg, path);
    CHECK(strstr(err.msg, needle1), "message \"%s\" lacks \"%s\"", err.msg, needle1);
    CHECK(!needle2 || strstr(err.msg, needle2), "message \"%s\" lacks \"%s\"", err.msg, needle2);
}

int main(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/cistern_file_io_XXXXXX");
    CS_ASSERT(mkdtemp(tmp_dir), "mkdtemp failed");
    // A regression that blocks in open() on the FIFO ends the test here
    // instead of at CTest's timeout.
    alarm(20);

    char path[256];
    snprintf(path, sizeof path, "%s/text.txt", tmp_dir);
    FILE *f = fopen(path, "w");
    CS_ASSERT(f, "cannot write %s", path);
    fputs("hello\n", f);
    fclose(f);
    cs_error err = {0};
    size_t size = 0;
    char *text = cs_read_file(path, &size, &err);
    CHECK(text && size == 6 && strcmp(text, "hello\n") == 0, "%s: %s", path, text ? text : err.msg);
    free(text);

    expect_refused(tmp_dir, 0, "is a directory", "regular file");
    expect_refused("/dev/null", 0, "is a character device", "regular file");
    char fifo[256];
    snprintf(fifo, sizeof fifo, "%s/pipe", tmp_dir);
    CS_ASSERT(mkfifo(fifo, 0600) == 0, "mkfifo %s failed", fifo);
    expect_refused(fifo, 0, "is a FIFO", "regular file");

    // Past the default limit, and past a caller's own.
    char huge[256];
    snprintf(huge, sizeof huge, "%s/huge", tmp_dir);
    f = fopen(huge, "w");
    CS_ASSERT(f, "cannot write %s", huge);
    fclose(f);
    CS_ASSERT(truncate(huge, (off_t)CS_INPUT_FILE_MAX + 1) == 0, "truncate %s failed", huge);
    expect_refused(huge, 0, "64.0 MiB", "64 MiB");
    expect_refused(path, 4, "6 B", "test inputs are limited to 4 B");

    unlink(path);
    unlink(fifo);
    unlink(huge);
    rmdir(tmp_dir);
    if (test_failures)
        fprintf(stderr, "FAIL: %d check(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}
