// test_level_anim.c — TR1 animated textures cycle on screen, in both light
// modes, on the shipped level (levels/cistern_demo.phd through
// scenes/level_radiosity_3d.json, the real world and renderer, headless):
// the north room's floor (room 3) is the demo's one animated range, object
// textures {4, 5}. A camera in that room looking down across its floor:
//   1. the mesh marks the floor's faces animated (anim entry) and nothing
//      outside room 3;
//   2. at t = 0.25 s (step 1) at least MIN_FLOOR_CHANGED of the floor's
//      pixels differ from t = 0 (the wet stone turned a quarter), and every
//      pixel away from the floor is identical (walls, ceiling: static faces);
//   3. t = 0.15 s (still step 0) and t = 0.45 s (step 2 = 0 mod 2) give the
//      t = 0 image exactly.
// Which pixels are the floor: a copy of the mesh with the animated faces'
// vertex light set to 0 (black) drawn baked at t = 0; pixels that differ
// from the plain image are floor (both copies without sprites). For the radiosity mode (patches, another
// triangulation) the static check leaves out a one-pixel border around the
// floor.
// ctest labels: quick,gpu -- 8
#include "test_util.h"

#include "camera.h"
#include "render.h"
#include "world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 160
#define HEIGHT 96
#define NORTH_ROOM 3
#define MIN_FLOOR_PIXELS 1000
#define MIN_FLOOR_CHANGED 0.25 // of the floor's pixels, from one step to the next

static uint8_t *render(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_level_mesh *mesh,
                       const cs_view_camera *cam, bool level_baked, double seconds, bool world_frame)
{
    cs_render_frame frame = {.scene = world->fluids[0].scene, .camera = cam, .color_mode = -1, .hide_box = true,
                             .no_fog = true};
    cs_render_level level = {.mesh = mesh, .baked = level_baked, .time = seconds};
    cs_render_frame_add(&frame, CS_DRAWABLE_LEVEL, &level);
    cs_render_frame_add(&frame, CS_DRAWABLE_RADIOSITY, world->radiosity);
    // The radiosity's B is recorded once, with the first frame.
    return test_render(ctx, r, world_frame ? world : NULL, &frame, "level anim render");
}

static bool pixel_differs(const uint8_t *a, const uint8_t *b, size_t i) { return memcmp(a + 4 * i, b + 4 * i, 3) != 0; }

// A copy of the level mesh without its sprites (their corners collapsed
// onto their vertex: nothing drawn), the animated faces black if `dark`.
static cs_level_mesh mask_mesh(const cs_level_mesh *level, bool dark, uint64_t generation)
{
    cs_level_mesh copy = *level;
    copy.vertices = malloc((size_t)copy.vertex_count * sizeof *copy.vertices);
    CS_ASSERT(copy.vertices, "out of memory");
    memcpy(copy.vertices, level->vertices, (size_t)copy.vertex_count * sizeof *copy.vertices);
    for (uint32_t i = 0; i < copy.vertex_count; i++) {
        cs_level_vertex *v = &copy.vertices[i];
        if ((uint32_t)v->flags & CS_LEVEL_VERTEX_SPRITE)
            v->offset[0] = v->offset[1] = 0;
        if (dark && v->anim[0] > 0)
            v->light = 0;
    }
    copy.generation = generation; // uploaded anew
    return copy;
}

// The floor mask: where the animated faces drawn black change the image.
// Sprites are left out: the radiosity mode does not draw them, and shows
// the floor behind them.
static bool *floor_mask(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam,
                        uint32_t *count)
{
    cs_level_mesh lit = mask_mesh(&world->level, false, world->level.generation + 1000000);
    cs_level_mesh dark = mask_mesh(&world->level, true, world->level.generation + 1000001);
    uint8_t *plain = render(ctx, r, world, &lit, cam, true, 0, false);
    uint8_t *black = render(ctx, r, world, &dark, cam, true, 0, false);
    bool *mask = calloc((size_t)WIDTH * HEIGHT, sizeof *mask);
    CS_ASSERT(mask, "out of memory");
    *count = 0;
    for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++) {
        mask[i] = pixel_differs(plain, black, i);
        *count += mask[i];
    }
    free(plain), free(black), free(lit.vertices), free(dark.vertices);
    return mask;
}

// A pixel of the floor or next to one.
static bool near_floor(const bool *mask, int x, int y)
{
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int u = x + dx, v = y + dy;
            if (u >= 0 && v >= 0 && u < WIDTH && v < HEIGHT && mask[v * WIDTH + u])
                return true;
        }
    return false;
}

static void check_mode(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam, bool level_baked,
                       const bool *mask, uint32_t floor_pixels)
{
    const char *mode = level_baked ? "baked" : "radiosity";
    uint8_t *t0 = render(ctx, r, world, &world->level, cam, level_baked, 0.0, false);
    uint8_t *t1 = render(ctx, r, world, &world->level, cam, level_baked, 0.25, false);
    uint8_t *same_step = render(ctx, r, world, &world->level, cam, level_baked, 0.15, false);
    uint8_t *step2 = render(ctx, r, world, &world->level, cam, level_baked, 0.45, false);
    uint32_t floor_changed = 0, static_changed = 0, static_pixels = 0, same_changed = 0, step2_changed = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            size_t i = (size_t)y * WIDTH + x;
            bool differs = pixel_differs(t0, t1, i);
            if (mask[i]) {
                floor_changed += differs;
            } else if (level_baked || !near_floor(mask, x, y)) {
                static_pixels++;
                static_changed += differs;
                if (differs)
                    printf("%s: static pixel (%d, %d) changes\n", mode, x, y);
            }
            same_changed += pixel_differs(t0, same_step, i);
            step2_changed += pixel_differs(t0, step2, i);
        }
    printf("%s: step 0 -> 1: %u of %u floor pixels differ, %u of %u static pixels; step 0 at 0.15 s: %u differ; "
           "step 2: %u differ\n", mode, floor_changed, floor_pixels, static_changed, static_pixels, same_changed,
           step2_changed);
    CHECK(floor_changed >= MIN_FLOOR_CHANGED * floor_pixels,
          "%s: only %u of %u floor pixels change from step 0 to 1 (animated textures not cycled)", mode,
          floor_changed, floor_pixels);
    CHECK(static_pixels > (uint32_t)(WIDTH * HEIGHT / 4), "%s: only %u static pixels compared", mode, static_pixels);
    CHECK(static_changed == 0, "%s: %u pixels of static faces change with time", mode, static_changed);
    CHECK(same_changed == 0, "%s: %u pixels change within step 0 (t = 0.15 s)", mode, same_changed);
    CHECK(step2_changed == 0, "%s: step 2 of a 2-texture range is not step 0 (%u pixels differ)", mode,
          step2_changed);
    free(t0), free(t1), free(same_step), free(step2);
}

static void check_marked(const cs_level_mesh *mesh)
{
    uint32_t marked = 0, outside = 0;
    for (uint32_t ri = 0; ri < mesh->room_count; ri++) {
        const cs_level_room *room = &mesh->rooms[ri];
        for (uint32_t v = room->first_vertex; v < room->first_vertex + room->vertex_count; v++) {
            if (mesh->vertices[v].anim[0] == 0)
                continue;
            marked++;
            outside += ri != NORTH_ROOM || fabsf(mesh->vertices[v].position[1] - (float)room->min[1]) > 1e-5f;
        }
    }
    printf("anim: %u entries, %u vertices marked animated, %u of them off the north room's floor\n", mesh->anim_count,
           marked, outside);
    CHECK(mesh->anim_count == 2, "the demo level has %u animated entries (want its one range of 2)", mesh->anim_count);
    CHECK(marked > 0 && outside == 0, "%u vertices marked animated, %u off the north room's floor", marked, outside);
    CHECK(cs_level_anim_step(0.0) == 0 && cs_level_anim_step(0.15) == 0 && cs_level_anim_step(0.25) == 1 &&
              cs_level_anim_step(1.0) == 6 && cs_level_anim_step(-1.0) == 0,
          "cs_level_anim_step: floor(t x 30 / 5)");
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
    ok = cs_scene_load(CS_SOURCE_DIR "/scenes/level_radiosity_3d.json", &scene, &err);
    CHECK(ok, "level_radiosity_3d: %s", ok ? "" : err.msg);
    if (ok) {
        cs_world world;
        ok = cs_world_create(&ctx, &scene, &world, &err);
        bool made = ok && world.radiosity && world.has_level && world.level.room_count > NORTH_ROOM;
        CHECK(made, "world: %s", ok ? "no level, radiosity or north room" : err.msg);
        if (made) {
            check_marked(&world.level);
            const cs_level_room *north = &world.level.rooms[NORTH_ROOM];
            cs_view_camera cam;
            cs_camera_from_scene(&cam, &scene);
            // Above the room's south edge, looking north and down across the floor.
            double mid_x = 0.5 * (north->min[0] + north->max[0]);
            double height = north->max[1] - north->min[1];
            memcpy(cam.position, (double[3]){mid_x, north->min[1] + 0.7 * height, north->max[2] - 0.3},
                   sizeof cam.position);
            memcpy(cam.target, (double[3]){mid_x, north->min[1], 0.5 * (north->min[2] + north->max[2])},
                   sizeof cam.target);
            cam.near_plane = 0.05;
            free(render(&ctx, &r, &world, &world.level, &cam, false, 0.0, true)); // B computed once
            uint32_t floor_pixels;
            bool *mask = floor_mask(&ctx, &r, &world, &cam, &floor_pixels);
            printf("north room floor: %u of %u pixels\n", floor_pixels, WIDTH * HEIGHT);
            CHECK(floor_pixels >= MIN_FLOOR_PIXELS, "the camera sees only %u pixels of the animated floor",
                  floor_pixels);
            check_mode(&ctx, &r, &world, &cam, true, mask, floor_pixels);
            check_mode(&ctx, &r, &world, &cam, false, mask, floor_pixels);
            free(mask);
            cs_world_destroy(&world);
        }
        cs_scene_free(&scene);
    }
    cs_renderer_destroy(&r);
    return test_finish(&ctx);
}
