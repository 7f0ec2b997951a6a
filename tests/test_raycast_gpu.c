// test_raycast_gpu.c — the GPU BVH walk (shaders/geometry/bvh.glsl through
// shaders/geometry/cast.comp) against pipelines/trace/bvh.c's double walk on the
// Cornell box, on random rays (seed printed) of four kinds: generic rays
// from inside the box, grazing rays (a few 1e-6..1e-3 rad off a surface),
// rays aimed at triangle edges and vertices, and edge-on rays lying along
// an edge in a triangle's plane. Nearest hits and any-hit segments.
//
// Tolerance: the GPU walk is float, the CPU one double, on the same float
// inputs. Where the ray passes within float rounding of a triangle edge,
// or meets the triangle nearly edge-on, the two may rightly pick the
// neighbouring triangle or slip past: a disagreement is accepted only when
// the hit it concerns is "delicate", i.e. its barycentric distance to an
// edge, min(u, v, 1 - u - v), is below 1e-4, or |cos| between ray and
// triangle normal is below 1e-3. Every other hit must agree on the triangle
// and on the hit point within 1e-5 m. Then the compile-time visibility:
// the Cornell box's links culled on the GPU equal the CPU's.
// ctest labels: quick,gpu -- 0.7
#include "test_util.h"

#include "bvh.h"
#include "geometry.h"
#include "radiosity.h"
#include "radiosity_gpu.h"
#include "raycast.h"
#include "scene.h"

#include <stdlib.h>
#include <string.h>

#define RAYS_PER_KIND 4096
#define EDGE_BARY 1e-4
#define GRAZING_COS 1e-3
#define POINT_TOLERANCE 1e-5

enum ray_kind { KIND_GENERIC, KIND_GRAZING, KIND_AT_EDGE, KIND_EDGE_ON, KIND_COUNT };
static const char *const KIND_NAMES[KIND_COUNT] = {"generic", "grazing", "at an edge", "edge-on"};

static void tri_vertex(const cs_tri *t, int k, double out[3])
{
    const vec4 *v = k == 0 ? &t->v0 : k == 1 ? &t->v1 : &t->v2;
    out[0] = v->x, out[1] = v->y, out[2] = v->z;
}

static void random_point_in_box(const cs_bvh *bvh, double out[3])
{
    const cs_bvh_node *root = &bvh->nodes[0];
    double lo[3] = {root->lo.x, root->lo.y, root->lo.z}, hi[3] = {root->hi.x, root->hi.y, root->hi.z};
    for (int k = 0; k < 3; k++)
        out[k] = lo[k] + (0.02 + 0.96 * test_rand_unit()) * (hi[k] - lo[k]);
}

static void random_point_on_tri(const cs_tri *t, double out[3])
{
    double a = sqrt(test_rand_unit()), b = test_rand_unit(), p[3][3];
    for (int k = 0; k < 3; k++)
        tri_vertex(t, k, p[k]);
    for (int k = 0; k < 3; k++)
        out[k] = p[0][k] * (1 - a) + p[1][k] * a * (1 - b) + p[2][k] * a * b;
}

static void tri_normal(const cs_tri *t, double n[3])
{
    double p[3][3];
    for (int k = 0; k < 3; k++)
        tri_vertex(t, k, p[k]);
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++)
        e1[k] = p[1][k] - p[0][k], e2[k] = p[2][k] - p[0][k];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++)
        n[k] /= len;
}

static cs_ray make_ray(const double o[3], const double d[3], double t_max)
{
    return (cs_ray){.origin_tmin = {(float)o[0], (float)o[1], (float)o[2], 0.0f},
                    .dir_tmax = {(float)d[0], (float)d[1], (float)d[2], (float)t_max}};
}

// One random ray of the kind.
static cs_ray random_ray(const cs_bvh *bvh, enum ray_kind kind)
{
    const cs_tri *t = &bvh->tris[test_rand_u32() % bvh->tri_count];
    double o[3], d[3], q[3], n[3];
    if (kind == KIND_GENERIC) {
        random_point_in_box(bvh, o);
        random_point_in_box(bvh, q);
        for (int k = 0; k < 3; k++)
            d[k] = q[k] - o[k];
        return make_ray(o, d, 10.0);
    }
    if (kind == KIND_GRAZING) {
        // Along the surface through a point on it, tilted by 1e-6..1e-3 rad.
        random_point_on_tri(t, q);
        tri_normal(t, n);
        double p[3][3];
        for (int k = 0; k < 3; k++)
            tri_vertex(t, k, p[k]);
        double tilt = pow(10.0, -6.0 + 3.0 * test_rand_unit()) * (test_rand_unit() < 0.5 ? -1.0 : 1.0);
        double w = test_rand_unit();
        for (int k = 0; k < 3; k++) {
            double tangent = (1 - w) * (p[1][k] - p[0][k]) + w * (p[2][k] - p[0][k]);
            d[k] = tangent + tilt * n[k];
            o[k] = q[k] - 0.5 * d[k];
        }
        return make_ray(o, d, 10.0);
    }
    if (kind == KIND_AT_EDGE) {
        // From inside the box at a point of an edge (a vertex one time in 8).
        int a = (int)(test_rand_u32() % 3), b = (a + 1) % 3;
        double w = test_rand_u32() % 8 == 0 ? 0.0 : test_rand_unit(), pa[3], pb[3];
        tri_vertex(t, a, pa);
        tri_vertex(t, b, pb);
        random_point_in_box(bvh, o);
        for (int k = 0; k < 3; k++)
            d[k] = pa[k] + w * (pb[k] - pa[k]) - o[k];
        return make_ray(o, d, 10.0);
    }
    // Edge-on: along the line of an edge, starting before it.
    int a = (int)(test_rand_u32() % 3), b = (a + 1) % 3;
    double pa[3], pb[3];
    tri_vertex(t, a, pa);
    tri_vertex(t, b, pb);
    for (int k = 0; k < 3; k++) {
        d[k] = pb[k] - pa[k];
        o[k] = pa[k] - (0.1 + 0.5 * test_rand_unit()) * d[k];
    }
    return make_ray(o, d, 10.0);
}

// Is this hit one where float and double may rightly disagree?
static bool delicate(const cs_bvh *bvh, const cs_ray *r, uint32_t tri, double u, double v)
{
    if (tri == CS_CAST_NO_HIT)
        return false;
    double n[3], d[3] = {r->dir_tmax.x, r->dir_tmax.y, r->dir_tmax.z};
    tri_normal(&bvh->tris[tri], n);
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double cos_angle = fabs(n[0] * d[0] + n[1] * d[1] + n[2] * d[2]) / len;
    double edge = fmin(fmin(u, v), 1.0 - u - v);
    return edge < EDGE_BARY || cos_angle < GRAZING_COS;
}

static cs_ray_hit cpu_cast(const cs_bvh *bvh, const cs_ray *r)
{
    double o[3] = {r->origin_tmin.x, r->origin_tmin.y, r->origin_tmin.z};
    double d[3] = {r->dir_tmax.x, r->dir_tmax.y, r->dir_tmax.z};
    return cs_bvh_cast(bvh, o, d, r->origin_tmin.w, r->dir_tmax.w);
}

// Nearest hits of every kind, with the tolerance above.
static void check_nearest(cs_context *ctx, cs_raycaster *rc, const cs_bvh *bvh)
{
    cs_ray *rays = malloc(sizeof *rays * RAYS_PER_KIND);
    cs_cast_hit *hits = malloc(sizeof *hits * RAYS_PER_KIND);
    for (int kind = 0; kind < KIND_COUNT; kind++) {
        for (uint32_t i = 0; i < RAYS_PER_KIND; i++)
            rays[i] = random_ray(bvh, (enum ray_kind)kind);
        cs_raycaster_cast(ctx, rc, rays, RAYS_PER_KIND, false, hits);
        uint32_t agree = 0, accepted = 0, hit_count = 0;
        double worst = 0.0;
        for (uint32_t i = 0; i < RAYS_PER_KIND; i++) {
            cs_ray_hit want = cpu_cast(bvh, &rays[i]);
            uint32_t want_tri = want.hit ? want.tri : CS_CAST_NO_HIT;
            const cs_cast_hit *got = &hits[i];
            double len = sqrt(rays[i].dir_tmax.x * rays[i].dir_tmax.x + rays[i].dir_tmax.y * rays[i].dir_tmax.y +
                              rays[i].dir_tmax.z * rays[i].dir_tmax.z);
            bool both = want.hit && got->tri != CS_CAST_NO_HIT;
            double gap = both ? fabs(got->t - want.t) * len : 0.0;
            hit_count += want.hit;
            if (want_tri == got->tri && gap <= POINT_TOLERANCE) {
                agree++;
                worst = fmax(worst, gap);
                continue;
            }
            // The same point on a neighbouring (coplanar or adjoining) triangle.
            if (both && gap <= POINT_TOLERANCE) {
                accepted++;
                continue;
            }
            if (delicate(bvh, &rays[i], want_tri, want.u, want.v) ||
                delicate(bvh, &rays[i], got->tri, got->u, got->v)) {
                accepted++;
                continue;
            }
            CHECK(false, "%s ray %u: GPU tri %u t %.9g (u %.6g v %.6g), CPU tri %u t %.9g (u %.6g v %.6g)",
                  KIND_NAMES[kind], i, got->tri, got->t, got->u, got->v, want_tri, want.t, want.u, want.v);
        }
        printf("nearest, %-10s: %u rays, %u hit, %u agree (worst gap %.2g m), %u delicate disagreements\n",
               KIND_NAMES[kind], RAYS_PER_KIND, hit_count, agree, worst, accepted);
        // Generic rays seldom pass that close to an edge: a walk that is off
        // everywhere would otherwise hide behind the rule.
        if (kind == KIND_GENERIC)
            CHECK(accepted <= RAYS_PER_KIND / 100, "%u generic rays disagree at edges", accepted);
        CHECK(kind != KIND_GENERIC || hit_count > RAYS_PER_KIND / 2, "few generic rays hit: %u", hit_count);
    }
    free(rays), free(hits);
}

// Any-hit segments from inside the box to random points on triangles,
// stopping short of the target.
static void check_any_hit(cs_context *ctx, cs_raycaster *rc, const cs_bvh *bvh)
{
    cs_ray *rays = malloc(sizeof *rays * RAYS_PER_KIND);
    cs_cast_hit *hits = malloc(sizeof *hits * RAYS_PER_KIND);
    for (uint32_t i = 0; i < RAYS_PER_KIND; i++) {
        double o[3], q[3], d[3];
        random_point_in_box(bvh, o);
        random_point_on_tri(&bvh->tris[test_rand_u32() % bvh->tri_count], q);
        for (int k = 0; k < 3; k++)
            d[k] = q[k] - o[k];
        rays[i] = make_ray(o, d, 1.0 - 1e-4);
    }
    cs_raycaster_cast(ctx, rc, rays, RAYS_PER_KIND, true, hits);
    uint32_t blocked = 0, accepted = 0;
    for (uint32_t i = 0; i < RAYS_PER_KIND; i++) {
        cs_ray_hit nearest = cpu_cast(bvh, &rays[i]);
        bool gpu_blocked = hits[i].tri != CS_CAST_NO_HIT;
        blocked += nearest.hit;
        if (gpu_blocked == nearest.hit)
            continue;
        if (delicate(bvh, &rays[i], nearest.hit ? nearest.tri : CS_CAST_NO_HIT, nearest.u, nearest.v) ||
            delicate(bvh, &rays[i], hits[i].tri, hits[i].u, hits[i].v)) {
            accepted++;
            continue;
        }
        CHECK(false, "segment %u: GPU blocked %d, CPU blocked %d", i, gpu_blocked, nearest.hit);
    }
    printf("any hit: %u segments, %u blocked on the CPU, %u delicate disagreements\n", RAYS_PER_KIND, blocked,
           accepted);
    CHECK(blocked > 0 && blocked < RAYS_PER_KIND, "segments blocked: %u of %u", blocked, RAYS_PER_KIND);
    free(rays), free(hits);
}

// The Cornell box's links culled on the GPU against the CPU's visibility:
// both lists are in target order per patch, so a merge counts the links
// only one side kept. Those can only be rays that pass an edge within
// float rounding: at most 0.1% of them.
static void check_link_visibility(cs_context *ctx, const cs_scene *scene, const cs_bvh *bvh)
{
    cs_radiosity_compiled cpu, gpu;
    cs_error err = {0};
    const cs_geometry *g = scene->geometry;
    CS_ASSERT(cs_radiosity_compile(g->tris, g->tri_count, 0.2, bvh, &cpu, &err), "%s", err.msg);
    CS_ASSERT(cs_radiosity_compile_gpu(ctx, g->tris, g->tri_count, 0.2, bvh, &gpu, &err), "%s", err.msg);
    CS_ASSERT(cpu.patch_count == gpu.patch_count, "patch counts %u, %u", cpu.patch_count, gpu.patch_count);
    uint32_t only_cpu = 0, only_gpu = 0, factor_differs = 0;
    for (uint32_t i = 0; i < cpu.patch_count; i++) {
        uint32_t a = cpu.link_start[i], b = gpu.link_start[i];
        while (a < cpu.link_start[i + 1] || b < gpu.link_start[i + 1]) {
            uint32_t ta = a < cpu.link_start[i + 1] ? cpu.links[a].target : UINT32_MAX;
            uint32_t tb = b < gpu.link_start[i + 1] ? gpu.links[b].target : UINT32_MAX;
            if (ta == tb) {
                factor_differs += cpu.links[a].factor != gpu.links[b].factor;
                a++, b++;
            } else if (ta < tb) {
                only_cpu++, a++;
            } else {
                only_gpu++, b++;
            }
        }
    }
    printf("links: CPU visibility %u (compiled in %.2f s), GPU visibility %u (%.2f s); only CPU %u, only GPU %u\n",
           cpu.link_count, cpu.compile_seconds, gpu.link_count, gpu.compile_seconds, only_cpu, only_gpu);
    CHECK(factor_differs == 0, "%u shared links with different factors", factor_differs);
    CHECK((only_cpu + only_gpu) * 1000ull <= cpu.link_count, "%u + %u links differ of %u", only_cpu, only_gpu,
          cpu.link_count);
    CHECK(cpu.link_count > 0, "no links");
    cs_radiosity_free(&cpu);
    cs_radiosity_free(&gpu);
}

// Watertightness, with no tolerance: a wall of WALL_N x WALL_N quads of
// two triangles (diagonals alternating), tilted so that its vertices are
// generic floats, and rays from random points in front of it through its
// interior vertices and through points of its interior edges (lattice
// edges and diagonals), which the float rays pass within rounding of, plus
// rays through triangle interiors as a control. Every ray must be stopped,
// nearest and any hit, on the GPU and on the CPU: a ray through an edge or
// vertex that triangles share meets one of them (the watertight test,
// shaders/geometry/bvh.glsl). Moller-Trumbore left some through on
// lavapipe, and FMA contraction (NVIDIA) let light through a closed doorway
// of test_level_light.
#define WALL_N 8
#define WALL_RAYS 4096
enum wall_target { AT_VERTEX, ON_LATTICE_EDGE, ON_DIAGONAL, IN_TRIANGLE, WALL_TARGETS };
static const char *const WALL_TARGET_NAMES[WALL_TARGETS] = {"vertex", "lattice edge", "diagonal", "triangle interior"};

// The wall's point at lattice coordinates (a, b), in double.
static void wall_point(double a, double b, double out[3])
{
    // Two orthonormal, non-axis directions and a generic origin.
    static const double origin[3] = {0.3137, -0.2718, 0.1414};
    static const double ea[3] = {0.48, 0.64, 0.6}, eb[3] = {0.8, -0.36, -0.48};
    for (int k = 0; k < 3; k++)
        out[k] = origin[k] + 0.25 * (a * ea[k] + b * eb[k]);
}

// Vertex (i, j) as the triangles store it (float).
static void wall_vertex(int i, int j, double out[3])
{
    double p[3];
    wall_point(i, j, p);
    for (int k = 0; k < 3; k++)
        out[k] = (float)p[k];
}

static void check_watertight(cs_context *ctx)
{
    cs_tri tris[2 * WALL_N * WALL_N];
    uint32_t n = 0;
    for (int i = 0; i < WALL_N; i++)
        for (int j = 0; j < WALL_N; j++) {
            double c[4][3];
            wall_vertex(i, j, c[0]), wall_vertex(i + 1, j, c[1]), wall_vertex(i + 1, j + 1, c[2]),
                wall_vertex(i, j + 1, c[3]);
            // Diagonal 0-2 or 1-3, alternating like a chequerboard.
            static const int split[2][2][3] = {{{0, 1, 2}, {0, 2, 3}}, {{0, 1, 3}, {1, 2, 3}}};
            for (int t = 0; t < 2; t++) {
                const int *v = split[(i + j) % 2][t];
                tris[n++] = (cs_tri){
                    .v0 = {(float)c[v[0]][0], (float)c[v[0]][1], (float)c[v[0]][2], 0},
                    .v1 = {(float)c[v[1]][0], (float)c[v[1]][1], (float)c[v[1]][2], 0},
                    .v2 = {(float)c[v[2]][0], (float)c[v[2]][1], (float)c[v[2]][2], 0},
                    .albedo = {0.5f, 0.5f, 0.5f, 0},
                };
            }
        }
    cs_bvh bvh;
    cs_error err = {0};
    CS_ASSERT(cs_bvh_build(tris, n, &bvh, &err), "%s", err.msg);
    cs_raycaster rc;
    CS_ASSERT(cs_raycaster_create(ctx, &bvh, WALL_RAYS, &rc, &err), "%s", err.msg);
    cs_ray *rays = malloc(sizeof *rays * WALL_RAYS);
    cs_cast_hit *nearest = malloc(sizeof *nearest * WALL_RAYS), *any = malloc(sizeof *any * WALL_RAYS);
    CS_ASSERT(rays && nearest && any, "out of memory");
    double normal[3], pa[3], pb[3], p0[3];
    wall_point(0, 0, p0), wall_point(1, 0, pa), wall_point(0, 1, pb);
    for (int k = 0; k < 3; k++)
        pa[k] -= p0[k], pb[k] -= p0[k];
    normal[0] = pa[1] * pb[2] - pa[2] * pb[1];
    normal[1] = pa[2] * pb[0] - pa[0] * pb[2];
    normal[2] = pa[0] * pb[1] - pa[1] * pb[0];
    for (int kind = 0; kind < WALL_TARGETS; kind++) {
        for (uint32_t r = 0; r < WALL_RAYS; r++) {
            // Interior lattice points only: the wall's rim has no neighbour.
            int i = 1 + (int)(test_rand_u32() % (WALL_N - 1)), j = 1 + (int)(test_rand_u32() % (WALL_N - 1));
            double target[3], va[3], vb[3], w = test_rand_unit();
            wall_vertex(i, j, va);
            if (kind == AT_VERTEX) {
                memcpy(target, va, sizeof target);
            } else if (kind == ON_LATTICE_EDGE) {
                if (test_rand_u32() % 2)
                    wall_vertex(i + (test_rand_u32() % 2 ? 1 : -1), j, vb);
                else
                    wall_vertex(i, j + (test_rand_u32() % 2 ? 1 : -1), vb);
                for (int k = 0; k < 3; k++)
                    target[k] = va[k] + w * (vb[k] - va[k]);
            } else if (kind == ON_DIAGONAL) {
                // Quad (i, j)'s diagonal: 0-2 or 1-3 as split above.
                int qi = i - 1 + (int)(test_rand_u32() % 2), qj = j - 1 + (int)(test_rand_u32() % 2);
                if ((qi + qj) % 2 == 0)
                    wall_vertex(qi, qj, va), wall_vertex(qi + 1, qj + 1, vb);
                else
                    wall_vertex(qi + 1, qj, va), wall_vertex(qi, qj + 1, vb);
                for (int k = 0; k < 3; k++)
                    target[k] = va[k] + w * (vb[k] - va[k]);
            } else {
                wall_point(i - 1 + 0.1 + 1.8 * w, j - 1 + 0.1 + 1.8 * test_rand_unit(), target);
            }
            // From a random point in front (either side), through the target
            // at t = 0.5, ending as far behind.
            double o[3], d[3], side = test_rand_u32() % 2 ? 1.0 : -1.0;
            for (int k = 0; k < 3; k++)
                o[k] = target[k] + side * (0.2 + test_rand_unit()) * normal[k] / 0.0625 +
                       (test_rand_unit() - 0.5) * 2.0;
            for (int k = 0; k < 3; k++)
                d[k] = 2.0 * (target[k] - o[k]);
            rays[r] = make_ray(o, d, 1.0);
        }
        cs_raycaster_cast(ctx, &rc, rays, WALL_RAYS, false, nearest);
        cs_raycaster_cast(ctx, &rc, rays, WALL_RAYS, true, any);
        uint32_t gpu_missed = 0, gpu_any_missed = 0, cpu_missed = 0, cpu_any_missed = 0;
        for (uint32_t r = 0; r < WALL_RAYS; r++) {
            double o[3] = {rays[r].origin_tmin.x, rays[r].origin_tmin.y, rays[r].origin_tmin.z};
            double d[3] = {rays[r].dir_tmax.x, rays[r].dir_tmax.y, rays[r].dir_tmax.z};
            bool cpu_hit = cs_bvh_cast(&bvh, o, d, 0.0, 1.0).hit, cpu_any = !cs_bvh_unoccluded(&bvh, o, d, 0.0, 1.0);
            gpu_missed += nearest[r].tri == CS_CAST_NO_HIT;
            gpu_any_missed += any[r].tri == CS_CAST_NO_HIT;
            cpu_missed += !cpu_hit;
            cpu_any_missed += !cpu_any;
            if (nearest[r].tri == CS_CAST_NO_HIT || any[r].tri == CS_CAST_NO_HIT || !cpu_hit || !cpu_any)
                fprintf(stderr, "through a %s: ray o (%.9g %.9g %.9g) d (%.9g %.9g %.9g) slips through (GPU nearest %d, "
                        "any %d; CPU nearest %d, any %d)\n", WALL_TARGET_NAMES[kind], o[0], o[1], o[2], d[0], d[1],
                        d[2], nearest[r].tri != CS_CAST_NO_HIT, any[r].tri != CS_CAST_NO_HIT, cpu_hit, cpu_any);
        }
        printf("watertight, through a %-12s: %u rays; slipped through: GPU %u nearest, %u any hit; CPU %u, %u\n",
               WALL_TARGET_NAMES[kind], WALL_RAYS, gpu_missed, gpu_any_missed, cpu_missed, cpu_any_missed);
        CHECK(gpu_missed + gpu_any_missed + cpu_missed + cpu_any_missed == 0,
              "rays through a %s of a closed wall slipped through: GPU %u nearest, %u any hit; CPU %u, %u",
              WALL_TARGET_NAMES[kind], gpu_missed, gpu_any_missed, cpu_missed, cpu_any_missed);
    }
    free(rays), free(nearest), free(any);
    cs_raycaster_destroy(ctx, &rc);
    cs_bvh_free(&bvh);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    cs_scene scene;
    cs_error err = {0};
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_box.json", &scene, &err), "%s", err.msg);
    cs_bvh bvh;
    CS_ASSERT(cs_bvh_build(scene.geometry->tris, scene.geometry->tri_count, &bvh, &err), "%s", err.msg);
    cs_raycaster rc;
    CS_ASSERT(cs_raycaster_create(&ctx, &bvh, 1024, &rc, &err), "%s", err.msg);
    check_nearest(&ctx, &rc, &bvh);
    check_any_hit(&ctx, &rc, &bvh);
    cs_raycaster_destroy(&ctx, &rc);
    check_watertight(&ctx);
    check_link_visibility(&ctx, &scene, &bvh);
    cs_bvh_free(&bvh);
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
