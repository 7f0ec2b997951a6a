// test_level_fluid.c — every particle solver (PBF, Clavet SPH, WCSPH) keeps
// its particles in a level's open space (docs/levels.md, "Fluid in a level").
//
// The demo level (levels/cistern_demo.phd), scaled so that a sector is S
// metres: a block of water in the hall next to the east doorway, the
// domain box around the hall's east half and the lower east room, so the box
// alone would let the water fall through the hall's floor (solid below it)
// and through the wall beside the doorway. After the run every particle
// centre must be in open space: its distance to the level's solid, from an
// independent bake at a finer cell (level_sdf.h), at least -TOLERANCE; and
// some water must have gone through the doorway (x past the east wall).
// PBF runs twice and must give the same bits. Without the level collision
// (cs_collide_level disabled) every solver fails the first check: PBF 353,
// WCSPH 502, SPH 439 particle centres in the solid, as deep as the check's
// field reaches (its band, 4 spacings).
// ctest labels: slow,gpu -- 20
#include "test_util.h"

#include "level_sdf.h"
#include "world.h"

#define DEMO_PATH CS_SOURCE_DIR "/levels/cistern_demo.phd"

typedef struct solver_case {
    const char *solver;
    double units_per_metre;   // the level's scale: a sector is 1024 / this
    double spacing, h, dt;
    uint32_t substeps, frames;
    double block_height;      // sectors
    const char *material;     // the solver's material keys
    const char *block;        // the solver's own block
} solver_case;

static const solver_case cases[] = {
    {"pbf", 4096, 0.02, 0.04, 0.001, 5, 60, 0.4, "\"mass\": 0.008, \"rest_density\": 1000",
     "\"pbf\": {\"iterations\": 4}"},
    {"wcsph", 4096, 0.02, 0.048, 0.00025, 20, 60, 0.4,
     "\"mass\": 0.008, \"rest_density\": 1000, \"speed_of_sound\": 35, \"tait_gamma\": 7, \"viscosity\": 0.03",
     "\"wcsph\": {}"},
    {"sph", 1024, 0.12, 0.3, 0.0071429, 1, 90, 1.5,
     "\"mass\": 1.0, \"rest_density\": 457, \"stiffness\": 0.003, \"near_stiffness\": 0.003", "\"sph\": {}"},
};

// What a particle centre may be inside the solid: a tenth of the spacing.
#define TOLERANCE_SPACINGS 0.1

static void scene_json(const solver_case *c, char *out, size_t size)
{
    double s = 1024.0 / c->units_per_metre; // a sector, metres
    double sp = c->spacing;
    snprintf(out, size,
             "{ \"dim\": 3, \"domain\": {\"min\": [%g, %g, %g], \"max\": [%g, %g, %g]},"
             "  \"gravity\": [0, -9.81, 0], \"dt\": %g, \"substeps\": %u, \"seed\": 3,"
             "  \"level\": {\"file\": \"%s\", \"units_per_metre\": %g},"
             "  \"fluids\": [{ \"solver\": \"%s\", \"particle_spacing\": %g, \"smoothing_radius\": %g,"
             "    \"materials\": [{\"name\": \"water\", %s}],"
             "    \"blocks\": [{\"min\": [%g, 0, %g], \"max\": [%g, %g, %g], \"material\": \"water\"}],"
             "    %s }] }",
             2 * s, -s, -4 * s, 6 * s, 2 * s, 0.0, c->dt, c->substeps, DEMO_PATH, c->units_per_metre, c->solver, sp,
             c->h, c->material, 3 * s, -2.4 * s, 4 * s - 0.5 * sp, c->block_height * s, -1.6 * s, c->block);
}

// The level's distance at every particle of the world's one fluid.
typedef struct level_check {
    double min_distance;
    uint32_t inside_solid, through_doorway, count;
} level_check;

static level_check check_particles(cs_context *ctx, cs_world *world, const solver_case *c, float *pos_out)
{
    level_check out = {.min_distance = INFINITY};
    cs_level_space space;
    cs_error err;
    bool ok = cs_level_space_load(DEMO_PATH, c->units_per_metre, &space, &err);
    CHECK(ok, "%s", err.msg);
    if (!ok)
        return out;
    const cs_scene *fs = world->fluids[0].scene;
    cs_level_grid grid;
    ok = cs_level_grid_plan(&space, fs->domain_min, fs->domain_max, 0.25 * c->spacing, 4 * c->spacing, &grid, &err);
    CHECK(ok, "%s", err.msg);
    float *values = malloc((size_t)grid.dims[0] * grid.dims[1] * grid.dims[2] * sizeof(float));
    cs_level_sdf_bake(&space, &grid, values);
    cs_particle_view v;
    world->fluids[0].ops->particles(world->fluids[0].state, &v);
    float *pos = malloc((size_t)v.count * 16 + 16);
    cs_buffer_download(ctx, v.positions, pos, (VkDeviceSize)v.count * 16, 0);
    double east_wall = 4 * 1024.0 / c->units_per_metre;
    for (uint32_t i = 0; i < v.count; i++) {
        double p[3] = {pos[i * 4], pos[i * 4 + 1], pos[i * 4 + 2]};
        double d = cs_level_sdf_sample(&grid, values, p);
        out.min_distance = fmin(out.min_distance, d);
        out.inside_solid += d < -TOLERANCE_SPACINGS * c->spacing || !isfinite(d);
        out.through_doorway += p[0] > east_wall;
    }
    out.count = v.count;
    if (pos_out)
        memcpy(pos_out, pos, (size_t)v.count * 16);
    free(pos);
    free(values);
    cs_level_space_free(&space);
    return out;
}

static bool run(cs_context *ctx, const solver_case *c, cs_scene *scene, cs_world *world)
{
    char json[4096];
    scene_json(c, json, sizeof json);
    cs_error err;
    bool ok = cs_scene_parse(json, strlen(json), "inline.json", scene, &err);
    CHECK(ok, "%s scene: %s", c->solver, ok ? "" : err.msg);
    if (!ok)
        return false;
    ok = cs_world_create(ctx, scene, world, &err);
    CHECK(ok, "%s world: %s", c->solver, ok ? "" : err.msg);
    if (!ok) {
        cs_scene_free(scene);
        return false;
    }
    cs_recorder rec;
    cs_recorder_create(ctx, "level fluid", &rec);
    for (uint32_t f = 0; f < c->frames; f++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(world, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_recorder_destroy(&rec);
    return true;
}

static void check_solver(cs_context *ctx, const solver_case *c)
{
    cs_scene scene;
    cs_world world;
    if (!run(ctx, c, &scene, &world))
        return;
    cs_sim_stats stats;
    cs_world_stats(&world, &stats, NULL);
    uint32_t n = world.fluids[0].ops ? stats.particles : 0;
    float *first = malloc((size_t)n * 16 + 16);
    level_check k = check_particles(ctx, &world, c, first);
    printf("%-6s %u particles after %.2f s: min distance to the level's solid %+.4f m (margin %.3f), %u inside "
           "solid, %u through the doorway, %u non-finite\n",
           c->solver, k.count, c->frames * c->substeps * c->dt, k.min_distance, 0.5 * c->spacing, k.inside_solid,
           k.through_doorway, stats.non_finite);
    CHECK(k.count > 0 && k.inside_solid == 0, "%s: %u of %u particle centres inside the level's solid (deepest %.4f m)",
          c->solver, k.inside_solid, k.count, k.min_distance);
    CHECK(k.through_doorway > 0, "%s: no particle went through the doorway", c->solver);
    CHECK(stats.non_finite == 0, "%s: %u non-finite particles", c->solver, stats.non_finite);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
    if (strcmp(c->solver, "pbf") == 0) {
        // Deterministic: the same run gives the same positions, bit for bit.
        if (run(ctx, c, &scene, &world)) {
            float *second = malloc((size_t)n * 16 + 16);
            level_check again = check_particles(ctx, &world, c, second);
            CHECK(again.count == n && memcmp(first, second, (size_t)n * 16) == 0, "pbf: a second run differs");
            free(second);
            cs_world_destroy(&world);
            cs_scene_free(&scene);
        }
    }
    free(first);
}

int main(void)
{
    test_seed();
    cs_context ctx;
    test_context(&ctx);
    for (size_t i = 0; i < CS_ARRAY_COUNT(cases); i++)
        check_solver(&ctx, &cases[i]);
    return test_finish(&ctx);
}
