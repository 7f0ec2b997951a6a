// test_body_contact.c — rigid bodies against the domain walls, against
// each other, and on a scripted path (pipelines/bodies/bodies.h,
// shaders/bodies/integrate.comp):
//  1. Level: a heavy box dropped tilted 20 degrees onto the floor lands on a
//     corner and must lie flat (tilt < 2 degrees) after 1.5 s: only a torque
//     from the floor contact turns it (translation-only contact left it on
//     its corner, tilted, for good).
//  2. Stack: a box dropped onto a resting box, turned 45 degrees about the
//     vertical (crossed edges: no corner of either is inside the other) and
//     tipped 10 degrees, and a sphere dropped onto a static box: after every
//     frame no surface point of one body is inside another deeper than
//     CONTACT_TOLERANCE (a 9 x 9 grid on every box face, 256 points on the
//     sphere: denser than the contact points the solver uses), and the top
//     box ends above the bottom one.
//  3. Paddle: a kinematic box on a looping path through a WCSPH pool:
//     after every frame its centre is the path's point at the world's time
//     (double reference, float tolerance), its orientation never changes,
//     and it stirs the fluid (|vx| above 0.3 m/s, below 4 m/s: it moves at
//     1 m/s).
// Each world holds a small fluid (a world needs one); in 1 and 2 it sits in
// a corner away from the bodies.
// ctest labels: slow,gpu -- 31
#include "test_util.h"

#include "bodies.h"
#include "world.h"

#include <float.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

// How deep one body may be inside another after a substep's contacts
// (metres; the boxes are 0.1-0.3 m): edge points every quarter edge catch
// crossed edges before they are deeper than this.
#define CONTACT_TOLERANCE 0.004

static bool make_world(cs_context *ctx, const char *text, cs_scene *scene, cs_world *world)
{
    return test_world_from_json(ctx, text, "inline.json", scene, world);
}

static void run_frame(cs_world *world, cs_recorder *rec)
{
    cs_recorder_begin(rec);
    cs_world_record_frame(world, rec);
    cs_recorder_submit_wait(rec);
}

// v rotated by the unit quaternion q (x, y, z, w).
static void quat_rotate(const vec4 *q, const double v[3], double out[3])
{
    double u[3] = {q->x, q->y, q->z}, w = q->w;
    double t[3] = {2.0 * (u[1] * v[2] - u[2] * v[1]), 2.0 * (u[2] * v[0] - u[0] * v[2]), 2.0 * (u[0] * v[1] - u[1] * v[0])};
    double ut[3] = {u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2], u[0] * t[1] - u[1] * t[0]};
    for (int a = 0; a < 3; a++)
        out[a] = v[a] + w * t[a] + ut[a];
}

// The angle (degrees) between the vertical and the body axis nearest to it:
// 0 when a box lies on a face.
static double tilt_degrees(const cs_body_state *s)
{
    double best = 0.0;
    for (int a = 0; a < 3; a++) {
        double e[3] = {0, 0, 0}, w[3];
        e[a] = 1.0;
        quat_rotate(&s->orientation, e, w);
        best = fmax(best, fabs(w[1]));
    }
    return acos(fmin(best, 1.0)) * 180.0 / M_PI;
}

// ---- 1. level -------------------------------------------------------------------

#define LEVEL "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[0.8,0.8,0.8]},\"dt\":0.002,\"substeps\":10," \
    "\"bodies\":[{\"shape\":\"box\",\"size\":[0.18,0.12,0.18],\"density\":2000,\"position\":[0.4,0.3,0.4]," \
    "\"orientation\":{\"axis\":[1,0,1],\"degrees\":20}}]," \
    "\"fluids\":[{\"solver\":\"wcsph\",\"wcsph\":{},\"particle_spacing\":0.04," \
    "\"materials\":[{\"rest_density\":1000,\"mass\":0.064}],\"blocks\":[{\"min\":[0,0,0],\"max\":[0.08,0.08,0.08]}]}]}"

static void test_level(cs_context *ctx)
{
    cs_scene scene;
    cs_world world;
    if (!make_world(ctx, LEVEL, &scene, &world))
        return;
    cs_recorder rec;
    cs_recorder_create(ctx, "level", &rec);
    cs_body_state s;
    double first_touch_tilt = -1.0;
    for (uint32_t f = 1; f <= 75; f++) {
        run_frame(&world, &rec);
        cs_bodies_download(&world.bodies, &s);
        if (first_touch_tilt < 0.0 && s.position.y < 0.2)
            first_touch_tilt = tilt_degrees(&s);
        if (f % 15 == 0)
            printf("level: t = %.2f s, centre y %.4f, tilt %.2f degrees\n", f * 10 * 0.002, s.position.y,
                   tilt_degrees(&s));
    }
    double tilt = tilt_degrees(&s);
    // Lying flat, its centre is half its height (0.06 m) above the floor.
    printf("level: after 1.5 s tilt %.3f degrees (at the floor %.1f), centre y %.5f (flat: 0.06)\n", tilt,
           first_touch_tilt, s.position.y);
    CHECK(tilt < 2.0, "a heavy box dropped tilted still stands %.2f degrees off level after 1.5 s", tilt);
    CHECK(fabs(s.position.y - 0.06) < 0.003, "the box's centre is %.4f m up, not 0.06 (lying flat)", s.position.y);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

// ---- 2. stack -------------------------------------------------------------------

#define STACK "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[1,1,1]},\"dt\":0.002,\"substeps\":5," \
    "\"bodies\":[{\"shape\":\"box\",\"size\":[0.3,0.1,0.3],\"density\":1000,\"position\":[0.5,0.06,0.5]}," \
    "{\"shape\":\"box\",\"size\":[0.2,0.1,0.2],\"density\":2000,\"position\":[0.52,0.4,0.5]," \
    "\"orientation\":{\"quaternion\":[0.0849,0.3696,0.0352,0.9246]},\"velocity\":[0,-1,0]}," \
    "{\"shape\":\"box\",\"static\":true,\"size\":[0.2,0.1,0.2],\"position\":[0.2,0.05,0.8]}," \
    "{\"shape\":\"sphere\",\"radius\":0.06,\"density\":3000,\"position\":[0.23,0.45,0.8],\"velocity\":[0,-1,0]}]," \
    "\"fluids\":[{\"solver\":\"wcsph\",\"wcsph\":{},\"particle_spacing\":0.04," \
    "\"materials\":[{\"rest_density\":1000,\"mass\":0.064}],\"blocks\":[{\"min\":[0.9,0,0],\"max\":[0.98,0.08,0.08]}]}]}"

// Body i of the scene at state s: a box (half extents) or a sphere.
typedef struct placed {
    bool sphere;
    double half[3], radius, centre[3];
    vec4 q;
} placed;

static placed place(const cs_scene *scene, uint32_t i, const cs_body_state *s)
{
    const cs_body *b = &scene->bodies[i];
    placed p = {.sphere = b->shape == CS_BODY_SPHERE, .radius = b->radius, .q = s->orientation};
    for (int a = 0; a < 3; a++) {
        p.half[a] = 0.5 * b->size[a];
        p.centre[a] = (&s->position.x)[a];
    }
    return p;
}

// How deep world point x is inside p (0 outside).
static double depth_in(const placed *p, const double x[3])
{
    double r[3] = {x[0] - p->centre[0], x[1] - p->centre[1], x[2] - p->centre[2]};
    if (p->sphere)
        return fmax(0.0, p->radius - sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]));
    vec4 inv = {-p->q.x, -p->q.y, -p->q.z, p->q.w};
    double local[3], depth = DBL_MAX;
    quat_rotate(&inv, r, local);
    for (int a = 0; a < 3; a++)
        depth = fmin(depth, p->half[a] - fabs(local[a]));
    return fmax(depth, 0.0);
}

// The deepest of p's surface points inside q.
static double deepest_surface_point(const placed *p, const placed *q)
{
    double worst = 0.0;
    if (p->sphere) {
        for (int k = 0; k < 256; k++) { // a Fibonacci sphere
            double z = 1.0 - (k + 0.5) / 128.0, rho = sqrt(1.0 - z * z), phi = k * 2.399963229728653;
            double x[3] = {p->centre[0] + p->radius * rho * cos(phi), p->centre[1] + p->radius * z,
                           p->centre[2] + p->radius * rho * sin(phi)};
            worst = fmax(worst, depth_in(q, x));
        }
        return worst;
    }
    for (int axis = 0; axis < 3; axis++)
        for (int side = -1; side <= 1; side += 2)
            for (int i = 0; i <= 8; i++)
                for (int j = 0; j <= 8; j++) {
                    double local[3];
                    local[axis] = side * p->half[axis];
                    local[(axis + 1) % 3] = p->half[(axis + 1) % 3] * (i / 4.0 - 1.0);
                    local[(axis + 2) % 3] = p->half[(axis + 2) % 3] * (j / 4.0 - 1.0);
                    double w[3];
                    quat_rotate(&p->q, local, w);
                    double x[3] = {p->centre[0] + w[0], p->centre[1] + w[1], p->centre[2] + w[2]};
                    worst = fmax(worst, depth_in(q, x));
                }
    return worst;
}

static void test_stack(cs_context *ctx)
{
    cs_scene scene;
    cs_world world;
    if (!make_world(ctx, STACK, &scene, &world))
        return;
    cs_recorder rec;
    cs_recorder_create(ctx, "stack", &rec);
    cs_body_state s[4];
    double worst[2] = {0.0, 0.0};
    uint32_t worst_frame[2] = {0, 0};
    const uint32_t frames = 100; // 1 s
    for (uint32_t f = 1; f <= frames; f++) {
        run_frame(&world, &rec);
        cs_bodies_download(&world.bodies, s);
        placed p[4];
        for (uint32_t i = 0; i < 4; i++)
            p[i] = place(&scene, i, &s[i]);
        double boxes = fmax(deepest_surface_point(&p[1], &p[0]), deepest_surface_point(&p[0], &p[1]));
        double sphere = fmax(deepest_surface_point(&p[3], &p[2]), deepest_surface_point(&p[2], &p[3]));
        if (boxes > worst[0])
            worst[0] = boxes, worst_frame[0] = f;
        if (sphere > worst[1])
            worst[1] = sphere, worst_frame[1] = f;
    }
    printf("stack: deepest box in box %.5f m (frame %u), sphere in box %.5f m (frame %u); top box centre y %.4f, "
           "tilt %.2f; sphere y %.4f\n",
           worst[0], worst_frame[0], worst[1], worst_frame[1], s[1].position.y, tilt_degrees(&s[1]), s[3].position.y);
    CHECK(worst[0] <= CONTACT_TOLERANCE, "the dropped box went %.4f m into the box under it (frame %u)", worst[0],
          worst_frame[0]);
    CHECK(worst[1] <= CONTACT_TOLERANCE, "the sphere went %.4f m into the static box (frame %u)", worst[1],
          worst_frame[1]);
    // Resting on it: the bottom box's top is at 0.1, the top box's half height 0.05.
    CHECK(s[1].position.y > 0.1 + 0.05 - CONTACT_TOLERANCE, "the top box ended at y = %.4f: not on the bottom one",
          s[1].position.y);
    CHECK(s[3].position.y > 0.1 + 0.06 - CONTACT_TOLERANCE, "the sphere ended at y = %.4f: not on the static box",
          s[3].position.y);
    for (uint32_t i = 0; i < 4; i++)
        for (int a = 0; a < 3; a++)
            CHECK(!test_not_finite((&s[i].position.x)[a]), "body %u is not finite", i);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

// ---- 3. paddle ------------------------------------------------------------------

#define PADDLE "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[0.6,0.4,0.3]},\"dt\":0.002,\"substeps\":5," \
    "\"bodies\":[{\"shape\":\"box\",\"size\":[0.03,0.16,0.16],\"friction\":0.2," \
    "\"path\":{\"keys\":[[0,0.15,0.1,0.15],[0.3,0.45,0.1,0.15],[0.45,0.45,0.12,0.15],[0.75,0.15,0.1,0.15]]," \
    "\"loop\":true}}]," \
    "\"fluids\":[{\"solver\":\"wcsph\",\"wcsph\":{},\"particle_spacing\":0.03,\"smoothing_radius\":0.06," \
    "\"materials\":[{\"rest_density\":1000,\"mass\":0.027}],\"blocks\":[{\"min\":[0,0,0],\"max\":[0.12,0.12,0.3]}," \
    "{\"min\":[0.18,0,0],\"max\":[0.6,0.12,0.3]}]}]}"

// The path's point at time t (double), as docs/scenes.md defines it.
static void path_reference(const cs_body *b, double t, double out[3])
{
    double end = b->path[b->path_count - 1][0];
    if (b->path_loop)
        t = fmod(t, end);
    uint32_t i = 0;
    while (i + 2 < b->path_count && t >= b->path[i + 1][0])
        i++;
    double s = fmin((t - b->path[i][0]) / ((double)b->path[i + 1][0] - b->path[i][0]), 1.0);
    for (int a = 0; a < 3; a++)
        out[a] = b->path[i][1 + a] + s * ((double)b->path[i + 1][1 + a] - b->path[i][1 + a]);
}

static void test_paddle(cs_context *ctx)
{
    cs_scene scene;
    cs_world world;
    if (!make_world(ctx, PADDLE, &scene, &world))
        return;
    cs_recorder rec;
    cs_recorder_create(ctx, "paddle", &rec);
    cs_particle_view v;
    world.fluids[0].ops->particles(world.fluids[0].state, &v);
    float *vel = malloc((size_t)v.count * 16);
    cs_body_state s;
    double worst = 0.0, fastest = 0.0, span = 0.0;
    const uint32_t frames = 100; // 1 s: once round the 0.75 s loop and on
    for (uint32_t f = 1; f <= frames; f++) {
        run_frame(&world, &rec);
        cs_bodies_download(&world.bodies, &s);
        double t = cs_world_time(&world), ref[3];
        path_reference(&scene.bodies[0], t, ref);
        for (int a = 0; a < 3; a++)
            worst = fmax(worst, fabs((&s.position.x)[a] - ref[a]));
        span = fmax(span, fabs(s.position.x - 0.15));
        CHECK(s.orientation.x == 0.0f && s.orientation.y == 0.0f && s.orientation.z == 0.0f && s.orientation.w == 1.0f,
              "frame %u: the paddle turned (%g %g %g %g)", f, s.orientation.x, s.orientation.y, s.orientation.z,
              s.orientation.w);
        world.fluids[0].ops->particles(world.fluids[0].state, &v);
        cs_buffer_download(ctx, v.velocities, vel, (size_t)v.count * 16, 0);
        for (uint32_t j = 0; j < v.count; j++)
            fastest = fmax(fastest, fabs(vel[4 * j]));
    }
    // Float: the time (substeps x dt) and the interpolation round to ~1e-7
    // of the 0.6 m domain; 1e-5 m is a hundred times that.
    printf("paddle: %u frames, largest distance from the path %.3g m, reached x - 0.15 = %.3f m, fastest fluid "
           "|vx| %.3f m/s\n",
           frames, worst, span, fastest);
    CHECK(worst <= 1e-5, "the paddle left its path by %g m", worst);
    CHECK(span > 0.29, "the paddle moved only %.3f m along x (the path spans 0.3 m)", span);
    // It moves at 1 m/s; the fluid starts clear of it (fluid started inside
    // a body is thrown out fast: docs/architecture.md, Bodies).
    CHECK(fastest > 0.3 && fastest < 4.0, "the paddle (1 m/s) gave the fluid |vx| up to %.3f m/s", fastest);
    free(vel);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    test_level(&ctx);
    test_stack(&ctx);
    test_paddle(&ctx);
    return test_finish(&ctx);
}
