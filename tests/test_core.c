// test_core.c — the Vulkan core: reflection, dispatch rounding and folding,
// size limits, pass timestamps, and a planted missing barrier that
// synchronization validation must catch.
#include "test_util.h"

static void run_add_one(cs_context *ctx, cs_program *prog, uint32_t n, bool with_barrier, uint32_t *out)
{
    cs_buffer a, b, c;
    test_buffer(ctx, &a, "a", (VkDeviceSize)n * 4);
    test_buffer(ctx, &b, "b", (VkDeviceSize)n * 4);
    test_buffer(ctx, &c, "c", (VkDeviceSize)n * 4);
    uint32_t *init = malloc((size_t)n * 4 + 4);
    for (uint32_t i = 0; i < n; i++)
        init[i] = i * 7u;
    cs_buffer_upload(ctx, &a, init, (VkDeviceSize)n * 4, 0);
    cs_buffer_fill(ctx, &b, CS_POISON_U32);
    cs_buffer_fill(ctx, &c, CS_POISON_U32);

    cs_recorder rec;
    cs_recorder_create(ctx, "add_one", &rec);
    cs_recorder_begin(&rec);
    cs_pass_begin(&rec, "first");
    cs_dispatch(&rec, prog, &(cs_dispatch_desc){.buffers = {&a, &b}, .push = &n, .push_size = 4, .threads = {n}});
    cs_pass_end(&rec);
    if (with_barrier)
        cs_barrier_compute(&rec);
    cs_pass_begin(&rec, "second");
    cs_dispatch(&rec, prog, &(cs_dispatch_desc){.buffers = {&b, &c}, .push = &n, .push_size = 4, .threads = {n}});
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    CHECK(rec.pass_count == 2, "two passes recorded");
    CHECK(cs_recorder_pass_ms(&rec, "first") >= 0, "first pass has a timing");
    CHECK(cs_recorder_pass_ms(&rec, "missing") < 0, "unknown pass has no timing");
    cs_buffer_download(ctx, &c, out, (VkDeviceSize)n * 4, 0);
    cs_recorder_destroy(&rec);
    cs_buffer_destroy(ctx, &a);
    cs_buffer_destroy(ctx, &b);
    cs_buffer_destroy(ctx, &c);
    free(init);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_program prog;
    test_program(&ctx, &prog, "test/add_one.comp", NULL);
    CHECK(prog.reflection.local_size[0] == 64, "local size reflected: %u", prog.reflection.local_size[0]);
    CHECK(prog.reflection.binding_mask == 3u, "bindings 0 and 1: mask %x", prog.reflection.binding_mask);
    CHECK(prog.reflection.push_constant_size == 4, "push size %u", prog.reflection.push_constant_size);
    CHECK(strcmp(prog.reflection.binding_names[1], "Dst") == 0, "binding name %s", prog.reflection.binding_names[1]);

    // Group counts round up, and a 1D dispatch larger than the group-count
    // limit folds into y: sizes around a workgroup and past 65535 groups.
    uint32_t big = ctx.props.limits.maxComputeWorkGroupCount[0] * 64u + 130u;
    uint32_t sizes[] = {0, 1, 63, 64, 65, 4093, big};
    for (size_t s = 0; s < CS_ARRAY_COUNT(sizes); s++) {
        uint32_t n = sizes[s];
        uint32_t *out = malloc((size_t)n * 4 + 4);
        run_add_one(&ctx, &prog, n, true, out);
        uint32_t bad = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (out[i] != i * 7u + 2u && bad++ == 0)
                fprintf(stderr, "n=%u: first wrong element %u: %u (want %u)\n", n, i, out[i], i * 7u + 2u);
        }
        CHECK(bad == 0, "n=%u: %u elements wrong", n, bad);
        free(out);
    }

    // Size limits are refused with a message, never a crash.
    cs_buffer huge;
    cs_error err;
    VkDeviceSize too_big = (VkDeviceSize)ctx.props.limits.maxStorageBufferRange + 4;
    CHECK(!cs_buffer_create(&ctx, &(cs_buffer_desc){.name = "particles", .size = too_big}, &huge, &err),
          "a buffer over maxStorageBufferRange is refused");
    CHECK(strstr(err.msg, "particles") && strstr(err.msg, "maxStorageBufferRange"), "message names it: %s", err.msg);

    // A shader error reads file:line: message.
    cs_program broken;
    CHECK(!cs_program_create(&ctx, &(cs_program_desc){.path = "test/broken.comp.txt"}, &broken, &err),
          "a missing shader is an error");
    CHECK(strstr(err.msg, "broken.comp.txt") != NULL, "message names the file: %s", err.msg);

    // The planted hazard: the second dispatch reads what the first wrote,
    // with no barrier between. Synchronization validation must report it.
    uint32_t before = ctx.validation_errors;
    ctx.validation_quiet = true;
    uint32_t out[256];
    run_add_one(&ctx, &prog, 256, false, out);
    ctx.validation_quiet = false;
    uint32_t caught = ctx.validation_errors - before;
    CHECK(caught > 0, "the missing barrier was not reported by synchronization validation");
    CHECK(strstr(ctx.last_validation_message, "SYNC-HAZARD") || strstr(ctx.last_validation_message, "READ_AFTER_WRITE"),
          "the report is a sync hazard: %s", ctx.last_validation_message);
    fprintf(stderr, "planted missing barrier: %u validation error(s), e.g. %.160s\n", caught, ctx.last_validation_message);
    ctx.validation_errors = before; // expected; every other error still fails the test

    cs_program_destroy(&ctx, &prog);
    return test_finish(&ctx);
}
