// feature_ui.c — a user interface over everything (cs_render_frame.ui,
// render_ui.h: Dear ImGui's draw data, flattened by host/app/panel/panel.cpp).
// Vertices and indices are copied every frame into host-visible buffers of
// the recorder's frame slot (the GPU may still read the previous frame's),
// the atlas once into its own buffer; each command is one draw of its
// index range under its clip rectangle as the scissor. Drawn last, alpha
// blended, without depth, so the pixels it does not cover keep the scene.
#include "feature.h"
#include "render_ui.h"

#include "../../shaders/render/ui_shared.h"

#include <math.h>

typedef struct ui {
    cs_program_id program;
    cs_buffer vertices[CS_FRAME_SLOTS], indices[CS_FRAME_SLOTS];
    cs_buffer atlas;
    uint64_t atlas_id;
    uint32_t atlas_width, atlas_height;
} ui;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    ui *u = calloc(1, sizeof *u);
    CS_ASSERT(u, "out of memory");
    *state = u;
    cs_program_desc desc = {
        .name = "render ui",
        .vert = "render/ui.vert",
        .frag = "render/ui.frag",
        .graphics = {
            .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
            .alpha_blend = true,
            .cull = VK_CULL_MODE_NONE,
            .depth_compare = VK_COMPARE_OP_ALWAYS,
            .color_format = r->color_format,
            .depth_format = r->depth_format,
        },
    };
    return cs_program_create(r->ctx, &desc, &u->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    ui *u = state;
    cs_program_destroy(r->ctx, &u->program);
    for (uint32_t i = 0; i < CS_FRAME_SLOTS; i++) {
        cs_buffer_destroy(r->ctx, &u->vertices[i]);
        cs_buffer_destroy(r->ctx, &u->indices[i]);
    }
    cs_buffer_destroy(r->ctx, &u->atlas);
    free(u);
}

// A host-visible buffer of at least `size` bytes (grown by half as much
// again). False when the device has no room: the interface is not drawn.
static bool fit(cs_renderer *r, cs_buffer *buf, const char *name, VkDeviceSize size)
{
    if (buf->buffer && buf->size >= size)
        return true;
    cs_buffer_destroy(r->ctx, buf);
    cs_error err;
    if (cs_buffer_create(r->ctx, &(cs_buffer_desc){.name = name, .host_visible = true, .size = size + size / 2},
                         buf, &err))
        return true;
    fprintf(stderr, "cistern: the panel is not drawn: %s\n", err.msg);
    *buf = (cs_buffer){0};
    return false;
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    ui *u = state;
    const cs_render_ui *in = view->frame->ui;
    if (!in || !in->command_count || !in->vertex_count || !in->atlas)
        return;
    if (in->atlas_id != u->atlas_id) {
        // Frames still in flight may sample the atlas being replaced.
        vkDeviceWaitIdle(r->ctx->device);
        VkDeviceSize size = (VkDeviceSize)in->atlas_width * in->atlas_height * 4;
        if (!fit(r, &u->atlas, "ui atlas", size))
            return;
        memcpy(u->atlas.mapped, in->atlas, size);
        u->atlas_id = in->atlas_id;
        u->atlas_width = in->atlas_width, u->atlas_height = in->atlas_height;
    }
    CS_ASSERT(rec->frame_slot < CS_FRAME_SLOTS, "frame slot %u", rec->frame_slot);
    cs_buffer *vertices = &u->vertices[rec->frame_slot], *indices = &u->indices[rec->frame_slot];
    VkDeviceSize vertex_bytes = (VkDeviceSize)in->vertex_count * sizeof *in->vertices;
    VkDeviceSize index_bytes = (VkDeviceSize)in->index_count * sizeof *in->indices;
    if (!fit(r, vertices, "ui vertices", vertex_bytes) || !fit(r, indices, "ui indices", index_bytes))
        return;
    memcpy(vertices->mapped, in->vertices, vertex_bytes);
    memcpy(indices->mapped, in->indices, index_bytes);

    struct cs_render_ui_push push = {
        .target = {(float)view->width, (float)view->height, (float)u->atlas_width, (float)u->atlas_height},
        .modes = {view->flags, 0, 0, 0},
    };
    for (uint32_t c = 0; c < in->command_count; c++) {
        const cs_render_ui_command *cmd = &in->commands[c];
        if (!cmd->count || cmd->first > in->index_count || cmd->count > in->index_count - cmd->first)
            continue;
        // The clip rectangle, in whole pixels inside the target.
        float x0 = fmaxf(cmd->clip[0], 0.0f), y0 = fmaxf(cmd->clip[1], 0.0f);
        float x1 = fminf(cmd->clip[2], (float)view->width), y1 = fminf(cmd->clip[3], (float)view->height);
        if (!(x1 > x0 && y1 > y0))
            continue;
        VkRect2D scissor = {{(int32_t)x0, (int32_t)y0}, {(uint32_t)(x1 - floorf(x0)), (uint32_t)(y1 - floorf(y0))}};
        vkCmdSetScissor(rec->cmd, 0, 1, &scissor);
        push.modes.y = cmd->first;
        cs_draw(rec, u->program, &(cs_draw_desc){.buffers = {vertices, indices, &u->atlas}, .push = &push,
                                                    .push_size = sizeof push, .vertex_count = cmd->count});
    }
    VkRect2D whole = {{0, 0}, {view->width, view->height}};
    vkCmdSetScissor(rec->cmd, 0, 1, &whole);
}

const cs_render_feature cs_feature_ui = {.name = "ui", .create = create, .destroy = destroy, .record = record};
