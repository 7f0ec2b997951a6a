// test_hot_reload.c — shader hot reload, headless: a copy of a shader tree is
// watched; editing an included file (saved by atomic rename, as editors do)
// rebuilds the program and the next dispatch sees the change; a broken edit
// reports file:line and keeps the old pipeline; fixing it recovers; 100
// reloads leave no device objects behind (the validation layer reports
// leaked objects at vkDestroyDevice) — run under LeakSanitizer/valgrind in
// the asan preset for host memory.
//
// Also: the watcher reports every file of a large burst and watches
// directories created later; include cycles are errors that name the cycle,
// while diamonds and guarded mutual includes still compile; a shader with
// more includes than cistern tracks is refused, not truncated; an empty or
// binary file, or one with many errors, gives a short message with
// file:line (the first 10 errors and a count of the rest).
// ctest labels: quick,gpu -- 2.5
#define _GNU_SOURCE
#include "test_util.h"
#include "watch.h"

#include <sys/stat.h>
#include <unistd.h>

static char g_dir[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CS_ASSERT(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

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
    *saw_event = false;
    for (int tries = 0; tries < 500; tries++) {
        cs_watch_path *paths;
        uint32_t n = cs_watch_poll(w, &paths);
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

// Polls (up to 5 s) until the watcher reports a burst; returns its size.
static uint32_t wait_for_report(cs_watch *w, cs_watch_path **paths)
{
    for (int tries = 0; tries < 500; tries++) {
        uint32_t n = cs_watch_poll(w, paths);
        if (n > 0)
            return n;
        usleep(10000);
    }
    return 0;
}

static uint32_t count_path(cs_watch_path *paths, uint32_t n, const char *want)
{
    uint32_t found = 0;
    for (uint32_t i = 0; i < n; i++)
        found += strcmp(paths[i], want) == 0;
    return found;
}

// More files than the watcher's old fixed pending list (64) and far more
// than the `max` callers used to pass (8 here, 16 in run.c): with any fixed
// cap below BURST_FILES the count check fails, naming how many came back.
#define BURST_FILES 100

// One burst: every file written (twice: an atomic save, then an in-place
// one) before the first poll, so all events land in one debounce window and
// one report, each path once.
static void test_burst(const char *dir)
{
    cs_watch w;
    cs_error err;
    CHECK(cs_watch_open(&w, dir, 50, &err), "%s", err.msg);
    char path[600];
    for (int i = 0; i < BURST_FILES; i++) {
        snprintf(path, sizeof path, "%s/burst_%03d.glsl", dir, i);
        write_atomically(path, "// first save\n");
        write_file(path, "// second save\n");
    }
    cs_watch_path *paths;
    uint32_t n = wait_for_report(&w, &paths);
    CHECK(n == BURST_FILES, "one report of the whole burst: %u paths, want %d", n, BURST_FILES);
    uint32_t missing = 0;
    for (int i = 0; i < BURST_FILES; i++) {
        snprintf(path, sizeof path, "%s/burst_%03d.glsl", dir, i);
        missing += count_path(paths, n, path) != 1;
    }
    CHECK(missing == 0, "%u of %d burst files not reported exactly once", missing, BURST_FILES);
    CHECK(cs_watch_poll(&w, &paths) == 0, "a report is not repeated");
    cs_watch_close(&w);
}

// More new directories than the watcher's old fixed limit (64). Files
// written into a directory before the watcher has seen it are reported by
// the scan that starts watching it; later edits there by its own watch.
#define NEW_DIRS 70

static void test_new_dirs(const char *dir)
{
    cs_watch w;
    cs_error err;
    CHECK(cs_watch_open(&w, dir, 50, &err), "%s", err.msg);
    char path[600];
    for (int i = 0; i < NEW_DIRS; i++) {
        snprintf(path, sizeof path, "%s/sub_%02d", dir, i);
        CS_ASSERT(mkdir(path, 0755) == 0, "mkdir %s", path);
        snprintf(path, sizeof path, "%s/sub_%02d/f.glsl", dir, i);
        write_file(path, "// new\n");
    }
    snprintf(path, sizeof path, "%s/sub_00/deeper", dir);
    CS_ASSERT(mkdir(path, 0755) == 0, "mkdir %s", path);
    char deep[600];
    snprintf(deep, sizeof deep, "%s/sub_00/deeper/g.comp", dir);
    write_file(deep, "// new\n");

    cs_watch_path *paths;
    uint32_t n = wait_for_report(&w, &paths);
    CHECK(n == NEW_DIRS + 1, "files in new directories: %u reported, want %d", n, NEW_DIRS + 1);
    CHECK(count_path(paths, n, deep) == 1, "file in a new nested directory reported");

    // The new directories are watched now: edits there are seen.
    snprintf(path, sizeof path, "%s/sub_%02d/f.glsl", dir, NEW_DIRS - 1);
    write_atomically(path, "// edited\n");
    write_atomically(deep, "// edited\n");
    n = wait_for_report(&w, &paths);
    CHECK(n == 2 && count_path(paths, n, path) == 1 && count_path(paths, n, deep) == 1,
          "edits in directories created after open: %u reported, want 2", n);
    cs_watch_close(&w);
}

static const char *const CYCLE_MAIN = "#version 450\n"
                                      "#include \"%s\"\n"
                                      "layout(local_size_x = 1) in;\n"
                                      "void main() {}\n";

// Writes g_dir/test/<name> from a printf format with one %s.
static void write_test_shader(const char *name, const char *format, const char *arg)
{
    char path[600], text[1024];
    snprintf(path, sizeof path, "%s/test/%s", g_dir, name);
    snprintf(text, sizeof text, format, arg);
    write_file(path, text);
}

static bool compile(const char *path, cs_error *err, uint32_t *dep_count)
{
    cs_spirv spirv;
    bool ok = cs_shader_compile(path, NULL, 0, &spirv, err);
    if (dep_count)
        *dep_count = spirv.dep_count;
    cs_spirv_free(&spirv);
    return ok;
}

// a.glsl <-> b.glsl without guards is refused with the cycle spelled out;
// with guards (as C headers do) it compiles, and so does a diamond.
static void test_include_graphs(void)
{
    cs_error err;
    write_test_shader("cycle_ab.comp", CYCLE_MAIN, "cycle_a.glsl");
    write_test_shader("cycle_a.glsl", "// a\n#include \"%s\"\n", "cycle_b.glsl");
    write_test_shader("cycle_b.glsl", "// b\n\n#include \"%s\"\n", "cycle_a.glsl");
    bool ok = compile("test/cycle_ab.comp", &err, NULL);
    CHECK(!ok, "a <-> b include cycle is refused");
    CHECK(strstr(err.msg, "test/cycle_b.glsl:3: error: include cycle: "
                          "test/cycle_a.glsl -> test/cycle_b.glsl -> test/cycle_a.glsl"),
          "error names the file, line and cycle: %s", err.msg);
    fprintf(stderr, "reported as expected: %s\n", err.msg);
    write_test_shader("cycle_b.glsl", "// b, fixed%s\n", "");
    CHECK(compile("test/cycle_ab.comp", &err, NULL), "fixed cycle compiles: %s", err.msg);

    // The same mutual include behind include guards: glslang stops at the
    // guard, so it is not a cycle.
    write_test_shader("guarded_ab.comp", CYCLE_MAIN, "guarded_a.glsl");
    write_test_shader("guarded_a.glsl",
                      "#ifndef GUARDED_A\n#define GUARDED_A\n#include \"%s\"\nfloat fa() { return 1.0; }\n#endif\n",
                      "guarded_b.glsl");
    write_test_shader("guarded_b.glsl",
                      "#ifndef GUARDED_B\n#define GUARDED_B\n#include \"%s\"\nfloat fb() { return 2.0; }\n#endif\n",
                      "guarded_a.glsl");
    CHECK(compile("test/guarded_ab.comp", &err, NULL), "guarded mutual include compiles: %s", err.msg);

    // Diamond: left and right both include the guarded base.
    write_test_shader("diamond.comp",
                      "#version 450\n#include \"diamond_left.glsl\"\n#include \"diamond_right.glsl\"\n"
                      "layout(local_size_x = 1) in;\n"
                      "layout(std430, binding = 0) writeonly buffer Out { float value[]; };\n"
                      "void main() { value[0] = left() + right(); }\n%s",
                      "");
    write_test_shader("diamond_left.glsl", "#include \"%s\"\nfloat left() { return base(); }\n", "diamond_base.glsl");
    write_test_shader("diamond_right.glsl", "#include \"%s\"\nfloat right() { return base(); }\n", "diamond_base.glsl");
    write_test_shader("diamond_base.glsl",
                      "#ifndef DIAMOND_BASE\n#define DIAMOND_BASE\nfloat base() { return 1.0; }\n#endif\n%s", "");
    uint32_t deps = 0;
    CHECK(compile("test/diamond.comp", &err, &deps), "diamond include compiles: %s", err.msg);
    CHECK(deps == 4, "diamond records 4 files (base once), got %u", deps);
}

// A shader with one include per line, `count` of them.
static void write_many_includes(uint32_t count)
{
    char list[4096] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < count; i++) {
        char name[64];
        snprintf(name, sizeof name, "many_%02u.glsl", i);
        write_test_shader(name, "// %s\n", name);
        used += snprintf(list + used, sizeof list - used, "#include \"%s\"\n", name);
    }
    write_test_shader("many.comp", "#version 450\n%slayout(local_size_x = 1) in;\nvoid main() {}\n", list);
}

// Every dependency is tracked for hot reload up to CS_MAX_DEPS (the shader
// itself and its includes); one more is a clear error, not a file whose
// edits are silently ignored.
static void test_many_includes(void)
{
    cs_error err;
    uint32_t deps = 0;
    write_many_includes(CS_MAX_DEPS - 1);
    CHECK(compile("test/many.comp", &err, &deps), "%d includes compile: %s", CS_MAX_DEPS - 1, err.msg);
    CHECK(deps == CS_MAX_DEPS, "all %d files tracked, got %u", CS_MAX_DEPS, deps);
    write_many_includes(CS_MAX_DEPS);
    CHECK(!compile("test/many.comp", &err, NULL), "%d includes are refused", CS_MAX_DEPS);
    char want[64];
    snprintf(want, sizeof want, "many.comp:%d: error:", CS_MAX_DEPS + 1);
    CHECK(strstr(err.msg, want) && strstr(err.msg, "one file too many"), "error names the include: %s", err.msg);
    fprintf(stderr, "reported as expected: %s\n", err.msg);
}

// Lines in `text` (a last line without '\n' counts).
static uint32_t count_lines(const char *text)
{
    uint32_t n = 0;
    for (const char *s = text; *s; s++)
        n += *s == '\n' || s[1] == 0;
    return n;
}

// wait_and_reload with stdout captured: glslang prints to stdout, not into
// the error message (its built-ins dump for a file with no #version was
// ~4500 lines). Returns the reload's result; *printed is the line count of
// the message plus everything written to stdout meanwhile.
static bool reload_counting_output(cs_context *ctx, cs_watch *w, cs_program_id *prog, cs_error *err,
                                   uint32_t *printed)
{
    char capture[] = "/tmp/cistern_reload_stdout_XXXXXX";
    int fd = mkstemp(capture);
    CS_ASSERT(fd >= 0, "mkstemp");
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    bool saw;
    bool ok = wait_and_reload(ctx, w, prog, err, &saw);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    close(fd);
    char *text = cs_read_file(capture, NULL, NULL);
    *printed = count_lines(err->msg) + (text ? count_lines(text) : 0);
    free(text);
    unlink(capture);
    CHECK(saw, "watcher saw the edit");
    return ok;
}

// `size` random bytes (the test's seed), as a binary file saved over a shader.
static void write_random_bytes(const char *path, size_t size)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp~", path);
    FILE *f = fopen(tmp, "wb");
    CS_ASSERT(f, "cannot write %s", tmp);
    for (size_t i = 0; i < size; i++)
        fputc((int)(test_rand_u32() & 0xff), f);
    fclose(f);
    CS_ASSERT(rename(tmp, path) == 0, "rename %s", tmp);
}

// A message short enough to read: the first errors and a count of the rest.
#define MAX_MESSAGE_LINES 12

// Files that are not shaders, saved over a watched program's files (an empty
// save, a binary file, a file with hundreds of errors, an include cycle
// through two files): each is refused with file:line in a short message, and
// the previous pipeline keeps running; restoring the files recovers.
static void test_unusable_sources(cs_context *ctx, cs_watch *w, cs_program_id *prog, cs_buffer *out)
{
    char main_path[512], include_path[512], other_path[512];
    snprintf(main_path, sizeof main_path, "%s/test/reload_value.comp", g_dir);
    snprintf(include_path, sizeof include_path, "%s/test/reload_value.glsl", g_dir);
    snprintf(other_path, sizeof other_path, "%s/test/reload_other.glsl", g_dir);
    char *main_text = cs_read_file(main_path, NULL, NULL);
    CS_ASSERT(main_text, "read %s", main_path);
    uint32_t before = run_once(ctx, prog, out);
    cs_error err;
    uint32_t printed;

    write_atomically(main_path, "");
    CHECK(!reload_counting_output(ctx, w, prog, &err, &printed), "an empty shader is refused");
    CHECK(strstr(err.msg, "reload_value.comp:1: error"), "empty file: error names file:line: %s", err.msg);
    CHECK(printed <= MAX_MESSAGE_LINES, "empty file: %u lines printed, want at most %d", printed, MAX_MESSAGE_LINES);
    fprintf(stderr, "reported as expected: %s\n", err.msg);
    CHECK(run_once(ctx, prog, out) == before, "old pipeline still runs after an empty save");

    write_random_bytes(main_path, 4096);
    CHECK(!reload_counting_output(ctx, w, prog, &err, &printed), "a binary shader is refused");
    CHECK(strstr(err.msg, "reload_value.comp:") && strstr(err.msg, ": error"), "binary file: file:line: %s", err.msg);
    CHECK(printed <= MAX_MESSAGE_LINES, "binary file: %u lines printed, want at most %d", printed, MAX_MESSAGE_LINES);
    fprintf(stderr, "reported as expected: %s\n", err.msg);
    CHECK(run_once(ctx, prog, out) == before, "old pipeline still runs after a binary save");
    write_atomically(main_path, main_text);
    CHECK(wait_and_reload(ctx, w, prog, &err, &(bool){0}), "restored shader reloads: %s", err.msg);

    write_random_bytes(include_path, 4096);
    CHECK(!reload_counting_output(ctx, w, prog, &err, &printed), "a binary include is refused");
    CHECK(strstr(err.msg, "reload_value.glsl:") && strstr(err.msg, ": error"), "binary include: file:line: %s",
          err.msg);
    CHECK(printed <= MAX_MESSAGE_LINES, "binary include: %u lines printed", printed);
    fprintf(stderr, "reported as expected: %s\n", err.msg);
    CHECK(run_once(ctx, prog, out) == before, "old pipeline still runs after a binary include");

    // 25 errors: the first 10 are shown, the other 15 counted.
    char many[2048] = "#define RELOAD_VALUE 7u\n";
    for (int i = 0; i < 25; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "float f%d() { return undeclared_%d; }\n", i, i);
    write_atomically(include_path, many);
    CHECK(!reload_counting_output(ctx, w, prog, &err, &printed), "25 errors are refused");
    CHECK(strstr(err.msg, "reload_value.glsl:2: error") && strstr(err.msg, "\n... and 15 more errors") &&
              count_lines(err.msg) == 11,
          "first 10 errors and a count of the rest (%u lines): %s", count_lines(err.msg), err.msg);
    fprintf(stderr, "reported as expected: %s\n", err.msg);
    CHECK(run_once(ctx, prog, out) == before, "old pipeline still runs after 25 errors");

    // a -> b -> a through the watched include.
    write_atomically(other_path, "#include \"reload_value.glsl\"\n");
    write_atomically(include_path, "#define RELOAD_VALUE 8u\n#include \"reload_other.glsl\"\n");
    CHECK(!reload_counting_output(ctx, w, prog, &err, &printed), "a -> b -> a cycle is refused");
    CHECK(strstr(err.msg, "reload_other.glsl:1: error: include cycle: "
                          "test/reload_value.glsl -> test/reload_other.glsl -> test/reload_value.glsl"),
          "error names the file, line and cycle: %s", err.msg);
    CHECK(printed <= MAX_MESSAGE_LINES, "cycle: %u lines printed", printed);
    fprintf(stderr, "reported as expected: %s\n", err.msg);
    CHECK(run_once(ctx, prog, out) == before, "old pipeline still runs after a cycle");

    char restored[64];
    snprintf(restored, sizeof restored, "#define RELOAD_VALUE %uu\n", before);
    write_atomically(include_path, restored);
    CHECK(wait_and_reload(ctx, w, prog, &err, &(bool){0}), "restored include reloads: %s", err.msg);
    CHECK(run_once(ctx, prog, out) == before, "value after restoring");
    // The watcher reports other_path's own save; drain it.
    cs_watch_path *paths;
    cs_watch_poll(w, &paths);
    free(main_text);
}

static uint32_t run_value(cs_context *ctx, cs_program_id prog, cs_buffer *out)
{
    return run_once(ctx, &prog, out);
}

static const char *const VALUE_MAIN = "#version 450\n"
                                      "%s\n"
                                      "layout(local_size_x = 1) in;\n"
                                      "layout(std430, binding = 0) writeonly buffer Out { uint value; };\n"
                                      "void main() { value = VALUE; }\n";

// The registry's reload, driven directly (no watcher):
//  - more programs than the table's first allocation (64): the table grows
//    and the first program still reloads (its entry must not move);
//  - all or nothing: two programs share a header; a burst that changes the
//    header and breaks one of them installs neither, and fixing the broken
//    file alone brings both to the new header;
//  - a program whose new include did not exist yet rebuilds when the file
//    appears, though no program depends on that file yet.
static void test_registry_bursts(cs_context *ctx, cs_buffer *out)
{
    char path[600];
    cs_reload_report report;
    cs_program_id many[80];
    for (uint32_t i = 0; i < 80; i++) {
        char value[16];
        snprintf(value, sizeof value, "%uu", 1000 + i);
        cs_error err;
        CHECK(cs_program_create(ctx, &(cs_program_desc){.path = "test/add_one.comp", .defines = {{"UNUSED", value}}},
                                &many[i], &err),
              "program %u: %s", i, err.msg);
    }
    snprintf(path, sizeof path, "%s/test/add_one.comp", g_dir);
    cs_programs_reload(ctx, path, &report);
    CHECK(report.rebuilt == 80 && report.failed == 0, "80 programs of one file rebuilt: %u (%u failed: %s)",
          report.rebuilt, report.failed, report.first_error.msg);
    // Named once with the count (it was the same name 80 times, cut).
    CHECK(strcmp(report.names, "test/add_one.comp (x80)") == 0, "80 programs of one file are named once: \"%s\"",
          report.names);
    for (uint32_t i = 0; i < 80; i++)
        cs_program_destroy(ctx, &many[i]);

    write_test_shader("shared_value.glsl", "#define %s 7u\n", "SHARED_VALUE");
    write_test_shader("only_b.glsl", "%s\n", "#define B_OFFSET 100u");
    write_test_shader("burst_a.comp", VALUE_MAIN, "#include \"shared_value.glsl\"\n#define VALUE SHARED_VALUE");
    write_test_shader("burst_b.comp", VALUE_MAIN,
                      "#include \"shared_value.glsl\"\n#include \"only_b.glsl\"\n#define VALUE (SHARED_VALUE + B_OFFSET)");
    cs_program_id a, b;
    test_program(ctx, &a, "test/burst_a.comp", NULL);
    test_program(ctx, &b, "test/burst_b.comp", NULL);
    CHECK(run_value(ctx, a, out) == 7 && run_value(ctx, b, out) == 107, "shared header: 7 and 107");
    write_test_shader("shared_value.glsl", "#define %s 8u\n", "SHARED_VALUE");
    write_test_shader("only_b.glsl", "%s\n", "#define B_OFFSET 100u\nnot glsl;");
    char shared[600], only_b[600];
    snprintf(shared, sizeof shared, "%s/test/shared_value.glsl", g_dir);
    snprintf(only_b, sizeof only_b, "%s/test/only_b.glsl", g_dir);
    const char *burst[2] = {shared, only_b};
    cs_programs_reload_burst(ctx, burst, 2, &report);
    CHECK(report.failed == 1 && report.rebuilt == 0 && strstr(report.first_error.msg, "only_b.glsl:2"),
          "a burst with one broken program installs nothing: %u failed, %u rebuilt: %s", report.failed,
          report.rebuilt, report.first_error.msg);
    CHECK(run_value(ctx, a, out) == 7 && run_value(ctx, b, out) == 107, "both programs keep the old header");
    write_test_shader("only_b.glsl", "%s\n", "#define B_OFFSET 100u");
    cs_programs_reload_burst(ctx, (const char *const[]){only_b}, 1, &report);
    CHECK(report.failed == 0 && report.rebuilt == 2, "fixing only_b.glsl rebuilds both: %u (%s)", report.rebuilt,
          report.names);
    CHECK(strcmp(report.names, "test/burst_a.comp, test/burst_b.comp") == 0, "two files' programs, each named: \"%s\"",
          report.names);
    CHECK(run_value(ctx, a, out) == 8 && run_value(ctx, b, out) == 108, "both on the new header: %u, %u",
          run_value(ctx, a, out), run_value(ctx, b, out));

    write_test_shader("burst_a.comp", VALUE_MAIN, "#include \"later.glsl\"\n#define VALUE LATER_VALUE");
    char burst_a[600], later[600];
    snprintf(burst_a, sizeof burst_a, "%s/test/burst_a.comp", g_dir);
    snprintf(later, sizeof later, "%s/test/later.glsl", g_dir);
    cs_programs_reload(ctx, burst_a, &report);
    CHECK(report.failed == 1 && strstr(report.first_error.msg, "later.glsl"), "a missing include fails: %s",
          report.first_error.msg);
    write_test_shader("later.glsl", "#define %s 9u\n", "LATER_VALUE");
    cs_programs_reload(ctx, later, &report);
    CHECK(report.failed == 0 && report.rebuilt == 1 && run_value(ctx, a, out) == 9,
          "creating the missing include recovers: %u rebuilt, value %u", report.rebuilt, run_value(ctx, a, out));
    cs_program_destroy(ctx, &a);
    cs_program_destroy(ctx, &b);
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

    // 4. An include of itself: refused with the cycle named, the old
    // pipeline keeps running, and removing the include recovers.
    write_atomically(include_path, "#define RELOAD_VALUE 5u\n#include \"reload_value.glsl\"\n");
    ok = wait_and_reload(&ctx, &w, &prog, &err, &saw);
    CHECK(saw && !ok, "self-include is refused");
    CHECK(strstr(err.msg, "reload_value.glsl:2: error: include cycle: "
                          "test/reload_value.glsl -> test/reload_value.glsl"),
          "error names the file, line and cycle: %s", err.msg);
    fprintf(stderr, "reported as expected: %s\n", err.msg);
    CHECK(run_once(&ctx, &prog, &out) == 4u, "old pipeline still runs after a cycle");
    write_atomically(include_path, "#define RELOAD_VALUE 6u\n");
    CHECK(wait_and_reload(&ctx, &w, &prog, &err, &saw), "reload after removing the cycle: %s", err.msg);
    CHECK(run_once(&ctx, &prog, &out) == 6u, "value after removing the cycle");

    test_unusable_sources(&ctx, &w, &prog, &out);

    // 5. 100 reloads: device objects are destroyed each time (the validation
    // layer reports any leaked pipeline/layout at device destruction).
    for (int i = 0; i < 100; i++) {
        ok = cs_program_reload(&ctx, prog, &err);
        CHECK(ok, "reload %d: %s", i, err.msg);
        if (!ok)
            break;
    }
    CHECK(run_once(&ctx, &prog, &out) == 6u, "value after 100 reloads");

    cs_watch_close(&w);

    test_registry_bursts(&ctx, &out);
    test_include_graphs();
    test_many_includes();
    char burst_dir[] = "/tmp/cistern_watch_XXXXXX";
    CS_ASSERT(mkdtemp(burst_dir), "mkdtemp");
    test_burst(burst_dir);
    test_new_dirs(burst_dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", burst_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", burst_dir);

    cs_buffer_destroy(&ctx, &out);
    cs_program_destroy(&ctx, &prog);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_dir);
    return test_finish(&ctx);
}
