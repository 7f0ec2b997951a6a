// water_ssf.c — see water_ssf.h.
#include "water_ssf.h"

#include <math.h>

static bool program(cs_renderer *r, const char *name, const char *vert, const char *frag, VkFormat color,
                    bool depth_test, bool additive, cs_program_id *out, cs_error *err)
{
    cs_program_desc desc = {
        .name = name,
        .vert = vert,
        .frag = frag,
        .graphics =
            {
                .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                .depth_test = depth_test,
                .depth_write = depth_test,
                .depth_compare = depth_test ? VK_COMPARE_OP_LESS : VK_COMPARE_OP_ALWAYS,
                .additive_blend = additive,
                .cull = VK_CULL_MODE_NONE,
                .color_format = color,
                .depth_format = depth_test ? r->depth_format : VK_FORMAT_UNDEFINED,
            },
    };
    return cs_program_create(r->ctx, &desc, out, err);
}

static bool format_has(cs_context *ctx, VkFormat f, VkFormatFeatureFlags want)
{
    VkFormatProperties p;
    vkGetPhysicalDeviceFormatProperties(ctx->physical, f, &p);
    return (p.optimalTilingFeatures & want) == want;
}

bool cs_water_ssf_create(cs_renderer *r, cs_water_ssf *s, cs_error *err)
{
    memset(s, 0, sizeof *s);
    const VkFormatFeatureFlags drawn = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    const VkFormatFeatureFlags summed = drawn | VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT;
    s->thickness_format = format_has(r->ctx, VK_FORMAT_R32_SFLOAT, summed)   ? VK_FORMAT_R32_SFLOAT
                          : format_has(r->ctx, VK_FORMAT_R16_SFLOAT, summed) ? VK_FORMAT_R16_SFLOAT
                                                                             : VK_FORMAT_UNDEFINED;
    s->supported = r->can_read_scene && format_has(r->ctx, VK_FORMAT_R32_SFLOAT, drawn) &&
                   s->thickness_format != VK_FORMAT_UNDEFINED;
    r->can_splat_water = s->supported;
    if (!s->supported)
        return true;
    // The renderer's depth format in its scene copy (and here) is the splat's depth buffer too.
    return program(r, "render water splat depth", "render/ssf_sphere.vert", "render/ssf_depth.frag",
                   VK_FORMAT_R32_SFLOAT, true, false, &s->depth, err) &&
           program(r, "render water splat thickness", "render/ssf_sphere.vert", "render/ssf_thick.frag",
                   s->thickness_format, false, true, &s->thickness, err) &&
           program(r, "render water smooth", "render/composite.vert", "render/ssf_smooth.frag", VK_FORMAT_R32_SFLOAT,
                   false, false, &s->smooth, err) &&
           program(r, "render water smooth thickness", "render/composite.vert", "render/ssf_smooth.frag",
                   s->thickness_format, false, false, &s->smooth_thickness, err) &&
           cs_render_program(r, "render water particles", "render/composite.vert", "render/ssf_shade.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true, true, VK_COMPARE_OP_LESS, VK_CULL_MODE_NONE,
                             &s->shade, err);
}

static void destroy_images(cs_renderer *r, cs_water_ssf *s)
{
    cs_image_destroy(r->ctx, &s->splat_depth);
    cs_image_destroy(r->ctx, &s->splat_zbuf);
    cs_image_destroy(r->ctx, &s->splat_thickness);
    cs_image_destroy(r->ctx, &s->smoothed);
    cs_image_destroy(r->ctx, &s->smoothed_x);
    cs_image_destroy(r->ctx, &s->thickness_x);
    cs_image_destroy(r->ctx, &s->blurred);
}

void cs_water_ssf_destroy(cs_renderer *r, cs_water_ssf *s)
{
    cs_program_destroy(r->ctx, &s->depth);
    cs_program_destroy(r->ctx, &s->thickness);
    cs_program_destroy(r->ctx, &s->smooth);
    cs_program_destroy(r->ctx, &s->smooth_thickness);
    cs_program_destroy(r->ctx, &s->shade);
    destroy_images(r, s);
}

bool cs_water_ssf_draws(const cs_renderer *r, const cs_particle_view *pv)
{
    return r->can_splat_water && pv->water && pv->count > 0 && !pv->draw_args && pv->smoke.radius <= 0.0f &&
           pv->positions;
}

static void ensure_images(cs_renderer *r, cs_water_ssf *s, uint32_t width, uint32_t height)
{
    if (s->smoothed.image && s->smoothed.width == width && s->smoothed.height == height)
        return;
    if (s->smoothed.image) {
        vkDeviceWaitIdle(r->ctx->device);
        destroy_images(r, s);
    }
    cs_error err;
    const VkImageUsageFlags drawn = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
    // The target exists at this size, so images of its size fit too.
    bool ok = cs_image_create(r->ctx,
                              &(cs_image_desc){.name = "water splat depth",
                                               .format = VK_FORMAT_R32_SFLOAT,
                                               .usage = drawn,
                                               .width = width,
                                               .height = height},
                              &s->splat_depth, &err) &&
              cs_image_create(r->ctx,
                              &(cs_image_desc){.name = "water splat z-buffer",
                                               .format = r->depth_format,
                                               .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                               .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
                                               .width = width,
                                               .height = height},
                              &s->splat_zbuf, &err) &&
              cs_image_create(r->ctx,
                              &(cs_image_desc){.name = "water splat thickness",
                                               .format = s->thickness_format,
                                               .usage = drawn,
                                               .width = width,
                                               .height = height},
                              &s->splat_thickness, &err) &&
              cs_image_create(r->ctx,
                              &(cs_image_desc){.name = "water smoothed depth",
                                               .format = VK_FORMAT_R32_SFLOAT,
                                               .usage = drawn,
                                               .width = width,
                                               .height = height},
                              &s->smoothed, &err) &&
              cs_image_create(r->ctx,
                              &(cs_image_desc){.name = "water smoothed along x",
                                               .format = VK_FORMAT_R32_SFLOAT,
                                               .usage = drawn,
                                               .width = width,
                                               .height = height},
                              &s->smoothed_x, &err) &&
              cs_image_create(r->ctx,
                              &(cs_image_desc){.name = "water thickness along x",
                                               .format = s->thickness_format,
                                               .usage = drawn,
                                               .width = width,
                                               .height = height},
                              &s->thickness_x, &err) &&
              cs_image_create(r->ctx,
                              &(cs_image_desc){.name = "water thickness",
                                               .format = s->thickness_format,
                                               .usage = drawn,
                                               .width = width,
                                               .height = height},
                              &s->blurred, &err);
    CS_ASSERT(ok, "%s", err.msg);
}

// A colour image about to be drawn (the last frame's sampling done first)...
static void to_attachment(VkCommandBuffer cmd, VkImage image)
{
    cs_barrier_image(cmd,
                     &(cs_image_barrier){
                         .image = image,
                         .old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
                         .new_layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                         .src_stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                         .src_access = 0,
                         .dst_stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                         .dst_access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT,
                     });
}

// ...and, drawn, about to be sampled.
static void to_sampled(VkCommandBuffer cmd, VkImage image)
{
    cs_barrier_image(cmd, &(cs_image_barrier){
                              .image = image,
                              .old_layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                              .new_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                              .src_stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                              .src_access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                              .dst_stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                              .dst_access = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
                          });
}

// A rendering scope on one colour image cleared to 0, and a depth buffer
// cleared to 1 when given.
static void begin(VkCommandBuffer cmd, const cs_image *color, const cs_image *depth)
{
    VkRenderingAttachmentInfo c = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = color->view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
    };
    VkRenderingAttachmentInfo d = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = depth ? depth->view : VK_NULL_HANDLE,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .clearValue.depthStencil = {1.0f, 0},
    };
    VkRenderingInfo rendering = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {color->width, color->height}},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &c,
        .pDepthAttachment = depth ? &d : NULL,
    };
    vkCmdBeginRendering(cmd, &rendering);
    VkViewport viewport = {0, 0, (float)color->width, (float)color->height, 0, 1};
    VkRect2D scissor = {{0, 0}, {color->width, color->height}};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
}

// The splats of every water particle view, with `program`.
static void splat(cs_renderer *r, cs_recorder *rec, const cs_render_view *view, cs_program_id prog,
                  const struct cs_render_ssf_push *push)
{
    for (uint32_t i = 0; i < view->item_count; i++) {
        const cs_particle_view *pv = view->items[i]->data;
        if (view->items[i]->kind != CS_DRAWABLE_PARTICLES || !cs_water_ssf_draws(r, pv))
            continue;
        CS_ASSERT(pv->count <= UINT32_MAX / CS_RENDER_SSF_VERTICES, "too many particles to draw: %u", pv->count);
        cs_draw(rec, prog,
                &(cs_draw_desc){.buffers = {pv->positions},
                                .images = {[1] = view->scene_depth},
                                .push = push,
                                .push_size = sizeof *push,
                                .vertex_count = CS_RENDER_SSF_VERTICES * pv->count});
    }
}

void cs_water_ssf_prepare(cs_renderer *r, cs_water_ssf *s, cs_recorder *rec, const cs_render_view *view)
{
    // The first water view's fluid sets the spheres' size (its spacing).
    const cs_particle_view *first = NULL;
    for (uint32_t i = 0; i < view->item_count && !first; i++)
        if (view->items[i]->kind == CS_DRAWABLE_PARTICLES &&
            cs_water_ssf_draws(r, (const cs_particle_view *)view->items[i]->data))
            first = view->items[i]->data;
    s->drawn = first != NULL;
    if (!s->drawn)
        return;
    ensure_images(r, s, view->width, view->height);
    const cs_render_frame *f = view->frame;
    const cs_scene *fluid = first->scene ? first->scene : f->scene;
    float drawn = cs_render_particle_radius(fluid, f->camera, f->particle_radius);
    float radius = CS_RENDER_SSF_RADIUS * drawn;
    // A particle stands for a spacing³ of fluid; its sphere holds less (or more).
    double spacing = fluid->particle_spacing > 0 ? fluid->particle_spacing : 2.0 * drawn;
    double chord_scale = spacing * spacing * spacing / (4.0 / 3.0 * CS_RENDER_PI * (double)radius * radius * radius);
    // The filter spans about four sphere radii on the screen at the
    // camera's target distance.
    double distance = 0;
    for (int k = 0; k < 3; k++) {
        double d = f->camera->target[k] - f->camera->position[k];
        distance += d * d;
    }
    distance = sqrt(distance);
    double radius_px = f->camera->ortho ? radius * 0.5 * fabs(view->proj.y) * view->height
                                        : radius / fmax(distance, 1e-6) * 0.5 * fabs(view->proj.y) * view->height;
    struct cs_render_ssf_push push = {
        .view_x = view->view_rows[0],
        .view_y = view->view_rows[1],
        .view_z = view->view_rows[2],
        .proj = view->proj,
        .params = {radius, (float)chord_scale, (float)fmin(fmax(4.0 * radius_px, 1.0), CS_RENDER_SSF_FILTER_MAX),
                   2.0f * radius},
        .modes = {view->flags, 0, 0, 0},
    };
    VkCommandBuffer cmd = rec->cmd;
    const VkPipelineStageFlags2 depth_stages =
        VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
    to_attachment(cmd, s->splat_depth.image);
    cs_barrier_image(cmd, &(cs_image_barrier){
                              .image = s->splat_zbuf.image,
                              .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
                              .old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
                              .new_layout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                              .src_stage = depth_stages,
                              .src_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                              .dst_stage = depth_stages,
                              .dst_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                          });
    begin(cmd, &s->splat_depth, &s->splat_zbuf);
    splat(r, rec, view, s->depth, &push);
    vkCmdEndRendering(cmd);
    to_sampled(cmd, s->splat_depth.image);

    to_attachment(cmd, s->splat_thickness.image);
    begin(cmd, &s->splat_thickness, NULL);
    splat(r, rec, view, s->thickness, &push);
    vkCmdEndRendering(cmd);
    to_sampled(cmd, s->splat_thickness.image);

    // The depth smoothed along x, then along y, twice (the lattice's rows
    // would show in the normals after one); the thickness blurred once so.
    const cs_image *from[6] = {&s->splat_depth, &s->smoothed_x,      &s->smoothed,
                               &s->smoothed_x,  &s->splat_thickness, &s->thickness_x};
    const cs_image *to[6] = {&s->smoothed_x, &s->smoothed, &s->smoothed_x, &s->smoothed, &s->thickness_x, &s->blurred};
    for (uint32_t pass = 0; pass < 6; pass++) {
        bool thick = pass >= 4;
        to_attachment(cmd, to[pass]->image);
        begin(cmd, to[pass], NULL);
        cs_image_binding src = {.view = from[pass]->view,
                                .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                .sampler = r->nearest_sampler};
        push.modes.y = pass & 1u;
        push.modes.z = thick ? 1u : 0u;
        cs_draw(rec, thick ? s->smooth_thickness : s->smooth,
                &(cs_draw_desc){.images = {src}, .push = &push, .push_size = sizeof push, .vertex_count = 3});
        vkCmdEndRendering(cmd);
        to_sampled(cmd, to[pass]->image);
    }
}

void cs_water_ssf_record(cs_renderer *r, cs_water_ssf *s, cs_recorder *rec, const cs_render_view *view,
                         const struct cs_render_water_push *push)
{
    if (!s->drawn || !view->scene_color.view)
        return;
    cs_image_binding smoothed = {.view = s->smoothed.view,
                                 .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                 .sampler = r->nearest_sampler};
    cs_image_binding thickness = {.view = s->blurred.view,
                                  .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                  .sampler = r->nearest_sampler};
    cs_draw(rec, s->shade,
            &(cs_draw_desc){.images =
                                {[2] = view->scene_color, [3] = view->scene_depth, [5] = smoothed, [6] = thickness},
                            .push = push,
                            .push_size = sizeof *push,
                            .vertex_count = 3});
}
