// test_window.c — a real window under X (Xvfb when there is no display):
// GLFW loaded at run time, a swapchain, frames of a synthetic fluid blob
// drawn and presented, a screenshot copied out of the swapchain image and
// compared with the headless renderer's picture of the same frame, then a
// resize (the swapchain is rebuilt at the new size) and a vsync switch.
//
// Without a DISPLAY (or with one that does not open) the test re-runs
// itself under `xvfb-run -a`. It exits with 77 (skipped) only when no X
// server can be started (no Xvfb) or GLFW is not installed.
// ctest labels: window,gpu -- 0.8
#define _DEFAULT_SOURCE
#include "test_util.h"

#include "render.h"
#include "window.h"

#include <errno.h>
#include <unistd.h>

#define SKIP_CODE 77

static bool on_path(const char *program)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char buf[1024];
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, program);
        if (access(buf, X_OK) == 0)
            return true;
        p += len + (end ? 1 : 0);
    }
    return false;
}

// Re-executes this test inside xvfb-run when there is no display.
static int ensure_display(char **argv)
{
    const char *display = getenv("DISPLAY");
    if (display && *display)
        return 0;
    if (getenv("CS_TEST_WINDOW_IN_XVFB")) {
        fprintf(stderr, "SKIP: xvfb-run gave no DISPLAY\n");
        return SKIP_CODE;
    }
    if (!on_path("xvfb-run") || !on_path("Xvfb")) {
        fprintf(stderr, "SKIP: no DISPLAY and no Xvfb to start an X server (apt-get install xvfb)\n");
        return SKIP_CODE;
    }
    setenv("CS_TEST_WINDOW_IN_XVFB", "1", 1);
    fprintf(stderr, "no DISPLAY: running under xvfb-run\n");
    fflush(stderr);
    execlp("xvfb-run", "xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", argv[0], (char *)NULL);
    fprintf(stderr, "SKIP: cannot run xvfb-run: %s\n", strerror(errno));
    return SKIP_CODE;
}

// A ball of particles on a lattice, one material: the "fluid blob".
static uint32_t make_blob(float *pos4, uint32_t capacity, float radius, float spacing)
{
    uint32_t n = 0;
    int k = (int)(radius / spacing);
    for (int z = -k; z <= k; z++)
        for (int y = -k; y <= k; y++)
            for (int x = -k; x <= k; x++) {
                float p[3] = {x * spacing, y * spacing, z * spacing};
                if (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > radius * radius || n >= capacity)
                    continue;
                pos4[4 * n + 0] = p[0];
                pos4[4 * n + 1] = p[1];
                pos4[4 * n + 2] = p[2];
                pos4[4 * n + 3] = 0;
                n++;
            }
    return n;
}

typedef struct frame_check {
    uint32_t width, height;
    uint32_t blob_pixels;
    uint32_t inner_pixels, inner_blob;
    bool center_is_blob;
    int max_diff_headless;
} frame_check;

static bool is_blob_colour(const uint8_t *p)
{
    // Orange, shaded: red clearly above green, green clearly above blue.
    return p[0] > 90 && p[0] > p[1] + 30 && p[1] > p[2] + 20;
}

// Draws `frames` frames; the last one with a screenshot, which is checked
// against the headless renderer's image of the same frame.
static const float blob_radius = 0.55f;

static frame_check draw_frames(cs_context *ctx, cs_window *win, cs_renderer *r, const cs_scene *scene,
                               cs_particle_view *view, const cs_view_camera *cam, int frames, double *fps)
{
    frame_check fc = {0};
    cs_recorder rec;
    cs_recorder_create(ctx, "window frame", &rec);
    double t0 = cs_now_seconds();
    int drawn = 0;
    for (int f = 0; f < frames * 4 && drawn < frames; f++) {
        cs_window_events ev;
        cs_window_poll(win, &ev);
        CHECK(!ev.quit, "nobody asked to quit");
        cs_render_target target;
        if (!cs_window_acquire(win, &target))
            continue;
        bool shot = drawn == frames - 1;
        cs_recorder_begin(&rec);
        cs_barrier_compute_to_graphics(&rec);
        cs_render_frame frame = {.target = &target, .scene = scene, .camera = cam, .color_mode = -1};
        cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, view);
        cs_render_record(r, &rec, &frame);
        cs_window_record_present(win, &rec, shot);
        cs_recorder_submit_wait(&rec);
        cs_window_present(win);
        drawn++;
        if (f == 0) {
            char title[512];
            cs_window_format_title(title, sizeof title, scene->name, 60.0, view->count, 0, false, &rec);
            CHECK(strstr(title, "draw") != NULL, "the title lists the draw pass: %s", title);
            cs_window_set_title(win, title);
        }
    }
    *fps = drawn / (cs_now_seconds() - t0);
    cs_recorder_destroy(&rec);
    CHECK(drawn == frames, "drew %d of %d frames", drawn, frames);

    uint32_t w = 0, h = 0;
    const uint8_t *shot = cs_window_screenshot(win, &w, &h);
    CHECK(shot != NULL, "a screenshot was taken from the swapchain");
    if (!shot)
        return fc;
    fc.width = w;
    fc.height = h;
    for (size_t i = 0; i < (size_t)w * h; i++)
        fc.blob_pixels += is_blob_colour(shot + 4 * i);
    cs_camera_matrices m;
    cs_camera_matrices_get(cam, (double)w / h, &m);
    double px[2];
    cs_camera_project(&m, w, h, (float[3]){0, 0, 0}, px, NULL);
    fc.center_is_blob = is_blob_colour(shot + 4 * ((size_t)px[1] * w + (size_t)px[0]));
    // Inside 70% of the blob's projected radius every pixel is blob.
    double d = sqrt(cam->position[0] * cam->position[0] + cam->position[1] * cam->position[1] +
                    cam->position[2] * cam->position[2]);
    double angle = asin(blob_radius / d);
    double radius_px = tan(angle) / tan(0.5 * cam->fov_degrees * 3.14159265358979 / 180.0) * 0.5 * h;
    for (int y = 0; y < (int)h; y++)
        for (int x = 0; x < (int)w; x++) {
            double dx = x + 0.5 - px[0], dy = y + 0.5 - px[1];
            if (dx * dx + dy * dy > 0.49 * radius_px * radius_px)
                continue;
            fc.inner_pixels++;
            fc.inner_blob += is_blob_colour(shot + 4 * ((size_t)y * w + (size_t)x));
        }

    // The same frame, headless: the window must show exactly that picture.
    cs_renderer headless;
    cs_error err;
    if (!cs_renderer_create(ctx, &(cs_renderer_desc){.width = w, .height = h}, &headless, &err)) {
        CHECK(false, "headless renderer: %s", err.msg);
        return fc;
    }
    cs_recorder_create(ctx, "headless frame", &rec);
    cs_recorder_begin(&rec);
    cs_render_frame frame = {.scene = scene, .camera = cam, .color_mode = -1};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, view);
    cs_render_record(&headless, &rec, &frame);
    cs_render_record_readback(&headless, &rec);
    cs_recorder_submit_wait(&rec);
    const uint8_t *ref = cs_render_pixels(&headless);
    for (size_t i = 0; i < (size_t)w * h * 4; i++)
        if (i % 4 != 3)
            fc.max_diff_headless = CS_MAX(fc.max_diff_headless, abs(shot[i] - ref[i]));
    cs_recorder_destroy(&rec);
    cs_renderer_destroy(&headless);
    return fc;
}

int main(int argc, char **argv)
{
    (void)argc;
    int code = ensure_display(argv);
    if (code)
        return code;
    test_seed();

    cs_window win;
    cs_error err;
    if (!cs_window_create(&(cs_window_desc){.title = "cistern window test", .width = 320, .height = 240}, &win,
                          &err)) {
        bool no_glfw = strstr(err.msg, "libglfw") != NULL;
        if (!no_glfw && !getenv("CS_TEST_WINDOW_IN_XVFB")) {
            // DISPLAY names a server that is not there: use our own.
            fprintf(stderr, "DISPLAY=%s does not open (%s); trying Xvfb\n", getenv("DISPLAY"), err.msg);
            unsetenv("DISPLAY");
            return ensure_display(argv);
        }
        fprintf(stderr, "%s: %s\n", no_glfw ? "SKIP" : "FAIL", err.msg);
        return no_glfw ? SKIP_CODE : 1;
    }
    fprintf(stderr, "window system extensions:");
    for (uint32_t i = 0; i < win.instance_extension_count; i++)
        fprintf(stderr, " %s", win.instance_extensions[i]);
    fprintf(stderr, "\n");

    cs_context ctx;
    cs_context_desc cd = {
        .validation = true,
        .device = getenv("CISTERN_TEST_DEVICE"),
        .verbose = true,
        .instance_extensions = win.instance_extensions,
        .instance_extension_count = win.instance_extension_count,
    };
    if (!cs_context_create(&cd, &ctx, &err)) {
        fprintf(stderr, "FAIL: context: %s\n", err.msg);
        cs_window_destroy(&win);
        return 1;
    }
    if (!cs_window_attach(&win, &ctx, &err)) {
        fprintf(stderr, "FAIL: attach: %s\n", err.msg);
        cs_window_destroy(&win);
        test_finish(&ctx);
        return 1;
    }
    cs_renderer r;
    if (!cs_renderer_create(&ctx, &(cs_renderer_desc){.color_format = win.format}, &r, &err)) {
        fprintf(stderr, "FAIL: renderer: %s\n", err.msg);
        cs_window_destroy(&win);
        test_finish(&ctx);
        return 1;
    }
    fprintf(stderr, "swapchain format %d, present mode %d\n", (int)win.format, (int)win.present_mode);

    // The scene: a blob of orange fluid in a box, camera framing the box.
    cs_scene scene;
    memset(&scene, 0, sizeof scene);
    snprintf(scene.name, sizeof scene.name, "blob");
    scene.dim = 3;
    for (int c = 0; c < 3; c++) {
        scene.domain_min[c] = -1;
        scene.domain_max[c] = 1;
        scene.render.background[c] = 0.05f + 0.03f * c;
    }
    scene.material_count = 1;
    scene.materials[0] = (cs_material){.color = {0.95f, 0.40f, 0.05f}, .rest_density = 1000};
    scene.particle_spacing = 0.08f;
    scene.render.fog_density = 0.1f;
    float *pos4 = malloc(4 * sizeof(float) * 20000);
    uint32_t n = make_blob(pos4, 20000, blob_radius, 0.08f);
    cs_buffer pos, vel, dens, mat;
    test_buffer(&ctx, &pos, "positions", (VkDeviceSize)n * 16);
    test_buffer(&ctx, &vel, "velocities", (VkDeviceSize)n * 16);
    test_buffer(&ctx, &dens, "densities", (VkDeviceSize)n * 4);
    test_buffer(&ctx, &mat, "materials", (VkDeviceSize)n * 4);
    cs_buffer_upload(&ctx, &pos, pos4, (VkDeviceSize)n * 16, 0);
    cs_buffer_fill(&ctx, &vel, 0);
    cs_buffer_fill(&ctx, &mat, 0);
    uint32_t one = 0x447a0000u; // 1000.0f
    cs_buffer_fill(&ctx, &dens, one);
    cs_particle_view view = {&pos, &vel, &dens, &mat, n};
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &scene);

    double fps;
    frame_check fc = draw_frames(&ctx, &win, &r, &scene, &view, &cam, 20, &fps);
    fprintf(stderr, "%u particles, %ux%u: %.0f frames/s (draw + present + wait), blob pixels %u (inner disc %u/%u), "
                    "centre %s, max difference to headless %d\n",
            n, fc.width, fc.height, fps, fc.blob_pixels, fc.inner_blob, fc.inner_pixels,
            fc.center_is_blob ? "blob" : "NOT blob", fc.max_diff_headless);
    CHECK(fc.width == win.width && fc.height == win.height, "screenshot is the swapchain size");
    CHECK(fc.center_is_blob, "the blob's colour is at its projected centre");
    CHECK(fc.inner_pixels > 100 && fc.inner_blob == fc.inner_pixels,
          "every pixel inside 70%% of the blob's projected radius is blob-coloured (%u of %u)", fc.inner_blob,
          fc.inner_pixels);
    CHECK(fc.max_diff_headless <= 2, "the window shows the headless picture (max difference %d)",
          fc.max_diff_headless);

    // Resize: the next acquire rebuilds the swapchain at the new size.
    cs_window_set_size(&win, 400, 200);
    cs_window_events ev = {0};
    for (int i = 0; i < 100 && !(ev.width == 400 && ev.height == 200); i++) {
        usleep(10000);
        cs_window_poll(&win, &ev);
    }
    CHECK(ev.width == 400 && ev.height == 200, "the framebuffer follows the resize (%ux%u)", ev.width, ev.height);
    fc = draw_frames(&ctx, &win, &r, &scene, &view, &cam, 3, &fps);
    fprintf(stderr, "after resize: %ux%u, blob pixels %u, max difference to headless %d\n", fc.width, fc.height,
            fc.blob_pixels, fc.max_diff_headless);
    CHECK(fc.width == 400 && fc.height == 200, "the swapchain was rebuilt at 400x200 (%ux%u)", fc.width, fc.height);
    CHECK(fc.center_is_blob && fc.inner_blob == fc.inner_pixels && fc.max_diff_headless <= 2,
          "the resized window shows the blob as headless does");

    // Vsync on: FIFO, rebuilt at the next acquire.
    cs_window_set_vsync(&win, true);
    fc = draw_frames(&ctx, &win, &r, &scene, &view, &cam, 2, &fps);
    CHECK(win.present_mode == VK_PRESENT_MODE_FIFO_KHR, "vsync on presents FIFO (mode %d)", (int)win.present_mode);
    CHECK(fc.center_is_blob, "frames still draw after the vsync switch");

    char path[256];
    snprintf(path, sizeof path, "/tmp/cistern_test_window_%d.png", (int)getpid());
    CHECK(cs_window_save_screenshot(&win, path, &err), "save screenshot: %s", err.msg);
    unlink(path);

    // A file dropped onto the window (GLFW's drop callback calls
    // cs_window_drop): the first path reaches the next poll, once; a path
    // longer than the field is refused, not cut into another file's name.
    const char *const dropped[] = {"/tmp/a scene.json", "/tmp/b.json"};
    cs_window_drop(&win, 2, dropped);
    cs_window_poll(&win, &ev);
    CHECK(strcmp(ev.dropped, dropped[0]) == 0, "the drop's first path reaches the poll (\"%s\")", ev.dropped);
    cs_window_poll(&win, &ev);
    CHECK(ev.dropped[0] == 0, "a drop is reported once (\"%s\")", ev.dropped);
    char long_path[sizeof ev.dropped + 8];
    memset(long_path, 'a', sizeof long_path - 1);
    long_path[sizeof long_path - 1] = 0;
    const char *const too_long[] = {long_path};
    cs_window_drop(&win, 1, too_long);
    cs_window_poll(&win, &ev);
    CHECK(ev.dropped[0] == 0, "a path longer than %zu bytes is refused", sizeof ev.dropped - 1);

    cs_buffer_destroy(&ctx, &pos);
    cs_buffer_destroy(&ctx, &vel);
    cs_buffer_destroy(&ctx, &dens);
    cs_buffer_destroy(&ctx, &mat);
    free(pos4);
    cs_renderer_destroy(&r);
    cs_window_destroy(&win);
    return test_finish(&ctx);
}
