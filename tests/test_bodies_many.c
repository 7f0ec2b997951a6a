// test_bodies_many.c — many moving bodies in one WCSPH tank (issue 14):
// CS_BODIES_MAX (256) small boxes and spheres in a lattice of 4 layers, let
// go above a shallow layer of water at a small particle count, run until
// the lower layers are in the water and the upper ones land on them.
// Checks, after the run:
//   - every body took every substep (its substep counter) and fell:
//     integrate was not cut short (lavapipe leaves long loops early
//     without a word, docs/architecture.md; when integrate was one
//     invocation for all bodies, 64 bodies left bodies 1..63 unwritten,
//     so a world took at most 32; now it runs in stages, one invocation
//     per body where it can, bodies_shared.h CS_BODIES_STAGE_*);
//   - no body is through the floor (its lowest point >= floor - tolerance);
//   - no particle is inside a body deeper than the tolerance;
//   - no particle dropped an impulse (cs_bodies_overflow: a particle has
//     CS_BODY_RECORDS_PER_PARTICLE contact records) and no body dropped a
//     contact or pair (CS_BODY_CONTACTS_PER_BODY, CS_BODY_PAIRS_PER_BODY);
//   - two runs give the same bytes (bodies and particles);
// that a scene with CS_BODIES_MAX + 1 bodies is refused naming the key, and
// that the dropped-pair count works: a pile of spheres all overlapping one
// another, more than CS_BODY_PAIRS_PER_BODY of them, for one substep.
// ctest labels: slow,gpu -- ~31 (256 bodies, 1200 particles, 2 runs)

#include "test_util.h"

#include "bodies.h"
#include "world.h"

#define SIDE 8    // bodies per row: SIDE x LAYERS x SIDE
#define LAYERS 4
#define SUBSTEPS 60 // 0.12 s: every body falls ~7 cm (the lowest layer reaches the water)
#define MANY_BODIES CS_BODIES_MAX
#define SPACING 0.04
#define H 0.08

// The scene text with `count` bodies (boxes and spheres alternating, in a
// SIDE x SIDE lattice of layers 0.1 m apart above the water).
static char *many_scene(uint32_t count)
{
    size_t cap = 512 + (size_t)count * 256;
    char *text = malloc(cap);
    size_t n = (size_t)snprintf(text, cap,
                                "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[0.8,0.8,0.8]},\"dt\":0.002,"
                                "\"substeps\":%d,\"seed\":14,\"bodies\":[",
                                SUBSTEPS);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t x = i % SIDE, z = (i / SIDE) % SIDE, y = i / (SIDE * SIDE);
        double px = 0.06 + 0.095 * x, pz = 0.06 + 0.095 * z + 0.01 * (y & 1), py = 0.25 + 0.1 * y;
        const char *sep = i ? "," : "";
        if (i % 2 == 0)
            n += (size_t)snprintf(text + n, cap - n,
                                  "%s{\"shape\":\"box\",\"size\":[0.05,0.04,0.05],\"density\":%d,\"position\":[%.3f,%.3f,%.3f],"
                                  "\"orientation\":{\"axis\":[1,0,1],\"degrees\":%u},\"friction\":0.2}",
                                  sep, 400 + 100 * (int)(i % 5), px, py, pz, 7 * (i % 7));
        else
            n += (size_t)snprintf(text + n, cap - n,
                                  "%s{\"shape\":\"sphere\",\"radius\":0.025,\"density\":%d,\"position\":[%.3f,%.3f,%.3f],"
                                  "\"friction\":0.2}",
                                  sep, 400 + 100 * (int)(i % 5), px, py, pz);
    }
    snprintf(text + n, cap - n,
             "],\"fluids\":[{\"solver\":\"wcsph\",\"wcsph\":{},\"particle_spacing\":%g,\"smoothing_radius\":%g,"
             "\"materials\":[{\"rest_density\":1000,\"mass\":%g}],\"blocks\":[{\"min\":[0,0,0],\"max\":[0.8,0.12,0.8]}]}]}",
             SPACING, H, 1000.0 * SPACING * SPACING * SPACING);
    return text;
}

static void quat_rotate(const vec4 *q, const double v[3], double out[3])
{
    double u[3] = {q->x, q->y, q->z}, w = q->w;
    double t[3] = {2.0 * (u[1] * v[2] - u[2] * v[1]), 2.0 * (u[2] * v[0] - u[0] * v[2]), 2.0 * (u[0] * v[1] - u[1] * v[0])};
    double ut[3] = {u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2], u[0] * t[1] - u[1] * t[0]};
    for (int a = 0; a < 3; a++)
        out[a] = v[a] + w * t[a] + ut[a];
}

// Signed distance of world point x from body i at state st (< 0 inside):
// a sphere radially, a box its largest plane distance.
static double body_distance(const cs_body_props *p, const cs_body *body, const cs_body_state *st, const float *x)
{
    double r[3];
    for (int a = 0; a < 3; a++)
        r[a] = x[a] - (double)(&st->position.x)[a];
    if (body->shape == CS_BODY_SPHERE)
        return sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]) - body->radius;
    double best = -1e30;
    for (uint32_t k = 0; k < p->plane_count; k++) {
        double n[3];
        quat_rotate(&st->orientation, p->planes[k], n);
        best = fmax(best, n[0] * r[0] + n[1] * r[1] + n[2] * r[2] - p->planes[k][3]);
    }
    return best;
}

// The lowest y of body i at state st.
static double body_bottom(const cs_body_props *p, const cs_body *body, const cs_body_state *st)
{
    if (body->shape == CS_BODY_SPHERE)
        return st->position.y - body->radius;
    double lowest = 1e30;
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        double w[3];
        quat_rotate(&st->orientation, p->vertices[v], w);
        lowest = fmin(lowest, st->position.y + w[1]);
    }
    return lowest;
}

// Runs the scene; returns the states and positions (caller frees *pos).
static bool run_many(cs_context *ctx, cs_scene *scene, cs_body_state *states, float **pos, uint32_t *count,
                     cs_bodies_overflow_counts *overflow)
{
    char *text = many_scene(MANY_BODIES);
    cs_error err;
    bool ok = cs_scene_parse(text, strlen(text), "many.json", scene, &err);
    free(text);
    CHECK(ok, "%s", ok ? "" : err.msg);
    if (!ok)
        return false;
    cs_world world;
    ok = cs_world_create(ctx, scene, &world, &err);
    CHECK(ok, "%s", ok ? "" : err.msg);
    if (!ok)
        return false;
    cs_recorder rec;
    cs_recorder_create(ctx, "many bodies", &rec);
    cs_recorder_begin(&rec);
    cs_world_record_frame(&world, &rec);
    cs_recorder_submit_wait(&rec);
    cs_bodies_download(&world.bodies, states);
    *overflow = cs_bodies_overflow(&world.bodies);
    cs_particle_view v;
    world.fluids[0].ops->particles(world.fluids[0].state, &v);
    *count = v.count;
    *pos = malloc((size_t)v.count * 16);
    cs_buffer_download(ctx, v.positions, *pos, (size_t)v.count * 16, 0);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    return true;
}

static void check_run(const cs_scene *scene, const cs_body_state *states, const float *pos, uint32_t count,
                      cs_bodies_overflow_counts overflow)
{
    uint32_t stalled = 0, skipped = 0, through = 0, inside = 0;
    double deepest = 0.0, lowest = 1e30, tolerance = 0.5 * H;
    for (uint32_t i = 0; i < scene->body_count; i++) {
        const cs_body *body = &scene->bodies[i];
        cs_body_props p;
        cs_body_props_compute(scene, i, &p);
        skipped += states[i].motion.z != SUBSTEPS;
        stalled += !(states[i].position.y < body->position[1] - 0.01); // fell at least 1 cm
        double bottom = body_bottom(&p, body, &states[i]);
        lowest = fmin(lowest, bottom);
        through += !(bottom >= scene->domain_min[1] - 0.01 * H);
        for (uint32_t j = 0; j < count; j++) {
            double d = body_distance(&p, body, &states[i], pos + 4 * j);
            if (!(d > -tolerance))
                inside++;
            deepest = fmax(deepest, isnan(d) ? INFINITY : -d);
        }
    }
    printf("%u bodies, %u particles, %d substeps: lowest body point %.4f m, deepest particle %.3f h, "
           "%u impulses, %u contacts or pairs dropped\n",
           scene->body_count, count, SUBSTEPS, lowest, deepest / H, overflow.impulses, overflow.contacts);
    CHECK(skipped == 0, "%u bodies did not take all %d substeps (integrate cut short?)", skipped, SUBSTEPS);
    CHECK(stalled == 0, "%u bodies did not fall", stalled);
    CHECK(through == 0, "%u bodies are through the floor (lowest point %.4f)", through, lowest);
    CHECK(inside == 0, "%u particle-body pairs deeper than %.2f h (deepest %.3f h)", inside, tolerance / H, deepest / H);
    CHECK(overflow.impulses == 0, "%u particle-substeps touched more bodies than their %d contact records",
          overflow.impulses, CS_BODY_RECORDS_PER_PARTICLE);
    CHECK(overflow.contacts == 0, "%u contacts or pairs found past a body's %d contacts or %d pairs",
          overflow.contacts, CS_BODY_CONTACTS_PER_BODY, CS_BODY_PAIRS_PER_BODY);
}

static void test_too_many(void)
{
    char *text = many_scene(CS_BODIES_MAX + 1);
    cs_scene scene;
    cs_error err;
    bool ok = cs_scene_parse(text, strlen(text), "many.json", &scene, &err);
    free(text);
    CHECK(!ok, "a scene with %d bodies was accepted", CS_BODIES_MAX + 1);
    if (ok) {
        cs_scene_free(&scene);
        return;
    }
    printf("%d bodies: %s\n", CS_BODIES_MAX + 1, err.msg);
    CHECK(strstr(err.msg, "bodies") != NULL, "the message does not name the bodies key: %s", err.msg);
}

// PILE spheres, each overlapping every other, away from the walls, for one
// substep: body a finds PILE - 1 - a later bodies in reach, and keeps
// CS_BODY_PAIRS_PER_BODY of them.
#define PILE (CS_BODY_PAIRS_PER_BODY + 8)
static void test_pairs_dropped(cs_context *ctx)
{
    char text[16384];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[0.8,0.8,0.8]},\"dt\":0.002,"
                                "\"substeps\":1,\"seed\":14,\"bodies\":[");
    for (uint32_t i = 0; i < PILE; i++) // within 4 mm of each other, 5 cm spheres
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "%s{\"shape\":\"sphere\",\"radius\":0.025,\"density\":500,\"position\":[%.4f,%.4f,%.4f]}",
                              i ? "," : "", 0.4 + 0.0001 * i, 0.5 + 0.0001 * (i % 7), 0.4 + 0.0001 * (i % 5));
    snprintf(text + n, sizeof text - n,
             "],\"fluids\":[{\"solver\":\"wcsph\",\"wcsph\":{},\"particle_spacing\":%g,\"smoothing_radius\":%g,"
             "\"materials\":[{\"rest_density\":1000,\"mass\":%g}],\"blocks\":[{\"min\":[0,0,0],\"max\":[0.8,0.12,0.8]}]}]}",
             SPACING, H, 1000.0 * SPACING * SPACING * SPACING);
    cs_scene scene;
    cs_error err;
    bool ok = cs_scene_parse(text, strlen(text), "pile.json", &scene, &err);
    CHECK(ok, "%s", ok ? "" : err.msg);
    if (!ok)
        return;
    cs_world world;
    ok = cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "%s", ok ? "" : err.msg);
    if (ok) {
        cs_recorder rec;
        cs_recorder_create(ctx, "pile of bodies", &rec);
        cs_recorder_begin(&rec);
        cs_world_record_frame(&world, &rec);
        cs_recorder_submit_wait(&rec);
        cs_bodies_overflow_counts overflow = cs_bodies_overflow(&world.bodies);
        uint32_t expected = 0;
        for (uint32_t a = 0; a < PILE; a++)
            expected += PILE - 1 - a > CS_BODY_PAIRS_PER_BODY ? PILE - 1 - a - CS_BODY_PAIRS_PER_BODY : 0;
        printf("%d overlapping spheres, 1 substep: %u contacts or pairs dropped (pairs past %d: %u)\n", PILE,
               overflow.contacts, CS_BODY_PAIRS_PER_BODY, expected);
        CHECK(overflow.contacts == expected, "%u contacts or pairs dropped, expected the %u pairs past %d", overflow.contacts,
              expected, CS_BODY_PAIRS_PER_BODY);
        cs_recorder_destroy(&rec);
        cs_world_destroy(&world);
    }
    cs_scene_free(&scene);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    test_too_many();
    test_pairs_dropped(&ctx);
    static cs_scene scene_a, scene_b;
    static cs_body_state a[CS_BODIES_MAX], b[CS_BODIES_MAX];
    float *pa = NULL, *pb = NULL;
    uint32_t na = 0, nb = 0;
    cs_bodies_overflow_counts oa = {0}, ob = {0};
    if (run_many(&ctx, &scene_a, a, &pa, &na, &oa)) {
        check_run(&scene_a, a, pa, na, oa);
        if (run_many(&ctx, &scene_b, b, &pb, &nb, &ob)) {
            CHECK(memcmp(a, b, sizeof a) == 0, "two runs: body states differ");
            CHECK(na == nb && memcmp(pa, pb, (size_t)na * 16) == 0, "two runs: particle positions differ");
            cs_scene_free(&scene_b);
        }
        cs_scene_free(&scene_a);
    }
    free(pa), free(pb);
    return test_finish(&ctx);
}
