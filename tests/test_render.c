// test_render.c — the graphics pass against a CPU ray caster.
//
// Random particle sets are drawn headless into an offscreen image and read
// back. An independent double-precision reference (its own look-at and
// projection built from the scene's camera, its own ray-sphere tests,
// shading, colour maps, fog and sRGB encode) predicts every pixel: the
// nearest sphere's shaded colour or the background gradient. Pixels within
// half a pixel of a silhouette or an intersection curve are skipped (which
// sphere covers them depends on rounding); every other pixel must match, and
// the depth buffer must hold the true depth of the sphere surface
// (gl_FragDepth), not the depth of the impostor quad. Explicit cases: a
// nearer sphere hides a farther one in either draw order, a sphere whose
// centre is farther but whose surface is nearer wins, 2D scenes map
// orthographically onto the fitted domain, colour modes change colours as
// the maps say, the box lines land where the box projects, a UNORM target
// encodes sRGB in the shader, and a written PNG reads back bit-exact.
// ctest labels: quick,gpu -- 1.2
#include "test_util.h"

#include "render.h"
#include "../shaders/render/render_shared.h"

#include <unistd.h>

static const double k_pi = 3.14159265358979323846;

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

// ---------------------------------------------------------------------------
// Particles

typedef struct cpu_particles {
    uint32_t n;
    float *pos4, *vel4, *dens;
    uint32_t *mat;
} cpu_particles;

typedef struct gpu_particles {
    cs_buffer pos, vel, dens, mat;
    cs_particle_view view;
} gpu_particles;

static void cpu_alloc(cpu_particles *p, uint32_t n)
{
    p->n = n;
    p->pos4 = calloc((size_t)n + 1, 16);
    p->vel4 = calloc((size_t)n + 1, 16);
    p->dens = calloc((size_t)n + 1, 4);
    p->mat = calloc((size_t)n + 1, 4);
}

static void cpu_free(cpu_particles *p)
{
    free(p->pos4);
    free(p->vel4);
    free(p->dens);
    free(p->mat);
}

static void gpu_upload(cs_context *ctx, const cpu_particles *p, gpu_particles *g)
{
    VkDeviceSize n = p->n ? p->n : 1;
    test_buffer(ctx, &g->pos, "positions", n * 16);
    test_buffer(ctx, &g->vel, "velocities", n * 16);
    test_buffer(ctx, &g->dens, "densities", n * 4);
    test_buffer(ctx, &g->mat, "materials", n * 4);
    cs_buffer_upload(ctx, &g->pos, p->pos4, n * 16, 0);
    cs_buffer_upload(ctx, &g->vel, p->vel4, n * 16, 0);
    cs_buffer_upload(ctx, &g->dens, p->dens, n * 4, 0);
    cs_buffer_upload(ctx, &g->mat, p->mat, n * 4, 0);
    g->view = (cs_particle_view){&g->pos, &g->vel, &g->dens, &g->mat, p->n};
}

static void gpu_free(cs_context *ctx, gpu_particles *g)
{
    cs_buffer_destroy(ctx, &g->pos);
    cs_buffer_destroy(ctx, &g->vel);
    cs_buffer_destroy(ctx, &g->dens);
    cs_buffer_destroy(ctx, &g->mat);
}

// 8-bit levels a pixel may differ from the double-precision reference
// (float shading, sRGB rounding on either side).
static const int k_tolerance = 2;

static double rnd(double lo, double hi) { return lo + (hi - lo) * test_rand_unit(); }

// ---------------------------------------------------------------------------
// The reference: camera, rays, shading

typedef struct ref_camera {
    bool ortho;
    double eye[3], right[3], up[3], fwd[3];
    double sx, sy;          // clip x = sx * view x, clip y = sy * view y
    uint32_t width, height;
} ref_camera;

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(double *d, const double *a, const double *b)
{
    d[0] = a[1] * b[2] - a[2] * b[1];
    d[1] = a[2] * b[0] - a[0] * b[2];
    d[2] = a[0] * b[1] - a[1] * b[0];
}
static void norm3(double *a)
{
    double l = sqrt(dot3(a, a));
    a[0] /= l, a[1] /= l, a[2] /= l;
}

// Built from the scene alone: 3D from camera position/target/up/fov, 2D by
// fitting the domain (8% margin) into the image, looking down -z.
static void ref_camera_init(ref_camera *rc, const cs_scene *s, uint32_t width, uint32_t height)
{
    memset(rc, 0, sizeof *rc);
    rc->width = width;
    rc->height = height;
    double aspect = (double)width / height;
    if (s->dim == 2) {
        rc->ortho = true;
        double cx = 0.5 * (s->domain_min[0] + s->domain_max[0]), cy = 0.5 * (s->domain_min[1] + s->domain_max[1]);
        double w = s->domain_max[0] - s->domain_min[0], h = s->domain_max[1] - s->domain_min[1];
        double view_h = fmax(h, w / aspect) * 1.08;
        rc->eye[0] = cx, rc->eye[1] = cy, rc->eye[2] = 10;
        rc->right[0] = 1, rc->up[1] = 1, rc->fwd[2] = -1;
        rc->sy = -2.0 / view_h;
        rc->sx = 2.0 / (view_h * aspect);
        return;
    }
    for (int i = 0; i < 3; i++) {
        rc->eye[i] = s->camera.position[i];
        rc->fwd[i] = s->camera.target[i] - s->camera.position[i];
    }
    norm3(rc->fwd);
    double up[3] = {s->camera.up[0], s->camera.up[1], s->camera.up[2]};
    cross3(rc->right, rc->fwd, up);
    norm3(rc->right);
    cross3(rc->up, rc->right, rc->fwd);
    double f = 1.0 / tan(0.5 * s->camera.fov_degrees * k_pi / 180.0);
    rc->sx = f / aspect;
    rc->sy = -f;
}

static void to_view(const ref_camera *rc, const float *p, double v[3])
{
    double d[3] = {p[0] - rc->eye[0], p[1] - rc->eye[1], p[2] - rc->eye[2]};
    v[0] = dot3(rc->right, d);
    v[1] = dot3(rc->up, d);
    v[2] = -dot3(rc->fwd, d);
}

// Pixel coordinates (pixel centres at .5) of a world point.
static void ref_project(const ref_camera *rc, const float *p, double px[2])
{
    double v[3];
    to_view(rc, p, v);
    double w = rc->ortho ? 1.0 : -v[2];
    px[0] = (rc->sx * v[0] / w + 1) * 0.5 * rc->width;
    px[1] = (rc->sy * v[1] / w + 1) * 0.5 * rc->height;
}

static void ray_for(const ref_camera *rc, double x, double y, double origin[3], double dir[3])
{
    double nx = 2.0 * x / rc->width - 1.0, ny = 2.0 * y / rc->height - 1.0;
    if (rc->ortho) {
        origin[0] = nx / rc->sx, origin[1] = ny / rc->sy, origin[2] = 0;
        dir[0] = 0, dir[1] = 0, dir[2] = -1;
    } else {
        origin[0] = origin[1] = origin[2] = 0;
        dir[0] = nx / rc->sx, dir[1] = ny / rc->sy, dir[2] = -1;
        norm3(dir);
    }
}

typedef struct ref_scene {
    ref_camera cam;
    const cs_scene *scene;
    const cpu_particles *p;
    double (*centers)[3];   // view space
    double radius;
    int color_mode;
    double speed_max, density_lo, density_hi;
    double fog_density, fog_start;
    double near_plane, far_plane; // the renderer's clip planes
} ref_scene;

// Depth (0 near plane .. 1 far plane) of a view-space z.
static double ref_depth(const ref_scene *rs, double z)
{
    double n = rs->near_plane, f = rs->far_plane;
    return rs->cam.ortho ? (-z - n) / (f - n) : (f / (n - f) * z + n * f / (n - f)) / -z;
}

// Index of the nearest sphere along the ray and its ray parameter; -1: none.
static int nearest_hit(const ref_scene *rs, const double *o, const double *d, double *t_out)
{
    int best = -1;
    double best_t = INFINITY, r = rs->radius;
    for (uint32_t i = 0; i < rs->p->n; i++) {
        const double *c = rs->centers[i];
        if (!rs->cam.ortho && sqrt(dot3(c, c)) <= r * 1.001)
            continue; // the eye is inside: the renderer drops it
        double oc[3] = {o[0] - c[0], o[1] - c[1], o[2] - c[2]};
        double b = dot3(oc, d), disc = b * b - (dot3(oc, oc) - r * r);
        if (disc < 0)
            continue;
        double t = -b - sqrt(disc);
        double depth = ref_depth(rs, o[2] + t * d[2]);
        if (depth < 0 || depth > 1)
            continue; // cut by a clip plane: the renderer discards it
        if (t < best_t) {
            best_t = t;
            best = (int)i;
        }
    }
    *t_out = best_t;
    return best;
}

static void lerp3(double *out, const double *a, const double *b, double t)
{
    for (int i = 0; i < 3; i++)
        out[i] = a[i] + (b[i] - a[i]) * t;
}

static void ref_albedo(const ref_scene *rs, uint32_t i, double out[3])
{
    const cs_scene *s = rs->scene;
    uint32_t m = CS_MIN(rs->p->mat[i], s->material_count - 1);
    if (rs->color_mode == CS_COLOR_SPEED) {
        const float *v = rs->p->vel4 + 4 * i;
        double t = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]) / rs->speed_max;
        t = fmin(fmax(t, 0), 1) * 3;
        const double stops[4][3] = {{CS_RENDER_SPEED_STOP0}, {CS_RENDER_SPEED_STOP1}, {CS_RENDER_SPEED_STOP2},
                                    {CS_RENDER_SPEED_STOP3}};
        int k = t < 1 ? 0 : t < 2 ? 1 : 2;
        lerp3(out, stops[k], stops[k + 1], t - k);
    } else if (rs->color_mode == CS_COLOR_DENSITY) {
        double ratio = rs->p->dens[i] / s->materials[m].rest_density;
        double t = (ratio - rs->density_lo) / (rs->density_hi - rs->density_lo);
        t = fmin(fmax(t, 0), 1) * 2;
        const double stops[3][3] = {{CS_RENDER_DENSITY_LOW}, {CS_RENDER_DENSITY_MID}, {CS_RENDER_DENSITY_HIGH}};
        int k = t < 1 ? 0 : 1;
        lerp3(out, stops[k], stops[k + 1], t - k);
    } else {
        for (int c = 0; c < 3; c++)
            out[c] = s->materials[m].color[c];
    }
}

static uint8_t srgb8(double c)
{
    c = fmin(fmax(c, 0), 1);
    double e = c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055;
    return (uint8_t)lround(e * 255.0);
}

static void shade(const double *albedo, const double *n, const double *to_eye, double out[3])
{
    double l[3] = {CS_RENDER_LIGHT_X, CS_RENDER_LIGHT_Y, CS_RENDER_LIGHT_Z};
    norm3(l);
    double diffuse = fmax(dot3(n, l), 0);
    double h[3] = {l[0] + to_eye[0], l[1] + to_eye[1], l[2] + to_eye[2]};
    norm3(h);
    double spec = diffuse > 0 ? pow(fmax(dot3(n, h), 0), CS_RENDER_SHININESS) : 0;
    for (int c = 0; c < 3; c++)
        out[c] = albedo[c] * (CS_RENDER_AMBIENT + CS_RENDER_DIFFUSE * diffuse) + CS_RENDER_SPECULAR * spec;
}

// Expected pixel: returns the sphere index (-1 background); fills rgb and
// the view-space z of the hit.
static int ref_pixel(const ref_scene *rs, uint32_t x, uint32_t y, uint8_t rgb[3], double *hit_z)
{
    double o[3], d[3], t;
    ray_for(&rs->cam, x + 0.5, y + 0.5, o, d);
    int id = nearest_hit(rs, o, d, &t);
    double color[3];
    const float *bg = rs->scene->render.background;
    if (id < 0) {
        double v = (y + 0.5) / rs->cam.height;
        for (int c = 0; c < 3; c++)
            color[c] = bg[c] * (CS_RENDER_BACKGROUND_TOP + (CS_RENDER_BACKGROUND_BOTTOM - CS_RENDER_BACKGROUND_TOP) * v);
    } else {
        double hit[3] = {o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]};
        const double *c = rs->centers[id];
        double n[3] = {hit[0] - c[0], hit[1] - c[1], hit[2] - c[2]};
        norm3(n);
        double to_eye[3] = {-d[0], -d[1], -d[2]}, albedo[3], lit[3];
        ref_albedo(rs, (uint32_t)id, albedo);
        shade(albedo, n, to_eye, lit);
        double f = exp(-rs->fog_density * fmax(-hit[2] - rs->fog_start, 0));
        for (int k = 0; k < 3; k++)
            color[k] = bg[k] + (lit[k] - bg[k]) * f;
        *hit_z = hit[2];
    }
    for (int c = 0; c < 3; c++)
        rgb[c] = srgb8(color[c]);
    return id;
}

// True when the same sphere (or none) covers the pixel's centre and four
// points half a pixel away: the pixel is not on a silhouette or a crossing.
static bool ref_pixel_stable(const ref_scene *rs, uint32_t x, uint32_t y)
{
    const double off[5][2] = {{0.5, 0.5}, {0.0, 0.5}, {1.0, 0.5}, {0.5, 0.0}, {0.5, 1.0}};
    int first = 0;
    for (int k = 0; k < 5; k++) {
        double o[3], d[3], t;
        ray_for(&rs->cam, x + off[k][0], y + off[k][1], o, d);
        int id = nearest_hit(rs, o, d, &t);
        if (k == 0)
            first = id;
        else if (id != first)
            return false;
    }
    return true;
}

// ---------------------------------------------------------------------------
// Scenes and rendering

static void make_scene(cs_scene *out, int dim)
{
    memset(out, 0, sizeof *out);
    out->dim = dim;
    snprintf(out->name, sizeof out->name, "render test");
    out->material_count = 3;
    const float colors[3][3] = {{0.9f, 0.15f, 0.1f}, {0.1f, 0.8f, 0.2f}, {0.15f, 0.3f, 0.95f}};
    for (int m = 0; m < 3; m++) {
        memcpy(out->materials[m].color, colors[m], sizeof colors[m]);
        out->materials[m].rest_density = (float)(500.0 * (m + 1));
    }
    for (int c = 0; c < 3; c++)
        out->render.background[c] = (float)rnd(0.05, 0.35);
    out->gravity[1] = -9.81f;
    out->particle_spacing = 0.1f;
}

typedef struct render_result {
    double draw_ms;
    bool has_draw_pass;
} render_result;

static render_result render(cs_context *ctx, cs_renderer *r, const cs_render_frame *frame)
{
    cs_recorder rec;
    cs_recorder_create(ctx, "render test", &rec);
    cs_recorder_begin(&rec);
    cs_barrier_compute_to_graphics(&rec);
    cs_render_record(r, &rec, frame);
    cs_render_record_readback(r, &rec);
    cs_recorder_submit_wait(&rec);
    render_result res = {cs_recorder_pass_ms(&rec, "draw"), cs_recorder_pass_ms(&rec, "draw") >= 0};
    cs_recorder_destroy(&rec);
    return res;
}

typedef struct compare_stats {
    uint32_t compared, sphere_pixels, mismatches, depth_mismatches;
    int max_diff;
    uint32_t centers_checked, centers_ok;
    double max_depth_error;
} compare_stats;

// Compares the read-back image (and depth) with the reference.
static compare_stats compare_image(cs_renderer *r, const ref_scene *rs, const cs_camera_matrices *m,
                                   const char *what)
{
    compare_stats st = {0};
    const uint8_t *px = cs_render_pixels(r);
    const float *depth = cs_render_depths(r);
    (void)m;
    for (uint32_t y = 0; y < r->height; y++)
        for (uint32_t x = 0; x < r->width; x++) {
            if (!ref_pixel_stable(rs, x, y))
                continue;
            uint8_t want[3];
            double z = 0;
            int id = ref_pixel(rs, x, y, want, &z);
            const uint8_t *got = px + 4 * ((size_t)y * r->width + x);
            int diff = 0;
            for (int c = 0; c < 3; c++)
                diff = CS_MAX(diff, abs((int)got[c] - (int)want[c]));
            st.compared++;
            st.max_diff = CS_MAX(st.max_diff, diff);
            if (diff > k_tolerance && st.mismatches++ < 5)
                fprintf(stderr, "%s: pixel (%u,%u) sphere %d: got %u %u %u, want %u %u %u\n", what, x, y, id, got[0],
                        got[1], got[2], want[0], want[1], want[2]);
            if (!depth)
                continue;
            double want_depth = 1.0;
            if (id >= 0) {
                st.sphere_pixels++;
                want_depth = ref_depth(rs, z);
            }
            double err = fabs(depth[(size_t)y * r->width + x] - want_depth);
            st.max_depth_error = fmax(st.max_depth_error, err);
            if (!(err <= 2e-5) && st.depth_mismatches++ < 5)
                fprintf(stderr, "%s: depth at (%u,%u) sphere %d: got %.7f, want %.7f\n", what, x, y, id,
                        depth[(size_t)y * r->width + x], want_depth);
        }
    // Every particle whose centre pixel is its own (not hidden, not on an
    // edge) shows there in its colour.
    for (uint32_t i = 0; i < rs->p->n; i++) {
        double c[2];
        ref_project(&rs->cam, rs->p->pos4 + 4 * i, c);
        if (c[0] < 0 || c[1] < 0 || c[0] >= r->width || c[1] >= r->height)
            continue;
        uint32_t x = (uint32_t)c[0], y = (uint32_t)c[1];
        uint8_t want[3];
        double z;
        if (!ref_pixel_stable(rs, x, y) || ref_pixel(rs, x, y, want, &z) != (int)i)
            continue;
        const uint8_t *got = px + 4 * ((size_t)y * r->width + x);
        st.centers_checked++;
        st.centers_ok += abs(got[0] - want[0]) <= k_tolerance && abs(got[1] - want[1]) <= k_tolerance &&
                         abs(got[2] - want[2]) <= k_tolerance;
    }
    return st;
}

typedef struct case_desc {
    const char *name;
    int dim;
    uint32_t n;
    uint32_t width, height;
    int color_mode;
    double fog;
} case_desc;

static void fill_random(cpu_particles *p, const cs_scene *s, double radius)
{
    for (uint32_t i = 0; i < p->n; i++) {
        for (int c = 0; c < 3; c++) {
            double lo = s->domain_min[c] + radius, hi = s->domain_max[c] - radius;
            p->pos4[4 * i + c] = (s->dim == 2 && c == 2) ? 0.0f : (float)rnd(lo, hi);
            p->vel4[4 * i + c] = (s->dim == 2 && c == 2) ? 0.0f : (float)rnd(-4, 4);
        }
        p->mat[i] = test_rand_u32() % s->material_count;
        p->dens[i] = (float)(s->materials[p->mat[i]].rest_density * rnd(0.85, 1.15));
    }
}

static void random_camera(cs_scene *s)
{
    double theta = rnd(0, 2 * k_pi), elev = rnd(-0.3, 0.9), dist = rnd(3.6, 5.0);
    s->camera.position[0] = (float)(dist * cos(elev) * sin(theta));
    s->camera.position[1] = (float)(dist * sin(elev));
    s->camera.position[2] = (float)(dist * cos(elev) * cos(theta));
    for (int c = 0; c < 3; c++)
        s->camera.target[c] = (float)rnd(-0.2, 0.2);
    s->camera.up[1] = 1;
    s->camera.fov_degrees = (float)rnd(35, 60);
}

static void set_domain(cs_scene *s, const float lo[3], const float hi[3])
{
    memcpy(s->domain_min, lo, 12);
    memcpy(s->domain_max, hi, 12);
}

// Renders a particle set and compares it with the reference; returns the stats.
static compare_stats run_and_compare(cs_context *ctx, cs_renderer *r, const cs_scene *s, const cpu_particles *p,
                                     const cs_render_frame *frame_in, const char *what)
{
    gpu_particles g;
    gpu_upload(ctx, p, &g);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, s);
    cs_render_frame frame = *frame_in;
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &g.view);
    frame.scene = s;
    frame.camera = &cam;
    render_result res = render(ctx, r, &frame);
    CHECK(res.has_draw_pass, "%s: a 'draw' pass was recorded with a timestamp", what);

    cs_camera_matrices m;
    cs_camera_matrices_get(&cam, (double)r->width / r->height, &m);
    ref_scene rs = {.scene = s, .p = p, .radius = frame.particle_radius, .color_mode = frame.color_mode};
    ref_camera_init(&rs.cam, s, r->width, r->height);
    // An orthographic picture does not depend on how high above the plane
    // the eye is; its depth values do, so take the renderer's height.
    if (rs.cam.ortho)
        rs.cam.eye[2] = m.position[2];
    rs.centers = malloc(sizeof *rs.centers * (p->n + 1));
    for (uint32_t i = 0; i < p->n; i++)
        to_view(&rs.cam, p->pos4 + 4 * i, rs.centers[i]);
    rs.near_plane = m.near_plane;
    rs.far_plane = m.far_plane;
    rs.speed_max = frame.speed_max;
    rs.density_lo = 1 - frame.density_spread;
    rs.density_hi = 1 + frame.density_spread;
    rs.fog_density = frame.no_fog ? 0 : s->render.fog_density;
    // Fog starts at the near side of the domain's bounding sphere.
    float center[3];
    double half_diag = 0;
    for (int c = 0; c < 3; c++) {
        center[c] = 0.5f * (s->domain_min[c] + s->domain_max[c]);
        half_diag += 0.25 * (double)(s->domain_max[c] - s->domain_min[c]) * (s->domain_max[c] - s->domain_min[c]);
    }
    double cv[3];
    to_view(&rs.cam, center, cv);
    rs.fog_start = fmax(-cv[2] - sqrt(half_diag), 0);

    compare_stats st = compare_image(r, &rs, &m, what);
    uint32_t total = r->width * r->height;
    fprintf(stderr, "%-34s n=%-4u %ux%u: %u/%u pixels compared (%u on spheres), %u wrong (max diff %d); "
                    "depth max err %.2e; %u/%u centres ok; draw %.3f ms\n",
            what, p->n, r->width, r->height, st.compared, total, st.sphere_pixels, st.mismatches, st.max_diff,
            st.max_depth_error, st.centers_ok, st.centers_checked, res.draw_ms);
    CHECK(st.mismatches == 0, "%s: %u pixels differ from the reference", what, st.mismatches);
    CHECK(st.depth_mismatches == 0, "%s: %u depths differ from the sphere surface", what, st.depth_mismatches);
    CHECK(st.compared >= total / 2, "%s: only %u of %u pixels were comparable", what, st.compared, total);
    CHECK(st.centers_ok == st.centers_checked, "%s: %u of %u particles missing at their projected centre", what,
          st.centers_checked - st.centers_ok, st.centers_checked);
    free(rs.centers);
    gpu_free(ctx, &g);
    return st;
}

static void test_random_scenes(cs_context *ctx, cs_renderer *r)
{
    const case_desc cases[] = {
        {"3D empty", 3, 0, 0, 0, CS_COLOR_MATERIAL, 0.0},
        {"3D one particle", 3, 1, 0, 0, CS_COLOR_MATERIAL, 0.0},
        {"3D few, fog", 3, 7, 0, 0, CS_COLOR_MATERIAL, 0.4},
        {"3D crowd, material", 3, 300, 0, 0, CS_COLOR_MATERIAL, 0.2},
        {"3D crowd, speed", 3, 120, 0, 0, CS_COLOR_SPEED, 0.0},
        {"3D crowd, density", 3, 120, 0, 0, CS_COLOR_DENSITY, 0.1},
        {"3D odd image size", 3, 40, 97, 61, CS_COLOR_MATERIAL, 0.3},
        {"2D ortho, material", 2, 60, 0, 0, CS_COLOR_MATERIAL, 0.0},
        {"2D ortho, speed, tall image", 2, 60, 64, 150, CS_COLOR_SPEED, 0.0},
    };
    for (size_t k = 0; k < CS_ARRAY_COUNT(cases); k++) {
        const case_desc *c = &cases[k];
        cs_error err;
        uint32_t w = c->width ? c->width : 160, h = c->height ? c->height : 120;
        CHECK(cs_renderer_resize(r, w, h, &err), "resize: %s", err.msg);
        cs_scene s;
        make_scene(&s, c->dim);
        if (c->dim == 3) {
            set_domain(&s, (float[3]){-1, -1, -1}, (float[3]){1, 1, 1});
            random_camera(&s);
        } else {
            // A domain that does not start at the origin, wider than tall.
            set_domain(&s, (float[3]){1.0f, -0.5f, 0}, (float[3]){5.0f, 1.5f, 0});
        }
        s.render.fog_density = (float)c->fog;
        cpu_particles p;
        cpu_alloc(&p, c->n);
        double radius = c->dim == 3 ? rnd(0.06, 0.16) : rnd(0.05, 0.12);
        fill_random(&p, &s, radius);
        cs_render_frame frame = {
            .color_mode = c->color_mode,
            .particle_radius = (float)radius,
            .speed_max = 5.0f,
            .density_spread = 0.1f,
            .hide_box = true,
        };
        run_and_compare(ctx, r, &s, &p, &frame, c->name);
        cpu_free(&p);
    }
}

// Two spheres on one line of sight, each draw order: the nearer one shows.
// Then a sphere whose centre is farther but whose surface is nearer at its
// own centre pixel: only a per-pixel depth (gl_FragDepth) gets that right.
static void test_depth_order(cs_context *ctx, cs_renderer *r)
{
    cs_error err;
    CHECK(cs_renderer_resize(r, 128, 128, &err), "resize: %s", err.msg);
    cs_scene s;
    make_scene(&s, 3);
    set_domain(&s, (float[3]){-1, -1, -1}, (float[3]){1, 1, 1});
    random_camera(&s);
    ref_camera rc;
    ref_camera_init(&rc, &s, 128, 128);
    double radius = 0.25;
    for (int variant = 0; variant < 3; variant++) {
        cpu_particles p;
        cpu_alloc(&p, 2);
        // Points along the view ray through the target.
        double a_dist = rnd(-0.3, 0.0), b_dist;
        double lateral = 0;
        if (variant < 2) {
            b_dist = a_dist + 0.8; // B well behind A
        } else {
            b_dist = a_dist + 0.2 * radius; // B's centre a little farther...
            lateral = 0.9 * radius;         // ...and off to the side: its front pokes through A
        }
        uint32_t a = variant == 1 ? 1 : 0, b = 1 - a; // variant 1 draws the far one first
        for (int c = 0; c < 3; c++) {
            p.pos4[4 * a + c] = (float)(s.camera.target[c] + rc.fwd[c] * a_dist);
            p.pos4[4 * b + c] = (float)(s.camera.target[c] + rc.fwd[c] * b_dist + rc.right[c] * lateral);
        }
        p.mat[a] = 0;
        p.mat[b] = 2;
        cs_render_frame frame = {.color_mode = CS_COLOR_MATERIAL, .particle_radius = (float)radius,
                                 .speed_max = 1, .density_spread = 0.1f, .hide_box = true, .no_fog = true};
        const char *names[3] = {"near sphere drawn first", "near sphere drawn last", "surface nearer, centre farther"};
        run_and_compare(ctx, r, &s, &p, &frame, names[variant]);

        // The explicit claim: at B's projected centre the nearer surface's
        // material shows (A for variants 0/1, B for variant 2).
        double c[2];
        ref_project(&rc, p.pos4 + 4 * b, c);
        const uint8_t *px = cs_render_pixels(r) + 4 * ((size_t)c[1] * 128 + (size_t)c[0]);
        bool red = px[0] > px[2], blue = px[2] > px[0];
        if (variant < 2)
            CHECK(red, "%s: the nearer (red) sphere hides the farther (blue) one: got %u %u %u", names[variant],
                  px[0], px[1], px[2]);
        else
            CHECK(blue, "%s: the blue sphere's surface is nearer at its centre pixel: got %u %u %u", names[variant],
                  px[0], px[1], px[2]);
        cpu_free(&p);
    }
}

// A big sphere close to the eye: its silhouette cone is much wider than
// its radius, so a quad sized by the radius alone would cut its rim off.
static void test_close_up(cs_context *ctx, cs_renderer *r)
{
    cs_error err;
    CHECK(cs_renderer_resize(r, 128, 96, &err), "resize: %s", err.msg);
    cs_scene s;
    make_scene(&s, 3);
    // The camera stands inside this domain, so the near plane is close.
    set_domain(&s, (float[3]){-3, -3, -3}, (float[3]){3, 3, 3});
    random_camera(&s);
    ref_camera rc;
    ref_camera_init(&rc, &s, 128, 96);
    cpu_particles p;
    cpu_alloc(&p, 2);
    double dist = rnd(1.5, 1.8), radius = 0.9;
    for (int c = 0; c < 3; c++) {
        p.pos4[c] = (float)(rc.eye[c] + rc.fwd[c] * dist + rc.right[c] * 0.3);
        p.pos4[4 + c] = (float)(rc.eye[c] + rc.fwd[c] * 0.05); // the eye is inside this one: not drawn
    }
    p.mat[0] = 1;
    p.mat[1] = 0;
    cs_render_frame frame = {.color_mode = CS_COLOR_MATERIAL, .particle_radius = (float)radius, .speed_max = 1,
                             .density_spread = 0.1f, .hide_box = true, .no_fog = true};
    compare_stats st = run_and_compare(ctx, r, &s, &p, &frame, "close-up sphere, eye inside another");
    CHECK(st.sphere_pixels > 128 * 96 / 4, "the close sphere fills much of the image (%u pixels)", st.sphere_pixels);
    cpu_free(&p);
}

// Colour modes: the same particles in three modes give the three maps'
// colours at each particle's centre (the full compare runs in each).
static void test_color_modes(cs_context *ctx, cs_renderer *r)
{
    cs_error err;
    CHECK(cs_renderer_resize(r, 160, 120, &err), "resize: %s", err.msg);
    cs_scene s;
    make_scene(&s, 3);
    set_domain(&s, (float[3]){-1, -1, -1}, (float[3]){1, 1, 1});
    random_camera(&s);
    cpu_particles p;
    cpu_alloc(&p, 12);
    fill_random(&p, &s, 0.15);
    uint8_t *images[3];
    for (int mode = 0; mode < 3; mode++) {
        cs_render_frame frame = {.color_mode = mode, .particle_radius = 0.15f, .speed_max = 6.0f,
                                 .density_spread = 0.15f, .hide_box = true, .no_fog = true};
        char name[64];
        snprintf(name, sizeof name, "colour mode %s", cs_color_mode_name(mode));
        run_and_compare(ctx, r, &s, &p, &frame, name);
        images[mode] = malloc((size_t)160 * 120 * 4);
        memcpy(images[mode], cs_render_pixels(r), (size_t)160 * 120 * 4);
    }
    uint32_t differ[3] = {0};
    for (size_t i = 0; i < (size_t)160 * 120 * 4; i++) {
        differ[0] += images[0][i] != images[1][i];
        differ[1] += images[1][i] != images[2][i];
        differ[2] += images[0][i] != images[2][i];
    }
    CHECK(differ[0] > 0 && differ[1] > 0 && differ[2] > 0, "switching colour modes changes the image (%u %u %u)",
          differ[0], differ[1], differ[2]);
    for (int i = 0; i < 3; i++)
        free(images[i]);
    cpu_free(&p);
}

// The domain box: the midpoint of every edge (projected by the reference)
// has the line colour within a pixel.
static void test_box(cs_context *ctx, cs_renderer *r, int dim)
{
    cs_error err;
    CHECK(cs_renderer_resize(r, 160, 120, &err), "resize: %s", err.msg);
    cs_scene s;
    make_scene(&s, dim);
    if (dim == 3) {
        set_domain(&s, (float[3]){-1, -0.5f, -0.8f}, (float[3]){1, 0.5f, 0.8f});
        random_camera(&s);
    } else {
        set_domain(&s, (float[3]){-2, 0, 0}, (float[3]){2, 3, 0});
    }
    cpu_particles p;
    cpu_alloc(&p, 0);
    gpu_particles g;
    gpu_upload(ctx, &p, &g);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &s);
    cs_render_frame frame = {.scene = &s, .camera = &cam, .color_mode = -1, .no_fog = true};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &g.view);
    render(ctx, r, &frame);
    ref_camera rc;
    ref_camera_init(&rc, &s, 160, 120);
    const double line[3] = {CS_RENDER_BOX_COLOR};
    uint8_t want[3] = {srgb8(line[0]), srgb8(line[1]), srgb8(line[2])};
    const uint8_t *px = cs_render_pixels(r);
    uint32_t found = 0, edges = 0;
    for (int e = 0; e < 12; e++) {
        int axis = e / 4, bits = e % 4;
        float mid[3];
        int other[2] = {(axis + 1) % 3, (axis + 2) % 3};
        mid[axis] = 0.5f * (s.domain_min[axis] + s.domain_max[axis]);
        mid[other[0]] = (bits & 1) ? s.domain_max[other[0]] : s.domain_min[other[0]];
        mid[other[1]] = (bits & 2) ? s.domain_max[other[1]] : s.domain_min[other[1]];
        if (dim == 2 && axis == 2)
            continue; // in 2D the z edges are points
        double c[2];
        ref_project(&rc, mid, c);
        if (c[0] < 1 || c[1] < 1 || c[0] >= 159 || c[1] >= 119)
            continue;
        edges++;
        bool hit = false;
        for (int dy = -1; dy <= 1 && !hit; dy++)
            for (int dx = -1; dx <= 1 && !hit; dx++) {
                const uint8_t *q = px + 4 * ((size_t)((int)c[1] + dy) * 160 + (size_t)((int)c[0] + dx));
                hit = abs(q[0] - want[0]) <= 3 && abs(q[1] - want[1]) <= 3 && abs(q[2] - want[2]) <= 3;
            }
        found += hit;
    }
    fprintf(stderr, "box %dD: %u of %u edge midpoints show the line colour\n", dim, found, edges);
    CHECK(edges >= (dim == 3 ? 6u : 4u), "box %dD: too few edges on screen (%u)", dim, edges);
    CHECK(found == edges, "box %dD: %u of %u edge midpoints lack the line colour", dim, edges - found, edges);
    gpu_free(ctx, &g);
    cpu_free(&p);
}

// The camera module against the reference's own projection, and its
// controls: orbit keeps the distance, scroll scales it, look keeps the eye.
static void test_camera(void)
{
    for (int dim = 2; dim <= 3; dim++) {
        cs_scene s;
        make_scene(&s, dim);
        set_domain(&s, (float[3]){-1, -2, dim == 3 ? -1.5f : 0}, (float[3]){3, 1, dim == 3 ? 1.5f : 0});
        random_camera(&s);
        cs_view_camera cam;
        cs_camera_from_scene(&cam, &s);
        cs_camera_matrices m;
        uint32_t w = 200 + test_rand_u32() % 200, h = 100 + test_rand_u32() % 200;
        cs_camera_matrices_get(&cam, (double)w / h, &m);
        ref_camera rc;
        ref_camera_init(&rc, &s, w, h);
        double worst = 0;
        for (int i = 0; i < 100; i++) {
            float p[3] = {(float)rnd(-0.55, 0.55), (float)rnd(-0.55, 0.55), dim == 3 ? (float)rnd(-0.55, 0.55) : 0};
            double a[2], b[2], depth;
            CHECK(cs_camera_project(&m, w, h, p, a, &depth), "point in front of the camera");
            ref_project(&rc, p, b);
            worst = fmax(worst, fmax(fabs(a[0] - b[0]), fabs(a[1] - b[1])));
            CHECK(depth >= 0 && depth <= 1, "%dD: depth %.4f inside the clip range", dim, depth);
        }
        CHECK(worst < 1e-3, "%dD: camera projection differs from the reference by %.2e pixels", dim, worst);

        double d0 = 0, d1 = 0;
        for (int i = 0; i < 3; i++)
            d0 += (cam.position[i] - cam.target[i]) * (cam.position[i] - cam.target[i]);
        if (dim == 3) {
            cs_camera_update(&cam, &(cs_camera_input){.orbit = {37, -21}}, 0.016);
            for (int i = 0; i < 3; i++)
                d1 += (cam.position[i] - cam.target[i]) * (cam.position[i] - cam.target[i]);
            CHECK(fabs(sqrt(d1) - sqrt(d0)) < 1e-9 * sqrt(d0), "orbit keeps the distance: %.9f -> %.9f", sqrt(d0),
                  sqrt(d1));
            cs_camera_update(&cam, &(cs_camera_input){.scroll = 2}, 0.016);
            double d2 = 0;
            for (int i = 0; i < 3; i++)
                d2 += (cam.position[i] - cam.target[i]) * (cam.position[i] - cam.target[i]);
            CHECK(fabs(sqrt(d2) - 0.81 * sqrt(d1)) < 1e-9, "two scroll steps scale the distance by 0.81");
            double eye[3] = {cam.position[0], cam.position[1], cam.position[2]};
            cs_camera_update(&cam, &(cs_camera_input){.look = {15, 9}}, 0.016);
            CHECK(eye[0] == cam.position[0] && eye[1] == cam.position[1] && eye[2] == cam.position[2],
                  "look turns in place");
            cs_camera_update(&cam, &(cs_camera_input){.move = {0, 0, 1}}, 0.5);
            double moved = 0;
            for (int i = 0; i < 3; i++)
                moved += (cam.position[i] - eye[i]) * (cam.position[i] - eye[i]);
            CHECK(fabs(sqrt(moved) - 0.4 * cam.scene_radius) < 1e-9, "W flies 0.8 radius/s forward: %.6f",
                  sqrt(moved));
        } else {
            // 2D: a drag of k pixels moves the view by k pixels' worth of world.
            double x0 = cam.target[0], y0 = cam.target[1];
            cs_camera_update(&cam, &(cs_camera_input){.look = {10, 4}, .viewport_width = w, .viewport_height = h},
                             0.016);
            double per_pixel = cam.ortho_height / h;
            CHECK(fabs(cam.target[0] - (x0 - 10 * per_pixel)) < 1e-9 && fabs(cam.target[1] - (y0 + 4 * per_pixel)) < 1e-9,
                  "2D drag pans with the mouse");
        }
    }
}

static void test_png(cs_context *ctx, cs_renderer *r)
{
    cs_error err;
    CHECK(cs_renderer_resize(r, 96, 64, &err), "resize: %s", err.msg);
    cs_scene s;
    make_scene(&s, 3);
    set_domain(&s, (float[3]){-1, -1, -1}, (float[3]){1, 1, 1});
    random_camera(&s);
    cpu_particles p;
    cpu_alloc(&p, 20);
    fill_random(&p, &s, 0.15);
    gpu_particles g;
    gpu_upload(ctx, &p, &g);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &s);
    cs_render_frame frame = {.scene = &s, .camera = &cam, .color_mode = -1, .particle_radius = 0.15f};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &g.view);
    render(ctx, r, &frame);
    char path[256];
    snprintf(path, sizeof path, "/tmp/cistern_test_render_%d.png", (int)getpid());
    const uint8_t *px = cs_render_pixels(r);
    CHECK(cs_write_png(path, 96, 64, px, &err), "write png: %s", err.msg);
    int w = 0, h = 0, comp = 0;
    uint8_t *back = stbi_load(path, &w, &h, &comp, 4);
    CHECK(back && w == 96 && h == 64, "PNG reads back at 96x64 (got %dx%d)", w, h);
    if (back)
        CHECK(memcmp(back, px, (size_t)96 * 64 * 4) == 0, "PNG pixels are the rendered pixels");
    stbi_image_free(back);
    unlink(path);
    CHECK(!cs_write_png("/nonexistent-dir/x.png", 96, 64, px, &err), "writing into a missing folder fails");
    CHECK(strstr(err.msg, "/nonexistent-dir/x.png") != NULL, "the message names the path: %s", err.msg);
    gpu_free(ctx, &g);
    cpu_free(&p);
}

// A UNORM target (as some swapchains offer) gets the sRGB curve from the
// shaders and BGRA is swizzled on readback: the same picture as sRGB.
static void test_unorm_target(cs_context *ctx, cs_renderer *srgb)
{
    cs_error err;
    cs_renderer unorm;
    bool ok = cs_renderer_create(ctx, &(cs_renderer_desc){.color_format = VK_FORMAT_B8G8R8A8_UNORM, .width = 120,
                                                          .height = 90},
                                 &unorm, &err);
    CHECK(ok, "BGRA UNORM renderer: %s", err.msg);
    if (!ok)
        return;
    CHECK(cs_renderer_resize(srgb, 120, 90, &err), "resize: %s", err.msg);
    cs_scene s;
    make_scene(&s, 3);
    set_domain(&s, (float[3]){-1, -1, -1}, (float[3]){1, 1, 1});
    random_camera(&s);
    s.render.fog_density = 0.3f;
    cpu_particles p;
    cpu_alloc(&p, 30);
    fill_random(&p, &s, 0.12);
    gpu_particles g;
    gpu_upload(ctx, &p, &g);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &s);
    cs_render_frame frame = {.scene = &s, .camera = &cam, .color_mode = -1, .particle_radius = 0.12f};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &g.view);
    render(ctx, srgb, &frame);
    render(ctx, &unorm, &frame);
    const uint8_t *a = cs_render_pixels(srgb), *b = cs_render_pixels(&unorm);
    int worst = 0;
    for (size_t i = 0; i < (size_t)120 * 90 * 4; i++)
        worst = CS_MAX(worst, abs(a[i] - b[i]));
    fprintf(stderr, "UNORM target with shader sRGB vs SRGB target: max difference %d/255\n", worst);
    CHECK(worst <= 2, "UNORM + shader encode matches the sRGB target (max difference %d)", worst);
    gpu_free(ctx, &g);
    cpu_free(&p);
    cs_renderer_destroy(&unorm);
}

// Two fluids in one frame: each particle view keeps its own scene's
// material colours, and each fluid's domain box is drawn.
static void test_two_views(cs_context *ctx, cs_renderer *r)
{
    cs_error err;
    CHECK(cs_renderer_resize(r, 200, 100, &err), "resize: %s", err.msg);
    cs_scene a, b;
    make_scene(&a, 2);
    make_scene(&b, 2);
    set_domain(&a, (float[3]){-2, -1, 0}, (float[3]){3, 1, 0});
    set_domain(&b, (float[3]){0.5f, -0.5f, 0}, (float[3]){2.5f, 0.5f, 0});
    const float yellow[3] = {0.9f, 0.8f, 0.05f};
    memcpy(b.materials[0].color, yellow, sizeof yellow);
    cpu_particles pa, pb;
    cpu_alloc(&pa, 1);
    cpu_alloc(&pb, 1);
    const float at_a[3] = {-1, 0, 0}, at_b[3] = {1.5f, 0, 0};
    memcpy(pa.pos4, at_a, sizeof at_a);
    memcpy(pb.pos4, at_b, sizeof at_b);
    gpu_particles ga, gb;
    gpu_upload(ctx, &pa, &ga);
    gpu_upload(ctx, &pb, &gb);
    cs_particle_view views[2] = {ga.view, gb.view};
    views[1].scene = &b; // the first view uses the frame's scene
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &a);
    cs_render_frame frame = {.scene = &a, .camera = &cam, .color_mode = CS_COLOR_MATERIAL,
                             .particle_radius = 0.2f, .no_fog = true};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &views[0]);
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &views[1]);
    render(ctx, r, &frame);
    const uint8_t *px = cs_render_pixels(r);
    cs_camera_matrices m;
    cs_camera_matrices_get(&cam, 2.0, &m);
    double where[2], depth;
    const uint8_t *q;
    CHECK(cs_camera_project(&m, 200, 100, at_a, where, &depth), "fluid A's particle projects");
    q = &px[4 * ((uint32_t)where[1] * 200 + (uint32_t)where[0])];
    CHECK(q[0] > 2 * q[1] && q[0] > 2 * q[2], "fluid A's particle in its material 0 (red): %u %u %u", q[0], q[1],
          q[2]);
    CHECK(cs_camera_project(&m, 200, 100, at_b, where, &depth), "fluid B's particle projects");
    q = &px[4 * ((uint32_t)where[1] * 200 + (uint32_t)where[0])];
    CHECK(q[0] > 2 * q[2] && q[1] > 2 * q[2], "fluid B's particle in its own material 0 (yellow): %u %u %u", q[0],
          q[1], q[2]);
    // B's box: its left edge at x = 0.5, between y = -0.5 and 0.5 (not
    // on any edge of A's box): some pixel along it is lighter than the
    // background around it.
    uint32_t lit = 0;
    for (int k = -4; k <= 4; k++) {
        const float on_edge[3] = {0.5f, 0.1f * (float)k, 0};
        if (!cs_camera_project(&m, 200, 100, on_edge, where, &depth))
            continue;
        int best = 0;
        for (int dx = -1; dx <= 1; dx++) {
            int x = (int)where[0] + dx, y = (int)where[1];
            if (x < 0 || x >= 200 || y < 0 || y >= 100)
                continue;
            const uint8_t *e = &px[4 * (y * 200 + x)];
            best = CS_MAX(best, (int)e[0] + e[1] + e[2]);
        }
        uint32_t bx = (uint32_t)where[0] - 6 < 200 ? (uint32_t)where[0] - 6 : 0, by = (uint32_t)where[1];
        const uint8_t *bg = &px[4 * (by * 200 + bx)];
        lit += best > (int)bg[0] + bg[1] + bg[2] + 60;
    }
    CHECK(lit >= 7, "fluid B's domain box is drawn: %u of 9 points on its edge lit", lit);
    gpu_free(ctx, &ga);
    gpu_free(ctx, &gb);
    cpu_free(&pa);
    cpu_free(&pb);
}

// Every render feature's program is in the context's registry: an
// unrelated file rebuilds none, the shared render include rebuilds them all.
static void test_reload(cs_context *ctx, cs_renderer *r)
{
    (void)r;
    cs_reload_report report = {0};
    cs_programs_reload(ctx, "/nowhere/unrelated.comp", &report);
    CHECK(report.rebuilt == 0 && report.failed == 0, "an unrelated file rebuilds nothing");
    char path[512];
    snprintf(path, sizeof path, "%s/render/render_common.glsl", cs_shader_dir());
    cs_programs_reload(ctx, path, &report);
    CHECK(report.failed == 0, "reload: %s", report.first_error.msg);
    CHECK(report.rebuilt >= 3 && strstr(report.names, "render particles"),
          "an include of the render shaders rebuilds them: %u (%s)", report.rebuilt, report.names);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_renderer r;
    cs_error err;
    if (!cs_renderer_create(&ctx, &(cs_renderer_desc){.width = 160, .height = 120, .readback_depth = true}, &r,
                            &err)) {
        fprintf(stderr, "FAIL: renderer: %s\n", err.msg);
        return 1;
    }
    test_camera();
    test_random_scenes(&ctx, &r);
    test_depth_order(&ctx, &r);
    test_close_up(&ctx, &r);
    test_color_modes(&ctx, &r);
    test_box(&ctx, &r, 3);
    test_box(&ctx, &r, 2);
    test_png(&ctx, &r);
    test_unorm_target(&ctx, &r);
    test_two_views(&ctx, &r);
    test_reload(&ctx, &r);
    test_random_scenes(&ctx, &r); // after the reload: the rebuilt pipelines draw the same
    cs_renderer_destroy(&r);
    return test_finish(&ctx);
}
