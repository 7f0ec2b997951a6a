// render.c — see render.h.
#include "feature.h"
#include "file_io.h"

#include <errno.h>
#include <math.h>

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
    return cs_image_create(ctx, &(cs_image_desc){.name = name, .format = format, .usage = usage, .aspect = aspect,
                                                 .width = width, .height = height},
                           img, err);
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
// Programs for features

bool cs_render_program(cs_renderer *r, const char *name, const char *vert, const char *frag,
                       VkPrimitiveTopology topology, bool depth_test, bool depth_write, VkCompareOp depth_compare,
                       VkCullModeFlags cull, cs_program_id *out, cs_error *err)
{
    cs_program_desc desc = {
        .name = name,
        .vert = vert,
        .frag = frag,
        .graphics = {
            .topology = topology,
            .depth_test = depth_test,
            .depth_write = depth_write,
            .depth_compare = depth_compare,
            .cull = cull,
            .color_format = r->color_format,
            .depth_format = r->depth_format,
        },
    };
    return cs_program_create(r->ctx, &desc, out, err);
}

bool cs_render_depth_program(cs_renderer *r, const char *name, const char *vert, const char *frag,
                             VkCompareOp depth_compare, cs_program_id *out, cs_error *err)
{
    cs_program_desc desc = {
        .name = name,
        .vert = vert,
        .frag = frag,
        .graphics = {
            .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
            .depth_test = true,
            .depth_write = true,
            .depth_compare = depth_compare,
            .cull = VK_CULL_MODE_NONE,
            .color_format = VK_FORMAT_UNDEFINED,
            .depth_format = r->depth_format,
        },
    };
    return cs_program_create(r->ctx, &desc, out, err);
}

// ---------------------------------------------------------------------------
// The frame's drawables and the features' declarations

void cs_render_frame_add(cs_render_frame *frame, cs_drawable_kind kind, void *data)
{
    if (!data)
        return;
    CS_ASSERT(frame->drawable_count < CS_RENDER_MAX_DRAWABLES, "more than %d drawables in a frame",
              CS_RENDER_MAX_DRAWABLES);
    frame->drawables[frame->drawable_count++] = (cs_drawable){.kind = kind, .data = data};
}

void *cs_render_frame_first(const cs_render_frame *frame, cs_drawable_kind kind)
{
    for (uint32_t i = 0; i < frame->drawable_count; i++)
        if (frame->drawables[i].kind == kind)
            return frame->drawables[i].data;
    return NULL;
}

void *cs_render_first(const cs_render_view *view, cs_drawable_kind kind)
{
    for (uint32_t i = 0; i < view->item_count; i++)
        if (view->items[i]->kind == kind)
            return view->items[i]->data;
    return NULL;
}

uint32_t cs_render_feature_bit(const char *name)
{
    for (uint32_t i = 0; cs_render_features[i]; i++)
        if (strcmp(cs_render_features[i]->name, name) == 0)
            return 1u << i;
    return 0;
}

uint32_t cs_render_features_of_key(int key)
{
    uint32_t bits = 0;
    for (uint32_t i = 0; cs_render_features[i]; i++)
        if (cs_render_features[i]->key && cs_render_features[i]->key == key)
            bits |= 1u << i;
    return bits;
}

void cs_render_feature_keys(char *out, size_t size)
{
    size_t used = 0;
    if (size)
        out[0] = '\0';
    for (uint32_t i = 0; cs_render_features[i] && used < size; i++) {
        const cs_render_feature *f = cs_render_features[i];
        if (f->key)
            used += (size_t)snprintf(out + used, size - used, "%s%c %s", used ? ", " : "", (char)f->key,
                                     f->key_help);
    }
}

// The names in render.features are separated by spaces or commas.
#define FEATURE_NAME_SEPARATORS " ,"

static bool scene_names(const cs_scene *scene, const char *name)
{
    const char *p = scene->render.features;
    size_t n = strlen(name);
    while (*p) {
        p += strspn(p, FEATURE_NAME_SEPARATORS);
        size_t len = strcspn(p, FEATURE_NAME_SEPARATORS);
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len;
    }
    return false;
}

bool cs_render_check_scene(const cs_scene *scene, cs_error *err)
{
    const char *p = scene->render.features;
    while (*p) {
        p += strspn(p, FEATURE_NAME_SEPARATORS);
        size_t len = strcspn(p, FEATURE_NAME_SEPARATORS);
        if (len == 0)
            break;
        char name[sizeof scene->render.features];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        const char *known[CS_MAX_RENDER_FEATURES];
        uint32_t known_count = 0;
        bool found = false;
        for (uint32_t i = 0; cs_render_features[i]; i++)
            if (cs_render_features[i]->scene_flag) {
                known[known_count++] = cs_render_features[i]->name;
                found = found || strcmp(cs_render_features[i]->name, name) == 0;
            }
        if (!found) {
            const char *near = cs_nearest_name(name, known, known_count, CS_MAX(2u, (uint32_t)(len / 3)));
            char list[256] = "";
            for (uint32_t k = 0, used = 0; k < known_count && used < sizeof list; k++)
                used += (uint32_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", known[k]);
            return cs_fail(err, "%s: render.features: no render feature \"%s\" the scene can switch on%s%s%s (known: %s)",
                           scene->path, name, near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "",
                           known_count ? list : "none");
        }
        p += len;
    }
    return true;
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
    // Sized by the image, not by what is drawn.
    char advice[96];
    snprintf(advice, sizeof advice, "lower --size (the image is %u x %u)", width, height);
    if (!cs_buffer_create(ctx, &(cs_buffer_desc){.name = "offscreen readback", .size = bytes, .host_visible = true,
                                                 .advice = advice},
                          &r->readback, err))
        return false;
    if (r->readback_depth &&
        !cs_buffer_create(ctx, &(cs_buffer_desc){.name = "depth readback", .size = bytes, .host_visible = true,
                                                 .advice = advice},
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
    cs_image_destroy(r->ctx, &r->offscreen);
    if (r->readback.buffer)
        cs_buffer_destroy(r->ctx, &r->readback);
    if (r->depth_readback.buffer)
        cs_buffer_destroy(r->ctx, &r->depth_readback);
    free(r->pixels);
    r->pixels = NULL;
    r->width = r->height = 0;
}

// What a feature that reads the scene needs (feature.h, reads_scene): the
// formats sampled, two samplers and the composite program. A device that
// cannot sample the formats draws such features their own fallback way.
static bool create_scene_reading(cs_renderer *r, cs_error *err)
{
    VkFormatProperties color, depth;
    vkGetPhysicalDeviceFormatProperties(r->ctx->physical, r->color_format, &color);
    vkGetPhysicalDeviceFormatProperties(r->ctx->physical, r->depth_format, &depth);
    r->can_read_scene = (color.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) &&
                        (color.optimalTilingFeatures & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT) &&
                        (depth.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) &&
                        (depth.optimalTilingFeatures & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT) &&
                        (depth.optimalTilingFeatures & VK_FORMAT_FEATURE_TRANSFER_DST_BIT);
    if (!r->can_read_scene)
        return true;
    for (int linear = 0; linear < 2; linear++) {
        VkFilter filter = linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
        VkSamplerCreateInfo info = {
            .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
            .magFilter = filter,
            .minFilter = filter,
            .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
            .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
            .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
            .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
            .maxLod = 0.0f,
        };
        VK_CHECK(vkCreateSampler(r->ctx->device, &info, NULL, linear ? &r->linear_sampler : &r->nearest_sampler));
    }
    return cs_render_program(r, "render composite", "render/composite.vert", "render/composite.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false, false, VK_COMPARE_OP_ALWAYS,
                             VK_CULL_MODE_NONE, &r->composite, err);
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

    bool ok = create_scene_reading(r, err);
    for (uint32_t i = 0; ok && cs_render_features[i]; i++) {
        CS_ASSERT(i < CS_MAX_RENDER_FEATURES, "more render features than CS_MAX_RENDER_FEATURES");
        ok = cs_render_features[i]->create(r, &r->features[i], err);
        r->feature_count = i + 1; // a feature whose create failed still has its state to destroy
    }
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
    for (uint32_t i = 0; i < r->feature_count; i++)
        if (r->features[i])
            cs_render_features[i]->destroy(r, r->features[i]);
    cs_image_destroy(ctx, &r->depth);
    cs_image_destroy(ctx, &r->scene_color);
    cs_image_destroy(ctx, &r->scene_depth);
    if (r->linear_sampler)
        vkDestroySampler(ctx->device, r->linear_sampler, NULL);
    if (r->nearest_sampler)
        vkDestroySampler(ctx->device, r->nearest_sampler, NULL);
    cs_program_destroy(ctx, &r->composite);
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

// Appends a scene's material colours and rest densities to the table;
// returns how many (at least 1: a scene without materials gets one light
// blue, so its particles still show).
static uint32_t append_materials(float (*table)[4], uint32_t at, const cs_scene *scene)
{
    uint32_t n = CS_MIN(scene->material_count, (uint32_t)CS_MAX_MATERIALS);
    // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10 misreads CS_MIN: n is any count
    for (uint32_t m = 0; m < n; m++) {
        for (int c = 0; c < 3; c++)
            table[at + m][c] = scene->materials[m].color[c];
        table[at + m][3] = scene->materials[m].rest_density;
    }
    // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10 misreads CS_MIN: n is any count
    if (n == 0) {
        table[at][0] = 0.2f, table[at][1] = 0.5f, table[at][2] = 0.9f, table[at][3] = 1.0f;
        n = 1;
    }
    return n;
}

// The material table of a frame: the frame scene's materials first (the 2D
// field uses them), then those of every particle view whose fluid has its
// own scene, so each fluid keeps its colours (particle view i, in frame
// order, starts at view_material_base[i]). Uploaded when it changes (a
// one-shot copy: the previous frame has completed, the current recording
// has not been submitted yet).
static void update_materials(cs_renderer *r, const cs_render_frame *frame)
{
    float table[CS_MAX_FLUIDS * CS_MAX_MATERIALS][4] = {{0}};
    uint32_t used = append_materials(table, 0, frame->scene);
    uint32_t first = used;
    uint32_t views = 0;
    for (uint32_t d = 0; d < frame->drawable_count; d++) {
        if (frame->drawables[d].kind != CS_DRAWABLE_PARTICLES)
            continue;
        uint32_t i = views++;
        CS_ASSERT(i < CS_MAX_FLUIDS, "more particle views than the renderer draws (%d)", CS_MAX_FLUIDS);
        const cs_scene *s = ((const cs_particle_view *)frame->drawables[d].data)->scene;
        r->view_material_base[i] = 0;
        r->view_material_count[i] = first;
        if (s && s != frame->scene) {
            r->view_material_base[i] = used;
            r->view_material_count[i] = append_materials(table, used, s);
            used += r->view_material_count[i];
        }
    }
    if (first == r->material_count && used == r->material_used && memcmp(table, r->material_cache, sizeof table) == 0)
        return;
    cs_buffer_upload(r->ctx, &r->material_table, table, sizeof table, 0);
    memcpy(r->material_cache, table, sizeof table);
    r->material_count = first;
    r->material_used = used;
}

static void ensure_depth(cs_renderer *r, uint32_t width, uint32_t height)
{
    if (r->depth.image && r->depth.width == width && r->depth.height == height)
        return;
    if (r->depth.image) {
        vkDeviceWaitIdle(r->ctx->device);
        cs_image_destroy(r->ctx, &r->depth);
    }
    cs_error err;
    // Transfer source: the readback, and the scene copy (feature.h, reads_scene).
    VkImageUsageFlags usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    // The target already exists at this size, so the depth image fits too.
    if (!image_create(r->ctx, r->depth_format, usage, VK_IMAGE_ASPECT_DEPTH_BIT, width, height, "depth", &r->depth,
                      &err))
        CS_ASSERT(false, "%s", err.msg);
}

// The speed at the top of the colour map: a fall through the whole domain.
static float speed_scale(const cs_render_frame *f) { return cs_render_speed_max(f->scene, f->speed_max); }

float cs_render_speed_max(const cs_scene *s, float frame_speed_max)
{
    if (frame_speed_max > 0)
        return frame_speed_max;
    double g = sqrt((double)s->gravity[0] * s->gravity[0] + (double)s->gravity[1] * s->gravity[1] +
                    (double)s->gravity[2] * s->gravity[2]);
    double h = 0;
    for (int i = 0; i < 3; i++)
        h = CS_MAX(h, (double)s->domain_max[i] - s->domain_min[i]);
    double v = sqrt(2.0 * g * h);
    return v > 1e-6 ? (float)v : 1.0f;
}

// The frame's shared data: matrices, fog, colours, modes.
static void make_view(const cs_renderer *r, const cs_render_frame *frame, uint32_t width, uint32_t height,
                      cs_render_view *v)
{
    const cs_scene *scene = frame->scene;
    memset(v, 0, sizeof *v);
    v->frame = frame;
    v->scene = scene;
    v->width = width;
    v->height = height;
    cs_camera_matrices *m = &v->matrices;
    cs_camera_matrices_get(frame->camera, (double)width / height, m);
    v->flags = (m->ortho ? CS_RENDER_FLAG_ORTHO : 0) | (r->encode_srgb ? CS_RENDER_FLAG_ENCODE_SRGB : 0);
    for (int row = 0; row < 3; row++)
        v->view_rows[row] = (vec4){m->view[row], m->view[4 + row], m->view[8 + row], m->view[12 + row]};
    v->proj = (vec4){m->proj_params[0], m->proj_params[1], m->proj_params[2], m->proj_params[3]};
    const float *bg = scene->render.background;
    v->fog = (vec4){bg[0], bg[1], bg[2], frame->no_fog ? 0.0f : scene->render.fog_density};
    // Fog starts at the near side of the domain's bounding sphere, so its
    // strength does not depend on how far back the camera stands.
    const double *c = frame->camera->scene_center;
    const vec4 *z = &v->view_rows[2];
    double center_depth = -(z->x * c[0] + z->y * c[1] + z->z * c[2] + z->w);
    v->fog_start = (float)CS_MAX(center_depth - frame->camera->scene_radius, 0.0);
    v->background_top = (vec4){bg[0] * CS_RENDER_BACKGROUND_TOP, bg[1] * CS_RENDER_BACKGROUND_TOP,
                               bg[2] * CS_RENDER_BACKGROUND_TOP, 1};
    v->background_bottom = (vec4){bg[0] * CS_RENDER_BACKGROUND_BOTTOM, bg[1] * CS_RENDER_BACKGROUND_BOTTOM,
                                  bg[2] * CS_RENDER_BACKGROUND_BOTTOM, 1};
    v->color_mode = frame->color_mode >= 0 ? frame->color_mode : (int)scene->render.color_mode;
    v->density_spread = frame->density_spread > 0 ? frame->density_spread : 0.1f;
    v->speed_max = speed_scale(frame);
}

static const VkPipelineStageFlags2 depth_stages =
    VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;

// The scene copy's images at the target's size (feature.h, reads_scene).
static void ensure_scene_images(cs_renderer *r, uint32_t width, uint32_t height)
{
    if (r->scene_color.image && r->scene_color.width == width && r->scene_color.height == height)
        return;
    if (r->scene_color.image) {
        vkDeviceWaitIdle(r->ctx->device);
        cs_image_destroy(r->ctx, &r->scene_color);
        cs_image_destroy(r->ctx, &r->scene_depth);
    }
    cs_error err;
    bool ok = image_create(r->ctx, r->color_format, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                           VK_IMAGE_ASPECT_COLOR_BIT, width, height, "scene colour", &r->scene_color, &err) &&
              image_create(r->ctx, r->depth_format, VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                           VK_IMAGE_ASPECT_DEPTH_BIT, width, height, "scene depth", &r->scene_depth, &err);
    // The target already exists at this size, so images of its size fit too.
    CS_ASSERT(ok, "%s", err.msg);
}

// The drawables of the kinds feature i draws, its key and the scene's ask.
static void view_for_feature(const cs_render_frame *frame, uint32_t i, cs_render_view *view)
{
    const cs_render_feature *feature = cs_render_features[i];
    view->item_count = 0;
    for (uint32_t d = 0; d < frame->drawable_count; d++)
        if (feature->draws & CS_DRAWABLE_BIT(frame->drawables[d].kind))
            view->items[view->item_count++] = &frame->drawables[d];
    view->flipped = (frame->flipped >> i) & 1u;
    view->asked = feature->scene_flag && scene_names(frame->scene, feature->name);
}

// The first feature that reads the scene this frame; feature_count: none.
static uint32_t scene_reader(cs_renderer *r, const cs_render_frame *frame, cs_render_view *view)
{
    if (!r->can_read_scene)
        return r->feature_count;
    for (uint32_t i = 0; i < r->feature_count; i++) {
        const cs_render_feature *feature = cs_render_features[i];
        if (!feature->reads_scene)
            continue;
        view_for_feature(frame, i, view);
        if (feature->reads_scene(r, r->features[i], view))
            return i;
    }
    return r->feature_count;
}

// Opens a rendering scope on `color_view` and the depth image: both
// cleared (the frame's start) or both loaded (after the scene copy; the
// colour is then overwritten by the composite).
static void begin_scope(const cs_renderer *r, VkCommandBuffer cmd, VkImageView color_view, uint32_t width,
                        uint32_t height, const float *clear, bool first, bool keep_depth)
{
    VkRenderingAttachmentInfo color_attachment = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = color_view,
        .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .loadOp = first ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .clearValue.color = {{clear[0], clear[1], clear[2], 1.0f}},
    };
    VkRenderingAttachmentInfo depth_attachment = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
        .imageView = r->depth.view,
        .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .loadOp = first ? VK_ATTACHMENT_LOAD_OP_CLEAR : VK_ATTACHMENT_LOAD_OP_LOAD,
        .storeOp = keep_depth ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .clearValue.depthStencil = {1.0f, 0},
    };
    VkRenderingInfo rendering = {
        .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
        .renderArea = {{0, 0}, {width, height}},
        .layerCount = 1,
        .colorAttachmentCount = 1,
        .pColorAttachments = &color_attachment,
        .pDepthAttachment = &depth_attachment,
    };
    vkCmdBeginRendering(cmd, &rendering);
    VkViewport viewport = {0, 0, (float)width, (float)height, 0, 1};
    VkRect2D scissor = {{0, 0}, {width, height}};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
}

// After the features drawn into scene_color: it becomes sampled, the depth
// is copied into scene_depth (sampled), and the depth goes back to being
// the attachment the rest of the frame tests against.
static void copy_scene(cs_renderer *r, VkCommandBuffer cmd, cs_render_view *view)
{
    cs_barrier_image(cmd, &(cs_image_barrier){
        .image = r->scene_color.image,
        .old_layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .new_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
        .src_stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
        .src_access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
        .dst_stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
        .dst_access = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT});
    cs_barrier_image(cmd, &(cs_image_barrier){
        .image = r->depth.image,
        .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
        .old_layout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .new_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
        .src_stage = depth_stages,
        .src_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
        .dst_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
        .dst_access = VK_ACCESS_2_TRANSFER_READ_BIT});
    // The last frame's reads of the copy are done before it is written.
    cs_barrier_image(cmd, &(cs_image_barrier){
        .image = r->scene_depth.image,
        .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
        .old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
        .new_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
        .src_stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
        .src_access = 0,
        .dst_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
        .dst_access = VK_ACCESS_2_TRANSFER_WRITE_BIT});
    VkImageCopy region = {
        .srcSubresource = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1},
        .dstSubresource = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1},
        .extent = {r->depth.width, r->depth.height, 1},
    };
    vkCmdCopyImage(cmd, r->depth.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->scene_depth.image,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    cs_barrier_image(cmd, &(cs_image_barrier){
        .image = r->scene_depth.image,
        .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
        .old_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
        .new_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
        .src_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
        .src_access = VK_ACCESS_2_TRANSFER_WRITE_BIT,
        .dst_stage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
        .dst_access = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT});
    cs_barrier_image(cmd, &(cs_image_barrier){
        .image = r->depth.image,
        .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
        .old_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
        .new_layout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .src_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
        .src_access = 0,
        .dst_stage = depth_stages,
        .dst_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT});
    view->scene_color = (cs_image_binding){.view = r->scene_color.view,
                                           .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                           .sampler = r->linear_sampler};
    view->scene_depth = (cs_image_binding){.view = r->scene_depth.view,
                                           .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                           .sampler = r->nearest_sampler};
}

void cs_render_record(cs_renderer *r, cs_recorder *rec, const cs_render_frame *frame)
{
    CS_ASSERT(rec->recording, "cs_render_record outside a recording");
    CS_ASSERT(frame->scene && frame->camera, "cs_render_record needs a scene and a camera");
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
    update_materials(r, frame);
    cs_render_view view;
    make_view(r, frame, target.width, target.height, &view);
    // A feature that reads the scene splits the frame: what comes before it
    // is drawn into scene_color, then copied into the target (feature.h).
    uint32_t split = scene_reader(r, frame, &view);
    bool splits = split < r->feature_count;
    if (splits)
        ensure_scene_images(r, target.width, target.height);

    VkCommandBuffer cmd = rec->cmd;
    cs_pass_begin(rec, "draw");
    // Whatever was in the target is overwritten: start from UNDEFINED. The
    // source stages cover the last frame's drawing and the copies out of it
    // (and, for the scene copy, the last frame's sampling of it).
    cs_image_barrier color_start = {
        .image = target.image,
        .old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
        .new_layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .src_stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
        .src_access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
        .dst_stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
        .dst_access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT};
    cs_barrier_image(cmd, &color_start);
    if (splits) {
        color_start.image = r->scene_color.image;
        color_start.src_stage |= VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
        cs_barrier_image(cmd, &color_start);
    }
    cs_barrier_image(cmd, &(cs_image_barrier){
        .image = r->depth.image,
        .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
        .old_layout = VK_IMAGE_LAYOUT_UNDEFINED,
        .new_layout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        .src_stage = depth_stages | VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
        .src_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
        .dst_stage = depth_stages,
        .dst_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT});

    const float *bg = frame->scene->render.background;
    begin_scope(r, cmd, splits ? r->scene_color.view : target.view, target.width, target.height, bg, true,
                splits || r->readback_depth);
    for (uint32_t i = 0; i < r->feature_count; i++) {
        const cs_render_feature *feature = cs_render_features[i];
        if (i == split) {
            vkCmdEndRendering(cmd);
            copy_scene(r, cmd, &view);
            view_for_feature(frame, i, &view);
            if (feature->prepare)
                feature->prepare(r, r->features[i], rec, &view);
            begin_scope(r, cmd, target.view, target.width, target.height, bg, false, r->readback_depth);
            cs_draw(rec, r->composite, &(cs_draw_desc){.images = {view.scene_color}, .vertex_count = 3});
        }
        view_for_feature(frame, i, &view);
        feature->record(r, r->features[i], rec, &view);
        if (i == split)
            view.scene_color = view.scene_depth = (cs_image_binding){0};
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
    cs_barrier_image(cmd, &(cs_image_barrier){
        .image = r->offscreen.image,
        .old_layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .new_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
        .src_stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
        .src_access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
        .dst_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
        .dst_access = VK_ACCESS_2_TRANSFER_READ_BIT});
    VkBufferImageCopy region = {
        .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .imageExtent = {r->width, r->height, 1},
    };
    vkCmdCopyImageToBuffer(cmd, r->offscreen.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->readback.buffer, 1,
                           &region);
    if (r->readback_depth) {
        cs_barrier_image(cmd, &(cs_image_barrier){
            .image = r->depth.image,
            .aspect = VK_IMAGE_ASPECT_DEPTH_BIT,
            .old_layout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
            .new_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
            .src_stage = VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
            .src_access = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
            .dst_stage = VK_PIPELINE_STAGE_2_COPY_BIT,
            .dst_access = VK_ACCESS_2_TRANSFER_READ_BIT});
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

bool cs_write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgba, cs_error *err)
{
    if (!rgba || width == 0 || height == 0)
        return cs_fail(err, "%s: nothing to write (image %ux%u)", path, width, height);
    // Encoded in memory, then written through the checked writer:
    // stbi_write_png ignores fwrite and fclose failures (a full disk would
    // leave a short PNG and report success).
    int size = 0;
    unsigned char *png = stbi_write_png_to_mem(rgba, (int)width * 4, (int)width, (int)height, 4, &size);
    if (!png)
        return cs_fail(err, "%s: out of memory encoding a %ux%u PNG", path, width, height);
    bool ok = cs_write_whole_file(path, png, (size_t)size, true, err);
    STBIW_FREE(png);
    return ok;
}
