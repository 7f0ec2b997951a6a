// bvh.c — BVH build and CPU traversal (bvh.h).
#include "bvh.h"

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

// Slab test: does the ray enter the box before t_max and leave after t_min?
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
        // A NaN (0 * inf: the ray lies in the slab's plane) keeps the bounds.
        if (t0 > t_min)
            t_min = t0;
        if (t1 < t_max)
            t_max = t1;
    }
    return t_min <= t_max;
}

// Moller-Trumbore; true with *t, *u, *v when the ray meets the triangle
// (either face) at t in (t_min, t_max).
static bool ray_triangle(const cs_tri *tri, const double o[3], const double d[3], double t_min, double t_max,
                         double *t, double *u, double *v)
{
    const double p0[3] = {tri->v0.x, tri->v0.y, tri->v0.z};
    const double e1[3] = {tri->v1.x - p0[0], tri->v1.y - p0[1], tri->v1.z - p0[2]};
    const double e2[3] = {tri->v2.x - p0[0], tri->v2.y - p0[1], tri->v2.z - p0[2]};
    const double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
    double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (det == 0.0)
        return false;
    double inv = 1.0 / det;
    const double s[3] = {o[0] - p0[0], o[1] - p0[1], o[2] - p0[2]};
    double bu = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * inv;
    if (bu < 0.0 || bu > 1.0)
        return false;
    const double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
    double bv = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * inv;
    if (bv < 0.0 || bu + bv > 1.0)
        return false;
    double bt = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv;
    if (!(bt > t_min && bt < t_max))
        return false;
    *t = bt, *u = bu, *v = bv;
    return true;
}

// The walk both casts share; with `any` it returns at the first hit.
static cs_ray_hit walk(const cs_bvh *bvh, const double origin[3], const double dir[3], double t_min, double t_max,
                       bool any)
{
    cs_ray_hit hit = {.hit = false, .t = t_max};
    const double inv_dir[3] = {1.0 / dir[0], 1.0 / dir[1], 1.0 / dir[2]};
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
            if (ray_triangle(&bvh->tris[i], origin, dir, t_min, hit.t, &t, &u, &v)) {
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
