// bench_draw.c — `cistern bench --draw SCENE`: the renderer's GPU time for
// the scene's particles alone, at each particle count and image size.
//
// The scaled scene's world is made and drawn as it starts (no substep runs:
// at a million particles a lavapipe substep takes many seconds, and the draw
// does not care whether the particles moved). Each timed frame is one
// recording of the renderer (background, box, particles; the surface is
// off: `render.draw` is forced to particles) into the offscreen image,
// submitted and waited for; the figure is the median of the "draw" pass's
// GPU timestamps. Next to it, what the particles ask of the rasteriser,
// computed on the host from their positions: how many project to a disc of
// at most one pixel's area (drawn as one pixel), and the pixels the
// impostor triangles cover (an upper bound of the fragments shaded, before the
// depth test rejects hidden ones). Then the same particles drawn as water
// (render.draw "water": the renderer's screen-space fluid, the scene copy,
// splats, smoothing and shading, host/render/water_ssf.c), timed the same
// way; fluid surfaces are switched off so that the particles are what is
// drawn both times.
#define _GNU_SOURCE
#include "bench.h"

#include "camera.h"
#include "context.h"
#include "recorder.h"
#include "render.h"
#include "scene.h"
#include "world.h"
#include "world_draw.h"

#include <math.h>
#include <stdlib.h>

typedef struct draw_result {
    uint32_t requested, particles;
    bool skipped;
    char reason[512];
    double draw_ms, draw_p90_ms, draw_p10_ms;
    double water_ms, water_p90_ms;   // the same particles drawn as water
    double triangle_pixels, disc_pixels; // summed over the particles in view
    uint32_t tiny, in_view;          // discs of at most a pixel's area; centres in front of the eye
    float radius;
} draw_result;

// The triangles' and discs' pixels: the same projected radius the vertex
// shader uses (particles.vert, projected_radius_px); a triangle around a
// disc of radius r has 3 sqrt(3) r^2 of area.
static void estimate_coverage(const float *pos4, uint32_t n, const cs_camera_matrices *m, uint32_t height,
                              float r, draw_result *res)
{
    const float *v = m->view;
    double focal_px = fabs(m->proj_params[1]) * 0.5 * height;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = pos4 + 4 * (size_t)i;
        double c[3];
        for (int k = 0; k < 3; k++)
            c[k] = v[k] * p[0] + v[4 + k] * p[1] + v[8 + k] * p[2] + v[12 + k];
        double d2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
        if (c[2] > -r || d2 <= (double)r * r)
            continue;
        double r_px = r / sqrt(d2 - (double)r * r) * focal_px;
        res->in_view++;
        if (r_px * r_px * M_PI <= 1.0) {
            res->tiny++;
            res->triangle_pixels += 1.0;
            res->disc_pixels += 1.0;
        } else {
            res->triangle_pixels += 3.0 * sqrt(3.0) * r_px * r_px;
            res->disc_pixels += M_PI * r_px * r_px;
        }
    }
}

static void draw_size(cs_context *ctx, const cs_bench_options *opt, uint32_t requested, draw_result *res)
{
    memset(res, 0, sizeof *res);
    res->requested = requested;
    cs_scene scene;
    CS_HEAP_WORLD(world);
    cs_renderer renderer;
    cs_error err;
    if (!cs_scene_load_edited(opt->scene, opt->edits.items, opt->edits.count, &scene, &err)) {
        res->skipped = true;
        snprintf(res->reason, sizeof res->reason, "%s", err.msg);
        return;
    }
    cs_scene_scale_world(&scene, requested);
    scene.render.draw = CS_DRAW_PARTICLES;
    for (uint32_t f = 0; f < scene.fluid_count; f++)
        scene.fluids[f].surface.enabled = false;
    uint32_t width = opt->width ? opt->width : 1280, height = opt->height ? opt->height : 720;
    bool made_world = cs_world_create(ctx, &scene, world, &err);
    if (!made_world || !cs_renderer_create(ctx, &(cs_renderer_desc){.width = width, .height = height}, &renderer,
                                           &err)) {
        res->skipped = true;
        snprintf(res->reason, sizeof res->reason, "%s", err.msg);
        if (made_world)
            cs_world_destroy(world);
        cs_scene_free(&scene);
        return;
    }
    cs_view_camera camera;
    cs_camera_from_scene(&camera, &scene);
    cs_recorder rec;
    cs_recorder_create(ctx, "bench draw", &rec);
    double *ms = calloc(opt->steps, sizeof(double));
    CS_ASSERT(ms, "out of memory for %u frames", opt->steps);
    for (int water = 0; water < 2; water++) {
        uint32_t timed = 0;
        memset(ms, 0, opt->steps * sizeof(double));
        for (uint32_t i = 0; i < opt->warmup + opt->steps; i++) {
            cs_world_draw arrays;
            cs_render_frame frame =
                cs_world_draw_frame(world, water ? CS_DRAW_WATER : CS_DRAW_PARTICLES, true, &arrays);
            frame.camera = &camera;
            cs_recorder_begin(&rec);
            cs_barrier_compute_to_graphics(&rec);
            cs_render_record(&renderer, &rec, &frame);
            cs_recorder_submit_wait(&rec);
            if (i < opt->warmup)
                continue;
            for (uint32_t p = 0; p < rec.pass_count; p++)
                if (strcmp(rec.passes[p].name, "draw") == 0)
                    ms[timed] += rec.passes[p].ms;
            timed++;
        }
        if (water) {
            res->water_ms = cs_bench_percentile(ms, timed, 0.5);
            res->water_p90_ms = cs_bench_percentile(ms, timed, 0.9);
        } else {
            res->draw_ms = cs_bench_percentile(ms, timed, 0.5);
            res->draw_p90_ms = cs_bench_percentile(ms, timed, 0.9);
            res->draw_p10_ms = cs_bench_percentile(ms, timed, 0.1);
        }
    }
    free(ms);

    // Coverage from the first fluid's positions (the shipped draw scenes
    // have one fluid).
    cs_world_draw arrays;
    cs_render_frame frame = cs_world_draw_frame(world, CS_DRAW_PARTICLES, true, &arrays);
    const cs_particle_view *pv = cs_render_frame_first(&frame, CS_DRAWABLE_PARTICLES);
    if (pv && pv->positions && pv->count) {
        res->particles = pv->count;
        float *pos4 = malloc((size_t)pv->count * 16);
        CS_ASSERT(pos4, "out of memory for %u positions", pv->count);
        cs_buffer_download(ctx, pv->positions, pos4, (VkDeviceSize)pv->count * 16, 0);
        cs_camera_matrices m;
        cs_camera_matrices_get(&camera, (double)width / height, &m);
        res->radius = cs_render_particle_radius(frame.scene, &camera, frame.particle_radius);
        estimate_coverage(pos4, pv->count, &m, height, res->radius, res);
        free(pos4);
    }
    cs_recorder_destroy(&rec);
    cs_renderer_destroy(&renderer);
    cs_world_destroy(world);
    cs_scene_free(&scene);
}

static cJSON *draw_json(const char *scene_name, const char *device, uint32_t width, uint32_t height,
                        const cs_bench_options *opt, const draw_result *res, uint32_t n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "scene", scene_name);
    cJSON_AddStringToObject(root, "mode", "draw");
    cJSON_AddStringToObject(root, "frame", "the scene's features and the particles into the offscreen image, as spheres "
                                           "(draw_*) and as water (water_*); no substep");
    cJSON_AddStringToObject(root, "device_and_driver", device);
    cJSON_AddNumberToObject(root, "width", width);
    cJSON_AddNumberToObject(root, "height", height);
    cJSON_AddNumberToObject(root, "frames", opt->steps);
    cJSON_AddNumberToObject(root, "warmup", opt->warmup);
    cJSON *sizes = cJSON_AddArrayToObject(root, "sizes");
    for (uint32_t i = 0; i < n; i++) {
        const draw_result *r = &res[i];
        cJSON *s = cJSON_CreateObject();
        cJSON_AddNumberToObject(s, "requested", r->requested);
        if (r->skipped) {
            cJSON_AddStringToObject(s, "skipped", r->reason);
        } else {
            cJSON_AddNumberToObject(s, "particles", r->particles);
            cJSON_AddNumberToObject(s, "radius", r->radius);
            cJSON_AddNumberToObject(s, "draw_median_ms", r->draw_ms);
            cJSON_AddNumberToObject(s, "draw_p90_ms", r->draw_p90_ms);
            cJSON_AddNumberToObject(s, "draw_p10_ms", r->draw_p10_ms);
            cJSON_AddNumberToObject(s, "spread", r->draw_ms > 0 ? (r->draw_p90_ms - r->draw_p10_ms) / r->draw_ms : 0);
            cJSON_AddNumberToObject(s, "in_view", r->in_view);
            cJSON_AddNumberToObject(s, "one_pixel", r->tiny);
            cJSON_AddNumberToObject(s, "triangle_pixels", r->triangle_pixels);
            cJSON_AddNumberToObject(s, "disc_pixels", r->disc_pixels);
            cJSON_AddNumberToObject(s, "water_median_ms", r->water_ms);
            cJSON_AddNumberToObject(s, "water_p90_ms", r->water_p90_ms);
        }
        cJSON_AddItemToArray(sizes, s);
    }
    return root;
}

int cs_bench_draw(const cs_bench_options *opt)
{
    cs_context ctx;
    cs_bench_start start;
    int begun = cs_bench_begin(opt, "bench/SCENE_draw", &ctx, &start);
    if (begun != 0)
        return begun;
    const char *scene_name = start.scene_name, *dir = start.dir, *device = start.device;
    uint32_t width = opt->width ? opt->width : 1280, height = opt->height ? opt->height : 720;
    printf("cistern bench --draw %s on %s, %ux%u, %u frames after %u\n", opt->scene, device, width, height,
           opt->steps, opt->warmup);
    printf("%11s %8s %11s %11s %9s %12s %12s %11s %8s\n", "particles", "radius", "draw ms", "draw p90", "one-pixel",
           "tri Mpx", "disc Mpx", "water ms", "water/draw");
    int status = 0;
    draw_result *res = calloc(CS_MAX(opt->size_count, 1u), sizeof *res);
    CS_ASSERT(res, "out of memory for %u sizes", opt->size_count);
    for (uint32_t i = 0; i < opt->size_count; i++) {
        draw_result *r = &res[i];
        draw_size(&ctx, opt, opt->sizes[i], r);
        if (r->skipped) {
            printf("%11u  skipped: %.200s\n", r->requested, r->reason);
            status = 1;
            continue;
        }
        printf("%11u %8.4f %11.3f %11.3f %9u %12.3f %12.3f %11.3f %8.2f\n", r->particles, r->radius, r->draw_ms,
               r->draw_p90_ms, r->tiny, r->triangle_pixels * 1e-6, r->disc_pixels * 1e-6, r->water_ms,
               r->draw_ms > 0 ? r->water_ms / r->draw_ms : 0.0);
        fflush(stdout);
    }
    cJSON *json = draw_json(scene_name, device, width, height, opt, res, opt->size_count);
    cs_error err = {0};
    if (cs_bench_write_json(dir, json, &err)) {
        printf("wrote %s/results.json\n", dir);
    } else {
        fprintf(stderr, "cistern: %s\n", err.msg);
        status = 1;
    }
    cJSON_Delete(json);
    free(res);
    cs_context_destroy(&ctx);
    return status;
}
