// buffer.c — see buffer.h.
#include "buffer.h"

static const char *size_advice(const cs_context *ctx, const char *advice)
{
    return advice ? advice : ctx->size_advice ? ctx->size_advice : CS_BUFFER_ADVICE;
}

static VkDeviceSize largest_heap(const cs_context *ctx)
{
    VkDeviceSize largest = 0;
    for (uint32_t h = 0; h < ctx->memory_props.memoryHeapCount; h++)
        largest = CS_MAX(largest, ctx->memory_props.memoryHeaps[h].size);
    return largest;
}

bool cs_buffer_check_size_advice(const cs_context *ctx, const char *name, VkDeviceSize size, const char *advice,
                                 cs_error *err)
{
    char need[32], have[32];
    VkDeviceSize range = ctx->props.limits.maxStorageBufferRange;
    if (size > range)
        return cs_fail(err, "buffer '%s' needs %s but %s binds at most %s per storage buffer "
                            "(maxStorageBufferRange); %s",
                       name, cs_format_bytes(size, need, sizeof need), ctx->props.deviceName,
                       cs_format_bytes(range, have, sizeof have), size_advice(ctx, advice));
    VkDeviceSize heap = largest_heap(ctx);
    if (ctx->bytes_allocated + size > heap)
        return cs_fail(err, "buffer '%s' needs %s more device memory than %s has (%s in its "
                            "largest heap); %s",
                       name, cs_format_bytes(size, need, sizeof need), ctx->props.deviceName,
                       cs_format_bytes(heap, have, sizeof have), size_advice(ctx, advice));
    return true;
}

bool cs_buffer_check_size(const cs_context *ctx, const char *name, VkDeviceSize size, cs_error *err)
{
    return cs_buffer_check_size_advice(ctx, name, size, NULL, err);
}

// The device's room for c's things, the host's and c->limit, each as a
// count (UINT64_MAX: no limit).
typedef struct count_room {
    uint64_t buffer, heap, host, limit;
} count_room;

static count_room count_rooms(const cs_context *ctx, const cs_count_cost *c)
{
    count_room r = {UINT64_MAX, UINT64_MAX, UINT64_MAX, c->limit ? c->limit : UINT64_MAX};
    VkDeviceSize heap = largest_heap(ctx), used = ctx->bytes_allocated + c->device_extra;
    if (c->buffer_bytes)
        r.buffer = ctx->props.limits.maxStorageBufferRange / c->buffer_bytes;
    if (c->device_bytes)
        r.heap = heap > used ? (heap - used) / c->device_bytes : 0;
    uint64_t host = cs_host_memory_available();
    if (c->host_bytes && host != UINT64_MAX)
        r.host = host / c->host_bytes;
    return r;
}

uint64_t cs_count_fit(const cs_context *ctx, const cs_count_cost *c)
{
    count_room r = count_rooms(ctx, c);
    return CS_MIN(CS_MIN(r.buffer, r.heap), CS_MIN(r.host, r.limit));
}

bool cs_count_check(const cs_context *ctx, const char *cause, const cs_count_cost *c, const char *advice,
                    cs_error *err)
{
    count_room r = count_rooms(ctx, c);
    uint64_t fit = CS_MIN(CS_MIN(r.buffer, r.heap), CS_MIN(r.host, r.limit));
    if (c->count <= fit)
        return true;
    char n[32], each[32], total[32], have[32], fits[32];
    char why[1024] = "";
    size_t at = 0;
    cs_format_count(c->count, n, sizeof n);
    // Every limit the count passes, with its numbers.
    if (c->count > r.buffer)
        at += (size_t)snprintf(why + at, sizeof why - at, "; one buffer of them holds %s x %s = %s, %s binds at most %s "
                               "(maxStorageBufferRange)", n, cs_format_bytes(c->buffer_bytes, each, sizeof each),
                               cs_format_bytes(c->count * c->buffer_bytes, total, sizeof total), ctx->props.deviceName,
                               cs_format_bytes(ctx->props.limits.maxStorageBufferRange, have, sizeof have));
    if (c->count > r.heap && at < sizeof why) {
        char taken[32];
        at += (size_t)snprintf(why + at, sizeof why - at, "; the device needs %s x %s = %s, %s has %s in its largest heap "
                               "(%s already taken)", n, cs_format_bytes(c->device_bytes, each, sizeof each),
                               cs_format_bytes(c->count * c->device_bytes, total, sizeof total), ctx->props.deviceName,
                               cs_format_bytes(largest_heap(ctx), have, sizeof have),
                               cs_format_bytes(ctx->bytes_allocated + c->device_extra, taken, sizeof taken));
    }
    if (c->count > r.host && at < sizeof why)
        at += (size_t)snprintf(why + at, sizeof why - at, "; the host needs %s x %s = %s, %s available "
                               "(/proc/meminfo MemAvailable)", n, cs_format_bytes(c->host_bytes, each, sizeof each),
                               cs_format_bytes(c->count * c->host_bytes, total, sizeof total),
                               cs_format_bytes(cs_host_memory_available(), have, sizeof have));
    if (c->count > r.limit && at < sizeof why)
        snprintf(why + at, sizeof why - at, "; %s allow at most %s", c->limit_why ? c->limit_why : "the device",
                 cs_format_count(r.limit, have, sizeof have));
    return cs_fail(err, "%s gives %s %s, too many%s; at most %s fit: %s", cause, n, c->noun, why,
                   cs_format_count(fit, fits, sizeof fits), advice ? advice : CS_BUFFER_ADVICE);
}

bool cs_buffer_create(cs_context *ctx, const cs_buffer_desc *desc, cs_buffer *buf, cs_error *err)
{
    memset(buf, 0, sizeof *buf);
    snprintf(buf->name, sizeof buf->name, "%s", desc->name ? desc->name : "buffer");
    if (!cs_buffer_check_size_advice(ctx, buf->name, desc->size, desc->advice, err))
        return false;
    buf->size = desc->size;
    // Vulkan has no empty buffers; keep 16 bytes so an empty array still binds.
    buf->alloc_size = CS_MAX(desc->size, (VkDeviceSize)16);
    buf->alloc_size = (buf->alloc_size + 15) & ~(VkDeviceSize)15;

    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = buf->alloc_size,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT | desc->extra_usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VK_CHECK(vkCreateBuffer(ctx->device, &info, NULL, &buf->buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx->device, buf->buffer, &req);
    VkMemoryPropertyFlags flags = desc->host_visible
        ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
        : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    uint32_t type = cs_find_memory_type(ctx, req.memoryTypeBits, flags);
    if (desc->host_visible) {
        // Prefer cached host memory for readback where the device has it.
        uint32_t cached = cs_find_memory_type(ctx, req.memoryTypeBits, flags | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
        if (cached != UINT32_MAX)
            type = cached;
    }
    CS_ASSERT(type != UINT32_MAX, "no memory type for buffer %s", buf->name);
    VkMemoryAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    VkResult r = vkAllocateMemory(ctx->device, &alloc, NULL, &buf->memory);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(ctx->device, buf->buffer, NULL);
        char need[32];
        memset(buf, 0, sizeof *buf);
        return cs_fail(err, "buffer '%s': allocating %s failed (%s); %s", desc->name ? desc->name : "buffer",
                       cs_format_bytes(req.size, need, sizeof need), cs_vk_result_name(r),
                       size_advice(ctx, desc->advice));
    }
    VK_CHECK(vkBindBufferMemory(ctx->device, buf->buffer, buf->memory, 0));
    if (desc->host_visible)
        VK_CHECK(vkMapMemory(ctx->device, buf->memory, 0, VK_WHOLE_SIZE, 0, &buf->mapped));
    ctx->bytes_allocated += req.size;
    cs_name_object(ctx, VK_OBJECT_TYPE_BUFFER, (uint64_t)buf->buffer, buf->name);
    cs_name_object(ctx, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)buf->memory, buf->name);
    return true;
}

void cs_buffer_destroy(cs_context *ctx, cs_buffer *buf)
{
    if (!buf->buffer)
        return;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx->device, buf->buffer, &req);
    ctx->bytes_allocated -= CS_MIN(ctx->bytes_allocated, req.size);
    vkDestroyBuffer(ctx->device, buf->buffer, NULL);
    vkFreeMemory(ctx->device, buf->memory, NULL);
    memset(buf, 0, sizeof *buf);
}

static cs_buffer make_staging(cs_context *ctx, VkDeviceSize size)
{
    cs_buffer staging;
    cs_error err;
    bool ok = cs_buffer_create(ctx, &(cs_buffer_desc){.name = "staging", .size = size, .host_visible = true},
                               &staging, &err);
    CS_ASSERT(ok, "%s", err.msg);
    return staging;
}

void cs_buffer_upload(cs_context *ctx, cs_buffer *buf, const void *data, VkDeviceSize size, VkDeviceSize offset)
{
    if (size == 0)
        return;
    CS_ASSERT(offset + size <= buf->alloc_size, "upload past the end of %s", buf->name);
    if (buf->mapped) {
        memcpy((char *)buf->mapped + offset, data, size);
        return;
    }
    cs_buffer staging = make_staging(ctx, size);
    memcpy(staging.mapped, data, size);
    VkCommandBuffer cmd = cs_one_shot_begin(ctx);
    VkBufferCopy region = {.srcOffset = 0, .dstOffset = offset, .size = size};
    vkCmdCopyBuffer(cmd, staging.buffer, buf->buffer, 1, &region);
    cs_one_shot_end(ctx);
    cs_buffer_destroy(ctx, &staging);
}

void cs_buffer_download(cs_context *ctx, const cs_buffer *buf, void *data, VkDeviceSize size, VkDeviceSize offset)
{
    if (size == 0)
        return;
    CS_ASSERT(offset + size <= buf->alloc_size, "download past the end of %s", buf->name);
    if (buf->mapped) {
        memcpy(data, (const char *)buf->mapped + offset, size);
        return;
    }
    cs_buffer staging = make_staging(ctx, size);
    VkCommandBuffer cmd = cs_one_shot_begin(ctx);
    VkBufferCopy region = {.srcOffset = offset, .dstOffset = 0, .size = size};
    vkCmdCopyBuffer(cmd, buf->buffer, staging.buffer, 1, &region);
    cs_one_shot_end(ctx);
    memcpy(data, staging.mapped, size);
    cs_buffer_destroy(ctx, &staging);
}

bool cs_buffer_create_device(cs_context *ctx, const char *name, VkDeviceSize size, cs_buffer *buf, cs_error *err)
{
    return cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = size > 0 ? size : 16}, buf, err);
}

void cs_buffer_fill(cs_context *ctx, cs_buffer *buf, uint32_t pattern)
{
    VkCommandBuffer cmd = cs_one_shot_begin(ctx);
    vkCmdFillBuffer(cmd, buf->buffer, 0, VK_WHOLE_SIZE, pattern);
    cs_one_shot_end(ctx);
}
