// test_vorton_smoke.c — the vorton tracers drawn as smoke sprites
// (host/render/feature_smoke.c, the "smoke" key of vorton_scene.c), headless
// through the world's own particle view. A known tracer set replaces the
// scene's tracers, the camera looks down -z at it (world x = screen right):
//   - a hot tracer (T = the ramp's hot end) and a cold one (T0), apart: the
//     pixel at each is drawn (differs from the empty frame), every pixel
//     farther than the sprite's reach (3 sigma, one pixel of margin) from
//     every tracer is exactly the background, and the hot one is warmer
//     (red minus blue larger by > 40 of 255) than the cold one, which is
//     near grey;
//   - additive blending is order-independent: the same set, overlapping
//     pairs of hot and cold sprites included, drawn in reverse order gives
//     the same image within 1 of 255 (8-bit rounding between blends).
// With the sprites drawn as spheres (the particle feature, material colour)
// or the ramp not read, the warmth check fails.
// ctest labels: quick,gpu -- 1
#include "test_util.h"

#include "camera.h"
#include "render.h"
#include "vorton.h"
#include "world.h"

#include <math.h>
#include <string.h>

#define WIDTH 160
#define HEIGHT 120
#define SIGMA 0.04
#define T_COLD 300.0
#define T_HOT 400.0

static const char *const k_scene =
    "{\"dim\": 3, \"domain\": {\"min\": [-1, -1, -1], \"max\": [1, 1, 1]}, \"gravity\": [0, 0, 0], \"dt\": 0.01,"
    " \"fluids\": [{\"solver\": \"vorton\", \"particle_spacing\": 0.1,"
    "   \"materials\": [{\"name\": \"air\", \"color\": [0.2, 0.6, 0.9]}],"
    "   \"blocks\": [{\"min\": [-0.2, -0.2, -0.2], \"max\": [0.2, 0.2, 0.2], \"material\": \"air\"}],"
    "   \"vorton\": {\"spacing\": 0.1, \"ambient_temperature\": 300,"
    "     \"smoke\": {\"radius\": 0.04, \"brightness\": 6, \"hot\": 400}}}],"
    " \"camera\": {\"position\": [0, 0, 2], \"target\": [0, 0, 0], \"fov_degrees\": 40}}";

// x, y, z, T: hot left, cold right, and two overlapping hot/cold pairs.
static const float k_tracers[][4] = {
    {-0.35f, -0.15f, 0.0f, (float)T_HOT}, {0.35f, -0.15f, 0.0f, (float)T_COLD},
    {-0.05f, 0.25f, 0.0f, (float)T_HOT},  {-0.02f, 0.26f, 0.05f, (float)T_COLD},
    {0.30f, 0.30f, -0.1f, (float)T_COLD}, {0.33f, 0.28f, -0.05f, (float)T_HOT},
};
#define TRACERS (sizeof k_tracers / sizeof k_tracers[0])

static uint8_t *render(cs_context *ctx, cs_renderer *r, const cs_render_frame *frame)
{
    return test_render(ctx, r, NULL, frame, "smoke render");
}

// Uploads the tracer set, forwards or reversed, and draws the world's view.
static uint8_t *render_tracers(cs_context *ctx, cs_renderer *r, cs_world *w, const cs_view_camera *cam,
                               bool reversed)
{
    float pos4[TRACERS][4];
    for (uint32_t i = 0; i < TRACERS; i++)
        memcpy(pos4[i], k_tracers[reversed ? TRACERS - 1 - i : i], sizeof pos4[i]);
    cs_vorton *v = w->fluids[0].state;
    cs_vorton_upload_tracers(v, &pos4[0][0], TRACERS);
    cs_particle_view view;
    w->fluids[0].ops->particles(w->fluids[0].state, &view);
    CHECK(view.smoke.radius > 0.0f, "the vorton view does not ask for smoke");
    cs_render_frame frame = {.scene = w->fluids[0].scene, .camera = cam, .color_mode = -1, .hide_box = true,
                             .no_fog = true};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &view);
    return render(ctx, r, &frame);
}

static int pixel_distance(const uint8_t *a, const uint8_t *b, size_t i)
{
    int d = 0;
    for (int c = 0; c < 3; c++)
        d = CS_MAX(d, abs((int)a[4 * i + c] - (int)b[4 * i + c]));
    return d;
}

static void check_smoke(cs_context *ctx, cs_renderer *r, cs_world *w)
{
    cs_view_camera cam;
    cs_camera_from_scene(&cam, w->scene);
    cs_camera_matrices cm;
    cs_camera_matrices_get(&cam, (double)WIDTH / HEIGHT, &cm);
    cs_render_frame empty = {.scene = w->fluids[0].scene, .camera = &cam, .color_mode = -1, .hide_box = true,
                             .no_fog = true};
    uint8_t *bg = render(ctx, r, &empty);
    uint8_t *px = render_tracers(ctx, r, w, &cam, false);
    uint8_t *rev = render_tracers(ctx, r, w, &cam, true);

    // Each tracer's pixel and its sprite's reach on screen (3 sigma).
    double centre[TRACERS][2], reach[TRACERS];
    for (uint32_t i = 0; i < TRACERS; i++) {
        float p[3] = {k_tracers[i][0], k_tracers[i][1], k_tracers[i][2]};
        float q[3] = {p[0] + (float)(3.0 * SIGMA), p[1], p[2]};
        double edge[2], depth;
        bool seen = cs_camera_project(&cm, WIDTH, HEIGHT, p, centre[i], &depth) &&
                    cs_camera_project(&cm, WIDTH, HEIGHT, q, edge, &depth);
        CHECK(seen, "tracer %u is behind the camera", i);
        reach[i] = fabs(edge[0] - centre[i][0]);
    }
    uint32_t outside = 0, outside_drawn = 0, order_max = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            size_t i = (size_t)y * WIDTH + x;
            order_max = CS_MAX(order_max, (uint32_t)pixel_distance(px, rev, i));
            bool far = true;
            for (uint32_t t = 0; t < TRACERS; t++)
                far = far && hypot(x + 0.5 - centre[t][0], y + 0.5 - centre[t][1]) > reach[t] + 1.0;
            if (far) {
                outside++;
                outside_drawn += pixel_distance(px, bg, i) != 0;
            }
        }
    size_t hot = (size_t)centre[0][1] * WIDTH + (size_t)centre[0][0];
    size_t cold = (size_t)centre[1][1] * WIDTH + (size_t)centre[1][0];
    const uint8_t *h = &px[4 * hot], *c = &px[4 * cold];
    int hot_warmth = (int)h[0] - (int)h[2], cold_warmth = (int)c[0] - (int)c[2];
    printf("sprite reach %.1f px; hot pixel rgb %u %u %u (background %u %u %u), cold %u %u %u; warmth (r - b) hot %d, "
           "cold %d\n",
           reach[0], h[0], h[1], h[2], bg[4 * hot], bg[4 * hot + 1], bg[4 * hot + 2], c[0], c[1], c[2], hot_warmth,
           cold_warmth);
    printf("%u pixels beyond every sprite's reach: %u drawn; reversed order: max difference %u of 255\n", outside,
           outside_drawn, order_max);
    CHECK(reach[0] > 3.0, "the sprites are too small on screen (%.1f px) for the test to mean anything", reach[0]);
    CHECK(pixel_distance(px, bg, hot) > 40 && pixel_distance(px, bg, cold) > 40,
          "a tracer's pixel is (nearly) background: hot differs by %d, cold by %d", pixel_distance(px, bg, hot),
          pixel_distance(px, bg, cold));
    CHECK(outside > (uint32_t)(WIDTH * HEIGHT / 2) && outside_drawn == 0,
          "%u of %u pixels beyond every sprite's reach are drawn", outside_drawn, outside);
    CHECK(hot_warmth > cold_warmth + 40, "the hot tracer is not warmer: r - b %d (hot) vs %d (cold)", hot_warmth,
          cold_warmth);
    CHECK(abs(cold_warmth) < 20, "the cold tracer is not grey: r - b = %d", cold_warmth);
    CHECK(order_max <= 1, "drawing order changes the image by %u of 255", order_max);
    free(bg), free(px), free(rev);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_renderer r;
    cs_error err = {{0}};
    bool ok = cs_renderer_create(&ctx, &(cs_renderer_desc){.width = WIDTH, .height = HEIGHT}, &r, &err);
    CHECK(ok, "renderer: %s", ok ? "" : err.msg);
    if (!ok)
        return test_finish(&ctx);
    cs_scene scene;
    cs_world world;
    if (test_world_from_json(&ctx, k_scene, "smoke test", &scene, &world)) {
        check_smoke(&ctx, &r, &world);
        test_world_free(&world, &scene);
    }
    cs_renderer_destroy(&r);
    return test_finish(&ctx);
}
