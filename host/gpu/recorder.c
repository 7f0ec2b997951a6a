// recorder.c — see recorder.h.
#include "recorder.h"

void cs_recorder_create(cs_context *ctx, const char *name, cs_recorder *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->ctx = ctx;
    VkCommandBufferAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = ctx->command_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VK_CHECK(vkAllocateCommandBuffers(ctx->device, &alloc, &rec->cmd));
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(ctx->device, &fence_info, NULL, &rec->fence));
    rec->timestamps = ctx->props.limits.timestampComputeAndGraphics;
    rec->frame_slot = CS_FRAME_SLOT_IMMEDIATE;
    cs_name_object(ctx, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)rec->cmd, name);
    cs_name_object(ctx, VK_OBJECT_TYPE_FENCE, (uint64_t)rec->fence, name);
}

void cs_recorder_destroy(cs_recorder *rec)
{
    cs_context *ctx = rec->ctx;
    if (!ctx)
        return;
    cs_recorder_wait(rec); // a frame still in flight holds the command buffer and the pools
    vkDestroyFence(ctx->device, rec->fence, NULL);
    for (uint32_t i = 0; i < rec->check_page_count; i++)
        cs_buffer_destroy(ctx, &rec->check_pages[i]);
    free(rec->check_pages);
    free(rec->check_dispatches);
    for (uint32_t i = 0; i < rec->pool_count; i++)
        vkDestroyQueryPool(ctx->device, rec->pools[i], NULL);
    free(rec->pools);
    free(rec->passes);
    vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, &rec->cmd);
    memset(rec, 0, sizeof *rec);
}

void cs_recorder_begin(cs_recorder *rec)
{
    CS_ASSERT(!rec->recording, "cs_recorder_begin while recording");
    CS_ASSERT(!rec->pending, "cs_recorder_begin while its last submit is pending (cs_recorder_wait first)");
    VK_CHECK(vkResetCommandBuffer(rec->cmd, 0));
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VK_CHECK(vkBeginCommandBuffer(rec->cmd, &begin));
    rec->pass_count = 0;
    rec->pools_reset = 0;
    rec->check_count = 0;
    rec->submit_wall_ms = 0;
    rec->dispatch_count = rec->barrier_count = 0;
    rec->recording = true;
}

void cs_recorder_resume(cs_recorder *rec)
{
    CS_ASSERT(!rec->recording, "cs_recorder_resume while recording");
    CS_ASSERT(!rec->pending, "cs_recorder_resume while its last submit is pending");
    VK_CHECK(vkResetCommandBuffer(rec->cmd, 0));
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VK_CHECK(vkBeginCommandBuffer(rec->cmd, &begin));
    // pass_count and pools_reset stay: new passes take the next timestamp
    // slots, in pools the earlier submit already reset (a pool not reset
    // yet this frame is reset when its first pass begins), and the earlier
    // passes' results stay readable until their pool is reset again.
    rec->recording = true;
}

// ---------------------------------------------------------------------------
// Checked shaders: one bounds-check record per checked dispatch

static VkDeviceSize check_record_stride(const cs_context *ctx)
{
    VkDeviceSize align = CS_MAX(ctx->props.limits.minStorageBufferOffsetAlignment, (VkDeviceSize)1);
    return CS_DIV_UP((VkDeviceSize)sizeof(cs_check_record), align) * align;
}

static cs_check_record *check_record(cs_recorder *rec, uint32_t k)
{
    cs_buffer *page = &rec->check_pages[k / CS_CHECK_RECORDS_PER_PAGE];
    return (cs_check_record *)((char *)page->mapped +
                               (k % CS_CHECK_RECORDS_PER_PAGE) * check_record_stride(rec->ctx));
}

// Takes the next record for a dispatch of `program` and says where it lies.
static VkDescriptorBufferInfo take_check_record(cs_recorder *rec, cs_program_id program)
{
    cs_context *ctx = rec->ctx;
    uint32_t k = rec->check_count;
    if (k == rec->check_capacity) {
        rec->check_capacity = rec->check_capacity ? 2 * rec->check_capacity : 256;
        rec->check_dispatches = realloc(rec->check_dispatches, rec->check_capacity * sizeof *rec->check_dispatches);
        CS_ASSERT(rec->check_dispatches, "out of memory for %u checked dispatches", rec->check_capacity);
    }
    VkDeviceSize stride = check_record_stride(ctx);
    if (k / CS_CHECK_RECORDS_PER_PAGE == rec->check_page_count) {
        cs_buffer *grown = realloc(rec->check_pages, (rec->check_page_count + 1) * sizeof *grown);
        CS_ASSERT(grown, "out of memory for bounds-check records");
        rec->check_pages = grown;
        cs_buffer_desc desc = {.name = "bounds-check records", .size = CS_CHECK_RECORDS_PER_PAGE * stride,
                               .host_visible = true};
        cs_error err;
        CS_ASSERT(cs_buffer_create(ctx, &desc, &rec->check_pages[rec->check_page_count], &err), "%s", err.msg);
        memset(rec->check_pages[rec->check_page_count].mapped, 0, desc.size);
        rec->check_page_count++;
    }
    rec->check_dispatches[k] = (cs_check_dispatch){program, rec->in_pass ? rec->pass_count : UINT32_MAX};
    rec->check_count++;
    return (VkDescriptorBufferInfo){
        .buffer = rec->check_pages[k / CS_CHECK_RECORDS_PER_PAGE].buffer,
        .offset = (k % CS_CHECK_RECORDS_PER_PAGE) * stride,
        .range = sizeof(cs_check_record),
    };
}

// Messages stop after this many violations (a broken loop would print one
// per frame); the count goes on.
#define CHECK_MESSAGES 20

static void report_violation(cs_recorder *rec, const cs_check_dispatch *d, const cs_check_record *r)
{
    cs_context *ctx = rec->ctx;
    const cs_program *prog = cs_program_get(ctx, d->program);
    const char *pass = d->pass < rec->pass_count ? rec->passes[d->pass].name : "(outside any pass)";
    const cs_check_site *site = r->site < prog->check_site_count ? &prog->check_sites[r->site] : NULL;
    char index[24], bound[40];
    if (r->negative) {
        snprintf(index, sizeof index, "%d", (int32_t)r->index);
        snprintf(bound, sizeof bound, "< 0 (length %u)", r->length);
    } else {
        snprintf(index, sizeof index, "%u", r->index);
        snprintf(bound, sizeof bound, ">= length %u", r->length);
    }
    snprintf(ctx->last_shader_check_message, sizeof ctx->last_shader_check_message,
             "checked shaders: %s (%s) binding %u index %s %s: %s[%s] at %s:%u (invocation %u,%u,%u); "
             "%u out-of-bounds access(es) in this dispatch",
             pass, prog->name, site ? site->binding : 0, index, bound, site ? site->array : "?", index,
             site ? site->file : "?", site ? site->line : 0, r->invocation[0], r->invocation[1], r->invocation[2],
             r->violations);
    if (ctx->shader_check_violations < CHECK_MESSAGES)
        fprintf(stderr, "%s\n", ctx->last_shader_check_message);
    else if (ctx->shader_check_violations == CHECK_MESSAGES)
        fprintf(stderr, "checked shaders: more violations; no more messages\n");
    ctx->shader_check_violations++;
}

// After a submit: reports and clears every record the submit used.
static void read_checks(cs_recorder *rec)
{
    for (uint32_t k = 0; k < rec->check_count; k++) {
        cs_check_record *r = check_record(rec, k);
        if (r->violations == 0)
            continue;
        report_violation(rec, &rec->check_dispatches[k], r);
        memset(r, 0, sizeof *r);
    }
    rec->check_count = 0;
}

void cs_recorder_submit(cs_recorder *rec, const cs_submit_sync *sync)
{
    CS_ASSERT(rec->recording && !rec->in_pass, "submit outside recording or inside a pass");
    cs_barrier_end_of_submit(rec->cmd);
    VK_CHECK(vkEndCommandBuffer(rec->cmd));
    rec->recording = false;
    double t0 = cs_now_seconds();
    VkCommandBufferSubmitInfo cmd_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                          .commandBuffer = rec->cmd};
    VkSemaphoreSubmitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    VkSemaphoreSubmitInfo signal = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                    .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkSubmitInfo2 submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
        .commandBufferInfoCount = 1,
        .pCommandBufferInfos = &cmd_info,
    };
    if (sync && sync->wait) {
        wait.semaphore = sync->wait;
        wait.stageMask = sync->wait_stage;
        submit.waitSemaphoreInfoCount = 1;
        submit.pWaitSemaphoreInfos = &wait;
    }
    if (sync && sync->signal) {
        signal.semaphore = sync->signal;
        submit.signalSemaphoreInfoCount = 1;
        submit.pSignalSemaphoreInfos = &signal;
    }
    cs_context *ctx = rec->ctx;
    VK_CHECK(vkQueueSubmit2(ctx->queue, 1, &submit, rec->fence));
    ctx->queue_submits++;
    rec->pending = true;
    rec->submit_wall_ms += (cs_now_seconds() - t0) * 1e3;
}

bool cs_recorder_done(const cs_recorder *rec)
{
    return !rec->pending || vkGetFenceStatus(rec->ctx->device, rec->fence) == VK_SUCCESS;
}

void cs_recorder_wait(cs_recorder *rec)
{
    if (!rec->pending)
        return;
    cs_context *ctx = rec->ctx;
    double t0 = cs_now_seconds();
    VK_CHECK(vkWaitForFences(ctx->device, 1, &rec->fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(vkResetFences(ctx->device, 1, &rec->fence));
    ctx->fence_waits++;
    rec->pending = false;
    rec->submit_wall_ms += (cs_now_seconds() - t0) * 1e3;
    read_checks(rec);
    if (!rec->timestamps || rec->pass_count == 0)
        return;
    double ns_per_tick = ctx->props.limits.timestampPeriod;
    uint64_t ticks[2 * CS_PASSES_PER_POOL];
    for (uint32_t first = 0; first < rec->pass_count; first += CS_PASSES_PER_POOL) {
        uint32_t n = CS_MIN(rec->pass_count - first, (uint32_t)CS_PASSES_PER_POOL);
        VK_CHECK(vkGetQueryPoolResults(ctx->device, rec->pools[first / CS_PASSES_PER_POOL], 0, 2 * n, sizeof ticks,
                                       ticks, sizeof ticks[0], VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        for (uint32_t i = 0; i < n; i++)
            rec->passes[first + i].ms = (double)(ticks[2 * i + 1] - ticks[2 * i]) * ns_per_tick * 1e-6;
    }
}

void cs_recorder_submit_wait(cs_recorder *rec)
{
    cs_recorder_submit(rec, NULL);
    cs_recorder_wait(rec);
}

// Makes room for one more pass: the timing slot, and the query pool its
// timestamps go to (created when first needed, reset in the recording
// before its first use).
static void reserve_pass(cs_recorder *rec)
{
    if (rec->pass_count == rec->pass_capacity) {
        uint32_t capacity = rec->pass_capacity ? 2 * rec->pass_capacity : 256;
        cs_pass_timing *grown = realloc(rec->passes, capacity * sizeof *grown);
        CS_ASSERT(grown, "out of memory for %u passes", capacity);
        rec->passes = grown;
        rec->pass_capacity = capacity;
    }
    if (!rec->timestamps)
        return;
    uint32_t pool = rec->pass_count / CS_PASSES_PER_POOL;
    if (pool == rec->pool_count) {
        VkQueryPool *grown = realloc(rec->pools, (rec->pool_count + 1) * sizeof *grown);
        CS_ASSERT(grown, "out of memory for query pools");
        rec->pools = grown;
        VkQueryPoolCreateInfo info = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
            .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = 2 * CS_PASSES_PER_POOL,
        };
        VK_CHECK(vkCreateQueryPool(rec->ctx->device, &info, NULL, &rec->pools[rec->pool_count]));
        cs_name_object(rec->ctx, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)rec->pools[rec->pool_count], "pass timestamps");
        rec->pool_count++;
    }
    if (pool == rec->pools_reset) {
        // Resets are recorded outside any rendering; passes never start
        // inside one, so this is the place.
        vkCmdResetQueryPool(rec->cmd, rec->pools[pool], 0, 2 * CS_PASSES_PER_POOL);
        rec->pools_reset++;
    }
}

static void write_timestamp(cs_recorder *rec, uint32_t query)
{
    uint32_t pass = query / 2;
    vkCmdWriteTimestamp2(rec->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, rec->pools[pass / CS_PASSES_PER_POOL],
                         query % (2 * CS_PASSES_PER_POOL));
}

void cs_pass_begin(cs_recorder *rec, const char *name)
{
    CS_ASSERT(rec->recording && !rec->in_pass, "pass '%s' begun outside recording or inside a pass", name);
    reserve_pass(rec);
    cs_pass_timing *pass = &rec->passes[rec->pass_count];
    if (rec->pass_prefix[0])
        snprintf(pass->name, sizeof pass->name, "%s: %s", rec->pass_prefix, name);
    else
        snprintf(pass->name, sizeof pass->name, "%s", name);
    pass->ms = 0;
    VkDebugUtilsLabelEXT label = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
        .pLabelName = pass->name,
        .color = {0.3f, 0.6f, 0.9f, 1.0f},
    };
    vkCmdBeginDebugUtilsLabelEXT(rec->cmd, &label);
    if (rec->timestamps)
        write_timestamp(rec, 2 * rec->pass_count);
    rec->in_pass = true;
}

void cs_pass_end(cs_recorder *rec)
{
    CS_ASSERT(rec->in_pass, "cs_pass_end without cs_pass_begin");
    if (rec->timestamps)
        write_timestamp(rec, 2 * rec->pass_count + 1);
    vkCmdEndDebugUtilsLabelEXT(rec->cmd);
    rec->pass_count++;
    rec->in_pass = false;
    if (rec->after_pass)
        rec->after_pass(rec, rec->passes[rec->pass_count - 1].name, rec->after_pass_user);
}

void cs_label_begin(cs_recorder *rec, const char *name)
{
    VkDebugUtilsLabelEXT label = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT,
        .pLabelName = name,
        .color = {0.6f, 0.6f, 0.6f, 1.0f},
    };
    vkCmdBeginDebugUtilsLabelEXT(rec->cmd, &label);
}

void cs_label_end(cs_recorder *rec)
{
    vkCmdEndDebugUtilsLabelEXT(rec->cmd);
}

double cs_recorder_total_ms(const cs_recorder *rec)
{
    double total = 0;
    for (uint32_t i = 0; i < rec->pass_count; i++)
        total += rec->passes[i].ms;
    return total;
}

double cs_recorder_pass_ms(const cs_recorder *rec, const char *name)
{
    double ms = -1;
    for (uint32_t i = 0; i < rec->pass_count; i++)
        if (strcmp(rec->passes[i].name, name) == 0)
            ms = (ms < 0 ? 0 : ms) + rec->passes[i].ms;
    return ms;
}

uint32_t cs_recorder_pass_sums(const cs_recorder *rec, cs_pass_timing *sums, uint32_t capacity)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < rec->pass_count; p++) {
        const cs_pass_timing *t = &rec->passes[p];
        uint32_t k = 0;
        while (k < n && strcmp(sums[k].name, t->name) != 0)
            k++;
        if (k == n) {
            if (n == capacity)
                continue;
            sums[n++] = (cs_pass_timing){.ms = 0.0};
            memcpy(sums[k].name, t->name, sizeof sums[k].name);
        }
        sums[k].ms += t->ms;
    }
    return n;
}

static void memory_barrier(cs_recorder *rec, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                           VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkMemoryBarrier2 barrier = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = src_stage,
        .srcAccessMask = src_access,
        .dstStageMask = dst_stage,
        .dstAccessMask = dst_access,
    };
    VkDependencyInfo dep = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
        .memoryBarrierCount = 1,
        .pMemoryBarriers = &barrier,
    };
    vkCmdPipelineBarrier2(rec->cmd, &dep);
    rec->barrier_count++;
}

void cs_barrier_compute(cs_recorder *rec)
{
    memory_barrier(rec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT);
}

void cs_barrier_compute_to_graphics(cs_recorder *rec)
{
    memory_barrier(rec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT |
                       VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                   VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT |
                       VK_ACCESS_2_INDEX_READ_BIT | VK_ACCESS_2_SHADER_READ_BIT);
}

void cs_barrier_transfer_to_compute(cs_recorder *rec)
{
    memory_barrier(rec, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT);
}

void cs_barrier_compute_to_transfer(cs_recorder *rec)
{
    memory_barrier(rec, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_SHADER_READ_BIT,
                   VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT);
}

void cs_barrier_all(cs_recorder *rec)
{
    memory_barrier(rec, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
}

void cs_cmd_update(cs_recorder *rec, cs_buffer *buf, const void *data, VkDeviceSize size, VkDeviceSize offset)
{
    CS_ASSERT(size > 0 && size <= 65536 && size % 4 == 0 && offset % 4 == 0 && offset + size <= buf->size,
              "buffer update of %llu bytes at %llu (buffer of %llu)", (unsigned long long)size,
              (unsigned long long)offset, (unsigned long long)buf->size);
    cs_barrier_compute_to_transfer(rec);
    vkCmdUpdateBuffer(rec->cmd, buf->buffer, offset, size, data);
    cs_barrier_transfer_to_compute(rec);
}

void cs_cmd_fill(cs_recorder *rec, cs_buffer *buf, uint32_t value)
{
    vkCmdFillBuffer(rec->cmd, buf->buffer, 0, VK_WHOLE_SIZE, value);
}

void cs_cmd_copy(cs_recorder *rec, cs_buffer *src, cs_buffer *dst, VkDeviceSize size)
{
    if (size == 0)
        return;
    VkBufferCopy region = {.size = size};
    vkCmdCopyBuffer(rec->cmd, src->buffer, dst->buffer, 1, &region);
}

void cs_cmd_copy_range(cs_recorder *rec, cs_buffer *src, VkDeviceSize src_offset, cs_buffer *dst,
                       VkDeviceSize dst_offset, VkDeviceSize size)
{
    if (size == 0)
        return;
    CS_ASSERT(src_offset + size <= src->size && dst_offset + size <= dst->size, "copy of %llu bytes: %s or %s is smaller",
              (unsigned long long)size, src->name, dst->name);
    VkBufferCopy region = {.srcOffset = src_offset, .dstOffset = dst_offset, .size = size};
    vkCmdCopyBuffer(rec->cmd, src->buffer, dst->buffer, 1, &region);
}

static bool is_buffer_type(VkDescriptorType t)
{
    return t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
}

// Checks what the caller binds against the program's reflected interface
// (every used binding given, of the right kind; nothing else) and records
// the push descriptors and push constants.
static void bind_resources(cs_recorder *rec, const cs_program *prog, cs_buffer *const *buffers,
                           const cs_image_binding *images, const void *push, uint32_t push_size,
                           const VkDescriptorBufferInfo *check)
{
    const cs_reflection *refl = &prog->reflection;
    CS_ASSERT(push_size == refl->push_constant_size, "%s: push constants are %u bytes in the shader but %u given",
              prog->name, refl->push_constant_size, push_size);
    VkWriteDescriptorSet writes[CS_MAX_BINDINGS + 1];
    VkDescriptorBufferInfo buffer_infos[CS_MAX_BINDINGS];
    VkDescriptorImageInfo image_infos[CS_MAX_BINDINGS];
    uint32_t write_count = 0;
    for (uint32_t b = 0; b < CS_MAX_BINDINGS; b++) {
        bool used = refl->binding_mask & (1u << b);
        bool has_buffer = buffers[b] != NULL, has_image = images[b].view || images[b].sampler;
        const char *name = used ? refl->binding_names[b] : "-";
        if (!used) {
            CS_ASSERT(!has_buffer && !has_image, "%s: binding %u was given a %s the shader does not use", prog->name,
                      b, has_buffer ? "buffer" : "image");
            continue;
        }
        VkDescriptorType type = refl->binding_types[b];
        writes[write_count] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstBinding = b,
            .descriptorCount = 1,
            .descriptorType = type,
        };
        if (is_buffer_type(type)) {
            CS_ASSERT(has_buffer && !has_image, "%s: binding %u (%s) is a buffer in the shader; give buffers[%u]",
                      prog->name, b, name, b);
            CS_ASSERT(buffers[b]->buffer, "%s: binding %u (%s) was given a buffer that was never created or was "
                                          "destroyed", prog->name, b, name);
            buffer_infos[write_count] = (VkDescriptorBufferInfo){.buffer = buffers[b]->buffer, .range = VK_WHOLE_SIZE};
            writes[write_count].pBufferInfo = &buffer_infos[write_count];
        } else {
            bool wants_view = type != VK_DESCRIPTOR_TYPE_SAMPLER;
            bool wants_sampler = type == VK_DESCRIPTOR_TYPE_SAMPLER || type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
            CS_ASSERT(!has_buffer && (!wants_view || images[b].view) && (!wants_sampler || images[b].sampler),
                      "%s: binding %u (%s) is an image%s in the shader; give images[%u]%s", prog->name, b, name,
                      wants_sampler ? " with a sampler" : "", b, wants_sampler ? " with .sampler" : "");
            CS_ASSERT(!wants_view || images[b].layout != VK_IMAGE_LAYOUT_UNDEFINED,
                      "%s: binding %u (%s): say which layout the image is in", prog->name, b, name);
            image_infos[write_count] = (VkDescriptorImageInfo){
                .sampler = images[b].sampler, .imageView = images[b].view, .imageLayout = images[b].layout};
            writes[write_count].pImageInfo = &image_infos[write_count];
        }
        write_count++;
    }
    if (check)
        writes[write_count++] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstBinding = CS_CHECK_BINDING,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = check,
        };
    if (write_count)
        vkCmdPushDescriptorSetKHR(rec->cmd, prog->bind_point, prog->layout, 0, write_count, writes);
    if (push_size)
        vkCmdPushConstants(rec->cmd, prog->layout, prog->stages, 0, push_size, push);
}

void cs_dispatch(cs_recorder *rec, cs_program_id program, const cs_dispatch_desc *desc)
{
    const cs_program *prog = cs_program_get(rec->ctx, program);
    CS_ASSERT(prog->bind_point == VK_PIPELINE_BIND_POINT_COMPUTE, "%s is not a compute program", prog->name);
    CS_ASSERT(rec->recording, "dispatch of %s outside recording", prog->name);
    const cs_reflection *refl = &prog->reflection;
    uint32_t threads[3] = {desc->threads[0], desc->threads[1] ? desc->threads[1] : 1,
                           desc->threads[2] ? desc->threads[2] : 1};
    uint32_t groups[3];
    for (int a = 0; a < 3; a++)
        groups[a] = (uint32_t)CS_DIV_UP((uint64_t)threads[a], (uint64_t)refl->local_size[a]);
    if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0)
        return; // nothing to do: an empty array
    const uint32_t *limit = rec->ctx->props.limits.maxComputeWorkGroupCount;
    if (groups[0] > limit[0]) {
        CS_ASSERT(groups[1] == 1 && groups[2] == 1, "%s: 2D/3D dispatch too large", prog->name);
        // Fold a long 1D dispatch into a 2D grid of groups; cs_linear_index()
        // undoes it and the shader's bounds check drops the tail.
        uint32_t total = groups[0];
        groups[1] = CS_DIV_UP(total, limit[0]);
        groups[0] = CS_DIV_UP(total, groups[1]);
    }
    vkCmdBindPipeline(rec->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, prog->pipeline);
    VkDescriptorBufferInfo check;
    if (prog->reflection.checked)
        check = take_check_record(rec, program);
    bind_resources(rec, prog, desc->buffers, desc->images, desc->push, desc->push_size,
                   prog->reflection.checked ? &check : NULL);
    vkCmdDispatch(rec->cmd, groups[0], groups[1], groups[2]);
    rec->dispatch_count++;
}

void cs_draw(cs_recorder *rec, cs_program_id program, const cs_draw_desc *desc)
{
    const cs_program *prog = cs_program_get(rec->ctx, program);
    CS_ASSERT(prog->bind_point == VK_PIPELINE_BIND_POINT_GRAPHICS, "%s is not a graphics program", prog->name);
    CS_ASSERT(rec->recording && rec->in_pass, "draw of %s outside a pass", prog->name);
    uint32_t instances = desc->instance_count ? desc->instance_count : 1;
    CS_ASSERT(!(desc->indirect && desc->indices), "%s: an indirect draw cannot also be indexed here", prog->name);
    if (desc->indirect) {
        CS_ASSERT(desc->indirect_offset % 4 == 0, "%s: indirect offset %llu is not a multiple of 4", prog->name,
                  (unsigned long long)desc->indirect_offset);
        CS_ASSERT(desc->indirect->buffer && desc->indirect_offset + sizeof(VkDrawIndirectCommand) <=
                                                  desc->indirect->size,
                  "%s: indirect buffer %s holds no draw command at offset %llu", prog->name, desc->indirect->name,
                  (unsigned long long)desc->indirect_offset);
    } else if (desc->indices) {
        CS_ASSERT(desc->indices->buffer && (uint64_t)desc->index_count * 4 <= desc->indices->size,
                  "%s: index buffer %s holds %llu bytes, %u indices need %llu", prog->name, desc->indices->name,
                  (unsigned long long)desc->indices->size, desc->index_count,
                  (unsigned long long)desc->index_count * 4);
        if (desc->index_count == 0)
            return; // nothing to draw
    } else if (desc->vertex_count == 0) {
        return; // nothing to draw
    }
    vkCmdBindPipeline(rec->cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, prog->pipeline);
    bind_resources(rec, prog, desc->buffers, desc->images, desc->push, desc->push_size, NULL);
    if (desc->indirect) {
        vkCmdDrawIndirect(rec->cmd, desc->indirect->buffer, desc->indirect_offset, 1, sizeof(VkDrawIndirectCommand));
    } else if (desc->indices) {
        vkCmdBindIndexBuffer(rec->cmd, desc->indices->buffer, 0, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexed(rec->cmd, desc->index_count, instances, 0, 0, 0);
    } else {
        vkCmdDraw(rec->cmd, desc->vertex_count, instances, 0, 0);
    }
}

void cs_barrier_image(VkCommandBuffer cmd, const cs_image_barrier *b)
{
    VkImageMemoryBarrier2 barrier = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = b->src_stage,
        .srcAccessMask = b->src_access,
        .dstStageMask = b->dst_stage,
        .dstAccessMask = b->dst_access,
        .oldLayout = b->old_layout,
        .newLayout = b->new_layout,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = b->image,
        .subresourceRange = {b->aspect ? b->aspect : VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
    };
    vkCmdPipelineBarrier2(cmd, &(VkDependencyInfo){.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                                                   .imageMemoryBarrierCount = 1,
                                                   .pImageMemoryBarriers = &barrier});
}
