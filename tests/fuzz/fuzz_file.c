// fuzz_file.c — libFuzzer target for the path side of the readers: the
// functions that load a scene (cs_scene_load) and a level (cs_tr1_load) from
// a path, through the bounded reader (file_io.h). The first byte picks what
// the path is, the rest is the file's content:
//   0  a regular file with those bytes (as scene.json and as level.phd)
//   1  a directory      2  a FIFO with no writer (must not block)
//   3  a sparse file one byte past the size limit, the bytes at its start
// A regular file must give the same verdict as parsing the same bytes from
// memory; anything else must be refused with a message that names the path.
// ASan/UBSan catch memory errors and leaks.
//
//   cmake --preset fuzz && cmake --build build/fuzz --target fuzz_file
//   build/fuzz/fuzz_file -max_total_time=120 /tmp/file_corpus tests/fuzz/corpus/file
// Without clang, fuzz_file_replay (this file + replay_main.c) replays the
// corpus; tests/fuzz_replay.sh runs it.
#define _GNU_SOURCE
#include "file_io.h"
#include "level_tr1.h"
#include "scene.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void remove_dir(void)
{
    char path[128];
    const char *names[] = {"scene.json", "level.phd"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
        rmdir(path);
    }
    rmdir(dir);
}

// Puts the kind of thing asked for at path; false if the system refused
// (nothing to test then).
static bool make_path(const char *path, uint8_t kind, const uint8_t *data, size_t size)
{
    unlink(path);
    rmdir(path);
    if (kind == 1)
        return mkdir(path, 0755) == 0;
    if (kind == 2)
        return mkfifo(path, 0644) == 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return false;
    bool ok = write(fd, data, size) == (ssize_t)size;
    if (kind == 3)
        ok = ok && ftruncate(fd, (off_t)CS_INPUT_FILE_MAX + 1) == 0; // sparse: no disk used
    return close(fd) == 0 && ok;
}

// A refusal says why, and names the path.
static void check_refusal(const cs_error *err, const char *path)
{
    if (!err->msg[0] || !strstr(err->msg, path))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/cistern_fuzz_file_XXXXXX");
        if (!mkdtemp(dir))
            abort();
        atexit(remove_dir);
    }
    uint8_t kind = data[0] % 4;
    data++, size--;
    char scene_path[128], level_path[128];
    snprintf(scene_path, sizeof scene_path, "%s/scene.json", dir);
    snprintf(level_path, sizeof level_path, "%s/level.phd", dir);
    if (!make_path(scene_path, kind, data, size) || !make_path(level_path, kind, data, size))
        return 0;

    cs_error err = {{0}}, mem_err = {{0}};
    cs_scene scene, from_memory;
    bool loaded = cs_scene_load(scene_path, &scene, &err);
    if (loaded)
        cs_scene_free(&scene);
    else
        check_refusal(&err, scene_path);
    if (kind == 0) {
        bool parsed = cs_scene_parse((const char *)data, size, scene_path, &from_memory, &mem_err);
        cs_scene_free(&from_memory);
        if (parsed != loaded || (!loaded && strcmp(err.msg, mem_err.msg) != 0))
            abort(); // the file reader changes nothing about the verdict
    } else if (loaded) {
        abort(); // directories, FIFOs and oversized files are refused
    }

    err.msg[0] = mem_err.msg[0] = 0;
    cs_tr1_level level, level_mem;
    size_t level_size = 0;
    loaded = cs_tr1_load(level_path, &level, &level_size, &err);
    cs_tr1_free(&level);
    if (!loaded)
        check_refusal(&err, level_path);
    if (kind == 0) {
        bool parsed = cs_tr1_read(data, size, level_path, &level_mem, &mem_err);
        cs_tr1_free(&level_mem);
        if (parsed != loaded || (loaded && level_size != size) || (!loaded && strcmp(err.msg, mem_err.msg) != 0))
            abort();
    } else if (loaded) {
        abort();
    }
    return 0;
}
