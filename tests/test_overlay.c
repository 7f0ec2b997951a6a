// test_overlay.c — the on-screen overlay (feature_overlay.c):
//   - the text: same-named passes (one per substep) are summed, the `top`
//     largest are listed largest first, then the frame's total;
//   - the image: a frame drawn with the overlay differs from the same frame
//     without it only inside the panel cs_render_overlay_panel reports (the
//     top-left corner), and there it shows both the panel colour and text;
//   - the same on a UNORM target (the shader encodes sRGB).
// ctest labels: quick,gpu -- 1.4
#include "test_util.h"

#include "camera.h"
#include "render.h"
#include "scene.h"

#define WIDTH 320
#define HEIGHT 240

static void check_format(void)
{
    cs_pass_timing passes[] = {{"grid: sort", 1.0}, {"pbf: lambda", 5.0}, {"grid: sort", 3.0}, {"draw", 0.5}};
    cs_recorder rec = {.passes = passes, .pass_count = 4};
    char text[512];
    cs_render_overlay_format(&rec, 2, text, sizeof text);
    printf("overlay text:\n%s", text);
    const char *lambda = strstr(text, "5.00  pbf: lambda"), *sort = strstr(text, "4.00  grid: sort");
    CHECK(lambda && sort && lambda < sort, "the two largest, summed by name, largest first: %s", text);
    CHECK(!strstr(text, "draw"), "only the top 2 passes are listed: %s", text);
    CHECK(strstr(text, "9.50  total, 4 passes"), "the total of every pass: %s", text);
}

// Draws the scene's empty frame (background, box), with `overlay` or none.
static uint8_t *render(cs_context *ctx, cs_renderer *r, const cs_scene *scene, const cs_view_camera *cam,
                       const char *overlay)
{
    cs_render_frame frame = {.scene = scene, .camera = cam, .color_mode = -1, .overlay = overlay};
    return test_render(ctx, r, NULL, &frame, "overlay render");
}

static bool pixel_in(const float rect[4], uint32_t x, uint32_t y)
{
    float cx = (float)x + 0.5f, cy = (float)y + 0.5f;
    return cx >= rect[0] && cx <= rect[2] && cy >= rect[1] && cy <= rect[3];
}

static void check_image(cs_context *ctx, VkFormat format, const cs_scene *scene)
{
    cs_renderer r;
    cs_error err = {{0}};
    bool ok = cs_renderer_create(ctx, &(cs_renderer_desc){.color_format = format, .width = WIDTH, .height = HEIGHT},
                                 &r, &err);
    CHECK(ok, "renderer: %s", ok ? "" : err.msg);
    if (!ok)
        return;
    cs_view_camera cam;
    cs_camera_from_scene(&cam, scene);
    const char *text = "GPU ms a frame\n   12.34  pbf: lambda\n    0.56  draw\n   12.90  total, 2 passes\n";
    uint8_t *plain = render(ctx, &r, scene, &cam, NULL), *shown = render(ctx, &r, scene, &cam, text);
    float panel[4];
    cs_render_overlay_panel(text, panel);
    CHECK(panel[2] < WIDTH && panel[3] < HEIGHT, "the panel fits the test image: %.0f x %.0f", panel[2], panel[3]);
    uint32_t outside_changed = 0, inside = 0, inside_changed = 0, ink = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            const uint8_t *a = plain + 4 * ((size_t)y * WIDTH + x), *b = shown + 4 * ((size_t)y * WIDTH + x);
            bool changed = memcmp(a, b, 4) != 0;
            if (!pixel_in(panel, x, y)) {
                outside_changed += changed;
                continue;
            }
            inside++;
            inside_changed += changed;
            ink += b[0] > 200 && b[2] < 180; // the text's yellow, not the dark panel
        }
    printf("format %d: panel %.0f,%.0f-%.0f,%.0f: %u of %u pixels changed, %u text pixels; %u changed outside\n",
           (int)format, panel[0], panel[1], panel[2], panel[3], inside_changed, inside, ink, outside_changed);
    CHECK(outside_changed == 0, "%u pixels changed outside the overlay's panel", outside_changed);
    CHECK(inside_changed > inside / 2, "only %u of %u panel pixels changed", inside_changed, inside);
    CHECK(ink > 100 && ink < inside / 2, "%u text pixels in a panel of %u", ink, inside);
    free(plain), free(shown);
    cs_renderer_destroy(&r);
}

int main(void)
{
    check_format();
    cs_context ctx;
    test_context(&ctx);
    cs_scene scene;
    cs_error err;
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/dam_break_3d.json", &scene, &err), "%s", err.msg);
    check_image(&ctx, 0, &scene);                        // sRGB offscreen image
    check_image(&ctx, VK_FORMAT_B8G8R8A8_UNORM, &scene); // a swapchain's format: the shader encodes
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
