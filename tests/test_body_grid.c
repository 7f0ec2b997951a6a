// test_body_grid.c — the bodies' broad phase (bodies_shared.h cs_body_grid):
// every particle tests only the bodies listed in its grid cell, so a list
// that leaves out a body whose bounding sphere grown by h holds the point
// changes the results. Random bodies (boxes and spheres, some past the
// domain's faces) over a random WCSPH-sized grid; checks, for the lists
// built on the host (cs_bodies_set_build, the initial set) and for those
// broad.comp built on the GPU after a substep's integration (the set the
// fluids get):
//   - the grid is ready (the lists are complete) and its reach covers h;
//   - every list is strictly ascending (body order: the sums keep their bits);
//   - for random points (inside the domain, past its faces, and on the grown
//     spheres themselves), every body with |x - c|^2 <= (radius + h)^2 in
//     float, as the shaders test it, is in the point's cell's list;
// and that lists which do not fit in CS_BODY_GRID_ENTRIES leave the grid
// not ready (every particle then tests every body).
// ctest labels: quick,gpu -- ~5 (96 random bodies: host and GPU lists)
#include "test_util.h"

#include "bodies.h"
#include "body_grid.h"
#include "world.h"

#include <math.h>

#define BODIES 96
#define POINTS 20000
#define H 0.05

// Random bodies, centres in the domain [0, 0.8]^3, some reaching past it.
// Bodies larger than the domain must be static (a moving one is refused:
// it could never be inside), which the grid lists like any other.
static char *grid_scene(uint32_t count, double size_min, double size_max, bool fixed)
{
    size_t cap = 1024 + (size_t)count * 256;
    char *text = malloc(cap);
    size_t n = (size_t)snprintf(text, cap,
                                "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[0.8,0.8,0.8]},\"dt\":0.002,"
                                "\"substeps\":1,\"seed\":3,\"bodies\":[");
    for (uint32_t i = 0; i < count; i++) {
        double p[3], s = size_min + (size_max - size_min) * test_rand_unit();
        for (int a = 0; a < 3; a++)
            p[a] = 0.01 + 0.78 * test_rand_unit();
        const char *sep = i ? "," : "";
        if (test_rand_u32() % 2)
            n += (size_t)snprintf(text + n, cap - n,
                                  "%s{\"shape\":\"box\",\"size\":[%.4f,%.4f,%.4f],\"density\":500,\"position\":[%.4f,%.4f,%.4f],"
                                  "\"orientation\":{\"axis\":[1,%.3f,1],\"degrees\":%u},\"static\":%s}",
                                  sep, s, 0.6 * s, 0.8 * s, p[0], p[1], p[2], test_rand_unit(), test_rand_u32() % 90,
                                  fixed ? "true" : "false");
        else
            n += (size_t)snprintf(text + n, cap - n,
                                  "%s{\"shape\":\"sphere\",\"radius\":%.4f,\"density\":500,\"position\":[%.4f,%.4f,%.4f],"
                                  "\"static\":%s}",
                                  sep, 0.5 * s, p[0], p[1], p[2], fixed ? "true" : "false");
    }
    snprintf(text + n, cap - n,
             "],\"fluids\":[{\"solver\":\"wcsph\",\"wcsph\":{},\"particle_spacing\":%g,\"smoothing_radius\":%g,"
             "\"materials\":[{\"rest_density\":1000,\"mass\":%g}],\"blocks\":[{\"min\":[0,0,0],\"max\":[0.8,0.05,0.8]}]}]}",
             H / 2, H, 1000.0 * (H / 2) * (H / 2) * (H / 2));
    return text;
}

static bool load(cs_scene *scene, uint32_t count, double size_min, double size_max, bool fixed)
{
    char *text = grid_scene(count, size_min, size_max, fixed);
    cs_error err;
    bool ok = cs_scene_parse(text, strlen(text), "grid.json", scene, &err);
    free(text);
    CHECK(ok, "scene: %s", ok ? "" : err.msg);
    return ok;
}

// The point's cell as the shaders find it (bodies.glsl cs_body_grid_coords).
static uint32_t point_cell(const cs_body_grid *g, const float x[3])
{
    float origin[3] = {g->origin.x, g->origin.y, g->origin.z};
    uint32_t dims[3] = {g->dims.x, g->dims.y, g->dims.z}, c[3];
    for (int a = 0; a < 3; a++) {
        float f = floorf((x[a] - origin[a]) / g->origin.w), top = (float)(dims[a] - 1u);
        c[a] = (uint32_t)(f < 0.0f ? 0.0f : f > top ? top : f);
    }
    return (c[2] * dims[1] + c[1]) * dims[0] + c[0];
}

static bool listed(const cs_body_grid *g, uint32_t cell, uint32_t b)
{
    for (uint32_t k = g->starts[cell]; k < g->starts[cell + 1u]; k++)
        if (g->entries[k] == b)
            return true;
    return false;
}

// A random point: in the domain, past its faces, or on a body's grown sphere.
static void random_point(const cs_body_set *set, float x[3])
{
    uint32_t kind = test_rand_u32() % 3;
    if (kind < 2) {
        double lo = kind ? -0.3 : 0.0, span = kind ? 1.4 : 0.8;
        for (int a = 0; a < 3; a++)
            x[a] = (float)(lo + span * test_rand_unit());
        return;
    }
    const cs_body_gpu *b = &set->bodies[test_rand_u32() % set->counts.x];
    double d[3], len = 0.0;
    for (int a = 0; a < 3; a++)
        d[a] = test_rand_unit() - 0.5, len += d[a] * d[a];
    len = sqrt(len) + 1e-12;
    double r = (b->centre.w + H) * (1.0 - 1e-7 * test_rand_unit());
    float c[3] = {b->centre.x, b->centre.y, b->centre.z};
    for (int a = 0; a < 3; a++)
        x[a] = (float)(c[a] + r * d[a] / len);
}

static void check_grid(const cs_body_set *set, const char *what)
{
    const cs_body_grid *g = &set->grid;
    uint32_t cells = g->dims.x * g->dims.y * g->dims.z, count = set->counts.x;
    CHECK(g->dims.w == CS_BODY_GRID_READY, "%s: grid not ready (%u entries for %u cells)", what, g->starts[cells], cells);
    CHECK(g->reach.x >= (float)H, "%s: reach %g < h %g", what, (double)g->reach.x, H);
    CHECK(cells >= 1 && cells <= CS_BODY_GRID_CELLS, "%s: %u cells", what, cells);
    if (g->dims.w != CS_BODY_GRID_READY)
        return;
    uint32_t unordered = 0, missed = 0, tested = 0;
    for (uint32_t cell = 0; cell < cells; cell++)
        for (uint32_t k = g->starts[cell]; k < g->starts[cell + 1u]; k++)
            unordered += g->entries[k] >= count || (k > g->starts[cell] && g->entries[k] <= g->entries[k - 1u]);
    for (uint32_t p = 0; p < POINTS; p++) {
        float x[3];
        random_point(set, x);
        uint32_t cell = point_cell(g, x);
        for (uint32_t b = 0; b < count; b++) {
            const cs_body_gpu *body = &set->bodies[b];
            float r[3] = {x[0] - body->centre.x, x[1] - body->centre.y, x[2] - body->centre.z};
            float r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], reach = body->centre.w + (float)H;
            if (!(r2 <= reach * reach))
                continue;
            tested++;
            if (!listed(g, cell, b) && missed++ < 5)
                fprintf(stderr, "%s: body %u (r %g) not listed at (%g, %g, %g), cell %u\n", what, b,
                        (double)body->centre.w, (double)x[0], (double)x[1], (double)x[2], cell);
        }
    }
    CHECK(unordered == 0, "%s: %u list entries out of body order", what, unordered);
    CHECK(missed == 0, "%s: %u of %u (point, body) pairs within reach not listed", what, missed, tested);
    CHECK(tested > POINTS / 4, "%s: only %u pairs within reach (the points miss the bodies)", what, tested);
    printf("%s: %u x %u x %u cells of %.3f m, %u entries (%.1f a cell), %u pairs within reach all listed\n", what,
           g->dims.x, g->dims.y, g->dims.z, (double)g->origin.w, g->starts[cells], (double)g->starts[cells] / cells,
           tested);
}

// The lists broad.comp built after one frame (the bodies moved).
static void check_gpu(cs_context *ctx, cs_scene *scene)
{
    cs_world world;
    cs_error err;
    bool ok = cs_world_create(ctx, scene, &world, &err);
    CHECK(ok, "world: %s", ok ? "" : err.msg);
    if (!ok)
        return;
    cs_recorder rec;
    cs_recorder_create(ctx, "body grid", &rec);
    cs_recorder_begin(&rec);
    cs_world_record_frame(&world, &rec);
    cs_recorder_submit_wait(&rec);
    cs_body_set *set = malloc(sizeof *set);
    cs_buffer_download(ctx, &world.bodies.set, set, sizeof *set, 0);
    static cs_body_state states[CS_BODIES_MAX];
    cs_bodies_download(&world.bodies, states);
    CHECK(states[0].motion.z == 1, "body 0 took %u substeps, not 1 (the GPU lists would be the host's)",
          states[0].motion.z);
    check_grid(set, "gpu");
    free(set);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    static cs_scene scene;
    static cs_body_set set;
    cs_error err;
    if (load(&scene, BODIES, 0.02, 0.12, false)) {
        CHECK(cs_bodies_set_build(&scene, &set, &err), "set: %s", err.msg);
        check_grid(&set, "host");
        check_gpu(&ctx, &scene);
        cs_scene_free(&scene);
    }
    // 256 static bodies as large as the domain: every one in every cell,
    // more entries than fit, so the grid is not ready.
    if (load(&scene, CS_BODIES_MAX, 0.9, 1.0, true)) {
        CHECK(cs_bodies_set_build(&scene, &set, &err), "set: %s", err.msg);
        CHECK(set.grid.dims.w == 0u, "lists past CS_BODY_GRID_ENTRIES: the grid says ready");
        cs_scene_free(&scene);
    }
    return test_finish(&ctx);
}
