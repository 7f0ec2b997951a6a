// test_level_probes.c — water in a level lit by the level's bounce light
// through the light probes (scenes/level_pour_radiosity_3d.json at a
// smaller probe grid), headless on the real world and renderer:
//   1. probes inside the level's rock are flagged by the back-face rule:
//      every probe farther than INSIDE_MARGIN from every open sector column
//      (host/world/level_sdf.h's open space) is flagged, and most probes of
//      the grid lie in rock; open probes are mostly usable;
//   2. the water block in the hall, drawn with the level's radiosity
//      (level_baked false) and with TR1's baked light (level_baked true):
//      its particles are lit by the probes in both (mean linear colour
//      above MIN_LIT, and the L switch changes it by more than MIN_CHANGE);
//   3. the baked frame shows the level once: its level pixels are exactly
//      those of a frame without the radiosity part (before the renderer's
//      level_baked switch, a frame holding both drew the geometry too, or
//      the caller dropped the part and with it the probes);
//   4. the level lit by radiosity is textured (texel x B / albedo): against
//      the untextured patches (the frame without the level mesh) its local
//      contrast (mean |pixel - its 3x3 mean|) is at least CONTRAST_FACTOR
//      times higher and its mean linear colour within MEAN_RATIO of it
//      (texels over their mean albedo average to 1 on each face).
// ctest labels: quick,gpu -- 10
#include "test_util.h"

#include "camera.h"
#include "level_sdf.h"
#include "render.h"
#include "world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 160
#define HEIGHT 96
#define INSIDE_MARGIN 0.25 // m: probes this deep in rock must be flagged
#define MIN_LIT 0.01       // mean linear colour of the lit water
#define MIN_CHANGE 0.01    // mean change the L switch makes
#define CONTRAST_FACTOR 3.0
#define MEAN_RATIO 1.25

// What a test frame draws: the level alone, the level and the water, the
// level alone without the world's radiosity part, or the radiosity's
// patches without the level mesh (untextured).
typedef enum { FRAME_NO_PARTICLES, FRAME_PARTICLES, FRAME_NO_RADIOSITY, FRAME_NO_LEVEL_MESH } frame_kind;

// Distance from p to the nearest open sector column (0 inside one).
static double distance_to_open(const cs_level_space *space, const double p[3])
{
    double best = INFINITY;
    for (uint32_t b = 0; b < space->box_count; b++) {
        double d2 = 0.0;
        for (int a = 0; a < 3; a++) {
            double out = fmax(space->boxes[b].min[a] - p[a], fmax(p[a] - space->boxes[b].max[a], 0.0));
            d2 += out * out;
        }
        best = fmin(best, sqrt(d2));
    }
    return best;
}

static void check_rock_probes(cs_context *ctx, const cs_scene *scene, const cs_world *world)
{
    cs_level_space space;
    cs_error err;
    bool ok = cs_level_space_load(scene->level.file, scene->level.units_per_metre, &space, &err);
    CHECK(ok, "level space: %s", ok ? "" : err.msg);
    if (!ok)
        return;
    const cs_probes *probes = &world->radiosity->probes;
    cs_probe *records = malloc(probes->probe_count * sizeof *records);
    CS_ASSERT(records, "out of memory");
    cs_probes_read(ctx, probes, records);
    uint32_t rock = 0, rock_flagged = 0, open = 0, open_flagged = 0, between = 0;
    for (uint32_t i = 0; i < probes->probe_count; i++) {
        double p[3];
        cs_probes_position(&probes->grid, i, p);
        double d = distance_to_open(&space, p);
        bool flagged = records[i].irradiance[1].w == 0.0f;
        if (d == 0.0) {
            open++, open_flagged += flagged;
        } else if (d > INSIDE_MARGIN) {
            rock++, rock_flagged += flagged;
            CHECK(flagged, "probe %u at (%.2f %.2f %.2f), %.2f m into rock, not flagged (back faces %.3f)", i, p[0],
                  p[1], p[2], d, records[i].irradiance[0].w);
        } else {
            between++;
        }
    }
    printf("probes: %u in rock (%u flagged), %u open (%u flagged), %u within %.2f m of open space\n", rock,
           rock_flagged, open, open_flagged, between, INSIDE_MARGIN);
    CHECK(rock > probes->probe_count / 2, "only %u of %u probes in rock", rock, probes->probe_count);
    CHECK(open > 0 && open_flagged * 4 < open, "%u of %u open probes flagged", open_flagged, open);
    free(records);
    cs_level_space_free(&space);
}

// One frame of the world, then the render: the level lit one way or the
// other, with or without the particles, or without the radiosity part.
static void render(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam, bool level_baked,
                   frame_kind kind, uint8_t *px)
{
    cs_recorder rec;
    cs_recorder_create(ctx, "level probes render", &rec);
    cs_recorder_begin(&rec);
    cs_world_record_frame(world, &rec);
    cs_barrier_compute_to_graphics(&rec);
    cs_particle_view view = {0};
    world->fluids[0].ops->particles(world->fluids[0].state, &view);
    cs_render_frame frame = {.scene = world->fluids[0].scene, .camera = cam, .color_mode = -1, .hide_box = true,
                             .no_fog = true};
    cs_render_level level = {.mesh = &world->level, .baked = level_baked};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, kind == FRAME_PARTICLES ? &view : NULL);
    cs_render_frame_add(&frame, CS_DRAWABLE_LEVEL, kind == FRAME_NO_LEVEL_MESH ? NULL : &level);
    cs_render_frame_add(&frame, CS_DRAWABLE_RADIOSITY, kind == FRAME_NO_RADIOSITY ? NULL : world->radiosity);
    cs_render_record(r, &rec, &frame);
    cs_render_record_readback(r, &rec);
    cs_recorder_submit_wait(&rec);
    memcpy(px, cs_render_pixels(r), (size_t)WIDTH * HEIGHT * 4);
    cs_recorder_destroy(&rec);
}

static double srgb_to_linear(uint8_t c)
{
    double s = c / 255.0;
    return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
}

// Mean over the pixels where `with` differs from `without` (the water's):
// linear colour of `a`, and mean |a - b|. Returns the pixel count.
static uint32_t water_means(const uint8_t *with, const uint8_t *without, const uint8_t *a, const uint8_t *b,
                            double *mean, double *change)
{
    double sum = 0.0, diff = 0.0;
    uint32_t count = 0;
    for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++) {
        if (memcmp(with + 4 * i, without + 4 * i, 3) == 0)
            continue;
        for (int c = 0; c < 3; c++) {
            sum += srgb_to_linear(a[4 * i + c]) / 3.0;
            diff += fabs(srgb_to_linear(a[4 * i + c]) - srgb_to_linear(b[4 * i + c])) / 3.0;
        }
        count++;
    }
    *mean = count ? sum / count : 0.0;
    *change = count ? diff / count : 0.0;
    return count;
}

static void check_water_lit(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam,
                            bool level_baked)
{
    const char *mode = level_baked ? "baked" : "radiosity";
    size_t bytes = (size_t)WIDTH * HEIGHT * 4;
    uint8_t *none = malloc(bytes), *on = malloc(bytes), *off = malloc(bytes), *plain = malloc(bytes);
    CS_ASSERT(none && on && off && plain, "out of memory");
    render(ctx, r, world, cam, level_baked, FRAME_NO_PARTICLES, none);
    render(ctx, r, world, cam, level_baked, FRAME_PARTICLES, on);
    cs_world_radiosity_toggle_probes(ctx, world->radiosity);
    render(ctx, r, world, cam, level_baked, FRAME_PARTICLES, off);
    cs_world_radiosity_toggle_probes(ctx, world->radiosity);
    double mean, change;
    uint32_t count = water_means(on, none, on, off, &mean, &change);
    printf("%s: water %u pixels, mean linear %.4f with probes, L changes it by %.4f\n", mode, count, mean, change);
    CHECK(count > 100, "%s: only %u water pixels", mode, count);
    CHECK(mean > MIN_LIT, "%s: the water is dark (%.4f): no probe light reaches it", mode, mean);
    CHECK(change > MIN_CHANGE, "%s: the probes change the water by %.4f only", mode, change);
    if (level_baked) {
        // The level alone, baked: the same pixels as a frame that has no
        // radiosity part (the geometry feature must not draw it too).
        render(ctx, r, world, cam, true, FRAME_NO_RADIOSITY, plain);
        uint32_t differ = 0;
        for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++)
            differ += memcmp(none + 4 * i, plain + 4 * i, 3) != 0;
        printf("baked: %u level pixels differ from the frame without radiosity\n", differ);
        CHECK(differ == 0, "baked: %u pixels differ from the level drawn without radiosity", differ);
    }
    free(none), free(on), free(off), free(plain);
}

// Mean linear colour and mean |pixel - its 3x3 neighbourhood's mean|.
static void contrast(const uint8_t *px, double *mean, double *local)
{
    double sum = 0.0, dev = 0.0;
    uint32_t count = 0;
    for (int y = 1; y + 1 < HEIGHT; y++) {
        for (int x = 1; x + 1 < WIDTH; x++) {
            for (int c = 0; c < 3; c++) {
                double around = 0.0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        around += srgb_to_linear(px[4 * ((y + dy) * WIDTH + x + dx) + c]) / 9.0;
                double v = srgb_to_linear(px[4 * (y * WIDTH + x) + c]);
                sum += v, dev += fabs(v - around);
            }
            count += 3;
        }
    }
    *mean = sum / count;
    *local = dev / count;
}

static void check_textured(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam)
{
    size_t bytes = (size_t)WIDTH * HEIGHT * 4;
    uint8_t *textured = malloc(bytes), *plain = malloc(bytes);
    CS_ASSERT(textured && plain, "out of memory");
    render(ctx, r, world, cam, false, FRAME_NO_PARTICLES, textured);
    render(ctx, r, world, cam, false, FRAME_NO_LEVEL_MESH, plain);
    double mean_t, local_t, mean_p, local_p;
    contrast(textured, &mean_t, &local_t);
    contrast(plain, &mean_p, &local_p);
    printf("radiosity: textured mean %.4f local contrast %.4f; untextured mean %.4f local contrast %.4f\n", mean_t,
           local_t, mean_p, local_p);
    CHECK(local_t > CONTRAST_FACTOR * local_p, "the radiosity-lit level is not textured: contrast %.4f vs %.4f",
          local_t, local_p);
    CHECK(mean_t < MEAN_RATIO * mean_p && mean_p < MEAN_RATIO * mean_t,
          "textured mean %.4f too far from the patches' %.4f", mean_t, mean_p);
    free(textured), free(plain);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_renderer r;
    cs_error err;
    bool ok = cs_renderer_create(&ctx, &(cs_renderer_desc){.width = WIDTH, .height = HEIGHT}, &r, &err);
    CHECK(ok, "renderer: %s", ok ? "" : err.msg);
    if (!ok)
        return test_finish(&ctx);
    cs_scene scene;
    ok = cs_scene_load(CS_SOURCE_DIR "/scenes/level_pour_radiosity_3d.json", &scene, &err);
    CHECK(ok, "level_pour_radiosity_3d: %s", ok ? "" : err.msg);
    if (ok) {
        // A smaller grid keeps the gather cheap; every frame updated.
        scene.geometry->lighting.probes.resolution[0] = 12;
        scene.geometry->lighting.probes.resolution[1] = 5;
        scene.geometry->lighting.probes.resolution[2] = 6;
        scene.geometry->lighting.probes.rays = 64;
        scene.geometry->lighting.probes.every = 1;
        cs_world world;
        ok = cs_world_create(&ctx, &scene, &world, &err);
        bool made = ok && world.radiosity && world.radiosity->probes_made && world.has_level;
        CHECK(made, "world: %s", ok ? "no level, radiosity or probes" : err.msg);
        if (made) {
            cs_view_camera cam;
            cs_camera_from_scene(&cam, &scene);
            // In the hall, looking east and down at the water block.
            memcpy(cam.position, (double[3]){2.0, 2.0, -4.0}, sizeof cam.position);
            memcpy(cam.target, (double[3]){6.5, 0.3, -4.0}, sizeof cam.target);
            uint8_t *first = malloc((size_t)WIDTH * HEIGHT * 4);
            CS_ASSERT(first, "out of memory");
            render(&ctx, &r, &world, &cam, false, FRAME_PARTICLES, first); // the probes gathered once
            free(first);
            check_rock_probes(&ctx, &scene, &world);
            check_water_lit(&ctx, &r, &world, &cam, false);
            check_water_lit(&ctx, &r, &world, &cam, true);
            check_textured(&ctx, &r, &world, &cam);
            cs_world_destroy(&world);
        }
        cs_scene_free(&scene);
    }
    cs_renderer_destroy(&r);
    return test_finish(&ctx);
}
