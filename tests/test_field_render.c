// test_field_render.c — what the renderer draws for grid pipelines, against
// a CPU reference:
//   - the 2D field image: synthetic fields (known mass and velocity per cell,
//     empty, partly filled, full and compressed cells) on grids from 1 cell
//     to a few thousand, square and non-square cells, odd image sizes, in all
//     three colour modes. The reference builds its own orthographic camera
//     from the domain, finds the cell under every pixel centre and predicts
//     the colour: the colour map's colour blended over the background
//     gradient by min(mass, 1), or the background for an empty cell. Every
//     pixel farther than half a pixel from a cell edge must match; the pixel
//     at every projected cell centre is checked explicitly;
//   - the domain box stays visible over a full field, and a particle drawn
//     with a field lands on top of it;
//   - a 3D scene ignores a field; a UNORM target (shader sRGB) matches;
//   - a particle view with draw_args is drawn indirectly: exactly the count
//     the GPU buffer says, not the host count;
//   - hot reload of field.frag rebuilds the field pipeline.
// ctest labels: quick,gpu -- 0.6
#include "test_util.h"

#include "render.h"
#include "../shaders/render/render_shared.h"

// 8-bit levels a pixel may differ from the double-precision reference.
static const int k_tolerance = 2;

static double rnd(double lo, double hi) { return lo + (hi - lo) * test_rand_unit(); }

static uint8_t srgb8(double c)
{
    c = fmin(fmax(c, 0), 1);
    double e = c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055;
    return (uint8_t)lround(e * 255.0);
}

static void lerp3(double *out, const double *a, const double *b, double t)
{
    for (int i = 0; i < 3; i++)
        out[i] = a[i] + (b[i] - a[i]) * t;
}

// ---------------------------------------------------------------------------
// The reference

typedef struct ref_field {
    const cs_scene *scene;
    uint32_t nx, ny;
    const float *cells;     // 4 floats per cell: mass / rest mass, velocity xyz (world)
    int color_mode;
    double speed_max, density_lo, density_hi;
    uint32_t width, height;
    // 2D camera fitted to the domain, as cs_camera_from_scene documents it
    // (8% margin): world = centre + ndc / scale.
    double cx, cy, sx, sy;
} ref_field;

static void ref_init(ref_field *rf, const cs_scene *s, uint32_t width, uint32_t height)
{
    rf->scene = s;
    rf->width = width;
    rf->height = height;
    double aspect = (double)width / height;
    double w = s->domain_max[0] - s->domain_min[0], h = s->domain_max[1] - s->domain_min[1];
    double view_h = fmax(h, w / aspect) * 1.08;
    rf->cx = 0.5 * (s->domain_min[0] + s->domain_max[0]);
    rf->cy = 0.5 * (s->domain_min[1] + s->domain_max[1]);
    rf->sx = 2.0 / (view_h * aspect);
    rf->sy = -2.0 / view_h; // Vulkan: clip y points down
}

static void ref_pixel_to_world(const ref_field *rf, double px, double py, double world[2])
{
    world[0] = rf->cx + (2.0 * px / rf->width - 1.0) / rf->sx;
    world[1] = rf->cy + (2.0 * py / rf->height - 1.0) / rf->sy;
}

static void ref_world_to_pixel(const ref_field *rf, const double world[2], double px[2])
{
    px[0] = (rf->sx * (world[0] - rf->cx) + 1.0) * 0.5 * rf->width;
    px[1] = (rf->sy * (world[1] - rf->cy) + 1.0) * 0.5 * rf->height;
}

static void ref_background(const ref_field *rf, uint32_t y, double out[3])
{
    double v = (y + 0.5) / rf->height;
    const float *bg = rf->scene->render.background;
    for (int c = 0; c < 3; c++)
        out[c] = bg[c] * (CS_RENDER_BACKGROUND_TOP + (CS_RENDER_BACKGROUND_BOTTOM - CS_RENDER_BACKGROUND_TOP) * v);
}

static void ref_map(const ref_field *rf, const float *cell, double out[3])
{
    if (rf->color_mode == CS_COLOR_SPEED) {
        double t = sqrt((double)cell[1] * cell[1] + (double)cell[2] * cell[2] + (double)cell[3] * cell[3]) /
                   rf->speed_max;
        t = fmin(fmax(t, 0), 1) * 3;
        const double stops[4][3] = {{CS_RENDER_SPEED_STOP0}, {CS_RENDER_SPEED_STOP1}, {CS_RENDER_SPEED_STOP2},
                                    {CS_RENDER_SPEED_STOP3}};
        int k = t < 1 ? 0 : t < 2 ? 1 : 2;
        lerp3(out, stops[k], stops[k + 1], t - k);
    } else if (rf->color_mode == CS_COLOR_DENSITY) {
        double t = (cell[0] - rf->density_lo) / (rf->density_hi - rf->density_lo);
        t = fmin(fmax(t, 0), 1) * 2;
        const double stops[3][3] = {{CS_RENDER_DENSITY_LOW}, {CS_RENDER_DENSITY_MID}, {CS_RENDER_DENSITY_HIGH}};
        int k = t < 1 ? 0 : 1;
        lerp3(out, stops[k], stops[k + 1], t - k);
    } else {
        for (int c = 0; c < 3; c++)
            out[c] = rf->scene->materials[0].color[c];
    }
}

// Expected colour of pixel (x, y). Returns false when the pixel centre lies
// within `margin_px` of a cell edge or the domain edge (which cell covers it
// depends on rounding). *cell_out: the cell index, or -1 outside the domain.
static bool ref_pixel(const ref_field *rf, uint32_t x, uint32_t y, double margin_px, uint8_t rgb[3], int *cell_out)
{
    const cs_scene *s = rf->scene;
    double w[2];
    ref_pixel_to_world(rf, x + 0.5, y + 0.5, w);
    double pixel_world = 2.0 / (rf->sx * rf->width);
    double cell_w = (s->domain_max[0] - s->domain_min[0]) / rf->nx;
    double cell_h = (s->domain_max[1] - s->domain_min[1]) / rf->ny;
    double u = (w[0] - s->domain_min[0]) / cell_w, v = (w[1] - s->domain_min[1]) / cell_h;
    double mu = margin_px * pixel_world / cell_w, mv = margin_px * pixel_world / cell_h;
    if (fabs(u - floor(u + 0.5)) < mu || fabs(v - floor(v + 0.5)) < mv)
        return false;
    double color[3];
    ref_background(rf, y, color);
    *cell_out = -1;
    if (u > 0 && v > 0 && u < rf->nx && v < rf->ny) {
        uint32_t i = (uint32_t)u + rf->nx * (uint32_t)v;
        *cell_out = (int)i;
        const float *cell = rf->cells + 4 * (size_t)i;
        if (cell[0] > 0) {
            double map[3], bg[3] = {color[0], color[1], color[2]};
            ref_map(rf, cell, map);
            lerp3(color, bg, map, fmin(cell[0], 1.0));
        }
    }
    for (int c = 0; c < 3; c++)
        rgb[c] = srgb8(color[c]);
    return true;
}

// ---------------------------------------------------------------------------
// Scenes, fields, rendering

static void make_scene(cs_scene *out, int dim)
{
    memset(out, 0, sizeof *out);
    out->dim = dim;
    snprintf(out->name, sizeof out->name, "field render test");
    out->material_count = 1;
    for (int c = 0; c < 3; c++) {
        out->materials[0].color[c] = (float)rnd(0.1, 0.9);
        out->render.background[c] = (float)rnd(0.05, 0.35);
    }
    out->materials[0].rest_density = 1000.0f;
    out->gravity[1] = -9.81f;
    out->particle_spacing = 0.1f;
}

typedef enum fill_kind { FILL_MIXED, FILL_EMPTY, FILL_FULL } fill_kind;

// Per cell: empty, a partial fill (0, 1), or full and compressed [1, 1.3];
// velocities up to a little past the speed map's top.
static float *make_field(uint32_t nx, uint32_t ny, fill_kind fill, double speed_max)
{
    size_t n = (size_t)nx * ny;
    float *cells = calloc(n * 4, sizeof(float));
    for (size_t i = 0; i < n; i++) {
        double u = test_rand_unit();
        double mass = fill == FILL_EMPTY ? 0.0 : fill == FILL_FULL ? rnd(1.0, 1.3)
                      : u < 0.3         ? 0.0
                      : u < 0.6         ? rnd(0.02, 1.0)
                                        : rnd(0.85, 1.3);
        cells[4 * i] = (float)mass;
        double speed = rnd(0, 1.15 * speed_max), angle = rnd(0, 6.283185307179586);
        cells[4 * i + 1] = (float)(speed * cos(angle));
        cells[4 * i + 2] = (float)(speed * sin(angle));
        cells[4 * i + 3] = 0.0f;
    }
    return cells;
}

static double render_frame(cs_context *ctx, cs_renderer *r, const cs_render_frame *frame)
{
    cs_recorder rec;
    cs_recorder_create(ctx, "field render test", &rec);
    cs_recorder_begin(&rec);
    cs_barrier_compute_to_graphics(&rec);
    cs_render_record(r, &rec, frame);
    cs_render_record_readback(r, &rec);
    cs_recorder_submit_wait(&rec);
    double ms = cs_recorder_pass_ms(&rec, "draw");
    cs_recorder_destroy(&rec);
    return ms;
}

typedef struct gpu_field {
    cs_buffer buf;
    cs_field_view view;
} gpu_field;

static void field_upload(cs_context *ctx, const float *cells, uint32_t nx, uint32_t ny, gpu_field *g)
{
    VkDeviceSize bytes = (VkDeviceSize)nx * ny * 16;
    test_buffer(ctx, &g->buf, "test field", bytes);
    cs_buffer_upload(ctx, &g->buf, cells, bytes, 0);
    g->view = (cs_field_view){.cells = &g->buf, .dims = {nx, ny, 1}, .stride_floats = 4};
}

typedef struct field_case {
    const char *name;
    uint32_t nx, ny;
    uint32_t width, height;
    int color_mode;
    fill_kind fill;
    bool square_cells;
} field_case;

// Renders one field and compares every stable pixel with the reference.
static void check_field(cs_context *ctx, cs_renderer *r, const field_case *fc)
{
    cs_error err;
    CHECK(cs_renderer_resize(r, fc->width, fc->height, &err), "resize: %s", err.msg);
    cs_scene s;
    make_scene(&s, 2);
    // A domain away from the origin; square cells as reint makes them, or
    // stretched ones (the renderer maps the rectangle, not a cell size).
    double cell_w = rnd(0.05, 0.2), cell_h = fc->square_cells ? cell_w : cell_w * rnd(0.5, 2.0);
    s.domain_min[0] = (float)rnd(-3, 3);
    s.domain_min[1] = (float)rnd(-3, 3);
    s.domain_max[0] = (float)(s.domain_min[0] + cell_w * fc->nx);
    s.domain_max[1] = (float)(s.domain_min[1] + cell_h * fc->ny);
    double speed_max = rnd(1, 5), spread = rnd(0.05, 0.3);
    float *cells = make_field(fc->nx, fc->ny, fc->fill, speed_max);
    gpu_field g;
    field_upload(ctx, cells, fc->nx, fc->ny, &g);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &s);
    cs_particle_view none = {0};
    cs_render_frame frame = {.scene = &s, .camera = &cam, .color_mode = fc->color_mode,
                             .speed_max = (float)speed_max, .density_spread = (float)spread, .hide_box = true};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &none);
    cs_render_frame_add(&frame, CS_DRAWABLE_FIELD, &g.view);
    double ms = render_frame(ctx, r, &frame);

    ref_field rf = {.nx = fc->nx, .ny = fc->ny, .cells = cells, .color_mode = fc->color_mode,
                    .speed_max = speed_max, .density_lo = 1 - spread, .density_hi = 1 + spread};
    ref_init(&rf, &s, fc->width, fc->height);
    const uint8_t *px = cs_render_pixels(r);
    uint32_t compared = 0, wrong = 0, on_cells = 0, filled_pixels = 0;
    int max_diff = 0;
    for (uint32_t y = 0; y < fc->height; y++)
        for (uint32_t x = 0; x < fc->width; x++) {
            uint8_t want[3];
            int cell;
            if (!ref_pixel(&rf, x, y, 0.5, want, &cell))
                continue;
            const uint8_t *got = px + 4 * ((size_t)y * fc->width + x);
            int diff = 0;
            for (int c = 0; c < 3; c++)
                diff = CS_MAX(diff, abs((int)got[c] - (int)want[c]));
            compared++;
            on_cells += cell >= 0;
            filled_pixels += cell >= 0 && cells[4 * cell] > 0;
            max_diff = CS_MAX(max_diff, diff);
            if (diff > k_tolerance && wrong++ < 5)
                fprintf(stderr, "%s: pixel (%u,%u) cell %d (mass %.3f): got %u %u %u, want %u %u %u\n", fc->name, x,
                        y, cell, cell >= 0 ? cells[4 * cell] : 0.0f, got[0], got[1], got[2], want[0], want[1],
                        want[2]);
        }
    // The explicit claim: at every cell centre's pixel, the cell's colour
    // (or the background when it is empty).
    uint32_t centres = 0, centres_ok = 0, empty_centres = 0;
    for (uint32_t j = 0; j < fc->ny; j++)
        for (uint32_t i = 0; i < fc->nx; i++) {
            double w[2] = {s.domain_min[0] + (i + 0.5) * (s.domain_max[0] - s.domain_min[0]) / fc->nx,
                           s.domain_min[1] + (j + 0.5) * (s.domain_max[1] - s.domain_min[1]) / fc->ny};
            double p[2];
            ref_world_to_pixel(&rf, w, p);
            if (p[0] < 0 || p[1] < 0 || p[0] >= fc->width || p[1] >= fc->height)
                continue;
            uint32_t x = (uint32_t)p[0], y = (uint32_t)p[1];
            uint8_t want[3];
            int cell;
            if (!ref_pixel(&rf, x, y, 0.5, want, &cell) || cell != (int)(i + fc->nx * j))
                continue; // the cell is under a pixel wide: its centre pixel is on an edge
            const uint8_t *got = px + 4 * ((size_t)y * fc->width + x);
            centres++;
            empty_centres += cells[4 * cell] == 0;
            centres_ok += abs(got[0] - want[0]) <= k_tolerance && abs(got[1] - want[1]) <= k_tolerance &&
                          abs(got[2] - want[2]) <= k_tolerance;
        }
    uint32_t total = fc->width * fc->height;
    fprintf(stderr, "%-30s %4ux%-3u cells %4ux%-3u px %-8s: %u/%u pixels compared (%u on cells, %u filled), %u "
                    "wrong (max diff %d); %u/%u cell centres ok (%u empty); draw %.3f ms\n",
            fc->name, fc->nx, fc->ny, fc->width, fc->height, cs_color_mode_name(fc->color_mode), compared, total,
            on_cells, filled_pixels, wrong, max_diff, centres_ok, centres, empty_centres, ms);
    CHECK(wrong == 0, "%s: %u pixels differ from the reference", fc->name, wrong);
    CHECK(compared >= total / 3, "%s: only %u of %u pixels were comparable", fc->name, compared, total);
    // The domain's area on screen, in pixels: most of it must be compared
    // (edges of cells a few pixels wide take out up to half).
    double area = (s.domain_max[0] - s.domain_min[0]) * rf.sx * 0.5 * fc->width *
                  (s.domain_max[1] - s.domain_min[1]) * -rf.sy * 0.5 * fc->height;
    CHECK(on_cells >= 0.4 * area, "%s: only %u of the field's %.0f pixels were compared", fc->name, on_cells, area);
    CHECK(centres_ok == centres, "%s: %u of %u cell centres show the wrong colour", fc->name, centres - centres_ok,
          centres);
    CHECK(centres >= CS_MIN(fc->nx * fc->ny, 40u), "%s: only %u cell centres were checkable", fc->name, centres);
    if (fc->fill == FILL_EMPTY)
        CHECK(filled_pixels == 0 && on_cells > 0, "%s: an empty field shows only the background", fc->name);
    free(cells);
    cs_buffer_destroy(ctx, &g.buf);
}

static void test_fields(cs_context *ctx, cs_renderer *r)
{
    const field_case cases[] = {
        {"one cell", 1, 1, 96, 64, CS_COLOR_SPEED, FILL_FULL, true},
        {"small grid, material", 7, 5, 160, 120, CS_COLOR_MATERIAL, FILL_MIXED, true},
        {"small grid, speed", 7, 5, 160, 120, CS_COLOR_SPEED, FILL_MIXED, true},
        {"small grid, density", 7, 5, 160, 120, CS_COLOR_DENSITY, FILL_MIXED, true},
        {"strip, tall image", 13, 2, 70, 150, CS_COLOR_SPEED, FILL_MIXED, true},
        {"stretched cells, odd size", 19, 11, 133, 97, CS_COLOR_DENSITY, FILL_MIXED, false},
        {"empty field", 16, 9, 160, 120, CS_COLOR_SPEED, FILL_EMPTY, true},
        {"full field, wide grid", 64, 32, 256, 144, CS_COLOR_DENSITY, FILL_FULL, true},
        {"reint-like grid", 80, 40, 400, 220, CS_COLOR_SPEED, FILL_MIXED, true},
    };
    for (size_t k = 0; k < CS_ARRAY_COUNT(cases); k++)
        check_field(ctx, r, &cases[k]);
}

// The box lines stay visible over a full field (the field is drawn first),
// and a particle drawn with a field is on top of it.
static void test_box_and_particle_over_field(cs_context *ctx, cs_renderer *r)
{
    cs_error err;
    const uint32_t w = 160, h = 120, nx = 12, ny = 8;
    CHECK(cs_renderer_resize(r, w, h, &err), "resize: %s", err.msg);
    cs_scene s;
    make_scene(&s, 2);
    s.domain_min[0] = -1, s.domain_min[1] = 0.5f;
    s.domain_max[0] = 2, s.domain_max[1] = 2.5f;
    float *cells = make_field(nx, ny, FILL_FULL, 1.0);
    gpu_field g;
    field_upload(ctx, cells, nx, ny, &g);
    // One particle, radius 0.2, over the centre of cell (5, 3).
    float centre[2] = {s.domain_min[0] + 5.5f * 0.25f, s.domain_min[1] + 3.5f * 0.25f};
    float pos[4] = {centre[0], centre[1], 0, 0}, vel[4] = {0}, dens = 1000.0f;
    // The field shows material 0 (red); the particle is material 1 (blue).
    uint32_t mat = 1;
    s.material_count = 2;
    s.materials[0].color[0] = 0.9f, s.materials[0].color[1] = 0.1f, s.materials[0].color[2] = 0.05f;
    s.materials[1].color[0] = 0.05f, s.materials[1].color[1] = 0.2f, s.materials[1].color[2] = 0.9f;
    s.materials[1].rest_density = 1000.0f;
    cs_buffer pb, vb, db, mb;
    test_buffer(ctx, &pb, "particle", 16);
    test_buffer(ctx, &vb, "velocity", 16);
    test_buffer(ctx, &db, "density", 4);
    test_buffer(ctx, &mb, "material", 4);
    cs_buffer_upload(ctx, &pb, pos, 16, 0);
    cs_buffer_upload(ctx, &vb, vel, 16, 0);
    cs_buffer_upload(ctx, &db, &dens, 4, 0);
    cs_buffer_upload(ctx, &mb, &mat, 4, 0);
    cs_particle_view pv = {&pb, &vb, &db, &mb, 1, NULL};
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &s);
    cs_render_frame frame = {.scene = &s, .camera = &cam, .color_mode = CS_COLOR_MATERIAL, .speed_max = 1.0f,
                             .particle_radius = 0.2f, .no_fog = true};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &pv);
    cs_render_frame_add(&frame, CS_DRAWABLE_FIELD, &g.view);
    render_frame(ctx, r, &frame);
    ref_field rf = {.nx = nx, .ny = ny, .cells = cells};
    ref_init(&rf, &s, w, h);
    const uint8_t *px = cs_render_pixels(r);
    const double line[3] = {CS_RENDER_BOX_COLOR};
    uint8_t want_line[3] = {srgb8(line[0]), srgb8(line[1]), srgb8(line[2])};
    uint32_t found = 0;
    for (int e = 0; e < 4; e++) {
        // Midpoints of the four edges.
        double mid[2] = {e < 2 ? 0.5 * (s.domain_min[0] + s.domain_max[0]) : (e == 2 ? s.domain_min[0] : s.domain_max[0]),
                         e < 2 ? (e == 0 ? s.domain_min[1] : s.domain_max[1]) : 0.5 * (s.domain_min[1] + s.domain_max[1])};
        double c[2];
        ref_world_to_pixel(&rf, mid, c);
        bool hit = false;
        for (int dy = -1; dy <= 1 && !hit; dy++)
            for (int dx = -1; dx <= 1 && !hit; dx++) {
                const uint8_t *q = px + 4 * ((size_t)((int)c[1] + dy) * w + (size_t)((int)c[0] + dx));
                hit = abs(q[0] - want_line[0]) <= 3 && abs(q[1] - want_line[1]) <= 3 && abs(q[2] - want_line[2]) <= 3;
            }
        found += hit;
    }
    CHECK(found == 4, "box over a full field: %u of 4 edge midpoints show the line colour", found);
    // The particle's centre pixel: the lit sphere facing the eye (normal and
    // view direction both +z), not the field.
    double p[2], wc[2] = {centre[0], centre[1]};
    ref_world_to_pixel(&rf, wc, p);
    const uint8_t *got = px + 4 * ((size_t)p[1] * w + (size_t)p[0]);
    double l[3] = {CS_RENDER_LIGHT_X, CS_RENDER_LIGHT_Y, CS_RENDER_LIGHT_Z};
    double ll = sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    double diffuse = l[2] / ll;
    double hz = (l[2] / ll + 1), hlen = sqrt((l[0] / ll) * (l[0] / ll) + (l[1] / ll) * (l[1] / ll) + hz * hz);
    double spec = pow(hz / hlen, CS_RENDER_SHININESS);
    int worst = 0;
    for (int c = 0; c < 3; c++) {
        double lit = s.materials[1].color[c] * (CS_RENDER_AMBIENT + CS_RENDER_DIFFUSE * diffuse) +
                     CS_RENDER_SPECULAR * spec;
        worst = CS_MAX(worst, abs((int)got[c] - (int)srgb8(lit)));
    }
    // Half a pixel off the centre of a sphere ~8 pixels across changes the
    // normal a little: allow a few levels.
    CHECK(worst <= 6, "the particle is drawn over the field: centre pixel %u %u %u differs by %d", got[0], got[1],
          got[2], worst);
    fprintf(stderr, "box over field: %u/4 edge midpoints; particle over field: centre pixel off by %d\n", found, worst);
    cs_buffer *bufs[4] = {&pb, &vb, &db, &mb};
    for (int i = 0; i < 4; i++)
        cs_buffer_destroy(ctx, bufs[i]);
    cs_buffer_destroy(ctx, &g.buf);
    free(cells);
}

// A 3D scene draws no field: the picture is the same with and without one.
static void test_3d_ignores_field(cs_context *ctx, cs_renderer *r)
{
    cs_error err;
    CHECK(cs_renderer_resize(r, 120, 90, &err), "resize: %s", err.msg);
    cs_scene s;
    make_scene(&s, 3);
    for (int c = 0; c < 3; c++)
        s.domain_min[c] = -1, s.domain_max[c] = 1;
    s.camera.position[0] = 2.5f, s.camera.position[1] = 1.5f, s.camera.position[2] = 3.0f;
    s.camera.up[1] = 1;
    s.camera.fov_degrees = 45;
    float *cells = make_field(8, 8, FILL_FULL, 1.0);
    gpu_field g;
    field_upload(ctx, cells, 8, 8, &g);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &s);
    cs_particle_view none = {0};
    cs_render_frame frame = {.scene = &s, .camera = &cam, .color_mode = -1};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &none);
    render_frame(ctx, r, &frame);
    uint8_t *without = malloc(120 * 90 * 4);
    memcpy(without, cs_render_pixels(r), 120 * 90 * 4);
    cs_render_frame_add(&frame, CS_DRAWABLE_FIELD, &g.view);
    render_frame(ctx, r, &frame);
    CHECK(memcmp(without, cs_render_pixels(r), 120 * 90 * 4) == 0, "a 3D scene ignores the field");
    free(without);
    free(cells);
    cs_buffer_destroy(ctx, &g.buf);
}

// A UNORM target gets the sRGB curve in field.frag (the background blend is
// done in linear light before it): the same picture as the sRGB target.
static void test_unorm_field(cs_context *ctx, cs_renderer *srgb)
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
    make_scene(&s, 2);
    s.domain_max[0] = 2, s.domain_max[1] = 1;
    float *cells = make_field(20, 10, FILL_MIXED, 2.0);
    gpu_field g;
    field_upload(ctx, cells, 20, 10, &g);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &s);
    cs_particle_view none = {0};
    for (int mode = 0; mode < 3; mode++) {
        cs_render_frame frame = {.scene = &s, .camera = &cam, .color_mode = mode, .speed_max = 2.0f};
        cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &none);
        cs_render_frame_add(&frame, CS_DRAWABLE_FIELD, &g.view);
        render_frame(ctx, srgb, &frame);
        render_frame(ctx, &unorm, &frame);
        const uint8_t *a = cs_render_pixels(srgb), *b = cs_render_pixels(&unorm);
        int worst = 0;
        for (size_t i = 0; i < (size_t)120 * 90 * 4; i++)
            worst = CS_MAX(worst, abs(a[i] - b[i]));
        CHECK(worst <= 2, "field, %s: UNORM + shader encode matches the sRGB target (max difference %d)",
              cs_color_mode_name(mode), worst);
    }
    free(cells);
    cs_buffer_destroy(ctx, &g.buf);
    cs_renderer_destroy(&unorm);
}

// A particle view with draw_args draws the count in that buffer (written
// here by a copy, as a pipeline's pass would), whatever the host count.
static void test_indirect_particles(cs_context *ctx, cs_renderer *r)
{
    cs_error err;
    const uint32_t w = 160, h = 120, n = 9;
    CHECK(cs_renderer_resize(r, w, h, &err), "resize: %s", err.msg);
    cs_scene s;
    make_scene(&s, 2);
    s.domain_max[0] = 9, s.domain_max[1] = 3;
    float pos[9][4] = {{0}}, vel[9][4] = {{0}}, dens[9];
    uint32_t mat[9] = {0};
    for (uint32_t i = 0; i < n; i++) {
        pos[i][0] = i + 0.5f;
        pos[i][1] = 1.5f;
        dens[i] = 1000.0f;
    }
    cs_buffer pb, vb, db, mb, args;
    test_buffer(ctx, &pb, "positions", sizeof pos);
    test_buffer(ctx, &vb, "velocities", sizeof vel);
    test_buffer(ctx, &db, "densities", sizeof dens);
    test_buffer(ctx, &mb, "materials", sizeof mat);
    cs_buffer_upload(ctx, &pb, pos, sizeof pos, 0);
    cs_buffer_upload(ctx, &vb, vel, sizeof vel, 0);
    cs_buffer_upload(ctx, &db, dens, sizeof dens, 0);
    cs_buffer_upload(ctx, &mb, mat, sizeof mat, 0);
    bool ok = cs_buffer_create(ctx, &(cs_buffer_desc){.name = "draw args", .size = 16,
                                                      .extra_usage = VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT},
                               &args, &err);
    CHECK(ok, "indirect args buffer: %s", err.msg);
    if (!ok)
        return;
    cs_view_camera cam;
    cs_camera_from_scene(&cam, &s);
    ref_field rf = {.nx = 1, .ny = 1};
    ref_init(&rf, &s, w, h);
    uint32_t drawn_counts[] = {0, 1, 4, 9};
    for (size_t k = 0; k < CS_ARRAY_COUNT(drawn_counts); k++) {
        uint32_t drawn = drawn_counts[k];
        uint32_t cmd[4] = {6 * drawn, 1, 0, 0};
        cs_buffer_upload(ctx, &args, cmd, sizeof cmd, 0);
        // The host count says all 9 (or, for the last case, none): the GPU's wins.
        cs_particle_view pv = {&pb, &vb, &db, &mb, k + 1 == CS_ARRAY_COUNT(drawn_counts) ? 0 : n, &args};
        cs_render_frame frame = {.scene = &s, .camera = &cam, .color_mode = CS_COLOR_MATERIAL,
                                 .particle_radius = 0.3f, .hide_box = true, .no_fog = true};
        cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &pv);
        render_frame(ctx, r, &frame);
        const uint8_t *px = cs_render_pixels(r);
        uint32_t shown = 0, right = 0;
        for (uint32_t i = 0; i < n; i++) {
            double wc[2] = {pos[i][0], pos[i][1]}, p[2], bg[3];
            ref_world_to_pixel(&rf, wc, p);
            uint32_t x = (uint32_t)p[0], y = (uint32_t)p[1];
            ref_background(&rf, y, bg);
            const uint8_t *q = px + 4 * ((size_t)y * w + x);
            bool is_bg = abs(q[0] - srgb8(bg[0])) <= 2 && abs(q[1] - srgb8(bg[1])) <= 2 && abs(q[2] - srgb8(bg[2])) <= 2;
            shown += !is_bg;
            right += (i < drawn) == !is_bg;
        }
        CHECK(right == n, "indirect draw of %u of %u particles: %u shown, %u where expected", drawn, n, shown, right);
    }
    cs_buffer *bufs[5] = {&pb, &vb, &db, &mb, &args};
    for (int i = 0; i < 5; i++)
        cs_buffer_destroy(ctx, bufs[i]);
}

// The renderer's programs live in the context's registry: a change to
// field.frag rebuilds exactly the field feature's program.
static void test_reload(cs_renderer *r)
{
    char path[512];
    snprintf(path, sizeof path, "%s/render/field.frag", cs_shader_dir());
    cs_reload_report report = {0};
    cs_programs_reload(r->ctx, path, &report);
    CHECK(report.rebuilt == 1 && report.failed == 0 && strcmp(report.names, "render field") == 0,
          "editing field.frag rebuilds the field program: %u rebuilt (%s), %u failed", report.rebuilt, report.names,
          report.failed);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_renderer r;
    cs_error err;
    if (!cs_renderer_create(&ctx, &(cs_renderer_desc){.width = 160, .height = 120}, &r, &err)) {
        fprintf(stderr, "FAIL: renderer: %s\n", err.msg);
        return 1;
    }
    test_fields(&ctx, &r);
    test_box_and_particle_over_field(&ctx, &r);
    test_3d_ignores_field(&ctx, &r);
    test_unorm_field(&ctx, &r);
    test_indirect_particles(&ctx, &r);
    test_reload(&r);
    test_fields(&ctx, &r); // after the reload: the rebuilt pipeline draws the same
    cs_renderer_destroy(&r);
    return test_finish(&ctx);
}
