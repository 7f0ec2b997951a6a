// radiosity_cluster.c — the k-means cluster tree, hierarchical links and
// their visibility (see radiosity_cluster.h for the rules).
#include "radiosity_cluster.h"

#include "raycast.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;
// Links whose visibility is cast at once (at most CS_CLUSTER_REPS rays each).
#define VISIBILITY_LINKS (1u << 18)

cs_hierarchy_options cs_hierarchy_options_default(void)
{
    return (cs_hierarchy_options){.ratio = 0.25, .max_spread = 30.0 * PI / 180.0, .branching = 4, .iterations = 6};
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double length3(const double a[3])
{
    return sqrt(dot3(a, a));
}

static double distance3(const double a[3], const double b[3])
{
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return length3(d);
}

// The angle between two directions (any lengths > 0); atan2 keeps the
// small angles between nearly equal float normals (acos would give 1e-4
// for what is 1e-7).
static double angle_between(const double a[3], const double b[3])
{
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    return atan2(length3(c), dot3(a, b));
}

// A patch as a node of the tree: a cluster of itself. Its emission is
// relative to the brightest channel of any patch (brightest_emission).
static cs_cluster patch_node(const cs_radiosity_compiled *c, uint32_t i, double brightest_emission)
{
    const cs_patch *p = &c->patches[i];
    double e = brightest_emission > 0.0 ? 1.0 / brightest_emission : 0.0;
    cs_cluster n = {.center = {p->center_area.x, p->center_area.y, p->center_area.z},
                    .area = p->center_area.w,
                    .normal = {p->normal.x, p->normal.y, p->normal.z},
                    .albedo = {p->albedo.x, p->albedo.y, p->albedo.z},
                    .emission = {e * p->emission.x, e * p->emission.y, e * p->emission.z}};
    for (int k = 0; k < 3; k++)
        n.box_min[k] = INFINITY, n.box_max[k] = -INFINITY;
    n.slab_min = INFINITY;
    for (int v = 0; v < 3; v++) {
        double corner[3] = {c->corners[i][v][0], c->corners[i][v][1], c->corners[i][v][2]};
        n.radius = fmax(n.radius, distance3(corner, n.center));
        n.slab_min = fmin(n.slab_min, dot3(corner, n.normal));
        for (int k = 0; k < 3; k++)
            n.box_min[k] = fmin(n.box_min[k], corner[k]), n.box_max[k] = fmax(n.box_max[k], corner[k]);
    }
    for (uint32_t r = 0; r < CS_CLUSTER_REPS; r++)
        n.reps[r] = i;
    return n;
}

// ---- k-means, one round --------------------------------------------------

typedef struct centre {
    double position[3], normal[3], albedo[3], emission[3];
} centre;

// A node's unit normal direction (0 when its normals cancel).
static void unit_normal(const cs_cluster *n, double out[3])
{
    double len = length3(n->normal);
    for (int k = 0; k < 3; k++)
        out[k] = len > 1e-12 ? n->normal[k] / len : 0.0;
}

// Emission in the features is scaled so that a lamp and a wall next to it
// are as far apart as EMISSION_WEIGHT cluster sizes: a cluster's one
// radiosity must not spread a lamp's light over its neighbours.
#define EMISSION_WEIGHT 4.0

static double feature_distance(const cs_cluster *n, const centre *c, double inv_scale2)
{
    double un[3], d = 0.0;
    unit_normal(n, un);
    for (int k = 0; k < 3; k++) {
        double dx = n->center[k] - c->position[k], dn = un[k] - c->normal[k], da = n->albedo[k] - c->albedo[k];
        double de = EMISSION_WEIGHT * (n->emission[k] - c->emission[k]);
        d += dx * dx * inv_scale2 + dn * dn + da * da + de * de;
    }
    return d;
}

static void assign(const cs_cluster *nodes, const uint32_t *list, uint32_t m, const centre *centres, uint32_t k_count,
                   double inv_scale2, uint32_t *owner)
{
    for (uint32_t a = 0; a < m; a++) {
        double best = INFINITY;
        uint32_t best_k = 0;
        for (uint32_t k = 0; k < k_count; k++) {
            double d = feature_distance(&nodes[list[a]], &centres[k], inv_scale2);
            if (d < best) // strict: ties go to the lower index
                best = d, best_k = k;
        }
        owner[a] = best_k;
    }
}

// Each centre: the area-weighted mean of its members (kept when empty).
static void update(const cs_cluster *nodes, const uint32_t *list, uint32_t m, const uint32_t *owner, centre *centres,
                   uint32_t k_count, double *weight)
{
    memset(weight, 0, k_count * sizeof *weight);
    centre *sum = calloc(k_count, sizeof *sum);
    CS_ASSERT(sum, "radiosity: out of memory");
    for (uint32_t a = 0; a < m; a++) {
        const cs_cluster *n = &nodes[list[a]];
        double un[3];
        unit_normal(n, un);
        centre *s = &sum[owner[a]];
        for (int k = 0; k < 3; k++) {
            s->position[k] += n->area * n->center[k];
            s->normal[k] += n->area * un[k];
            s->albedo[k] += n->area * n->albedo[k];
            s->emission[k] += n->area * n->emission[k];
        }
        weight[owner[a]] += n->area;
    }
    for (uint32_t k = 0; k < k_count; k++) {
        if (!(weight[k] > 0.0))
            continue;
        double nl = length3(sum[k].normal);
        for (int v = 0; v < 3; v++) {
            centres[k].position[v] = sum[k].position[v] / weight[k];
            centres[k].normal[v] = nl > 1e-12 ? sum[k].normal[v] / nl : 0.0;
            centres[k].albedo[v] = sum[k].albedo[v] / weight[k];
            centres[k].emission[v] = sum[k].emission[v] / weight[k];
        }
    }
    free(sum);
}

// ---- clusters from groups --------------------------------------------------

typedef struct tree_builder {
    cs_cluster *nodes;       // patches then clusters
    uint32_t node_count;
    uint32_t patch_count;
    uint32_t *child_start;   // per cluster, into children
    cs_link *children;
    uint32_t child_count;
} tree_builder;

// Children of one new cluster ordered by area, largest first, ties by
// node id: the representatives come from the largest ones.
static void sort_by_area(const cs_cluster *nodes, uint32_t *ids, uint32_t count)
{
    for (uint32_t a = 1; a < count; a++) {
        uint32_t id = ids[a], b = a;
        while (b > 0 && (nodes[ids[b - 1]].area < nodes[id].area ||
                         (nodes[ids[b - 1]].area == nodes[id].area && ids[b - 1] > id))) {
            ids[b] = ids[b - 1];
            b--;
        }
        ids[b] = id;
    }
}

// The lowest m . corner over every patch corner under `node`.
static double lowest_along(const tree_builder *t, const cs_radiosity_compiled *c, uint32_t node, const double m[3])
{
    if (node < t->patch_count) {
        double low = INFINITY;
        for (int v = 0; v < 3; v++) {
            double corner[3] = {c->corners[node][v][0], c->corners[node][v][1], c->corners[node][v][2]};
            low = fmin(low, dot3(corner, m));
        }
        return low;
    }
    uint32_t k = node - t->patch_count;
    double low = INFINITY;
    for (uint32_t l = t->child_start[k]; l < t->child_start[k + 1]; l++)
        low = fmin(low, lowest_along(t, c, t->children[l].target, m));
    return low;
}

static uint32_t make_cluster(tree_builder *t, const cs_radiosity_compiled *compiled, const uint32_t *members,
                             uint32_t count)
{
    uint32_t id = t->node_count++;
    cs_cluster *c = &t->nodes[id];
    *c = (cs_cluster){0};
    for (uint32_t a = 0; a < count; a++) {
        const cs_cluster *n = &t->nodes[members[a]];
        c->area += n->area;
        for (int k = 0; k < 3; k++) {
            c->center[k] += n->area * n->center[k];
            c->normal[k] += n->area * n->normal[k];
            c->albedo[k] += n->area * n->albedo[k];
            c->emission[k] += n->area * n->emission[k];
        }
    }
    for (int k = 0; k < 3; k++) {
        c->center[k] /= c->area;
        c->normal[k] /= c->area;
        c->albedo[k] /= c->area;
        c->emission[k] /= c->area;
    }
    bool has_direction = length3(c->normal) > 1e-9;
    uint32_t cluster = id - t->patch_count;
    t->child_start[cluster] = t->child_count;
    for (int k = 0; k < 3; k++)
        c->box_min[k] = INFINITY, c->box_max[k] = -INFINITY;
    for (uint32_t a = 0; a < count; a++) {
        const cs_cluster *n = &t->nodes[members[a]];
        for (int k = 0; k < 3; k++)
            c->box_min[k] = fmin(c->box_min[k], n->box_min[k]), c->box_max[k] = fmax(c->box_max[k], n->box_max[k]);
        c->radius = fmax(c->radius, distance3(n->center, c->center) + n->radius);
        double child_spread = length3(n->normal) > 1e-9 && has_direction ? angle_between(n->normal, c->normal) : PI;
        c->spread = fmin(PI, fmax(c->spread, child_spread + n->spread));
        t->children[t->child_count++] = (cs_link){members[a], (float)(n->area / c->area)};
    }
    t->child_start[cluster + 1] = t->child_count;
    double m[3];
    unit_normal(c, m);
    c->slab_min = has_direction ? lowest_along(t, compiled, id, m) : -INFINITY;
    uint32_t *sorted = malloc(count * sizeof *sorted);
    CS_ASSERT(sorted, "radiosity: out of memory");
    memcpy(sorted, members, count * sizeof *sorted);
    sort_by_area(t->nodes, sorted, count);
    for (uint32_t r = 0; r < CS_CLUSTER_REPS; r++)
        c->reps[r] = t->nodes[sorted[r % count]].reps[(r / count) % CS_CLUSTER_REPS];
    free(sorted);
    return id;
}

// One round: clusters `list` (m nodes) into groups; every group of two or
// more becomes a cluster, and the new list (clusters and lone nodes, in
// cluster order) replaces `list`. Returns the new length.
static uint32_t cluster_round(tree_builder *t, const cs_radiosity_compiled *c, uint32_t *list, uint32_t m,
                              const cs_hierarchy_options *o)
{
    uint32_t k_count = (m + o->branching - 1) / o->branching;
    centre *centres = calloc(k_count, sizeof *centres);
    uint32_t *owner = malloc(m * sizeof *owner), *members = malloc(m * sizeof *members);
    double *weight = malloc(k_count * sizeof *weight);
    CS_ASSERT(centres && owner && members && weight, "radiosity: out of memory");
    double area = 0.0;
    for (uint32_t a = 0; a < m; a++)
        area += t->nodes[list[a]].area;
    double inv_scale2 = (double)k_count / area;
    for (uint32_t k = 0; k < k_count; k++) {
        const cs_cluster *seed = &t->nodes[list[(uint32_t)(((2ull * k + 1) * m) / (2ull * k_count))]];
        memcpy(centres[k].position, seed->center, sizeof centres[k].position);
        unit_normal(seed, centres[k].normal);
        memcpy(centres[k].albedo, seed->albedo, sizeof centres[k].albedo);
        memcpy(centres[k].emission, seed->emission, sizeof centres[k].emission);
    }
    for (uint32_t it = 0; it < o->iterations; it++) {
        assign(t->nodes, list, m, centres, k_count, inv_scale2, owner);
        if (it + 1 < o->iterations)
            update(t->nodes, list, m, owner, centres, k_count, weight);
    }
    // Groups in cluster order, members in list order.
    uint32_t next = 0;
    uint32_t *next_list = malloc(m * sizeof *next_list);
    CS_ASSERT(next_list, "radiosity: out of memory");
    for (uint32_t k = 0; k < k_count; k++) {
        uint32_t count = 0;
        for (uint32_t a = 0; a < m; a++)
            if (owner[a] == k)
                members[count++] = list[a];
        if (count == 1)
            next_list[next++] = members[0];
        else if (count > 1)
            next_list[next++] = make_cluster(t, c, members, count);
    }
    memcpy(list, next_list, next * sizeof *list);
    free(next_list), free(centres), free(owner), free(members), free(weight);
    return next;
}

static bool build_tree(cs_radiosity_compiled *c, const cs_hierarchy_options *o, uint32_t **roots, uint32_t *root_count,
                       cs_error *err)
{
    uint32_t n = c->patch_count;
    // A tree over n leaves whose every cluster has >= 2 children has < n clusters.
    tree_builder t = {.nodes = malloc((2 * (size_t)n + 1) * sizeof *t.nodes),
                      .patch_count = n,
                      .child_start = calloc((size_t)n + 1, sizeof *t.child_start),
                      .children = malloc((2 * (size_t)n + 1) * sizeof *t.children)};
    uint32_t *list = malloc(((size_t)n + 1) * sizeof *list);
    if (!t.nodes || !t.child_start || !t.children || !list) {
        free(t.nodes), free(t.child_start), free(t.children), free(list);
        return cs_fail(err, "radiosity: out of memory for the cluster tree of %u patches", n);
    }
    double brightest = 0.0;
    for (uint32_t i = 0; i < n; i++)
        brightest = fmax(brightest, fmax(c->patches[i].emission.x, fmax(c->patches[i].emission.y,
                                                                         c->patches[i].emission.z)));
    for (uint32_t i = 0; i < n; i++) {
        t.nodes[i] = patch_node(c, i, brightest);
        list[i] = i;
    }
    t.node_count = n;
    uint32_t m = n, levels = 0;
    c->level_start[0] = 0;
    while (m > CS_CLUSTER_ROOTS && levels < CS_RADIOSITY_MAX_LEVELS) {
        m = cluster_round(&t, c, list, m, o);
        c->level_start[++levels] = t.node_count - n;
    }
    c->level_count = levels;
    c->cluster_count = t.node_count - n;
    c->clusters = malloc(((size_t)c->cluster_count + 1) * sizeof *c->clusters);
    CS_ASSERT(c->clusters, "radiosity: out of memory");
    memcpy(c->clusters, t.nodes + n, (size_t)c->cluster_count * sizeof *c->clusters);
    c->child_start = t.child_start;
    c->children = t.children;
    free(t.nodes);
    *roots = list;
    *root_count = m;
    return true;
}

// ---- links -----------------------------------------------------------------

typedef enum verdict { SKIP, LINK, DESCEND } verdict;

// True when no patch of c can exchange light with p: every corner of c's
// box is on or behind p's plane, or p is on or behind every patch's plane
// (bounded through c's mean normal m: n_q . (x - x_q) <= m . x - slab_min
// + spread (dist + radius) for every patch q). Coplanar neighbours end
// here instead of being walked down to their patches.
static bool cannot_exchange(const double x[3], const double n[3], const cs_cluster *c, double dist)
{
    double tolerance = 1e-6 * (1.0 + dist), highest = -INFINITY, m[3];
    for (int corner = 0; corner < 8; corner++) {
        double p[3] = {corner & 1 ? c->box_max[0] : c->box_min[0], corner & 2 ? c->box_max[1] : c->box_min[1],
                       corner & 4 ? c->box_max[2] : c->box_min[2]};
        highest = fmax(highest, n[0] * (p[0] - x[0]) + n[1] * (p[1] - x[1]) + n[2] * (p[2] - x[2]));
    }
    if (highest <= tolerance)
        return true;
    unit_normal(c, m);
    return length3(c->normal) > 1e-9 && dot3(m, x) - c->slab_min + c->spread * (dist + c->radius) <= tolerance;
}

// The refinement rule for receiving patch p and cluster c (header).
// Clusters that emit are always refined: their light is the scene's
// brightest, and it lands at patch resolution, like the direct light (a
// lamp as one cluster, seen through CS_CLUSTER_REPS rays, puts 30% errors
// in the floor patches next to the blocks' shadows).
static verdict judge(const cs_patch *p, const cs_cluster *c, const cs_hierarchy_options *o, double *factor)
{
    double x[3] = {p->center_area.x, p->center_area.y, p->center_area.z};
    double n[3] = {p->normal.x, p->normal.y, p->normal.z};
    double d[3] = {c->center[0] - x[0], c->center[1] - x[1], c->center[2] - x[2]};
    double dist = length3(d);
    double height = dot3(n, d); // of the centroid above p's plane
    if (height <= -c->radius || cannot_exchange(x, n, c, dist))
        return SKIP;
    bool emits = c->emission[0] > 0.0 || c->emission[1] > 0.0 || c->emission[2] > 0.0;
    if (!(dist > c->radius) || !(length3(c->normal) > 1e-9) || emits)
        return DESCEND;
    double to_p[3] = {-d[0] / dist, -d[1] / dist, -d[2] / dist};
    double facing = angle_between(c->normal, to_p), cone = c->spread + asin(c->radius / dist);
    if (facing - cone >= PI / 2)
        return SKIP;
    if (c->radius / dist < o->ratio && c->spread <= o->max_spread && height > c->radius && facing + cone < PI / 2) {
        double cos_p = height / dist;
        *factor = cos_p * c->area * dot3(c->normal, to_p) / (PI * dist * dist + c->area);
        return LINK;
    }
    return DESCEND;
}

typedef struct link_list {
    cs_link *links;
    uint32_t count, capacity;
} link_list;

static bool push(link_list *l, uint32_t target, double factor, cs_error *err)
{
    if (l->count == l->capacity) {
        if (l->capacity >= (1u << 30))
            return cs_fail(err, "radiosity: more than 2^30 links; raise patch_size");
        uint32_t grown_capacity = l->capacity ? l->capacity * 2 : 4096;
        cs_link *grown = realloc(l->links, (size_t)grown_capacity * sizeof *grown);
        if (!grown)
            return cs_fail(err, "radiosity: out of memory for %u links", grown_capacity);
        l->links = grown;
        l->capacity = grown_capacity;
    }
    l->links[l->count++] = (cs_link){target, (float)factor};
    return true;
}

static bool link_receiver(const cs_radiosity_compiled *c, uint32_t i, const uint32_t *roots, uint32_t root_count,
                          const cs_hierarchy_options *o, uint32_t *stack, link_list *out, cs_error *err)
{
    uint32_t n = c->patch_count, top = 0;
    for (uint32_t r = root_count; r-- > 0;)
        stack[top++] = roots[r];
    while (top > 0) {
        uint32_t node = stack[--top];
        double f = 0.0;
        if (node < n) {
            if (node != i)
                f = cs_form_factor(c->corners[i], c->corners[node]);
            if (f > 0.0 && !push(out, node, f, err))
                return false;
            continue;
        }
        uint32_t k = node - n;
        verdict v = judge(&c->patches[i], &c->clusters[k], o, &f);
        if (v == LINK && f > 0.0 && !push(out, node, f, err))
            return false;
        if (v == DESCEND)
            for (uint32_t l = c->child_start[k + 1]; l-- > c->child_start[k];)
                stack[top++] = c->children[l].target;
    }
    return true;
}

static bool make_links(cs_radiosity_compiled *c, const uint32_t *roots, uint32_t root_count,
                       const cs_hierarchy_options *o, cs_error *err)
{
    uint32_t n = c->patch_count;
    uint32_t *stack = malloc(((size_t)n + c->cluster_count + 1) * sizeof *stack);
    c->link_start = calloc((size_t)n + 1, sizeof *c->link_start);
    if (!stack || !c->link_start) {
        free(stack);
        return cs_fail(err, "radiosity: out of memory");
    }
    link_list l = {0};
    for (uint32_t i = 0; i < n; i++) {
        c->link_start[i] = l.count;
        if (!link_receiver(c, i, roots, root_count, o, stack, &l, err)) {
            free(stack), free(l.links);
            return false;
        }
    }
    c->link_start[n] = l.count;
    c->links = l.links;
    c->link_count = l.count;
    free(stack);
    return true;
}

// ---- visibility --------------------------------------------------------------

// Casts `count` rays, pairs[2 r] -> pairs[2 r + 1] (patches, as
// cs_radiosity_link_ray), and sets clear[r].
typedef struct caster {
    const cs_radiosity_compiled *c;
    const cs_bvh *bvh;
    cs_context *ctx;
    cs_raycaster rc;
    cs_ray *rays;
    cs_cast_hit *hits;
} caster;

static void cast_pairs(caster *k, const uint32_t *pairs, uint32_t count, bool *clear)
{
    for (uint32_t r = 0; r < count; r++) {
        double o[3], d[3];
        cs_radiosity_link_ray(k->c, pairs[2 * r], pairs[2 * r + 1], o, d);
        if (!k->ctx) {
            clear[r] = !k->bvh || cs_bvh_unoccluded(k->bvh, o, d, 0.0, 1.0);
            continue;
        }
        k->rays[r] = (cs_ray){.origin_tmin = {(float)o[0], (float)o[1], (float)o[2], 0.0f},
                              .dir_tmax = {(float)d[0], (float)d[1], (float)d[2], 1.0f}};
    }
    if (!k->ctx || count == 0)
        return;
    cs_raycaster_cast(k->ctx, &k->rc, k->rays, count, true, k->hits);
    for (uint32_t r = 0; r < count; r++)
        clear[r] = k->hits[r].tri == CS_CAST_NO_HIT;
}

// Every link's factor times the fraction of its rays that arrive; links
// at 0 are dropped, the rest kept in order.
static bool apply_visibility(cs_context *ctx, const cs_bvh *bvh, cs_radiosity_compiled *c, cs_error *err)
{
    uint32_t n = c->patch_count, ray_capacity = VISIBILITY_LINKS * CS_CLUSTER_REPS;
    caster k = {.c = c, .bvh = bvh, .ctx = ctx};
    uint32_t *pairs = malloc(2 * (size_t)ray_capacity * sizeof *pairs);
    bool *clear = malloc(ray_capacity * sizeof *clear);
    float *fraction = malloc(((size_t)c->link_count + 1) * sizeof *fraction);
    bool ok = pairs && clear && fraction;
    if (ok && ctx) {
        k.rays = malloc((size_t)ray_capacity * sizeof *k.rays);
        k.hits = malloc((size_t)ray_capacity * sizeof *k.hits);
        ok = k.rays && k.hits && cs_raycaster_create(ctx, bvh, ray_capacity, &k.rc, err);
    }
    if (!ok) {
        free(pairs), free(clear), free(fraction), free(k.rays), free(k.hits);
        return err->msg[0] ? false : cs_fail(err, "radiosity: out of memory for visibility");
    }
    uint32_t owner = 0;
    for (uint32_t first = 0; first < c->link_count; first += VISIBILITY_LINKS) {
        uint32_t end = CS_MIN(c->link_count, first + VISIBILITY_LINKS), rays = 0;
        for (uint32_t l = first; l < end; l++) {
            while (c->link_start[owner + 1] <= l)
                owner++;
            uint32_t target = c->links[l].target;
            if (target < n) {
                pairs[2 * rays] = owner, pairs[2 * rays++ + 1] = target;
                continue;
            }
            for (uint32_t r = 0; r < CS_CLUSTER_REPS; r++)
                pairs[2 * rays] = owner, pairs[2 * rays++ + 1] = c->clusters[target - n].reps[r];
        }
        cast_pairs(&k, pairs, rays, clear);
        for (uint32_t l = first, r = 0; l < end; l++) {
            uint32_t count = c->links[l].target < n ? 1 : CS_CLUSTER_REPS, arrived = 0;
            for (uint32_t e = 0; e < count; e++)
                arrived += clear[r++];
            fraction[l] = (float)arrived / (float)count;
        }
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t begin = c->link_start[i], end = c->link_start[i + 1];
        c->link_start[i] = kept;
        for (uint32_t l = begin; l < end; l++) {
            if (fraction[l] > 0.0f)
                c->links[kept++] = (cs_link){c->links[l].target, c->links[l].factor * fraction[l]};
        }
    }
    c->link_start[n] = kept;
    c->link_count = kept;
    if (ctx)
        cs_raycaster_destroy(ctx, &k.rc);
    free(pairs), free(clear), free(fraction), free(k.rays), free(k.hits);
    return true;
}

bool cs_radiosity_compile_hierarchy(cs_context *ctx, const cs_tri *tris, uint32_t tri_count, double patch_size,
                                    const cs_bvh *bvh, const cs_hierarchy_options *options,
                                    cs_radiosity_compiled *out, cs_error *err)
{
    *out = (cs_radiosity_compiled){0};
    err->msg[0] = '\0';
    double start = cs_now_seconds();
    CS_ASSERT(!ctx || bvh, "radiosity: GPU visibility needs the BVH");
    if (!(patch_size > 0.0))
        return cs_fail(err, "radiosity: patch_size must be > 0 (got %g)", patch_size);
    if (options->branching < 2 || options->iterations < 1)
        return cs_fail(err, "radiosity: cluster branching %u (want >= 2), iterations %u (want >= 1)",
                       options->branching, options->iterations);
    uint32_t *roots = NULL, root_count = 0;
    bool ok = cs_radiosity_make_patches(tris, tri_count, patch_size, out, err) &&
              build_tree(out, options, &roots, &root_count, err) && make_links(out, roots, root_count, options, err) &&
              apply_visibility(ctx, bvh, out, err);
    free(roots);
    if (!ok) {
        cs_radiosity_free(out);
        return false;
    }
    out->compile_seconds = cs_now_seconds() - start;
    return true;
}
