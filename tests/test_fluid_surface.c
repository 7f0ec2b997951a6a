// test_fluid_surface.c — fluid surfaces as part of the frame (the world's
// surfaces, host/world/world_surface.c; the render feature; the PLY export).
//
//  - a small 3D PBF dam break and a small 3D reint column run frames with
//    their surface meshed every frame (outputs and field poisoned before
//    each extraction): the mesh is non-empty, closed (every edge in exactly
//    two triangles, with opposite directions), every index in range and
//    every vertex used, every vertex inside the domain grown by the splat
//    radius and one node, no NaN, unit normals; two worlds from the same
//    scene give the same mesh bits frame by frame;
//  - pass names: "surface: splat", "surface: grid: sort", ... (one fluid,
//    no prefix); the surface never changes the fluid (a world without it
//    gives the same particle bits);
//  - cs_world_mesh_surfaces (the two-submit form) gives the same mesh as the
//    split calls, and a second call with nothing stepped is current;
//  - drawn: the frame with the surface differs from the particles-only one;
//    the pixels the mesh covers (its triangles projected and filled on the
//    CPU) are exactly the non-background pixels of a surface-only frame
//    (up to the silhouette's anti-aliasing-free rounding), bluish like the
//    fluid's material and shaded (a range of brightness, not a flat fill);
//  - the PLY export reads back: header counts, sizes, every value;
//  - a cell_size too fine for the device (the limit derived from what the
//    device reports) is refused naming the key, the grid and the device,
//    nothing left allocated; the default resolution is coarsened instead
//    (with a note) when it does not fit.
// ctest labels: quick,gpu -- 8.4
#define _POSIX_C_SOURCE 200809L // mkstemp
#include "test_util.h"

#include "camera.h"
#include "render.h"
#include "world.h"

#include <math.h>
#include <unistd.h>

#define FRAMES 4
#define WIDTH 320
#define HEIGHT 240

// A 3D dam break small enough for lavapipe: 8 x 12 x 12 = 1152 particles.
static const char *k_pbf_scene =
    "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[0.6,0.4,0.3]},\"dt\":0.0033,\"substeps\":3,"
    "\"fluids\":[{\"solver\":\"pbf\",\"pbf\":{},\"particle_spacing\":0.025,"
    "\"materials\":[{\"color\":[0.15,0.4,0.85]}],"
    "\"blocks\":[{\"min\":[0,0,0],\"max\":[0.2,0.3,0.3]}],\"surface\":{\"enabled\":true}}],"
    "\"camera\":{\"position\":[1.0,0.7,0.9],\"target\":[0.3,0.12,0.15]}}";

// A reint column of 16 x 8 x 8 cells.
static const char *k_reint_scene =
    "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[0.5,0.25,0.25]},\"substeps\":4,"
    "\"fluids\":[{\"solver\":\"reint\",\"reint\":{},\"particle_spacing\":0.03125,"
    "\"blocks\":[{\"min\":[0,0,0],\"max\":[0.125,0.2,0.25]}]}]}";

static bool load(const char *text, const char *name, cs_scene *scene)
{
    cs_error err;
    bool ok = cs_scene_parse(text, strlen(text), name, scene, &err);
    CHECK(ok, "%s: %s", name, ok ? "" : err.msg);
    return ok;
}

// ---- meshes ----------------------------------------------------------------

typedef struct mesh {
    uint32_t nv, nt;
    float *pos, *nrm;
    uint32_t *idx;
} mesh;

static mesh read_mesh(cs_context *ctx, const cs_world_surface *s)
{
    mesh m = {.nv = s->mesh.vertex_count, .nt = s->mesh.triangle_count};
    m.pos = malloc((size_t)m.nv * 12 + 12);
    m.nrm = malloc((size_t)m.nv * 12 + 12);
    m.idx = malloc((size_t)m.nt * 12 + 12);
    cs_surface_download(ctx, &s->mesh, m.pos, m.nrm, m.idx);
    return m;
}

static void free_mesh(mesh *m) { free(m->pos), free(m->nrm), free(m->idx); }

static bool same_mesh(const mesh *a, const mesh *b)
{
    return a->nv == b->nv && a->nt == b->nt && memcmp(a->pos, b->pos, (size_t)a->nv * 12) == 0 &&
           memcmp(a->nrm, b->nrm, (size_t)a->nv * 12) == 0 && memcmp(a->idx, b->idx, (size_t)a->nt * 12) == 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

// Non-empty, closed and consistently oriented, indices in range, every
// vertex used, finite, unit normals, every vertex inside [lo, hi].
static void check_mesh(const char *what, const mesh *m, const float lo[3], const float hi[3])
{
    CHECK(m->nt > 0 && m->nv > 0, "%s: empty mesh (%u vertices, %u triangles)", what, m->nv, m->nt);
    uint32_t bad_index = 0, degenerate = 0;
    uint8_t *used = calloc((size_t)m->nv + 1, 1);
    // Directed edges as (min, max) keys with the direction in bit 0 of a
    // separate sort key: each undirected edge must appear exactly twice,
    // once each way.
    uint64_t *edges = malloc((size_t)m->nt * 3 * sizeof *edges + 8);
    uint32_t ne = 0;
    for (uint32_t t = 0; t < m->nt; t++) {
        const uint32_t *v = &m->idx[3 * (size_t)t];
        if (v[0] >= m->nv || v[1] >= m->nv || v[2] >= m->nv) {
            bad_index++;
            continue;
        }
        degenerate += v[0] == v[1] || v[1] == v[2] || v[0] == v[2];
        for (int k = 0; k < 3; k++) {
            uint32_t a = v[k], b = v[(k + 1) % 3];
            used[a] = 1;
            uint32_t lo_v = a < b ? a : b, hi_v = a < b ? b : a;
            // 31 bits per vertex id are plenty here; bit 0 says a < b.
            edges[ne++] = ((uint64_t)lo_v << 32) | ((uint64_t)hi_v << 1) | (a < b);
        }
    }
    CHECK(bad_index == 0 && degenerate == 0, "%s: %u triangles with an index out of range, %u repeat an index", what,
          bad_index, degenerate);
    qsort(edges, ne, sizeof *edges, cmp_u64);
    uint32_t open = 0;
    for (uint32_t i = 0; i < ne;) {
        uint32_t j = i;
        while (j < ne && edges[j] >> 1 == edges[i] >> 1)
            j++;
        // Exactly two: one each way (sorted, so the 0 direction comes first).
        if (j - i != 2 || (edges[i] & 1) != 0 || (edges[i + 1] & 1) != 1)
            open++;
        i = j;
    }
    CHECK(open == 0, "%s: %u edges not shared by exactly two triangles in opposite directions", what, open);
    uint32_t unused = 0, outside = 0, non_finite = 0, bad_normal = 0;
    for (uint32_t i = 0; i < m->nv; i++) {
        unused += !used[i];
        const float *p = &m->pos[3 * (size_t)i], *n = &m->nrm[3 * (size_t)i];
        bool finite = true;
        for (int a = 0; a < 3; a++) {
            finite = finite && !test_not_finite(p[a]) && !test_not_finite(n[a]);
            outside += !(p[a] >= lo[a] && p[a] <= hi[a]);
        }
        non_finite += !finite;
        double len = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
        bad_normal += !(fabs(len - 1.0) < 1e-4);
    }
    CHECK(unused == 0, "%s: %u vertices no triangle uses", what, unused);
    CHECK(non_finite == 0 && bad_normal == 0, "%s: %u vertices not finite, %u normals not unit", what, non_finite,
          bad_normal);
    CHECK(outside == 0, "%s: %u vertex coordinates outside [%g %g %g]..[%g %g %g]", what, outside, lo[0], lo[1], lo[2],
          hi[0], hi[1], hi[2]);
    free(used);
    free(edges);
}

// The box every vertex must lie in: the fluid's domain grown by the splat
// radius (the field's extent) and one node (a padding vertex lies half a
// node beyond the last node). A reint field's nodes are cell centres, so
// one node beyond the domain is already generous.
static void mesh_bounds(const cs_world_surface *s, const cs_scene *fs, float lo[3], float hi[3])
{
    float grow = (s->from_cells ? 0.0f : s->splat.radius) + s->params.spacing;
    for (int a = 0; a < 3; a++) {
        lo[a] = fs->domain_min[a] - grow;
        hi[a] = fs->domain_max[a] + grow;
    }
}

// One frame with the split calls, the field and the outputs poisoned
// before the extraction writes them (a pass that skips an element shows).
static void frame_poisoned(cs_context *ctx, cs_world *w, cs_recorder *rec)
{
    for (uint32_t i = 0; i < w->surface_count; i++)
        cs_buffer_fill(ctx, &w->surfaces[i].field, CS_POISON_U32);
    cs_recorder_begin(rec);
    cs_world_record_frame(w, rec);
    cs_world_record_surface_count(w, rec);
    cs_recorder_submit_wait(rec);
    cs_error err;
    bool ok = cs_world_prepare_surfaces(w, &err);
    CHECK(ok, "prepare: %s", ok ? "" : err.msg);
    for (uint32_t i = 0; i < w->surface_count; i++) {
        cs_surface *m = &w->surfaces[i].mesh;
        cs_buffer_fill(ctx, &m->positions, CS_POISON_U32);
        cs_buffer_fill(ctx, &m->normals, CS_POISON_U32);
        cs_buffer_fill(ctx, &m->indices, CS_POISON_U32);
    }
    cs_recorder_resume(rec);
    cs_world_record_surface_emit(w, rec);
    cs_recorder_submit_wait(rec);
}

static void print_timings(const char *what, const cs_recorder *rec)
{
    static const char *const passes[] = {"surface: grid: sort", "surface: gather", "surface: splat", "surface: field",
                                         "surface: classify", "surface: scan", "surface: compact", "surface: emit"};
    double total = 0;
    char line[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < CS_ARRAY_COUNT(passes); i++) {
        double ms = cs_recorder_pass_ms(rec, passes[i]);
        if (ms < 0)
            continue;
        total += ms;
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%s %.2f", used ? ", " : "", passes[i] + 9, ms);
    }
    printf("%s: surface passes %.1f ms on the GPU (%s)\n", what, total, line);
}

// Runs a scene's world FRAMES frames, meshing each; checks every mesh; the
// meshes of the last frame and their timings go back to the caller.
static void run_checked(cs_context *ctx, const cs_scene *scene, const char *what, mesh *last, cs_world *keep)
{
    cs_world w;
    cs_error err;
    bool ok = cs_world_create(ctx, scene, &w, &err);
    CHECK(ok, "%s: world: %s", what, ok ? "" : err.msg);
    if (!ok)
        return;
    CHECK(w.surface_count == 1 && w.surfaces[0].fluid == 0 && cs_world_surface_of(&w, 0) == &w.surfaces[0],
          "%s: one surface, of fluid 0", what);
    cs_recorder rec;
    cs_recorder_create(ctx, "surface test", &rec);
    const cs_world_surface *s = &w.surfaces[0];
    float lo[3], hi[3];
    mesh_bounds(s, w.fluids[0].scene, lo, hi);
    for (uint32_t f = 0; f < FRAMES; f++) {
        frame_poisoned(ctx, &w, &rec);
        CHECK(s->drawable && s->meshed_at == w.substep_index && cs_world_surfaces_current(&w),
              "%s frame %u: the mesh shows the frame", what, f);
        mesh m = read_mesh(ctx, s);
        char label[96];
        snprintf(label, sizeof label, "%s frame %u", what, f);
        check_mesh(label, &m, lo, hi);
        if (f + 1 == FRAMES) {
            *last = m;
            cs_sim_stats stats;
            cs_world_stats(&w, &stats, NULL);
            printf("%s: %u x %u x %u nodes (spacing %g), %u particles/cells, frame %u: %u vertices, %u triangles\n",
                   what, s->mesh.dims[0], s->mesh.dims[1], s->mesh.dims[2], s->params.spacing, stats.particles, f,
                   m.nv, m.nt);
            print_timings(what, &rec);
        } else {
            free_mesh(&m);
        }
    }
    cs_recorder_destroy(&rec);
    if (keep)
        *keep = w;
    else
        cs_world_destroy(&w);
}

// Leaves the PBF world (meshed, then stepped once more) in *pbf_world for
// the drawing and PLY tests; `pbf` must outlive it.
static void test_worlds(cs_context *ctx, const cs_scene *pbf, cs_world *pbf_world)
{
    cs_scene reint;
    if (!load(k_reint_scene, "reint_surface.json", &reint))
        return;
    CHECK(reint.fluids[0].surface.enabled && reint.render.draw == CS_DRAW_SURFACE &&
              pbf->render.draw == CS_DRAW_SURFACE,
          "scene defaults");
    mesh a = {0}, b = {0};
    cs_world wa = {0};
    run_checked(ctx, pbf, "pbf dam break", &a, &wa);
    if (wa.surface_count == 0) {
        cs_scene_free(&reint);
        return;
    }
    run_checked(ctx, pbf, "pbf dam break, again", &b, NULL);
    CHECK(a.nt && same_mesh(&a, &b), "pbf: two runs give different meshes (%u / %u triangles)", a.nt, b.nt);
    free_mesh(&a), free_mesh(&b);

    // The surface leaves the fluid alone: the same frames without it give
    // the same particle bits (the splat sorts a copy on a grid of its own).
    cs_scene plain;
    if (load(k_pbf_scene, "pbf_plain.json", &plain)) {
        plain.fluids[0].surface.enabled = false;
        cs_world w;
        cs_error err;
        if (cs_world_create(ctx, &plain, &w, &err)) {
            CHECK(w.surface_count == 0, "disabled: no surface");
            cs_recorder rec;
            cs_recorder_create(ctx, "plain", &rec);
            for (uint32_t f = 0; f < FRAMES; f++) {
                cs_recorder_begin(&rec);
                cs_world_record_frame(&w, &rec);
                CHECK(cs_world_mesh_surfaces(&w, &rec, &err), "no surface: nothing to fail");
                cs_recorder_submit_wait(&rec);
            }
            cs_particle_view va, vb;
            wa.fluids[0].ops->particles(wa.fluids[0].state, &va);
            w.fluids[0].ops->particles(w.fluids[0].state, &vb);
            size_t bytes = (size_t)va.count * 16;
            float *pa = malloc(bytes + 16), *pb = malloc(bytes + 16);
            cs_buffer_download(ctx, va.positions, pa, bytes, 0);
            cs_buffer_download(ctx, vb.positions, pb, bytes, 0);
            CHECK(va.count == vb.count && memcmp(pa, pb, bytes) == 0,
                  "meshing the surface changed the fluid's particles");
            free(pa), free(pb);
            cs_recorder_destroy(&rec);
            cs_world_destroy(&w);
        } else {
            CHECK(false, "plain world: %s", err.msg);
        }
        cs_scene_free(&plain);
    }

    mesh c = {0}, d = {0};
    run_checked(ctx, &reint, "reint column", &c, NULL);
    run_checked(ctx, &reint, "reint column, again", &d, NULL);
    CHECK(c.nt && same_mesh(&c, &d), "reint: two runs give different meshes (%u / %u triangles)", c.nt, d.nt);
    free_mesh(&c), free_mesh(&d);
    cs_scene_free(&reint);

    // The two-submit form: the same mesh as the split calls, its passes
    // named without a prefix, and current until the next step.
    cs_recorder rec;
    cs_recorder_create(ctx, "mesh surfaces", &rec);
    cs_world_surface *s = &wa.surfaces[0];
    mesh before = read_mesh(ctx, s);
    cs_error err;
    cs_recorder_begin(&rec);
    bool ok = cs_world_mesh_surfaces(&wa, &rec, &err); // nothing stepped: the same state
    cs_recorder_submit_wait(&rec);
    mesh again = read_mesh(ctx, s);
    CHECK(ok && same_mesh(&before, &again), "cs_world_mesh_surfaces on the same state: another mesh");
    CHECK(cs_recorder_pass_ms(&rec, "surface: splat") >= 0 && cs_recorder_pass_ms(&rec, "surface: grid: sort") >= 0 &&
              cs_recorder_pass_ms(&rec, "surface: emit") >= 0 && cs_recorder_pass_ms(&rec, "surface: classify") >= 0,
          "pass names of one fluid's surface");
    CHECK(cs_world_surfaces_current(&wa), "current after meshing");
    cs_recorder_begin(&rec);
    cs_world_record_frame(&wa, &rec);
    cs_recorder_submit_wait(&rec);
    CHECK(!cs_world_surfaces_current(&wa), "stale after a step");
    free_mesh(&before), free_mesh(&again);
    cs_recorder_destroy(&rec);
    *pbf_world = wa;
}

// ---- drawing -----------------------------------------------------------------

static uint8_t *render(cs_context *ctx, cs_renderer *r, const cs_render_frame *frame)
{
    return test_render(ctx, r, NULL, frame, "surface render");
}

// The mesh's coverage on the CPU: every triangle projected with the
// camera's matrices and filled at pixel centres (edge functions).
static uint8_t *coverage(const mesh *m, const cs_camera_matrices *cm)
{
    uint8_t *cov = calloc((size_t)WIDTH * HEIGHT, 1);
    double (*px)[2] = malloc((size_t)m->nv * sizeof *px + 16);
    bool *ok = malloc((size_t)m->nv + 1);
    for (uint32_t i = 0; i < m->nv; i++) {
        double depth;
        ok[i] = cs_camera_project(cm, WIDTH, HEIGHT, &m->pos[3 * (size_t)i], px[i], &depth);
    }
    for (uint32_t t = 0; t < m->nt; t++) {
        const uint32_t *v = &m->idx[3 * (size_t)t];
        if (!ok[v[0]] || !ok[v[1]] || !ok[v[2]])
            continue;
        const double *a = px[v[0]], *b = px[v[1]], *c = px[v[2]];
        double area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if (area == 0)
            continue;
        int x0 = (int)floor(fmin(a[0], fmin(b[0], c[0]))), x1 = (int)ceil(fmax(a[0], fmax(b[0], c[0])));
        int y0 = (int)floor(fmin(a[1], fmin(b[1], c[1]))), y1 = (int)ceil(fmax(a[1], fmax(b[1], c[1])));
        for (int y = CS_MAX(y0, 0); y <= CS_MIN(y1, HEIGHT - 1); y++)
            for (int x = CS_MAX(x0, 0); x <= CS_MIN(x1, WIDTH - 1); x++) {
                double p[2] = {x + 0.5, y + 0.5};
                double w0 = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
                double w1 = (c[0] - b[0]) * (p[1] - b[1]) - (c[1] - b[1]) * (p[0] - b[0]);
                double w2 = (a[0] - c[0]) * (p[1] - c[1]) - (a[1] - c[1]) * (p[0] - c[0]);
                if ((w0 >= 0 && w1 >= 0 && w2 >= 0) || (w0 <= 0 && w1 <= 0 && w2 <= 0))
                    cov[y * WIDTH + x] = 1;
            }
    }
    free(px), free(ok);
    return cov;
}

static bool differs(const uint8_t *a, const uint8_t *b, size_t i, int tolerance)
{
    for (int c = 0; c < 3; c++)
        if (abs((int)a[4 * i + c] - (int)b[4 * i + c]) > tolerance)
            return true;
    return false;
}

static void test_drawing(cs_context *ctx, cs_world *w, const cs_scene *scene)
{
    cs_renderer r;
    cs_error err;
    bool ok = cs_renderer_create(ctx, &(cs_renderer_desc){.width = WIDTH, .height = HEIGHT}, &r, &err);
    CHECK(ok, "renderer: %s", ok ? "" : err.msg);
    if (!ok)
        return;
    // Mesh the current state (the world stepped after its last mesh).
    cs_recorder rec;
    cs_recorder_create(ctx, "mesh for drawing", &rec);
    cs_recorder_begin(&rec);
    ok = cs_world_mesh_surfaces(w, &rec, &err);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    CHECK(ok, "mesh: %s", ok ? "" : err.msg);

    cs_world_surface *s = &w->surfaces[0];
    const cs_scene *fs = w->fluids[0].scene;
    cs_render_surface surf = {.positions = &s->mesh.positions, .normals = &s->mesh.normals,
                              .indices = &s->mesh.indices, .triangle_count = s->mesh.triangle_count};
    memcpy(surf.color, fs->materials[0].color, sizeof surf.color);
    cs_particle_view pv;
    w->fluids[0].ops->particles(w->fluids[0].state, &pv);
    cs_view_camera cam;
    cs_camera_from_scene(&cam, scene);
    cs_render_frame base = {.scene = fs, .camera = &cam, .color_mode = -1, .hide_box = true};
    cs_render_frame empty = base, particles = base, surface = base;
    cs_render_frame_add(&particles, CS_DRAWABLE_PARTICLES, &pv);
    cs_render_frame_add(&surface, CS_DRAWABLE_SURFACE, &surf);
    uint8_t *bg = render(ctx, &r, &empty);
    uint8_t *pp = render(ctx, &r, &particles);
    uint8_t *sp = render(ctx, &r, &surface);

    mesh m = read_mesh(ctx, s);
    cs_camera_matrices cm;
    cs_camera_matrices_get(&cam, (double)WIDTH / HEIGHT, &cm);
    uint8_t *cov = coverage(&m, &cm);
    uint32_t covered = 0, drawn = 0, differ_from_particles = 0, missing = 0, extra = 0, checked = 0;
    int lum_min = 255, lum_max = 0;
    uint32_t inside = 0, bluish = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            size_t i = (size_t)y * WIDTH + x;
            bool on = differs(sp, bg, i, 3);
            covered += cov[i];
            drawn += on;
            differ_from_particles += differs(sp, pp, i, 3);
            // Compare only where the CPU coverage is the same all around:
            // which side of a silhouette a pixel centre falls on is rounding.
            if (x == 0 || y == 0 || x == WIDTH - 1 || y == HEIGHT - 1)
                continue;
            bool uniform = true;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    uniform = uniform && cov[(size_t)(y + dy) * WIDTH + x + dx] == cov[i];
            if (!uniform)
                continue;
            checked++;
            missing += cov[i] && !on;
            extra += !cov[i] && on;
            if (cov[i]) {
                const uint8_t *p = &sp[4 * i];
                int lum = (2 * p[0] + 5 * p[1] + p[2]) / 8;
                lum_min = CS_MIN(lum_min, lum);
                lum_max = CS_MAX(lum_max, lum);
                inside++;
                bluish += p[2] > p[0] + 10;
            }
        }
    printf("drawn: %u triangles cover %u of %u pixels (CPU); %u pixels differ from the background, %u from the "
           "particles-only frame; %u interior pixels compared: %u covered but background, %u background but "
           "drawn; brightness %d..%d\n",
           m.nt, covered, WIDTH * HEIGHT, drawn, differ_from_particles, checked, missing, extra, lum_min, lum_max);
    CHECK(covered > 2000, "the mesh covers only %u pixels: the camera misses it", covered);
    CHECK(differ_from_particles > covered / 4, "the surface frame differs from the particles frame in %u pixels",
          differ_from_particles);
    CHECK(missing == 0 && extra == 0, "coverage: %u covered pixels show the background, %u uncovered are drawn",
          missing, extra);
    CHECK(lum_max - lum_min > 40, "surface pixels are not shaded (brightness %d..%d)", lum_min, lum_max);
    // The material is blue; lighting, sky reflections and highlights keep it
    // bluish nearly everywhere.
    CHECK(inside > 0 && bluish >= inside - inside / 50, "surface pixels should be bluish like the material: %u of %u",
          bluish, inside);
    free(cov), free(bg), free(pp), free(sp);
    free_mesh(&m);
    cs_renderer_destroy(&r);
}

// ---- PLY ------------------------------------------------------------------------

static void test_ply(cs_context *ctx, const cs_world *w)
{
    const cs_world_surface *s = &w->surfaces[0];
    mesh m = read_mesh(ctx, s);
    char path[] = "/tmp/cistern_surface_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "temp file");
    if (fd < 0)
        return;
    close(fd);
    cs_error err;
    bool ok = cs_surface_write_ply(path, m.pos, m.nrm, m.nv, m.idx, m.nt, &err);
    CHECK(ok, "write PLY: %s", ok ? "" : err.msg);
    size_t size = 0;
    char *text = cs_read_file(path, &size, &err);
    CHECK(text, "read back: %s", text ? "" : err.msg);
    if (text) {
        const char *end = strstr(text, "end_header\n");
        unsigned nv = 0, nt = 0;
        const char *v = strstr(text, "element vertex "), *f = strstr(text, "element face ");
        CHECK(end && v && f && sscanf(v, "element vertex %u", &nv) == 1 && sscanf(f, "element face %u", &nt) == 1,
              "PLY header");
        size_t body = end ? (size_t)(end + 11 - text) : 0;
        CHECK(nv == m.nv && nt == m.nt && size == body + (size_t)nv * 24 + (size_t)nt * 13,
              "PLY counts %u %u (want %u %u), %zu bytes", nv, nt, m.nv, m.nt, size);
        uint32_t bad = 0;
        for (uint32_t i = 0; end && i < m.nv && size == body + (size_t)nv * 24 + (size_t)nt * 13; i++) {
            float x[6];
            memcpy(x, text + body + 24 * (size_t)i, 24); // little-endian host, as the file
            bad += memcmp(x, &m.pos[3 * (size_t)i], 12) != 0 || memcmp(x + 3, &m.nrm[3 * (size_t)i], 12) != 0;
        }
        for (uint32_t t = 0; end && t < m.nt && size == body + (size_t)nv * 24 + (size_t)nt * 13; t++) {
            const uint8_t *rec = (const uint8_t *)text + body + 24 * (size_t)m.nv + 13 * (size_t)t;
            uint32_t idx[3];
            memcpy(idx, rec + 1, 12);
            bad += rec[0] != 3 || memcmp(idx, &m.idx[3 * (size_t)t], 12) != 0;
        }
        CHECK(bad == 0, "PLY: %u records differ from the mesh", bad);
        printf("PLY: %u vertices, %u triangles, %zu bytes, read back\n", nv, nt, size);
        free(text);
    }
    unlink(path);
    free_mesh(&m);
}

// ---- device limits -------------------------------------------------------------

// The most padded surface nodes the device holds, from what it reports
// (storage-buffer range, heaps), independently of the pipeline's helper.
static uint64_t device_node_limit(const cs_context *ctx)
{
    uint64_t most = UINT32_MAX / 5;
    most = CS_MIN(most, (uint64_t)ctx->props.limits.maxStorageBufferRange / 4);
    VkDeviceSize heap = 0;
    for (uint32_t h = 0; h < ctx->memory_props.memoryHeapCount; h++)
        heap = CS_MAX(heap, ctx->memory_props.memoryHeaps[h].size);
    return CS_MIN(most, (uint64_t)((heap - ctx->bytes_allocated) / 36));
}

static void test_limits(cs_context *ctx)
{
    uint64_t limit = device_node_limit(ctx);
    CHECK(limit == cs_surface_max_nodes(ctx), "limit %llu, the pipeline says %llu", (unsigned long long)limit,
          (unsigned long long)cs_surface_max_nodes(ctx));
    // A unit box: nodes per axis ~ (1 + 2 R) / cell. Ask for twice the limit.
    double spacing = 0.05, radius = 2.5 * spacing;
    double cell = (1.0 + 2.0 * radius) / cbrt(2.0 * (double)limit);
    char text[1024];
    snprintf(text, sizeof text,
             "{\"domain\":{\"min\":[0,0,0],\"max\":[1,1,1]},\"fluids\":[{\"solver\":\"pbf\",\"pbf\":{},"
             "\"particle_spacing\":%g,\"blocks\":[{\"min\":[0,0,0],\"max\":[0.2,0.2,0.2]}],"
             "\"surface\":{\"enabled\":true,\"cell_size\":%.9g}}]}",
             spacing, cell);
    cs_scene scene;
    if (!load(text, "too_fine.json", &scene))
        return;
    VkDeviceSize before = ctx->bytes_allocated;
    cs_world w;
    cs_error err;
    bool ok = cs_world_create(ctx, &scene, &w, &err);
    printf("cell_size %.3g over a unit box (limit %llu nodes): %s\n", cell, (unsigned long long)limit,
           ok ? "accepted" : err.msg);
    CHECK(!ok && strstr(err.msg, "too_fine.json: fluids[0].surface.cell_size: a surface grid of") &&
              strstr(err.msg, "does not fit the device") && strstr(err.msg, ctx->props.deviceName) &&
              strstr(err.msg, "use a cell_size of at least"),
          "refusal message: %s", ok ? "(accepted)" : err.msg);
    char want[64];
    snprintf(want, sizeof want, "at most %llu nodes", (unsigned long long)limit);
    CHECK(ok || strstr(err.msg, want), "the message names the device's limit (%s): %s", want, err.msg);
    CHECK(ctx->bytes_allocated == before, "refused world left %llu bytes allocated",
          (unsigned long long)(ctx->bytes_allocated - before));
    if (ok)
        cs_world_destroy(&w);
    // The suggested cell size is accepted.
    double suggested = 0;
    const char *at = ok ? NULL : strstr(err.msg, "at least ");
    if (at && sscanf(at, "at least %lf", &suggested) == 1 && limit <= (64u << 20)) {
        cs_scene_free(&scene);
        snprintf(text, sizeof text,
                 "{\"domain\":{\"min\":[0,0,0],\"max\":[1,1,1]},\"fluids\":[{\"solver\":\"pbf\",\"pbf\":{},"
                 "\"particle_spacing\":%g,\"blocks\":[{\"min\":[0,0,0],\"max\":[0.2,0.2,0.2]}],"
                 "\"surface\":{\"enabled\":true,\"cell_size\":%.9g}}]}",
                 spacing, suggested);
        if (load(text, "suggested.json", &scene)) {
            ok = cs_world_create(ctx, &scene, &w, &err);
            CHECK(ok, "the suggested cell_size %g: %s", suggested, ok ? "" : err.msg);
            if (ok)
                cs_world_destroy(&w);
        }
    }
    cs_scene_free(&scene);

    // No resolution given: the default (2 nodes per spacing) is coarsened to
    // fit, with a note. Only where the device's limit is small enough that
    // a grid at the limit is cheap to allocate (it is not meshed).
    if (limit > (64u << 20)) {
        printf("default coarsening: skipped (the device holds %llu nodes; a grid that size is not cheap)\n",
               (unsigned long long)limit);
        return;
    }
    spacing = 2.0 / cbrt(2.0 * (double)limit);
    snprintf(text, sizeof text,
             "{\"domain\":{\"min\":[0,0,0],\"max\":[1,1,1]},\"fluids\":[{\"solver\":\"pbf\",\"pbf\":{},"
             "\"particle_spacing\":%.9g,\"blocks\":[{\"min\":[0,0,0],\"max\":[0.05,0.05,0.05]}],"
             "\"surface\":{\"enabled\":true}}]}",
             spacing);
    if (!load(text, "default_fine.json", &scene))
        return;
    ok = cs_world_create(ctx, &scene, &w, &err);
    CHECK(ok, "default resolution: %s", ok ? "" : err.msg);
    if (ok) {
        const cs_world_surface *s = &w.surfaces[0];
        printf("default resolution at spacing %.4g: %s\n", spacing, s->note);
        CHECK(s->note[0] && strstr(s->note, "do not fit") && s->mesh.padded_count <= limit &&
                  s->params.spacing > spacing / 2,
              "coarsened: note \"%s\", %u padded nodes, node spacing %g", s->note, s->mesh.padded_count,
              s->params.spacing);
        cs_world_destroy(&w);
    }
    cs_scene_free(&scene);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_scene pbf;
    if (load(k_pbf_scene, "pbf_surface.json", &pbf)) {
        cs_world w = {0};
        test_worlds(&ctx, &pbf, &w);
        if (w.surface_count) {
            test_drawing(&ctx, &w, &pbf);
            test_ply(&ctx, &w);
            cs_world_destroy(&w);
        }
        cs_scene_free(&pbf);
    }
    test_limits(&ctx);
    return test_finish(&ctx);
}
