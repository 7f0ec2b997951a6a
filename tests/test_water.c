// test_water.c — the water shading (host/render/feature_water.c,
// shaders/render/water.frag) against optics computed here in double, on a
// flat slab of water of known depth lying on the checker floor
// (feature_tiles.c), seen by an orthographic camera (every eye ray
// parallel, so one angle of incidence per image):
//   - transmittance: from pixels over light and over dark tiles, T =
//     (I_light - I_dark) / (floor light - floor dark) in linear rgb, per
//     channel; it must be (1 - F) exp(-sigma L), L the refracted path
//     through the water (depth / cos t);
//   - reflectance: what is left over a dark tile, I_dark - T floor_dark, is
//     F times the sky in the mirror direction (the sky re-implemented
//     here); F must be Schlick's with F0 = 0.02: 0.02 head-on, rising
//     towards grazing;
//   - refraction: along image columns the light/dark edges of the floor
//     seen through the water lie where Snell's law puts them, within a
//     pixel (and far from where they would be without the water);
//   - a water frame of dam_break_3d drawn twice from fresh worlds: the
//     same bytes, and no pixel black (a NaN written out) in either.
// ctest labels: quick,gpu -- 8 (water: transmittance, Fresnel, Snell on a slab; particles; pools twice)
#include "test_util.h"

#include "camera.h"
#include "render.h"
#include "world_draw.h"
#include "world.h"
#include "../shaders/render/render_shared.h"

#include <math.h>

#define WIDTH 200
#define HEIGHT 200
#define DEPTH 0.25       // the slab's depth (m)
#define ORTHO_HEIGHT 0.5 // metres the image shows vertically

static const double k_sigma[3] = {1.6, 0.7, 0.15}; // a tinted fluid's absorption (1/m)

typedef struct slab {
    cs_buffer positions, normals, indices;
    cs_render_surface surface;
} slab;

// A box x in [0.05, 1.15], y in [0, DEPTH], z in [0.02, 0.58]: 6 faces of 4
// vertices with the face's outward normal, 2 triangles each.
static void slab_create(cs_context *ctx, slab *s)
{
    const double lo[3] = {0.05, 0.0, 0.02}, hi[3] = {1.15, DEPTH, 0.58};
    float pos[24][4], nrm[24][4];
    uint32_t idx[36];
    for (int face = 0; face < 6; face++) {
        int axis = face / 2, u = (axis + 1) % 3, v = (axis + 2) % 3;
        double side = (face & 1) ? hi[axis] : lo[axis];
        for (int k = 0; k < 4; k++) {
            float *p = pos[4 * face + k], *n = nrm[4 * face + k];
            p[axis] = (float)side;
            p[u] = (float)((k == 1 || k == 2) ? hi[u] : lo[u]);
            p[v] = (float)((k >= 2) ? hi[v] : lo[v]);
            p[3] = 1.0f;
            n[0] = n[1] = n[2] = n[3] = 0.0f;
            n[axis] = (face & 1) ? 1.0f : -1.0f;
        }
        const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++)
            idx[6 * face + k] = 4u * (uint32_t)face + quad[k];
    }
    cs_error err;
    CS_ASSERT(cs_buffer_create(ctx, &(cs_buffer_desc){.name = "slab positions", .size = sizeof pos}, &s->positions,
                               &err) &&
                  cs_buffer_create(ctx, &(cs_buffer_desc){.name = "slab normals", .size = sizeof nrm}, &s->normals,
                                   &err) &&
                  cs_buffer_create(ctx,
                                   &(cs_buffer_desc){.name = "slab indices",
                                                     .size = sizeof idx,
                                                     .extra_usage = VK_BUFFER_USAGE_INDEX_BUFFER_BIT},
                                   &s->indices, &err),
              "%s", err.msg);
    cs_buffer_upload(ctx, &s->positions, pos, sizeof pos, 0);
    cs_buffer_upload(ctx, &s->normals, nrm, sizeof nrm, 0);
    cs_buffer_upload(ctx, &s->indices, idx, sizeof idx, 0);
    s->surface = (cs_render_surface){.positions = &s->positions,
                                     .normals = &s->normals,
                                     .indices = &s->indices,
                                     .triangle_count = 12,
                                     .color = {0.15f, 0.4f, 0.85f},
                                     .water = true};
    for (int c = 0; c < 3; c++)
        s->surface.absorption[c] = (float)k_sigma[c];
}

static void slab_destroy(cs_context *ctx, slab *s)
{
    cs_buffer_destroy(ctx, &s->positions);
    cs_buffer_destroy(ctx, &s->normals);
    cs_buffer_destroy(ctx, &s->indices);
}

// An orthographic camera looking towards +x, tilted `theta` from straight
// down, at the middle of the floor.
static cs_view_camera camera_at(double theta)
{
    cs_view_camera cam = {.ortho = true,
                          .ortho_height = ORTHO_HEIGHT,
                          .fov_degrees = 45,
                          .scene_center = {0.6, 0.1, 0.3},
                          .scene_radius = 1.0};
    double d[3] = {sin(theta), -cos(theta), 0};
    double target[3] = {0.6, 0.0, 0.3};
    for (int i = 0; i < 3; i++) {
        cam.target[i] = target[i];
        cam.position[i] = target[i] - 2.0 * d[i];
    }
    cam.up[0] = cos(theta), cam.up[1] = sin(theta), cam.up[2] = 0;
    return cam;
}

static double srgb_to_linear(uint8_t b)
{
    double c = b / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

// The sky of shaders/render/sky.glsl, in double.
static void sky(const double d[3], double out[3])
{
    const double zenith[3] = {CS_RENDER_SKY_ZENITH}, horizon[3] = {CS_RENDER_SKY_HORIZON},
                 ground[3] = {CS_RENDER_SKY_GROUND}, sun_color[3] = {CS_RENDER_SUN_COLOR};
    double sun[3] = {CS_RENDER_SUN_DIR};
    double len = sqrt(sun[0] * sun[0] + sun[1] * sun[1] + sun[2] * sun[2]);
    double s = fmax((d[0] * sun[0] + d[1] * sun[1] + d[2] * sun[2]) / len, 0.0);
    double glow =
        CS_RENDER_SUN_GLOW * pow(s, CS_RENDER_SUN_GLOW_POWER) + (s > CS_RENDER_SUN_DISC_COS ? CS_RENDER_SUN_DISC : 0);
    for (int c = 0; c < 3; c++) {
        double t = d[1] >= 0 ? sqrt(d[1]) : fmin(-d[1] * CS_RENDER_SKY_GROUND_FALLOFF, 1.0);
        const double *far = d[1] >= 0 ? zenith : ground;
        out[c] = horizon[c] + (far[c] - horizon[c]) * t + glow * sun_color[c];
    }
}

static double schlick(double cos_i)
{
    return 0.02 + 0.98 * pow(1.0 - cos_i, 5.0);
}

// The eye ray of pixel centre (px, py): origin on the camera plane,
// direction forward (orthographic).
static void pixel_ray(const cs_camera_matrices *m, const cs_view_camera *cam, double px, double py, double o[3],
                      double d[3])
{
    double vx = (2.0 * px / WIDTH - 1.0) / m->proj_params[0], vy = (2.0 * py / HEIGHT - 1.0) / m->proj_params[1];
    for (int c = 0; c < 3; c++) {
        double right = m->view[c * 4 + 0], up = m->view[c * 4 + 1], back = m->view[c * 4 + 2];
        o[c] = cam->position[c] + right * vx + up * vy;
        d[c] = -back;
    }
}

// Where the eye ray of pixel (px, py) meets the floor, bent at the slab's
// top (y = DEPTH) by Snell's law when `water`; x and z of the point.
static void floor_hit(const cs_camera_matrices *m, const cs_view_camera *cam, double px, double py, bool water,
                      double hit[2])
{
    double o[3], d[3];
    pixel_ray(m, cam, px, py, o, d);
    double top = water ? DEPTH : 0.0;
    double t = (top - o[1]) / d[1];
    double p[3] = {o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]};
    if (water) {
        double eta = 1.0 / CS_RENDER_WATER_IOR, cos_i = -d[1];
        double k = 1.0 - eta * eta * (1.0 - cos_i * cos_i);
        double tr[3] = {eta * d[0], eta * d[1] + (eta * cos_i - sqrt(k)), eta * d[2]}; // refract(d, +y, eta)
        double s = -DEPTH / tr[1];
        p[0] += s * tr[0], p[2] += s * tr[2];
    }
    hit[0] = p[0], hit[1] = p[2];
}

// Tile parity at a floor point (light: even), and how far it is from the
// nearest tile line, in metres.
static bool light_tile(const cs_scene *s, const double hit[2], double *edge_distance)
{
    double tile = fmax(s->domain_max[0] - s->domain_min[0], s->domain_max[2] - s->domain_min[2]) / 10.0;
    double u = (hit[0] - s->domain_min[0]) / tile, v = (hit[1] - s->domain_min[2]) / tile;
    double fu = u - floor(u), fv = v - floor(v);
    *edge_distance = tile * fmin(fmin(fu, 1 - fu), fmin(fv, 1 - fv));
    return ((long)floor(u) + (long)floor(v)) % 2 == 0;
}

static uint8_t *draw(cs_context *ctx, cs_renderer *r, const cs_scene *scene, const cs_view_camera *cam, slab *s)
{
    cs_render_frame frame = {.scene = scene, .camera = cam, .color_mode = -1, .hide_box = true, .no_fog = true};
    if (s)
        cs_render_frame_add(&frame, CS_DRAWABLE_SURFACE, &s->surface);
    return test_render(ctx, r, NULL, &frame, s ? "water slab" : "floor");
}

typedef struct optics {
    double transmit[3];   // T per channel, measured
    double reflect[3];    // F per channel, measured (blue is the sky's strongest)
    uint32_t light, dark; // pixels averaged
} optics;

// Averages pixels over light and dark tiles seen through the slab's top
// (well inside a tile, a margin from the slab's edges), and turns them
// into T and F with the bare floor's two colours.
// The slab's top, away from its edges: x0, x1, z0, z1.
static const double k_slab_region[4] = {0.15, 1.05, 0.1, 0.5};

static optics measure(const cs_scene *scene, const cs_view_camera *cam, const uint8_t *img, const double floor[2][3],
                      const double region[4])
{
    cs_camera_matrices m;
    cs_camera_matrices_get(cam, (double)WIDTH / HEIGHT, &m);
    double sum[2][3] = {{0}};
    uint32_t count[2] = {0, 0};
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            double o[3], d[3], hit[2], edge;
            pixel_ray(&m, cam, x + 0.5, y + 0.5, o, d);
            // Seen through the top, and the view ray leaves through the
            // bottom (the shader bounds the path by where the view ray
            // leaves: a side face would cut it short).
            double t = (DEPTH - o[1]) / d[1], t_floor = -o[1] / d[1];
            double top[2] = {o[0] + t * d[0], o[2] + t * d[2]},
                   bottom[2] = {o[0] + t_floor * d[0], o[2] + t_floor * d[2]};
            if (top[0] < region[0] || top[0] > region[1] || top[1] < region[2] || top[1] > region[3] ||
                bottom[0] > region[1] + 0.05)
                continue;
            floor_hit(&m, cam, x + 0.5, y + 0.5, true, hit);
            bool light = light_tile(scene, hit, &edge);
            if (edge < 0.02)
                continue;
            const uint8_t *p = img + 4 * ((size_t)y * WIDTH + x);
            for (int c = 0; c < 3; c++)
                sum[light][c] += srgb_to_linear(p[c]);
            count[light]++;
        }
    optics o = {.light = count[1], .dark = count[0]};
    for (int c = 0; c < 3; c++) {
        double lit = count[1] ? sum[1][c] / count[1] : 0, dark = count[0] ? sum[0][c] / count[0] : 0;
        o.transmit[c] = (lit - dark) / (floor[1][c] - floor[0][c]);
        o.reflect[c] = dark - o.transmit[c] * floor[0][c];
    }
    return o;
}

// The bare floor's light and dark colours (linear), from pixels well inside tiles.
static void floor_colours(const cs_scene *scene, const cs_view_camera *cam, const uint8_t *img, double out[2][3])
{
    cs_camera_matrices m;
    cs_camera_matrices_get(cam, (double)WIDTH / HEIGHT, &m);
    uint32_t count[2] = {0, 0};
    memset(out, 0, 2 * 3 * sizeof(double));
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            double hit[2], edge;
            floor_hit(&m, cam, x + 0.5, y + 0.5, false, hit);
            bool light = light_tile(scene, hit, &edge);
            if (edge < 0.02)
                continue;
            for (int c = 0; c < 3; c++)
                out[light][c] += srgb_to_linear(img[4 * ((size_t)y * WIDTH + x) + c]);
            count[light]++;
        }
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 3; c++)
            out[k][c] /= count[k] ? count[k] : 1;
}

// Light/dark edges down image column x, sub-pixel: where the green
// channel's linear value crosses halfway between the floor's two colours.
static uint32_t column_edges(const uint8_t *img, uint32_t x, double mid, double *edges, uint32_t max)
{
    uint32_t n = 0;
    for (uint32_t y = 0; y + 1 < HEIGHT && n < max; y++) {
        double a = srgb_to_linear(img[4 * ((size_t)y * WIDTH + x) + 1]) - mid;
        double b = srgb_to_linear(img[4 * ((size_t)(y + 1) * WIDTH + x) + 1]) - mid;
        if ((a < 0) != (b < 0))
            edges[n++] = y + 0.5 + a / (a - b);
    }
    return n;
}

// Where the edges down column x should be (Snell on, or straight rays):
// the pixel rows where the floor point's tile parity flips, bisected.
static uint32_t expected_edges(const cs_scene *scene, const cs_view_camera *cam, uint32_t x, bool water, double *edges,
                               uint32_t max)
{
    cs_camera_matrices m;
    cs_camera_matrices_get(cam, (double)WIDTH / HEIGHT, &m);
    uint32_t n = 0;
    double hit[2], edge;
    floor_hit(&m, cam, x + 0.5, 0.5, water, hit);
    bool before = light_tile(scene, hit, &edge);
    for (uint32_t y = 1; y < HEIGHT && n < max; y++) {
        floor_hit(&m, cam, x + 0.5, y + 0.5, water, hit);
        bool now = light_tile(scene, hit, &edge);
        if (now == before)
            continue;
        double lo = y - 0.5, hi = y + 0.5;
        for (int i = 0; i < 40; i++) {
            double mid = 0.5 * (lo + hi);
            floor_hit(&m, cam, x + 0.5, mid, water, hit);
            if (light_tile(scene, hit, &edge) == before)
                lo = mid;
            else
                hi = mid;
        }
        edges[n++] = 0.5 * (lo + hi);
        before = now;
    }
    return n;
}

static double nearest(double v, const double *list, uint32_t n)
{
    double best = INFINITY;
    for (uint32_t i = 0; i < n; i++)
        best = fmin(best, fabs(v - list[i]));
    return best;
}

static void check_snell(cs_context *ctx, cs_renderer *r, const cs_scene *scene, slab *s, const double floor[2][3])
{
    cs_view_camera cam = camera_at(40.0 * CS_RENDER_PI / 180.0);
    uint8_t *img = draw(ctx, r, scene, &cam, s);
    cs_camera_matrices m;
    cs_camera_matrices_get(&cam, (double)WIDTH / HEIGHT, &m);
    // Mid-level between what the two tiles look like through the water.
    optics o = measure(scene, &cam, img, floor, k_slab_region);
    double mid = 0.5 * (o.transmit[1] * (floor[0][1] + floor[1][1])) + o.reflect[1];
    uint32_t compared = 0, within = 0, moved = 0;
    double worst = 0;
    for (uint32_t x = 20; x < WIDTH - 20; x += 10) {
        double found[32], snell[32], straight[32];
        uint32_t nf = column_edges(img, x, mid, found, 32);
        uint32_t ns = expected_edges(scene, &cam, x, true, snell, 32);
        uint32_t nn = expected_edges(scene, &cam, x, false, straight, 32);
        for (uint32_t k = 0; k < ns; k++) {
            // Only edges seen through the slab's top, away from its sides.
            double o3[3], d3[3];
            pixel_ray(&m, &cam, x + 0.5, snell[k], o3, d3);
            double t = (DEPTH - o3[1]) / d3[1], top_x = o3[0] + t * d3[0], top_z = o3[2] + t * d3[2];
            if (top_x < 0.15 || top_x > 1.05 || top_z < 0.1 || top_z > 0.5)
                continue;
            double err = nearest(snell[k], found, nf);
            compared++;
            within += err <= 1.0;
            worst = fmax(worst, err);
            moved += nearest(snell[k], straight, nn) > 3.0;
        }
    }
    printf("refraction at 40 deg: %u edges through the water, %u within 1 px of Snell's (worst %.2f px), "
           "%u of them more than 3 px from where straight rays put them\n",
           compared, within, worst, moved);
    CHECK(compared >= 20 && within == compared, "%u of %u edges within a pixel of Snell's law (worst %.2f px)", within,
          compared, worst);
    CHECK(moved == compared, "%u of %u edges moved by the refraction (the check could not tell otherwise)", moved,
          compared);
    free(img);
}

static void check_optics(cs_context *ctx, cs_renderer *r, const cs_scene *scene, slab *s, double floor[2][3])
{
    const double angles[] = {0.0, 45.0, 65.0, 75.0};
    double last_f = 0;
    for (size_t a = 0; a < CS_ARRAY_COUNT(angles); a++) {
        double theta = angles[a] * CS_RENDER_PI / 180.0;
        cs_view_camera cam = camera_at(theta);
        uint8_t *img = draw(ctx, r, scene, &cam, s);
        optics o = measure(scene, &cam, img, floor, k_slab_region);
        double cos_i = cos(theta), sin_t = sin(theta) / CS_RENDER_WATER_IOR, cos_t = sqrt(1 - sin_t * sin_t);
        double f = schlick(cos_i), path = DEPTH / cos_t;
        double mirror[3] = {sin(theta), cos(theta), 0}, env[3];
        sky(mirror, env);
        printf("%4.0f deg (%u light, %u dark px): T", angles[a], o.light, o.dark);
        for (int c = 0; c < 3; c++) {
            double want = (1 - f) * exp(-k_sigma[c] * path);
            printf(" %.4f (want %.4f)", o.transmit[c], want);
            CHECK(fabs(o.transmit[c] - want) < 0.015,
                  "%.0f deg, channel %d: transmittance %.4f, want (1 - F) "
                  "exp(-sigma L) = %.4f",
                  angles[a], c, o.transmit[c], want);
        }
        double f_measured = o.reflect[2] / env[2];
        printf("; F %.4f (Schlick %.4f)\n", f_measured, f);
        CHECK(o.light > 50 && o.dark > 50, "%u light and %u dark pixels measured", o.light, o.dark);
        CHECK(fabs(f_measured - f) < 0.004 + 0.05 * f, "%.0f deg: reflectance %.4f, Schlick says %.4f", angles[a],
              f_measured, f);
        CHECK(a == 0 || f_measured > last_f, "reflectance rises towards grazing: %.4f after %.4f", f_measured, last_f);
        last_f = f_measured;
        free(img);
    }
}

// The screen-space fluid (water_ssf.c) on a block of particles at rest on
// the floor, 10 layers of spacing s (0.2 m of fluid) on a lattice, seen
// straight down: its smoothed surface faces up (F = 0.02) and its splatted
// thickness is the block's depth, so T = (1 - F) exp(-sigma 10 s).
static void check_particles(cs_context *ctx, cs_renderer *r, const cs_scene *scene, const double floor[2][3])
{
    const uint32_t nx = 40, ny = 10, nz = 20, n = nx * ny * nz;
    const double s = scene->fluids[0].particle_spacing;
    float *pos = calloc((size_t)n, 4 * sizeof(float));
    CS_ASSERT(pos, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
        pos[4 * i + 0] = (float)(0.2 + (x + 0.5) * s);
        pos[4 * i + 1] = (float)((y + 0.5) * s);
        pos[4 * i + 2] = (float)(0.1 + (z + 0.5) * s);
    }
    cs_buffer positions, materials;
    cs_error err;
    CS_ASSERT(cs_buffer_create(ctx, &(cs_buffer_desc){.name = "block positions", .size = 16ull * n}, &positions,
                               &err) &&
                  cs_buffer_create(ctx, &(cs_buffer_desc){.name = "block materials", .size = 4ull * n}, &materials,
                                   &err),
              "%s", err.msg);
    cs_buffer_upload(ctx, &positions, pos, 16ull * n, 0);
    cs_buffer_fill(ctx, &materials, 0);
    cs_particle_view pv = {.positions = &positions,
                           .materials = &materials,
                           .count = n,
                           .water = true,
                           .scene = &scene->fluids[0]};
    for (int c = 0; c < 3; c++)
        pv.absorption[c] = (float)k_sigma[c];
    cs_view_camera cam = camera_at(0.0);
    cs_render_frame frame = {.scene = scene, .camera = &cam, .color_mode = -1, .hide_box = true, .no_fog = true};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &pv);
    uint8_t *img = test_render(ctx, r, NULL, &frame, "water particles");
    // Inside the block's top, a few filter widths from its sides.
    const double region[4] = {0.3, 0.9, 0.18, 0.42};
    optics o = measure(scene, &cam, img, floor, region);
    double depth = ny * s, f = schlick(1.0), env[3], up[3] = {0, 1, 0};
    sky(up, env);
    double f_measured = o.reflect[2] / env[2];
    printf("particles (%u, %.2f m deep) as water, straight down (%u light, %u dark px): T", n, depth, o.light, o.dark);
    for (int c = 0; c < 3; c++) {
        double want = (1 - f) * exp(-k_sigma[c] * depth);
        printf(" %.4f (want %.4f)", o.transmit[c], want);
        CHECK(fabs(o.transmit[c] - want) < 0.03,
              "particles, channel %d: transmittance %.4f, want (1 - F) "
              "exp(-sigma depth) = %.4f",
              c, o.transmit[c], want);
    }
    printf("; F %.4f (want %.4f)\n", f_measured, f);
    CHECK(o.light > 200 && o.dark > 200, "%u light and %u dark pixels measured", o.light, o.dark);
    CHECK(fabs(f_measured - f) < 0.008, "particles: reflectance %.4f head-on, want %.4f", f_measured, f);
    free(img);
    free(pos);
    cs_buffer_destroy(ctx, &positions);
    cs_buffer_destroy(ctx, &materials);
}

// A small dam break (about 2000 particles) drawn as water after 12 frames:
// the frame's meshing, then the water over the sky and tiles.
// (a format: %s is the surface's enabled)
static const char k_pool[] =
    "{\"dim\": 3, \"domain\": {\"min\": [0, 0, 0], \"max\": [0.6, 0.5, 0.3]}, \"gravity\": [0, -9.81, 0],"
    " \"dt\": 0.005, \"substeps\": 2, \"seed\": 3,"
    " \"fluids\": [{\"solver\": \"pbf\", \"particle_spacing\": 0.02, \"smoothing_radius\": 0.04,"
    "   \"materials\": [{\"name\": \"water\", \"absorption\": [2.5, 0.8, 0.35]}],"
    "   \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.3, 0.3]}], \"surface\": {\"enabled\": %s}, \"pbf\": {}}],"
    " \"camera\": {\"position\": [1.0, 0.6, 1.0], \"target\": [0.3, 0.1, 0.15], \"fov_degrees\": 45},"
    " \"render\": {\"draw\": \"water\", \"features\": \"sky floor_tiles\"}}";

static uint8_t *pool_frame(cs_context *ctx, cs_renderer *r, bool particles)
{
    cs_scene scene;
    cs_world world;
    // Without a surface the particles are drawn as water (water_ssf.c).
    char json[sizeof k_pool + 16];
    snprintf(json, sizeof json, k_pool, particles ? "false" : "true");
    if (!test_world_from_json(ctx, json, "pool.json", &scene, &world))
        return NULL;
    CHECK(scene.render.draw == CS_DRAW_WATER, "render.draw \"water\" read");
    test_world_run(ctx, &world, 12, "pool");
    cs_recorder rec;
    cs_recorder_create(ctx, "pool water", &rec);
    cs_recorder_begin(&rec);
    cs_world_record_frame(&world, &rec);
    cs_error err;
    CHECK(cs_world_mesh_surfaces(&world, &rec, &err), "meshing: %s", err.msg);
    cs_barrier_compute_to_graphics(&rec);
    cs_world_draw arrays;
    cs_render_frame frame = cs_world_draw_frame(&world, scene.render.draw, true, &arrays);
    if (particles)
        CHECK(frame.drawable_count >= 1 && arrays.views[0].water && arrays.views[0].count > 0,
              "the particles are drawn as water (%u)", arrays.views[0].count);
    else
        CHECK(frame.drawable_count >= 1 && arrays.surfaces[0].water && arrays.surfaces[0].triangle_count > 0,
              "the surface is drawn as water (%u triangles)", arrays.surfaces[0].triangle_count);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &scene);
    frame.camera = &cam;
    cs_render_record(r, &rec, &frame);
    cs_render_record_readback(r, &rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    size_t bytes = (size_t)r->width * r->height * 4;
    uint8_t *px = malloc(bytes);
    CS_ASSERT(px, "out of memory");
    memcpy(px, cs_render_pixels(r), bytes);
    test_world_free(&world, &scene);
    return px;
}

// Two fresh worlds, the same frame: the same bytes; no black pixel (the
// sky, the tiles and the water are never black: a NaN written out is).
static void check_determinism(cs_context *ctx, cs_renderer *r, bool particles)
{
    uint8_t *a = pool_frame(ctx, r, particles), *b = pool_frame(ctx, r, particles);
    if (!a || !b) {
        free(a), free(b);
        return;
    }
    size_t differ = 0, black = 0;
    for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++) {
        differ += memcmp(a + 4 * i, b + 4 * i, 4) != 0;
        black += (a[4 * i] | a[4 * i + 1] | a[4 * i + 2]) == 0;
    }
    printf("pool as water (%s), twice: %zu pixels differ, %zu black\n", particles ? "particles" : "surface", differ,
           black);
    CHECK(differ == 0, "%zu pixels differ between two runs of the same frame", differ);
    CHECK(black == 0, "%zu black (NaN) pixels", black);
    free(a), free(b);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_scene scene;
    cs_error err;
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/dam_break_3d.json", &scene, &err), "%s", err.msg);
    snprintf(scene.render.features, sizeof scene.render.features, "sky floor_tiles");
    cs_renderer r;
    CS_ASSERT(cs_renderer_create(&ctx, &(cs_renderer_desc){.width = WIDTH, .height = HEIGHT}, &r, &err), "%s", err.msg);
    CHECK(r.can_read_scene, "lavapipe samples the colour and depth formats");
    slab s;
    slab_create(&ctx, &s);

    cs_view_camera down = camera_at(0.0);
    uint8_t *bare = draw(&ctx, &r, &scene, &down, NULL);
    double floor[2][3];
    floor_colours(&scene, &down, bare, floor);
    printf("floor: light %.4f %.4f %.4f, dark %.4f %.4f %.4f\n", floor[1][0], floor[1][1], floor[1][2], floor[0][0],
           floor[0][1], floor[0][2]);
    free(bare);
    check_optics(&ctx, &r, &scene, &s, floor);
    check_snell(&ctx, &r, &scene, &s, floor);
    check_particles(&ctx, &r, &scene, floor);
    check_determinism(&ctx, &r, false);
    check_determinism(&ctx, &r, true);
    slab_destroy(&ctx, &s);
    cs_renderer_destroy(&r);
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
