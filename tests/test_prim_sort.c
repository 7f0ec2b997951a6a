// test_prim_sort.c — the stable radix sort against a CPU reference (a stable
// counting sort on 16-bit digits, written independently), bit-exact in keys
// and payloads, on BOTH multi-block paths (4-bit and 8-bit digits, made
// with cs_sort_create_digits whatever the device would pick): each must
// equal the reference, so the two equal each other. Payloads are the
// original indices, so any instability or lost element shows. Fresh random
// keys of sizes 0 .. 16,777,219; key_bits 32, 20, 16, 13, 9, 8, 7, 1 and 0
// with random bits above key_bits (they must be ignored by the order and
// carried along; 20 bits on the 8-bit path is 8 + 8 + 4); all-equal,
// sorted, reverse-sorted and few-distinct keys; elements past `count` must
// stay untouched; scratch buffers poisoned before each run. One-block sizes
// also go through the multi-block passes (cs_sort_force_blocks). Checks
// CISTERN_SORT's choice. Prints elements/s for 1M and 16M keys per path.
// The 8-bit path's self-test (cs_sort8_self_test) passes, and fails on a
// result tampered with (cs_sort8_self_test_tamper).
// ctest labels: slow,gpu -- 25 (both digit widths)
#define _POSIX_C_SOURCE 200809L // setenv, strdup
#include "test_util.h"

#include "prim.h"

enum pattern { RANDOM, ALL_EQUAL, SORTED, REVERSE, FEW_DISTINCT };
static const char *pattern_names[] = {"random", "all equal", "sorted", "reverse", "few distinct"};

// Stable sort of the indices 0..n-1 by (keys[i] & mask): LSD counting sort
// with 16-bit digits.
static void cpu_sort(const uint32_t *keys, uint32_t n, uint32_t key_bits, uint32_t *perm)
{
    uint32_t mask = key_bits >= 32 ? 0xffffffffu : (1u << key_bits) - 1u;
    uint32_t *tmp = malloc((size_t)n * 4 + 4);
    uint32_t *count = malloc(65537 * 4);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t shift = 0; shift < key_bits; shift += 16) {
        memset(count, 0, 65537 * 4);
        for (uint32_t i = 0; i < n; i++)
            count[(((keys[i] & mask) >> shift) & 0xffffu) + 1]++;
        for (uint32_t d = 0; d < 65536; d++)
            count[d + 1] += count[d];
        for (uint32_t i = 0; i < n; i++) {
            uint32_t p = perm[i];
            tmp[count[((keys[p] & mask) >> shift) & 0xffffu]++] = p;
        }
        memcpy(perm, tmp, (size_t)n * 4);
    }
    free(tmp);
    free(count);
}

static void make_keys(uint32_t *keys, uint32_t n, uint32_t key_bits, enum pattern pattern)
{
    uint32_t mask = key_bits >= 32 ? 0xffffffffu : (1u << key_bits) - 1u;
    uint32_t same = test_rand_u32(), step = CS_MAX(mask / CS_MAX(n, 1), 1);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = test_rand_u32();
        switch (pattern) {
        case RANDOM: keys[i] = r; break;
        case ALL_EQUAL: keys[i] = (same & mask) | (r & ~mask); break;
        case SORTED: keys[i] = (i * step & mask) | (r & ~mask); break;
        case REVERSE: keys[i] = ((n - 1 - i) * step & mask) | (r & ~mask); break;
        case FEW_DISTINCT: keys[i] = ((r % 5u) * 0x01010101u & mask) | (r & ~mask); break;
        }
    }
}

static void test_sort(cs_context *ctx, cs_sort *sort, uint32_t n, uint32_t key_bits, enum pattern pattern, bool bench)
{
    // The buffers hold a few more elements than are sorted: those must stay.
    const uint32_t tail = 7;
    size_t bytes = (size_t)(n + tail) * 4;
    uint32_t *keys = malloc(bytes), *values = malloc(bytes), *perm = malloc(bytes);
    uint32_t *got_keys = malloc(bytes), *got_values = malloc(bytes);
    make_keys(keys, n + tail, key_bits, pattern);
    for (uint32_t i = 0; i < n + tail; i++)
        values[i] = i;
    cpu_sort(keys, n, key_bits, perm);

    cs_buffer kb, vb;
    test_buffer(ctx, &kb, "sort keys", bytes);
    test_buffer(ctx, &vb, "sort values", bytes);
    double ms = 0;
    int runs = bench ? 2 : 1; // the first run compiles the shaders (lavapipe JIT)
    for (int r = 0; r < runs; r++) {
        cs_buffer_upload(ctx, &kb, keys, bytes, 0);
        cs_buffer_upload(ctx, &vb, values, bytes, 0);
        cs_buffer_fill(ctx, &sort->keys_tmp, CS_POISON_U32);
        cs_buffer_fill(ctx, &sort->values_tmp, CS_POISON_U32);
        cs_buffer_fill(ctx, &sort->histograms, CS_POISON_U32);
        cs_recorder rec;
        cs_recorder_create(ctx, "sort test", &rec);
        cs_recorder_begin(&rec);
        cs_pass_begin(&rec, "sort");
        cs_sort_record(&rec, sort, &kb, &vb, n, key_bits);
        cs_pass_end(&rec);
        cs_recorder_submit_wait(&rec);
        ms = cs_recorder_pass_ms(&rec, "sort");
        cs_recorder_destroy(&rec);
    }
    cs_buffer_download(ctx, &kb, got_keys, bytes, 0);
    cs_buffer_download(ctx, &vb, got_values, bytes, 0);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = perm[i];
        if ((got_keys[i] != keys[p] || got_values[i] != p) && bad++ < 3)
            fprintf(stderr, "  n=%u bits=%u %s: [%u] = (0x%08x, %u), want (0x%08x, %u)\n", n, key_bits,
                    pattern_names[pattern], i, got_keys[i], got_values[i], keys[p], p);
    }
    for (uint32_t i = n; i < n + tail; i++)
        if ((got_keys[i] != keys[i] || got_values[i] != i) && bad++ < 3)
            fprintf(stderr, "  n=%u: element %u past the count was changed\n", n, i);
    CHECK(bad == 0, "sort of %u, %u bits, %s keys: %u elements wrong", n, key_bits, pattern_names[pattern], bad);
    if (bench)
        fprintf(stderr, "sort %9u, %2u bits: %8.3f ms, %7.1f M elements/s\n", n, key_bits, ms, n / (ms * 1e-3) * 1e-6);
    cs_buffer_destroy(ctx, &kb);
    cs_buffer_destroy(ctx, &vb);
    free(keys);
    free(values);
    free(perm);
    free(got_keys);
    free(got_values);
}

// Every check on one sort (one digit width and block size); `big` keys
// too unless it is 0.
static void run_checks(cs_context *ctx, cs_sort *sort, uint32_t big)
{
    fprintf(stderr, "-- %u-bit digits, blocks of %u keys\n", sort->digit_bits, sort->block_keys);
    double t0 = cs_now_seconds();
    // Sizes around a subgroup's row, an invocation's 64 keys, a workgroup's
    // 8192-key block, non-powers of two, and far past it.
    const uint32_t sizes[] = {0, 1, 2, 7, 63, 65, 255, 256, 257, 4093, 8191, 8192, 8193, 24577, 100003, 1000000};
    for (size_t s = 0; s < CS_ARRAY_COUNT(sizes); s++)
        test_sort(ctx, sort, sizes[s], 32, RANDOM, sizes[s] == 1000000);
    // Fewer key bits (odd pass counts end with a copy back; 13, 9, 7 and 1
    // bits end on a narrower digit on one path or both); the 20-bit case is
    // the neighbour grid's shape.
    const uint32_t bits[] = {20, 16, 13, 9, 8, 7, 1, 0};
    for (size_t b = 0; b < CS_ARRAY_COUNT(bits); b++) {
        test_sort(ctx, sort, 4093, bits[b], RANDOM, false);
        test_sort(ctx, sort, 300007, bits[b], RANDOM, false);
    }
    test_sort(ctx, sort, 1000000, 20, RANDOM, true);
    if (big)
        test_sort(ctx, sort, big, 20, RANDOM, true);
    // Patterns that break unstable or order-by-atomics sorts.
    for (enum pattern p = ALL_EQUAL; p <= FEW_DISTINCT; p++) {
        test_sort(ctx, sort, 4093, 32, p, false);
        test_sort(ctx, sort, 300007, 32, p, false);
        test_sort(ctx, sort, 300007, 20, p, false);
    }
    test_sort(ctx, sort, 1, 0, RANDOM, false);
    // One block is one dispatch (sort_small.comp, 4-bit, on both paths);
    // the same sizes through the multi-block passes must agree with the
    // same reference. 3000 keys of 10 bits: double_emitter_2d's grid; 2049
    // and 6161 are one key past one and three 8-bit blocks of 2048.
    const uint32_t one_block[] = {2049, 3000, 6161, 8191, 8192};
    for (int forced = 0; forced < 2; forced++) {
        cs_sort_force_blocks = forced == 1;
        for (size_t s = 0; s < CS_ARRAY_COUNT(one_block); s++) {
            test_sort(ctx, sort, one_block[s], 10, RANDOM, false);
            test_sort(ctx, sort, one_block[s], 11, FEW_DISTINCT, false);
            test_sort(ctx, sort, one_block[s], 32, ALL_EQUAL, false);
        }
    }
    cs_sort_force_blocks = false;
    fprintf(stderr, "%u-bit sort checks took %.1f s\n", sort->digit_bits, cs_now_seconds() - t0);
}

// The 8-bit path's self-test (what cs_sort_create runs before it picks
// that path on a GPU) passes here with both default blocks, and reports a
// result that was tampered with.
static void check_self_test(cs_context *ctx)
{
    char *saved = test_setting_save(ctx, "CISTERN_SORT_BLOCK");
    cs_error err;
    const char *blocks[] = {"2048", "8192"};
    for (size_t b = 0; b < CS_ARRAY_COUNT(blocks); b++) {
        test_setting(ctx, "CISTERN_SORT_BLOCK", blocks[b]);
        double t0 = cs_now_seconds();
        bool passed = cs_sort8_self_test(ctx, &err);
        CHECK(passed, "the 8-bit sort's self-test passes with blocks of %s: %s", blocks[b], passed ? "" : err.msg);
        fprintf(stderr, "8-bit self-test, blocks of %s: %.1f ms (programs, buffers, one submit)\n", blocks[b],
                (cs_now_seconds() - t0) * 1e3);
    }
    test_setting_restore(ctx, "CISTERN_SORT_BLOCK", saved);
    cs_sort8_self_test_tamper = true;
    bool tampered = cs_sort8_self_test(ctx, &err);
    cs_sort8_self_test_tamper = false;
    CHECK(!tampered && strstr(err.msg, "CPU stable sort") != NULL, "a wrong result fails the self-test: %s",
          tampered ? "it passed" : err.msg);
    if (!tampered)
        fprintf(stderr, "tampered self-test says: %s\n", err.msg);

    // The automatic choice as a GPU makes it (cs_sort_choose_as_gpu): 8 bits
    // after a passing self-test, 4 after a failing one (the verdict is
    // cached in the context, so it is cleared between the two).
    char *saved_sort = test_setting_save(ctx, "CISTERN_SORT");
    test_setting(ctx, "CISTERN_SORT", NULL);
    cs_sort_choose_as_gpu = true;
    for (int bad = 0; bad < 2; bad++) {
        ctx->sort8_self_test_block = 0;
        cs_sort8_self_test_tamper = bad;
        cs_sort sort;
        bool made = cs_sort_create(ctx, 20000, &sort, &err);
        CHECK(made, "automatic sort create: %s", made ? "" : err.msg);
        if (made) {
            CHECK(sort.digit_bits == (bad ? 4u : 8u), "a %s self-test should give %u bits, got %u",
                  bad ? "failing" : "passing", bad ? 4u : 8u, sort.digit_bits);
            cs_sort_destroy(ctx, &sort);
        }
    }
    cs_sort8_self_test_tamper = false;
    cs_sort_choose_as_gpu = false;
    ctx->sort8_self_test_block = 0;
    test_setting_restore(ctx, "CISTERN_SORT", saved_sort);
}

// CISTERN_SORT picks the path (and a wrong value is an error, not ignored).
static void check_environment_choice(cs_context *ctx)
{
    char *saved = test_setting_save(ctx, "CISTERN_SORT");
    cs_error err;
    cs_error why_not;
    bool has8 = cs_sort8_supported(ctx, &why_not);
    const char *values[] = {"4", "8"};
    for (int i = 0; i < 2; i++) {
        test_setting(ctx, "CISTERN_SORT", values[i]);
        cs_sort sort;
        bool made = cs_sort_create(ctx, 100, &sort, &err);
        if (i == 1 && !has8) {
            CHECK(!made, "CISTERN_SORT=8 on a device without the 8-bit path is refused");
            continue;
        }
        CHECK(made, "CISTERN_SORT=%s: %s", values[i], made ? "" : err.msg);
        if (made) {
            CHECK(sort.digit_bits == (uint32_t)atoi(values[i]), "CISTERN_SORT=%s gives %u-bit digits", values[i],
                  sort.digit_bits);
            cs_sort_destroy(ctx, &sort);
        }
    }
    test_setting(ctx, "CISTERN_SORT", "5");
    cs_sort bad;
    bool made = cs_sort_create(ctx, 100, &bad, &err);
    CHECK(!made && strstr(err.msg, "CISTERN_SORT") != NULL, "CISTERN_SORT=5 is refused with a message");
    if (made)
        cs_sort_destroy(ctx, &bad);
    test_setting_restore(ctx, "CISTERN_SORT", saved);
    if (!has8)
        fprintf(stderr, "no 8-bit sort on this device: %s\n", why_not.msg);
}

// The 8-bit path's block: the device's default (from the device type it
// reports), CISTERN_SORT_BLOCK's power of two, and a bad value refused with
// the allowed range (on the 4-bit path too, which ignores a good one).
static void check_block_choice(cs_context *ctx)
{
    char *saved_sort = test_setting_save(ctx, "CISTERN_SORT"), *saved_block = test_setting_save(ctx, "CISTERN_SORT_BLOCK");
    cs_error err;
    cs_sort sort;
    test_setting(ctx, "CISTERN_SORT", "8");
    test_setting(ctx, "CISTERN_SORT_BLOCK", NULL);
    uint32_t want = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 8192 : 2048;
    if (cs_sort_create(ctx, 100, &sort, &err)) {
        CHECK(sort.block_keys == want, "default 8-bit block %u, want %u on this device", sort.block_keys, want);
        cs_sort_destroy(ctx, &sort);
    } else
        CHECK(false, "CISTERN_SORT=8: %s", err.msg);
    const char *good[] = {"128", "2048", "65536"};
    for (size_t i = 0; i < CS_ARRAY_COUNT(good); i++) {
        test_setting(ctx, "CISTERN_SORT_BLOCK", good[i]);
        bool made = cs_sort_create(ctx, 100, &sort, &err);
        CHECK(made && sort.block_keys == (uint32_t)atoi(good[i]), "CISTERN_SORT_BLOCK=%s: %s", good[i],
              made ? "wrong block" : err.msg);
        if (made)
            cs_sort_destroy(ctx, &sort);
    }
    const char *bad[] = {"3000", "64", "131072", "0", "2048k", "abc", "-2048", "4294967296"};
    const char *paths[] = {"8", "4"};
    for (size_t p = 0; p < CS_ARRAY_COUNT(paths); p++) {
        test_setting(ctx, "CISTERN_SORT", paths[p]);
        for (size_t i = 0; i < CS_ARRAY_COUNT(bad); i++) {
            test_setting(ctx, "CISTERN_SORT_BLOCK", bad[i]);
            bool made = cs_sort_create(ctx, 100, &sort, &err);
            CHECK(!made && strstr(err.msg, "CISTERN_SORT_BLOCK") && strstr(err.msg, "from 128 to 65536"),
                  "CISTERN_SORT=%s CISTERN_SORT_BLOCK=%s is refused with the range: %s", paths[p], bad[i],
                  made ? "it was taken" : err.msg);
            if (made)
                cs_sort_destroy(ctx, &sort);
        }
    }
    test_setting_restore(ctx, "CISTERN_SORT", saved_sort);
    test_setting_restore(ctx, "CISTERN_SORT_BLOCK", saved_block);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    char device[256];
    fprintf(stderr, "device: %s\n", cs_context_device_string(&ctx, device, sizeof device));

    const uint32_t big = 16777219u;
    cs_error err;
    cs_sort sort;
    // Both paths, whatever this device would choose (CI's lavapipe runs
    // the 8-bit path too), the 8-bit one with both default blocks (GPUs'
    // 2048, CPUs' 8192; the 16 M keys only with one, for time).
    const struct {
        uint32_t digit_bits, block_keys, big;
    } shapes[] = {{4, 0, big}, {8, CS_SORT8_BLOCK_GPU, big}, {8, CS_SORT8_BLOCK_CPU, 0}};
    for (size_t i = 0; i < CS_ARRAY_COUNT(shapes); i++) {
        if (shapes[i].digit_bits == 8 && !cs_sort8_supported(&ctx, &err)) {
            fprintf(stderr, "skipping the 8-bit path: %s\n", err.msg);
            continue;
        }
        if (!cs_sort_create_digits(&ctx, big, shapes[i].digit_bits, shapes[i].block_keys, &sort, &err)) {
            fprintf(stderr, "FAIL: %u-bit sort: %s\n", shapes[i].digit_bits, err.msg);
            return 1;
        }
        run_checks(&ctx, &sort, shapes[i].big);
        cs_sort_destroy(&ctx, &sort);
    }
    if (cs_sort8_supported(&ctx, &err)) {
        check_self_test(&ctx);
        check_block_choice(&ctx);
    }
    check_environment_choice(&ctx);

    // A capacity past the device's buffer range is an error naming the buffer.
    cs_sort huge;
    bool made = cs_sort_create(&ctx, UINT32_MAX, &huge, &err);
    CHECK(!made, "a sort of 2^32-1 elements is refused (scratch past maxStorageBufferRange)");
    if (made)
        cs_sort_destroy(&ctx, &huge);
    else
        CHECK(strstr(err.msg, "sort keys tmp") != NULL, "the message names the buffer: %s", err.msg);
    return test_finish(&ctx);
}
