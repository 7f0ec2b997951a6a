// test_floor_grid.c — the floor grid (feature_floor.c), the render feature
// added with nothing but its own file, shaders and registry line:
//   - off by default: a frame of a scene that does not name it is the same
//     image as before the feature existed would be (checked for every
//     shipped scene by tools/compare_outputs.sh; here: off = flipped twice);
//   - render.features "floor_grid" draws it: against a CPU projection of
//     the grid's lines, pixels along every line change and no pixel farther
//     than 2 px from a line does;
//   - its F key (cs_render_frame's flipped) turns it off where the scene
//     asks for it and on where the scene does not;
//   - a misspelt name is refused with "did you mean".
// ctest labels: quick,gpu -- 1 (the floor grid: a feature added as its own file)
#include "test_util.h"

#include "camera.h"
#include "render.h"
#include "scene.h"

#include <math.h>

#define WIDTH 240
#define HEIGHT 160

static uint8_t *render(cs_context *ctx, cs_renderer *r, const cs_scene *scene, const cs_view_camera *cam,
                       uint32_t flipped)
{
    cs_render_frame frame = {.scene = scene, .camera = cam, .color_mode = -1, .hide_box = true, .no_fog = true,
                             .flipped = flipped};
    return test_render(ctx, r, NULL, &frame, "floor grid render");
}

static uint32_t pixels_differ(const uint8_t *a, const uint8_t *b)
{
    uint32_t n = 0;
    for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++)
        n += memcmp(a + 4 * i, b + 4 * i, 3) != 0;
    return n;
}

// The grid's lines projected to pixels: segment k from seg[k][0..1] to seg[k][2..3].
static uint32_t grid_segments(const cs_scene *s, const cs_camera_matrices *m, double (*seg)[4], uint32_t max)
{
    double wx = (double)s->domain_max[0] - s->domain_min[0], wz = (double)s->domain_max[2] - s->domain_min[2];
    double cell = fmax(wx, wz) / 10.0;
    uint32_t n = 0;
    for (int along = 0; along < 2; along++) {
        double extent = along == 0 ? wx : wz;
        for (uint32_t k = 0; k * cell <= extent + 1e-9 && n < max; k++) {
            float a[3] = {s->domain_min[0], s->domain_min[1], s->domain_min[2]}, b[3];
            int across = along == 0 ? 0 : 2, runs = along == 0 ? 2 : 0;
            a[across] = (float)(s->domain_min[across] + k * cell);
            memcpy(b, a, sizeof b);
            b[runs] = s->domain_max[runs];
            double pa[2], pb[2], depth;
            CS_ASSERT(cs_camera_project(m, WIDTH, HEIGHT, a, pa, &depth) &&
                          cs_camera_project(m, WIDTH, HEIGHT, b, pb, &depth),
                      "a grid corner behind the camera");
            seg[n][0] = pa[0], seg[n][1] = pa[1], seg[n][2] = pb[0], seg[n][3] = pb[1];
            n++;
        }
    }
    return n;
}

static double distance_to_segment(const double p[2], const double s[4])
{
    double dx = s[2] - s[0], dy = s[3] - s[1];
    double len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((p[0] - s[0]) * dx + (p[1] - s[1]) * dy) / len2 : 0;
    t = fmin(fmax(t, 0), 1);
    double ex = s[0] + t * dx - p[0], ey = s[1] + t * dy - p[1];
    return sqrt(ex * ex + ey * ey);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_scene scene;
    cs_error err;
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/dam_break_3d.json", &scene, &err), "%s", err.msg);
    scene.render.features[0] = '\0'; // the grid alone (the scene's sky and tiles would cover what it shows)
    uint32_t bit = cs_render_feature_bit("floor_grid");
    CHECK(bit != 0 && cs_render_features_of_key('F') == bit, "floor_grid is registered under its F key");

    cs_renderer r;
    CS_ASSERT(cs_renderer_create(&ctx, &(cs_renderer_desc){.width = WIDTH, .height = HEIGHT}, &r, &err), "%s",
              err.msg);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &scene);
    uint8_t *off = render(&ctx, &r, &scene, &cam, 0);
    uint8_t *key_on = render(&ctx, &r, &scene, &cam, bit);
    snprintf(scene.render.features, sizeof scene.render.features, "floor_grid");
    CHECK(cs_render_check_scene(&scene, &err), "render.features \"floor_grid\" refused: %s", err.msg);
    uint8_t *on = render(&ctx, &r, &scene, &cam, 0);
    uint8_t *key_off = render(&ctx, &r, &scene, &cam, bit);

    CHECK(pixels_differ(on, key_on) == 0, "the F key draws the same grid the scene asks for");
    CHECK(pixels_differ(off, key_off) == 0, "the F key hides the grid the scene asks for");

    cs_camera_matrices m;
    cs_camera_matrices_get(&cam, (double)WIDTH / HEIGHT, &m);
    double seg[64][4];
    uint32_t segments = grid_segments(&scene, &m, seg, 64);
    CHECK(segments >= 4, "%u grid lines", segments);
    // Along each line (away from its ends): the pixel under it, or one
    // beside it, changed.
    uint32_t samples = 0, hit = 0;
    for (uint32_t k = 0; k < segments; k++)
        for (int i = 1; i < 10; i++) {
            double t = i / 10.0;
            int x = (int)floor(seg[k][0] + t * (seg[k][2] - seg[k][0]));
            int y = (int)floor(seg[k][1] + t * (seg[k][3] - seg[k][1]));
            if (x < 1 || y < 1 || x >= WIDTH - 1 || y >= HEIGHT - 1)
                continue;
            samples++;
            bool changed = false;
            for (int dy = -1; dy <= 1 && !changed; dy++)
                for (int dx = -1; dx <= 1 && !changed; dx++) {
                    size_t at = 4 * ((size_t)(y + dy) * WIDTH + (size_t)(x + dx));
                    changed = memcmp(on + at, off + at, 3) != 0;
                }
            hit += changed;
        }
    // Far from every line: unchanged.
    uint32_t far_changed = 0, changed = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            size_t at = 4 * ((size_t)y * WIDTH + x);
            if (memcmp(on + at, off + at, 3) == 0)
                continue;
            changed++;
            double p[2] = {x + 0.5, y + 0.5}, nearest = INFINITY;
            for (uint32_t k = 0; k < segments; k++)
                nearest = fmin(nearest, distance_to_segment(p, seg[k]));
            far_changed += nearest > 2.0;
        }
    printf("floor grid: %u lines, %u of %u samples along them drawn, %u pixels changed, %u of them far from a line\n",
           segments, hit, samples, changed, far_changed);
    CHECK(samples > 50 && hit == samples, "%u of %u samples along the grid's lines drawn", hit, samples);
    CHECK(far_changed == 0, "%u pixels farther than 2 px from every line changed", far_changed);

    snprintf(scene.render.features, sizeof scene.render.features, "flor_grid");
    bool refused = !cs_render_check_scene(&scene, &err);
    CHECK(refused && strstr(err.msg, "render.features") && strstr(err.msg, "did you mean \"floor_grid\""),
          "a misspelt feature: %s", refused ? err.msg : "accepted");

    free(off), free(on), free(key_on), free(key_off);
    cs_renderer_destroy(&r);
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
