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
    if (rec->timestamps) {
        VkQueryPoolCreateInfo qinfo = {
            .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
            .queryType = VK_QUERY_TYPE_TIMESTAMP,
            .queryCount = 2 * CS_MAX_PASSES,
        };
        VK_CHECK(vkCreateQueryPool(ctx->device, &qinfo, NULL, &rec->queries));
        cs_name_object(ctx, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)rec->queries, name);
    }
    cs_name_object(ctx, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)rec->cmd, name);
    cs_name_object(ctx, VK_OBJECT_TYPE_FENCE, (uint64_t)rec->fence, name);
}

void cs_recorder_destroy(cs_recorder *rec)
{
    cs_context *ctx = rec->ctx;
    if (!ctx)
        return;
    vkDestroyFence(ctx->device, rec->fence, NULL);
    if (rec->queries)
        vkDestroyQueryPool(ctx->device, rec->queries, NULL);
    vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, &rec->cmd);
    memset(rec, 0, sizeof *rec);
}

void cs_recorder_begin(cs_recorder *rec)
{
    CS_ASSERT(!rec->recording, "cs_recorder_begin while recording");
    VK_CHECK(vkResetCommandBuffer(rec->cmd, 0));
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VK_CHECK(vkBeginCommandBuffer(rec->cmd, &begin));
    if (rec->timestamps)
        vkCmdResetQueryPool(rec->cmd, rec->queries, 0, 2 * CS_MAX_PASSES);
    rec->pass_count = 0;
    rec->recording = true;
}

void cs_recorder_submit_wait(cs_recorder *rec)
{
    CS_ASSERT(rec->recording && !rec->in_pass, "submit outside recording or inside a pass");
    cs_barrier_end_of_submit(rec->cmd);
    VK_CHECK(vkEndCommandBuffer(rec->cmd));
    rec->recording = false;
    double t0 = cs_now_seconds();
    VkSubmitInfo submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &rec->cmd,
    };
    cs_context *ctx = rec->ctx;
    VK_CHECK(vkQueueSubmit(ctx->queue, 1, &submit, rec->fence));
    VK_CHECK(vkWaitForFences(ctx->device, 1, &rec->fence, VK_TRUE, UINT64_MAX));
    VK_CHECK(vkResetFences(ctx->device, 1, &rec->fence));
    rec->submit_wall_ms = (cs_now_seconds() - t0) * 1e3;
    if (!rec->timestamps || rec->pass_count == 0)
        return;
    uint64_t ticks[2 * CS_MAX_PASSES];
    VK_CHECK(vkGetQueryPoolResults(ctx->device, rec->queries, 0, 2 * rec->pass_count, sizeof ticks, ticks,
                                   sizeof ticks[0], VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    double ns_per_tick = ctx->props.limits.timestampPeriod;
    for (uint32_t i = 0; i < rec->pass_count; i++)
        rec->passes[i].ms = (double)(ticks[2 * i + 1] - ticks[2 * i]) * ns_per_tick * 1e-6;
}

void cs_pass_begin(cs_recorder *rec, const char *name)
{
    CS_ASSERT(rec->recording && !rec->in_pass, "pass '%s' begun outside recording or inside a pass", name);
    CS_ASSERT(rec->pass_count < CS_MAX_PASSES, "more than %d passes in one recording", CS_MAX_PASSES);
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
        vkCmdWriteTimestamp2(rec->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, rec->queries, 2 * rec->pass_count);
    rec->in_pass = true;
}

void cs_pass_end(cs_recorder *rec)
{
    CS_ASSERT(rec->in_pass, "cs_pass_end without cs_pass_begin");
    if (rec->timestamps)
        vkCmdWriteTimestamp2(rec->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, rec->queries, 2 * rec->pass_count + 1);
    vkCmdEndDebugUtilsLabelEXT(rec->cmd);
    rec->pass_count++;
    rec->in_pass = false;
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

void cs_dispatch(cs_recorder *rec, const cs_program *prog, const cs_dispatch_desc *desc)
{
    CS_ASSERT(rec->recording, "dispatch of %s outside recording", prog->name);
    const cs_reflection *refl = &prog->reflection;
    CS_ASSERT(desc->push_size == refl->push_constant_size,
              "%s: push constants are %u bytes in the shader but %u given", prog->name,
              refl->push_constant_size, desc->push_size);
    VkWriteDescriptorSet writes[CS_MAX_BINDINGS];
    VkDescriptorBufferInfo infos[CS_MAX_BINDINGS];
    uint32_t write_count = 0;
    for (uint32_t b = 0; b < CS_MAX_BINDINGS; b++) {
        bool used = refl->binding_mask & (1u << b);
        CS_ASSERT(used == (desc->buffers[b] != NULL), "%s: binding %u (%s) %s", prog->name, b,
                  used ? refl->binding_names[b] : "-",
                  used ? "is used by the shader but no buffer was given" : "was given a buffer the shader does not use");
        if (!used)
            continue;
        CS_ASSERT(refl->binding_types[b] == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
                      refl->binding_types[b] == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                  "%s: binding %u is not a buffer", prog->name, b);
        infos[write_count] = (VkDescriptorBufferInfo){.buffer = desc->buffers[b]->buffer, .range = VK_WHOLE_SIZE};
        writes[write_count] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstBinding = b,
            .descriptorCount = 1,
            .descriptorType = refl->binding_types[b],
            .pBufferInfo = &infos[write_count],
        };
        write_count++;
    }

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
    if (write_count)
        vkCmdPushDescriptorSetKHR(rec->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, prog->layout, 0, write_count, writes);
    if (desc->push_size)
        vkCmdPushConstants(rec->cmd, prog->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, desc->push_size, desc->push);
    vkCmdDispatch(rec->cmd, groups[0], groups[1], groups[2]);
}
