// test_world.c — the world: several fluids of different solvers in one scene,
// on one substep clock (host/world/world.h).
//
//  - two_fluids_2d (a Clavet SPH pool and a PBF dam break, each in its own
//    box) runs: both fluids move, neither loses mass or particles, no NaN,
//    nothing leaves its domain; the world's stats are the sum / max of the
//    fluids'; every pass of a fluid carries its name;
//  - fluids do not interact (stated in world.h): each fluid of the two-fluid
//    world ends with the same bits as that fluid alone in a world of one;
//  - two runs of the two-fluid world give the same bits;
//  - a world of one fluid records exactly the passes of its solver, without
//    a prefix (stats.csv columns and benchmarks keep their names);
//  - an unknown solver in fluids[1] is refused naming the key and listing the
//    solvers of this build, and the fluid created before it is released
//    (device memory back where it was, no validation message);
//  - a frame of 150 substeps (more than 1024 passes in one recording) runs
//    for PBF, Clavet SPH and WCSPH.
// ctest labels: slow,gpu -- 17
#include "test_util.h"

#include "world.h"

#include <math.h>

#define FRAMES 12

static bool load(const char *text_or_name, bool is_text, cs_scene *scene)
{
    cs_error err;
    bool ok = is_text ? cs_scene_parse(text_or_name, strlen(text_or_name), "inline.json", scene, &err)
                      : cs_scene_load(text_or_name, scene, &err);
    CHECK(ok, "%s", ok ? "" : err.msg);
    return ok;
}

// Positions and velocities of one fluid's particle view, as bytes.
typedef struct fluid_bits {
    uint32_t count;
    float *pos, *vel;
} fluid_bits;

static fluid_bits read_fluid(cs_context *ctx, cs_world_fluid *f)
{
    cs_particle_view v;
    f->ops->particles(f->state, &v);
    fluid_bits b = {.count = v.count, .pos = malloc((size_t)v.count * 16 + 16), .vel = malloc((size_t)v.count * 16 + 16)};
    cs_buffer_download(ctx, v.positions, b.pos, (size_t)v.count * 16, 0);
    cs_buffer_download(ctx, v.velocities, b.vel, (size_t)v.count * 16, 0);
    return b;
}

static bool same_bits(const fluid_bits *a, const fluid_bits *b)
{
    return a->count == b->count && memcmp(a->pos, b->pos, (size_t)a->count * 16) == 0 &&
           memcmp(a->vel, b->vel, (size_t)a->count * 16) == 0;
}

static void free_bits(fluid_bits *b) { free(b->pos), free(b->vel); }

// Runs `frames` frames; returns false if the world could not be made.
static bool run_world(cs_context *ctx, const cs_scene *scene, cs_world *world, cs_recorder *rec, uint32_t frames)
{
    cs_error err;
    bool ok = cs_world_create(ctx, scene, world, &err);
    CHECK(ok, "world of %s: %s", scene->name, ok ? "" : err.msg);
    if (!ok)
        return false;
    for (uint32_t i = 0; i < frames; i++) {
        cs_recorder_begin(rec);
        cs_world_record_frame(world, rec);
        cs_recorder_submit_wait(rec);
    }
    return true;
}

static void test_two_fluids(cs_context *ctx)
{
    cs_scene scene;
    if (!load("two_fluids_2d", false, &scene))
        return;
    CHECK(scene.fluid_count == 2 && strcmp(scene.fluids[0].solver, "sph") == 0 &&
              strcmp(scene.fluids[1].solver, "pbf") == 0,
          "two_fluids_2d holds an sph and a pbf fluid");
    cs_recorder rec;
    cs_recorder_create(ctx, "world test", &rec);
    cs_world world;
    cs_sim_stats start[2], end[2], total;
    if (!cs_world_create(ctx, &scene, &world, &(cs_error){{0}})) {
        CHECK(false, "two_fluids_2d: world not created");
        cs_recorder_destroy(&rec);
        cs_scene_free(&scene);
        return;
    }
    cs_world_stats(&world, &total, start);
    for (uint32_t i = 0; i < FRAMES; i++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(&world, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_world_stats(&world, &total, end);
    CHECK(world.substep_index == (uint64_t)FRAMES * scene.substeps, "clock: %llu substeps",
          (unsigned long long)world.substep_index);
    CHECK(fabs(cs_world_time(&world) - FRAMES * scene.substeps * (double)scene.dt) < 1e-9, "time %g",
          cs_world_time(&world));
    for (int f = 0; f < 2; f++) {
        const char *name = scene.fluids[f].fluid_name;
        CHECK(end[f].particles == start[f].particles && end[f].particles > 0, "%s: %u -> %u particles", name,
              start[f].particles, end[f].particles);
        CHECK(end[f].total_mass == start[f].total_mass, "%s: mass %.9g -> %.9g", name, start[f].total_mass,
              end[f].total_mass);
        CHECK(end[f].non_finite == 0 && end[f].outside_domain == 0, "%s: %u non-finite, %u outside its domain",
              name, end[f].non_finite, end[f].outside_domain);
        CHECK(end[f].kinetic_energy > 0 && end[f].max_speed > 0.1, "%s: moves (max speed %g)", name,
              end[f].max_speed);
        printf("%s (%s): %u particles, max speed %.3f, mean |rho/rho0-1| %.4f after %u frames\n", name,
               scene.fluids[f].solver, end[f].particles, end[f].max_speed, end[f].mean_density_error, FRAMES);
    }
    CHECK(total.particles == end[0].particles + end[1].particles, "total particles %u", total.particles);
    CHECK(total.total_mass == end[0].total_mass + end[1].total_mass, "total mass");
    CHECK(total.kinetic_energy == end[0].kinetic_energy + end[1].kinetic_energy, "total energy");
    CHECK(total.max_speed == fmax(end[0].max_speed, end[1].max_speed), "max speed over fluids");
    double mean = (end[0].mean_density_error * end[0].particles + end[1].mean_density_error * end[1].particles) /
                  total.particles;
    CHECK(fabs(total.mean_density_error - mean) <= 1e-12 * fmax(mean, 1.0), "weighted mean density error");

    // Every pass of the last frame belongs to a named fluid.
    uint32_t pool = 0, column = 0;
    for (uint32_t p = 0; p < rec.pass_count; p++) {
        const char *n = rec.passes[p].name;
        pool += strncmp(n, "pool: ", 6) == 0;
        column += strncmp(n, "column: ", 8) == 0;
    }
    CHECK(pool > 0 && column > 0 && pool + column == rec.pass_count, "passes: %u pool, %u column of %u", pool,
          column, rec.pass_count);
    CHECK(cs_recorder_pass_ms(&rec, "column: pbf: lambda") >= 0 && cs_recorder_pass_ms(&rec, "pool: sph: relax") >= 0,
          "named passes are timed");

    fluid_bits together[2] = {read_fluid(ctx, &world.fluids[0]), read_fluid(ctx, &world.fluids[1])};
    cs_world_destroy(&world);

    // Again: the same bits.
    cs_world again;
    if (run_world(ctx, &scene, &again, &rec, FRAMES)) {
        for (int f = 0; f < 2; f++) {
            fluid_bits b = read_fluid(ctx, &again.fluids[f]);
            CHECK(same_bits(&together[f], &b), "%s: a second run differs", scene.fluids[f].fluid_name);
            free_bits(&b);
        }
        cs_world_destroy(&again);
    }

    // Each fluid alone, in a world of one: the same bits as together.
    for (uint32_t f = 0; f < 2; f++) {
        cs_scene alone = scene;
        alone.fluids = &scene.fluids[f];
        alone.fluid_count = 1;
        cs_world solo;
        if (!run_world(ctx, &alone, &solo, &rec, FRAMES))
            continue;
        fluid_bits b = read_fluid(ctx, &solo.fluids[0]);
        CHECK(same_bits(&together[f], &b), "%s alone differs from %s in the two-fluid world",
              scene.fluids[f].fluid_name, scene.fluids[f].fluid_name);
        // A world of one names passes as its solver does.
        bool bare = rec.pass_count > 0;
        for (uint32_t p = 0; p < rec.pass_count; p++)
            bare &= strstr(rec.passes[p].name, scene.fluids[f].fluid_name) != rec.passes[p].name;
        CHECK(bare, "%s alone: passes without a prefix (first: %s)", scene.fluids[f].fluid_name,
              rec.pass_count ? rec.passes[0].name : "none");
        free_bits(&b);
        cs_world_destroy(&solo);
    }
    free_bits(&together[0]), free_bits(&together[1]);
    cs_recorder_destroy(&rec);
    cs_scene_free(&scene);
}

static void test_refusals(cs_context *ctx)
{
    static const char *const text =
        "{\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,1]},\"fluids\":["
        "{\"solver\":\"sph\",\"sph\":{},\"particle_spacing\":0.05,\"blocks\":[{\"min\":[0,0],\"max\":[1,0.5]}]},"
        "{\"solver\":\"pbf\",\"pbf\":{},\"particle_spacing\":0.05,\"blocks\":[{\"min\":[0,0],\"max\":[1,0.5]}]}]}";
    cs_scene scene;
    if (!load(text, true, &scene))
        return;
    // The parser refuses a name it does not know (test_scene_keys); the
    // world's own look-up in the registry stays for a scene a caller changed
    // after parsing, and must still release what it made.
    snprintf(scene.fluids[1].solver, sizeof scene.fluids[1].solver, "flip");
    uint64_t before = ctx->bytes_allocated;
    cs_world world;
    cs_error err = {{0}};
    bool ok = cs_world_create(ctx, &scene, &world, &err);
    CHECK(!ok, "a world with solver \"flip\" must be refused");
    CHECK(strstr(err.msg, "inline.json: fluids[1].solver: \"flip\" is not built into this cistern") &&
              strstr(err.msg, "\"pbf\"") && strstr(err.msg, "\"reint\""),
          "message names the key and the solvers: %s", err.msg);
    CHECK(ctx->bytes_allocated == before, "fluids[0] released after the refusal: %llu bytes left",
          (unsigned long long)(ctx->bytes_allocated - before));
    CHECK(world.fluid_count == 0, "nothing left in the world");
    cs_scene_free(&scene);
}

// Gives a file and all its fluids `substeps` substeps per frame, keeping dt
// (the shipped parameters are tuned for it; a longer frame, same physics).
static void set_substeps(cs_scene *scene, uint32_t substeps)
{
    scene->substeps = substeps;
    for (uint32_t i = 0; i < scene->fluid_count; i++) {
        scene->fluids[i].substeps = substeps;
    }
}

// A frame of many substeps is one recording of more than 1024 passes (the
// recorder's old fixed budget, which crashed PBF at 114 substeps and made
// SPH and WCSPH refuse the scene): it runs, every pass is timed, and the
// fluids keep their invariants (count, finite, inside, no speed beyond a
// dam-break front as tall as the domain).
static void test_long_frames(cs_context *ctx)
{
    static const char *const scenes[] = {"two_fluids_2d", "wcsph_tank_3d"};
    for (size_t k = 0; k < CS_ARRAY_COUNT(scenes); k++) {
        cs_scene scene;
        if (!load(scenes[k], false, &scene))
            continue;
        set_substeps(&scene, 150);
        cs_world world;
        cs_recorder rec;
        cs_recorder_create(ctx, "long frame", &rec);
        if (run_world(ctx, &scene, &world, &rec, 1)) {
            cs_sim_stats st, per[CS_MAX_FLUIDS];
            cs_world_stats(&world, &st, per);
            for (uint32_t i = 0; i < world.fluid_count; i++)
                fprintf(stderr, "  %s: %u particles, max speed %.3f m/s\n", scene.fluids[i].fluid_name,
                        per[i].particles, per[i].max_speed);
            // Most passes dispatch real work and must show time; a pass with
            // nothing to do (no emitter) may read 0 but never negative.
            uint32_t timed = 0, blocks = 0, negative = 0;
            for (uint32_t i = 0; i < rec.pass_count; i++) {
                timed += rec.passes[i].ms > 0;
                negative += !(rec.passes[i].ms >= 0);
            }
            for (uint32_t i = 0; i < scene.fluid_count; i++)
                blocks += cs_scene_block_particles(&scene.fluids[i]);
            // The fastest water in these scenes is a dam-break front: Ritter's
            // 2 sqrt(g H), with H the domain's height, plus 10%.
            double fall = 1.1 * 2.0 * sqrt(9.8 * (scene.domain_max[1] - scene.domain_min[1]));
            fprintf(stderr, "long frame %s: 150 substeps, %u passes in one recording, %u particles, max speed %.3f\n",
                    scenes[k], rec.pass_count, st.particles, st.max_speed);
            CHECK(rec.pass_count > 1024 && negative == 0 && (!rec.timestamps || timed * 2 > rec.pass_count),
                  "%s: %u passes, %u with time > 0, %u negative or NaN", scenes[k], rec.pass_count, timed, negative);
            CHECK(st.non_finite == 0 && st.outside_domain == 0 && st.particles >= blocks && st.max_speed < fall,
                  "%s: %u particles (blocks %u), %u NaN, %u outside, max speed %.3f (bound %.3f)", scenes[k],
                  st.particles, blocks, st.non_finite, st.outside_domain, st.max_speed, fall);
            cs_world_destroy(&world);
        }
        cs_recorder_destroy(&rec);
        cs_scene_free(&scene);
    }
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_two_fluids(&ctx);
    test_refusals(&ctx);
    test_long_frames(&ctx);
    return test_finish(&ctx);
}
