// test_boundary.c — the boundary set (pipelines/core/boundary.h,
// shaders/common/boundary.glsl): the host builder's layout, and
// cs_boundary_nearest on the GPU against a double-precision reference, for
// 2D and 3D boxes with 0, 1, 3 and 16 walls and points inside, outside, on
// faces, on edges and corners, on walls, and far away. The output buffer is
// poisoned (NaN) first, so an unwritten element or a NaN never passes.
// ctest labels: quick,gpu -- 0.2
#include "test_util.h"

#include "boundary.h"

#include <float.h>

#define POINTS_PER_CASE 2048

// A random scene: box corners in [-3, 1] with extents in [0.5, 4.5], and
// `walls` planes with random unit normals through random points of the box
// (so they cut it). In 2D z is 0 everywhere.
static void random_scene(int dim, uint32_t walls, cs_scene *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "boundary test (%dD, walls: %u)", dim, walls);
    s->dim = dim;
    for (int a = 0; a < dim; a++) {
        s->domain_min[a] = (float)(-3.0 + 4.0 * test_rand_unit());
        s->domain_max[a] = (float)(s->domain_min[a] + 0.5 + 4.0 * test_rand_unit());
    }
    s->wall_count = walls;
    for (uint32_t w = 0; w < walls; w++) {
        double n[3] = {0, 0, 0}, len = 0.0;
        while (len < 0.1) {
            len = 0.0;
            for (int a = 0; a < dim; a++) {
                n[a] = 2.0 * test_rand_unit() - 1.0;
                len += n[a] * n[a];
            }
            len = sqrt(len);
        }
        // As the parser stores a wall: the normal and offset divided by |n|.
        double offset = 0.0;
        for (int a = 0; a < dim; a++) {
            s->walls[w].normal[a] = (float)(n[a] / len);
            double through = s->domain_min[a] + test_rand_unit() * (s->domain_max[a] - s->domain_min[a]);
            offset += (double)s->walls[w].normal[a] * through;
        }
        s->walls[w].offset = (float)offset;
    }
}

// Half-space k of the scene as the reference sees it, in double, from the
// scene itself (not from the built set): box faces first (per axis, low
// then high), then the walls.
static void ref_plane(const cs_scene *s, uint32_t k, double n[3], double *w)
{
    n[0] = n[1] = n[2] = 0.0;
    uint32_t faces = 2u * (uint32_t)s->dim;
    if (k < faces) {
        int a = (int)(k / 2);
        n[a] = k % 2 ? -1.0 : 1.0;
        *w = k % 2 ? -(double)s->domain_max[a] : (double)s->domain_min[a];
        return;
    }
    const cs_wall *wall = &s->walls[k - faces];
    for (int a = 0; a < s->dim; a++)
        n[a] = wall->normal[a];
    *w = wall->offset;
}

// Signed distance to half-space k in double, and a bound on the float
// evaluation's error (a dot product of 3 terms and a subtraction: a few
// ulps of the terms' magnitudes).
static double ref_distance(const cs_scene *s, uint32_t k, const float x[3], double *tol)
{
    double n[3], w;
    ref_plane(s, k, n, &w);
    double d = -w, mag = fabs(w);
    for (int a = 0; a < s->dim; a++) {
        d += n[a] * x[a];
        mag += fabs(n[a] * x[a]);
    }
    *tol = 8.0 * FLT_EPSILON * mag + 1e-30;
    return d;
}

// The points of one case, by kind (every kind gets a share).
enum { P_INSIDE, P_OUTSIDE, P_FACE, P_CORNER, P_WALL, P_FAR, P_KINDS };
static const char *const kind_names[P_KINDS] = {"inside", "outside", "on a face", "on an edge or corner",
                                                "on a wall", "far"};

static void make_point(const cs_scene *s, int kind, float x[3])
{
    int dim = s->dim;
    for (int a = 0; a < 3; a++) {
        double lo = a < dim ? s->domain_min[a] : -5.0, hi = a < dim ? s->domain_max[a] : 5.0; // 2D: any z
        double ext = hi - lo;
        switch (kind) {
        case P_OUTSIDE: x[a] = (float)(lo - 0.5 * ext + 2.0 * ext * test_rand_unit()); break;
        case P_FAR: x[a] = (float)((test_rand_unit() < 0.5 ? -1.0 : 1.0) * (100.0 + 1000.0 * test_rand_unit())); break;
        default: x[a] = (float)(lo + ext * test_rand_unit()); break;
        }
    }
    if (kind == P_FACE) {
        int a = (int)(test_rand_u32() % (uint32_t)dim);
        x[a] = test_rand_u32() & 1u ? s->domain_max[a] : s->domain_min[a];
    } else if (kind == P_CORNER) {
        // Two axes or more on a face: an edge (3D) or a corner.
        uint32_t mask = 0, bits = 0;
        while (bits < 2) {
            mask = test_rand_u32() & ((1u << dim) - 1u);
            bits = (mask & 1u) + (mask >> 1 & 1u) + (mask >> 2 & 1u);
        }
        for (int a = 0; a < dim; a++)
            if (mask & (1u << a))
                x[a] = test_rand_u32() & 1u ? s->domain_max[a] : s->domain_min[a];
    } else if (kind == P_WALL && s->wall_count) {
        // Onto a wall (to float rounding): its plane is then among the nearest.
        const cs_wall *wall = &s->walls[test_rand_u32() % s->wall_count];
        double d = -(double)wall->offset;
        for (int a = 0; a < dim; a++)
            d += (double)wall->normal[a] * x[a];
        for (int a = 0; a < dim; a++)
            x[a] = (float)(x[a] - d * wall->normal[a]);
    }
}

// Checks the builder's layout against the scene: counts, the box faces'
// exact planes, the walls in order (2D: z = 0).
static void check_set(const cs_scene *s, const cs_boundary_set *set)
{
    uint32_t faces = 2u * (uint32_t)s->dim;
    CHECK(set->counts.x == faces + s->wall_count && set->counts.y == faces && set->counts.z == (uint32_t)s->dim,
          "%s: counts (%u, %u, %u)", s->name, set->counts.x, set->counts.y, set->counts.z);
    for (uint32_t k = 0; k < set->counts.x; k++) {
        double n[3], w;
        ref_plane(s, k, n, &w);
        const vec4 *p = &set->planes[k];
        CHECK(p->x == (float)n[0] && p->y == (float)n[1] && p->z == (float)n[2] && p->w == (float)w,
              "%s: plane %u is (%g %g %g, %g), the scene says (%g %g %g, %g)", s->name, k, p->x, p->y, p->z, p->w,
              n[0], n[1], n[2], w);
    }
}

static void run_case(cs_context *ctx, cs_program_id prog, int dim, uint32_t walls)
{
    cs_scene s;
    random_scene(dim, walls, &s);
    cs_boundary_set set;
    cs_error err;
    bool built = cs_boundary_set_build(&s, &set, &err);
    CHECK(built, "%s: %s", s.name, err.msg);
    if (!built)
        return;
    check_set(&s, &set);

    const uint32_t n = POINTS_PER_CASE;
    float *points = calloc((size_t)n * 4, sizeof(float));
    float *out = malloc((size_t)n * 4 * sizeof(float));
    int *kinds = malloc(n * sizeof(int));
    CS_ASSERT(points && out && kinds, "out of host memory");
    for (uint32_t i = 0; i < n; i++) {
        kinds[i] = (int)(i % P_KINDS);
        make_point(&s, kinds[i], &points[4 * i]);
    }
    // Two points with a NaN coordinate: the distance must come back NaN
    // (never "far from everything") with a real normal (not the poison).
    points[4 * 0 + 1] = NAN;
    points[4 * 1 + 0] = NAN;

    cs_buffer set_buf, pts_buf, out_buf;
    test_buffer(ctx, &set_buf, "boundary set", sizeof set);
    test_buffer(ctx, &pts_buf, "points", (VkDeviceSize)n * 16);
    test_buffer(ctx, &out_buf, "nearest", (VkDeviceSize)n * 16);
    cs_buffer_upload(ctx, &set_buf, &set, sizeof set, 0);
    cs_buffer_upload(ctx, &pts_buf, points, (VkDeviceSize)n * 16, 0);
    cs_buffer_fill(ctx, &out_buf, CS_POISON_U32);
    cs_recorder rec;
    cs_recorder_create(ctx, "boundary nearest", &rec);
    cs_recorder_begin(&rec);
    cs_pass_begin(&rec, "nearest");
    cs_dispatch(&rec, prog,
                &(cs_dispatch_desc){.buffers = {&set_buf, &pts_buf, &out_buf}, .push = &n, .push_size = 4, .threads = {n}});
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    cs_buffer_download(ctx, &out_buf, out, (VkDeviceSize)n * 16, 0);
    cs_recorder_destroy(&rec);

    uint32_t count = set.counts.x, faces = set.counts.y;
    int failures_before = test_failures, reported = 0;
    double worst = 0.0;
    for (uint32_t i = 0; i < n && reported < 8; i++) {
        const float *x = &points[4 * i];
        const float *g = &out[4 * i];
        int before = test_failures;
        bool real_normal = false;
        for (uint32_t k = 0; k < count; k++)
            real_normal |= g[0] == set.planes[k].x && g[1] == set.planes[k].y && g[2] == set.planes[k].z;
        if (i < 2) {
            CHECK(isnan(g[3]) && real_normal, "%s: x has a NaN, got (%g %g %g, %g)", s.name, g[0], g[1], g[2], g[3]);
            reported += test_failures != before;
            continue;
        }
        CHECK(!test_not_finite(g[0]) && !test_not_finite(g[1]) && !test_not_finite(g[2]) && !test_not_finite(g[3]),
              "%s: point %u (%s) came back (%g %g %g, %g)", s.name, i, kind_names[kinds[i]], g[0], g[1], g[2], g[3]);
        CHECK(real_normal, "%s: point %u: normal (%g %g %g) is no plane's", s.name, i, g[0], g[1], g[2]);
        if (test_failures != before) {
            reported++;
            continue;
        }
        // The reference minimum, and which planes could be it to rounding.
        double dmin = INFINITY, tmin = 0.0, d[CS_BOUNDARY_MAX_PLANES], t[CS_BOUNDARY_MAX_PLANES];
        for (uint32_t k = 0; k < count; k++) {
            d[k] = ref_distance(&s, k, x, &t[k]);
            if (d[k] < dmin)
                dmin = d[k], tmin = t[k];
        }
        double err_d = fabs((double)g[3] - dmin);
        worst = fmax(worst, err_d / (tmin + 1e-30));
        CHECK(err_d <= tmin, "%s: point %u (%s) (%.9g %.9g %.9g): distance %.9g, reference %.9g (tolerance %.3g)",
              s.name, i, kind_names[kinds[i]], x[0], x[1], x[2], g[3], dmin, tmin);
        bool candidate = false, wall_near = false;
        for (uint32_t k = 0; k < count; k++) {
            bool near_min = d[k] <= dmin + t[k] + tmin;
            wall_near |= near_min && k >= faces;
            candidate |= near_min && g[0] == set.planes[k].x && g[1] == set.planes[k].y && g[2] == set.planes[k].z;
        }
        CHECK(candidate, "%s: point %u (%s): normal (%g %g %g) belongs to no nearest plane (distance %.9g)", s.name,
              i, kind_names[kinds[i]], g[0], g[1], g[2], dmin);
        // Box faces are exact (one float subtraction): where no wall is in
        // the running, the distance is dmin rounded once, and the normal is
        // the lowest-index face at that distance (ties: box faces in order).
        if (!wall_near) {
            float want = (float)dmin;
            uint32_t first = count;
            for (uint32_t k = 0; k < faces && first == count; k++)
                if ((float)d[k] == want)
                    first = k;
            CHECK(g[3] == want, "%s: point %u (%s): box distance %.9g, exactly %.9g expected", s.name, i,
                  kind_names[kinds[i]], g[3], want);
            CHECK(first < count && g[0] == set.planes[first].x && g[1] == set.planes[first].y &&
                      g[2] == set.planes[first].z,
                  "%s: point %u (%s): normal (%g %g %g), face %u expected (lowest index wins a tie)", s.name, i,
                  kind_names[kinds[i]], g[0], g[1], g[2], first);
        }
        if (dim == 2)
            CHECK(g[2] == 0.0f, "%s: point %u: 2D normal has z = %g", s.name, i, g[2]);
        reported += test_failures != before;
    }
    fprintf(stderr, "%s: %u points, worst distance error %.2f of its tolerance%s\n", s.name, n, worst,
            test_failures != failures_before ? " (FAILED)" : "");

    cs_buffer_destroy(ctx, &set_buf);
    cs_buffer_destroy(ctx, &pts_buf);
    cs_buffer_destroy(ctx, &out_buf);
    free(points);
    free(out);
    free(kinds);
}

// The builder refuses what the set cannot hold, naming the scene.
static void check_refusals(void)
{
    cs_scene s;
    random_scene(3, 0, &s);
    s.wall_count = CS_BOUNDARY_MAX_WALLS + 1;
    cs_boundary_set set;
    cs_error err = {0};
    CHECK(!cs_boundary_set_build(&s, &set, &err) && strstr(err.msg, "17 walls, at most 16") &&
              strstr(err.msg, "boundary test"),
          "too many walls: '%s'", err.msg);
    s.wall_count = 0;
    s.dim = 4;
    CHECK(!cs_boundary_set_build(&s, &set, &err) && strstr(err.msg, "dim"), "dim 4: '%s'", err.msg);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    cs_program_id prog;
    test_program(&ctx, &prog, "test/boundary_nearest.comp", NULL);
    static const uint32_t wall_counts[] = {0, 1, 3, CS_BOUNDARY_MAX_WALLS};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t w = 0; w < CS_ARRAY_COUNT(wall_counts); w++)
            run_case(&ctx, prog, dim, wall_counts[w]);
    check_refusals();
    cs_program_destroy(&ctx, &prog);
    return test_finish(&ctx);
}
