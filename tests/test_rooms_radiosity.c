// test_rooms_radiosity.c — scenes/rooms_radiosity.json, the three rooms of
// issue 11's larger scene (docs/light.md, "Rooms"), solved by the world's
// radiosity part on the GPU (cs_world_radiosity_create / _record, the
// scene's own lights along their paths; patch_size 0.8, 1040 patches, to
// keep the compiles short):
//   1. room C has no light and no light sees into it (the spot in B points
//      down with a cone inside B; A's area light is off the line of both
//      doorways), so with 0 bounces every patch of C is exactly 0, at four
//      times along the spot's path; rooms A and B are lit;
//   2. with the scene's bounces (and 1) C gets light, only through the B–C
//      doorway, from B's lit floor and walls: more than an eighth of its
//      patches are lit (with 1 bounce only those that see B's lit floor:
//      66 of 326 with every pair linked, 68 through the hierarchy; 108
//      when clusters straddled the walls), and C's total is below B's;
//   3. the same scene with the B–C doorway closed (one quad on each face
//      of the wall), every visible pair linked ("hierarchy": false): C is
//      exactly 0 again at every bounce count, so no light leaks through a
//      closed wall (link visibility rays and the direct light's shadow
//      rays stop at it);
//   4. the same through the cluster hierarchy (the scenes' default) at the
//      scene's own patch_size 0.45 (2958 patches): C is exactly 0 at every
//      bounce count too. There a k-means cluster may hold patches of both
//      rooms (B's and C's ceilings are coplanar, 0.1 m apart); unless such
//      a "divided" cluster is split (radiosity_cluster.h), a link that sees
//      it through representatives on one side carries the other side's
//      up-swept light through the wall (C got 1e-4 with 2 bounces and
//      1.8e-3 with 8 before the rule).
// ctest labels: quick,gpu -- 5.4 at load 2 (26 at load 7.5)
#include "test_util.h"

#include "geometry.h"
#include "scene.h"
#include "world_radiosity.h"

#include <math.h>
#include <stdlib.h>

// Room C is x >= 4.2 (docs/light.md, "Rooms"); B is 2.1 <= x <= 4.1; the
// wall between them is x in [4.1, 4.2] with the doorway at z in [1.9, 2.7],
// y below 2.0. Patches inside the doorway (jambs, lintel, threshold) belong
// to neither room.
#define ROOM_B_MIN_X 2.1
#define ROOM_B_MAX_X 4.1
#define ROOM_C_MIN_X 4.2
#define DOOR_Z0 1.9
#define DOOR_Z1 2.7
#define DOOR_H 2.0
#define EDGE 1e-4
#define TEST_PATCH_SIZE 0.8
// The closed doorway through the hierarchy at the scene's own patch_size,
// where clusters straddle the wall (docs/light.md, "Rooms").
#define HIERARCHY_PATCH_SIZE 0.45
// The spot's path takes 4 s round (scene "lights"[1].path).
static const double path_times[] = {0.0, 1.0, 2.0, 3.0};

typedef struct room_light {
    double total;      // sum over the room's patches of (r + g + b) * area
    double brightest;  // the largest r + g + b of one patch
    uint32_t patches, lit;
} room_light;

static bool in_room_c(const cs_patch *p)
{
    return p->center_area.x >= ROOM_C_MIN_X - EDGE;
}

static bool in_room_b(const cs_patch *p)
{
    return p->center_area.x >= ROOM_B_MIN_X - EDGE && p->center_area.x <= ROOM_B_MAX_X + EDGE;
}

// One frame at time t with `bounces`; the radiosity (vec4 a patch) into got.
static void solve_frame(cs_context *ctx, cs_scene *scene, cs_world_radiosity *part, uint32_t bounces, double t,
                        float *got)
{
    scene->geometry->lighting.bounces = bounces; // read when recording: no recompile
    scene->geometry->lighting.tolerance = 0.0;   // exactly `bounces`, converged or not
    cs_recorder rec;
    cs_recorder_create(ctx, "rooms radiosity", &rec);
    cs_recorder_begin(&rec);
    cs_world_radiosity_record(part, &rec, t);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    cs_buffer_download(ctx, cs_radiosity_gpu_result(&part->gpu), got, (VkDeviceSize)part->gpu.patch_count * 16, 0);
}

static room_light measure(const cs_world_radiosity *part, const float *got, bool (*in_room)(const cs_patch *))
{
    room_light m = {0};
    for (uint32_t i = 0; i < part->compiled.patch_count; i++) {
        const cs_patch *p = &part->compiled.patches[i];
        if (!in_room(p))
            continue;
        double sum = (double)got[4 * i] + got[4 * i + 1] + got[4 * i + 2];
        m.patches++;
        m.lit += !(sum == 0.0); // a NaN counts as lit
        m.total += sum * p->center_area.w;
        m.brightest = !(sum <= m.brightest) ? sum : m.brightest;
    }
    return m;
}

// Appends the quad (v0, v1, v2) + (v0, v2, v3) as one more element.
static void add_quad(cs_geometry *g, const float v[4][3], const float albedo[3])
{
    cs_tri *grown = realloc(g->tris, ((size_t)g->tri_count + 2) * sizeof *grown);
    CS_ASSERT(grown, "out of memory");
    g->tris = grown;
    const int corners[2][3] = {{0, 1, 2}, {0, 2, 3}};
    for (int t = 0; t < 2; t++) {
        cs_tri *tri = &g->tris[g->tri_count++];
        const float *a = v[corners[t][0]], *b = v[corners[t][1]], *c = v[corners[t][2]];
        *tri = (cs_tri){.v0 = {a[0], a[1], a[2], 0.0f},
                        .v1 = {b[0], b[1], b[2], 0.0f},
                        .v2 = {c[0], c[1], c[2], 0.0f},
                        .albedo = {albedo[0], albedo[1], albedo[2], 0.0f},
                        .info = {g->element_count, 0, 0, 0}};
    }
    g->element_count++;
}

// The B–C doorway closed by a quad on each face of the wall (x = 4.1
// facing B, x = 4.2 facing C), counter-clockwise about their fronts.
static void close_doorway(cs_geometry *g)
{
    const float grey[3] = {0.5f, 0.5f, 0.5f};
    const float towards_b[4][3] = {{4.1f, 0.0f, DOOR_Z0}, {4.1f, 0.0f, DOOR_Z1}, {4.1f, DOOR_H, DOOR_Z1},
                                   {4.1f, DOOR_H, DOOR_Z0}};
    const float towards_c[4][3] = {{4.2f, 0.0f, DOOR_Z0}, {4.2f, DOOR_H, DOOR_Z0}, {4.2f, DOOR_H, DOOR_Z1},
                                   {4.2f, 0.0f, DOOR_Z1}};
    add_quad(g, towards_b, grey);
    add_quad(g, towards_c, grey);
}

// The bounces the scene's frames gather (its "bounces" and "tolerance"),
// measured when the world is made (solve_frame changes the lighting's).
static uint32_t scene_bounces;

static void check_open_doorway(cs_context *ctx, cs_scene *scene)
{
    cs_world_radiosity part;
    cs_error err = {0};
    double t0 = cs_now_seconds();
    CS_ASSERT(cs_world_radiosity_create(ctx, scene, &part, &err), "%s", err.msg);
    uint32_t n = part.compiled.patch_count;
    printf("rooms_radiosity: %u patches, %u clusters, %u links, compiled in %.2f s\n", n, part.compiled.cluster_count,
           part.compiled.link_count, cs_now_seconds() - t0);
    scene_bounces = cs_world_radiosity_bounces(&part);
    printf("rooms_radiosity: a frame gathers %u bounces (tolerance %g)\n", scene_bounces,
           scene->geometry->lighting.tolerance);
    float *got = malloc((size_t)n * 16);
    CS_ASSERT(got, "out of memory");

    for (size_t k = 0; k < CS_ARRAY_COUNT(path_times); k++) {
        solve_frame(ctx, scene, &part, 0, path_times[k], got);
        room_light c = measure(&part, got, in_room_c), b = measure(&part, got, in_room_b);
        printf("t = %.1f s, 0 bounces: room C %u of %u patches lit (total %.3g); room B %u of %u lit, total %.3g\n",
               path_times[k], c.lit, c.patches, c.total, b.lit, b.patches, b.total);
        CHECK(c.patches > 0 && c.lit == 0, "t = %.1f s, 0 bounces: %u of room C's %u patches are lit", path_times[k],
              c.lit, c.patches);
        CHECK(b.lit > 0 && b.total > 0.0, "t = %.1f s: the spot lights nothing in room B", path_times[k]);
    }

    uint32_t bounce_counts[] = {1, scene_bounces, 8};
    for (size_t k = 0; k < CS_ARRAY_COUNT(bounce_counts); k++) {
        solve_frame(ctx, scene, &part, bounce_counts[k], 0.0, got);
        room_light c = measure(&part, got, in_room_c), b = measure(&part, got, in_room_b);
        printf("%u bounces: room C %u of %u patches lit, total %.3g, brightest %.3g; room B total %.3g (C / B %.4f)\n",
               bounce_counts[k], c.lit, c.patches, c.total, c.brightest, b.total, c.total / b.total);
        CHECK(c.total > 0.0 && c.lit > c.patches / 8, "%u bounces: room C gets no bounce light (%u of %u lit)",
              bounce_counts[k], c.lit, c.patches);
        CHECK(c.total < b.total, "%u bounces: room C (%.3g) is brighter than room B (%.3g)", bounce_counts[k],
              c.total, b.total);
    }
    scene->geometry->lighting.bounces = scene_bounces;
    free(got);
    cs_world_radiosity_destroy(ctx, &part);
}

static void check_closed_doorway(cs_context *ctx, cs_scene *scene, bool hierarchy)
{
    scene->geometry->lighting.hierarchy = hierarchy;
    scene->geometry->lighting.patch_size = hierarchy ? HIERARCHY_PATCH_SIZE : TEST_PATCH_SIZE;
    cs_world_radiosity part;
    cs_error err = {0};
    double t0 = cs_now_seconds();
    CS_ASSERT(cs_world_radiosity_create(ctx, scene, &part, &err), "%s", err.msg);
    uint32_t n = part.compiled.patch_count;
    printf("doorway closed, %s: %u patches, %u clusters, %u links, compiled in %.2f s\n",
           hierarchy ? "hierarchy" : "every pair", n, part.compiled.cluster_count, part.compiled.link_count,
           cs_now_seconds() - t0);
    float *got = malloc((size_t)n * 16);
    CS_ASSERT(got, "out of memory");
    uint32_t bounce_counts[] = {0, 1, scene_bounces, 8};
    for (size_t k = 0; k < CS_ARRAY_COUNT(bounce_counts); k++) {
        solve_frame(ctx, scene, &part, bounce_counts[k], 0.0, got);
        room_light c = measure(&part, got, in_room_c), b = measure(&part, got, in_room_b);
        printf("doorway closed, %s, %u bounces: room C %u of %u patches lit (total %.3g); room B total %.3g\n",
               hierarchy ? "hierarchy" : "every pair", bounce_counts[k], c.lit, c.patches, c.total, b.total);
        CHECK(c.lit == 0, "doorway closed, %s, %u bounces: light leaks into room C (%u patches, total %.3g)",
              hierarchy ? "hierarchy" : "every pair", bounce_counts[k], c.lit, c.total);
        CHECK(b.total > 0.0, "doorway closed: room B is dark");
    }
    free(got);
    cs_world_radiosity_destroy(ctx, &part);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_scene scene;
    cs_error err = {0};
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/rooms_radiosity.json", &scene, &err), "%s", err.msg);
    CS_ASSERT(scene.geometry && scene.geometry->lighting.bounces >= 1, "rooms_radiosity needs geometry and bounces");
    scene.geometry->lighting.patch_size = TEST_PATCH_SIZE;
    check_open_doorway(&ctx, &scene);
    close_doorway(scene.geometry);
    check_closed_doorway(&ctx, &scene, false);
    check_closed_doorway(&ctx, &scene, true);
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
