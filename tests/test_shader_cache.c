// test_shader_cache.c — the SPIR-V cache (host/gpu/shader.c, "The SPIR-V
// cache") never serves a stale module.
//
// A shader tree of its own in a temporary folder (a compute shader that
// includes a header beside it), and a cache folder of its own:
// 1. the first compile misses and stores; the second hits and gives the
//    same words;
// 2. the included header edited (a constant changed): a miss, and words
//    that differ from before and equal a compile with the cache off; then
//    a hit on the new text;
// 3. another define: a miss;
// 4. a header that breaks the compile: the error, nothing cached; put back:
//    a hit again (the entry for that text is still good);
// 5. a damaged entry (truncated, then overwritten with garbage): a miss, the
//    right words, no crash; the entry replaced;
// 6. the cache off: no hit, no miss, no file written.
// No device needed: shaderc only.
// ctest labels: quick -- 0.3 (the SPIR-V cache never serves a stale module)
#define _DEFAULT_SOURCE
#include "test_util.h"

#include "file_io.h"
#include "shader.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_root[256], g_shaders[300], g_cache[300];

static void write_text(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_shaders, name);
    cs_error err;
    CS_ASSERT(cs_write_whole_file(path, text, strlen(text), false, &err), "%s", err.msg);
}

static void write_header(const char *value)
{
    char text[256];
    snprintf(text, sizeof text, "const uint CACHE_TEST_VALUE = %s;\n", value);
    write_text("value.glsl", text);
}

static uint32_t counts(uint32_t *misses)
{
    uint32_t hits;
    cs_shader_cache_counts(&hits, misses);
    return hits;
}

// Compiles the tree's compute shader; returns whether it compiled, the words in *out and
// how the cache answered (+1 hit, -1 miss, 0 neither).
static bool compile(const cs_define *defines, uint32_t define_count, cs_spirv *out, int *answer, cs_error *err)
{
    uint32_t misses0, hits0 = counts(&misses0), misses1;
    bool ok = cs_shader_compile("main.comp", defines, define_count, out, err);
    uint32_t hits1 = counts(&misses1);
    *answer = hits1 > hits0 ? 1 : misses1 > misses0 ? -1 : 0;
    return ok;
}

static bool same_words(const cs_spirv *a, const cs_spirv *b)
{
    return a->word_count == b->word_count && a->word_count > 0 &&
           memcmp(a->words, b->words, a->word_count * 4) == 0;
}

static uint32_t cache_files(char *first, size_t first_size)
{
    uint32_t n = 0;
    DIR *dir = opendir(g_cache);
    if (!dir)
        return 0;
    struct dirent *e;
    while ((e = readdir(dir)))
        if (e->d_name[0] != '.') {
            if (n++ == 0 && first)
                snprintf(first, first_size, "%s/%s", g_cache, e->d_name);
        }
    closedir(dir);
    return n;
}

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char child[600];
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            remove_tree(child);
        }
        closedir(dir);
    }
    remove(path);
}

int main(void)
{
    test_seed();
    snprintf(g_root, sizeof g_root, "/tmp/cistern_shader_cache_XXXXXX");
    CS_ASSERT(mkdtemp(g_root), "mkdtemp");
    snprintf(g_shaders, sizeof g_shaders, "%s/shaders", g_root);
    snprintf(g_cache, sizeof g_cache, "%s/cache/spirv", g_root); // made by the cache itself
    mkdir(g_shaders, 0755);
    write_text("main.comp", "#version 450\n"
                            "#include \"value.glsl\"\n"
                            "layout(local_size_x = 64) in;\n"
                            "layout(std430, binding = 0) writeonly buffer Out { uint values[]; };\n"
                            "void main()\n"
                            "{\n"
                            "#ifdef TWICE\n"
                            "    values[gl_GlobalInvocationID.x] = 2u * CACHE_TEST_VALUE;\n"
                            "#else\n"
                            "    values[gl_GlobalInvocationID.x] = CACHE_TEST_VALUE;\n"
                            "#endif\n"
                            "}\n");
    write_header("7u");
    cs_shader_set_dir(g_shaders);
    cs_shader_set_cache(g_cache, NULL);
    cs_error err;
    int answer;

    // 1. Miss, then hit with the same words.
    cs_spirv first, again;
    bool ok = compile(NULL, 0, &first, &answer, &err);
    CHECK(ok && answer == -1, "first compile: %s, cache answer %d (want a miss)", ok ? "ok" : err.msg, answer);
    CHECK(cache_files(NULL, 0) == 1, "one entry after the first compile (%u)", cache_files(NULL, 0));
    ok = compile(NULL, 0, &again, &answer, &err);
    CHECK(ok && answer == 1 && same_words(&first, &again), "second compile: answer %d (want a hit), same words %d",
          answer, same_words(&first, &again));
    CHECK(again.dep_count == 2 && strstr(again.deps[0], "main.comp") && strstr(again.deps[1], "value.glsl"),
          "a hit names the files to watch: %u (%s, %s)", again.dep_count, again.deps[0], again.deps[1]);
    cs_spirv_free(&again);

    // 2. The include edited: a miss, new words equal to an uncached compile.
    write_header("9u");
    cs_spirv edited, uncached;
    ok = compile(NULL, 0, &edited, &answer, &err);
    CHECK(ok && answer == -1 && !same_words(&first, &edited),
          "after editing the include: answer %d (want a miss), words changed %d", answer, !same_words(&first, &edited));
    cs_shader_set_cache("off", NULL);
    ok = compile(NULL, 0, &uncached, &answer, &err);
    CHECK(ok && answer == 0 && same_words(&edited, &uncached), "cache off: answer %d, same words as the miss %d",
          answer, same_words(&edited, &uncached));
    cs_shader_set_cache(g_cache, NULL);
    ok = compile(NULL, 0, &again, &answer, &err);
    CHECK(ok && answer == 1 && same_words(&edited, &again), "the edited text again: answer %d (want a hit)", answer);
    cs_spirv_free(&again);

    // 3. Another define: a miss.
    cs_define twice = {"TWICE", NULL};
    ok = compile(&twice, 1, &again, &answer, &err);
    CHECK(ok && answer == -1 && !same_words(&edited, &again), "with TWICE: answer %d (want a miss)", answer);
    cs_spirv_free(&again);

    // 4. A broken header fails and caches nothing; put back, a hit.
    uint32_t before = cache_files(NULL, 0);
    write_header("nine");
    ok = compile(NULL, 0, &again, &answer, &err);
    CHECK(!ok && strstr(err.msg, "value.glsl") && cache_files(NULL, 0) == before,
          "a broken include: %s, %u entries (was %u)", ok ? "compiled" : err.msg, cache_files(NULL, 0), before);
    if (ok)
        cs_spirv_free(&again);
    write_header("9u");
    ok = compile(NULL, 0, &again, &answer, &err);
    CHECK(ok && answer == 1 && same_words(&edited, &again), "put back: answer %d (want a hit)", answer);
    cs_spirv_free(&again);

    // 5. Damaged entries: a miss and the right words, then a hit again.
    cs_shader_set_cache("off", NULL);
    remove_tree(g_cache);
    cs_shader_set_cache(g_cache, NULL);
    ok = compile(NULL, 0, &again, &answer, &err);
    cs_spirv_free(&again);
    char entry[600];
    CHECK(cache_files(entry, sizeof entry) == 1, "one entry in a fresh cache");
    const char *damage[2] = {"truncated", "garbage"};
    for (int d = 0; d < 2; d++) {
        FILE *f = fopen(entry, d == 0 ? "r+b" : "wb");
        CS_ASSERT(f, "cannot open %s", entry);
        if (d == 0)
            CS_ASSERT(ftruncate(fileno(f), 40) == 0, "truncate");
        else
            fputs("CSSPV1 but not really an entry", f);
        fclose(f);
        ok = compile(NULL, 0, &again, &answer, &err);
        CHECK(ok && answer == -1 && same_words(&edited, &again), "%s entry: answer %d (want a miss), same words %d",
              damage[d], answer, ok && same_words(&edited, &again));
        cs_spirv_free(&again);
        ok = compile(NULL, 0, &again, &answer, &err);
        CHECK(ok && answer == 1 && same_words(&edited, &again), "%s entry replaced: answer %d (want a hit)", damage[d],
              answer);
        cs_spirv_free(&again);
    }

    // 6. Off: neither hit nor miss, nothing written.
    cs_shader_set_cache("off", NULL);
    remove_tree(g_cache);
    ok = compile(NULL, 0, &again, &answer, &err);
    CHECK(ok && answer == 0 && cache_files(NULL, 0) == 0 && cs_shader_cache_dir()[0] == 0,
          "cache off: answer %d, %u entries", answer, cache_files(NULL, 0));
    cs_spirv_free(&again);

    cs_spirv_free(&first);
    cs_spirv_free(&edited);
    cs_spirv_free(&uncached);
    cs_shader_shutdown();
    remove_tree(g_root);
    if (test_failures)
        fprintf(stderr, "FAIL: %d check(s) failed\n", test_failures);
    else
        printf("PASS\n");
    return test_failures ? 1 : 0;
}
