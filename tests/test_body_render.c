// test_body_render.c — the rigid bodies in the frame (host/render/feature_bodies.c):
//  1. bodies_dam_3d at frame 0, bodies only (no particles, no box): every
//     pixel whose 3 x 3 neighbourhood lies inside the CPU silhouette of a
//     body is drawn (differs from the background), every pixel whose
//     neighbourhood lies outside all of them is background. The CPU
//     silhouette of a convex body is the convex hull of its projected
//     vertices (a sphere: 2000 points on it), from the scene's geometry
//     (cs_body_props_compute) and the pose in the GPU state; it does not
//     share the feature's face triangulation. Drawn pixels are shaded (the
//     faces differ in brightness) and neutral grey (no "color" given).
//  2. floating_box_3d: the same check at frame 0 and after 8 frames (the
//     box has fallen into the pool): the pose the vertex shader reads from
//     the body state buffer is the one the integration wrote (the CPU
//     silhouettes use the downloaded state), and the box's pixels moved.
// ctest labels: slow,gpu -- 21
#include "test_util.h"

#include "bodies.h"
#include "camera.h"
#include "render.h"
#include "world.h"

#include <math.h>

#define WIDTH 320
#define HEIGHT 180

static void quat_rotate(const vec4 *q, const double v[3], double out[3])
{
    double u[3] = {q->x, q->y, q->z}, w = q->w;
    double t[3] = {2.0 * (u[1] * v[2] - u[2] * v[1]), 2.0 * (u[2] * v[0] - u[0] * v[2]), 2.0 * (u[0] * v[1] - u[1] * v[0])};
    double ut[3] = {u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2], u[0] * t[1] - u[1] * t[0]};
    for (int a = 0; a < 3; a++)
        out[a] = v[a] + w * t[a] + ut[a];
}

static double cross2(const double o[2], const double a[2], const double b[2])
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static int cmp_pt(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1];
}

// Marks the pixels whose centres lie inside the convex hull of pts (n
// points in pixels; Andrew's monotone chain).
static void fill_hull(double (*pts)[2], uint32_t n, uint8_t *cov, uint8_t mark)
{
    qsort(pts, n, sizeof pts[0], cmp_pt);
    double (*h)[2] = malloc(2 * (size_t)n * sizeof h[0] + 16);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        while (k >= 2 && cross2(h[k - 2], h[k - 1], pts[i]) <= 0)
            k--;
        memcpy(h[k++], pts[i], sizeof h[0]);
    }
    for (uint32_t i = n - 1, t = k + 1; i-- > 0;) {
        while (k >= t && cross2(h[k - 2], h[k - 1], pts[i]) <= 0)
            k--;
        memcpy(h[k++], pts[i], sizeof h[0]);
    }
    k--; // the last point is the first
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            double p[2] = {x + 0.5, y + 0.5};
            bool inside = k >= 3;
            for (uint32_t i = 0; i < k && inside; i++)
                inside = cross2(h[i], h[(i + 1) % k], p) >= 0;
            if (inside)
                cov[y * WIDTH + x] = mark;
        }
    free(h);
}

// The CPU silhouettes of every body at the given states: cov[i] = body + 1.
static uint8_t *silhouettes(const cs_scene *scene, const cs_body_state *st, const cs_camera_matrices *cm)
{
    uint8_t *cov = calloc((size_t)WIDTH * HEIGHT, 1);
    enum { SPHERE_POINTS = 2000 };
    double (*px)[2] = malloc(SPHERE_POINTS * sizeof px[0]);
    for (uint32_t b = 0; b < scene->body_count; b++) {
        cs_body_props p;
        cs_body_props_compute(scene, b, &p);
        uint32_t n = 0;
        bool sphere = scene->bodies[b].shape == CS_BODY_SPHERE;
        uint32_t count = sphere ? SPHERE_POINTS : p.vertex_count;
        for (uint32_t i = 0; i < count; i++) {
            double local[3];
            if (sphere) { // a Fibonacci sphere
                double z = 1.0 - (2.0 * i + 1.0) / SPHERE_POINTS, r = sqrt(1.0 - z * z), a = 2.39996322972865332 * i;
                double rad = scene->bodies[b].radius;
                local[0] = rad * r * cos(a), local[1] = rad * r * sin(a), local[2] = rad * z;
            } else {
                memcpy(local, p.vertices[i], sizeof local);
            }
            double w[3];
            quat_rotate(&st[b].orientation, local, w);
            float world[3];
            for (int a = 0; a < 3; a++)
                world[a] = (float)(w[a] + (&st[b].position.x)[a]);
            double depth;
            if (cs_camera_project(cm, WIDTH, HEIGHT, world, px[n], &depth))
                n++;
        }
        CHECK(n == count, "body %u: %u of %u points behind the camera", b, count - n, count);
        fill_hull(px, n, cov, (uint8_t)(b + 1));
    }
    free(px);
    return cov;
}

static uint8_t *render(cs_context *ctx, cs_renderer *r, const cs_render_frame *frame)
{
    return test_render(ctx, r, NULL, frame, "bodies render");
}

static bool differs(const uint8_t *a, const uint8_t *b, size_t i)
{
    for (int c = 0; c < 3; c++)
        if (abs((int)a[4 * i + c] - (int)b[4 * i + c]) > 3)
            return true;
    return false;
}

// Renders the world's bodies alone and compares with the CPU silhouettes.
// Returns the pixels covered by body `track` (CPU) for the caller.
static uint32_t check_frame(cs_context *ctx, cs_renderer *r, cs_world *w, const char *what, uint32_t track,
                            double centroid[2])
{
    const cs_scene *fs = w->fluids[0].scene;
    cs_view_camera cam;
    cs_camera_from_scene(&cam, w->scene);
    cs_render_frame empty = {.scene = fs, .camera = &cam, .color_mode = -1, .hide_box = true, .no_fog = true};
    cs_render_frame drawn = empty;
    cs_render_frame_add(&drawn, CS_DRAWABLE_BODIES, &w->bodies.states);
    uint8_t *bg = render(ctx, r, &empty);
    uint8_t *px = render(ctx, r, &drawn);
    cs_body_state st[CS_BODIES_MAX];
    cs_bodies_download(&w->bodies, st);
    cs_camera_matrices cm;
    cs_camera_matrices_get(&cam, (double)WIDTH / HEIGHT, &cm);
    uint8_t *cov = silhouettes(fs, st, &cm);
    uint32_t covered = 0, checked = 0, missing = 0, extra = 0, inside = 0, grey = 0, tracked = 0;
    int lum_min = 255, lum_max = 0;
    double cx = 0.0, cy = 0.0;
    for (int y = 1; y < HEIGHT - 1; y++)
        for (int x = 1; x < WIDTH - 1; x++) {
            size_t i = (size_t)y * WIDTH + x;
            covered += cov[i] != 0;
            if (cov[i] == track + 1)
                tracked++, cx += x, cy += y;
            // Compare only where the neighbourhood agrees: which side of a
            // silhouette a pixel centre falls on is rounding.
            bool uniform = true;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    uniform = uniform && (cov[(size_t)(y + dy) * WIDTH + x + dx] != 0) == (cov[i] != 0);
            if (!uniform)
                continue;
            checked++;
            bool on = differs(px, bg, i);
            missing += cov[i] && !on;
            extra += !cov[i] && on;
            if (cov[i] && on) {
                const uint8_t *p = &px[4 * i];
                int lum = (2 * p[0] + 5 * p[1] + p[2]) / 8;
                lum_min = CS_MIN(lum_min, lum), lum_max = CS_MAX(lum_max, lum);
                inside++;
                // The body's own colour: a neutral grey when it has none,
                // else the same order of channels (shading scales them
                // together, sRGB keeps their order).
                const float *c = fs->bodies[cov[i] - 1].color;
                bool none = c[0] == 0 && c[1] == 0 && c[2] == 0;
                if (none)
                    grey += abs((int)p[0] - (int)p[2]) < 40 && abs((int)p[0] - (int)p[1]) < 40;
                else
                    grey += (c[0] >= c[1]) == (p[0] >= p[1]) && (c[1] >= c[2]) == (p[1] >= p[2]) &&
                            (c[0] >= c[2]) == (p[0] >= p[2]);
            }
        }
    printf("%s: bodies cover %u pixels (CPU); %u compared: %u covered but background, %u background but drawn; "
           "brightness %d..%d, %u of %u in the body's colour\n",
           what, covered, checked, missing, extra, lum_min, lum_max, grey, inside);
    CHECK(covered > 300, "%s: the bodies cover only %u pixels: the camera misses them", what, covered);
    CHECK(missing == 0 && extra == 0, "%s: %u covered pixels show the background, %u uncovered are drawn", what,
          missing, extra);
    CHECK(lum_max - lum_min > 30, "%s: body pixels are not shaded (brightness %d..%d)", what, lum_min, lum_max);
    CHECK(grey == inside, "%s: %u of %u body pixels are not in the body's colour (grey without one)", what,
          inside - grey, inside);
    if (centroid && tracked)
        centroid[0] = cx / tracked, centroid[1] = cy / tracked;
    free(bg), free(px), free(cov);
    return tracked;
}

static bool make_world(cs_context *ctx, const char *name, cs_scene *scene, cs_world *world)
{
    cs_error err;
    bool ok = cs_scene_load(name, scene, &err);
    CHECK(ok, "%s: %s", name, ok ? "" : err.msg);
    if (!ok)
        return false;
    ok = cs_world_create(ctx, scene, world, &err);
    CHECK(ok, "%s: %s", name, ok ? "" : err.msg);
    if (!ok)
        cs_scene_free(scene);
    return ok;
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
    cs_world world;
    if (make_world(&ctx, "bodies_dam_3d", &scene, &world)) {
        check_frame(&ctx, &r, &world, "bodies_dam_3d frame 0", 0, NULL);
        cs_world_destroy(&world);
        cs_scene_free(&scene);
    }

    if (make_world(&ctx, "floating_box_3d", &scene, &world)) {
        double c0[2] = {0, 0}, c1[2] = {0, 0};
        uint32_t n0 = check_frame(&ctx, &r, &world, "floating_box_3d frame 0", 0, c0);
        cs_recorder rec;
        cs_recorder_create(&ctx, "floating box", &rec);
        for (int f = 0; f < 8; f++) {
            cs_recorder_begin(&rec);
            cs_world_record_frame(&world, &rec);
            cs_recorder_submit_wait(&rec);
        }
        cs_recorder_destroy(&rec);
        uint32_t n1 = check_frame(&ctx, &r, &world, "floating_box_3d frame 8", 0, c1);
        double moved = hypot(c1[0] - c0[0], c1[1] - c0[1]);
        printf("floating_box_3d: the box's silhouette moved %.1f pixels (centroid (%.1f, %.1f) -> (%.1f, %.1f))\n",
               moved, c0[0], c0[1], c1[0], c1[1]);
        CHECK(n0 > 100 && n1 > 100, "the box covers %u, %u pixels", n0, n1);
        CHECK(moved > 4.0, "the box moved only %.1f pixels in 8 frames", moved);
        cs_world_destroy(&world);
        cs_scene_free(&scene);
    }
    cs_renderer_destroy(&r);
    return test_finish(&ctx);
}
