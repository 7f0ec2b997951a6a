// test_shaders_compile.c — compiles every shader in the tree, so a broken
// shader fails CI. Compute shaders are also reflected and built into
// pipelines on the device; graphics stages are compiled and reflected.
// ctest labels: quick,gpu -- 1.5
#define _DEFAULT_SOURCE
#include "test_util.h"

#include "prim.h"

#include <dirent.h>
#include <sys/stat.h>

static int compiled;

static bool has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

// Shaders their host always compiles with defines it picks per device
// (a missing one is an #error): the same kind of values here.
static void shader_defines(cs_context *ctx, const char *path, cs_program_desc *desc)
{
    static char max_subgroups[16];
    if (strncmp(path, "prim/sort8_", strlen("prim/sort8_")) != 0)
        return;
    // What cs_sort_create gives them (pipelines/core/prim.c), with the CPU
    // devices' block of keys.
    snprintf(max_subgroups, sizeof max_subgroups, "%u", cs_sort8_max_subgroups(ctx));
    desc->defines[0] = (cs_define){"SORT8_BLOCK", "8192"};
    desc->defines[1] = (cs_define){"SORT8_MAX_SUBGROUPS", max_subgroups};
}

static void walk(cs_context *ctx, const char *rel)
{
    char dir_path[512];
    snprintf(dir_path, sizeof dir_path, "%s/%s", cs_shader_dir(), rel);
    DIR *dir = opendir(dir_path);
    CHECK(dir != NULL, "cannot open %s", dir_path);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char child[512], full[1024];
        snprintf(child, sizeof child, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", cs_shader_dir(), child);
        struct stat st;
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(ctx, child);
            continue;
        }
        bool compute = has_suffix(child, ".comp");
        if (!compute && !has_suffix(child, ".vert") && !has_suffix(child, ".frag"))
            continue;
        cs_error err;
        if (compute) {
            cs_program_desc desc = {.path = child};
            shader_defines(ctx, child, &desc);
            cs_program_id prog;
            bool ok = cs_program_create(ctx, &desc, &prog, &err);
            CHECK(ok, "%s", err.msg);
            if (ok)
                cs_program_destroy(ctx, &prog);
        } else {
            cs_spirv spirv;
            bool ok = cs_shader_compile(child, NULL, 0, &spirv, &err);
            CHECK(ok, "%s", err.msg);
            cs_reflection refl;
            if (ok)
                CHECK(cs_spirv_reflect(spirv.words, spirv.word_count, &refl, &err), "%s: %s", child, err.msg);
            cs_spirv_free(&spirv);
        }
        compiled++;
        fprintf(stderr, "compiled %s\n", child);
    }
    closedir(dir);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    walk(&ctx, "");
    CHECK(compiled > 0, "no shaders found under %s", cs_shader_dir());
    fprintf(stderr, "%d shaders compiled\n", compiled);
    return test_finish(&ctx);
}
