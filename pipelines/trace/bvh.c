// bvh.c — BVH build and CPU traversal (bvh.h).
#include "bvh.h"

// No contraction of a * b + c into an FMA in the ray tests (ray_triangle
// needs it): GCC's default under -std=c17; clang's default contracts.
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// A triangle's centroid coordinate along the axis being split, and which
// triangle it is; sorted to split a node at its median.
typedef struct sort_key {
    float key;
    uint32_t index;
} sort_key;

typedef struct build_state {
    const cs_tri *input;
    uint32_t *order;         // input indices in leaf order, being arranged
    float (*centroids)[3];
    sort_key *keys;          // scratch for one node's sort
    cs_bvh_node *nodes;
    uint32_t node_count;
    uint32_t depth;
} build_state;

static int compare_keys(const void *a, const void *b)
{
    const sort_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    // Equal centroids: input order, so the build is the same on every libc.
    return x->index < y->index ? -1 : x->index > y->index;
}

static void grow_box(float lo[3], float hi[3], const vec4 *p)
{
    const float c[3] = {p->x, p->y, p->z};
    for (int k = 0; k < 3; k++) {
        lo[k] = fminf(lo[k], c[k]);
        hi[k] = fmaxf(hi[k], c[k]);
    }
}

// Fills node `index` for triangles order[first .. first + count) and
// builds its subtree.
static void build_node(build_state *s, uint32_t index, uint32_t first, uint32_t count, uint32_t level)
{
    if (level > s->depth)
        s->depth = level;
    float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    float clo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, chi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (uint32_t i = first; i < first + count; i++) {
        const cs_tri *t = &s->input[s->order[i]];
        grow_box(lo, hi, &t->v0);
        grow_box(lo, hi, &t->v1);
        grow_box(lo, hi, &t->v2);
        const float *c = s->centroids[s->order[i]];
        for (int k = 0; k < 3; k++) {
            clo[k] = fminf(clo[k], c[k]);
            chi[k] = fmaxf(chi[k], c[k]);
        }
    }
    cs_bvh_node *node = &s->nodes[index];
    node->lo = (vec4){lo[0], lo[1], lo[2], 0.0f};
    node->hi = (vec4){hi[0], hi[1], hi[2], 0.0f};
    if (count <= CS_BVH_LEAF_SIZE) {
        node->link = (uvec4){first, count, 0, 0};
        return;
    }
    int axis = 0;
    for (int k = 1; k < 3; k++) {
        if (chi[k] - clo[k] > chi[axis] - clo[axis])
            axis = k;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t tri = s->order[first + i];
        s->keys[i] = (sort_key){s->centroids[tri][axis], tri};
    }
    qsort(s->keys, count, sizeof *s->keys, compare_keys);
    for (uint32_t i = 0; i < count; i++)
        s->order[first + i] = s->keys[i].index;
    uint32_t left = s->node_count;
    s->node_count += 2;
    s->nodes[index].link = (uvec4){left, 0, 0, 0};
    uint32_t half = count / 2;
    build_node(s, left, first, half, level + 1);
    build_node(s, left + 1, first + half, count - half, level + 1);
}

bool cs_bvh_build(const cs_tri *tris, uint32_t count, cs_bvh *bvh, cs_error *err)
{
    *bvh = (cs_bvh){0};
    // A binary tree with leaves of >= 1 triangle has at most 2n - 1 nodes.
    uint32_t max_nodes = count ? 2 * count - 1 : 1;
    build_state s = {.input = tris};
    s.order = malloc((size_t)(count ? count : 1) * sizeof *s.order);
    s.centroids = malloc((size_t)(count ? count : 1) * sizeof *s.centroids);
    s.keys = malloc((size_t)(count ? count : 1) * sizeof *s.keys);
    s.nodes = calloc(max_nodes, sizeof *s.nodes);
    bvh->tris = malloc((size_t)(count ? count : 1) * sizeof *bvh->tris);
    if (!s.order || !s.centroids || !s.keys || !s.nodes || !bvh->tris) {
        free(s.order), free(s.centroids), free(s.keys), free(s.nodes), free(bvh->tris);
        *bvh = (cs_bvh){0};
        return cs_fail(err, "bvh: out of memory for %u triangles", count);
    }
    for (uint32_t i = 0; i < count; i++) {
        const cs_tri *t = &tris[i];
        s.order[i] = i;
        s.centroids[i][0] = (t->v0.x + t->v1.x + t->v2.x) / 3.0f;
        s.centroids[i][1] = (t->v0.y + t->v1.y + t->v2.y) / 3.0f;
        s.centroids[i][2] = (t->v0.z + t->v1.z + t->v2.z) / 3.0f;
    }
    s.node_count = 1;
    if (count)
        build_node(&s, 0, 0, count, 1);
    else
        s.nodes[0] = (cs_bvh_node){.lo = {1, 1, 1, 0}, .hi = {-1, -1, -1, 0}, .link = {0, 0, 0, 0}};
    for (uint32_t i = 0; i < count; i++)
        bvh->tris[i] = tris[s.order[i]];
    free(s.centroids);
    free(s.keys);
    bvh->nodes = s.nodes;
    bvh->node_count = s.node_count;
    bvh->tri_source = s.order;
    bvh->tri_count = count;
    bvh->depth = count ? s.depth : 1;
    return true;
}

void cs_bvh_free(cs_bvh *bvh)
{
    if (!bvh)
        return;
    free(bvh->nodes);
    free(bvh->tris);
    free(bvh->tri_source);
    *bvh = (cs_bvh){0};
}

// 1 + 2 gamma(3), gamma(n) = n u / (1 - n u), u = 2^-53, rounded up to a
// double: the far bound's widening (shaders/geometry/bvh.glsl has the float
// one).
#define BVH_FAR_PAD (1.0 + 4.0 * DBL_EPSILON)

// Slab test: does the ray enter the box before t_max and leave after t_min?
// The far bound is widened by 1 + 2 gamma(3) (Ize 2013, "Robust BVH Ray
// Traversal"): a ray through a triangle's edge or vertex on its box's face
// is never culled by the box's rounding.
static bool ray_box(const cs_bvh_node *node, const double origin[3], const double inv_dir[3], double t_min,
                    double t_max)
{
    const double lo[3] = {node->lo.x, node->lo.y, node->lo.z}, hi[3] = {node->hi.x, node->hi.y, node->hi.z};
    for (int k = 0; k < 3; k++) {
        double t0 = (lo[k] - origin[k]) * inv_dir[k];
        double t1 = (hi[k] - origin[k]) * inv_dir[k];
        if (t0 > t1) {
            double swap = t0;
            t0 = t1, t1 = swap;
        }
        t1 *= BVH_FAR_PAD;
        // A NaN (0 * inf: the ray lies in the slab's plane) keeps the bounds.
        if (t0 > t_min)
            t_min = t0;
        if (t1 < t_max)
            t_max = t1;
    }
    return t_min <= t_max;
}

// A ray prepared for the watertight test (shaders/geometry/bvh.glsl's
// bvh_prepare_ray): kz the axis of the largest direction component, kx and
// ky the next two (swapped when d[kz] < 0), the shear onto +z.
typedef struct prepared_ray {
    double o[3];
    int kx, ky, kz;
    double sx, sy, sz;
    bool valid; // false for a zero direction: meets nothing
} prepared_ray;

static prepared_ray prepare_ray(const double o[3], const double d[3])
{
    prepared_ray r = {.o = {o[0], o[1], o[2]}};
    double a[3] = {fabs(d[0]), fabs(d[1]), fabs(d[2])};
    r.kz = a[0] > a[1] ? (a[0] > a[2] ? 0 : 2) : (a[1] > a[2] ? 1 : 2);
    r.kx = r.kz == 2 ? 0 : r.kz + 1;
    r.ky = r.kx == 2 ? 0 : r.kx + 1;
    if (d[r.kz] < 0.0) {
        int swap = r.kx;
        r.kx = r.ky, r.ky = swap;
    }
    r.valid = d[r.kz] != 0.0;
    if (r.valid) {
        double inv_z = 1.0 / d[r.kz];
        r.sx = d[r.kx] * inv_z, r.sy = d[r.ky] * inv_z, r.sz = inv_z;
    }
    return r;
}

// Whether an edge through the ray, going (dx, dy) in the sheared plane with
// the triangle's winding made positive, belongs to the triangle (the
// top-left rule: the neighbour across it goes (-dx, -dy)), as
// shaders/geometry/bvh.glsl's bvh_top_left.
static bool top_left(double dx, double dy)
{
    return dy > 0.0 || (dy == 0.0 && dx < 0.0);
}

// The watertight ray/triangle test (Woop, Benthin, Wald 2013), both faces,
// as shaders/geometry/bvh.glsl's (which says why): true with *t, *u, *v
// (barycentrics of v1 and v2) when the ray meets the triangle at t in
// (t_min, t_max). A ray through an edge or vertex that triangles share
// meets exactly one of them: the edge functions of a shared edge are exact
// negations (no FP contraction in this file: see the top), and one of
// exactly 0 goes by the top-left rule.
static bool ray_triangle(const cs_tri *tri, const prepared_ray *r, double t_min, double t_max, double *t, double *u,
                         double *v)
{
    if (!r->valid)
        return false;
    const double a[3] = {tri->v0.x - r->o[0], tri->v0.y - r->o[1], tri->v0.z - r->o[2]};
    const double b[3] = {tri->v1.x - r->o[0], tri->v1.y - r->o[1], tri->v1.z - r->o[2]};
    const double c[3] = {tri->v2.x - r->o[0], tri->v2.y - r->o[1], tri->v2.z - r->o[2]};
    double az = a[r->kz], bz = b[r->kz], cz = c[r->kz];
    double ax = a[r->kx] - r->sx * az, ay = a[r->ky] - r->sy * az;
    double bx = b[r->kx] - r->sx * bz, by = b[r->ky] - r->sy * bz;
    double cx = c[r->kx] - r->sx * cz, cy = c[r->ky] - r->sy * cz;
    double e0 = cx * by - cy * bx;
    double e1 = ax * cy - ay * cx;
    double e2 = bx * ay - by * ax;
    if ((e0 < 0.0 || e1 < 0.0 || e2 < 0.0) && (e0 > 0.0 || e1 > 0.0 || e2 > 0.0))
        return false;
    double det = e0 + e1 + e2;
    if (det == 0.0)
        return false;
    if (e0 == 0.0 || e1 == 0.0 || e2 == 0.0) {
        double w = det > 0.0 ? 1.0 : -1.0;
        if ((e0 == 0.0 && !top_left(w * (cx - bx), w * (cy - by))) ||
            (e1 == 0.0 && !top_left(w * (ax - cx), w * (ay - cy))) ||
            (e2 == 0.0 && !top_left(w * (bx - ax), w * (by - ay))))
            return false;
    }
    double t_det = e0 * (r->sz * az) + e1 * (r->sz * bz) + e2 * (r->sz * cz);
    double inv = 1.0 / det;
    double bt = t_det * inv;
    if (!(bt > t_min && bt < t_max))
        return false;
    *t = bt, *u = e1 * inv, *v = e2 * inv;
    return true;
}

// The walk both casts share; with `any` it returns at the first hit.
static cs_ray_hit walk(const cs_bvh *bvh, const double origin[3], const double dir[3], double t_min, double t_max,
                       bool any)
{
    cs_ray_hit hit = {.hit = false, .t = t_max};
    const double inv_dir[3] = {1.0 / dir[0], 1.0 / dir[1], 1.0 / dir[2]};
    const prepared_ray ray = prepare_ray(origin, dir);
    uint32_t stack[CS_BVH_STACK];
    uint32_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const cs_bvh_node *node = &bvh->nodes[stack[--top]];
        if (!ray_box(node, origin, inv_dir, t_min, hit.t))
            continue;
        // An inner node: no count, and children, which never include the
        // root (link (0, 0) is the empty geometry's leaf).
        if (node->link.y == 0 && node->link.x != 0) {
            CS_ASSERT(top + 2 <= CS_BVH_STACK, "bvh: stack of %u exceeded", CS_BVH_STACK);
            stack[top++] = node->link.x + 1;
            stack[top++] = node->link.x;
            continue;
        }
        for (uint32_t i = node->link.x; i < node->link.x + node->link.y; i++) {
            double t, u, v;
            if (ray_triangle(&bvh->tris[i], &ray, t_min, hit.t, &t, &u, &v)) {
                hit = (cs_ray_hit){.hit = true, .t = t, .tri = i, .u = u, .v = v};
                if (any)
                    return hit;
            }
        }
    }
    return hit;
}

cs_ray_hit cs_bvh_cast(const cs_bvh *bvh, const double origin[3], const double dir[3], double t_min, double t_max)
{
    return walk(bvh, origin, dir, t_min, t_max, false);
}

bool cs_bvh_unoccluded(const cs_bvh *bvh, const double origin[3], const double dir[3], double t_min, double t_max)
{
    return !walk(bvh, origin, dir, t_min, t_max, true).hit;
}
