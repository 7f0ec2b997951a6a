// test_vorton_arrows.c — the vortons drawn as arrows along their vorticity
// (host/render/feature_arrows.c, the "arrows" key of vorton_scene.c),
// headless through the world's own particle view. A thin ring (one vorton
// per station, so the arrows do not overlap) in the z = 0 plane, axis +z,
// seen from +z (world x = screen right, y = up); the vortons with x > 0 are
// made hot. Checks:
//   - every arrow's shaft is drawn: a pixel within 1 px of the point 0.5
//     length along omega from the vorton differs from the empty frame;
//   - along omega, not against it or across it: no pixel within 1 px of
//     the points 0.5 length behind the vorton or 0.5 length to either side
//     (in the ring's plane) is drawn;
//   - nothing is drawn farther than 2 px from every arrow (shaft and head);
//   - hot arrows are warmer (red minus blue) than cold ones;
//   - the key: with the scene's arrows on and the arrows feature flipped (its O key)
//     (the window's O), the image is exactly the empty frame; with the
//     scene's arrows off, nothing without the flip and the same arrows
//     with it.
// Fails with the arrows' feature missing (no shaft pixel) or their
// direction reversed (the behind points are drawn).
// ctest labels: quick,gpu -- 1
#include "test_util.h"

#include "camera.h"
#include "render.h"
#include "vorton.h"
#include "world.h"

#include "../shaders/render/render_shared.h"

#include <math.h>
#include <string.h>

#define WIDTH 320
#define HEIGHT 240
#define RING_RADIUS 0.5
#define SPACING 0.1
#define ARROW_LENGTH 0.05
#define T_HOT 400.0f

static const char *const k_scene =
    "{\"dim\": 3, \"domain\": {\"min\": [-1, -1, -1], \"max\": [1, 1, 1]}, \"gravity\": [0, 0, 0], \"dt\": 0.01,"
    " \"fluids\": [{\"solver\": \"vorton\", \"particle_spacing\": 0.1,"
    "   \"materials\": [{\"name\": \"air\"}],"
    "   \"blocks\": [{\"min\": [-0.05, -0.05, -0.05], \"max\": [0.05, 0.05, 0.05], \"material\": \"air\"}],"
    "   \"vorton\": {\"spacing\": 0.1, \"ambient_temperature\": 300, \"smoke\": {\"hot\": 400},"
    "     \"rings\": [{\"centre\": [0, 0, 0], \"axis\": [0, 0, 1], \"radius\": 0.5, \"core\": 0.03,"
    "                \"circulation\": 1}],"
    "     \"arrows\": {\"length\": 0.05}}}],"
    " \"camera\": {\"position\": [0, 0, 2], \"target\": [0, 0, 0], \"fov_degrees\": 40}}";

static uint8_t *render(cs_context *ctx, cs_renderer *r, const cs_render_frame *frame)
{
    return test_render(ctx, r, NULL, frame, "arrows render");
}

// The world's view with only the arrows (the tracers are not drawn: count
// 0), the scene's choice `shown`, the key's `flip`.
static uint8_t *render_arrows(cs_context *ctx, cs_renderer *r, cs_world *w, const cs_view_camera *cam, bool shown,
                              bool flip)
{
    cs_particle_view view;
    w->fluids[0].ops->particles(w->fluids[0].state, &view);
    view.count = 0;
    view.arrows.shown = shown;
    cs_render_frame frame = {.scene = w->fluids[0].scene, .camera = cam, .color_mode = -1, .hide_box = true,
                             .no_fog = true, .flipped = flip ? cs_render_feature_bit("arrows") : 0};
    CHECK(cs_render_feature_bit("arrows") && cs_render_features_of_key('O') == cs_render_feature_bit("arrows"),
          "the arrows feature is registered under its O key");
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &view);
    return render(ctx, r, &frame);
}

static bool drawn_at(const uint8_t *px, const uint8_t *bg, int x, int y)
{
    if (x < 0 || y < 0 || x >= WIDTH || y >= HEIGHT)
        return false;
    size_t i = (size_t)y * WIDTH + x;
    return memcmp(&px[4 * i], &bg[4 * i], 3) != 0;
}

// Any pixel within 1 px of the screen point s (pixel-centre coordinates).
static bool drawn_near(const uint8_t *px, const uint8_t *bg, const double s[2])
{
    int cx = (int)floor(s[0]), cy = (int)floor(s[1]);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            if (drawn_at(px, bg, cx + dx, cy + dy))
                return true;
    return false;
}

static double segment_distance(double x, double y, const double a[2], const double b[2])
{
    double ex = b[0] - a[0], ey = b[1] - a[1], len2 = ex * ex + ey * ey;
    double t = len2 > 0.0 ? fmin(fmax(((x - a[0]) * ex + (y - a[1]) * ey) / len2, 0.0), 1.0) : 0.0;
    return hypot(x - a[0] - t * ex, y - a[1] - t * ey);
}

static void project(const cs_camera_matrices *cm, const double p[3], double out[2])
{
    float f[3] = {(float)p[0], (float)p[1], (float)p[2]};
    double depth;
    bool seen = cs_camera_project(cm, WIDTH, HEIGHT, f, out, &depth);
    CHECK(seen, "a point of the ring is behind the camera");
}

static uint32_t count_differing(const uint8_t *a, const uint8_t *b)
{
    uint32_t n = 0;
    for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++)
        n += memcmp(&a[4 * i], &b[4 * i], 3) != 0;
    return n;
}

static void check_arrows(cs_context *ctx, cs_renderer *r, cs_world *w)
{
    cs_vorton *v = w->fluids[0].state;
    uint32_t n = v->count;
    float *pos = calloc(n, 16), *vort = calloc(n, 16);
    cs_vorton_download(v, pos, vort);
    for (uint32_t i = 0; i < n; i++)
        if (pos[i * 4] > 0.0f)
            vort[i * 4 + 3] = T_HOT;
    cs_vorton_upload(v, pos, vort, n);

    cs_view_camera cam;
    cs_camera_from_scene(&cam, w->scene);
    cs_camera_matrices cm;
    cs_camera_matrices_get(&cam, (double)WIDTH / HEIGHT, &cm);
    cs_render_frame empty = {.scene = w->fluids[0].scene, .camera = &cam, .color_mode = -1, .hide_box = true,
                             .no_fog = true};
    uint8_t *bg = render(ctx, r, &empty);
    uint8_t *px = render_arrows(ctx, r, w, &cam, true, false);
    uint8_t *flipped = render_arrows(ctx, r, w, &cam, true, true);
    uint8_t *hidden = render_arrows(ctx, r, w, &cam, false, false);
    uint8_t *keyed = render_arrows(ctx, r, w, &cam, false, true);

    // Each arrow on screen: tail, tip, the head's two stroke ends, and the
    // sample points ahead, behind and to the sides.
    double (*segments)[4][2] = calloc(n, sizeof *segments);
    uint32_t shaft_drawn = 0, behind_drawn = 0, side_drawn = 0;
    long hot_warmth = 0, cold_warmth = 0;
    uint32_t hot_count = 0, cold_count = 0;
    for (uint32_t i = 0; i < n; i++) {
        double p[3] = {pos[i * 4], pos[i * 4 + 1], pos[i * 4 + 2]};
        double w3[3] = {vort[i * 4], vort[i * 4 + 1], vort[i * 4 + 2]};
        double size = sqrt(w3[0] * w3[0] + w3[1] * w3[1] + w3[2] * w3[2]);
        double d[3] = {w3[0] / size, w3[1] / size, w3[2] / size};
        double radial[3] = {p[0] / RING_RADIUS, p[1] / RING_RADIUS, 0.0};
        double tip[3], ahead[3], behind[3], left[3], right[3], back_l[3], back_r[3];
        for (int a = 0; a < 3; a++) {
            tip[a] = p[a] + ARROW_LENGTH * d[a];
            ahead[a] = p[a] + 0.5 * ARROW_LENGTH * d[a];
            behind[a] = p[a] - 0.5 * ARROW_LENGTH * d[a];
            left[a] = p[a] + 0.5 * ARROW_LENGTH * radial[a];
            right[a] = p[a] - 0.5 * ARROW_LENGTH * radial[a];
            back_l[a] = tip[a] - CS_RENDER_ARROW_HEAD * ARROW_LENGTH * d[a] +
                        CS_RENDER_ARROW_HEAD_WIDTH * ARROW_LENGTH * radial[a];
            back_r[a] = tip[a] - CS_RENDER_ARROW_HEAD * ARROW_LENGTH * d[a] -
                        CS_RENDER_ARROW_HEAD_WIDTH * ARROW_LENGTH * radial[a];
        }
        double s_ahead[2], s_behind[2], s_left[2], s_right[2];
        project(&cm, p, segments[i][0]);
        project(&cm, tip, segments[i][1]);
        project(&cm, back_l, segments[i][2]);
        project(&cm, back_r, segments[i][3]);
        project(&cm, ahead, s_ahead);
        project(&cm, behind, s_behind);
        project(&cm, left, s_left);
        project(&cm, right, s_right);
        shaft_drawn += drawn_near(px, bg, s_ahead);
        behind_drawn += drawn_near(px, bg, s_behind);
        side_drawn += drawn_near(px, bg, s_left) + drawn_near(px, bg, s_right);
        size_t at = (size_t)floor(s_ahead[1]) * WIDTH + (size_t)floor(s_ahead[0]);
        if (drawn_at(px, bg, (int)floor(s_ahead[0]), (int)floor(s_ahead[1]))) {
            int warmth = (int)px[4 * at] - (int)px[4 * at + 2];
            if (vort[i * 4 + 3] == T_HOT)
                hot_warmth += warmth, hot_count++;
            else
                cold_warmth += warmth, cold_count++;
        }
    }
    uint32_t stray = 0, drawn = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            if (!drawn_at(px, bg, x, y))
                continue;
            drawn++;
            double best = 1e30, cx = x + 0.5, cy = y + 0.5;
            for (uint32_t i = 0; i < n; i++)
                for (int k = 1; k < 4; k++)
                    best = fmin(best, segment_distance(cx, cy, segments[i][k == 1 ? 0 : 1], segments[i][k]));
            stray += best > 2.0;
        }
    double arrow_px = hypot(segments[0][1][0] - segments[0][0][0], segments[0][1][1] - segments[0][0][1]);
    double hot_mean = hot_count ? (double)hot_warmth / hot_count : 0.0;
    double cold_mean = cold_count ? (double)cold_warmth / cold_count : 0.0;
    uint32_t flipped_px = count_differing(flipped, bg), hidden_px = count_differing(hidden, bg);
    uint32_t keyed_diff = count_differing(keyed, px);
    printf("%u vortons, arrows %.1f px long; shaft drawn at %u, behind the vorton at %u, beside it at %u of %u; %u "
           "pixels drawn, %u farther than 2 px from every arrow; warmth (r - b) hot %.1f (%u), cold %.1f (%u)\n",
           n, arrow_px, shaft_drawn, behind_drawn, side_drawn, 2 * n, drawn, stray, hot_mean, hot_count, cold_mean,
           cold_count);
    printf("key: scene on + flip %u pixels drawn; scene off %u; scene off + flip differs from scene on at %u\n",
           flipped_px, hidden_px, keyed_diff);
    CHECK(n >= 20, "the ring has %u vortons", n);
    CHECK(arrow_px > 6.0, "the arrows are too short on screen (%.1f px) for the test to mean anything", arrow_px);
    CHECK(shaft_drawn == n, "%u of %u arrows have no pixel along their vorticity", n - shaft_drawn, n);
    CHECK(behind_drawn == 0, "%u arrows are drawn behind their vorton (against omega)", behind_drawn);
    CHECK(side_drawn == 0, "%u points beside the vortons (across omega) are drawn", side_drawn);
    CHECK(stray == 0, "%u pixels are drawn away from every arrow", stray);
    CHECK(hot_count > 0 && cold_count > 0 && hot_mean > cold_mean + 40.0,
          "hot arrows are not warmer: r - b %.1f (hot) vs %.1f (cold)", hot_mean, cold_mean);
    CHECK(flipped_px == 0, "the key does not hide the scene's arrows: %u pixels drawn", flipped_px);
    CHECK(hidden_px == 0, "arrows drawn with the scene's arrows off: %u pixels", hidden_px);
    CHECK(keyed_diff == 0, "the key does not show the arrows the scene hides (%u pixels differ)", keyed_diff);
    free(segments);
    free(bg), free(px), free(flipped), free(hidden), free(keyed);
    free(pos), free(vort);
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
    if (test_world_from_json(&ctx, k_scene, "arrows test", &scene, &world)) {
        check_arrows(&ctx, &r, &world);
        test_world_free(&world, &scene);
    }
    cs_renderer_destroy(&r);
    return test_finish(&ctx);
}
