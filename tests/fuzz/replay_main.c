// replay_main.c — a main() for a libFuzzer target without clang: each
// argument is a file or a folder of files, and every file goes through
// LLVMFuzzerTestOneInput once (a crash or abort fails the replay, as it
// would fail the fuzzer). Prints how many files it replayed.
#define _GNU_SOURCE
#include "common.h"

#include <dirent.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        exit(1);
    }
    size_t cap = 1 << 16, size = 0;
    uint8_t *data = malloc(cap);
    CS_ASSERT(data, "out of memory");
    size_t got;
    while ((got = fread(data + size, 1, cap - size, f)) > 0) {
        size += got;
        if (size == cap) {
            cap *= 2;
            data = realloc(data, cap);
            CS_ASSERT(data, "out of memory");
        }
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 1;
}

static unsigned replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: no such file or folder\n", path);
        exit(1);
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR *d = opendir(path);
    CS_ASSERT(d, "cannot open %s", path);
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char child[1024];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        n += replay(child);
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    unsigned n = 0;
    for (int i = 1; i < argc; i++)
        n += replay(argv[i]);
    printf("replayed %u files\n", n);
    return n ? 0 : 1;
}
