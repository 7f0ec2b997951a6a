// test_level_light.c — the demo level lit by radiosity (host/world/level_light.h)
// on the GPU (cs_radiosity_compile_gpu, cs_radiosity_gpu; lavapipe,
// validation on), the lights taken through the world's own path
// (cs_world_radiosity_lights_at):
//   - the light mapping: each room light sits inside its room, its window is
//     0 at and beyond the fade distance and positive just inside it;
//   - the hall lit by its own light only: its floor patches nearest the light
//     are brighter than the farthest ones;
//   - the hall's light with a short fade (4 m: direct light cannot reach the
//     east room, 6 m away through the doorway): the east room gets bounce
//     light through the doorway portal (> 0), and exactly 0 with 0 bounces or
//     with the doorway closed by a two-sided quad;
//   - a negative room light (TR1 stores the intensity signed; it darkens):
//     added to the hall, no patch gets brighter and the hall gets darker.
// ctest labels: quick,gpu -- 5
#include "test_util.h"

#include "level_light.h"
#include "light.h"
#include "radiosity_gpu.h"
#include "world_radiosity.h"

#include <stdlib.h>
#include <string.h>

#define UNITS 512.0
#define PATCH_SIZE 4.0
#define HALL 0u
#define EAST_ROOM 1u

// Only room `lit` keeps its light (nothing when lit is -1).
static void keep_one_light(cs_tr1_level *level, int lit)
{
    for (uint32_t r = 0; r < level->room_count; r++)
        if ((int)r != lit)
            level->rooms[r].light_count = 0;
}

static void check_light_mapping(const cs_tr1_level *level, const cs_level_mesh *mesh)
{
    for (uint32_t r = 0; r < level->room_count; r++) {
        for (uint32_t i = 0; i < level->rooms[r].light_count; i++) {
            const cs_tr1_light *t = &level->rooms[r].lights[i];
            cs_scene_light s = cs_level_light(t, UNITS);
            cs_scene_lighting lighting = {.light_count = 1};
            lighting.lights[0] = s;
            cs_light gpu_light;
            cs_area_light unused;
            uint32_t count, area_count;
            cs_world_radiosity_lights_at(&lighting, 0.0, &gpu_light, &count, &unused, &area_count);
            double fade = t->fade / UNITS, range = gpu_light.params.y, radius = gpu_light.position_radius.w;
            const cs_level_room *box = &mesh->rooms[r];
            const float *p = &gpu_light.position_radius.x;
            bool inside = true;
            for (int k = 0; k < 3; k++)
                inside = inside && p[k] > box->min[k] && p[k] < box->max[k];
            CHECK(inside, "room %u light at (%g, %g, %g) is outside its room", r, p[0], p[1], p[2]);
            double at_fade = cs_light_falloff(fade, radius, range, gpu_light.kind.y);
            double past_fade = cs_light_falloff(1.5 * fade, radius, range, gpu_light.kind.y);
            double inside_fade = cs_light_falloff(0.99 * fade, radius, range, gpu_light.kind.y);
            double half_fade = cs_light_falloff(0.5 * fade, radius, range, gpu_light.kind.y);
            printf("room %u light: intensity %d fade %u (%.2f m): falloff %.4g at fade/2, %.3g at 0.99 fade, %g at "
                   "fade, %g at 1.5 fade\n", r, t->intensity, t->fade, fade, half_fade, inside_fade, at_fade,
                   past_fade);
            CHECK(at_fade == 0.0 && past_fade == 0.0, "room %u: the window is not 0 at the fade distance", r);
            CHECK(inside_fade > 0.0 && half_fade > inside_fade, "room %u: no light inside the fade distance", r);
            // The irradiance right at the fade distance, facing the light.
            double q[3] = {p[0], p[1] - fade, p[2]}, up[3] = {0, 1, 0}, e[3];
            cs_light_irradiance(&gpu_light, q, up, e);
            CHECK(e[0] == 0.0, "room %u: irradiance %g at the fade distance", r, e[0]);
        }
    }
}

typedef struct lit_level {
    cs_geometry geometry;
    cs_bvh bvh;
    cs_radiosity_compiled compiled;
    float *radiosity; // vec4 per patch
} lit_level;

// Appends the quad (corners in order) facing both ways, 5 cm larger than
// the portal on every side so no ray slips between it and the walls.
static void close_portal(cs_geometry *g, const cs_level_portal *portal)
{
    double centre[3] = {0, 0, 0}, c[4][3];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++)
            centre[k] += 0.25 * portal->corners[i][k];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++) {
            double d = portal->corners[i][k] - centre[k];
            c[i][k] = portal->corners[i][k] + (d > 0 ? 0.05 : d < 0 ? -0.05 : 0.0);
        }
    static const int order[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 2, 1}, {0, 3, 2}};
    g->tris = realloc(g->tris, (g->tri_count + 4) * sizeof *g->tris);
    CS_ASSERT(g->tris, "out of memory");
    for (int t = 0; t < 4; t++) {
        cs_tri tri = {.albedo = {0.5f, 0.5f, 0.5f, 0}, .info = {g->element_count, 0, 0, 0}};
        vec4 *v[3] = {&tri.v0, &tri.v1, &tri.v2};
        for (int k = 0; k < 3; k++)
            *v[k] = (vec4){(float)c[order[t][k]][0], (float)c[order[t][k]][1], (float)c[order[t][k]][2], 0};
        g->tris[g->tri_count++] = tri;
    }
    g->element_count++;
}

// Builds, compiles and runs one radiosity frame of the level.
static void light_level(cs_context *ctx, const cs_tr1_level *level, const cs_level_mesh *mesh, uint32_t bounces,
                        const cs_level_portal *closed, lit_level *out)
{
    cs_error err = {0};
    CS_ASSERT(cs_level_radiosity_geometry(level, mesh, NULL, &out->geometry, &err), "%s", err.msg);
    if (closed)
        close_portal(&out->geometry, closed);
    const cs_geometry *g = &out->geometry;
    CS_ASSERT(cs_bvh_build(g->tris, g->tri_count, &out->bvh, &err), "%s", err.msg);
    CS_ASSERT(cs_radiosity_compile_gpu(ctx, g->tris, g->tri_count, PATCH_SIZE, &out->bvh, &out->compiled, &err),
              "%s", err.msg);
    cs_light lights[CS_MAX_SCENE_LIGHTS];
    cs_area_light areas[CS_MAX_SCENE_LIGHTS];
    uint32_t count, area_count;
    cs_world_radiosity_lights_at(&g->lighting, 0.0, lights, &count, areas, &area_count);
    cs_radiosity_gpu gpu;
    CS_ASSERT(cs_radiosity_gpu_create(ctx, &out->compiled, &out->bvh, CS_MAX(count, 1u), 1, &gpu, &err), "%s",
              err.msg);
    cs_radiosity_gpu_set_lights(ctx, &gpu, lights, count, areas, area_count, 1);
    cs_recorder rec;
    cs_recorder_create(ctx, "level radiosity", &rec);
    cs_recorder_begin(&rec);
    cs_radiosity_gpu_record(&rec, &gpu, bounces);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    uint32_t n = out->compiled.patch_count;
    out->radiosity = malloc(16 * (size_t)n);
    CS_ASSERT(out->radiosity, "out of memory");
    cs_buffer_download(ctx, cs_radiosity_gpu_result(&gpu), out->radiosity, 16 * (VkDeviceSize)n, 0);
    cs_radiosity_gpu_destroy(ctx, &gpu);
    printf("%u triangles, %u patches, %u links (patch size %g m, %u bounces, %u lights), compile %.2f s\n",
           g->tri_count, n, out->compiled.link_count, PATCH_SIZE, bounces, count, out->compiled.compile_seconds);
}

static void free_lit(lit_level *l)
{
    free(l->radiosity);
    cs_radiosity_free(&l->compiled);
    cs_bvh_free(&l->bvh);
    cs_geometry_free(&l->geometry);
}

static uint32_t patch_room(const lit_level *l, uint32_t patch)
{
    return l->geometry.tris[l->compiled.patch_tri[patch]].info.x / 2; // two elements per room, no scene elements
}

static double luminance(const lit_level *l, uint32_t patch)
{
    const float *b = &l->radiosity[4 * patch];
    return (b[0] + b[1] + b[2]) / 3.0;
}

typedef struct ranked {
    double distance, value;
} ranked;

static int by_distance(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    return a->distance < b->distance ? -1 : a->distance > b->distance;
}

static void check_near_brighter(cs_context *ctx, cs_tr1_level *level, const cs_level_mesh *mesh)
{
    keep_one_light(level, (int)HALL);
    lit_level l;
    light_level(ctx, level, mesh, 2, NULL, &l);
    cs_scene_light light = cs_level_light(&level->rooms[HALL].lights[0], UNITS);
    ranked *floor = malloc(l.compiled.patch_count * sizeof *floor);
    uint32_t n = 0;
    for (uint32_t i = 0; i < l.compiled.patch_count; i++) {
        const cs_patch *p = &l.compiled.patches[i];
        if (patch_room(&l, i) != HALL || p->normal.y < 0.99f || l.geometry.tris[l.compiled.patch_tri[i]].info.x % 2)
            continue;
        double d[3] = {p->center_area.x - light.position[0], p->center_area.y - light.position[1],
                       p->center_area.z - light.position[2]};
        floor[n++] = (ranked){sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), luminance(&l, i)};
    }
    qsort(floor, n, sizeof *floor, by_distance);
    double near = 0, far = 0;
    uint32_t third = n / 3;
    for (uint32_t i = 0; i < third; i++) {
        near += floor[i].value / third;
        far += floor[n - 1 - i].value / third;
    }
    printf("hall floor: %u patches; nearest third (%.2f-%.2f m) mean B %.4g, farthest third (%.2f-%.2f m) %.4g\n",
           n, floor[0].distance, floor[third - 1].distance, near, floor[n - third].distance,
           floor[n - 1].distance, far);
    CHECK(third >= 4, "only %u hall floor patches", n);
    CHECK(near > 1.2 * far && far > 0.0, "patches near the light (%g) not brighter than far ones (%g)", near, far);
    free(floor);
    free_lit(&l);
}

// The hall lit by its own light, then again with a second light of
// negative intensity beside it (read signed: before, -4096 was read as
// 61440 and clamped to 8191, the brightest light there is). Wanted: no
// patch brighter than without it, and the hall darker in all.
static void check_negative_light(cs_context *ctx, cs_tr1_level *level, const cs_level_mesh *mesh)
{
    keep_one_light(level, (int)HALL);
    cs_tr1_room *hall = &level->rooms[HALL];
    lit_level plain;
    light_level(ctx, level, mesh, 2, NULL, &plain);
    cs_tr1_light *saved = hall->lights;
    cs_tr1_light two[2] = {saved[0], saved[0]};
    two[1].x -= 1024; // a sector west of the positive one, same height and fade
    two[1].intensity = -4096;
    hall->lights = two;
    hall->light_count = 2;
    lit_level dark;
    light_level(ctx, level, mesh, 2, NULL, &dark);
    hall->lights = saved;
    hall->light_count = 1;
    CS_ASSERT(plain.compiled.patch_count == dark.compiled.patch_count, "the patches differ");
    uint32_t brighter = 0;
    double worst = 0, sum_plain = 0, sum_dark = 0;
    for (uint32_t i = 0; i < plain.compiled.patch_count; i++) {
        double a = luminance(&plain, i), b = luminance(&dark, i);
        // Same patches, same links, same order of sums: the negative light
        // can only lower every term, so any rise is a real one.
        if (b > a) {
            brighter++;
            worst = CS_MAX(worst, b - a);
        }
        sum_plain += a;
        sum_dark += b;
    }
    printf("negative light (-4096) in the hall: sum B %.6g without, %.6g with; %u of %u patches brighter "
           "(worst +%g)\n", sum_plain, sum_dark, brighter, plain.compiled.patch_count, worst);
    CHECK(brighter == 0, "a negative light made %u patches brighter (worst +%g)", brighter, worst);
    CHECK(sum_dark < 0.95 * sum_plain, "a negative light did not darken the level (%g vs %g)", sum_dark, sum_plain);
    free_lit(&plain);
    free_lit(&dark);
}

static double room_sum(const lit_level *l, uint32_t room, uint32_t *patches)
{
    double sum = 0;
    *patches = 0;
    for (uint32_t i = 0; i < l->compiled.patch_count; i++)
        if (patch_room(l, i) == room) { // the closing quad's element is past every room's
            sum += luminance(l, i);
            (*patches)++;
        }
    return sum;
}

// The hall's light moved to its west side with a 4 m fade: no point of the
// east room is within 4 m of it.
static void short_hall_light(cs_tr1_level *level)
{
    keep_one_light(level, (int)HALL);
    cs_tr1_light *light = &level->rooms[HALL].lights[0];
    light->x = level->rooms[HALL].x + 1024;
    light->fade = 2048;
}

static void check_bounce_through_portal(cs_context *ctx, cs_tr1_level *level, const cs_level_mesh *mesh)
{
    short_hall_light(level);
    const cs_level_portal *doorway = NULL;
    for (uint32_t p = 0; p < mesh->portal_count; p++)
        if (mesh->portals[p].room == HALL && mesh->portals[p].to == EAST_ROOM)
            doorway = &mesh->portals[p];
    CS_ASSERT(doorway, "the demo level has no hall -> east room portal");
    struct {
        const char *name;
        uint32_t bounces;
        const cs_level_portal *closed;
    } cases[] = {{"open, 2 bounces", 2, NULL}, {"open, 0 bounces", 0, NULL}, {"closed, 2 bounces", 2, doorway}};
    double sums[3], hall[3];
    for (int c = 0; c < 3; c++) {
        lit_level l;
        light_level(ctx, level, mesh, cases[c].bounces, cases[c].closed, &l);
        uint32_t east_patches, hall_patches;
        sums[c] = room_sum(&l, EAST_ROOM, &east_patches);
        hall[c] = room_sum(&l, HALL, &hall_patches);
        printf("%s: east room (no light of its own) sum B %.6g over %u patches; hall %.6g over %u\n", cases[c].name,
               sums[c], east_patches, hall[c], hall_patches);
        free_lit(&l);
    }
    CHECK(hall[0] > 0 && hall[1] > 0 && hall[2] > 0, "the hall is dark");
    CHECK(sums[0] > 1e-4 * hall[0], "no bounce light reached the east room through the doorway (%g)", sums[0]);
    CHECK(sums[1] == 0.0, "the east room has light with 0 bounces (%g): direct light reached it", sums[1]);
    CHECK(sums[2] == 0.0, "the east room has light with its doorway closed (%g)", sums[2]);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_tr1_level level;
    cs_tr1_generate_demo(&level);
    cs_level_mesh mesh;
    cs_error err = {0};
    CS_ASSERT(cs_level_mesh_build(&level, UNITS, &mesh, &err), "%s", err.msg);
    check_light_mapping(&level, &mesh);
    check_near_brighter(&ctx, &level, &mesh);
    check_negative_light(&ctx, &level, &mesh);
    check_bounce_through_portal(&ctx, &level, &mesh);
    cs_level_mesh_free(&mesh);
    cs_tr1_free(&level);
    return test_finish(&ctx);
}
