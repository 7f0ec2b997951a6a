// test_prim_scan.c — the exclusive scan against a CPU reference, bit-exact:
// fresh random u32 inputs (sums wrap) of sizes around a 32-element chunk and
// each further level of chunk sums (32^2, 32^3, 32^4), up to 16,777,219
// elements; in place and out of place; the grand total; outputs poisoned.
// Prints elements/s for the 1M and 16M cases (GPU timestamps, after a
// warm-up run).
// ctest labels: quick,gpu -- 1.9
#include "test_util.h"

#include "prim.h"

static void scan_once(cs_context *ctx, cs_scan *scan, cs_buffer *in, cs_buffer *out, uint32_t n, cs_buffer *total,
                      double *ms)
{
    cs_recorder rec;
    cs_recorder_create(ctx, "scan test", &rec);
    cs_recorder_begin(&rec);
    cs_pass_begin(&rec, "scan");
    cs_scan_record(&rec, scan, in, out, n, total);
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    if (ms)
        *ms = cs_recorder_pass_ms(&rec, "scan");
    cs_recorder_destroy(&rec);
}

static void test_size(cs_context *ctx, cs_scan *scan, uint32_t n, bool in_place, bool with_total, bool bench)
{
    size_t bytes = (size_t)n * 4;
    uint32_t *input = malloc(bytes + 4), *want = malloc(bytes + 4), *got = malloc(bytes + 4);
    for (uint32_t i = 0; i < n; i++)
        input[i] = test_rand_u32() >> (test_rand_u32() & 31); // all magnitudes; sums wrap
    uint32_t run = 0;
    for (uint32_t i = 0; i < n; i++) {
        want[i] = run;
        run += input[i];
    }

    cs_buffer in, out, total;
    test_buffer(ctx, &in, "scan in", bytes);
    test_buffer(ctx, &out, "scan out", bytes);
    test_buffer(ctx, &total, "scan total", 16);
    cs_buffer *dst = in_place ? &in : &out;
    double ms = 0;
    int runs = bench ? 2 : 1; // the first run compiles the shaders (lavapipe JIT)
    for (int r = 0; r < runs; r++) {
        cs_buffer_upload(ctx, &in, input, bytes, 0);
        cs_buffer_fill(ctx, &out, CS_POISON_U32);
        cs_buffer_fill(ctx, &total, CS_POISON_U32);
        scan_once(ctx, scan, &in, dst, n, with_total ? &total : NULL, &ms);
    }
    cs_buffer_download(ctx, dst, got, bytes, 0);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ < 3)
            fprintf(stderr, "  n=%u: out[%u] = %u (0x%08x), want %u\n", n, i, got[i], got[i], want[i]);
    CHECK(bad == 0, "scan of %u (%s): %u elements wrong", n, in_place ? "in place" : "out of place", bad);
    if (!in_place && n > 0) {
        // The input must be left alone.
        cs_buffer_download(ctx, &in, got, bytes, 0);
        CHECK(memcmp(got, input, bytes) == 0, "scan of %u changed its input", n);
    }
    uint32_t got_total[4];
    cs_buffer_download(ctx, &total, got_total, 16, 0);
    if (with_total)
        CHECK(got_total[0] == run, "scan of %u: total %u, want %u", n, got_total[0], run);
    else
        CHECK(got_total[0] == CS_POISON_U32, "scan of %u wrote a total it was not asked for", n);
    CHECK(got_total[1] == CS_POISON_U32, "scan of %u wrote past total[0]", n);
    if (bench)
        fprintf(stderr, "scan %9u: %8.3f ms, %7.1f M elements/s\n", n, ms, n / (ms * 1e-3) * 1e-6);
    cs_buffer_destroy(ctx, &in);
    cs_buffer_destroy(ctx, &out);
    cs_buffer_destroy(ctx, &total);
    free(input);
    free(want);
    free(got);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    char device[256];
    fprintf(stderr, "device: %s\n", cs_context_device_string(&ctx, device, sizeof device));

    const uint32_t big = 16777219u;
    cs_scan scan;
    cs_error err;
    if (!cs_scan_create(&ctx, big, &scan, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    // Around a chunk (32 elements), a workgroup (64 chunks = 2048), each
    // level of chunk sums (32^2, 32^3, 32^4 + 1 needs four), 1M and 16M.
    const uint32_t sizes[] = {0,    1,    2,    31,    32,    33,      255,     256,     257,    1023,
                              1024, 1025, 2049, 4093, 32769, 1000000, 1048577, big};
    for (size_t s = 0; s < CS_ARRAY_COUNT(sizes); s++) {
        uint32_t n = sizes[s];
        bool bench = n == 1000000 || n == big;
        test_size(&ctx, &scan, n, false, true, bench);
        if (n <= 1000000) {
            test_size(&ctx, &scan, n, true, true, false);
            test_size(&ctx, &scan, n, false, false, false);
        }
    }
    // A smaller capacity refuses nothing it was sized for: exactly full.
    cs_scan small;
    if (cs_scan_create(&ctx, 4093, &small, &err)) {
        test_size(&ctx, &small, 4093, true, true, false);
        cs_scan_destroy(&ctx, &small);
    } else {
        CHECK(false, "%s", err.msg);
    }
    cs_scan_destroy(&ctx, &scan);
    return test_finish(&ctx);
}
