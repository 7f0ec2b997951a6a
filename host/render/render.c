// render.c — see render.h.
#include "render.h"

#include <errno.h>
#include <math.h>

#include "../../shaders/render/render_shared.h"

// The one translation unit that holds stb_image_write's code.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#endif
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

// ---------------------------------------------------------------------------
// Images

static bool image_create(cs_context *ctx, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect,
                         uint32_t width, uint32_t height, const char *name, cs_image *img, cs_error *err)
{
    memset(img, 0, sizeof *img);
    uint32_t max_dim = ctx->props.limits.maxImageDimension2D;
    if (width == 0 || height == 0 || width > max_dim || height > max_dim)
        return cs_fail(err, "%s: image size %ux%u is not possible on this device (1..%u per side)", name, width,
                       height, max_dim);
    VkImageCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = format,
        .extent = {width, height, 1},
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    VK_CHECK(vkCreateImage(ctx->device, &info, NULL, &img->image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(ctx->device, img->image, &req);
    uint32_t type = cs_find_memory_type(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type == UINT32_MAX)
        type = cs_find_memory_type(ctx, req.memoryTypeBits, 0);
    VkMemoryAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    VkResult res = vkAllocateMemory(ctx->device, &alloc, NULL, &img->memory);
    if (res != VK_SUCCESS) {
        vkDestroyImage(ctx->device, img->image, NULL);
        img->image = VK_NULL_HANDLE;
        return cs_fail(err, "%s: cannot allocate %ux%u image (%s); ask for a smaller size", name, width, height,
                       cs_vk_result_name(res));
    }
    VK_CHECK(vkBindImageMemory(ctx->device, img->image, img->memory, 0));
    VkImageViewCreateInfo view_info = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = img->image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D,
        .format = format,
        .subresourceRange = {aspect, 0, 1, 0, 1},
    };
    VK_CHECK(vkCreateImageView(ctx->device, &view_info, NULL, &img->view));
    cs_name_object(ctx, VK_OBJECT_TYPE_IMAGE, (uint64_t)img->image, name);
    cs_name_object(ctx, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)img->view, name);
    img->format = format;
    img->width = width;
    img->height = height;
    return true;
}

static void image_destroy(cs_context *ctx, cs_image *img)
{
    if (img->view)
        vkDestroyImageView(ctx->device, img->view, NULL);
    if (img->image)
        vkDestroyImage(ctx->device, img->image, NULL);
    if (img->memory)
        vkFreeMemory(ctx->device, img->memory, NULL);
    memset(img, 0, sizeof *img);
}

static void image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkImageLayout old_layout,
                          VkImageLayout new_layout, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                          VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access)
{
    VkImageMemoryBarrier2 barrier = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = src_stage,
        .srcAccessMask = src_access,
        .dstStageMask = dst_stage,
        .dstAccessMask = dst_access,
        .oldLayout = old_layout,
        .newLayout = new_layout,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = image,
        .subresourceRange = {aspect, 0, 1, 0, 1},
    };
    vkCmdPipelineBarrier2(cmd, &(VkDependencyInfo){.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                                                   .imageMemoryBarrierCount = 1,
                                                   .pImageMemoryBarriers = &barrier});
}

static bool format_is_unorm_8bit(VkFormat f)
{
    return f == VK_FORMAT_B8G8R8A8_UNORM || f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_A8B8G8R8_UNORM_PACK32;
}

static VkFormat pick_depth_format(cs_context *ctx)
{
    const VkFormat candidates[] = {VK_FORMAT_D32_SFLOAT, VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D24_UNORM_S8_UINT};
    for (size_t i = 0; i < CS_ARRAY_COUNT(candidates); i++) {
        VkFormatProperties p;
        vkGetPhysicalDeviceFormatProperties(ctx->physical, candidates[i], &p);
        if (p.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)
            return candidates[i];
    }
    return VK_FORMAT_UNDEFINED;
}

// ---------------------------------------------------------------------------
// Pipelines

typedef struct pipeline_kind {
    const char *name;
    const char *vert, *frag;
    VkPrimitiveTopology topology;
    bool depth_test, depth_write;
    VkCompareOp depth_compare;
} pipeline_kind;

// The draws, in the order they are recorded.
static const pipeline_kind k_background = {"render background", "render/background.vert", "render/background.frag",
                                           VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false, false, VK_COMPARE_OP_ALWAYS};
// The field needs no depth: it lies in the plane the box and the 2D
// particles are drawn in, after it, and covers only the background.
static const pipeline_kind k_field = {"render field", "render/field.vert", "render/field.frag",
                                      VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false, false, VK_COMPARE_OP_ALWAYS};
static const pipeline_kind k_box = {"render box", "render/box.vert", "render/box.frag",
                                    VK_PRIMITIVE_TOPOLOGY_LINE_LIST, true, true, VK_COMPARE_OP_LESS_OR_EQUAL};
static const pipeline_kind k_particles = {"render particles", "render/particles.vert", "render/particles.frag",
                                          VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true, true, VK_COMPARE_OP_LESS};

static const pipeline_kind *kind_of(const cs_renderer *r, const cs_render_pipeline *p)
{
    return p == &r->particles ? &k_particles : p == &r->box ? &k_box : p == &r->field ? &k_field : &k_background;
}

static VkShaderModule make_module(cs_context *ctx, const cs_spirv *spirv)
{
    VkShaderModuleCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = spirv->word_count * 4,
        .pCode = spirv->words,
    };
    VkShaderModule module;
    VK_CHECK(vkCreateShaderModule(ctx->device, &info, NULL, &module));
    return module;
}

// Compiles and builds one pipeline into `out`; leaves `out` untouched on failure.
static bool pipeline_build(cs_renderer *r, const pipeline_kind *kind, cs_render_pipeline *out, cs_error *err)
{
    cs_context *ctx = r->ctx;
    cs_spirv vs, fs;
    if (!cs_shader_compile(kind->vert, NULL, 0, &vs, err))
        return false;
    if (!cs_shader_compile(kind->frag, NULL, 0, &fs, err)) {
        cs_spirv_free(&vs);
        return false;
    }
    cs_reflection rv, rf, merged;
    bool ok = cs_spirv_reflect(vs.words, vs.word_count, &rv, err) && cs_spirv_reflect(fs.words, fs.word_count, &rf, err);
    if (ok) {
        merged = rv;
        merged.binding_mask |= rf.binding_mask;
        for (uint32_t b = 0; b < CS_MAX_BINDINGS; b++)
            if (rf.binding_mask & (1u << b)) {
                merged.binding_types[b] = rf.binding_types[b];
                memcpy(merged.binding_names[b], rf.binding_names[b], sizeof merged.binding_names[b]);
            }
        merged.push_constant_size = CS_MAX(rv.push_constant_size, rf.push_constant_size);
        // Hot reload cannot change what the host feeds the shaders.
        if (out->pipeline && (merged.binding_mask != out->reflection.binding_mask ||
                              merged.push_constant_size != out->reflection.push_constant_size))
            ok = cs_fail(err, "%s/%s: bindings or push constants changed (mask %x -> %x, %u -> %u bytes); "
                              "the renderer feeds the old interface, so restart to pick this up",
                         kind->vert, kind->frag, out->reflection.binding_mask, merged.binding_mask,
                         out->reflection.push_constant_size, merged.push_constant_size);
        else if (merged.push_constant_size > ctx->props.limits.maxPushConstantsSize)
            ok = cs_fail(err, "%s: %u bytes of push constants, the device allows %u", kind->vert,
                         merged.push_constant_size, ctx->props.limits.maxPushConstantsSize);
    }
    if (!ok) {
        cs_spirv_free(&vs);
        cs_spirv_free(&fs);
        return false;
    }

    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    cs_create_layout(ctx, &merged, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, &set_layout, &layout);
    VkShaderModule vmod = make_module(ctx, &vs), fmod = make_module(ctx, &fs);
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = vmod, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = fmod, .pName = "main"},
    };
    VkPipelineVertexInputStateCreateInfo vertex_input = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = kind->topology,
    };
    VkPipelineViewportStateCreateInfo viewport = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .scissorCount = 1,
    };
    VkPipelineRasterizationStateCreateInfo raster = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE,
        .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .lineWidth = 1.0f,
    };
    VkPipelineMultisampleStateCreateInfo multisample = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
    };
    VkPipelineDepthStencilStateCreateInfo depth = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = kind->depth_test,
        .depthWriteEnable = kind->depth_write,
        .depthCompareOp = kind->depth_compare,
    };
    VkPipelineColorBlendAttachmentState blend_attachment = {
        .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                          VK_COLOR_COMPONENT_A_BIT,
    };
    VkPipelineColorBlendStateCreateInfo blend = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = 1,
        .pAttachments = &blend_attachment,
    };
    VkDynamicState dynamic_states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
        .dynamicStateCount = CS_ARRAY_COUNT(dynamic_states),
        .pDynamicStates = dynamic_states,
    };
    VkPipelineRenderingCreateInfo rendering = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
        .colorAttachmentCount = 1,
        .pColorAttachmentFormats = &r->color_format,
        .depthAttachmentFormat = r->depth_format,
    };
    VkGraphicsPipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = &rendering,
        .stageCount = 2,
        .pStages = stages,
        .pVertexInputState = &vertex_input,
        .pInputAssemblyState = &assembly,
        .pViewportState = &viewport,
        .pRasterizationState = &raster,
        .pMultisampleState = &multisample,
        .pDepthStencilState = &depth,
        .pColorBlendState = &blend,
        .pDynamicState = &dynamic,
        .layout = layout,
    };
    VkPipeline pipeline;
    VK_CHECK(vkCreateGraphicsPipelines(ctx->device, VK_NULL_HANDLE, 1, &info, NULL, &pipeline));
    vkDestroyShaderModule(ctx->device, vmod, NULL);
    vkDestroyShaderModule(ctx->device, fmod, NULL);
    cs_name_object(ctx, VK_OBJECT_TYPE_PIPELINE, (uint64_t)pipeline, kind->name);
    cs_name_object(ctx, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)layout, kind->name);

    if (out->pipeline) {
        vkDestroyPipeline(ctx->device, out->pipeline, NULL);
        vkDestroyPipelineLayout(ctx->device, out->layout, NULL);
        vkDestroyDescriptorSetLayout(ctx->device, out->set_layout, NULL);
    }
    out->pipeline = pipeline;
    out->layout = layout;
    out->set_layout = set_layout;
    out->reflection = merged;
    out->vert = kind->vert;
    out->frag = kind->frag;
    out->dep_count = 0;
    for (uint32_t i = 0; i < vs.dep_count; i++)
        snprintf(out->deps[out->dep_count++], sizeof out->deps[0], "%s", vs.deps[i]);
    for (uint32_t i = 0; i < fs.dep_count; i++)
        snprintf(out->deps[out->dep_count++], sizeof out->deps[0], "%s", fs.deps[i]);
    cs_spirv_free(&vs);
    cs_spirv_free(&fs);
    return true;
}

static void pipeline_destroy(cs_context *ctx, cs_render_pipeline *p)
{
    if (p->pipeline) {
        vkDestroyPipeline(ctx->device, p->pipeline, NULL);
        vkDestroyPipelineLayout(ctx->device, p->layout, NULL);
        vkDestroyDescriptorSetLayout(ctx->device, p->set_layout, NULL);
    }
    memset(p, 0, sizeof *p);
}

// ---------------------------------------------------------------------------
// Renderer

static bool create_offscreen(cs_renderer *r, uint32_t width, uint32_t height, cs_error *err)
{
    cs_context *ctx = r->ctx;
    if (!image_create(ctx, r->color_format, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                      VK_IMAGE_ASPECT_COLOR_BIT, width, height, "offscreen colour", &r->offscreen, err))
        return false;
    VkDeviceSize bytes = (VkDeviceSize)width * height * 4;
    if (!cs_buffer_create(ctx, &(cs_buffer_desc){.name = "offscreen readback", .size = bytes, .host_visible = true},
                          &r->readback, err))
        return false;
    if (r->readback_depth &&
        !cs_buffer_create(ctx, &(cs_buffer_desc){.name = "depth readback", .size = bytes, .host_visible = true},
                          &r->depth_readback, err))
        return false;
    r->pixels = malloc(bytes);
    r->width = width;
    r->height = height;
    r->offscreen_layout = VK_IMAGE_LAYOUT_UNDEFINED;
    return true;
}

static void destroy_offscreen(cs_renderer *r)
{
    image_destroy(r->ctx, &r->offscreen);
    if (r->readback.buffer)
        cs_buffer_destroy(r->ctx, &r->readback);
    if (r->depth_readback.buffer)
        cs_buffer_destroy(r->ctx, &r->depth_readback);
    free(r->pixels);
    r->pixels = NULL;
    r->width = r->height = 0;
}

bool cs_renderer_create(cs_context *ctx, const cs_renderer_desc *desc, cs_renderer *r, cs_error *err)
{
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->color_format = desc->color_format ? desc->color_format : VK_FORMAT_R8G8B8A8_SRGB;
    r->encode_srgb = format_is_unorm_8bit(r->color_format);
    r->depth_format = pick_depth_format(ctx);
    r->readback_depth = desc->readback_depth;
    if (r->depth_format == VK_FORMAT_UNDEFINED)
        return cs_fail(err, "the device offers no depth attachment format (D32_SFLOAT or D24)");
    if (r->readback_depth && r->depth_format != VK_FORMAT_D32_SFLOAT)
        return cs_fail(err, "depth readback needs D32_SFLOAT depth, which this device lacks");
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(ctx->physical, r->color_format, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT))
        return cs_fail(err, "format %d cannot be drawn into on this device", (int)r->color_format);

    bool ok = pipeline_build(r, &k_background, &r->background, err) && pipeline_build(r, &k_box, &r->box, err) &&
              pipeline_build(r, &k_particles, &r->particles, err) && pipeline_build(r, &k_field, &r->field, err);
    ok = ok && cs_buffer_create(ctx, &(cs_buffer_desc){.name = "material table",
                                                         .size = sizeof r->material_cache},
                                &r->material_table, err);
    ok = ok && cs_buffer_create(ctx, &(cs_buffer_desc){.name = "render dummy", .size = 16}, &r->dummy, err);
    if (ok) {
        cs_buffer_fill(ctx, &r->dummy, 0);
        cs_buffer_fill(ctx, &r->material_table, 0);
    }
    if (ok && desc->width && desc->height)
        ok = create_offscreen(r, desc->width, desc->height, err);
    if (!ok) {
        cs_renderer_destroy(r);
        return false;
    }
    return true;
}

void cs_renderer_destroy(cs_renderer *r)
{
    cs_context *ctx = r->ctx;
    if (!ctx)
        return;
    vkDeviceWaitIdle(ctx->device);
    pipeline_destroy(ctx, &r->particles);
    pipeline_destroy(ctx, &r->field);
    pipeline_destroy(ctx, &r->box);
    pipeline_destroy(ctx, &r->background);
    image_destroy(ctx, &r->depth);
    destroy_offscreen(r);
    if (r->material_table.buffer)
        cs_buffer_destroy(ctx, &r->material_table);
    if (r->dummy.buffer)
        cs_buffer_destroy(ctx, &r->dummy);
    memset(r, 0, sizeof *r);
}

bool cs_renderer_resize(cs_renderer *r, uint32_t width, uint32_t height, cs_error *err)
{
    if (width == r->width && height == r->height && r->offscreen.image)
        return true;
    vkDeviceWaitIdle(r->ctx->device);
    destroy_offscreen(r);
    return create_offscreen(r, width, height, err);
}

const char *cs_color_mode_name(int mode)
{
    switch (mode) {
    case CS_COLOR_MATERIAL: return "material";
    case CS_COLOR_SPEED: return "speed";
    case CS_COLOR_DENSITY: return "density";
    default: return "?";
    }
}

// Uploads the scene's material colours and rest densities when they change
// (a one-shot copy: the previous frame has completed, the current recording
// has not been submitted yet).
static void update_materials(cs_renderer *r, const cs_scene *scene)
{
    float table[CS_MAX_MATERIALS][4] = {{0}};
    uint32_t n = CS_MIN(scene->material_count, (uint32_t)CS_MAX_MATERIALS);
    for (uint32_t m = 0; m < n; m++) {
        for (int c = 0; c < 3; c++)
            table[m][c] = scene->materials[m].color[c];
        table[m][3] = scene->materials[m].rest_density;
    }
    if (n == 0) {
        // No materials: one light blue, so particles still show.
        table[0][0] = 0.2f, table[0][1] = 0.5f, table[0][2] = 0.9f, table[0][3] = 1.0f;
        n = 1;
    }
    if (n == r->material_count && memcmp(table, r->material_cache, sizeof table) == 0)
        return;
    cs_buffer_upload(r->ctx, &r->material_table, table, sizeof table, 0);
    memcpy(r->material_cache, table, sizeof table);
    r->material_count = n;
}

static void ensure_depth(cs_renderer *r, uint32_t width, uint32_t height)
{
    if (r->depth.image && r->depth.width == width && r->depth.height == height)
        return;
    if (r->depth.image) {
        vkDeviceWaitIdle(r->ctx->device);
        image_destroy(r->ctx, &r->depth);
    }
    cs_error err;
    VkImageUsageFlags usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                              (r->readback_depth ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : 0);
    // The target already exists at this size, so the depth image fits too.
    if (!image_create(r->ctx, r->depth_format, usage, VK_IMAGE_ASPECT_DEPTH_BIT, width, height, "depth", &r->depth,
                      &err))
        CS_ASSERT(false, "%s", err.msg);
}

// Radius of the drawn spheres: the frame's, the scene's, half the spacing.
static float particle_radius(const cs_render_frame *f, const cs_view_camera *cam)
{
    if (f->particle_radius > 0)
        return f->particle_radius;
    if (f->scene->render.particle_radius > 0)
        return f->scene->render.particle_radius;
    if (f->scene->particle_spacing > 0)
        return 0.5f * f->scene->particle_spacing;
    return (float)(0.01 * cam->scene_radius);
}

// The speed at the top of the colour map: a fall through the whole domain.
static float speed_scale(const cs_render_frame *f)
{
    if (f->speed_max > 0)
        return f->speed_max;
    const cs_scene *s = f->scene;
    double g = sqrt((double)s->gravity[0] * s->gravity[0] + (double)s->gravity[1] * s->gravity[1] +
                    (double)s->gravity[2] * s->gravity[2]);
    double h = 0;
    for (int i = 0; i < 3; i++)
        h = CS_MAX(h, (double)s->domain_max[i] - s->domain_min[i]);
    double v = sqrt(2.0 * g * h);
    return v > 1e-6 ? (float)v : 1.0f;
}

// The 2D field: the domain rectangle's corners go through the same camera
// matrices as the box and the particles (so the field lands exactly inside
// the box), and the fragment shader picks the cell.
static void record_field(cs_renderer *r, VkCommandBuffer cmd, const cs_render_frame *frame,
                         const cs_camera_matrices *m, const struct cs_render_background_push *bg, uint32_t flags,
                         int mode, float spread, uint32_t target_height)
{
    const cs_field_view *fv = frame->field;
    const cs_scene *scene = frame->scene;
    CS_ASSERT(fv->cells && fv->cells->buffer, "a field view needs its cells buffer");
    CS_ASSERT(fv->stride_floats >= 4, "field stride %u floats; the renderer reads 4 per cell", fv->stride_floats);
    CS_ASSERT(fv->dims[0] > 0 && fv->dims[1] > 0, "field of %u x %u cells", fv->dims[0], fv->dims[1]);
    CS_ASSERT(fv->cells->size >= (VkDeviceSize)fv->dims[0] * fv->dims[1] * fv->stride_floats * 4,
              "field buffer %s holds fewer than %u x %u cells", fv->cells->name, fv->dims[0], fv->dims[1]);
    // Clip position (ortho: w = 1) of a point in the z = 0 plane.
    float clip[3][3];
    const float corners[3][2] = {{scene->domain_min[0], scene->domain_min[1]},
                                 {scene->domain_max[0], scene->domain_min[1]},
                                 {scene->domain_min[0], scene->domain_max[1]}};
    for (int k = 0; k < 3; k++) {
        float v[3];
        for (int row = 0; row < 3; row++)
            v[row] = m->view[row] * corners[k][0] + m->view[4 + row] * corners[k][1] + m->view[12 + row];
        clip[k][0] = m->proj_params[0] * v[0];
        clip[k][1] = m->proj_params[1] * v[1];
        clip[k][2] = m->proj_params[2] * v[2] + m->proj_params[3];
    }
    struct cs_render_field_push push = {
        .corner_edge_x = {clip[0][0], clip[0][1], clip[1][0] - clip[0][0], clip[1][1] - clip[0][1]},
        .edge_y_depth = {clip[2][0] - clip[0][0], clip[2][1] - clip[0][1], CS_MIN(CS_MAX(clip[0][2], 0.0f), 1.0f),
                         speed_scale(frame)},
        .top = {bg->top.x, bg->top.y, bg->top.z, 1.0f - spread},
        .bottom = {bg->bottom.x, bg->bottom.y, bg->bottom.z, 1.0f + spread},
        .modes = {flags, (uint32_t)mode, fv->stride_floats, r->material_count},
        .dims = {fv->dims[0], fv->dims[1], target_height, 0},
    };
    CS_ASSERT(r->field.reflection.binding_mask == 0x3u, "field shader bindings %x, want 0..1",
              r->field.reflection.binding_mask);
    VkDescriptorBufferInfo infos[2] = {
        {.buffer = fv->cells->buffer, .range = VK_WHOLE_SIZE},
        {.buffer = r->material_table.buffer, .range = VK_WHOLE_SIZE},
    };
    VkWriteDescriptorSet writes[2];
    for (uint32_t b = 0; b < 2; b++)
        writes[b] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstBinding = b,
            .descriptorCount = 1,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .pBufferInfo = &infos[b],
        };
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->field.pipeline);
    vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->field.layout, 0, 2, writes);
    vkCmdPushConstants(cmd, r->field.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                       sizeof push, &push);
    vkCmdDraw(cmd, 6, 1, 0, 0);
}

void cs_render_record(cs_renderer *r, cs_recorder *rec, const cs_render_frame *frame)
{
    CS_ASSERT(rec->recording, "cs_render_record outside a recording");
    CS_ASSERT(frame->scene && frame->camera, "cs_render_record needs a scene and a camera");
    const cs_scene *scene = frame->scene;
    cs_render_target target;
    if (frame->target) {
        target = *frame->target;
        CS_ASSERT(target.format == r->color_format, "target format %d, renderer built for %d", (int)target.format,
                  (int)r->color_format);
    } else {
        CS_ASSERT(r->offscreen.image, "no target and no offscreen image (create the renderer with a size)");
        target = (cs_render_target){
            .image = r->offscreen.image,
            .view = r->offscreen.view,
            .format = r->color_format,
            .width = r->width,
            .height = r->height,
            .layout = r->offscreen_layout,
        };
    }
    ensure_depth(r, target.width, target.height);
    update_materials(r, scene);

    cs_camera_matrices m;
    cs_camera_matrices_get(frame->camera, (double)target.width / target.height, &m);
    uint32_t flags = (m.ortho ? CS_RENDER_FLAG_ORTHO : 0) | (r->encode_srgb ? CS_RENDER_FLAG_ENCODE_SRGB : 0);
    vec4 view_rows[3];
    for (int row = 0; row < 3; row++)
        view_rows[row] = (vec4){m.view[row], m.view[4 + row], m.view[8 + row], m.view[12 + row]};
    vec4 proj = {m.proj_params[0], m.proj_params[1], m.proj_params[2], m.proj_params[3]};
    const float *bg = scene->render.background;
    float fog_density = frame->no_fog ? 0.0f : scene->render.fog_density;
    vec4 fog = {bg[0], bg[1], bg[2], fog_density};
    // Fog starts at the near side of the domain's bounding sphere, so its
    // strength does not depend on how far back the camera stands.
    const double *c = frame->camera->scene_center;
    double center_depth = -(view_rows[2].x * c[0] + view_rows[2].y * c[1] + view_rows[2].z * c[2] + view_rows[2].w);
    float fog_start = (float)CS_MAX(center_depth - frame->camera->scene_radius, 0.0);

    int mode = frame->color_mode >= 0 ? frame->color_mode : (int)scene->render.color_mode;
    float spread = frame->density_spread > 0 ? frame->density_spread : 0.1f;
    const cs_particle_view *pv = frame->particles;
    uint32_t count = pv ? pv->count : 0;
    bool draw_particles = pv && (count > 0 || pv->draw_args);

    VkCommandBuffer cmd = rec->cmd;
    cs_pass_begin(rec, "draw");
    // Whatever was in the target is overwritten: start from UNDEFINED. The
    // source stages cover the last frame's drawing and the copies out of it.
    image_barrier(cmd, target.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                  VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                  VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                  VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                  VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT);
    image_barrier(cmd, r->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                  VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                  VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT |
                      VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                  VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                  VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);

    VkRenderingAttachmentInfo color_attachment = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = target.view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .clearValue.color = {{bg[0], bg[1], bg[2], 1.0f}},
    };
    VkRenderingAttachmentInfo depth_attachment = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = r->depth.view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = r->readback_depth ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .clearValue.depthStencil = {1.0f, 0},
    };
    VkRenderingInfo rendering = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {target.width, target.height}},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &color_attachment,
        .pDepthAttachment = &depth_attachment,
    };
    vkCmdBeginRendering(cmd, &rendering);
    VkViewport viewport = {0, 0, (float)target.width, (float)target.height, 0, 1};
    VkRect2D scissor = {{0, 0}, {target.width, target.height}};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);

    // 1. Background gradient.
    struct cs_render_background_push bg_push = {
        .top = {bg[0] * CS_RENDER_BACKGROUND_TOP, bg[1] * CS_RENDER_BACKGROUND_TOP, bg[2] * CS_RENDER_BACKGROUND_TOP, 1},
        .bottom = {bg[0] * CS_RENDER_BACKGROUND_BOTTOM, bg[1] * CS_RENDER_BACKGROUND_BOTTOM,
                   bg[2] * CS_RENDER_BACKGROUND_BOTTOM, 1},
        .modes = {flags, 0, 0, 0},
    };
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->background.pipeline);
    vkCmdPushConstants(cmd, r->background.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                       sizeof bg_push, &bg_push);
    vkCmdDraw(cmd, 3, 1, 0, 0);

    // 2. The field image (2D): over the background, under the box.
    if (frame->field && scene->dim == 2)
        record_field(r, cmd, frame, &m, &bg_push, flags, mode, spread, target.height);

    // 3. Domain box.
    if (!frame->hide_box) {
        struct cs_render_box_push box_push = {
            .view_x = view_rows[0], .view_y = view_rows[1], .view_z = view_rows[2],
            .proj = proj,
            .fog = fog,
            .box_min = {scene->domain_min[0], scene->domain_min[1], scene->dim == 2 ? 0 : scene->domain_min[2], 0},
            .box_max = {scene->domain_max[0], scene->domain_max[1], scene->dim == 2 ? 0 : scene->domain_max[2], 0},
            .misc = {fog_start, (float)flags, 0, 0},
        };
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->box.pipeline);
        vkCmdPushConstants(cmd, r->box.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                           sizeof box_push, &box_push);
        vkCmdDraw(cmd, 24, 1, 0, 0);
    }

    // 4. Particles, pulled from the solver's buffers: 6 vertices each.
    if (draw_particles) {
        cs_buffer *buffers[5] = {pv->positions, pv->velocities, pv->densities, pv->materials, &r->material_table};
        VkDescriptorBufferInfo infos[5];
        VkWriteDescriptorSet writes[5];
        for (uint32_t b = 0; b < 5; b++) {
            cs_buffer *buf = buffers[b] && buffers[b]->buffer ? buffers[b] : &r->dummy;
            infos[b] = (VkDescriptorBufferInfo){.buffer = buf->buffer, .range = VK_WHOLE_SIZE};
            writes[b] = (VkWriteDescriptorSet){
                .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                .dstBinding = b,
                .descriptorCount = 1,
                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                .pBufferInfo = &infos[b],
            };
        }
        CS_ASSERT(r->particles.reflection.binding_mask == 0x1fu, "particles shader bindings %x, want 0..4",
                  r->particles.reflection.binding_mask);
        CS_ASSERT(pv->positions && pv->materials, "a particle view needs positions and materials");
        // A missing velocity or density buffer reads as the dummy: fall back
        // to material colours rather than read past its end.
        if ((mode == CS_COLOR_SPEED && !pv->velocities) || (mode == CS_COLOR_DENSITY && !pv->densities))
            mode = CS_COLOR_MATERIAL;
        struct cs_render_particles_push push = {
            .view_x = view_rows[0], .view_y = view_rows[1], .view_z = view_rows[2],
            .proj = proj,
            .fog = fog,
            .params = {particle_radius(frame, frame->camera), speed_scale(frame), 1.0f - spread, 1.0f + spread},
            .modes = {flags, (uint32_t)mode, count, r->material_count},
            .misc = {fog_start, 0, 0, 0},
        };
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->particles.pipeline);
        vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->particles.layout, 0, 5, writes);
        vkCmdPushConstants(cmd, r->particles.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                           sizeof push, &push);
        CS_ASSERT(count <= UINT32_MAX / 6, "too many particles to draw: %u", count);
        if (pv->draw_args)
            vkCmdDrawIndirect(cmd, pv->draw_args->buffer, 0, 1, sizeof(VkDrawIndirectCommand));
        else
            vkCmdDraw(cmd, 6 * count, 1, 0, 0);
    }
    vkCmdEndRendering(cmd);
    cs_pass_end(rec);
    if (!frame->target)
        r->offscreen_layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
}

void cs_render_record_readback(cs_renderer *r, cs_recorder *rec)
{
    CS_ASSERT(r->offscreen.image && r->offscreen_layout == VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
              "cs_render_record_readback without an offscreen draw before it");
    VkCommandBuffer cmd = rec->cmd;
    cs_pass_begin(rec, "readback");
    image_barrier(cmd, r->offscreen.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                  VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    VkBufferImageCopy region = {
        .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .imageExtent = {r->width, r->height, 1},
    };
    vkCmdCopyImageToBuffer(cmd, r->offscreen.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->readback.buffer, 1,
                           &region);
    if (r->readback_depth) {
        image_barrier(cmd, r->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                      VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                      VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                      VK_ACCESS_2_TRANSFER_READ_BIT);
        region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
        vkCmdCopyImageToBuffer(cmd, r->depth.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->depth_readback.buffer, 1,
                               &region);
    }
    cs_pass_end(rec);
    r->offscreen_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
}

const uint8_t *cs_render_pixels(cs_renderer *r)
{
    if (!r->pixels)
        return NULL;
    size_t n = (size_t)r->width * r->height;
    const uint8_t *src = r->readback.mapped;
    memcpy(r->pixels, src, n * 4);
    if (r->color_format == VK_FORMAT_B8G8R8A8_SRGB || r->color_format == VK_FORMAT_B8G8R8A8_UNORM)
        for (size_t i = 0; i < n; i++) {
            r->pixels[4 * i + 0] = src[4 * i + 2];
            r->pixels[4 * i + 2] = src[4 * i + 0];
        }
    return r->pixels;
}

const float *cs_render_depths(cs_renderer *r)
{
    return r->readback_depth ? r->depth_readback.mapped : NULL;
}

bool cs_renderer_reload(cs_renderer *r, const char *path, bool *changed, cs_error *err)
{
    *changed = false;
    cs_render_pipeline *all[4] = {&r->background, &r->box, &r->particles, &r->field};
    for (int i = 0; i < 4; i++) {
        cs_render_pipeline *p = all[i];
        bool uses = false;
        for (uint32_t d = 0; d < p->dep_count && !uses; d++)
            uses = strcmp(p->deps[d], path) == 0;
        if (!uses)
            continue;
        vkDeviceWaitIdle(r->ctx->device);
        if (!pipeline_build(r, kind_of(r, p), p, err))
            return false;
        *changed = true;
    }
    return true;
}

bool cs_write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba, cs_error *err)
{
    if (!rgba || width == 0 || height == 0)
        return cs_fail(err, "%s: nothing to write (image %ux%u)", path, width, height);
    errno = 0;
    if (!stbi_write_png(path, (int)width, (int)height, 4, rgba, (int)width * 4))
        return cs_fail(err, "%s: cannot write PNG: %s; check that the folder exists and is writable", path,
                       errno ? strerror(errno) : "write failed");
    return true;
}
