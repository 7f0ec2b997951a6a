// test_radiosity_render.c — the Cornell box drawn lit by the world's
// radiosity (host/world/world_radiosity.c, host/render/feature_geometry.c),
// headless on the real renderer:
//   1. one frame of scenes/cornell_box.json (patch_size 0.1 to keep the
//      compile short), geometry only (no particles, no box lines). For a
//      grid of pixels, a CPU ray through the pixel centre (the renderer's
//      camera, pipelines/trace/bvh.c in double) finds the patch under it; pixels
//      within a pixel of an element's edge are skipped. The expected colour
//      is computed here, independently of the feature's code: the patch's
//      barycentric corner weights, each corner the area-weighted mean of
//      the radiosity (read back from the GPU) of the patches of the same
//      element and normal sharing that point, then exposure and x/(1+x).
//      Every pixel must match it within 0.03 (linear) per channel; its
//      brightness (r + g + b) must lie within 25% of its own patch's
//      tone-mapped value for 90% of the pixels (the shading is smooth, not
//      a different light);
//   2. the red wall's pixels are red-dominant, the green wall's green, and
//      the white floor near the red wall redder than near the green wall
//      (colour bleeding, seen in the image);
//   3. cs_world_radiosity_cycle_albedo (the window's G key): one frame later
//      the red wall's pixels are blue-dominant.
// ctest labels: quick,gpu -- 3
#include "test_util.h"

#include "camera.h"
#include "render.h"
#include "world.h"

#include <math.h>
#include <string.h>

#define SIZE 160
#define STEP 8
// A pixel's brightness (r + g + b) against its own patch's: the smooth
// shading moves it towards the neighbours. Where the light changes fast
// across one patch (next to the lamp at patch_size 0.1) it may move more,
// (and a patch in a shadow's edge differs from its neighbours: measured up
// to 91%), so up to 10% of the pixels may be past PATCH_TOLERANCE.
#define PATCH_TOLERANCE 0.25
#define RED_WALL 8   // element indices in cornell_box.json
#define GREEN_WALL 7
#define FLOOR 0

typedef struct pixel_hit {
    bool ok;              // hit, away from every element edge
    uint32_t patch;
    uint32_t element;
    double point[3];
} pixel_hit;

static double srgb_to_linear(uint8_t c)
{
    double s = c / 255.0;
    return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
}

static double tone(double b, double exposure)
{
    double x = exposure * fmax(b, 0.0);
    return x / (1.0 + x);
}

static void pixel_ray(const cs_camera_matrices *m, double px, double py, double origin[3], double dir[3])
{
    double ndc[2] = {px / SIZE * 2.0 - 1.0, py / SIZE * 2.0 - 1.0};
    double v[3] = {ndc[0] / m->proj_params[0], ndc[1] / m->proj_params[1], -1.0};
    for (int c = 0; c < 3; c++) {
        origin[c] = m->position[c];
        dir[c] = m->view[4 * c] * v[0] + m->view[4 * c + 1] * v[1] + m->view[4 * c + 2] * v[2];
    }
}

// Barycentric weights of p in triangle t (projected along its normal).
static void barycentric(const float t[3][3], const double p[3], double w[3])
{
    double e1[3], e2[3], d[3];
    for (int a = 0; a < 3; a++)
        e1[a] = t[1][a] - t[0][a], e2[a] = t[2][a] - t[0][a], d[a] = p[a] - t[0][a];
    double d11 = 0, d12 = 0, d22 = 0, d1p = 0, d2p = 0;
    for (int a = 0; a < 3; a++) {
        d11 += e1[a] * e1[a], d12 += e1[a] * e2[a], d22 += e2[a] * e2[a];
        d1p += e1[a] * d[a], d2p += e2[a] * d[a];
    }
    double den = d11 * d22 - d12 * d12;
    w[1] = (d22 * d1p - d12 * d2p) / den;
    w[2] = (d11 * d2p - d12 * d1p) / den;
    w[0] = 1.0 - w[1] - w[2];
}

static uint32_t element_of(const cs_world_radiosity *part, uint32_t patch)
{
    return part->geometry->tris[part->compiled.patch_tri[patch]].info.x;
}

// The patch whose triangle holds p (within 1e-5 m of its plane).
static bool find_patch(const cs_world_radiosity *part, const double p[3], uint32_t *out)
{
    const cs_radiosity_compiled *c = &part->compiled;
    for (uint32_t i = 0; i < c->patch_count; i++) {
        const cs_patch *q = &c->patches[i];
        double off = (p[0] - q->center_area.x) * q->normal.x + (p[1] - q->center_area.y) * q->normal.y +
                     (p[2] - q->center_area.z) * q->normal.z;
        if (fabs(off) > 1e-5)
            continue;
        double w[3];
        barycentric((const float(*)[3])c->corners[i], p, w);
        if (w[0] >= -1e-7 && w[1] >= -1e-7 && w[2] >= -1e-7) {
            *out = i;
            return true;
        }
    }
    return false;
}

static pixel_hit cast_pixel(const cs_world_radiosity *part, const cs_camera_matrices *m, double px, double py)
{
    pixel_hit h = {0};
    uint32_t element = UINT32_MAX;
    // The centre, then four points a pixel away: all on one element, or skip.
    static const double offsets[5][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (int k = 0; k < 5; k++) {
        double o[3], d[3];
        pixel_ray(m, px + offsets[k][0], py + offsets[k][1], o, d);
        cs_ray_hit hit = cs_bvh_cast(&part->bvh, o, d, 1e-6, 1e30);
        if (!hit.hit)
            return h;
        uint32_t e = part->bvh.tris[hit.tri].info.x;
        if (k > 0 && e != element)
            return h;
        element = e;
        if (k == 0) {
            for (int a = 0; a < 3; a++)
                h.point[a] = o[a] + hit.t * d[a];
        }
    }
    h.element = element;
    h.ok = find_patch(part, h.point, &h.patch);
    return h;
}

// The radiosity at corner k of patch i: the area-weighted mean over the
// patches of the same element and normal that have a corner there.
static void corner_value(const cs_world_radiosity *part, const float *result, uint32_t i, int k, double out[3])
{
    const cs_radiosity_compiled *c = &part->compiled;
    const float *p = c->corners[i][k];
    const vec4 *n = &c->patches[i].normal;
    double area = 0.0, sum[3] = {0, 0, 0};
    for (uint32_t j = 0; j < c->patch_count; j++) {
        if (element_of(part, j) != element_of(part, i))
            continue;
        const vec4 *nj = &c->patches[j].normal;
        if (n->x * nj->x + n->y * nj->y + n->z * nj->z < 0.999)
            continue;
        for (int kk = 0; kk < 3; kk++) {
            const float *q = c->corners[j][kk];
            if (fabs(q[0] - p[0]) < 2e-6 && fabs(q[1] - p[1]) < 2e-6 && fabs(q[2] - p[2]) < 2e-6) {
                double a = c->patches[j].center_area.w;
                area += a;
                for (int ch = 0; ch < 3; ch++)
                    sum[ch] += a * result[4 * j + ch];
                break;
            }
        }
    }
    for (int ch = 0; ch < 3; ch++)
        out[ch] = sum[ch] / area;
}

static void render(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam, uint8_t *px)
{
    cs_render_frame frame = {.scene = world->fluids[0].scene, .camera = cam, .color_mode = -1, .hide_box = true,
                             .no_fog = true};
    cs_render_frame_add(&frame, CS_DRAWABLE_RADIOSITY, world->radiosity);
    uint8_t *drawn = test_render(ctx, r, world, &frame, "radiosity render");
    memcpy(px, drawn, (size_t)SIZE * SIZE * 4);
    free(drawn);
}

// Mean linear colour of the checked pixels on `element` (those with x in
// [x0, x1) of the world when x1 > x0).
typedef struct colour_sum {
    double rgb[3];
    uint32_t count;
} colour_sum;

static void check_frame(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam)
{
    cs_world_radiosity *part = world->radiosity;
    uint32_t n = part->compiled.patch_count;
    float *result = malloc((size_t)n * 4 * sizeof(float));
    uint8_t *px = malloc((size_t)SIZE * SIZE * 4);
    render(ctx, r, world, cam, px);
    cs_buffer_download(ctx, cs_radiosity_gpu_result(&part->gpu), result, (VkDeviceSize)n * 4 * sizeof(float), 0);
    cs_camera_matrices m;
    cs_camera_matrices_get(cam, 1.0, &m);
    double exposure = part->lighting->exposure;
    uint32_t checked = 0, off_interp = 0, off_patch = 0;
    double worst = 0.0, worst_patch = 0.0;
    colour_sum red = {0}, green = {0}, floor_red = {0}, floor_green = {0};
    for (uint32_t y = STEP / 2; y < SIZE; y += STEP) {
        for (uint32_t x = STEP / 2; x < SIZE; x += STEP) {
            pixel_hit h = cast_pixel(part, &m, x + 0.5, y + 0.5);
            if (!h.ok)
                continue;
            double w[3], want[3] = {0, 0, 0};
            barycentric((const float(*)[3])part->compiled.corners[h.patch], h.point, w);
            for (int k = 0; k < 3; k++) {
                double v[3];
                corner_value(part, result, h.patch, k, v);
                for (int ch = 0; ch < 3; ch++)
                    want[ch] += w[k] * v[ch];
            }
            const uint8_t *p = &px[4 * ((size_t)y * SIZE + x)];
            double got[3], err = 0.0, got_sum = 0.0, own_sum = 0.0;
            for (int ch = 0; ch < 3; ch++) {
                got[ch] = srgb_to_linear(p[ch]);
                err = fmax(err, fabs(got[ch] - tone(want[ch], exposure)));
                got_sum += got[ch];
                own_sum += tone(result[4 * h.patch + ch], exposure);
            }
            double patch_err = fabs(got_sum - own_sum) / fmax(own_sum, 0.02);
            checked++;
            worst = fmax(worst, err);
            worst_patch = fmax(worst_patch, patch_err);
            if (err > 0.03 && off_interp++ < 5)
                printf("pixel (%u, %u) element %u patch %u: (%.3f %.3f %.3f), want (%.3f %.3f %.3f)\n", x, y,
                       h.element, h.patch, got[0], got[1], got[2], tone(want[0], exposure), tone(want[1], exposure),
                       tone(want[2], exposure));
            if (patch_err > PATCH_TOLERANCE && off_patch++ < 3)
                printf("pixel (%u, %u) element %u: %.0f%% off its patch's value\n", x, y, h.element, 100 * patch_err);
            colour_sum *s = h.element == RED_WALL     ? &red
                            : h.element == GREEN_WALL ? &green
                            : h.element != FLOOR      ? NULL
                            : h.point[0] > 0.45       ? &floor_red
                            : h.point[0] < 0.10       ? &floor_green
                                                      : NULL;
            if (s) {
                for (int ch = 0; ch < 3; ch++)
                    s->rgb[ch] += got[ch];
                s->count++;
            }
        }
    }
    printf("%u pixels checked, worst %.4f (linear) from the interpolated radiosity; %u off it, %u off their patch "
           "by > %.0f%%\n",
           checked, worst, off_interp, off_patch, 100 * PATCH_TOLERANCE);
    CHECK(checked > 100, "only %u pixels checked", checked);
    CHECK(off_interp == 0, "%u pixels differ from the interpolated radiosity by more than 0.03", off_interp);
    printf("worst pixel vs its own patch: %.0f%%\n", 100 * worst_patch);
    CHECK(off_patch * 10 <= checked, "%u of %u pixels are more than %.0f%% off their patch's value", off_patch, checked,
          100 * PATCH_TOLERANCE);
    CHECK(red.count > 10 && green.count > 10 && floor_red.count > 3 && floor_green.count > 3,
          "pixels: red wall %u, green wall %u, floor %u / %u", red.count, green.count, floor_red.count,
          floor_green.count);
    printf("red wall (%.3f %.3f %.3f), green wall (%.3f %.3f %.3f); floor r/g by the red wall %.3f, by the green %.3f\n",
           red.rgb[0] / red.count, red.rgb[1] / red.count, red.rgb[2] / red.count, green.rgb[0] / green.count,
           green.rgb[1] / green.count, green.rgb[2] / green.count, floor_red.rgb[0] / floor_red.rgb[1],
           floor_green.rgb[0] / floor_green.rgb[1]);
    CHECK(red.rgb[0] > 2 * red.rgb[1] && red.rgb[0] > 2 * red.rgb[2], "the red wall is not red-dominant");
    CHECK(green.rgb[1] > 1.5 * green.rgb[0] && green.rgb[1] > 1.5 * green.rgb[2],
          "the green wall is not green-dominant");
    CHECK(floor_red.rgb[0] / floor_red.rgb[1] > 1.02 * floor_green.rgb[0] / floor_green.rgb[1],
          "no red bleeding onto the floor by the red wall");
    free(result);
    free(px);
}

// After the albedo cycle the red wall's pixels are blue-dominant.
static void check_cycle(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam)
{
    cs_world_radiosity *part = world->radiosity;
    cs_world_radiosity_cycle_albedo(ctx, part);
    uint8_t *px = malloc((size_t)SIZE * SIZE * 4);
    render(ctx, r, world, cam, px);
    cs_camera_matrices m;
    cs_camera_matrices_get(cam, 1.0, &m);
    double rgb[3] = {0, 0, 0};
    uint32_t count = 0;
    for (uint32_t y = STEP / 2; y < SIZE; y += STEP) {
        for (uint32_t x = STEP / 2; x < SIZE; x += STEP) {
            pixel_hit h = cast_pixel(part, &m, x + 0.5, y + 0.5);
            if (!h.ok || h.element != RED_WALL)
                continue;
            for (int ch = 0; ch < 3; ch++)
                rgb[ch] += srgb_to_linear(px[4 * ((size_t)y * SIZE + x) + ch]);
            count++;
        }
    }
    printf("after the cycle the red wall is (%.3f %.3f %.3f)\n", rgb[0] / count, rgb[1] / count, rgb[2] / count);
    CHECK(count > 10 && rgb[2] > 2 * rgb[0] && rgb[2] > 2 * rgb[1], "the cycled wall is not blue-dominant");
    free(px);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_renderer r;
    cs_error err;
    bool ok = cs_renderer_create(&ctx, &(cs_renderer_desc){.width = SIZE, .height = SIZE}, &r, &err);
    CHECK(ok, "renderer: %s", ok ? "" : err.msg);
    if (!ok)
        return test_finish(&ctx);
    cs_scene scene;
    ok = cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_box.json", &scene, &err);
    CHECK(ok, "cornell_box: %s", ok ? "" : err.msg);
    if (ok) {
        scene.geometry->lighting.patch_size = 0.1;
        cs_world world;
        ok = cs_world_create(&ctx, &scene, &world, &err);
        CHECK(ok && world.radiosity, "world: %s", ok ? "no radiosity part" : err.msg);
        if (ok) {
            printf("cornell box: %u patches, %u links\n", world.radiosity->compiled.patch_count,
                   world.radiosity->compiled.link_count);
            cs_view_camera cam;
            cs_camera_from_scene(&cam, &scene);
            check_frame(&ctx, &r, &world, &cam);
            check_cycle(&ctx, &r, &world, &cam);
            cs_world_destroy(&world);
        }
        cs_scene_free(&scene);
    }
    cs_renderer_destroy(&r);
    return test_finish(&ctx);
}
