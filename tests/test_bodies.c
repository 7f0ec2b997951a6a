// test_bodies.c — rigid bodies (pipelines/bodies/bodies.h, shaders/bodies/):
//  1. cs_body_contact on the GPU against a double-precision reference of the
//     same rule, for random points and rotated boxes, polytopes, a thin slab
//     and a sphere: points inside, outside, on faces, on edges and vertices,
//     deep inside the slab after crossing it (the deep-penetration rule must
//     pick the face it came in through), and NaN points. Outputs poisoned.
//     The same points against the particle collisions' contact within a
//     reach past the surface (cs_body_contact_within, then outside a
//     polytope cs_body_rounded_distance, as cs_bodies_collide takes it):
//     beyond the reach far, else the double |sum d_k n_k| over the planes
//     in front; a length 0.1% long fails.
//  2. A small WCSPH world with a static and a falling box (one substep a
//     frame): after every substep no particle is inside a body by more than
//     1e-4 h plus how far the body moved in that substep (the collision
//     sees the pose before the integration moves it).
//  3. Determinism: the same world twice gives the same bytes (particles and
//     body states).
//  4. Momentum: no gravity, a box thrown into a resting blob in a closed box
//     far from the walls (the test checks that no particle comes within h of
//     a wall, so the walls exchange no momentum): fluid + body momentum
//     stays within 1e-4 of the initial (relative) for WCSPH, 3e-3 for PBF
//     (its velocities are differences of rounded float positions).
//  5. Archimedes, as far as the model goes: in a small WCSPH tank a box of
//     2 rho0 sinks, drives the fluid out from under it and rests on the
//     floor, one of 0.5 rho0 floats 0.465-0.535 of its height submerged
//     (measured 0.473 after 2 s: not yet Archimedes' 0.5 within 5%; the
//     nearest-face wall term before it read 0.459 and fails this bound;
//     see test_archimedes).
//  6. 2D: a pentagon (polytope) falling and turning into a PBF pool, and a
//     static disc: no particle inside either (as in 2), everything finite,
//     two runs the same bytes.
// ctest labels: slow,gpu -- ~90 (2 s light tank; 128 under load)
#include "test_util.h"

#include "bodies.h"
#include "fluid_wcsph.h"
#include "world.h"

#include <float.h>

#define POINTS 2048

// ---- 1. contact query --------------------------------------------------------

static void random_quat(float q[4])
{
    double v[4], len = 0.0;
    for (int a = 0; a < 4; a++) {
        v[a] = 2.0 * test_rand_unit() - 1.0;
        len += v[a] * v[a];
    }
    len = sqrt(len);
    for (int a = 0; a < 4; a++)
        q[a] = (float)(v[a] / len);
}

// Body 0: rotated box, 1: rotated polytope (a box with 4 corners cut),
// 2: thin rotated slab, 3: sphere.
static void contact_scene(cs_scene *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "bodies contact test");
    s->dim = 3;
    for (int a = 0; a < 3; a++)
        s->domain_min[a] = -10.0f, s->domain_max[a] = 10.0f;
    static cs_body bodies[4]; // the scene points at its bodies (scene.h)
    memset(bodies, 0, sizeof bodies);
    s->body_count = 4;
    s->bodies = bodies;
    cs_body *b = bodies;
    b[0] = (cs_body){.shape = CS_BODY_BOX, .size = {0.6f, 0.3f, 0.9f}, .density = 1000.0f, .position = {1.0f, 2.0f, -1.0f}};
    b[1] = (cs_body){.shape = CS_BODY_POLYTOPE, .density = 1000.0f, .position = {-2.0f, 0.5f, 0.5f}};
    float box[6][4] = {{1, 0, 0, 0.4f}, {-1, 0, 0, 0.3f}, {0, 1, 0, 0.5f}, {0, -1, 0, 0.2f}, {0, 0, 1, 0.3f}, {0, 0, -1, 0.35f}};
    for (int k = 0; k < 6; k++)
        memcpy(b[1].planes[k], box[k], sizeof box[k]);
    for (int k = 6; k < 10; k++) {
        double n[3] = {k & 1 ? 1 : -1, k & 2 ? 1 : -1, 0.7}, len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int a = 0; a < 3; a++)
            b[1].planes[k][a] = (float)(n[a] / len);
        b[1].planes[k][3] = 0.35f;
    }
    b[1].plane_count = 10;
    b[2] = (cs_body){.shape = CS_BODY_BOX, .size = {1.0f, 0.02f, 0.8f}, .density = 1000.0f, .position = {0.0f, -2.0f, 1.0f}};
    b[3] = (cs_body){.shape = CS_BODY_SPHERE, .radius = 0.4f, .density = 1000.0f, .position = {2.0f, -1.0f, 2.0f}};
    for (int i = 0; i < 4; i++)
        random_quat(b[i].orientation);
}

// The reference: the rule of bodies.glsl in double, on the float set.
// reach: how far past the bounding sphere a point still counts (cs_body_contact_within).
static void ref_contact(const cs_body_set *set, uint32_t b, const float x[3], const float v[3], double dt, double reach,
                        double out[4], bool *far)
{
    const cs_body_gpu *g = &set->bodies[b];
    double r[3] = {x[0] - (double)g->centre.x, x[1] - (double)g->centre.y, x[2] - (double)g->centre.z};
    double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], broad = (double)g->centre.w + reach;
    *far = r2 > broad * broad;
    if (*far)
        return;
    if (g->omega.w > 0.0f) {
        double len = sqrt(r2);
        for (int a = 0; a < 3; a++)
            out[a] = r[a] / len;
        out[3] = len - g->omega.w;
        return;
    }
    double best = -DBL_MAX, deep = -DBL_MAX, tol = 1e-6 * g->centre.w;
    int kb = -1, kd = -1;
    for (uint32_t k = 0; k < g->info.y; k++) {
        const vec4 *p = &set->planes[g->info.x + k];
        double d = p->x * (double)x[0] + p->y * (double)x[1] + p->z * (double)x[2] - p->w;
        double vn = p->x * (double)v[0] + p->y * (double)v[1] + p->z * (double)v[2];
        if (d > best)
            best = d, kb = (int)k;
        if (vn < 0.0 && d - vn * dt >= -tol && d > deep)
            deep = d, kd = (int)k;
    }
    int k = best < 0.0 && kd >= 0 ? kd : kb;
    const vec4 *p = &set->planes[g->info.x + (uint32_t)k];
    out[0] = p->x, out[1] = p->y, out[2] = p->z, out[3] = k == kd && best < 0.0 ? deep : best;
}

// cs_bodies_collide's contact within `reach` of a polytope's surface: from
// outside, the corners rounded (|sum d_k n_k| over the planes in front).
static void ref_rounded(const cs_body_set *set, uint32_t b, const float x[3], double reach, double c[4])
{
    const cs_body_gpu *g = &set->bodies[b];
    if (g->omega.w > 0.0f || !(c[3] > 0.0 && c[3] < reach))
        return;
    double sum[3] = {0, 0, 0};
    for (uint32_t k = 0; k < g->info.y; k++) {
        const vec4 *p = &set->planes[g->info.x + k];
        double d = p->x * (double)x[0] + p->y * (double)x[1] + p->z * (double)x[2] - p->w;
        if (d > 0.0)
            sum[0] += d * p->x, sum[1] += d * p->y, sum[2] += d * p->z;
    }
    double len = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
    if (len > c[3])
        c[0] = sum[0] / len, c[1] = sum[1] / len, c[2] = sum[2] / len, c[3] = len;
}

static void test_contact(cs_context *ctx)
{
    cs_scene s;
    contact_scene(&s);
    cs_body_set set;
    cs_error err;
    CHECK(cs_bodies_set_build(&s, &set, &err), "set: %s", err.msg);
    cs_program_id prog;
    test_program(ctx, &prog, "test/body_contact.comp", NULL);
    const float dt = 0.01f;
    float *pts = calloc(POINTS * 4, sizeof(float)), *rel = calloc(POINTS * 4, sizeof(float));
    float *out = malloc(POINTS * 48);
    cs_buffer set_buf, pts_buf, rel_buf, out_buf;
    test_buffer(ctx, &set_buf, "set", sizeof set);
    test_buffer(ctx, &pts_buf, "points", POINTS * 16);
    test_buffer(ctx, &rel_buf, "rel", POINTS * 16);
    test_buffer(ctx, &out_buf, "out", POINTS * 48);
    cs_buffer_upload(ctx, &set_buf, &set, sizeof set, 0);
    cs_recorder rec;
    cs_recorder_create(ctx, "contact", &rec);
    for (uint32_t b = 0; b < s.body_count; b++) {
        const cs_body_gpu *g = &set.bodies[b];
        double planes[CS_MAX_BODY_PLANES][4], verts[CS_BODY_MAX_VERTICES][3];
        uint32_t np = g->info.y;
        for (uint32_t k = 0; k < np; k++) {
            const vec4 *p = &set.planes[g->info.x + k];
            planes[k][0] = p->x, planes[k][1] = p->y, planes[k][2] = p->z, planes[k][3] = p->w;
        }
        bool bounded;
        uint32_t nv = np ? cs_convex_vertices((const double(*)[4])planes, np, 3, verts, &bounded) : 0;
        int deep_points = 0;
        for (uint32_t i = 0; i < POINTS; i++) {
            float *x = &pts[4 * i], *v = &rel[4 * i];
            memset(v, 0, 16);
            int kind = (int)(i % 6);
            double R = g->centre.w;
            for (int a = 0; a < 3; a++)
                x[a] = (float)((&g->centre.x)[a] + R * (kind == 1 ? 2.4 : 1.2) * (2.0 * test_rand_unit() - 1.0));
            if (kind == 2 && np) { // onto a face: project onto a random plane
                const double *p = planes[test_rand_u32() % np];
                double d = p[0] * x[0] + p[1] * x[1] + p[2] * x[2] - p[3];
                for (int a = 0; a < 3; a++)
                    x[a] = (float)(x[a] - d * p[a]);
            } else if (kind == 3 && nv) { // a vertex, or the middle of two (an edge or across a face)
                const double *p = verts[test_rand_u32() % nv], *q = verts[test_rand_u32() % nv];
                double t = i % 12 < 6 ? 0.0 : test_rand_unit();
                for (int a = 0; a < 3; a++)
                    x[a] = (float)(p[a] + t * (q[a] - p[a]));
            } else if (kind == 4) { // moving: a random relative velocity
                for (int a = 0; a < 3; a++)
                    v[a] = (float)(2.0 * test_rand_unit() - 1.0);
            } else if (kind == 5 && b == 2) { // deep in the thin slab, having crossed its top this substep
                const double *top = planes[2 * 1 + 1]; // +y face of the slab (low face then high face per axis)
                double c[3] = {g->centre.x, g->centre.y, g->centre.z}, u = 0.3 * (2.0 * test_rand_unit() - 1.0);
                double across[3] = {planes[0][0], planes[0][1], planes[0][2]}; // along x of the slab
                double depth = 0.02 * (0.6 + 0.3 * test_rand_unit());      // of 0.02: nearer the bottom
                for (int a = 0; a < 3; a++) {
                    double surface = c[a] + top[a] * 0.01 + across[a] * u;
                    x[a] = (float)(surface - top[a] * depth);
                    v[a] = (float)(-top[a] * 2.0 * depth / dt); // entered through the top during dt
                }
                deep_points++;
            }
        }
        pts[1] = NAN; // point 0: NaN
        cs_buffer_upload(ctx, &pts_buf, pts, POINTS * 16, 0);
        cs_buffer_upload(ctx, &rel_buf, rel, POINTS * 16, 0);
        cs_buffer_fill(ctx, &out_buf, CS_POISON_U32);
        // The particle collisions' reach: a margin past the surface, here
        // 0.4 of the bounding radius, so that kind 1's points (out to 2.4
        // radii) fall inside it, beyond it, and beside the corners.
        const float reach = 0.4f * g->centre.w;
        struct { uint32_t count, body; float dt, reach; } pc = {POINTS, b, dt, reach};
        cs_recorder_begin(&rec);
        cs_pass_begin(&rec, "contact");
        cs_dispatch(&rec, prog, &(cs_dispatch_desc){.buffers = {&set_buf, &pts_buf, &rel_buf, &out_buf},
                                                     .push = &pc, .push_size = sizeof pc, .threads = {POINTS}});
        cs_pass_end(&rec);
        cs_recorder_submit_wait(&rec);
        cs_buffer_download(ctx, &out_buf, out, POINTS * 48, 0);
        int reported = 0, deep_ok = 0, near = 0, rounded = 0;
        CHECK(isnan(out[3]), "body %u: a NaN point gave distance %g", b, out[3]);
        CHECK(isnan(out[11]), "body %u: a NaN point gave distance %g within reach", b, out[11]);
        for (uint32_t i = 1; i < POINTS && reported < 8; i++) {
            const float *x = &pts[4 * i], *g4 = &out[12 * i], *cp = &out[12 * i + 4], *w4 = &out[12 * i + 8];
            double ref[4] = {0, 0, 0, 0}, wref[4] = {0, 0, 0, 0};
            bool far, wfar;
            ref_contact(&set, b, x, &rel[4 * i], dt, 0.0, ref, &far);
            ref_contact(&set, b, x, &rel[4 * i], dt, reach, wref, &wfar);
            double contact_distance = wref[3];
            if (!wfar)
                ref_rounded(&set, b, x, reach, wref);
            double r2 = 0.0;
            for (int a = 0; a < 3; a++)
                r2 += ((double)x[a] - (&g->centre.x)[a]) * ((double)x[a] - (&g->centre.x)[a]);
            int before = test_failures;
            // Within reach (the spheres of radius R + reach): far outside it,
            // the contact otherwise, rounded outside a polytope's surface.
            double mag = fabs(x[0]) + fabs(x[1]) + fabs(x[2]) + 2.0 * g->centre.w;
            double tol = 16.0 * FLT_EPSILON * mag;
            if (fabs(sqrt(r2) - (g->centre.w + reach)) < 1e-5 * g->centre.w) {
                // on the reach sphere: float and double may disagree on "far"
            } else if (wfar) {
                CHECK(w4[3] == 3.402823466e38f && w4[0] == 0.0f, "body %u point %u: beyond reach, got %g", b, i, w4[3]);
            } else {
                bool was_rounded = wref[3] > contact_distance + tol;
                rounded += was_rounded;
                CHECK(!test_not_finite(w4[3]) && fabs(w4[3] - wref[3]) <= tol,
                      "body %u point %u (kind %u): distance within reach %.9g, ref %.9g (unrounded %.9g)", b, i, i % 6,
                      w4[3], wref[3], contact_distance);
                // The rounded normal's direction is |sum d_k n_k|'s: its
                // float error is about tol / distance.
                double dn = fabs(w4[0] - wref[0]) + fabs(w4[1] - wref[1]) + fabs(w4[2] - wref[2]);
                CHECK(!was_rounded || dn <= 8.0 * tol / wref[3], "body %u point %u: rounded normal (%g %g %g), ref "
                      "(%g %g %g)", b, i, w4[0], w4[1], w4[2], wref[0], wref[1], wref[2]);
            }
            if (fabs(sqrt(r2) - g->centre.w) < 1e-5 * g->centre.w) {
                reported += test_failures != before;
                continue; // on the bounding sphere: float and double may disagree on "far"
            }
            if (far) {
                CHECK(g4[3] == 3.402823466e38f && g4[0] == 0.0f, "body %u point %u: far, got %g", b, i, g4[3]);
            } else {
                near++;
                bool same_normal = fabs(g4[0] - ref[0]) + fabs(g4[1] - ref[1]) + fabs(g4[2] - ref[2]) < 1e-6 * (g->omega.w > 0 ? 1e2 : 1.0);
                CHECK(!test_not_finite(g4[3]) && fabs(g4[3] - ref[3]) <= tol, "body %u point %u (kind %u): distance %.9g, ref %.9g",
                      b, i, i % 6, g4[3], ref[3]);
                // A tie (planes within rounding) may pick either normal: the distance says it is the same.
                if (!same_normal) {
                    double d_gpu_plane = g4[0] * (double)x[0] + g4[1] * (double)x[1] + g4[2] * (double)x[2];
                    (void)d_gpu_plane;
                    CHECK(fabs(g4[3] - ref[3]) <= tol && g->omega.w == 0.0f, "body %u point %u: normal (%g %g %g), ref (%g %g %g)",
                          b, i, g4[0], g4[1], g4[2], ref[0], ref[1], ref[2]);
                }
                for (int a = 0; a < 3; a++)
                    CHECK(fabs(cp[a] - ((double)x[a] - (double)g4[3] * g4[a])) <= tol, "body %u point %u: contact point", b, i);
                if (i % 6 == 5 && b == 2)
                    deep_ok += ref[3] < -0.011 && same_normal;
            }
            reported += test_failures != before;
        }
        CHECK(near > POINTS / 8, "body %u: only %d points near it", b, near);
        if (b == 2)
            CHECK(deep_ok == deep_points && deep_points > 0, "thin slab: %d of %d deep points went back out the top", deep_ok,
                  deep_points);
        if (g->omega.w == 0.0f)
            CHECK(rounded > POINTS / 64, "body %u: only %d points beside its corners and edges within reach", b,
                  rounded);
        printf("body %u: %d points near, %d deep-rule points, %d rounded within reach %.3g\n", b, near, deep_points,
               rounded, reach);
    }
    cs_recorder_destroy(&rec);
    cs_buffer *bufs[] = {&set_buf, &pts_buf, &rel_buf, &out_buf};
    for (int i = 0; i < 4; i++)
        cs_buffer_destroy(ctx, bufs[i]);
    cs_program_destroy(ctx, &prog);
    free(pts), free(rel), free(out);
}


// ---- 2-4. worlds ---------------------------------------------------------------

// A static box on the floor and a box of 0.5 rho0 falling into a WCSPH pool.
#define FALL "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[0.8,0.8,0.8]},\"dt\":0.002,\"substeps\":1,\"seed\":3," \
    "\"bodies\":[{\"shape\":\"box\",\"static\":true,\"size\":[0.16,0.1,0.16],\"position\":[0.25,0.1,0.4]}," \
    "{\"shape\":\"box\",\"size\":[0.14,0.1,0.14],\"density\":500,\"position\":[0.55,0.45,0.4]," \
    "\"orientation\":{\"axis\":[1,0,1],\"degrees\":20},\"velocity\":[0,-1,0]}]," \
    "\"fluids\":[{\"solver\":\"wcsph\",\"wcsph\":{},\"particle_spacing\":0.04," \
    "\"materials\":[{\"rest_density\":1000,\"mass\":0.064}],\"blocks\":[{\"min\":[0,0,0],\"max\":[0.8,0.2,0.8]}]}]}"
// No gravity: a blob at rest in the middle, a box thrown at it.
#define THROW "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[1.2,1,1]},\"dt\":0.002,\"substeps\":1,\"gravity\":[0,0,0]," \
    "\"bodies\":[{\"shape\":\"box\",\"size\":[0.12,0.12,0.12],\"density\":1000,\"position\":[0.3,0.5,0.52]," \
    "\"velocity\":[2,0,0],\"angular_velocity\":[0,0,3]}]," \
    "\"fluids\":[{\"solver\":\"wcsph\",\"wcsph\":{},\"particle_spacing\":0.04," \
    "\"materials\":[{\"rest_density\":1000,\"mass\":0.064}],\"blocks\":[{\"min\":[0.45,0.3,0.3],\"max\":[0.77,0.7,0.7]}]}]}"
// The same throw into a PBF blob (PBF's two-way: pushes and reflections
// hand the body -m dv; no vorticity confinement, which is not momentum
// conserving).
#define THROW_PBF "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[1.2,1,1]},\"dt\":0.002,\"substeps\":1,\"gravity\":[0,0,0]," \
    "\"bodies\":[{\"shape\":\"box\",\"size\":[0.12,0.12,0.12],\"density\":1000,\"position\":[0.3,0.5,0.52]," \
    "\"velocity\":[2,0,0],\"angular_velocity\":[0,0,3]}]," \
    "\"fluids\":[{\"solver\":\"pbf\",\"pbf\":{\"vorticity\":0},\"particle_spacing\":0.04," \
    "\"materials\":[{\"rest_density\":1000,\"mass\":0.064}],\"blocks\":[{\"min\":[0.45,0.3,0.3],\"max\":[0.77,0.7,0.7]}]}]}"

static bool make_world(cs_context *ctx, const char *text, cs_scene *scene, cs_world *world)
{
    return test_world_from_json(ctx, text, "inline.json", scene, world);
}

static void quat_rotate(const vec4 *q, const double v[3], double out[3])
{
    double u[3] = {q->x, q->y, q->z}, w = q->w;
    double t[3] = {2.0 * (u[1] * v[2] - u[2] * v[1]), 2.0 * (u[2] * v[0] - u[0] * v[2]), 2.0 * (u[0] * v[1] - u[1] * v[0])};
    double ut[3] = {u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2], u[0] * t[1] - u[1] * t[0]};
    for (int a = 0; a < 3; a++)
        out[a] = v[a] + w * t[a] + ut[a];
}

// Deepest penetration of any particle into body i at state st (a box: its
// planes about the centre of mass), in world units (> 0: inside).
static double deepest(const cs_scene *s, uint32_t i, const cs_body_state *st, const float *pos, uint32_t n)
{
    cs_body_props p;
    cs_body_props_compute(s, i, &p);
    double worst = -1e30;
    for (uint32_t j = 0; j < n; j++) {
        double best = -1e30;
        for (uint32_t k = 0; k < p.plane_count; k++) {
            double nw[3];
            quat_rotate(&st->orientation, p.planes[k], nw);
            double d = -p.planes[k][3];
            for (int a = 0; a < 3; a++)
                d += nw[a] * (pos[4 * j + a] - (double)(&st->position.x)[a]);
            best = fmax(best, d);
        }
        if (isnan(pos[4 * j]) || isnan(best))
            return INFINITY;
        worst = fmax(worst, -best);
    }
    return worst;
}

static void run_fall(cs_context *ctx, uint32_t substeps, float **pos_out, cs_body_state *states_out, bool check)
{
    cs_scene scene;
    cs_world world;
    if (!make_world(ctx, FALL, &scene, &world))
        return;
    cs_recorder rec;
    cs_recorder_create(ctx, "fall", &rec);
    cs_particle_view v;
    world.fluids[0].ops->particles(world.fluids[0].state, &v);
    float *pos = malloc((size_t)v.count * 16);
    cs_body_state before[2], after[2];
    cs_bodies_download(&world.bodies, before);
    double h = scene.fluids[0].smoothing_radius, worst_static = -1e30, worst_moving = -1e30;
    for (uint32_t s = 0; s < substeps; s++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(&world, &rec);
        cs_recorder_submit_wait(&rec);
        if (!check && s + 1 < substeps)
            continue;
        world.fluids[0].ops->particles(world.fluids[0].state, &v);
        cs_buffer_download(ctx, v.positions, pos, (size_t)v.count * 16, 0);
        cs_bodies_download(&world.bodies, after);
        if (check) {
            double moved = 0.0;
            for (int a = 0; a < 3; a++)
                moved += fabs((double)(&after[1].position.x)[a] - (&before[1].position.x)[a]);
            // Turning: at most |dq| * 2 * radius.
            double dq = 0.0;
            for (int a = 0; a < 4; a++)
                dq += fabs((double)(&after[1].orientation.x)[a] - (&before[1].orientation.x)[a]);
            cs_body_props p;
            cs_body_props_compute(&scene, 1, &p);
            moved += 2.0 * dq * p.radius;
            double d0 = deepest(&scene, 0, &after[0], pos, v.count), d1 = deepest(&scene, 1, &before[1], pos, v.count);
            worst_static = fmax(worst_static, d0);
            worst_moving = fmax(worst_moving, d1 - moved);
            CHECK(d0 <= 1e-4 * h, "substep %u: a particle %g deep in the static box", s, d0);
            CHECK(d1 <= 1e-4 * h, "substep %u: a particle %g deep in the moving box (at its pose before the step)", s, d1);
            (void)moved;
            memcpy(before, after, sizeof before);
        }
    }
    if (check)
        printf("fall: %u substeps, deepest in the static box %.3g h, in the moving box %.3g h; box centre y %.4f -> v_y %.4f\n",
               substeps, worst_static / h, worst_moving / h, after[1].position.y, after[1].momentum.y / after[1].position.w);
    if (pos_out) {
        *pos_out = malloc((size_t)v.count * 16);
        memcpy(*pos_out, pos, (size_t)v.count * 16);
    }
    if (states_out)
        memcpy(states_out, after, sizeof after);
    free(pos);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

static void test_fall_and_determinism(cs_context *ctx)
{
    run_fall(ctx, 100, NULL, NULL, true);
    float *a = NULL, *b = NULL;
    cs_body_state sa[2], sb[2];
    run_fall(ctx, 30, &a, sa, false);
    run_fall(ctx, 30, &b, sb, false);
    if (a && b) {
        CHECK(memcmp(sa, sb, sizeof sa) == 0, "two runs: body states differ");
        uint32_t n = 0;
        // The same particle count both times (the scene's blocks).
        n = 20 * 5 * 20;
        CHECK(memcmp(a, b, (size_t)n * 16) == 0, "two runs: particle positions differ");
    }
    free(a), free(b);
}

static void test_momentum(cs_context *ctx, const char *what, const char *text, double tolerance)
{
    cs_scene scene;
    cs_world world;
    if (!make_world(ctx, text, &scene, &world))
        return;
    cs_recorder rec;
    cs_recorder_create(ctx, "throw", &rec);
    cs_particle_view v;
    world.fluids[0].ops->particles(world.fluids[0].state, &v);
    float *vel = malloc((size_t)v.count * 16), *pos = malloc((size_t)v.count * 16);
    // The particle mass as the solver uses it (PBF derives its own from the
    // lattice): the stats' total over the count.
    cs_sim_stats stats;
    cs_world_stats(&world, &stats, NULL);
    double m = stats.total_mass / stats.particles, h = scene.fluids[0].smoothing_radius;
    double p0[3] = {0, 0, 0}, p1[3] = {0, 0, 0}, scale = 0.0, exchanged = 0.0;
    const uint32_t steps = 60;
    for (uint32_t s = 0; s <= steps; s++) {
        if (s) {
            cs_recorder_begin(&rec);
            cs_world_record_frame(&world, &rec);
            cs_recorder_submit_wait(&rec);
        }
        if (s != 0 && s != steps)
            continue;
        cs_buffer_download(ctx, v.velocities, vel, (size_t)v.count * 16, 0);
        cs_buffer_download(ctx, v.positions, pos, (size_t)v.count * 16, 0);
        cs_body_state st;
        cs_bodies_download(&world.bodies, &st);
        double *p = s ? p1 : p0, fluid[3] = {0, 0, 0};
        double near_wall = 1e30;
        for (uint32_t j = 0; j < v.count; j++)
            for (int a = 0; a < 3; a++) {
                fluid[a] += m * vel[4 * j + a];
                near_wall = fmin(near_wall, fmin(pos[4 * j + a] - scene.domain_min[a], scene.domain_max[a] - pos[4 * j + a]));
            }
        for (int a = 0; a < 3; a++)
            p[a] = fluid[a] + (&st.momentum.x)[a];
        if (s) {
            exchanged = fabs(fluid[0]);
            CHECK(near_wall > h, "a particle came within %g of a wall (h = %g): the walls would take momentum", near_wall, h);
        } else {
            scale = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        }
    }
    double err = sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) + (p1[2] - p0[2]) * (p1[2] - p0[2]));
    printf("momentum (%s): initial |P| %.6g, fluid took %.4g in x, change %.3g (relative %.3g)\n", what, scale, exchanged,
           err, err / scale);
    CHECK(exchanged > 0.05 * scale, "%s: the box gave the fluid only %g of %g: no coupling", what, exchanged, scale);
    CHECK(err <= tolerance * scale, "%s: momentum changed by %g (relative %g)", what, err, err / scale);
    free(vel), free(pos);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

// ---- 5. Archimedes -----------------------------------------------------------

// A box of `density` (kg/m^3) let go at rest with its bottom on the surface
// of a small WCSPH tank (16 x 8 x 16 particles of 0.03 m: the water is
// 0.24 m deep, the box 0.18 x 0.12 x 0.18 m). Returns the box's submerged
// fraction after `frames` frames of 10 substeps: the water level (the mean
// top of the particles farther than 2 h from the box, + spacing / 2) minus
// the box's lowest vertex, over its height; *bottom_gap is how far the
// lowest vertex is above the floor.
#define TANK "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[0.48,0.6,0.48]},\"dt\":0.002,\"substeps\":10,\"seed\":4," \
    "\"bodies\":[{\"shape\":\"box\",\"size\":[0.18,0.12,0.18],\"density\":%g,\"position\":[0.24,%g,0.24]," \
    "\"friction\":0.1}]," \
    "\"fluids\":[{\"solver\":\"%s\",\"%s\":{%s},\"particle_spacing\":0.03,\"smoothing_radius\":0.06," \
    "\"materials\":[{\"rest_density\":1000,\"mass\":0.027,\"viscosity\":0.02}],\"blocks\":[{\"min\":[0,0,0],\"max\":[0.48,0.24,0.48]}]}]}"

// Diagnostic (CS_TANK_PROFILE=1 with CS_TANK_DENSITY): the rows of
// particles under the box's bottom face, well inside its footprint (more
// than h from its rim): per row, the distance to the face, the count, the
// mean SPH density and pressure; and the pressure a hydrostatic column
// would have there, rho0 g (level - y). Then the upward force the face's
// wall term gives over that area (what forces.comp hands back: m * the
// face's acceleration, recomputed here from the tables) per area, against
// rho0 g (level - face).
static void tank_profile(cs_context *ctx, cs_world *world, const cs_scene *scene, const cs_body_state *st,
                         const float *pos, uint32_t count, double level, double lowest, bool last)
{
    cs_wcsph *w = world->fluids[0].state;
    float *rho = malloc((size_t)count * 4), *prs = malloc((size_t)count * 4);
    cs_buffer_download(ctx, &w->fluid.densities, rho, (size_t)count * 4, 0);
    cs_buffer_download(ctx, &w->fluid.arrays[CS_WCSPH_ARRAY_PRESSURES], prs, (size_t)count * 4, 0);
    const double h = scene->fluids[0].smoothing_radius, s = 0.03, half = 0.09, g = 9.81, rho0 = 1000.0, m = 0.027;
    const double inv_h = 1.0 / h;
    double rows_n[12] = {0}, rows_y[12] = {0}, rows_rho[12] = {0}, rows_p[12] = {0}, force = 0.0;
    for (uint32_t j = 0; j < count; j++) {
        double x = pos[4 * j] - st->position.x, z = pos[4 * j + 2] - st->position.z, y = pos[4 * j + 1];
        double below = lowest - y;
        if (fabs(x) > half - h || fabs(z) > half - h || below < 0.0 || below >= h)
            continue;
        int r = (int)(below / (0.5 * s) * 0.999);
        r = CS_MIN(r, 11);
        rows_n[r]++, rows_y[r] += below, rows_rho[r] += rho[j], rows_p[r] += prs[j];
        // The face's push on particle j (forces.comp: scale * push(q) * open / (1 - psi), cover 1 here)
        double q = below * inv_h * CS_WCSPH_WALL_STEPS;
        int k = CS_MIN((int)q, CS_WCSPH_WALL_STEPS - 1);
        double f = q - k;
        double psi = w->params.wall[k].x * (1 - f) + w->params.wall[k + 1].x * f;
        double push = w->params.wall[k].y * (1 - f) + w->params.wall[k + 1].y * f;
        double open = 1.0 - psi; // only the face near the middle of the tank
        force += m * rho0 * prs[j] / ((double)rho[j] * rho[j]) * inv_h * push * open / (1.0 - psi);
    }
    // What the box got in the last substep, by where the particle is (box
    // frame, small tilt ignored): under the bottom face inside its rim by
    // more than h, under it within h of the rim, below the bottom plane but
    // outside the footprint (edges, corners), and beside the side faces.
    cs_body_link link;
    world->fluids[0].ops->bodies(world->fluids[0].state, &link);
    size_t record_floats = (size_t)CS_BODY_RECORDS_PER_PARTICLE * CS_BODY_RECORD_FLOATS;
    float *imp = malloc((size_t)count * record_floats * 4);
    cs_buffer_download(ctx, link.impulses, imp, (size_t)count * record_floats * 4, 0);
    static double region[4] = {0, 0, 0, 0};
    static int samples = 0;
    samples++;
    for (uint32_t j = 0; j < count; j++) {
        double x = fabs(pos[4 * j] - st->position.x), z = fabs(pos[4 * j + 2] - st->position.z);
        double y = pos[4 * j + 1] - lowest;
        int r = y >= 0.0 ? 3 : x > half || z > half ? 2 : x > half - h || z > half - h ? 1 : 0;
        for (uint32_t k = 0; k < CS_BODY_RECORDS_PER_PARTICLE; k++) {
            const float *rec = imp + ((size_t)j * CS_BODY_RECORDS_PER_PARTICLE + k) * CS_BODY_RECORD_FLOATS;
            if (rec[0] != CS_BODY_RECORD_NONE)
                region[r] += rec[2]; // the vertical impulse
        }
    }
    free(imp);
    if (!last) {
        free(rho), free(prs);
        return;
    }
    for (int r = 0; r < 4; r++)
        region[r] /= samples;
    double dt = w->params.kernel.w * w->dt_split, weight = st->position.w * g;
    printf("impulse on the box (last substep) / dt: under the face %.2f N, under its rim %.2f N, past the edges %.2f N, "
           "beside %.2f N; total %.2f N, weight %.2f N; rho0 g depth * face area %.2f N\n", region[0] / dt,
           region[1] / dt, region[2] / dt, region[3] / dt, (region[0] + region[1] + region[2] + region[3]) / dt, weight,
           rho0 * g * (level - lowest) * 4.0 * half * half);
    {
        const vec4 *t = w->params.wall;
        int n = CS_WCSPH_WALL_STEPS;
        printf("  tables: psi(0) %.4f psi(1/4) %.4f psi(3/4) %.4f push(1/4) %.4f push(3/4) %.4f; rows at s/2, 3s/2 "
               "give force/area = %.4f p\n", t[0].x, t[n / 4].x, t[3 * n / 4].x, t[n / 4].y, t[3 * n / 4].y,
               0.5 * (t[n / 4].y + t[3 * n / 4].y));
    }
    double area = 4.0 * (half - h) * (half - h);
    printf("profile: level %.4f, face %.4f (depth %.4f); rows under the face, more than h inside its rim:\n", level,
           lowest, level - lowest);
    for (int r = 0; r < 12; r++)
        if (rows_n[r] > 0)
            printf("  %5.0f particles at %.4f below the face: rho %.2f, p %.1f (hydrostatic %.1f)\n", rows_n[r],
                   rows_y[r] / rows_n[r], rows_rho[r] / rows_n[r], rows_p[r] / rows_n[r],
                   rho0 * g * (level - lowest + rows_y[r] / rows_n[r]));
    // The open water: pressure by height, away from the box and the walls.
    double open_n[20] = {0}, open_y[20] = {0}, open_p[20] = {0};
    for (uint32_t j = 0; j < count; j++) {
        double x = pos[4 * j], z = pos[4 * j + 2], y = pos[4 * j + 1];
        bool clear = fabs(x - st->position.x) > half + h || fabs(z - st->position.z) > half + h;
        if (!clear || x < h || z < h || x > 0.48 - h || z > 0.48 - h)
            continue;
        int r = CS_MIN((int)(y / s), 19);
        open_n[r]++, open_y[r] += y, open_p[r] += prs[j];
    }
    for (int r = 0; r < 20; r++)
        if (open_n[r] > 0)
            printf("  open water: %4.0f particles at y %.4f: p %.1f (hydrostatic %.1f)\n", open_n[r], open_y[r] / open_n[r],
                   open_p[r] / open_n[r], rho0 * g * (level - open_y[r] / open_n[r]));
    // The mass of fluid per area above the box's bottom, in the water clear
    // of the box by h (what holds the box up at equilibrium: the weight of
    // the column above its face), against the box's mass per area, and the
    // mean mass density of that column (particles per volume times m).
    {
        double clear = half + h, open_area = 0.48 * 0.48 - 4.0 * clear * clear, above = 0.0, slab[16] = {0};
        for (uint32_t j = 0; j < count; j++) {
            double x = pos[4 * j] - st->position.x, z = pos[4 * j + 2] - st->position.z, y = pos[4 * j + 1];
            if ((fabs(x) < clear && fabs(z) < clear) || y < lowest - 0.5 * s)
                continue;
            int k = CS_MIN((int)((y - (lowest - 0.5 * s)) / (0.5 * s)), 15);
            slab[k] += m;
            if (y >= lowest)
                above += m;
        }
        printf("  open water above the face: %.2f kg/m^2 (box: %.2f kg/m^2), mean mass density over the depth %.1f\n",
               above / open_area, st->position.w / (4.0 * half * half), above / open_area / (level - lowest));
        for (int k = 0; k < 16; k++)
            if (slab[k] > 0.0)
                printf("    slab from %.4f above the face: mass density %.1f\n", (k - 1) * 0.5 * s,
                       slab[k] / (open_area * 0.5 * s));
    }
    printf("  face wall force per area %.1f Pa, rho0 g depth %.1f Pa (ratio %.3f)\n", force / area,
           rho0 * g * (level - lowest), force / area / (rho0 * g * (level - lowest)));
    free(rho), free(prs);
}

// `block`: the solver block's keys ("" for its defaults).
static double tank(cs_context *ctx, const char *solver, const char *block, double density, uint32_t frames,
                   double *bottom_gap, double *tilt)
{
    char text[1400];
    snprintf(text, sizeof text, TANK, density, 0.24 + 0.06 + 0.005, solver, solver, block);
    cs_scene scene;
    cs_world world;
    if (!make_world(ctx, text, &scene, &world))
        return NAN;
    cs_recorder rec;
    cs_recorder_create(ctx, "tank", &rec);
    cs_particle_view v;
    // The box bobs (0.448-0.490 submerged over frames 60-100, sampled every
    // 10): one frame's reading moves by 0.02 with the order impulses are
    // summed in, so the answer is the mean of the samples from 60% of the
    // run on.
    double fraction = NAN, fraction_sum = 0.0;
    uint32_t fraction_samples = 0;
    const double size_y = 0.12, s = 0.03;
    for (uint32_t f = 1; f <= frames; f++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(&world, &rec);
        cs_recorder_submit_wait(&rec);
        if (f % 10 && f != frames && !(getenv("CS_TANK_PROFILE") && f + 40 > frames))
            continue;
        world.fluids[0].ops->particles(world.fluids[0].state, &v);
        float *pos = malloc((size_t)v.count * 16);
        cs_buffer_download(ctx, v.positions, pos, (size_t)v.count * 16, 0);
        cs_body_state st;
        cs_bodies_download(&world.bodies, &st);
        cs_body_props p;
        cs_body_props_compute(&scene, 0, &p);
        double lowest = 1e30;
        for (uint32_t k = 0; k < p.vertex_count; k++) {
            double w[3];
            quat_rotate(&st.orientation, p.vertices[k], w);
            lowest = fmin(lowest, w[1] + st.position.y);
        }
        // The level: per lattice column, the highest particle (+ half a
        // spacing), averaged over the columns clear of the box by a spacing
        // and not against a domain wall (there the wall layers hold the
        // top particle ~0.004 m lower: measuring there read 0.04 less).
        double top[16][16];
        for (int a = 0; a < 16; a++)
            for (int b = 0; b < 16; b++)
                top[a][b] = -1.0;
        for (uint32_t j = 0; j < v.count; j++) {
            int a = CS_MIN((int)(pos[4 * j] / s), 15), b = CS_MIN((int)(pos[4 * j + 2] / s), 15);
            top[a][b] = fmax(top[a][b], pos[4 * j + 1]);
        }
        double sum = 0.0;
        int n = 0;
        for (int a = 1; a < 15; a++)
            for (int b = 1; b < 15; b++) {
                double x = (a + 0.5) * s, z = (b + 0.5) * s;
                if (fabs(x - st.position.x) < 0.09 + s && fabs(z - st.position.z) < 0.09 + s)
                    continue;
                if (top[a][b] >= 0.0)
                    sum += top[a][b], n++;
            }
        double level = n ? sum / n + 0.5 * s : NAN;
        fraction = (level - lowest) / size_y;
        if (f % 10 == 0 && 5 * f >= 3 * frames)
            fraction_sum += fraction, fraction_samples++;
        *bottom_gap = lowest;
        // Tilt: the angle between the vertical and the body axis nearest it.
        double upright = 0.0;
        for (int a = 0; a < 3; a++) {
            double e[3] = {a == 0, a == 1, a == 2}, w[3];
            quat_rotate(&st.orientation, e, w);
            upright = fmax(upright, fabs(w[1]));
        }
        *tilt = acos(fmin(upright, 1.0)) * 180.0 / 3.14159265358979323846;
        if (getenv("CS_TEST_VERBOSE"))
            printf("  %s density %g frame %u: level %.4f, box bottom %.4f, submerged %.3f, tilt %.2f\n", solver, density, f,
                   level, lowest, fraction, *tilt);
        if (getenv("CS_TANK_PROFILE") && f + 40 > frames && strcmp(solver, "wcsph") == 0)
            tank_profile(ctx, &world, &scene, &st, pos, v.count, level, lowest, f == frames);
        free(pos);
    }
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
    return fraction_samples ? fraction_sum / fraction_samples : fraction;
}

static void test_archimedes(cs_context *ctx)
{
    double gap_light, gap_heavy, tilt_light, tilt_heavy;
    double light = tank(ctx, "wcsph", "", 500.0, 100, &gap_light, &tilt_light);
    double heavy = tank(ctx, "wcsph", "", 2000.0, 100, &gap_heavy, &tilt_heavy);
    printf("archimedes: a box of 0.5 rho0 is %.3f submerged over 1.2-2 s (ideal 0.5), %.4f m above the floor; one of "
           "2 rho0 is %.3f submerged, %.4f m above the floor, tilted %.2f degrees after 2 s\n",
           light, gap_light, heavy, gap_heavy, tilt_heavy);
    // The WCSPH density and pressure see the bodies: each body's share of
    // the kernel (shaders/bodies/body_share.glsl cs_body_share, a product over its planes)
    // counts as rest fluid, its pressure handed back to the body; with the
    // product the rim's loss inside the footprint and its gain outside
    // cancel (CS_TANK_PROFILE=1: -0.98 N, +1.01 N of the box's 19.07 N).
    // What was left, ~5% of the lift, was the open water's free surface:
    // its top rows, read under-dense from half a kernel, were squeezed
    // into the rows below, so the level stood low and the box seemed to
    // float high (0.468). The default wcsph.surface_renormalise
    // (density.comp: the density sum over the kernel's share inside the
    // fluid, Ferrand et al. 2013) reads the top rows' density from their
    // spacing: the box floats at Archimedes' 0.5 within 5% (llvmpipe:
    // 0.494; with the default off this bound failed at 0.468). Since the
    // collision margin holds round a box's corners too (bodies.glsl
    // cs_bodies_collide) it reads 0.479, and 0.456 with the default off.
    // This tank drops the box and reads the level from the top particles;
    // tests/test_buoyancy.c is the Archimedes check proper.
    CHECK(fabs(light - 0.5) <= 0.025, "a box of 0.5 rho0 is %.3f submerged over 1.2-2 s (0.5 +- 0.025)", light);
    CHECK(gap_light > 0.1, "a box of 0.5 rho0 is only %.4f m above the floor after 1.2 s", gap_light);
    // The key still switches it off: the squeezed surface, within 10%, and
    // the box higher than with the default (the level reads low).
    double gap_plain, tilt_plain;
    double plain = tank(ctx, "wcsph", "\"surface_renormalise\":false", 500.0, 100, &gap_plain, &tilt_plain);
    printf("archimedes without surface_renormalise: a box of 0.5 rho0 is %.3f submerged over 1.2-2 s\n", plain);
    CHECK(fabs(plain - 0.5) <= 0.05 && plain < light - 1e-3,
          "surface_renormalise off: a box of 0.5 rho0 is %.3f submerged (0.5 +- 0.05, and under the default's %.3f)",
          plain, light);
    // The box of 2 rho0 sinks at about g/2 and lands on the last layer of
    // fluid, one row (0.03 m) thick: at 0.6 s its bottom is 0.0295 m up with
    // about 40 centres under it. It drives them out sideways and touches the
    // floor at about 1.6 s (the bodies stop at the box faces themselves; the
    // collision margin keeps particle centres half a spacing up, but yields
    // to a body, fluid.glsl cs_collide). Measured: 0.0096 m at 1.4 s,
    // 0.0007 m at 1.6 s, 0.0000 m from 1.8 s (on one edge, tilted 14
    // degrees over a wedge of fluid: the domain contact applies no torque,
    // bodies.h, so nothing lays it flat). Before the margin the bottom row
    // could sink into the floor and the box rested on it 0.004 m up for good
    // (0.0041 m at 0.6 s, 0.0037 m at 2 s): this checked 0.01 m at 0.6 s.
    CHECK(gap_heavy < 1e-3, "a box of 2 rho0 stays %.4f m above the floor after 2 s", gap_heavy);
    // Tilt: with the nearest face as a wall it rested on one edge over a
    // wedge of trapped fluid, 10.4 degrees after 2 s; with the product over
    // the planes (cs_body_share) it lies flat: 0.01 degrees.
    CHECK(tilt_heavy < 1.0, "a box of 2 rho0 rests %.2f degrees tilted after 2 s", tilt_heavy);
}

// ---- 6. A 2D world ---------------------------------------------------------------

// A pentagon (polytope in 2D) of 0.5 rho0 and a static disc in a 2D PBF pool.
#define FLAT "{\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,0.6]},\"dt\":0.002,\"substeps\":1,\"seed\":5," \
    "\"bodies\":[{\"shape\":\"polytope\",\"density\":500,\"position\":[0.45,0.32],\"velocity\":[0,-1]," \
    "\"angular_velocity\":[0,0,2],\"planes\":[[0,-1,0.06],[0.951,-0.309,0.06],[0.588,0.809,0.06],[-0.588,0.809,0.06]," \
    "[-0.951,-0.309,0.06]]},{\"shape\":\"sphere\",\"static\":true,\"radius\":0.05,\"position\":[0.8,0.08]}]," \
    "\"fluids\":[{\"solver\":\"pbf\",\"pbf\":{},\"particle_spacing\":0.02," \
    "\"materials\":[{\"rest_density\":1000}],\"blocks\":[{\"min\":[0,0],\"max\":[1,0.2]}]}]}"

// Runs FLAT for `steps` substeps; after every one, no particle is inside a
// body by more than 1e-4 h plus how far the moving one moved in it, and
// everything is finite. Returns the final particles and body states.
static void run_flat(cs_context *ctx, uint32_t steps, float **pos_out, cs_body_state *states_out)
{
    cs_scene scene;
    cs_world world;
    if (!make_world(ctx, FLAT, &scene, &world))
        return;
    cs_recorder rec;
    cs_recorder_create(ctx, "flat", &rec);
    cs_particle_view v;
    world.fluids[0].ops->particles(world.fluids[0].state, &v);
    float *pos = malloc((size_t)v.count * 16);
    cs_body_state before[2], after[2];
    cs_bodies_download(&world.bodies, before);
    cs_body_props p;
    cs_body_props_compute(&scene, 0, &p);
    double h = scene.fluids[0].smoothing_radius, worst = -1e30;
    bool finite = true;
    for (uint32_t s = 0; s < steps; s++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(&world, &rec);
        cs_recorder_submit_wait(&rec);
        world.fluids[0].ops->particles(world.fluids[0].state, &v);
        cs_buffer_download(ctx, v.positions, pos, (size_t)v.count * 16, 0);
        cs_bodies_download(&world.bodies, after);
        double moved = hypot((double)after[0].position.x - before[0].position.x,
                             (double)after[0].position.y - before[0].position.y);
        double dq = 0.0;
        for (int a = 0; a < 4; a++)
            dq += fabs((double)(&after[0].orientation.x)[a] - (&before[0].orientation.x)[a]);
        moved += 2.0 * dq * p.radius;
        double d = deepest(&scene, 0, &before[0], pos, v.count) - moved;
        worst = fmax(worst, d);
        CHECK(d <= 1e-4 * h, "2D substep %u: a particle %g deep in the pentagon", s, d);
        // The static disc: radial distance.
        for (uint32_t j = 0; j < v.count; j++) {
            double r = hypot(pos[4 * j] - 0.8, pos[4 * j + 1] - 0.08);
            CHECK(r >= 0.05 - 1e-4 * h, "2D substep %u: particle %u %g inside the disc", s, j, 0.05 - r);
            finite = finite && !test_not_finite(pos[4 * j]) && !test_not_finite(pos[4 * j + 1]);
            if (r < 0.05 - 1e-4 * h)
                break;
        }
        for (int a = 0; a < 4; a++)
            finite = finite && !test_not_finite((&after[0].position.x)[a]) && !test_not_finite((&after[0].momentum.x)[a]);
        memcpy(before, after, sizeof before);
    }
    CHECK(finite, "2D: a particle or the body is not finite");
    printf("2D pbf: %u substeps, %u particles, deepest in the pentagon %.3g h; pentagon centre (%.4f, %.4f)\n", steps,
           v.count, worst / h, after[0].position.x, after[0].position.y);
    if (pos_out) {
        *pos_out = malloc((size_t)v.count * 16);
        memcpy(*pos_out, pos, (size_t)v.count * 16);
    }
    if (states_out)
        memcpy(states_out, after, sizeof after);
    free(pos);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

static void test_flat(cs_context *ctx)
{
    float *a = NULL, *b = NULL;
    cs_body_state sa[2], sb[2];
    run_flat(ctx, 80, &a, sa);
    run_flat(ctx, 80, &b, sb);
    if (a && b) {
        CHECK(memcmp(sa, sb, sizeof sa) == 0, "2D: two runs give different body states");
        CHECK(memcmp(a, b, 50 * 10 * 16) == 0, "2D: two runs give different particles");
    }
    free(a), free(b);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    if (getenv("CS_TANK_DENSITY")) {
        double g, tl;
        const char *solver = getenv("CS_TANK_SOLVER") ? getenv("CS_TANK_SOLVER") : "wcsph";
        const char *block = getenv("CS_TANK_BLOCK") ? getenv("CS_TANK_BLOCK") : "";
        double fraction = tank(&ctx, solver, block, atof(getenv("CS_TANK_DENSITY")),
                               (uint32_t)atoi(getenv("CS_TANK_FRAMES")), &g, &tl);
        printf("tank: submerged %.3f (mean from 60%% of the run), bottom %.4f m, tilt %.2f degrees\n", fraction, g, tl);
        return 0;
    }
    test_contact(&ctx);
    test_fall_and_determinism(&ctx);
    test_momentum(&ctx, "wcsph", THROW, 1e-4);
    // PBF's velocities are differences of float positions over dt, (x* - x)
    // / dt, rounded on every predict and delta write (~3e-8 m near 0.5 m,
    // 1.5e-5 m/s per particle and write at dt = 2 ms): over 60 substeps of
    // 3200 particles that random walk alone is ~1e-3 of |P|. Measured
    // (llvmpipe): 3.4e-4 with scorr_k 0.1 and xsph 0.01 (4.4e-4 before the
    // bodies were in PBF's density), but 1.27e-3 with today's defaults
    // (0.04, 0.03), 1.41e-3 with 0.04 / 0.01, 1.59e-3 with 0.1 / 0.03: no
    // trend with either, the walk's spread. Bound 3e-3: a leak in the
    // coupling's accounting (one iteration's pushes not handed back) would
    // be of the order of the 3 kg m/s exchanged, far above it.
    test_momentum(&ctx, "pbf", THROW_PBF, 3e-3);
    test_archimedes(&ctx);
    test_flat(&ctx);
    return test_finish(&ctx);
}
