// test_prim_sort.c — the stable radix sort against a CPU reference (a stable
// counting sort on 16-bit digits, written independently), bit-exact in keys
// and payloads. Payloads are the original indices, so any instability or
// lost element shows. Fresh random keys of sizes 0 .. 16,777,219; key_bits
// 32, 20, 13, 8, 1 and 0 with random bits above key_bits (they must be
// ignored by the order and carried along); all-equal, sorted, reverse-sorted
// and few-distinct keys; elements past `count` must stay untouched; scratch
// buffers poisoned before each run. Prints elements/s for 1M and 16M.
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

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    char device[256];
    fprintf(stderr, "device: %s\n", cs_context_device_string(&ctx, device, sizeof device));

    const uint32_t big = 16777219u;
    cs_sort sort;
    cs_error err;
    if (!cs_sort_create(&ctx, big, &sort, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    double t0 = cs_now_seconds();
    // Sizes around an invocation's 64 keys, a workgroup's 8192-key block,
    // and far past it.
    const uint32_t sizes[] = {0, 1, 2, 63, 65, 255, 256, 257, 4093, 8191, 8192, 8193, 1000000, big};
    for (size_t s = 0; s < CS_ARRAY_COUNT(sizes); s++)
        test_sort(&ctx, &sort, sizes[s], 32, RANDOM, sizes[s] == 1000000 || sizes[s] == big);
    // Fewer key bits (odd pass counts end with a copy back; 13 and 1 bits end
    // on a narrower digit); the 20-bit case is the neighbour grid's shape.
    const uint32_t bits[] = {20, 13, 8, 1, 0};
    for (size_t b = 0; b < CS_ARRAY_COUNT(bits); b++) {
        test_sort(&ctx, &sort, 4093, bits[b], RANDOM, false);
        test_sort(&ctx, &sort, 1000000, bits[b], RANDOM, bits[b] == 20);
    }
    test_sort(&ctx, &sort, big, 20, RANDOM, true);
    // Patterns that break unstable or order-by-atomics sorts.
    for (enum pattern p = ALL_EQUAL; p <= FEW_DISTINCT; p++) {
        test_sort(&ctx, &sort, 4093, 32, p, false);
        test_sort(&ctx, &sort, 1000000, 32, p, false);
        test_sort(&ctx, &sort, 1000000, 20, p, false);
    }
    test_sort(&ctx, &sort, 1, 0, RANDOM, false);
    // One block is one dispatch (sort_small.comp); the same sizes through
    // the multi-block passes (the only path before it) must agree with the
    // same reference. 3000 keys of 10 bits: double_emitter_2d's grid.
    const uint32_t one_block[] = {3000, 8192};
    for (int forced = 0; forced < 2; forced++) {
        cs_sort_force_blocks = forced == 1;
        for (size_t s = 0; s < CS_ARRAY_COUNT(one_block); s++) {
            test_sort(&ctx, &sort, one_block[s], 10, RANDOM, false);
            test_sort(&ctx, &sort, one_block[s], 11, FEW_DISTINCT, false);
        }
    }
    cs_sort_force_blocks = false;
    fprintf(stderr, "sort checks took %.1f s\n", cs_now_seconds() - t0);
    cs_sort_destroy(&ctx, &sort);

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
