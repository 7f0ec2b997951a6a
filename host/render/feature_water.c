// feature_water.c — fluid surfaces drawn as water (render.draw "water";
// cs_render_surface.water): refraction of the scene drawn before it,
// Fresnel reflection of the sky, Beer-Lambert absorption through the
// water's thickness and the sun's highlight (shaders/render/water.frag).
//
// It reads the scene (feature.h, reads_scene): the core draws everything
// before it into its scene copy, then prepare draws the water's back
// faces into a depth image of this feature's own (the nearest back face:
// where the view ray leaves the water), and record shades the front faces
// over the copied scene. On a device that cannot sample the formats the
// surface feature draws these surfaces its opaque way instead.
#include "feature.h"
#include "water_ssf.h"

#include <math.h>

typedef struct water {
    cs_program_id front, back;
    cs_image back_depth; // the nearest back face's depth, sized to the target
    cs_water_ssf ssf;    // particle fluids drawn as water
} water;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    water *w = calloc(1, sizeof *w);
    CS_ASSERT(w, "out of memory");
    *state = w;
    return cs_render_program(r, "render water", "render/water.vert", "render/water.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true, true, VK_COMPARE_OP_LESS, VK_CULL_MODE_NONE,
                             &w->front, err) &&
           cs_render_depth_program(r, "render water back faces", "render/water.vert", "render/water_back.frag",
                                   VK_COMPARE_OP_LESS, &w->back, err) &&
           cs_water_ssf_create(r, &w->ssf, err);
}

static void destroy(cs_renderer *r, void *state)
{
    water *w = state;
    cs_program_destroy(r->ctx, &w->front);
    cs_program_destroy(r->ctx, &w->back);
    cs_image_destroy(r->ctx, &w->back_depth);
    cs_water_ssf_destroy(r, &w->ssf);
    free(w);
}

static const cs_render_surface *water_item(const cs_render_view *view, uint32_t i)
{
    const cs_render_surface *m = view->items[i]->data;
    return view->items[i]->kind == CS_DRAWABLE_SURFACE && m->water && m->triangle_count ? m : NULL;
}

// The first particle view drawn as water; NULL: none.
static const cs_particle_view *water_particles(const cs_renderer *r, const cs_render_view *view)
{
    for (uint32_t i = 0; i < view->item_count; i++) {
        const cs_particle_view *pv = view->items[i]->data;
        if (view->items[i]->kind == CS_DRAWABLE_PARTICLES && cs_water_ssf_draws(r, pv))
            return pv;
    }
    return NULL;
}

static bool any_surface(const cs_render_view *view)
{
    for (uint32_t i = 0; i < view->item_count; i++)
        if (water_item(view, i))
            return true;
    return false;
}

static bool reads_scene(cs_renderer *r, void *state, const cs_render_view *view)
{
    (void)state;
    return any_surface(view) || water_particles(r, view);
}

static struct cs_render_water_push make_push(const cs_render_view *view, const float absorption[3])
{
    // The sun (sky.glsl's direction) turned into view space.
    double sun[3] = {CS_RENDER_SUN_DIR}, len = sqrt(sun[0] * sun[0] + sun[1] * sun[1] + sun[2] * sun[2]);
    float s[3];
    for (int row = 0; row < 3; row++) {
        const vec4 *v = &view->view_rows[row];
        s[row] = (float)((v->x * sun[0] + v->y * sun[1] + v->z * sun[2]) / len);
    }
    return (struct cs_render_water_push){
        .view_x = view->view_rows[0],
        .view_y = view->view_rows[1],
        .view_z = view->view_rows[2],
        .proj = view->proj,
        .fog = view->fog,
        .absorption = {absorption[0], absorption[1], absorption[2], view->fog_start},
        .sun = {s[0], s[1], s[2], 0},
        .modes = {view->flags, 0, 0, 0},
    };
}

// The back faces' depth pass, in its own rendering scope.
static void back_faces(cs_renderer *r, water *w, cs_recorder *rec, const cs_render_view *view)
{
    if (!w->back_depth.image || w->back_depth.width != view->width || w->back_depth.height != view->height) {
        if (w->back_depth.image) {
            vkDeviceWaitIdle(r->ctx->device);
            cs_image_destroy(r->ctx, &w->back_depth);
        }
        cs_error err;
        // The target exists at this size, so a depth image of its size fits too.
        CS_ASSERT(cs_image_create(r->ctx,
                                  &(cs_image_desc){.name = "water back faces",
                                                   .format = r->depth_format,
                                                   .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                                            VK_IMAGE_USAGE_SAMPLED_BIT,
                                                   .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
                                                   .width = view->width,
                                                   .height = view->height},
                                  &w->back_depth, &err),
                  "%s", err.msg);
    }
    const VkPipelineStageFlags2 depth_stages =
        VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
    VkCommandBuffer cmd = rec->cmd;
    // The last frame's shading read it; this pass overwrites it.
    cs_barrier_image(cmd, &(cs_image_barrier){.image = w->back_depth.image,
                                              .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
                                              .old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
                                              .new_layout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                              .src_stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                              .src_access = 0,
                                              .dst_stage = depth_stages,
                                              .dst_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                                            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT});
    VkRenderingAttachmentInfo depth = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = w->back_depth.view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .clearValue.depthStencil = {1.0f, 0},
    };
    VkRenderingInfo rendering = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {view->width, view->height}},
        .layerCount = 1,
        .pDepthAttachment = &depth,
    };
    vkCmdBeginRendering(cmd, &rendering);
    VkViewport viewport = {0, 0, (float)view->width, (float)view->height, 0, 1};
    VkRect2D scissor = {{0, 0}, {view->width, view->height}};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    for (uint32_t i = 0; i < view->item_count; i++) {
        const cs_render_surface *m = water_item(view, i);
        if (!m)
            continue;
        struct cs_render_water_push push = make_push(view, m->absorption);
        cs_draw(rec, w->back,
                &(cs_draw_desc){.buffers = {m->positions, m->normals},
                                .push = &push,
                                .push_size = sizeof push,
                                .indices = m->indices,
                                .index_count = 3 * m->triangle_count});
    }
    vkCmdEndRendering(cmd);
    cs_barrier_image(cmd, &(cs_image_barrier){.image = w->back_depth.image,
                                              .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
                                              .old_layout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                              .new_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                              .src_stage = depth_stages,
                                              .src_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                                              .dst_stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                              .dst_access = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT});
}

static void prepare(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    water *w = state;
    if (any_surface(view))
        back_faces(r, w, rec, view);
    cs_water_ssf_prepare(r, &w->ssf, rec, view);
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    water *w = state;
    if (!view->scene_color.view)
        return; // the device cannot read the scene: feature_surface.c drew them
    const cs_particle_view *pv = water_particles(r, view);
    if (pv) {
        struct cs_render_water_push push = make_push(view, pv->absorption);
        cs_water_ssf_record(r, &w->ssf, rec, view, &push);
    }
    cs_image_binding back = {.view = w->back_depth.view,
                             .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                             .sampler = r->nearest_sampler};
    for (uint32_t i = 0; i < view->item_count; i++) {
        const cs_render_surface *m = water_item(view, i);
        if (!m)
            continue;
        CS_ASSERT(m->triangle_count <= UINT32_MAX / 3, "too many triangles to draw: %u", m->triangle_count);
        struct cs_render_water_push push = make_push(view, m->absorption);
        cs_draw(rec, w->front,
                &(cs_draw_desc){.buffers = {m->positions, m->normals},
                                .images = {[2] = view->scene_color, [3] = view->scene_depth, [4] = back},
                                .push = &push,
                                .push_size = sizeof push,
                                .indices = m->indices,
                                .index_count = 3 * m->triangle_count});
    }
}

const cs_render_feature cs_feature_water = {
    .name = "water",
    .draws = CS_DRAWABLE_BIT(CS_DRAWABLE_SURFACE) | CS_DRAWABLE_BIT(CS_DRAWABLE_PARTICLES),
    .create = create,
    .destroy = destroy,
    .record = record,
    .reads_scene = reads_scene,
    .prepare = prepare,
};
