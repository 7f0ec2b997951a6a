// test_probes_render.c — the fluid surface lit by the light probes
// (host/render/feature_surface.c, shaders/render/surface.vert/.frag),
// headless on the real renderer and the world's radiosity and probes:
//   scenes/cornell_box.json at patch_size 0.2 with radiosity.probes
//   (6 x 6 x 6, 128 rays). Two small white cubes drawn as "surfaces" (a
//   closed mesh like marching cubes gives, built here), one beside the red
//   wall (x = 0.556) and one beside the green wall (x = 0), both above the
//   blocks. Each cube's pixels are those a frame with it differs from the
//   frame without it.
//   1. the L switch (cs_world_radiosity_toggle_probes) changes the cubes'
//      colour: mean |probes on - probes off| over their pixels > 0.03;
//   2. switched off, the cubes' pixels are exactly those of a frame with no
//      radiosity at all (the usual look);
//   3. with probes the cube by the red wall is redder (r / g) than the one
//      by the green wall by a factor >= 1.3, and the green one greener
//      (g / r); switched off the two read alike (the surface's own shading
//      knows no walls), so this fails when the probes do not reach it.
// ctest labels: quick,gpu -- 3.5
#include "test_util.h"

#include "camera.h"
#include "render.h"
#include "world.h"

#include <math.h>
#include <string.h>

#define SIZE 128
#define CUBE_HALF 0.035
#define RED_CUBE_X 0.49   // the red wall is at x = 0.556
#define GREEN_CUBE_X 0.066
#define CUBE_Y 0.40       // above the tall block (0.33)
#define CUBE_Z 0.20
#define TINT_FACTOR 1.3
#define MIN_CHANGE 0.03

typedef struct cube_mesh {
    cs_buffer positions, normals, indices;
    cs_render_surface surface;
} cube_mesh;

// A closed cube: 6 faces of 4 vertices with the face's outward normal
// (flat shading), 2 triangles each (the surface is drawn without culling,
// so the winding does not matter).
static void make_cube(cs_context *ctx, const double centre[3], cube_mesh *out)
{
    float pos[24][4], nrm[24][4];
    uint32_t idx[36];
    for (int face = 0; face < 6; face++) {
        int axis = face / 2;
        float sign = face % 2 ? -1.0f : 1.0f;
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        static const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (int k = 0; k < 4; k++) {
            float *p = pos[4 * face + k], *n = nrm[4 * face + k];
            float cu = corners[k][0], cv = corners[k][1];
            p[axis] = (float)(centre[axis] + sign * CUBE_HALF);
            p[u] = (float)(centre[u] + cu * CUBE_HALF);
            p[v] = (float)(centre[v] + cv * CUBE_HALF);
            p[3] = 1.0f;
            n[0] = n[1] = n[2] = n[3] = 0.0f;
            n[axis] = sign;
        }
        static const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++)
            idx[6 * face + k] = 4u * (uint32_t)face + quad[k];
    }
    test_buffer(ctx, &out->positions, "cube positions", sizeof pos);
    test_buffer(ctx, &out->normals, "cube normals", sizeof nrm);
    cs_error err;
    bool ok = cs_buffer_create(ctx, &(cs_buffer_desc){.name = "cube indices", .size = sizeof idx,
                                                      .extra_usage = VK_BUFFER_USAGE_INDEX_BUFFER_BIT},
                               &out->indices, &err);
    CS_ASSERT(ok, "index buffer: %s", err.msg);
    cs_buffer_upload(ctx, &out->positions, pos, sizeof pos, 0);
    cs_buffer_upload(ctx, &out->normals, nrm, sizeof nrm, 0);
    cs_buffer_upload(ctx, &out->indices, idx, sizeof idx, 0);
    out->surface = (cs_render_surface){.positions = &out->positions, .normals = &out->normals,
                                       .indices = &out->indices, .triangle_count = 12,
                                       .color = {0.85f, 0.85f, 0.85f}};
}

static void free_cube(cs_context *ctx, cube_mesh *c)
{
    cs_buffer_destroy(ctx, &c->positions);
    cs_buffer_destroy(ctx, &c->normals);
    cs_buffer_destroy(ctx, &c->indices);
}

// One frame of the world (radiosity and probes recorded), then the render
// of `surface` (none when NULL), with the world's radiosity or without.
static void render(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam,
                   const cube_mesh *surface, bool with_radiosity, uint8_t *px)
{
    cs_render_frame frame = {.scene = world->fluids[0].scene, .camera = cam, .color_mode = -1, .hide_box = true,
                             .no_fog = true};
    cs_render_frame_add(&frame, CS_DRAWABLE_RADIOSITY, with_radiosity ? world->radiosity : NULL);
    cs_render_frame_add(&frame, CS_DRAWABLE_SURFACE, surface ? (void *)&surface->surface : NULL);
    uint8_t *drawn = test_render(ctx, r, world, &frame, "probes render");
    memcpy(px, drawn, (size_t)SIZE * SIZE * 4);
    free(drawn);
}

static double srgb_to_linear(uint8_t c)
{
    double s = c / 255.0;
    return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
}

// The pixels where `with` differs from `without` (the cube's).
static uint32_t cube_pixels(const uint8_t *with, const uint8_t *without, bool *mask)
{
    uint32_t count = 0;
    for (size_t i = 0; i < (size_t)SIZE * SIZE; i++) {
        mask[i] = memcmp(with + 4 * i, without + 4 * i, 3) != 0;
        count += mask[i];
    }
    return count;
}

static void mean_linear(const uint8_t *px, const bool *mask, double out[3])
{
    double sum[3] = {0, 0, 0};
    uint32_t count = 0;
    for (size_t i = 0; i < (size_t)SIZE * SIZE; i++) {
        if (!mask[i])
            continue;
        for (int c = 0; c < 3; c++)
            sum[c] += srgb_to_linear(px[4 * i + c]);
        count++;
    }
    for (int c = 0; c < 3; c++)
        out[c] = count ? sum[c] / count : 0.0;
}

static double mean_change(const uint8_t *a, const uint8_t *b, const bool *mask)
{
    double sum = 0;
    uint32_t count = 0;
    for (size_t i = 0; i < (size_t)SIZE * SIZE; i++) {
        if (!mask[i])
            continue;
        for (int c = 0; c < 3; c++)
            sum += fabs(srgb_to_linear(a[4 * i + c]) - srgb_to_linear(b[4 * i + c])) / 3.0;
        count++;
    }
    return count ? sum / count : 0.0;
}

static bool same_on_mask(const uint8_t *a, const uint8_t *b, const bool *mask)
{
    for (size_t i = 0; i < (size_t)SIZE * SIZE; i++)
        if (mask[i] && memcmp(a + 4 * i, b + 4 * i, 3) != 0)
            return false;
    return true;
}

typedef struct cube_look {
    const char *name;
    double on[3], off[3];
} cube_look;

// Renders one cube with probes on, switched off (L), and without radiosity;
// checks 1 and 2; leaves the probes on.
static void look_at_cube(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam,
                         const cube_mesh *cube, cube_look *look)
{
    size_t bytes = (size_t)SIZE * SIZE * 4;
    uint8_t *none = malloc(bytes), *on = malloc(bytes), *off = malloc(bytes), *plain = malloc(bytes);
    uint8_t *plain_none = malloc(bytes);
    bool *mask = malloc((size_t)SIZE * SIZE * sizeof *mask);
    render(ctx, r, world, cam, NULL, true, none);
    render(ctx, r, world, cam, cube, true, on);
    cs_world_radiosity_toggle_probes(ctx, world->radiosity);
    render(ctx, r, world, cam, cube, true, off);
    cs_world_radiosity_toggle_probes(ctx, world->radiosity);
    render(ctx, r, world, cam, NULL, false, plain_none);
    render(ctx, r, world, cam, cube, false, plain);

    uint32_t count = cube_pixels(on, none, mask);
    mean_linear(on, mask, look->on);
    mean_linear(off, mask, look->off);
    double change = mean_change(on, off, mask);
    printf("%s cube: %u pixels; probes on (%.3f %.3f %.3f), off (%.3f %.3f %.3f), mean change %.3f\n", look->name,
           count, look->on[0], look->on[1], look->on[2], look->off[0], look->off[1], look->off[2], change);
    CHECK(count > 50, "%s cube: only %u pixels on screen", look->name, count);
    CHECK(change > MIN_CHANGE, "%s cube: the probes change its colour by %.4f (want > %g)", look->name, change,
          MIN_CHANGE);
    // Without radiosity the geometry is not drawn, so the cube's pixels
    // there come from the radiosity-less pair.
    bool *plain_mask = malloc((size_t)SIZE * SIZE * sizeof *plain_mask);
    uint32_t plain_count = cube_pixels(plain, plain_none, plain_mask);
    for (size_t i = 0; i < (size_t)SIZE * SIZE; i++)
        plain_mask[i] = plain_mask[i] && mask[i];
    CHECK(plain_count > 50 && same_on_mask(off, plain, plain_mask),
          "%s cube: switched off, it is not drawn as without radiosity", look->name);
    free(none), free(on), free(off), free(plain), free(plain_none), free(mask), free(plain_mask);
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
        scene.geometry->lighting.patch_size = 0.2;
        scene.geometry->lighting.probes =
            (cs_scene_probes){.given = true, .resolution = {6, 6, 6}, .rays = 128, .every = 1};
        cs_world world;
        ok = cs_world_create(&ctx, &scene, &world, &err);
        CHECK(ok && world.radiosity && world.radiosity->probes_made, "world: %s",
              ok ? "no radiosity probes" : err.msg);
        if (ok && world.radiosity && world.radiosity->probes_made) {
            cs_view_camera cam;
            cs_camera_from_scene(&cam, &scene);
            cube_mesh red, green;
            make_cube(&ctx, (double[3]){RED_CUBE_X, CUBE_Y, CUBE_Z}, &red);
            make_cube(&ctx, (double[3]){GREEN_CUBE_X, CUBE_Y, CUBE_Z}, &green);
            cube_look red_look = {.name = "red-wall"}, green_look = {.name = "green-wall"};
            look_at_cube(&ctx, &r, &world, &cam, &red, &red_look);
            look_at_cube(&ctx, &r, &world, &cam, &green, &green_look);
            double red_rg = red_look.on[0] / fmax(red_look.on[1], 1e-6);
            double green_rg = green_look.on[0] / fmax(green_look.on[1], 1e-6);
            double red_gr = red_look.on[1] / fmax(red_look.on[0], 1e-6);
            double green_gr = green_look.on[1] / fmax(green_look.on[0], 1e-6);
            printf("r/g: red-wall cube %.3f, green-wall cube %.3f; g/r: %.3f, %.3f\n", red_rg, green_rg, red_gr,
                   green_gr);
            CHECK(red_rg >= TINT_FACTOR * green_rg, "the cube by the red wall is not redder: r/g %.3f vs %.3f",
                  red_rg, green_rg);
            CHECK(green_gr >= TINT_FACTOR * red_gr, "the cube by the green wall is not greener: g/r %.3f vs %.3f",
                  green_gr, red_gr);
            free_cube(&ctx, &red);
            free_cube(&ctx, &green);
            cs_world_destroy(&world);
        }
        cs_scene_free(&scene);
    }
    cs_renderer_destroy(&r);
    return test_finish(&ctx);
}
