// test_prim_reduce.c — the deterministic float reduction against a CPU
// reference: sum within a proven bound of the double-precision sum, min and
// max exact, every result finite, the same bits on a second run, the
// identities for an empty input, out[out_index] written and nothing else.
// Inputs are fresh random floats spanning 2^-10..2^10 in magnitude with both
// signs, of sizes around a quad, a workgroup's 8192-element block and up to
// 16,777,219. Prints elements/s for the 1M and 16M sums.
// ctest labels: quick,gpu -- 2.0
#include "test_util.h"

#include "prim.h"

static const char *op_names[] = {"sum", "min", "max"};

static float reduce_once(cs_context *ctx, cs_reduce *reduce, cs_reduce_op op, cs_buffer *in, uint32_t n,
                         cs_buffer *out, double *ms)
{
    const uint32_t out_index = 2;
    cs_buffer_fill(ctx, out, CS_POISON_U32);
    cs_recorder rec;
    cs_recorder_create(ctx, "reduce test", &rec);
    cs_recorder_begin(&rec);
    cs_pass_begin(&rec, "reduce");
    cs_reduce_record(&rec, reduce, op, in, n, out, out_index);
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    if (ms)
        *ms = cs_recorder_pass_ms(&rec, "reduce");
    cs_recorder_destroy(&rec);
    uint32_t got[4];
    cs_buffer_download(ctx, out, got, sizeof got, 0);
    for (uint32_t i = 0; i < 4; i++)
        if (i != out_index)
            CHECK(got[i] == CS_POISON_U32, "%s of %u wrote out[%u] (0x%08x)", op_names[op], n, i, got[i]);
    float result;
    memcpy(&result, &got[out_index], 4);
    return result;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

// Random floats of both signs, magnitudes 2^-10 .. 2^10.
static float random_float(void)
{
    double m = test_rand_unit() * 2.0 - 1.0;
    return (float)ldexp(m, (int)(test_rand_u32() % 21u) - 10);
}

enum input { MIXED, POSITIVE, ONES };

static void test_size(cs_context *ctx, cs_reduce *reduce, cs_buffer *out, uint32_t n, enum input kind, bool bench)
{
    float *x = malloc((size_t)n * 4 + 4);
    double sum = 0, abs_sum = 0;
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        x[i] = kind == ONES ? 1.0f : kind == POSITIVE ? (float)test_rand_unit() : random_float();
        sum += x[i];
        abs_sum += fabs(x[i]);
        lo = fminf(lo, x[i]);
        hi = fmaxf(hi, x[i]);
    }
    cs_buffer in;
    test_buffer(ctx, &in, "reduce in", (VkDeviceSize)n * 4);
    cs_buffer_upload(ctx, &in, x, (VkDeviceSize)n * 4, 0);

    for (cs_reduce_op op = CS_REDUCE_SUM; op <= CS_REDUCE_MAX; op++) {
        double ms = 0;
        float first = reduce_once(ctx, reduce, op, &in, n, out, &ms);
        float again = reduce_once(ctx, reduce, op, &in, n, out, &ms); // also the timed, warm run
        CHECK(bits_of(first) == bits_of(again), "%s of %u: run 1 gave 0x%08x, run 2 0x%08x", op_names[op], n,
              bits_of(first), bits_of(again));
        if (n == 0) {
            float want = op == CS_REDUCE_SUM ? 0.0f : op == CS_REDUCE_MIN ? INFINITY : -INFINITY;
            CHECK(bits_of(first) == bits_of(want), "%s of nothing: %g, want %g", op_names[op], first, want);
            continue;
        }
        CHECK(!test_not_finite(first), "%s of %u finite floats is %g", op_names[op], n, first);
        if (op == CS_REDUCE_SUM) {
            // Every input passes through at most `depth` float additions, so
            // |float sum - exact sum| <= gamma(depth) * sum|x| (Higham 4.2);
            // the double reference adds at most n * 2^-53 * sum|x| of its own.
            uint32_t depth = cs_reduce_sum_depth(n);
            double u = ldexp(1.0, -24);
            double bound = depth * u / (1.0 - depth * u) * abs_sum + n * ldexp(1.0, -53) * abs_sum;
            double error = fabs((double)first - sum);
            CHECK(error <= bound, "sum of %u: %.9g, reference %.9g, error %.3g > bound %.3g", n, first, sum, error,
                  bound);
            if (kind == ONES)
                CHECK(first == (float)n, "sum of %u ones is %.9g (exact in float up to 2^24)", n, first);
            if (n >= 1000000 && kind != ONES)
                fprintf(stderr, "sum of %u %s: error %.3g of sum|x| (bound %.3g, depth %u)\n", n,
                        kind == MIXED ? "mixed-sign floats" : "floats in [0, 1)", error / abs_sum, bound / abs_sum,
                        depth);
        } else {
            float want = op == CS_REDUCE_MIN ? lo : hi;
            CHECK(first == want, "%s of %u: %.9g, want %.9g", op_names[op], n, first, want);
        }
        if (bench && op == CS_REDUCE_SUM)
            fprintf(stderr, "reduce sum %9u: %8.3f ms, %7.1f M elements/s\n", n, ms, n / (ms * 1e-3) * 1e-6);
    }
    cs_buffer_destroy(ctx, &in);
    free(x);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    char device[256];
    fprintf(stderr, "device: %s\n", cs_context_device_string(&ctx, device, sizeof device));

    const uint32_t big = 16777219u;
    cs_reduce reduce;
    cs_error err;
    if (!cs_reduce_create(&ctx, big, &reduce, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    cs_buffer out;
    test_buffer(&ctx, &out, "reduce out", 16);
    // Around a quad, an invocation's 64 elements, a block of 8192, and past
    // a second level (8192 blocks) at 16M.
    const uint32_t sizes[] = {0, 1, 2, 3, 5, 63, 65, 255, 256, 257, 4093, 8191, 8192, 8193, 1000000, big};
    for (size_t s = 0; s < CS_ARRAY_COUNT(sizes); s++)
        test_size(&ctx, &reduce, &out, sizes[s], MIXED, sizes[s] >= 1000000);
    // Same-sign inputs: no cancellation to hide rounding behind.
    test_size(&ctx, &reduce, &out, 4093, POSITIVE, false);
    test_size(&ctx, &reduce, &out, 1000000, POSITIVE, false);
    test_size(&ctx, &reduce, &out, big, POSITIVE, false);
    test_size(&ctx, &reduce, &out, 1000000, ONES, false);
    cs_buffer_destroy(&ctx, &out);
    cs_reduce_destroy(&ctx, &reduce);
    return test_finish(&ctx);
}
