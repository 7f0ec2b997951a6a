// test_level_doorways.c — fluid flows from room to room of a level built as
// the retail levels are: through a wall portal whose rooms overlap by their
// door sectors, then down a floor portal (docs/levels.md, "Fluid in a
// level").
//
// The ringed fixture (cs_tr1_generate_ringed) at 4096 units/m, a sector
// 0.25 m: the west room's floor is x 0.25..1.25, the middle's x 1.25..2.25
// (the wall portal at x 1.25, z -0.75..-0.25, y 0..0.5), the lower room's
// x 1.75..2.25, y -0.5..0, under the middle's floor portal. A PBF dam break
// of 0.5 x 0.3 x 0.5 m fills the west room's west half; after 1.2 s:
// - some water is in the middle room past its door sectors (x > 1.5 m:
//   the west room's door sector spans x 1.25..1.5, and a level field that
//   counted it as the west room's open space put a thin wall at x 1.5);
// - some water went down the floor portal (y < 0);
// - no particle centre is in the solid (the level's distance field baked
//   again here at a quarter of the spacing, below -0.1 spacing) and none is
//   not finite.
// ctest labels: slow,gpu -- 22 (ringed rooms: through a wall portal and a floor portal)
#include "test_util.h"

#include "file_io.h"
#include "level_sdf.h"
#include "level_tr1.h"
#include "world.h"

#include <unistd.h>

#define UNITS 4096.0
#define SPACING 0.025
#define FRAMES 300
#define PAST_DOOR_X 1.5   // metres: the far side of the west room's door sector
#define TOLERANCE_SPACINGS 0.1

static bool write_fixture(const char *path)
{
    cs_tr1_level level;
    cs_tr1_generate_ringed(&level);
    uint8_t *bytes = NULL;
    size_t size = 0;
    bool ok = cs_tr1_write(&level, &bytes, &size);
    cs_tr1_free(&level);
    CHECK(ok, "writing the ringed fixture");
    if (!ok)
        return false;
    cs_error err;
    ok = cs_write_whole_file(path, bytes, size, false, &err);
    free(bytes);
    CHECK(ok, "%s", ok ? "" : err.msg);
    return ok;
}

int main(void)
{
    test_seed();
    cs_context ctx;
    test_context(&ctx);
    char path[256];
    snprintf(path, sizeof path, "/tmp/cistern_ringed_%ld.phd", (long)getpid());
    if (!write_fixture(path))
        return test_finish(&ctx);
    char json[4096];
    snprintf(json, sizeof json,
             "{ \"dim\": 3, \"domain\": {\"min\": [0, -0.75, -1], \"max\": [2.5, 0.75, 0]},"
             "  \"gravity\": [0, -9.81, 0], \"dt\": 0.002, \"substeps\": 2, \"seed\": 7,"
             "  \"level\": {\"file\": \"%s\", \"units_per_metre\": %g},"
             "  \"fluids\": [{ \"solver\": \"pbf\", \"particle_spacing\": %g, \"smoothing_radius\": %g,"
             "    \"materials\": [{\"name\": \"water\", \"mass\": %g, \"rest_density\": 1000}],"
             "    \"blocks\": [{\"min\": [0.25, 0, -0.75], \"max\": [0.75, 0.3, -0.25]}],"
             "    \"pbf\": {\"iterations\": 4} }] }",
             path, UNITS, SPACING, 2 * SPACING, 1000.0 * SPACING * SPACING * SPACING);
    cs_scene scene;
    cs_world world;
    cs_error err;
    bool ok = cs_scene_parse(json, strlen(json), "inline.json", &scene, &err);
    CHECK(ok, "scene: %s", ok ? "" : err.msg);
    if (ok) {
        ok = cs_world_create(&ctx, &scene, &world, &err);
        CHECK(ok, "world: %s", ok ? "" : err.msg);
        if (!ok)
            cs_scene_free(&scene);
    }
    if (ok) {
        cs_recorder rec;
        cs_recorder_create(&ctx, "doorways", &rec);
        for (uint32_t f = 0; f < FRAMES; f++) {
            cs_recorder_begin(&rec);
            cs_world_record_frame(&world, &rec);
            cs_recorder_submit_wait(&rec);
        }
        cs_recorder_destroy(&rec);

        // The check's own field: the level baked again, finer.
        cs_level_space space;
        ok = cs_level_space_load(path, UNITS, &space, &err);
        CHECK(ok, "%s", ok ? "" : err.msg);
        cs_level_grid grid;
        if (ok) {
            ok = cs_level_grid_plan(&space, scene.domain_min, scene.domain_max, 0.25 * SPACING, 4 * SPACING, &grid,
                                    &err);
            CHECK(ok, "%s", ok ? "" : err.msg);
        }
        if (ok) {
            float *values = malloc((size_t)grid.dims[0] * grid.dims[1] * grid.dims[2] * sizeof(float));
            cs_level_sdf_bake(&space, &grid, values);
            cs_particle_view v;
            world.fluids[0].ops->particles(world.fluids[0].state, &v);
            float *pos = malloc((size_t)v.count * 16 + 16);
            cs_buffer_download(&ctx, v.positions, pos, (VkDeviceSize)v.count * 16, 0);
            uint32_t past_door = 0, below = 0, in_solid = 0, non_finite = 0;
            double deepest = INFINITY;
            for (uint32_t i = 0; i < v.count; i++) {
                double p[3] = {pos[i * 4], pos[i * 4 + 1], pos[i * 4 + 2]};
                if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
                    non_finite++;
                    continue;
                }
                double d = cs_level_sdf_sample(&grid, values, p);
                deepest = fmin(deepest, d);
                in_solid += d < -TOLERANCE_SPACINGS * SPACING;
                past_door += p[0] > PAST_DOOR_X + SPACING;
                below += p[1] < -SPACING;
            }
            printf("%u particles after %.2f s: %u in the middle room past its door sectors (x > %.3f m), %u down "
                   "the floor portal (y < %.3f m), %u in the solid (deepest %+.4f m), %u not finite\n",
                   v.count, FRAMES * 2 * 0.002, past_door, PAST_DOOR_X + SPACING, below, -SPACING, in_solid, deepest,
                   non_finite);
            CHECK(v.count > 0 && past_door >= v.count / 20,
                  "only %u of %u particles passed the west room's door sector into the middle room", past_door,
                  v.count);
            CHECK(below > 0, "no particle went down the floor portal into the lower room");
            CHECK(in_solid == 0, "%u particle centres in the level's solid (deepest %.4f m)", in_solid, deepest);
            CHECK(non_finite == 0, "%u particles not finite", non_finite);
            free(pos);
            free(values);
        }
        cs_level_space_free(&space);
        cs_world_destroy(&world);
        cs_scene_free(&scene);
    }
    remove(path);
    return test_finish(&ctx);
}
