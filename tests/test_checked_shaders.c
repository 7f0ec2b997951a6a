// test_checked_shaders.c — checked shaders (host/gpu/shader_check.h): the
// rewrite of a shader's text, and on the GPU a shader that indexes its
// buffers out of bounds on purpose (shaders/test/out_of_bounds.comp): each
// violation is caught, counted and named (pass, program, binding, index,
// length, file:line, invocation), the shader reads and writes only inside
// its buffers, and in-bounds work reports nothing.
// ctest labels: quick,gpu -- 2
#define _GNU_SOURCE
#include "test_util.h"

// ---------------------------------------------------------------------------
// The rewrite, on text

static char *rewrite(const char *text, cs_check_site **sites, uint32_t *count)
{
    char *out = NULL;
    cs_error err;
    bool ok = cs_check_rewrite(text, "/shaders", &out, sites, count, &err);
    CHECK(ok, "rewrite failed: %s", err.msg);
    return out;
}

static void check_rewrite_text(void)
{
    const char *text =
        "#version 450\n"
        "#line 1 \"/shaders/a/main.comp\"\n"
        "layout(std430, binding = 3) readonly buffer Src { vec4 src[]; };\n"
        "layout(std430, binding = 4) buffer Dst { uint head; uint dst[8]; } out_block;\n"
        "struct S { uint src[2]; };\n"
        "void main() {\n"
        "    float src_copy[4]; S s; uint src2[3];\n"
        "    out_block.dst[uint(src[out_block.dst[1]].x)] = s.src[1];\n"
        "#line 40 \"/shaders/common/b.glsl\"\n"
        "    src_copy[0] = src [ 2 ] . y;\n"
        "}\n"
        "void g() { float src[2]; }\n";
    cs_check_site *sites = NULL;
    uint32_t count = 0;
    char *out = rewrite(text, &sites, &count);
    if (!out)
        return;
    // Three accesses: out_block.dst[...] (outer), src[...] inside it, and
    // out_block.dst[1] inside that; then src [ 2 ] after the #line.
    CHECK(count == 4, "%u sites", count);
    CHECK(strstr(out, "out_block.dst[cs_check_index(uint(src[cs_check_index(out_block.dst[cs_check_index(1, "
                      "out_block.dst.length(), 2u)], src.length(), 1u)].x), out_block.dst.length(), 0u)]"),
          "nested accesses rewritten inside out:\n%s", out);
    CHECK(strstr(out, "src [cs_check_index( 2 , src.length(), 3u)] . y"), "spaced access:\n%s", out);
    CHECK(strstr(out, "s.src[1]") && strstr(out, "src_copy[0]") && strstr(out, "uint src2[3]") &&
              strstr(out, "float src_copy[4]") && strstr(out, "float src[2];"),
          "struct fields, locals and declarations left alone:\n%s", out);
    CHECK(strstr(out, "{ vec4 src[]; }") && strstr(out, "uint dst[8]; }"), "block declarations left alone");
    // No line moves: the text has as many lines as before.
    uint32_t lines_in = 0, lines_out = 0;
    for (const char *p = text; *p; p++)
        lines_in += *p == '\n';
    for (const char *p = out; *p; p++)
        lines_out += *p == '\n';
    CHECK(lines_in == lines_out, "%u lines became %u", lines_in, lines_out);
    if (count == 4) {
        CHECK(strcmp(sites[0].file, "a/main.comp") == 0 && sites[0].line == 6 && sites[0].binding == 4 &&
                  strcmp(sites[0].array, "dst") == 0,
              "site 0: %s:%u binding %u %s", sites[0].file, sites[0].line, sites[0].binding, sites[0].array);
        CHECK(sites[1].binding == 3 && strcmp(sites[1].array, "src") == 0, "site 1: binding %u %s",
              sites[1].binding, sites[1].array);
        CHECK(strcmp(sites[3].file, "common/b.glsl") == 0 && sites[3].line == 40, "site 3: %s:%u", sites[3].file,
              sites[3].line);
    }
    free(out);
    free(sites);

    // The record's binding is the rewrite's own.
    char reserved[256];
    snprintf(reserved, sizeof reserved,
             "#version 450\nlayout(std430, binding = %d) buffer X { uint x[]; };\nvoid main() { x[0] = 1u; }\n",
             CS_CHECK_BINDING);
    cs_error err;
    char *refused = NULL;
    CHECK(!cs_check_rewrite(reserved, "", &refused, &sites, &count, &err) && strstr(err.msg, "reserved"),
          "binding %d refused", CS_CHECK_BINDING);
    free(refused);
}

// ---------------------------------------------------------------------------
// On the GPU

// The 1-based line of shaders/<path> holding `needle`, so the expected
// file:line follows the shader's text.
static uint32_t line_of(const char *path, const char *needle)
{
    char full[512];
    snprintf(full, sizeof full, "%s/%s", cs_shader_dir(), path);
    char *text = cs_read_file(full, NULL, NULL);
    CHECK(text, "cannot read %s", full);
    if (!text)
        return 0;
    uint32_t line = 1;
    const char *at = strstr(text, needle);
    for (const char *p = text; at && p < at; p++)
        line += *p == '\n';
    free(text);
    return at ? line : 0;
}

typedef struct oob_push {
    uint32_t count;
    int32_t shift;
    uint32_t scatter;
} oob_push;

typedef struct oob_rig {
    cs_context *ctx;
    cs_program_id prog;
    uint32_t n;
    cs_buffer src, dst, where;
    uint32_t *src_values;
} oob_rig;

// Runs two passes: "clean" (in bounds) then "planted" with `push`.
static void run_passes(oob_rig *rig, const oob_push *push)
{
    oob_push clean = {rig->n, 0, 0};
    cs_recorder rec;
    cs_recorder_create(rig->ctx, "checked", &rec);
    cs_recorder_begin(&rec);
    cs_pass_begin(&rec, "clean");
    cs_dispatch(&rec, rig->prog, &(cs_dispatch_desc){.buffers = {&rig->src, &rig->dst, &rig->where},
                                                     .push = &clean, .push_size = sizeof clean,
                                                     .threads = {rig->n}});
    cs_pass_end(&rec);
    cs_barrier_compute(&rec);
    cs_pass_begin(&rec, "planted");
    cs_dispatch(&rec, rig->prog, &(cs_dispatch_desc){.buffers = {&rig->src, &rig->dst, &rig->where},
                                                     .push = push, .push_size = sizeof *push,
                                                     .threads = {push->count}});
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
}

// Takes the violations a case planted; any other count fails the test.
static void expect_violations(cs_context *ctx, uint32_t expected, const char *what)
{
    CHECK(ctx->shader_check_violations == expected, "%s: %u violation(s) reported, %u expected", what,
          ctx->shader_check_violations, expected);
    ctx->shader_check_violations = 0;
}

static bool message_has(const cs_context *ctx, const char *part)
{
    bool found = strstr(ctx->last_shader_check_message, part) != NULL;
    CHECK(found, "the message lacks \"%s\": %s", part, ctx->last_shader_check_message);
    return found;
}

static void check_in_bounds(oob_rig *rig)
{
    run_passes(rig, &(oob_push){rig->n, 0, 0});
    expect_violations(rig->ctx, 0, "in bounds");
}

// src[i + shift] past the end: every invocation whose index passes the end
// counts; the first is named; the reads were clamped to the last element.
static void check_read_past_end(oob_rig *rig)
{
    const uint32_t shift = 6, n = rig->n;
    run_passes(rig, &(oob_push){n, (int32_t)shift, 0});
    expect_violations(rig->ctx, 1, "read past the end");
    char part[128];
    snprintf(part, sizeof part, "%u out-of-bounds access(es) in this dispatch", shift);
    message_has(rig->ctx, part);
    message_has(rig->ctx, "planted (test/out_of_bounds.comp) binding 0 index ");
    snprintf(part, sizeof part, ">= length %u: src[", n);
    message_has(rig->ctx, part);
    snprintf(part, sizeof part, "at test/out_of_bounds.comp:%u ",
             line_of("test/out_of_bounds.comp", "dst[i] = src[int(i) + pc.shift]"));
    message_has(rig->ctx, part);
    unsigned index = 0, invocation = 0;
    const char *at = strstr(rig->ctx->last_shader_check_message, "index ");
    const char *inv = strstr(rig->ctx->last_shader_check_message, "(invocation ");
    CHECK(at && inv && sscanf(at, "index %u", &index) == 1 && sscanf(inv, "(invocation %u", &invocation) == 1 &&
              index >= n && index < n + shift && invocation == index - shift,
          "index %u from invocation %u", index, invocation);
    uint32_t *dst = malloc((size_t)n * 4);
    cs_buffer_download(rig->ctx, &rig->dst, dst, (VkDeviceSize)n * 4, 0);
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++)
        wrong += dst[i] != rig->src_values[CS_MIN(i + shift, n - 1)];
    CHECK(wrong == 0, "%u elements differ from the clamped reads", wrong);
    free(dst);
}

static void check_negative_index(oob_rig *rig)
{
    run_passes(rig, &(oob_push){rig->n, -3, 0});
    expect_violations(rig->ctx, 1, "negative index");
    message_has(rig->ctx, "binding 0 index -");
    message_has(rig->ctx, " < 0 (length ");
    message_has(rig->ctx, "3 out-of-bounds access(es)");
}

// dst[where[i]]: the outer write is checked with its own binding, and the
// inner read of where[] too.
static void check_scatter(oob_rig *rig)
{
    const uint32_t n = rig->n, bad = 7;
    uint32_t *where = malloc((size_t)n * 4);
    for (uint32_t i = 0; i < n; i++)
        where[i] = i == bad ? n + 5 : i;
    cs_buffer_upload(rig->ctx, &rig->where, where, (VkDeviceSize)n * 4, 0);
    run_passes(rig, &(oob_push){n, 0, 1});
    expect_violations(rig->ctx, 1, "scatter");
    char part[160];
    snprintf(part, sizeof part, "binding 1 index %u >= length %u: dst[%u] at test/out_of_bounds.comp:%u "
                                "(invocation %u,0,0); 1 out-of-bounds",
             n + 5, n, n + 5, line_of("test/out_of_bounds.comp", "dst[where[i]] = i;"), bad);
    message_has(rig->ctx, part);
    // One invocation more than where[] holds: the inner read is caught.
    where[bad] = bad;
    cs_buffer_upload(rig->ctx, &rig->where, where, (VkDeviceSize)n * 4, 0);
    run_passes(rig, &(oob_push){n + 1, 0, 1});
    expect_violations(rig->ctx, 1, "where[] read past its end");
    message_has(rig->ctx, "binding 2 index ");
    free(where);
}

static void check_gpu(void)
{
    // This test checks the checked mode itself, so it always turns it on.
    setenv("CISTERN_CHECKED_SHADERS", "1", 1);
    cs_context ctx;
    test_context(&ctx);
    CHECK(ctx.checked_shaders, "CISTERN_CHECKED_SHADERS=1 turns checked shaders on");
    // A multiple of 4 elements: buffers are allocated in 16-byte steps, and
    // the arrays' lengths are the allocations'.
    oob_rig rig = {.ctx = &ctx, .n = 4 * (250 + test_rand_u32() % 16)};
    test_program(&ctx, &rig.prog, "test/out_of_bounds.comp", NULL);
    const cs_program *prog = cs_program_get(&ctx, rig.prog);
    CHECK(prog->reflection.checked && prog->check_site_count == 4, "checked with %u sites",
          prog->check_site_count);
    CHECK(!(prog->reflection.binding_mask & (1u << CS_CHECK_BINDING)), "the record is not the caller's binding");
    test_buffer(&ctx, &rig.src, "src", (VkDeviceSize)rig.n * 4);
    test_buffer(&ctx, &rig.dst, "dst", (VkDeviceSize)rig.n * 4);
    test_buffer(&ctx, &rig.where, "where", (VkDeviceSize)rig.n * 4);
    rig.src_values = malloc((size_t)rig.n * 4);
    for (uint32_t i = 0; i < rig.n; i++)
        rig.src_values[i] = test_rand_u32();
    cs_buffer_upload(&ctx, &rig.src, rig.src_values, (VkDeviceSize)rig.n * 4, 0);
    cs_buffer_fill(&ctx, &rig.where, 0);

    check_in_bounds(&rig);
    check_read_past_end(&rig);
    check_negative_index(&rig);
    check_scatter(&rig);

    free(rig.src_values);
    cs_buffer_destroy(&ctx, &rig.src);
    cs_buffer_destroy(&ctx, &rig.dst);
    cs_buffer_destroy(&ctx, &rig.where);
    cs_program_destroy(&ctx, &rig.prog);
    int code = test_finish(&ctx);
    exit(code);
}

int main(void)
{
    check_rewrite_text();
    check_gpu();
}
