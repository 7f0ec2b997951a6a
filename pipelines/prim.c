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
static uint32_t sort8_max_subgroups(cs_context *ctx)
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
    uint64_t shared_bytes = (uint64_t)sort8_max_subgroups(ctx) * CS_SORT8_RADIX * 4;
    if (shared_bytes > ctx->props.limits.maxComputeSharedMemorySize)
        return cs_fail(err, "8-bit sort: needs %llu bytes of shared memory, '%s' has %u",
                       (unsigned long long)shared_bytes, ctx->props.deviceName,
                       ctx->props.limits.maxComputeSharedMemorySize);
    return true;
}

// CISTERN_SORT=4|8 forces a digit width (so both paths can be tested and
// timed on one device); otherwise GPUs that can run it take 8 bits (half
// the passes) and CPU devices keep 4 (measured on llvmpipe:
// docs/primitives.md).
static bool choose_digit_bits(cs_context *ctx, uint32_t *digit_bits, cs_error *err)
{
    const char *forced = getenv("CISTERN_SORT");
    if (forced && *forced) {
        if (strcmp(forced, "4") != 0 && strcmp(forced, "8") != 0)
            return cs_fail(err, "CISTERN_SORT=%s: expected 4 or 8 (bits per radix sort pass)", forced);
        *digit_bits = (uint32_t)atoi(forced);
        return true;
    }
    cs_error unused;
    bool cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    *digit_bits = !cpu && cs_sort8_supported(ctx, &unused) ? 8 : 4;
    return true;
}

static bool create_sort_programs(cs_context *ctx, cs_sort *sort, cs_error *err)
{
    if (sort->digit_bits == 4)
        return cs_program_create(ctx, &(cs_program_desc){.path = "prim/sort_histogram.comp"}, &sort->histogram, err) &&
               cs_program_create(ctx, &(cs_program_desc){.path = "prim/sort_scatter.comp"}, &sort->scatter, err);
    char max_subgroups[16];
    snprintf(max_subgroups, sizeof max_subgroups, "%u", sort8_max_subgroups(ctx));
    return cs_program_create(ctx, &(cs_program_desc){.path = "prim/sort8_histogram.comp"}, &sort->histogram, err) &&
           cs_program_create(ctx, &(cs_program_desc){
               .path = "prim/sort8_scatter.comp",
               .defines = {{"SORT8_MAX_SUBGROUPS", max_subgroups}},
           }, &sort->scatter, err);
}

bool cs_sort_create(cs_context *ctx, uint32_t capacity, cs_sort *sort, cs_error *err)
{
    return cs_sort_create_digits(ctx, capacity, 0, sort, err);
}

bool cs_sort_create_digits(cs_context *ctx, uint32_t capacity, uint32_t digit_bits, cs_sort *sort, cs_error *err)
{
    memset(sort, 0, sizeof *sort);
    sort->capacity = capacity;
    if (digit_bits == 0 && !choose_digit_bits(ctx, &digit_bits, err))
        return false;
    if (digit_bits != 4 && digit_bits != 8)
        return cs_fail(err, "sort: %u bits per pass (4 or 8)", digit_bits);
    sort->digit_bits = digit_bits;
    // sort_small.comp (one block, 4-bit) runs on both paths.
    if (!check_subgroups(ctx, "sort", CS_SORT_THREADS, err) || (digit_bits == 8 && !cs_sort8_supported(ctx, err)))
        return false;
    uint32_t radix = digit_bits == 8 ? CS_SORT8_RADIX : CS_SORT_RADIX;
    uint64_t hist_count = (uint64_t)radix * blocks_of(capacity, CS_SORT_BLOCK);
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

void cs_sort_record(cs_recorder *rec, cs_sort *sort, cs_buffer *keys, cs_buffer *values, uint32_t count,
                    uint32_t key_bits)
{
    CS_ASSERT(count <= sort->capacity, "sort of %u elements, capacity %u", count, sort->capacity);
    CS_ASSERT(key_bits <= 32, "sort on %u key bits", key_bits);
    CS_ASSERT(keys->size >= (VkDeviceSize)count * 4 && values->size >= (VkDeviceSize)count * 4,
              "sort of %u elements: %s or %s is smaller", count, keys->name, values->name);
    if (count <= 1 || key_bits == 0) {
        cs_barrier_compute(rec);
        return;
    }
    uint32_t blocks = blocks_of(count, CS_SORT_BLOCK);
    if (blocks == 1 && !cs_sort_force_blocks) {
        struct cs_sort_push push = {.count = count, .block_count = 1, .bits = key_bits};
        cs_dispatch(rec, sort->small, &(cs_dispatch_desc){
            .buffers = {keys, values, &sort->keys_tmp, &sort->values_tmp},
            .push = &push, .push_size = sizeof push,
            .threads = {CS_SORT_THREADS},
        });
        cs_barrier_compute(rec);
        return;
    }
    // Both paths have blocks of 8192 keys in workgroups of 128 invocations.
    _Static_assert(CS_SORT8_BLOCK == CS_SORT_BLOCK && CS_SORT8_THREADS == CS_SORT_THREADS, "one block shape");
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
