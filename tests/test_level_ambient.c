// test_level_ambient.c — a room's ambient light in the baked mode, on the
// shipped level (levels/cistern_demo.phd, read from the file). TR1 gives a
// placed static mesh either a constant intensity (0 bright .. 8191 dark) or,
// above 8191, none: then it is lit like an item, by its room's ambient (same
// scale: 0 bright, 8191 dark; from memory). The hall's (room 0) two placed
// meshes are switched to "no constant light":
//   1. every vertex of them carries the hall's ambient as its light
//      (cs_level_brightness(ambient)); the other rooms' meshes keep their
//      intensity; room faces keep their vertex light;
//   2. ambient 0 (bright) and 8191 (dark) give lights 8191/4096 and 0;
//   3. drawn (baked, headless) from a camera facing the hall's first mesh:
//      with ambient 0 the mesh's pixels are brighter than with 8191 (the
//      mean byte at least MIN_DRAWN_RATIO times), and no pixel off the
//      meshes changes.
// ctest labels: quick,gpu -- 1
#include "test_util.h"

#include "camera.h"
#include "level_mesh.h"
#include "render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 160
#define HEIGHT 96
#define HALL 0
#define MIN_DRAWN_RATIO 3.0
#define NO_CONSTANT_LIGHT 0xffffu

static bool build(cs_tr1_level *level, int16_t ambient, cs_level_mesh *mesh)
{
    level->rooms[HALL].ambient = ambient;
    cs_error err;
    bool ok = cs_level_mesh_build(level, CS_LEVEL_DEFAULT_UNITS_PER_METRE, mesh, &err);
    CHECK(ok, "mesh: %s", ok ? "" : err.msg);
    return ok;
}

// Checks every vertex's light; counts the hall's static vertices.
static uint32_t check_lights(const cs_tr1_level *level, const cs_level_mesh *mesh, double want_hall_static)
{
    uint32_t hall_static = 0, wrong = 0;
    for (uint32_t ri = 0; ri < mesh->room_count; ri++) {
        const cs_level_room *room = &mesh->rooms[ri];
        for (uint32_t i = room->first_vertex; i < room->first_vertex + room->vertex_count; i++) {
            const cs_level_vertex *v = &mesh->vertices[i];
            if (!((uint32_t)v->flags & CS_LEVEL_VERTEX_STATIC))
                continue;
            double want = ri == HALL ? want_hall_static : cs_level_brightness(level->rooms[ri].meshes[0].intensity);
            hall_static += ri == HALL;
            wrong += fabs(v->light - want) > 1e-6;
        }
    }
    CHECK(hall_static > 0 && wrong == 0, "%u static vertices lit wrongly (hall: %u, want %.4f)", wrong, hall_static,
          want_hall_static);
    return hall_static;
}

static uint8_t *render(cs_context *ctx, cs_renderer *r, const cs_scene *scene, const cs_level_mesh *mesh,
                       const cs_view_camera *cam)
{
    cs_render_frame frame = {.scene = scene, .camera = cam, .color_mode = -1, .hide_box = true, .no_fog = true};
    cs_render_level level = {.mesh = mesh};
    cs_render_frame_add(&frame, CS_DRAWABLE_LEVEL, &level);
    return test_render(ctx, r, NULL, &frame, "level ambient render");
}

static void check_drawn(cs_context *ctx, const cs_level_mesh *bright, const cs_level_mesh *dark)
{
    cs_renderer r;
    cs_error err;
    bool ok = cs_renderer_create(ctx, &(cs_renderer_desc){.width = WIDTH, .height = HEIGHT}, &r, &err);
    CHECK(ok, "renderer: %s", ok ? "" : err.msg);
    if (!ok)
        return;
    cs_scene scene = {.dim = 3, .domain_min = {0, 0, -8}, .domain_max = {8, 4, 0}};
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &scene);
    // In the hall, looking at its box (placed at 1.5 sectors = 3 m from the corner).
    memcpy(cam.position, (double[3]){6.0, 1.5, -6.0}, sizeof cam.position);
    memcpy(cam.target, (double[3]){3.0, 0.4, -3.0}, sizeof cam.target);
    cam.near_plane = 0.05;
    uint8_t *a = render(ctx, &r, &scene, bright, &cam);
    uint8_t *b = render(ctx, &r, &scene, dark, &cam);
    double sum_a = 0, sum_b = 0;
    uint32_t changed = 0;
    for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++) {
        if (memcmp(a + 4 * i, b + 4 * i, 3) == 0)
            continue;
        changed++;
        for (int c = 0; c < 3; c++)
            sum_a += a[4 * i + c], sum_b += b[4 * i + c];
    }
    double mean_a = changed ? sum_a / (3.0 * changed) : 0, mean_b = changed ? sum_b / (3.0 * changed) : 0;
    printf("drawn: %u pixels change with the hall's ambient, mean byte %.1f at ambient 0, %.1f at 8191\n", changed,
           mean_a, mean_b);
    CHECK(changed >= WIDTH * HEIGHT / 50, "only %u pixels show the hall's meshes", changed);
    CHECK(mean_a >= MIN_DRAWN_RATIO * mean_b, "ambient 0 is not brighter than 8191 on screen (%.1f vs %.1f)", mean_a,
          mean_b);
    free(a), free(b);
    cs_renderer_destroy(&r);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_tr1_level level;
    cs_error err;
    bool ok = cs_tr1_load(CS_SOURCE_DIR "/levels/cistern_demo.phd", &level, NULL, &err);
    CHECK(ok, "demo level: %s", ok ? "" : err.msg);
    if (!ok)
        return test_finish(&ctx);
    CHECK(level.rooms[HALL].mesh_count == 2, "the hall has %u placed meshes (want its box and pillar)",
          level.rooms[HALL].mesh_count);
    for (uint32_t m = 0; m < level.rooms[HALL].mesh_count; m++)
        level.rooms[HALL].meshes[m].intensity = NO_CONSTANT_LIGHT;
    int16_t shipped = level.rooms[HALL].ambient;
    cs_level_mesh as_shipped = {0}, bright = {0}, dark = {0};
    if (build(&level, shipped, &as_shipped) && build(&level, 0, &bright) && build(&level, 8191, &dark)) {
        uint32_t n = check_lights(&level, &as_shipped, cs_level_brightness(shipped));
        check_lights(&level, &bright, cs_level_brightness(0));
        check_lights(&level, &dark, cs_level_brightness(8191));
        CHECK(cs_level_brightness(0) > 1.99 && cs_level_brightness(8191) == 0.0,
              "TR1's scale: 0 is bright (%.4f), 8191 dark (%.4f)", cs_level_brightness(0), cs_level_brightness(8191));
        printf("hall: ambient %d -> light %.4f on %u static vertices; ambient 0 -> %.4f, 8191 -> 0\n", shipped,
               cs_level_brightness(shipped), n, cs_level_brightness(0));
        // Room faces keep their own vertex light whatever the ambient.
        uint32_t faces_changed = 0;
        for (uint32_t i = 0; i < bright.vertex_count; i++)
            faces_changed += !((uint32_t)bright.vertices[i].flags & CS_LEVEL_VERTEX_STATIC) &&
                             bright.vertices[i].light != dark.vertices[i].light;
        CHECK(faces_changed == 0, "%u room-face vertices follow the ambient", faces_changed);
        check_drawn(&ctx, &bright, &dark);
    }
    cs_level_mesh_free(&as_shipped), cs_level_mesh_free(&bright), cs_level_mesh_free(&dark);
    cs_tr1_free(&level);
    return test_finish(&ctx);
}
