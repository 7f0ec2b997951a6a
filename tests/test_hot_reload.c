// test_hot_reload.c — shader hot reload, headless: a copy of a shader tree is
// watched; editing an included file (saved by atomic rename, as editors do)
// rebuilds the program and the next dispatch sees the change; a broken edit
// reports file:line and keeps the old pipeline; fixing it recovers; 100
// reloads leave no device objects behind (the validation layer reports
// leaked objects at vkDestroyDevice) — run under LeakSanitizer/valgrind in
// the asan preset for host memory.
#define _GNU_SOURCE
#include "test_util.h"
#include "watch.h"

#include <unistd.h>

static char g_dir[256];

static void write_atomically(const char *path, const char *text)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp~", path);
    FILE *f = fopen(tmp, "w");
    CS_ASSERT(f, "cannot write %s", tmp);
    fputs(text, f);
    fclose(f);
    CS_ASSERT(rename(tmp, path) == 0, "rename %s", tmp);
}

static uint32_t run_once(cs_context *ctx, cs_program_id *prog, cs_buffer *out)
{
    cs_buffer_fill(ctx, out, CS_POISON_U32);
    cs_recorder rec;
    cs_recorder_create(ctx, "reload", &rec);
    cs_recorder_begin(&rec);
    cs_pass_begin(&rec, "reload_value");
    cs_dispatch(&rec, *prog, &(cs_dispatch_desc){.buffers = {out}, .threads = {1}});
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    uint32_t v;
    cs_buffer_download(ctx, out, &v, 4, 0);
    return v;
}

// Waits (up to 5 s) for the watcher to report the edited file, then reloads.
static bool wait_and_reload(cs_context *ctx, cs_watch *w, cs_program_id *prog, cs_error *err, bool *saw_event)
{
    char paths[8][512];
    *saw_event = false;
    for (int tries = 0; tries < 500; tries++) {
        uint32_t n = cs_watch_poll(w, paths, 8);
        for (uint32_t i = 0; i < n; i++) {
            if (cs_program_depends_on(cs_program_get(ctx, *prog), paths[i])) {
                *saw_event = true;
                vkDeviceWaitIdle(ctx->device);
                return cs_program_reload(ctx, *prog, err);
            }
        }
        usleep(10000);
    }
    return cs_fail(err, "no change event");
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/cistern_reload_XXXXXX");
    CS_ASSERT(mkdtemp(g_dir), "mkdtemp");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp -r '%s/test' '%s/common' '%s/'", cs_shader_dir(), cs_shader_dir(), g_dir);
    CS_ASSERT(system(cmd) == 0, "copy shaders");
    setenv("CISTERN_SHADER_DIR", g_dir, 1);

    cs_context ctx;
    test_context(&ctx);
    cs_program_id prog;
    test_program(&ctx, &prog, "test/reload_value.comp", NULL);
    cs_buffer out;
    test_buffer(&ctx, &out, "reload out", 4);
    CHECK(run_once(&ctx, &prog, &out) == 1u, "initial value");

    cs_watch w;
    cs_error err;
    CHECK(cs_watch_open(&w, g_dir, 50, &err), "%s", err.msg);
    char include_path[512];
    snprintf(include_path, sizeof include_path, "%s/test/reload_value.glsl", g_dir);
    CHECK(cs_program_depends_on(cs_program_get(&ctx, prog), include_path), "include is tracked as a dependency");

    // 1. A change to the included constant shows in the next dispatch.
    bool saw;
    write_atomically(include_path, "#define RELOAD_VALUE 2u\n");
    CHECK(wait_and_reload(&ctx, &w, &prog, &err, &saw), "reload: %s", err.msg);
    CHECK(saw, "watcher saw the atomic rename");
    CHECK(run_once(&ctx, &prog, &out) == 2u, "changed value after reload");

    // 2. A broken edit: error with file:line, old pipeline keeps running.
    write_atomically(include_path, "#define RELOAD_VALUE 3u\nthis is not glsl;\n");
    bool ok = wait_and_reload(&ctx, &w, &prog, &err, &saw);
    CHECK(saw && !ok, "broken shader is refused");
    CHECK(strstr(err.msg, "reload_value.glsl:2") != NULL, "error names file:line: %s", err.msg);
    fprintf(stderr, "reported as expected: %s\n", err.msg);
    CHECK(run_once(&ctx, &prog, &out) == 2u, "old pipeline still runs after a failed reload");

    // 3. Fixing it recovers.
    write_atomically(include_path, "#define RELOAD_VALUE 4u\n");
    CHECK(wait_and_reload(&ctx, &w, &prog, &err, &saw), "reload after fix: %s", err.msg);
    CHECK(run_once(&ctx, &prog, &out) == 4u, "recovered value");

    // 4. 100 reloads: device objects are destroyed each time (the validation
    // layer reports any leaked pipeline/layout at device destruction).
    for (int i = 0; i < 100; i++) {
        ok = cs_program_reload(&ctx, prog, &err);
        CHECK(ok, "reload %d: %s", i, err.msg);
        if (!ok)
            break;
    }
    CHECK(run_once(&ctx, &prog, &out) == 4u, "value after 100 reloads");

    cs_watch_close(&w);
    cs_buffer_destroy(&ctx, &out);
    cs_program_destroy(&ctx, &prog);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_dir);
    return test_finish(&ctx);
}
