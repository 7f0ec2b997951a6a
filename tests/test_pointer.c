// test_pointer.c — the pointer pulls and pushes a particle fluid (scene.h
// "pointer"; docs/scenes.md, "The pointer"), from a scene track headless.
//
// A 2D pool (a box L wide, water 0.3 L deep) for each particle solver
// (PBF, WCSPH, Clavet SPH in the seed's units), run for T = 0.5 s sqrt(L):
// - pull: the point 0.15 L above the surface, radius 0.25 L: the highest
//   particle over the middle rises at least 0.08 L higher than without the
//   pointer (it stays near the surface otherwise);
// - push: the point 0.02 L above the surface's middle, radius 0.15 L: a
//   dent; particles within 0.1 L of the point fall under half as many as
//   without (a push inside the pool only compresses what cannot go);
// - a track that is off (mode 0) until after the run: every bit as the run
//   without the pointer;
// - the pull twice: bit-identical positions.
// cs_world_pointer_at: the track's key in force at t (before the first key,
// between keys, after the last), and the window's pointer over the track
// while it is held. cs_camera_unproject, the window's cursor to the world.
// ctest labels: slow,gpu -- 22 (the pointer pulls and pushes each particle solver)
#include "test_util.h"

#include "camera.h"
#include "world.h"

typedef struct solver_case {
    const char *solver;
    double box;               // L, metres
    double spacing, dt;
    uint32_t substeps;
    const char *material;     // the solver's material keys
    const char *block;        // the solver's own block
} solver_case;

static const solver_case cases[] = {
    {"pbf", 1.0, 0.02, 0.002, 4, "\"rest_density\": 1000", "\"pbf\": {}"},
    {"wcsph", 1.0, 0.02, 0.002, 4, "\"mass\": 0.4, \"rest_density\": 1000, \"speed_of_sound\": 20, \"viscosity\": 0.05",
     "\"wcsph\": {}"},
    {"sph", 4.0, 0.095, 0.0071429, 2,
     "\"mass\": 1.0, \"rest_density\": 82, \"stiffness\": 0.08, \"near_stiffness\": 0.1, \"viscosity_linear\": 0.5, "
     "\"viscosity_quadratic\": 1.0",
     "\"sph\": {\"split\": 2}"},
};

typedef enum pointer_kind { NONE, PULL, PUSH, OFF_UNTIL_LATER } pointer_kind;

static void scene_json(const solver_case *c, pointer_kind kind, char *out, size_t size)
{
    double L = c->box;
    char pointer[256] = "";
    if (kind == PULL)
        snprintf(pointer, sizeof pointer, "\"pointer\": {\"radius\": %g, \"track\": [[0, %g, %g, 0, 1]]},", 0.25 * L,
                 0.5 * L, 0.45 * L);
    else if (kind == PUSH)
        snprintf(pointer, sizeof pointer, "\"pointer\": {\"radius\": %g, \"track\": [[0, %g, %g, 0, -1]]},", 0.15 * L,
                 0.5 * L, 0.32 * L);
    else if (kind == OFF_UNTIL_LATER)
        snprintf(pointer, sizeof pointer,
                 "\"pointer\": {\"radius\": %g, \"track\": [[0, %g, %g, 0, 0], [100, %g, %g, 0, 1]]},", 0.25 * L,
                 0.5 * L, 0.45 * L, 0.5 * L, 0.45 * L);
    snprintf(out, size,
             "{ \"dim\": 2, \"domain\": {\"min\": [0, 0], \"max\": [%g, %g]}, \"gravity\": [0, -9.81],"
             "  \"dt\": %g, \"substeps\": %u, \"seed\": 1, %s"
             "  \"fluids\": [{ \"solver\": \"%s\", \"particle_spacing\": %g,"
             "    \"materials\": [{\"name\": \"water\", %s}],"
             "    \"blocks\": [{\"min\": [0, 0], \"max\": [%g, %g]}], %s }] }",
             L, L, c->dt, c->substeps, pointer, c->solver, c->spacing, c->material, L, 0.3 * L, c->block);
}

// Runs the case and downloads the positions (vec4 each) into a malloc'd
// array; NULL when the scene or the world fails (a CHECK says why).
static float *run(cs_context *ctx, const solver_case *c, pointer_kind kind, uint32_t *count)
{
    char json[2048];
    scene_json(c, kind, json, sizeof json);
    cs_scene scene;
    cs_world world;
    cs_error err;
    bool ok = cs_scene_parse(json, strlen(json), "pointer.json", &scene, &err);
    CHECK(ok, "%s scene: %s", c->solver, ok ? "" : err.msg);
    if (!ok)
        return NULL;
    ok = cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "%s world: %s", c->solver, ok ? "" : err.msg);
    if (!ok) {
        cs_scene_free(&scene);
        return NULL;
    }
    uint32_t frames = (uint32_t)ceil(0.5 * sqrt(c->box) / (c->dt * c->substeps));
    cs_recorder rec;
    cs_recorder_create(ctx, "pointer", &rec);
    for (uint32_t f = 0; f < frames; f++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(&world, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_recorder_destroy(&rec);
    cs_particle_view v;
    world.fluids[0].ops->particles(world.fluids[0].state, &v);
    float *pos = malloc((size_t)v.count * 16 + 16);
    cs_buffer_download(ctx, v.positions, pos, (VkDeviceSize)v.count * 16, 0);
    *count = v.count;
    cs_world_destroy(&world);
    cs_scene_free(&scene);
    return pos;
}

static double top_over_middle(const float *pos, uint32_t n, double L)
{
    double top = -INFINITY;
    for (uint32_t i = 0; i < n; i++)
        if (fabs(pos[i * 4] - 0.5 * L) < 0.1 * L)
            top = fmax(top, pos[i * 4 + 1]);
    return top;
}

static uint32_t near_point(const float *pos, uint32_t n, double x, double y, double r)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += hypot(pos[i * 4] - x, pos[i * 4 + 1] - y) < r;
    return k;
}

static void check_solver(cs_context *ctx, const solver_case *c)
{
    double L = c->box;
    uint32_t n0 = 0, n1 = 0, n2 = 0, n3 = 0, n4 = 0;
    float *none = run(ctx, c, NONE, &n0), *pull = run(ctx, c, PULL, &n1), *push = run(ctx, c, PUSH, &n2);
    float *off = run(ctx, c, OFF_UNTIL_LATER, &n3), *again = run(ctx, c, PULL, &n4);
    if (none && pull && push && off && again) {
        double top0 = top_over_middle(none, n0, L), top1 = top_over_middle(pull, n1, L);
        uint32_t near0 = near_point(none, n0, 0.5 * L, 0.32 * L, 0.1 * L);
        uint32_t near2 = near_point(push, n2, 0.5 * L, 0.32 * L, 0.1 * L);
        printf("%-6s %u particles: the top over the middle %.3f L (no pointer %.3f L); %u within 0.1 L of the "
               "push point (no pointer %u)\n",
               c->solver, n0, top1 / L, top0 / L, near2, near0);
        CHECK(top1 > top0 + 0.08 * L, "%s: the pull raised the water over the middle to %.3f L (without it %.3f L)",
              c->solver, top1 / L, top0 / L);
        CHECK(near0 > 0 && 2 * near2 < near0, "%s: the push left %u particles near its point (without it %u)",
              c->solver, near2, near0);
        CHECK(n3 == n0 && memcmp(off, none, (size_t)n0 * 16) == 0,
              "%s: a track that is off for the whole run differs from no pointer", c->solver);
        CHECK(n4 == n1 && memcmp(again, pull, (size_t)n1 * 16) == 0, "%s: two pulls differ", c->solver);
    }
    free(none);
    free(pull);
    free(push);
    free(off);
    free(again);
}

// The track's key in force, and the window's pointer over it.
static void check_track(cs_context *ctx)
{
    const char *json = "{ \"dim\": 3, \"domain\": {\"min\": [0, 0, 0], \"max\": [1, 1, 1]},"
                       "  \"pointer\": {\"track\": [[0.5, 0.1, 0.2, 0.3, 1], [1.0, 0.4, 0.5, 0.6, -1], "
                       "[2.0, 0.4, 0.5, 0.6, 0]]},"
                       "  \"fluids\": [{ \"solver\": \"pbf\", \"particle_spacing\": 0.1, \"pbf\": {},"
                       "    \"blocks\": [{\"min\": [0, 0, 0], \"max\": [1, 0.3, 1]}] }] }";
    cs_scene scene;
    cs_world world;
    cs_error err;
    bool ok = cs_scene_parse(json, strlen(json), "track.json", &scene, &err);
    CHECK(ok, "track scene: %s", ok ? "" : err.msg);
    if (!ok)
        return;
    ok = cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "track world: %s", ok ? "" : err.msg);
    if (ok) {
        const struct {
            double t;
            int32_t mode;
            float x;
        } want[] = {{0.0, 0, 0.0f}, {0.49, 0, 0.0f}, {0.5, 1, 0.1f}, {0.99, 1, 0.1f},
                    {1.0, -1, 0.4f}, {1.5, -1, 0.4f}, {2.0, 0, 0.4f}, {9.0, 0, 0.4f}};
        for (size_t k = 0; k < CS_ARRAY_COUNT(want); k++) {
            float at[3];
            int32_t mode;
            cs_world_pointer_at(&world, want[k].t, at, &mode);
            CHECK(mode == want[k].mode && (mode == 0 || at[0] == want[k].x),
                  "t = %g: mode %d at x %g (want %d at %g)", want[k].t, mode, at[0], want[k].mode, want[k].x);
        }
        const float held[3] = {0.7f, 0.8f, 0.9f};
        cs_world_set_pointer(&world, held, -1);
        float at[3];
        int32_t mode;
        cs_world_pointer_at(&world, 0.6, at, &mode);
        CHECK(mode == -1 && at[0] == 0.7f && at[2] == 0.9f, "held: mode %d at (%g, %g, %g)", mode, at[0], at[1], at[2]);
        cs_world_set_pointer(&world, NULL, 0);
        cs_world_pointer_at(&world, 0.6, at, &mode);
        CHECK(mode == 1 && at[0] == 0.1f, "let go: the track again (mode %d)", mode);
        cs_world_destroy(&world);
    }
    cs_scene_free(&scene);
}

// The window's half (cs_camera_unproject): a world point projected to a
// pixel and brought back lands on the view's plane under that pixel. 2D:
// the same x, y at z = 0; 3D: on the plane through the target facing the
// camera, projecting to the same pixel. Random points, seeded.
static void check_unproject(void)
{
    const char *scenes[2] = {
        "{ \"dim\": 2, \"domain\": {\"min\": [0, 0], \"max\": [2, 1]},"
        "  \"fluids\": [{ \"solver\": \"pbf\", \"particle_spacing\": 0.1, \"pbf\": {},"
        "    \"blocks\": [{\"min\": [0, 0], \"max\": [1, 0.5]}] }] }",
        "{ \"dim\": 3, \"domain\": {\"min\": [0, 0, 0], \"max\": [2, 1, 1]},"
        "  \"camera\": {\"position\": [3, 2, 4], \"target\": [1, 0.4, 0.5]},"
        "  \"fluids\": [{ \"solver\": \"pbf\", \"particle_spacing\": 0.1, \"pbf\": {},"
        "    \"blocks\": [{\"min\": [0, 0, 0], \"max\": [1, 0.5, 1]}] }] }",
    };
    for (int d = 0; d < 2; d++) {
        cs_scene scene;
        cs_error err;
        bool ok = cs_scene_parse(scenes[d], strlen(scenes[d]), "camera.json", &scene, &err);
        CHECK(ok, "camera scene: %s", ok ? "" : err.msg);
        if (!ok)
            continue;
        cs_view_camera cam;
        cs_camera_from_scene(&cam, &scene);
        cs_camera_matrices m;
        const uint32_t width = 640, height = 360;
        cs_camera_matrices_get(&cam, (double)width / height, &m);
        double worst = 0.0;
        for (int k = 0; k < 200; k++) {
            float p[3] = {(float)(2.0 * test_rand_unit()), (float)test_rand_unit(),
                          d == 0 ? 0.0f : (float)test_rand_unit()};
            double pixel[2], again[2];
            if (!cs_camera_project(&m, width, height, p, pixel, NULL))
                continue;
            float q[3];
            ok = cs_camera_unproject(&cam, &m, width, height, pixel, q);
            CHECK(ok, "%dD: pixel (%g, %g) does not unproject", 2 + d, pixel[0], pixel[1]);
            if (!ok)
                continue;
            if (d == 0) {
                worst = fmax(worst, fmax(fabs(q[0] - p[0]), fabs(q[1] - p[1])));
                CHECK(q[2] == 0.0f, "2D: z %g", q[2]);
            } else {
                cs_camera_project(&m, width, height, q, again, NULL);
                worst = fmax(worst, fmax(fabs(again[0] - pixel[0]), fabs(again[1] - pixel[1])) * 1e-3);
                double off = 0.0, len = 0.0;
                for (int a = 0; a < 3; a++) {
                    double f = cam.target[a] - cam.position[a];
                    off += (q[a] - cam.target[a]) * f;
                    len += f * f;
                }
                CHECK(fabs(off) / sqrt(len) < 1e-4, "3D: (%g, %g, %g) is %g off the target's plane", q[0], q[1], q[2],
                      off / sqrt(len));
            }
        }
        printf("unproject %dD: worst %s %.2e\n", 2 + d, d == 0 ? "|q - p| (m)" : "pixel error / 1000", worst);
        CHECK(worst < 1e-4, "%dD: unproject off by %g", 2 + d, worst);
        cs_scene_free(&scene);
    }
}

int main(void)
{
    test_seed();
    check_unproject();
    cs_context ctx;
    test_context(&ctx);
    check_track(&ctx);
    for (size_t i = 0; i < CS_ARRAY_COUNT(cases); i++)
        check_solver(&ctx, &cases[i]);
    return test_finish(&ctx);
}
