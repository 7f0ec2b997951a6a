// test_geometry_fluid.c — the scene's static geometry as the fluids' boundary
// (host/world/geometry_sdf.h; docs/light.md, "Fluid against the scene's
// geometry").
//
// 1. The bake against an independent double reference: the analytic signed
//    distance of a solid box, for an axis-aligned box and a block rotated
//    about a random axis, each given as 12 outward triangles. Both boxes are
//    between `thickness` and twice that across, where the rule is exact. In
//    double (cs_geometry_sdf_at) it must match to 1e-6 m (the corners are
//    floats) at random points; the baked float field, sampled trilinearly,
//    within half a cell of the reference clamped to the band outside the
//    box (where the fluid is), within sqrt(3)/2 cell inside (see below).
// 2. Open geometry: a lone floor quad is a slab `thickness` deep behind it,
//    whose inside distance is the depth below the quad (its diagonal, where
//    its two prisms meet, is no surface).
// 3. A bake past the visit cap is refused with the counts.
// 4. PBF water dropped on the two Cornell blocks (their quads as in
//    scenes/cornell_box.json, which has no bottom faces): after 0.5 s no
//    particle centre is inside a block by more than TOLERANCE_SPACINGS, by
//    each block's face planes and the floor. The same run without the
//    scene's geometry must put particles inside, so the check can fail.
// 5. scenes/cornell_fluid.json's field as the world bakes it: the blocks
//    are solid along their axes to the top; the bake's cost is printed.
// ctest labels: quick,gpu -- 5
#define _POSIX_C_SOURCE 200809L // clock_gettime
#include "test_util.h"

#include "geometry_sdf.h"
#include "world.h"

#include <math.h>
#include <time.h>

// ---------------------------------------------------------------------------
// Boxes: centre, three orthonormal axes, half sizes.

typedef struct box {
    double centre[3];
    double axis[3][3];
    double half[3];
} box;

static double box_reference(const box *b, const double p[3])
{
    double outside2 = 0.0, largest = -INFINITY;
    for (int a = 0; a < 3; a++) {
        double local = 0.0;
        for (int k = 0; k < 3; k++)
            local += (p[k] - b->centre[k]) * b->axis[a][k];
        double d = fabs(local) - b->half[a];
        largest = fmax(largest, d);
        if (d > 0.0)
            outside2 += d * d;
    }
    return largest > 0.0 ? sqrt(outside2) : largest;
}

static vec4 corner(const box *b, int a, double sa, double sb, double sc)
{
    int bb = (a + 1) % 3, cc = (a + 2) % 3;
    double p[3];
    for (int k = 0; k < 3; k++)
        p[k] = b->centre[k] + sa * b->half[a] * b->axis[a][k] + sb * b->half[bb] * b->axis[bb][k] +
               sc * b->half[cc] * b->axis[cc][k];
    return (vec4){(float)p[0], (float)p[1], (float)p[2], 0.0f};
}

// 12 triangles, each face counter-clockwise seen from outside (axis[b] x
// axis[c] = axis[a] for a right-handed frame).
static void box_triangles(const box *b, cs_tri out[12])
{
    int n = 0;
    for (int a = 0; a < 3; a++)
        for (int s = -1; s <= 1; s += 2) {
            vec4 q[4] = {corner(b, a, s, -1, -1), corner(b, a, s, 1, -1), corner(b, a, s, 1, 1),
                         corner(b, a, s, -1, 1)};
            if (s < 0) {
                vec4 t = q[1];
                q[1] = q[3];
                q[3] = t;
            }
            out[n++] = (cs_tri){.v0 = q[0], .v1 = q[1], .v2 = q[2]};
            out[n++] = (cs_tri){.v0 = q[0], .v1 = q[2], .v2 = q[3]};
        }
}

static void random_rotation(double axis[3][3])
{
    double u[3], len = 0.0;
    do {
        len = 0.0;
        for (int k = 0; k < 3; k++) {
            u[k] = 2.0 * test_rand_unit() - 1.0;
            len += u[k] * u[k];
        }
    } while (len < 0.01 || len > 1.0);
    for (int k = 0; k < 3; k++)
        u[k] /= sqrt(len);
    double angle = 0.2 + 1.2 * test_rand_unit(), c = cos(angle), s = sin(angle);
    // Rodrigues: the rotated unit vectors are the rows.
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double cross = 0.0;
            if (i != j) {
                int k = 3 - i - j;
                double sign = ((i + 1) % 3 == j) ? 1.0 : -1.0; // e_i x e_j = sign e_k
                cross = -sign * u[k];
            }
            axis[i][j] = c * (i == j) + (1.0 - c) * u[i] * u[j] - s * cross;
        }
}

// Inside, the box's distance has ridges (where the nearest face changes):
// trilinear sampling of a 1-Lipschitz field is off by at most the weighted
// distance to the cell's corners, up to sqrt(3) / 2 of a cell at its
// centre; half a cell exactly on a ridge midway between two nodes.
#define INSIDE_CELLS 0.8660254

static void check_box(const char *what, const box *b)
{
    const double cell = 0.02, band = 0.08, thickness = 0.08;
    float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.4f, 0.4f, 0.4f};
    cs_level_grid grid;
    cs_error err;
    bool ok = cs_geometry_grid_plan(lo, hi, cell, band, &grid, &err);
    CHECK(ok, "%s: %s", what, ok ? "" : err.msg);
    if (!ok)
        return;
    cs_tri tris[12];
    box_triangles(b, tris);
    size_t nodes = (size_t)grid.dims[0] * grid.dims[1] * grid.dims[2];
    float *values = malloc(nodes * sizeof *values);
    ok = cs_geometry_sdf_bake(tris, 12, &grid, thickness, values, &err);
    CHECK(ok, "%s: %s", what, ok ? "" : err.msg);
    double worst_exact = 0.0, worst_outside = 0.0, worst_inside = 0.0;
    uint32_t inside = 0;
    for (int i = 0; ok && i < 20000; i++) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = hi[k] * test_rand_unit();
        double ref = box_reference(b, p);
        inside += ref < 0.0;
        double exact = cs_geometry_sdf_at(tris, 12, thickness, p);
        // The triangles' corners are floats: allow their rounding.
        worst_exact = fmax(worst_exact, fabs(exact - ref));
        double baked_error = fabs(cs_level_sdf_sample(&grid, values, p) - fmax(fmin(ref, band), -band));
        if (ref > 0.0)
            worst_outside = fmax(worst_outside, baked_error);
        else
            worst_inside = fmax(worst_inside, baked_error);
    }
    printf("%s: 20000 points (%u inside): rule vs reference %.2e m; baked field (cell %.3f) outside %.4f m, inside "
           "%.4f m\n", what, inside, worst_exact, cell, worst_outside, worst_inside);
    CHECK(inside > 100, "%s: only %u random points inside the box", what, inside);
    CHECK(worst_exact < 1e-6, "%s: the rule's distance differs from the box's by %.3e m", what, worst_exact);
    CHECK(worst_outside < 0.5 * cell, "%s: baked field differs from the box's distance outside it by %.4f m (half "
          "a cell %.4f)", what, worst_outside, 0.5 * cell);
    CHECK(worst_inside < INSIDE_CELLS * cell, "%s: baked field differs from the box's distance inside it by %.4f m "
          "(%.3f cell %.4f)", what, worst_inside, INSIDE_CELLS, INSIDE_CELLS * cell);
    free(values);
}

static void check_reference(void)
{
    box aligned = {.centre = {0.175, 0.125, 0.17},
                   .axis = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
                   .half = {0.075, 0.075, 0.05}};
    check_box("axis-aligned box", &aligned);
    box rotated = {.centre = {0.2, 0.21, 0.19}, .half = {0.07, 0.045, 0.06}};
    random_rotation(rotated.axis);
    check_box("rotated block", &rotated);
}

// A floor quad (front up) is solid from its plane to `thickness` below.
static void check_open_quad(void)
{
    vec4 q[4] = {{0, 0, 0, 0}, {0, 0, 1, 0}, {1, 0, 1, 0}, {1, 0, 0, 0}};
    cs_tri tris[2] = {{.v0 = q[0], .v1 = q[1], .v2 = q[2]}, {.v0 = q[0], .v1 = q[2], .v2 = q[3]}};
    const double thickness = 0.1;
    struct {
        double p[3], want;
    } cases[] = {
        {{0.5, 0.3, 0.5}, 0.3},  {{0.5, -0.03, 0.5}, -0.03}, {{0.2, -0.08, 0.7}, -0.08},
        {{0.5, -0.4, 0.5}, 0.3}, {{1.3, -0.05, 0.5}, 0.3},   {{0.01, -0.05, 0.5}, -0.05},
        {{1.3, 0.4, 0.5}, 0.5},
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(cases); i++) {
        double d = cs_geometry_sdf_at(tris, 2, thickness, cases[i].p);
        CHECK(fabs(d - cases[i].want) < 1e-6, "floor quad at (%g, %g, %g): distance %.6f, want %.6f",
              cases[i].p[0], cases[i].p[1], cases[i].p[2], d, cases[i].want);
    }
}

static void check_cap(void)
{
    // 64 triangles over the whole of a 1 m grid at 2 mm: 64 x 125 M visits.
    float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    cs_level_grid grid;
    cs_error err;
    bool ok = cs_geometry_grid_plan(lo, hi, 0.002, 1.0, &grid, &err);
    CHECK(ok, "cap grid: %s", ok ? "" : err.msg);
    cs_tri tris[64];
    vec4 a = {0, 0.5f, 0, 0}, b = {0, 0.5f, 1, 0}, c = {1, 0.5f, 1, 0};
    for (int i = 0; i < 64; i++)
        tris[i] = (cs_tri){.v0 = a, .v1 = b, .v2 = c};
    uint64_t visits = cs_geometry_sdf_visits(tris, 64, &grid, 0.1);
    ok = cs_geometry_sdf_bake(tris, 64, &grid, 0.1, NULL, &err);
    CHECK(!ok && strstr(err.msg, "visits"), "a bake of %llu visits was not refused", (unsigned long long)visits);
    if (!ok)
        printf("refused: %s\n", err.msg);
}

// ---------------------------------------------------------------------------
// Water on the Cornell blocks

// The blocks' faces (scenes/cornell_box.json): 5 quads each, no bottom.
static const float BLOCK_QUADS[2][5][4][3] = {
    {{{0.13f, 0.165f, 0.065f}, {0.082f, 0.165f, 0.225f}, {0.24f, 0.165f, 0.272f}, {0.29f, 0.165f, 0.114f}},
     {{0.29f, 0.0f, 0.114f}, {0.29f, 0.165f, 0.114f}, {0.24f, 0.165f, 0.272f}, {0.24f, 0.0f, 0.272f}},
     {{0.13f, 0.0f, 0.065f}, {0.13f, 0.165f, 0.065f}, {0.29f, 0.165f, 0.114f}, {0.29f, 0.0f, 0.114f}},
     {{0.082f, 0.0f, 0.225f}, {0.082f, 0.165f, 0.225f}, {0.13f, 0.165f, 0.065f}, {0.13f, 0.0f, 0.065f}},
     {{0.24f, 0.0f, 0.272f}, {0.24f, 0.165f, 0.272f}, {0.082f, 0.165f, 0.225f}, {0.082f, 0.0f, 0.225f}}},
    {{{0.423f, 0.33f, 0.247f}, {0.265f, 0.33f, 0.296f}, {0.314f, 0.33f, 0.456f}, {0.472f, 0.33f, 0.406f}},
     {{0.423f, 0.0f, 0.247f}, {0.423f, 0.33f, 0.247f}, {0.472f, 0.33f, 0.406f}, {0.472f, 0.0f, 0.406f}},
     {{0.472f, 0.0f, 0.406f}, {0.472f, 0.33f, 0.406f}, {0.314f, 0.33f, 0.456f}, {0.314f, 0.0f, 0.456f}},
     {{0.314f, 0.0f, 0.456f}, {0.314f, 0.33f, 0.456f}, {0.265f, 0.33f, 0.296f}, {0.265f, 0.0f, 0.296f}},
     {{0.265f, 0.0f, 0.296f}, {0.265f, 0.33f, 0.296f}, {0.423f, 0.33f, 0.247f}, {0.423f, 0.0f, 0.247f}}},
};

#define SPACING 0.02
#define FRAMES 60
// What a particle centre may be inside a block: a tenth of the spacing.
#define TOLERANCE_SPACINGS 0.1

// Each block as 6 outward planes (n, offset): its 5 faces and the floor.
typedef struct block_planes {
    double n[6][3], offset[6];
} block_planes;

static void planes_of_block(int b, block_planes *out)
{
    double centre[3] = {0, 0, 0};
    for (int f = 0; f < 5; f++)
        for (int v = 0; v < 4; v++)
            for (int k = 0; k < 3; k++)
                centre[k] += BLOCK_QUADS[b][f][v][k] / 20.0;
    for (int f = 0; f < 5; f++) {
        const float(*q)[3] = BLOCK_QUADS[b][f];
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = q[1][k] - q[0][k];
            e2[k] = q[2][k] - q[0][k];
        }
        double *n = out->n[f];
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++)
            n[k] /= len;
        out->offset[f] = n[0] * q[0][0] + n[1] * q[0][1] + n[2] * q[0][2];
        double centre_side = n[0] * centre[0] + n[1] * centre[1] + n[2] * centre[2] - out->offset[f];
        CHECK(centre_side < 0.0, "block %d face %d does not face out of the block", b, f);
    }
    out->n[5][0] = 0.0, out->n[5][1] = -1.0, out->n[5][2] = 0.0;
    out->offset[5] = 0.0;
}

// How far p is inside the block (> 0 inside), by its planes.
static double block_depth(const block_planes *b, const double p[3])
{
    double largest = -INFINITY;
    for (int f = 0; f < 6; f++)
        largest = fmax(largest, b->n[f][0] * p[0] + b->n[f][1] * p[1] + b->n[f][2] * p[2] - b->offset[f]);
    return -largest;
}

static void scene_json(char *out, size_t size)
{
    int n = snprintf(out, size,
                     "{ \"dim\": 3, \"domain\": {\"min\": [0, 0, 0], \"max\": [0.556, 0.5488, 0.5592]},"
                     "  \"gravity\": [0, -9.81, 0], \"dt\": 0.008333, \"substeps\": 2, \"seed\": 1,"
                     "  \"geometry\": [");
    for (int b = 0; b < 2; b++)
        for (int f = 0; f < 5; f++) {
            const float(*q)[3] = BLOCK_QUADS[b][f];
            n += snprintf(out + n, size - (size_t)n,
                          "%s{\"quad\": {\"vertices\": [[%g,%g,%g],[%g,%g,%g],[%g,%g,%g],[%g,%g,%g]]}, "
                          "\"albedo\": [0.7, 0.7, 0.7]}",
                          b + f ? "," : "", q[0][0], q[0][1], q[0][2], q[1][0], q[1][1], q[1][2], q[2][0], q[2][1],
                          q[2][2], q[3][0], q[3][1], q[3][2]);
        }
    snprintf(out + n, size - (size_t)n,
             "],"
             "  \"fluids\": [{ \"solver\": \"pbf\", \"particle_spacing\": %g, \"smoothing_radius\": %g,"
             "    \"materials\": [{\"name\": \"water\", \"mass\": 0.008, \"rest_density\": 1000}],"
             "    \"blocks\": [{\"min\": [0.1, 0.25, 0.09], \"max\": [0.26, 0.37, 0.25], \"material\": \"water\"},"
             "               {\"min\": [0.3, 0.36, 0.27], \"max\": [0.44, 0.48, 0.43], \"material\": \"water\"}],"
             "    \"pbf\": {\"iterations\": 4} }] }",
             SPACING, 2 * SPACING);
}

typedef struct block_check {
    uint32_t count, inside;
    double deepest;
} block_check;

// Runs the scene, with or without its geometry, and measures the particles.
static block_check run_blocks(cs_context *ctx, bool with_geometry)
{
    block_check out = {.deepest = -INFINITY};
    char json[8192];
    scene_json(json, sizeof json);
    cs_scene scene;
    cs_error err;
    bool ok = cs_scene_parse(json, strlen(json), "inline.json", &scene, &err);
    CHECK(ok, "scene: %s", ok ? "" : err.msg);
    if (!ok)
        return out;
    struct cs_geometry *geometry = scene.geometry;
    if (!with_geometry)
        scene.geometry = NULL;
    cs_world world;
    ok = cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "world: %s", ok ? "" : err.msg);
    if (ok) {
        cs_recorder rec;
        cs_recorder_create(ctx, "geometry fluid", &rec);
        for (uint32_t f = 0; f < FRAMES; f++) {
            cs_recorder_begin(&rec);
            cs_world_record_frame(&world, &rec);
            cs_recorder_submit_wait(&rec);
        }
        cs_recorder_destroy(&rec);
        block_planes blocks[2];
        planes_of_block(0, &blocks[0]);
        planes_of_block(1, &blocks[1]);
        cs_particle_view v;
        world.fluids[0].ops->particles(world.fluids[0].state, &v);
        float *pos = malloc((size_t)v.count * 16 + 16);
        cs_buffer_download(ctx, v.positions, pos, (VkDeviceSize)v.count * 16, 0);
        for (uint32_t i = 0; i < v.count; i++) {
            double p[3] = {pos[i * 4], pos[i * 4 + 1], pos[i * 4 + 2]};
            double depth = fmax(block_depth(&blocks[0], p), block_depth(&blocks[1], p));
            out.deepest = fmax(out.deepest, depth);
            out.inside += depth > TOLERANCE_SPACINGS * SPACING || !isfinite(depth);
        }
        out.count = v.count;
        free(pos);
        cs_world_destroy(&world);
    }
    scene.geometry = geometry;
    cs_scene_free(&scene);
    return out;
}

static void check_blocks(cs_context *ctx)
{
    block_check with = run_blocks(ctx, true);
    printf("with the geometry: %u particles after %.2f s, %u inside a block by more than %.3f m (deepest %+.4f m)\n",
           with.count, FRAMES * 2 * 0.008333, with.inside, TOLERANCE_SPACINGS * SPACING, with.deepest);
    CHECK(with.count > 0 && with.inside == 0, "%u of %u particle centres inside a Cornell block (deepest %.4f m)",
          with.inside, with.count, with.deepest);
    block_check without = run_blocks(ctx, false);
    printf("without it: %u inside a block (deepest %+.4f m)\n", without.inside, without.deepest);
    CHECK(without.inside > 0, "the water never entered the blocks without the geometry: the check cannot fail");
}

// scenes/cornell_fluid.json's own field, as the world bakes it (cell = the
// spacing, band max(2 h, 4 spacings), thickness 2 bands): its cost, and
// the blocks solid to their centres (the thickness reaches them).
static void check_cornell_scene(void)
{
    cs_scene scene;
    cs_error err;
    bool ok = cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_fluid.json", &scene, &err);
    CHECK(ok, "cornell_fluid: %s", ok ? "" : err.msg);
    if (!ok)
        return;
    const cs_scene *fs = &scene.fluids[0];
    double band = fmax(2.0 * fs->smoothing_radius, 4.0 * fs->particle_spacing);
    cs_level_grid grid;
    ok = cs_geometry_grid_plan(fs->domain_min, fs->domain_max, fs->particle_spacing, band, &grid, &err);
    CHECK(ok, "cornell_fluid grid: %s", ok ? "" : err.msg);
    const cs_geometry *g = scene.geometry;
    float *values = malloc((size_t)grid.dims[0] * grid.dims[1] * grid.dims[2] * sizeof *values);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ok = ok && cs_geometry_sdf_bake(g->tris, g->tri_count, &grid, 2.0 * band, values, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(ok, "cornell_fluid bake: %s", ok ? "" : err.msg);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
    printf("cornell_fluid: %u triangles, %u x %u x %u nodes, %llu visits, bake %.1f ms\n", g->tri_count,
           grid.dims[0], grid.dims[1], grid.dims[2],
           (unsigned long long)cs_geometry_sdf_visits(g->tris, g->tri_count, &grid, 2.0 * band), ms);
    for (int b = 0; ok && b < 2; b++) {
        double centre[3] = {0, 0, 0};
        for (int f = 0; f < 5; f++)
            for (int v = 0; v < 4; v++)
                for (int k = 0; k < 3; k++)
                    centre[k] += BLOCK_QUADS[b][f][v][k] / 20.0;
        for (double y = 0.01; y < BLOCK_QUADS[b][0][0][1]; y += 0.01) {
            double p[3] = {centre[0], y, centre[2]};
            double d = cs_level_sdf_sample(&grid, values, p);
            CHECK(d < 0.0, "cornell_fluid: block %d open (%.4f m) on its axis at height %.2f m", b, d, y);
        }
    }
    free(values);
    cs_scene_free(&scene);
}

int main(void)
{
    test_seed();
    cs_context ctx;
    test_context(&ctx);
    check_reference();
    check_open_quad();
    check_cap();
    check_cornell_scene();
    check_blocks(&ctx);
    return test_finish(&ctx);
}
