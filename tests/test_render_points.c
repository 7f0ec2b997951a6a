// test_render_points.c — far particles drawn as one pixel each.
//
// Particles whose projected disc covers at most a pixel's area
// (CS_RENDER_ONE_PIXEL_AREA) are drawn as one pixel around their projected
// centre instead of a ray-traced impostor (particles.vert). Before, a ray
// through the pixel centre missed most of them: a disc of radius 0.3 px
// showed up in about 3 pixels out of 10, so a far cloud thinned out and
// flickered as it moved. Random particles, one per cell of a grid on the
// image (no two in a pixel), at random depths and sub-pixel offsets:
//   - every one of them shows, in exactly one pixel: nothing else changes;
//   - that pixel's depth is the sphere's front point's depth;
//   - its colour is the sphere's shading where it faces the eye: the same
//     particles drawn with a radius of ~20 px (impostors, the ray) give the
//     same colour at the same pixel (the ray there tilts by < 2 degrees);
//   - those big ones cover their discs (pi r^2 / cos^3 pixels each, within 3%),
//     i.e. the one-pixel rule leaves spheres larger than a pixel alone.
// ctest labels: quick,gpu -- 1
#include "test_util.h"

#include "render.h"
#include "../shaders/render/render_shared.h"

#define WIDTH 320
#define HEIGHT 240
#define COLS 6
#define ROWS 4
#define COUNT (COLS * ROWS)

static const double k_pi = 3.14159265358979323846;

static void make_scene(cs_scene *out)
{
    memset(out, 0, sizeof *out);
    out->dim = 3;
    snprintf(out->name, sizeof out->name, "points test");
    out->material_count = 3;
    const float colors[3][3] = {{0.9f, 0.15f, 0.1f}, {0.1f, 0.8f, 0.2f}, {0.15f, 0.3f, 0.95f}};
    for (int m = 0; m < 3; m++) {
        memcpy(out->materials[m].color, colors[m], sizeof colors[m]);
        out->materials[m].rest_density = 1000.0f;
    }
    for (int c = 0; c < 3; c++) {
        out->domain_min[c] = -1.0f;
        out->domain_max[c] = 1.0f;
        out->render.background[c] = 0.2f;
    }
    out->particle_spacing = 0.1f;
    const float eye[3] = {0.3f, 0.4f, 4.0f};
    memcpy(out->camera.position, eye, sizeof eye);
    out->camera.up[1] = 1.0f;
    out->camera.fov_degrees = 45.0f;
}

// The world point at view distance `dist` on the ray through pixel (x, y)
// (pixel centres at .5): the view's inverse, from the renderer's matrices.
static void world_on_pixel_ray(const cs_camera_matrices *m, double x, double y, double dist, float out[3])
{
    double ndc_x = 2.0 * x / WIDTH - 1.0, ndc_y = 2.0 * y / HEIGHT - 1.0;
    double v[3] = {ndc_x * dist / m->proj_params[0], ndc_y * dist / m->proj_params[1], -dist};
    for (int k = 0; k < 3; k++) {
        double w = 0;
        for (int row = 0; row < 3; row++)
            w += m->view[4 * k + row] * (v[row] - m->view[12 + row]);
        out[k] = (float)w;
    }
}

typedef struct drawn {
    uint8_t rgba[WIDTH * HEIGHT * 4];
    float depth[WIDTH * HEIGHT];
} drawn;

static void draw(cs_context *ctx, cs_renderer *r, const cs_scene *s, const cs_view_camera *cam, cs_buffer *pos,
                 cs_buffer *mat, uint32_t count, float radius, drawn *out)
{
    cs_particle_view view = {pos, NULL, NULL, mat, count};
    cs_render_frame frame = {.scene = s, .camera = cam, .color_mode = CS_COLOR_MATERIAL, .particle_radius = radius,
                             .speed_max = 1, .density_spread = 0.1f, .hide_box = true, .no_fog = true};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &view);
    cs_recorder rec;
    cs_recorder_create(ctx, "points test", &rec);
    cs_recorder_begin(&rec);
    cs_barrier_compute_to_graphics(&rec);
    cs_render_record(r, &rec, &frame);
    cs_render_record_readback(r, &rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    memcpy(out->rgba, cs_render_pixels(r), sizeof out->rgba);
    memcpy(out->depth, cs_render_depths(r), sizeof out->depth);
}

static bool differs(const drawn *a, const drawn *b, size_t p)
{
    return a->depth[p] != b->depth[p] || memcmp(a->rgba + 4 * p, b->rgba + 4 * p, 4) != 0;
}

static int max_channel_diff(const uint8_t *a, const uint8_t *b)
{
    int d = 0;
    for (int c = 0; c < 3; c++)
        d = abs(a[c] - b[c]) > d ? abs(a[c] - b[c]) : d;
    return d;
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_renderer r;
    cs_error err;
    if (!cs_renderer_create(&ctx, &(cs_renderer_desc){.width = WIDTH, .height = HEIGHT, .readback_depth = true}, &r,
                            &err)) {
        fprintf(stderr, "FAIL: renderer: %s\n", err.msg);
        return 1;
    }
    cs_scene s;
    make_scene(&s);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &s);
    cs_camera_matrices m;
    cs_camera_matrices_get(&cam, (double)WIDTH / HEIGHT, &m);
    double focal_px = fabs(m.proj_params[1]) * 0.5 * HEIGHT;

    // One particle per grid cell, at a random pixel well inside it (away
    // from the neighbours' big discs), a random offset within 0.4 px of its
    // centre and a random distance; the radius makes the nearest one's disc
    // 0.3 px in radius (0.28 of a pixel's area).
    float pos4[COUNT * 4] = {0};
    uint32_t mat[COUNT], pixel[COUNT][2];
    double dist[COUNT], near = 3.4, far = 4.4;
    float radius = (float)(0.3 * near / focal_px);
    for (uint32_t i = 0; i < COUNT; i++) {
        uint32_t cw = WIDTH / COLS, ch = HEIGHT / ROWS;
        pixel[i][0] = (i % COLS) * cw + cw / 2 - 4 + test_rand_u32() % 8;
        pixel[i][1] = (i / COLS) * ch + ch / 2 - 4 + test_rand_u32() % 8;
        double x = pixel[i][0] + 0.5 + (test_rand_unit() - 0.5) * 0.8;
        double y = pixel[i][1] + 0.5 + (test_rand_unit() - 0.5) * 0.8;
        dist[i] = near + (far - near) * test_rand_unit();
        world_on_pixel_ray(&m, x, y, dist[i], pos4 + 4 * i);
        mat[i] = test_rand_u32() % 3;
    }
    cs_buffer pos, mats;
    test_buffer(&ctx, &pos, "positions", sizeof pos4);
    test_buffer(&ctx, &mats, "materials", sizeof mat);
    cs_buffer_upload(&ctx, &pos, pos4, sizeof pos4, 0);
    cs_buffer_upload(&ctx, &mats, mat, sizeof mat, 0);

    static drawn empty, tiny, big;
    draw(&ctx, &r, &s, &cam, &pos, &mats, 0, radius, &empty);
    draw(&ctx, &r, &s, &cam, &pos, &mats, COUNT, radius, &tiny);
    // Big enough that the ray through the pixel tilts by < 2 degrees from
    // the centre's: about 20 px of radius at the nearest.
    float big_radius = 66.7f * radius;
    draw(&ctx, &r, &s, &cam, &pos, &mats, COUNT, big_radius, &big);

    uint32_t shown = 0, changed = 0, depth_ok = 0, color_ok = 0;
    int worst_color = 0;
    double worst_depth = 0;
    for (size_t p = 0; p < (size_t)WIDTH * HEIGHT; p++)
        changed += differs(&tiny, &empty, p);
    for (uint32_t i = 0; i < COUNT; i++) {
        size_t p = (size_t)pixel[i][1] * WIDTH + pixel[i][0];
        shown += differs(&tiny, &empty, p);
        // The front point: the centre moved towards the eye by the radius.
        float front[3];
        double to_eye = 0;
        for (int k = 0; k < 3; k++)
            to_eye += (m.position[k] - pos4[4 * i + k]) * (double)(m.position[k] - pos4[4 * i + k]);
        to_eye = sqrt(to_eye);
        for (int k = 0; k < 3; k++)
            front[k] = (float)(pos4[4 * i + k] + radius * (m.position[k] - pos4[4 * i + k]) / to_eye);
        double px[2], want_depth;
        CHECK(cs_camera_project(&m, WIDTH, HEIGHT, front, px, &want_depth), "particle %u in front of the eye", i);
        double depth_err = fabs(tiny.depth[p] - want_depth);
        worst_depth = fmax(worst_depth, depth_err);
        depth_ok += depth_err < 1e-5;
        int color_err = max_channel_diff(tiny.rgba + 4 * p, big.rgba + 4 * p);
        worst_color = color_err > worst_color ? color_err : worst_color;
        color_ok += color_err <= 12;
    }
    uint32_t big_pixels = 0;
    double want_big = 0;
    for (size_t p = 0; p < (size_t)WIDTH * HEIGHT; p++)
        big_pixels += big.depth[p] < 1.0f;
    for (uint32_t i = 0; i < COUNT; i++) {
        // dist is the view depth; off the axis (angle theta) the projected
        // disc is an ellipse of about pi r^2 / cos^3(theta) pixels.
        double c[3];
        for (int k = 0; k < 3; k++)
            c[k] = m.view[k] * pos4[4 * i] + m.view[4 + k] * pos4[4 * i + 1] + m.view[8 + k] * pos4[4 * i + 2] +
                   m.view[12 + k];
        double d = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), cos_theta = -c[2] / d;
        double r_px = big_radius / sqrt(d * d - (double)big_radius * big_radius) * focal_px;
        want_big += k_pi * r_px * r_px / (cos_theta * cos_theta * cos_theta);
    }
    fprintf(stderr, "%u particles of radius %.5f (discs of %.2f-%.2f px): %u shown at their pixel, %u pixels "
                    "changed; depth ok %u (worst %.2e); colour within 12 of the big spheres' %u (worst %d); big "
                    "spheres cover %u pixels (discs %.0f)\n",
            COUNT, radius, radius / far * focal_px, radius / near * focal_px, shown, changed, depth_ok, worst_depth,
            color_ok, worst_color, big_pixels, want_big);
    CHECK(shown == COUNT, "every far particle shows at its projected pixel: %u of %u", shown, COUNT);
    CHECK(changed == COUNT, "each covers exactly one pixel: %u pixels changed for %u particles", changed, COUNT);
    CHECK(depth_ok == COUNT, "each pixel holds the depth of its sphere's front point: %u of %u (worst %.2e)",
          depth_ok, COUNT, worst_depth);
    CHECK(color_ok == COUNT, "each pixel is shaded as its sphere faces the eye: %u of %u (worst %d levels)",
          color_ok, COUNT, worst_color);
    CHECK(fabs(big_pixels - want_big) < 0.03 * want_big, "big spheres stay discs: %u pixels for %.0f", big_pixels,
          want_big);

    cs_buffer_destroy(&ctx, &pos);
    cs_buffer_destroy(&ctx, &mats);
    cs_renderer_destroy(&r);
    return test_finish(&ctx);
}
