// prim.c — see prim.h. The algorithms are described in docs/primitives.md.
#include "prim.h"

// The sort builds its workgroup scans from subgroup arithmetic and ranks
// invocations subgroup by subgroup, which needs full subgroups: the
// workgroup size a multiple of the subgroup size.
static bool check_subgroups(cs_context *ctx, const char *what, uint32_t threads, cs_error *err)
{
    VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &subgroup};
    vkGetPhysicalDeviceProperties2(ctx->physical, &props);
    if (!(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
        !(subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT))
        return cs_fail(err, "%s: device '%s' lacks subgroup arithmetic in compute shaders, which the GPU %s needs",
                       what, ctx->props.deviceName, what);
    if (subgroup.subgroupSize == 0 || threads % subgroup.subgroupSize != 0)
        return cs_fail(err, "%s: workgroups of %u invocations are not whole subgroups of %u on '%s'; change the "
                       "block shape in shaders/prim/prim_shared.h", what, threads, subgroup.subgroupSize,
                       ctx->props.deviceName);
    return true;
}

static bool make_buffer(cs_context *ctx, const char *name, uint64_t elements, cs_buffer *buf, cs_error *err)
{
    // Never empty: a binding needs a buffer even when nothing is read.
    return cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = CS_MAX(elements, 1) * 4}, buf, err);
}

static uint32_t blocks_of(uint32_t count, uint32_t block)
{
    return (uint32_t)CS_DIV_UP((uint64_t)count, (uint64_t)block);
}

// ---------------------------------------------------------------- scan ----

bool cs_scan_create(cs_context *ctx, uint32_t capacity, cs_scan *scan, cs_error *err)
{
    memset(scan, 0, sizeof *scan);
    scan->capacity = capacity;
    bool ok = cs_program_create(ctx, &(cs_program_desc){.path = "prim/scan_sums.comp"}, &scan->sums, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "prim/scan_chunks.comp"}, &scan->chunks, err) &&
              make_buffer(ctx, "scan scratch", 4, &scan->scratch, err);
    // Level l holds one sum per chunk of level l-1, until one chunk is left.
    uint32_t n = capacity;
    for (int l = 0; ok && l < CS_SCAN_MAX_LEVELS && n > CS_SCAN_ITEMS; l++) {
        n = blocks_of(n, CS_SCAN_ITEMS);
        char name[32];
        snprintf(name, sizeof name, "scan sums %d", l);
        ok = make_buffer(ctx, name, n, &scan->block_sums[l], err);
    }
    if (!ok) {
        cs_scan_destroy(ctx, scan);
        return false;
    }
    return true;
}

void cs_scan_destroy(cs_context *ctx, cs_scan *scan)
{
    cs_program_destroy(ctx, &scan->sums);
    cs_program_destroy(ctx, &scan->chunks);
    for (int l = 0; l < CS_SCAN_MAX_LEVELS; l++)
        cs_buffer_destroy(ctx, &scan->block_sums[l]);
    cs_buffer_destroy(ctx, &scan->scratch);
    memset(scan, 0, sizeof *scan);
}

// Scans in[0..count) into out: one chunk is scanned directly; more chunks
// take their sums, scan those one level up (in place), and scan every chunk
// again from its offset.
static void scan_level(cs_recorder *rec, cs_scan *scan, cs_buffer *in, cs_buffer *out, uint32_t count,
                       cs_buffer *total, uint32_t level)
{
    uint32_t chunks = CS_MAX(blocks_of(count, CS_SCAN_ITEMS), 1);
    struct cs_scan_push push = {.count = count, .flags = total ? CS_SCAN_WRITE_TOTAL : 0};
    cs_buffer *offsets = &scan->scratch;
    if (chunks > 1) {
        CS_ASSERT(level < CS_SCAN_MAX_LEVELS && scan->block_sums[level].buffer, "scan of %u elements at level %u",
                  count, level);
        cs_buffer *sums = &scan->block_sums[level];
        cs_dispatch(rec, scan->sums, &(cs_dispatch_desc){
            .buffers = {in, sums},
            .push = &push, .push_size = sizeof push,
            .threads = {chunks},
        });
        cs_barrier_compute(rec);
        scan_level(rec, scan, sums, sums, chunks, NULL, level + 1);
        offsets = sums;
        push.flags |= CS_SCAN_ADD_OFFSETS;
    }
    cs_dispatch(rec, scan->chunks, &(cs_dispatch_desc){
        .buffers = {in, out, offsets, total ? total : &scan->scratch},
        .push = &push, .push_size = sizeof push,
        .threads = {chunks},
    });
    cs_barrier_compute(rec);
}

void cs_scan_record(cs_recorder *rec, cs_scan *scan, cs_buffer *in, cs_buffer *out, uint32_t count, cs_buffer *total)
{
    CS_ASSERT(count <= scan->capacity, "scan of %u elements, capacity %u", count, scan->capacity);
    CS_ASSERT(in->size >= (VkDeviceSize)count * 4 && out->size >= (VkDeviceSize)count * 4,
              "scan of %u elements: %s or %s is smaller", count, in->name, out->name);
    if (count == 0 && !total) {
        cs_barrier_compute(rec);
        return;
    }
    scan_level(rec, scan, in, out, count, total, 0);
}

// ---------------------------------------------------------------- sort ----

// The smallest subgroup a compute workgroup may be split into: with
// Vulkan 1.3 the device says (minSubgroupSize; Intel and AMD vary it per
// pipeline), before that the one size it reports.
static uint32_t smallest_subgroup_size(cs_context *ctx)
{
    VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceSubgroupSizeControlProperties size_control = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    if (ctx->props.apiVersion >= VK_API_VERSION_1_3)
        subgroup.pNext = &size_control;
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &subgroup};
    vkGetPhysicalDeviceProperties2(ctx->physical, &props);
    uint32_t smallest = subgroup.subgroupSize;
    if (size_control.minSubgroupSize != 0)
        smallest = CS_MIN(smallest, size_control.minSubgroupSize);
    return CS_MAX(smallest, 1);
}

// sort8_scatter.comp keeps one row of 256 counters per subgroup in shared
// memory, so the bound comes from the smallest subgroup.
uint32_t cs_sort8_max_subgroups(cs_context *ctx)
{
    return CS_MAX(CS_SORT8_THREADS / smallest_subgroup_size(ctx), 1);
}

bool cs_sort8_supported(cs_context *ctx, cs_error *err)
{
    VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &subgroup};
    vkGetPhysicalDeviceProperties2(ctx->physical, &props);
    VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT;
    if (!(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) || (subgroup.supportedOperations & needed) != needed)
        return cs_fail(err, "8-bit sort: device '%s' lacks subgroup ballots in compute shaders",
                       ctx->props.deviceName);
    // Ballots are uvec4: 128 lanes at most.
    if (subgroup.subgroupSize == 0 || subgroup.subgroupSize > 128 || CS_SORT8_THREADS % subgroup.subgroupSize != 0)
        return cs_fail(err, "8-bit sort: subgroups of %u on '%s' do not divide workgroups of %u",
                       subgroup.subgroupSize, ctx->props.deviceName, CS_SORT8_THREADS);
    uint64_t shared_bytes = (uint64_t)cs_sort8_max_subgroups(ctx) * CS_SORT8_RADIX * 4;
    if (shared_bytes > ctx->props.limits.maxComputeSharedMemorySize)
        return cs_fail(err, "8-bit sort: needs %llu bytes of shared memory, '%s' has %u",
                       (unsigned long long)shared_bytes, ctx->props.deviceName,
                       ctx->props.limits.maxComputeSharedMemorySize);
    return true;
}

static bool sort8_passes_self_test(cs_context *ctx, uint32_t block_keys); // below, with the self-test

// The 8-bit path's keys per block. The bounds: the scatter splits a block
// into equal runs, one per subgroup, down to 128 subgroups of one lane, so
// a power of two of at least 128 keys; the counters are 32-bit and the
// shared memory does not grow with the block, so the top is lavapipe's
// loop budget (about 11 iterations per invocation for every 128 keys of
// the block: 2^20 would pass the 65 535) with a margin, 2^16, where 16 M
// keys are only 256 workgroups anyway.
static bool valid_sort8_block(uint32_t keys)
{
    return keys >= CS_SORT8_BLOCK_MIN && keys <= CS_SORT8_BLOCK_MAX && (keys & (keys - 1)) == 0;
}

// CISTERN_SORT_BLOCK=N forces the 8-bit path's block (to test and time
// both shapes on one device). Otherwise a GPU takes 2048 keys: it needs
// several workgroups per multiprocessor in flight to hide memory latency,
// and 1 M keys (a 1 M-particle grid) in blocks of 2048 are 512 workgroups,
// ~3.9 per SM on a 132-SM H100, where 8192 gave 123, under one per SM.
// Not smaller: every block adds 256 histogram counters (written, scanned,
// read: at 2048 keys ~2.5 B per key and pass against the 24 B a key moves)
// and the scan gets longer. CPU devices keep 8192, the shape measured on
// llvmpipe (docs/primitives.md). Read on every create, so a bad value is
// refused even where the 4-bit path, which ignores it, is taken.
static bool choose_sort8_block(cs_context *ctx, uint32_t *block_keys, cs_error *err)
{
    const char *forced = ctx->settings.sort_block; // CISTERN_SORT_BLOCK
    if (*forced) {
        char *end;
        unsigned long keys = strtoul(forced, &end, 10);
        if (*end != '\0' || keys > UINT32_MAX || !valid_sort8_block((uint32_t)keys))
            return cs_fail(err, "CISTERN_SORT_BLOCK=%s: expected a power of two from %u to %u (keys per block of "
                           "the 8-bit radix sort)", forced, CS_SORT8_BLOCK_MIN, CS_SORT8_BLOCK_MAX);
        *block_keys = (uint32_t)keys;
        return true;
    }
    bool cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    *block_keys = cpu ? CS_SORT8_BLOCK_CPU : CS_SORT8_BLOCK_GPU;
    return true;
}

// CISTERN_SORT=4|8 forces a digit width (so both paths can be tested and
// timed on one device); otherwise GPUs that can run it take 8 bits (half
// the passes) if it passes its self-test with the block it will run, and
// CPU devices keep 4 (measured on llvmpipe: docs/primitives.md).
static bool choose_digit_bits(cs_context *ctx, uint32_t block_keys, uint32_t *digit_bits, cs_error *err)
{
    const char *forced = ctx->settings.sort; // CISTERN_SORT
    if (*forced) {
        if (strcmp(forced, "4") != 0 && strcmp(forced, "8") != 0)
            return cs_fail(err, "CISTERN_SORT=%s: expected 4 or 8 (bits per radix sort pass)", forced);
        *digit_bits = (uint32_t)atoi(forced);
        return true;
    }
    cs_error unused;
    bool cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !cs_sort_choose_as_gpu;
    *digit_bits = !cpu && cs_sort8_supported(ctx, &unused) && sort8_passes_self_test(ctx, block_keys) ? 8 : 4;
    return true;
}

static bool create_sort_programs(cs_context *ctx, cs_sort *sort, cs_error *err)
{
    if (sort->digit_bits == 4)
        return cs_program_create(ctx, &(cs_program_desc){.path = "prim/sort_histogram.comp"}, &sort->histogram, err) &&
               cs_program_create(ctx, &(cs_program_desc){.path = cs_sort_scatter_source(4)}, &sort->scatter, err);
    char max_subgroups[16], block[16];
    snprintf(max_subgroups, sizeof max_subgroups, "%u", cs_sort8_max_subgroups(ctx));
    snprintf(block, sizeof block, "%u", sort->block_keys);
    return cs_program_create(ctx, &(cs_program_desc){
               .path = "prim/sort8_histogram.comp",
               .defines = {{"SORT8_BLOCK", block}},
           }, &sort->histogram, err) &&
           cs_program_create(ctx, &(cs_program_desc){
               .path = cs_sort_scatter_source(8),
               .defines = {{"SORT8_MAX_SUBGROUPS", max_subgroups}, {"SORT8_BLOCK", block}},
           }, &sort->scatter, err);
}

const char *cs_sort_scatter_source(uint32_t digit_bits)
{
    return digit_bits == 8 ? "prim/sort8_scatter.comp" : "prim/sort_scatter.comp";
}

bool cs_sort_choose(cs_context *ctx, uint32_t *digit_bits, uint32_t *block_keys, cs_error *err)
{
    uint32_t block = 0, bits = 0;
    if (!choose_sort8_block(ctx, &block, err) || !choose_digit_bits(ctx, block, &bits, err))
        return false;
    *digit_bits = bits;
    *block_keys = bits == 8 ? block : CS_SORT_BLOCK;
    return true;
}

bool cs_sort_create(cs_context *ctx, uint32_t capacity, cs_sort *sort, cs_error *err)
{
    return cs_sort_create_digits(ctx, capacity, 0, 0, sort, err);
}

bool cs_sort_create_digits(cs_context *ctx, uint32_t capacity, uint32_t digit_bits, uint32_t block_keys,
                           cs_sort *sort, cs_error *err)
{
    memset(sort, 0, sizeof *sort);
    sort->capacity = capacity;
    if (block_keys == 0 && !choose_sort8_block(ctx, &block_keys, err))
        return false;
    if (!valid_sort8_block(block_keys))
        return cs_fail(err, "sort: %u keys per block (a power of two from %u to %u)", block_keys,
                       CS_SORT8_BLOCK_MIN, CS_SORT8_BLOCK_MAX);
    if (digit_bits == 0 && !choose_digit_bits(ctx, block_keys, &digit_bits, err))
        return false;
    if (digit_bits != 4 && digit_bits != 8)
        return cs_fail(err, "sort: %u bits per pass (4 or 8)", digit_bits);
    sort->digit_bits = digit_bits;
    sort->block_keys = digit_bits == 8 ? block_keys : CS_SORT_BLOCK; // the 4-bit path's block is fixed
    // sort_small.comp (one block, 4-bit) runs on both paths.
    if (!check_subgroups(ctx, "sort", CS_SORT_THREADS, err))
        return false;
    if (digit_bits == 8 && !cs_sort8_supported(ctx, err)) {
        if (strcmp(ctx->settings.sort, "8") == 0) { // CISTERN_SORT
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            return cs_fail(err, "%s (CISTERN_SORT=8 asks for it: unset it or set 4)", why);
        }
        return false;
    }
    uint32_t radix = digit_bits == 8 ? CS_SORT8_RADIX : CS_SORT_RADIX;
    uint64_t hist_count = (uint64_t)radix * blocks_of(capacity, sort->block_keys);
    bool ok = create_sort_programs(ctx, sort, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "prim/sort_small.comp"}, &sort->small, err) &&
              make_buffer(ctx, "sort keys tmp", capacity, &sort->keys_tmp, err) &&
              make_buffer(ctx, "sort values tmp", capacity, &sort->values_tmp, err) &&
              make_buffer(ctx, "sort histograms", hist_count, &sort->histograms, err) &&
              cs_scan_create(ctx, (uint32_t)CS_MIN(hist_count, UINT32_MAX), &sort->scan, err);
    if (!ok) {
        cs_sort_destroy(ctx, sort);
        return false;
    }
    return true;
}

void cs_sort_destroy(cs_context *ctx, cs_sort *sort)
{
    cs_program_destroy(ctx, &sort->histogram);
    cs_program_destroy(ctx, &sort->scatter);
    cs_program_destroy(ctx, &sort->small);
    cs_buffer_destroy(ctx, &sort->keys_tmp);
    cs_buffer_destroy(ctx, &sort->values_tmp);
    cs_buffer_destroy(ctx, &sort->histograms);
    cs_scan_destroy(ctx, &sort->scan);
    memset(sort, 0, sizeof *sort);
}

bool cs_sort_force_blocks = false;

// A sort of one block: one dispatch of sort_small.comp (4-bit, on both paths).
static void record_one_block(cs_recorder *rec, cs_sort *sort, cs_buffer *keys, cs_buffer *values, uint32_t count,
                             uint32_t key_bits)
{
    struct cs_sort_push push = {.count = count, .block_count = 1, .bits = key_bits};
    cs_dispatch(rec, sort->small, &(cs_dispatch_desc){
        .buffers = {keys, values, &sort->keys_tmp, &sort->values_tmp},
        .push = &push, .push_size = sizeof push,
        .threads = {CS_SORT_THREADS},
    });
    cs_barrier_compute(rec);
}

// The multi-block passes of the sort's digit width: histogram, scan,
// scatter per pass.
static void record_passes(cs_recorder *rec, cs_sort *sort, cs_buffer *keys, cs_buffer *values, uint32_t count,
                          uint32_t key_bits)
{
    // Both paths run workgroups of 128 invocations, one a block.
    _Static_assert(CS_SORT8_THREADS == CS_SORT_THREADS, "one workgroup size");
    uint32_t blocks = blocks_of(count, sort->block_keys);
    uint32_t digit_bits = sort->digit_bits;
    uint32_t passes = CS_DIV_UP(key_bits, digit_bits);
    cs_buffer *src_keys = keys, *src_values = values;
    cs_buffer *dst_keys = &sort->keys_tmp, *dst_values = &sort->values_tmp;
    for (uint32_t p = 0; p < passes; p++) {
        uint32_t shift = p * digit_bits;
        struct cs_sort_push push = {
            .count = count,
            .block_count = blocks,
            .shift = shift,
            .bits = CS_MIN(digit_bits, key_bits - shift),
        };
        cs_dispatch(rec, sort->histogram, &(cs_dispatch_desc){
            .buffers = {src_keys, &sort->histograms},
            .push = &push, .push_size = sizeof push,
            .threads = {blocks * CS_SORT_THREADS},
        });
        cs_barrier_compute(rec);
        // The 8-bit path's narrower last pass has fewer digits to scan, (1 <<
        // bits) per block; the 4-bit shaders always write all 16.
        uint32_t digits = digit_bits == 8 ? 1u << push.bits : CS_SORT_RADIX;
        cs_scan_record(rec, &sort->scan, &sort->histograms, &sort->histograms, digits * blocks, NULL);
        cs_dispatch(rec, sort->scatter, &(cs_dispatch_desc){
            .buffers = {src_keys, src_values, dst_keys, dst_values, &sort->histograms},
            .push = &push, .push_size = sizeof push,
            .threads = {blocks * CS_SORT_THREADS},
        });
        cs_barrier_compute(rec);
        cs_buffer *k = src_keys, *v = src_values;
        src_keys = dst_keys, src_values = dst_values;
        dst_keys = k, dst_values = v;
    }
    if (src_keys != keys) {
        // An odd number of passes leaves the result in the scratch pair.
        cs_barrier_compute_to_transfer(rec);
        cs_cmd_copy(rec, src_keys, keys, (VkDeviceSize)count * 4);
        cs_cmd_copy(rec, src_values, values, (VkDeviceSize)count * 4);
        cs_barrier_transfer_to_compute(rec);
        cs_barrier_compute(rec);
    }
}

void cs_sort_record(cs_recorder *rec, cs_sort *sort, cs_buffer *keys, cs_buffer *values, uint32_t count,
                    uint32_t key_bits)
{
    CS_ASSERT(count <= sort->capacity, "sort of %u elements, capacity %u", count, sort->capacity);
    CS_ASSERT(key_bits <= 32, "sort on %u key bits", key_bits);
    CS_ASSERT(keys->size >= (VkDeviceSize)count * 4 && values->size >= (VkDeviceSize)count * 4,
              "sort of %u elements: %s or %s is smaller", count, keys->name, values->name);
    if (count <= 1 || key_bits == 0)
        cs_barrier_compute(rec);
    else if (count <= CS_SORT_BLOCK && !cs_sort_force_blocks)
        record_one_block(rec, sort, keys, values, count, key_bits);
    else
        record_passes(rec, sort, keys, values, count, key_bits);
}

// ------------------------------------------------- 8-bit self-test ----

bool cs_sort8_self_test_tamper = false;
bool cs_sort_choose_as_gpu = false;

// What the self-test sorts: the shapes a wrong ballot, rank or subgroup
// order would break. Keys come from a fixed sequence, so every device and
// every run sorts the same ones.
typedef struct self_test_case {
    const char *what;
    uint32_t key_bits;
    uint32_t distinct; // 0: random keys; else keys take this many values (long runs of equal keys)
} self_test_case;

static const self_test_case self_test_cases[] = {
    {"32-bit random keys (4 passes)", 32, 0},
    {"20-bit keys (8 + 8 + 4 bits, bits above carried)", 20, 0},
    {"32-bit keys of 5 values (stability)", 32, 5},
};
#define SELF_TEST_CASES CS_ARRAY_COUNT(self_test_cases)

// A fixed 32-bit sequence (splitmix32's finaliser on a counter).
static uint32_t self_test_random(uint32_t *state)
{
    uint32_t z = (*state += 0x9e3779b9u);
    z = (z ^ (z >> 16)) * 0x85ebca6bu;
    z = (z ^ (z >> 13)) * 0xc2b2ae35u;
    return z ^ (z >> 16);
}

static void self_test_keys(const self_test_case *c, uint32_t *keys, uint32_t n)
{
    uint32_t state = c->key_bits * 1000003u + c->distinct;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = self_test_random(&state);
        // Equal keys differ in every byte from the next value, so every
        // pass sees runs of equal digits.
        keys[i] = c->distinct ? (r % c->distinct) * 0x01010101u : r;
    }
}

typedef struct masked_key {
    uint32_t key;   // the compared bits
    uint32_t index; // input position: the tie-break that makes the order stable
} masked_key;

static int compare_masked_keys(const void *a, const void *b)
{
    const masked_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

// The GPU's result against a CPU stable sort of the same keys (values are
// the input positions).
static bool self_test_check(const self_test_case *c, const uint32_t *input, uint32_t n, const uint32_t *got_keys,
                            const uint32_t *got_values, cs_error *err)
{
    uint32_t mask = c->key_bits >= 32 ? 0xffffffffu : (1u << c->key_bits) - 1u;
    masked_key *order = malloc((size_t)n * sizeof *order);
    if (!order)
        return cs_fail(err, "out of host memory");
    for (uint32_t i = 0; i < n; i++)
        order[i] = (masked_key){input[i] & mask, i};
    qsort(order, n, sizeof *order, compare_masked_keys);
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        uint32_t want = order[i].index;
        if (got_keys[i] != input[want] || got_values[i] != want)
            ok = cs_fail(err, "%s, %u keys: position %u holds (key 0x%08x, value %u), a CPU stable sort puts "
                         "(0x%08x, %u) there", c->what, n, i, got_keys[i], got_values[i], input[want], want);
    }
    free(order);
    return ok;
}

// Every case sorted in one recording, one submit, in host-visible buffers
// the sort reads and writes in place.
static bool self_test_run(cs_context *ctx, cs_sort *sort, uint32_t n, cs_buffer keys[], cs_buffer values[],
                          uint32_t *inputs[], cs_error *err)
{
    for (size_t c = 0; c < SELF_TEST_CASES; c++) {
        self_test_keys(&self_test_cases[c], inputs[c], n);
        memcpy(keys[c].mapped, inputs[c], (size_t)n * 4);
        uint32_t *v = values[c].mapped;
        for (uint32_t i = 0; i < n; i++)
            v[i] = i;
    }
    cs_recorder rec;
    cs_recorder_create(ctx, "sort8 self-test", &rec);
    cs_recorder_begin(&rec);
    cs_pass_begin(&rec, "sort8 self-test");
    for (size_t c = 0; c < SELF_TEST_CASES; c++)
        record_passes(&rec, sort, &keys[c], &values[c], n, self_test_cases[c].key_bits);
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    if (cs_sort8_self_test_tamper) {
        // Two neighbours swapped: what an unstable rank would do.
        uint32_t *v = values[0].mapped, first = v[0];
        v[0] = v[1], v[1] = first;
    }
    for (size_t c = 0; c < SELF_TEST_CASES; c++)
        if (!self_test_check(&self_test_cases[c], inputs[c], n, keys[c].mapped, values[c].mapped, err))
            return false;
    return true;
}

static bool self_test_with_block(cs_context *ctx, uint32_t block_keys, cs_error *err)
{
    // Three whole blocks and a ragged fourth: the multi-block passes, a
    // partial block and partial subgroup runs.
    uint32_t n = 3 * block_keys + 17;
    cs_sort sort;
    if (!cs_sort_create_digits(ctx, n, 8, block_keys, &sort, err))
        return false;
    cs_buffer keys[SELF_TEST_CASES] = {0}, values[SELF_TEST_CASES] = {0};
    uint32_t *inputs[SELF_TEST_CASES] = {0};
    bool ok = true;
    for (size_t c = 0; c < SELF_TEST_CASES && ok; c++) {
        inputs[c] = malloc((size_t)n * 4);
        ok = (inputs[c] || cs_fail(err, "out of host memory")) &&
             cs_buffer_create(ctx, &(cs_buffer_desc){.name = "sort8 self-test keys", .size = (VkDeviceSize)n * 4,
                                                     .host_visible = true}, &keys[c], err) &&
             cs_buffer_create(ctx, &(cs_buffer_desc){.name = "sort8 self-test values", .size = (VkDeviceSize)n * 4,
                                                     .host_visible = true}, &values[c], err);
    }
    ok = ok && self_test_run(ctx, &sort, n, keys, values, inputs, err);
    for (size_t c = 0; c < SELF_TEST_CASES; c++) {
        cs_buffer_destroy(ctx, &keys[c]);
        cs_buffer_destroy(ctx, &values[c]);
        free(inputs[c]);
    }
    cs_sort_destroy(ctx, &sort);
    return ok;
}

bool cs_sort8_self_test(cs_context *ctx, cs_error *err)
{
    uint32_t block_keys = 0;
    return choose_sort8_block(ctx, &block_keys, err) && self_test_with_block(ctx, block_keys, err);
}

// The self-test's verdict, cached in the context (one run per context and
// block size: the cheapest honest key, since a context is one device and
// one driver, and the block is compiled into the shaders). A failure is
// said once, on one line, and the caller takes 4 bits.
static bool sort8_passes_self_test(cs_context *ctx, uint32_t block_keys)
{
    if (ctx->sort8_self_test_block != block_keys) {
        cs_error why;
        ctx->sort8_self_test_passed = self_test_with_block(ctx, block_keys, &why);
        ctx->sort8_self_test_block = block_keys;
        if (!ctx->sort8_self_test_passed)
            fprintf(stderr, "cistern: the 8-bit radix sort (blocks of %u keys) failed its self-test on '%s' (%s); "
                    "using the 4-bit sort; please report this\n", block_keys, ctx->props.deviceName, why.msg);
    }
    return ctx->sort8_self_test_passed;
}

// -------------------------------------------------------------- reduce ----

bool cs_reduce_create(cs_context *ctx, uint32_t capacity, cs_reduce *reduce, cs_error *err)
{
    memset(reduce, 0, sizeof *reduce);
    reduce->capacity = capacity;
    static const struct {
        const char *name, *op;
    } ops[3] = {
        [CS_REDUCE_SUM] = {"prim/reduce.comp (sum)", "CS_REDUCE_OP_SUM"},
        [CS_REDUCE_MIN] = {"prim/reduce.comp (min)", "CS_REDUCE_OP_MIN"},
        [CS_REDUCE_MAX] = {"prim/reduce.comp (max)", "CS_REDUCE_OP_MAX"},
    };
    bool ok = true;
    for (int i = 0; ok && i < 3; i++)
        ok = cs_program_create(ctx, &(cs_program_desc){
            .path = "prim/reduce.comp",
            .name = ops[i].name,
            .defines = {{"REDUCE_OP", ops[i].op}},
        }, &reduce->reduce[i], err);
    uint32_t level1 = blocks_of(capacity, CS_REDUCE_BLOCK);
    ok = ok && make_buffer(ctx, "reduce partials 0", level1, &reduce->partials[0], err) &&
         make_buffer(ctx, "reduce partials 1", blocks_of(level1, CS_REDUCE_BLOCK), &reduce->partials[1], err);
    if (!ok) {
        cs_reduce_destroy(ctx, reduce);
        return false;
    }
    return true;
}

void cs_reduce_destroy(cs_context *ctx, cs_reduce *reduce)
{
    for (int i = 0; i < 3; i++)
        cs_program_destroy(ctx, &reduce->reduce[i]);
    cs_buffer_destroy(ctx, &reduce->partials[0]);
    cs_buffer_destroy(ctx, &reduce->partials[1]);
    memset(reduce, 0, sizeof *reduce);
}

void cs_reduce_record(cs_recorder *rec, cs_reduce *reduce, cs_reduce_op op, cs_buffer *in, uint32_t count,
                      cs_buffer *out, uint32_t out_index)
{
    CS_ASSERT(count <= reduce->capacity, "reduce of %u elements, capacity %u", count, reduce->capacity);
    CS_ASSERT(op >= CS_REDUCE_SUM && op <= CS_REDUCE_MAX, "reduce op %d", (int)op);
    CS_ASSERT(in != out, "reduce into its own input %s", in->name);
    CS_ASSERT(in->size >= (VkDeviceSize)count * 4 && out->size >= ((VkDeviceSize)out_index + 1) * 4,
              "reduce of %u elements into [%u]: %s or %s is smaller", count, out_index, in->name, out->name);
    // Level by level until one block is left; that one writes out[out_index].
    cs_buffer *src = in;
    for (uint32_t level = 0;; level++) {
        uint32_t blocks = CS_MAX(blocks_of(count, CS_REDUCE_BLOCK), 1);
        bool last = blocks == 1;
        cs_buffer *dst = last ? out : &reduce->partials[level & 1];
        struct cs_reduce_push push = {.count = count, .out_index = last ? out_index : 0};
        cs_dispatch(rec, reduce->reduce[op], &(cs_dispatch_desc){
            .buffers = {src, dst},
            .push = &push, .push_size = sizeof push,
            .threads = {blocks * CS_REDUCE_THREADS},
        });
        cs_barrier_compute(rec);
        if (last)
            return;
        src = dst;
        count = blocks;
    }
}

uint32_t cs_reduce_sum_depth(uint32_t count)
{
    // Per level (reduce.comp): ITEMS/4 additions into each of four lanes,
    // two to join the lanes, then pairwise trees over 16 and over 8.
    uint32_t per_level = CS_REDUCE_ITEMS / 4 + 2 + 4 + 3;
    uint32_t levels = 1;
    while (count > CS_REDUCE_BLOCK) {
        count = blocks_of(count, CS_REDUCE_BLOCK);
        levels++;
    }
    return per_level * levels;
}
