// radiosity_cluster.c — the k-means cluster tree, hierarchical links and
// their visibility (see radiosity_cluster.h for the rules).
#include "radiosity_cluster.h"

#include "raycast.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;
// Links whose visibility is cast at once (at most CS_CLUSTER_REPS rays each).
#define VISIBILITY_LINKS (1u << 18)
// Seconds between two progress lines (cs_hierarchy_options.progress).
#define PROGRESS_EVERY_S 5.0
// Links the refinement makes between two looks at the clock.
#define PROGRESS_LINK_STRIDE (1u << 20)
// The most links a compile holds (their count is a uint32_t with room to sort).
#define MOST_LINKS (1u << 30)

// Where a long compile is: a line on `out` at most every PROGRESS_EVERY_S.
typedef struct progress {
    FILE *out;
    double start, last;
} progress;

static void report(progress *p, const char *format, ...)
{
    if (!p->out)
        return;
    double now = cs_now_seconds();
    if (now - p->last < PROGRESS_EVERY_S)
        return;
    p->last = now;
    va_list args;
    va_start(args, format);
    fprintf(p->out, "radiosity: compiling (%.0f s): ", now - p->start);
    vfprintf(p->out, format, args);
    va_end(args);
    fputc('\n', p->out);
    fflush(p->out);
}

cs_hierarchy_options cs_hierarchy_options_default(void)
{
    return (cs_hierarchy_options){.ratio = 0.25, .max_spread = 30.0 * PI / 180.0, .branching = 4, .iterations = 6,
                                   .receiver_ratio = 0.15};
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
    n.all_emit = p->emission.x > 0.0f || p->emission.y > 0.0f || p->emission.z > 0.0f;
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

// Every node against every centre: the reference the grid must equal.
static void assign_brute_force(const cs_cluster *nodes, const uint32_t *list, uint32_t m, const centre *centres,
                               uint32_t k_count, double inv_scale2, uint32_t *owner)
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

// The centres bucketed by position on a uniform grid of cell side `cell`.
typedef struct centre_grid {
    double origin[3], cell;
    int64_t dims[3];
    uint32_t *cell_start; // dims product + 1
    uint32_t *items;      // centre indices, cell by cell, ascending within a cell
} centre_grid;

// Cells of about two cluster sizes (L = 1 / sqrt(inv_scale2)) a side, so a
// cell holds a few centres of a surface; wider when the box would need
// more than 8 cells a centre.
static bool grid_build(const centre *centres, uint32_t k_count, double inv_scale2, centre_grid *g)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t k = 0; k < k_count; k++)
        for (int v = 0; v < 3; v++)
            lo[v] = fmin(lo[v], centres[k].position[v]), hi[v] = fmax(hi[v], centres[k].position[v]);
    g->cell = 2.0 / sqrt(inv_scale2);
    double most_cells = 8.0 * k_count + 64.0;
    for (;;) {
        double cells = 1.0;
        for (int v = 0; v < 3; v++)
            cells *= floor((hi[v] - lo[v]) / g->cell) + 1.0;
        if (cells <= most_cells)
            break;
        g->cell *= 1.5;
    }
    size_t cells = 1;
    for (int v = 0; v < 3; v++) {
        g->origin[v] = lo[v];
        g->dims[v] = (int64_t)floor((hi[v] - lo[v]) / g->cell) + 1;
        cells *= (size_t)g->dims[v];
    }
    g->cell_start = calloc(cells + 1, sizeof *g->cell_start);
    g->items = malloc(((size_t)k_count + 1) * sizeof *g->items);
    uint32_t *cell_of = malloc(((size_t)k_count + 1) * sizeof *cell_of);
    if (!g->cell_start || !g->items || !cell_of) {
        free(cell_of);
        return false;
    }
    for (uint32_t k = 0; k < k_count; k++) {
        size_t index = 0;
        for (int v = 2; v >= 0; v--) {
            int64_t i = (int64_t)floor((centres[k].position[v] - g->origin[v]) / g->cell);
            index = index * (size_t)g->dims[v] + (size_t)CS_MAX(0, CS_MIN(i, g->dims[v] - 1));
        }
        cell_of[k] = (uint32_t)index;
        g->cell_start[index + 1]++;
    }
    for (size_t c = 0; c < cells; c++)
        g->cell_start[c + 1] += g->cell_start[c];
    // Counting sort, stable: ascending centre index within a cell.
    uint32_t *fill = malloc((cells + 1) * sizeof *fill);
    if (!fill) {
        free(cell_of);
        return false;
    }
    memcpy(fill, g->cell_start, (cells + 1) * sizeof *fill);
    for (uint32_t k = 0; k < k_count; k++)
        g->items[fill[cell_of[k]]++] = k;
    free(fill), free(cell_of);
    return true;
}

static void grid_free(centre_grid *g)
{
    free(g->cell_start), free(g->items);
}

// The centres of one cell against the best (distance, index) so far;
// (d, k) ordered as the brute force orders them: smaller d, then smaller k.
static void try_cell(const centre_grid *g, const int64_t cell[3], const cs_cluster *node, const centre *centres,
                     double inv_scale2, double *best, uint32_t *best_k)
{
    for (int v = 0; v < 3; v++)
        if (cell[v] < 0 || cell[v] >= g->dims[v])
            return;
    size_t index = ((size_t)cell[2] * (size_t)g->dims[1] + (size_t)cell[1]) * (size_t)g->dims[0] + (size_t)cell[0];
    for (uint32_t s = g->cell_start[index]; s < g->cell_start[index + 1]; s++) {
        uint32_t k = g->items[s];
        double d = feature_distance(node, &centres[k], inv_scale2);
        if (d < *best || (d == *best && k < *best_k))
            *best = d, *best_k = k;
    }
}

// The nearest centre of one node: rings of cells about its own, ring R
// the cells R cells away (Chebyshev). A centre in ring R + 1 or beyond is
// at least R cells away along one axis, so its distance is at least
// (R h)^2 / L^2 from the position term alone (the other terms are >= 0):
// once the best found is below that (less a thousandth of a cell for the
// rounding of the cell indices), no centre left can win or tie.
static uint32_t nearest_centre(const centre_grid *g, const cs_cluster *node, const centre *centres,
                               double inv_scale2)
{
    int64_t home[3], last_ring = 0;
    for (int v = 0; v < 3; v++) {
        home[v] = (int64_t)floor((node->center[v] - g->origin[v]) / g->cell);
        last_ring = CS_MAX(last_ring, CS_MAX(home[v], g->dims[v] - 1 - home[v]));
    }
    double best = INFINITY;
    uint32_t best_k = UINT32_MAX;
    for (int64_t r = 0; r <= last_ring; r++) {
        for (int64_t dz = -r; dz <= r; dz++) {
            for (int64_t dy = -r; dy <= r; dy++) {
                bool face = dz == -r || dz == r || dy == -r || dy == r;
                for (int64_t dx = -r; dx <= r; dx += face ? 1 : CS_MAX(2 * r, 1)) {
                    int64_t cell[3] = {home[0] + dx, home[1] + dy, home[2] + dz};
                    try_cell(g, cell, node, centres, inv_scale2, &best, &best_k);
                }
            }
        }
        double gap = ((double)r - 1e-3) * g->cell;
        if (r > 0 && best < gap * gap * inv_scale2)
            break;
    }
    return best_k;
}

static void assign(const cs_cluster *nodes, const uint32_t *list, uint32_t m, const centre *centres, uint32_t k_count,
                   double inv_scale2, bool brute_force, uint32_t *owner)
{
    centre_grid g = {0};
    if (brute_force || !grid_build(centres, k_count, inv_scale2, &g)) {
        grid_free(&g); // out of memory for the grid: the brute force gives the same owners
        assign_brute_force(nodes, list, m, centres, k_count, inv_scale2, owner);
        return;
    }
    for (uint32_t a = 0; a < m; a++)
        owner[a] = nearest_centre(&g, &nodes[list[a]], centres, inv_scale2);
    grid_free(&g);
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

// Children of one new cluster ordered open first (a child whose first
// representative patch is not enclosed: a ray from an enclosed patch
// under a block arrives nowhere and would drop the link of every patch
// beside it), then by area, largest first, ties by node id: the
// representatives come from those first.
static bool before(const cs_cluster *nodes, const float *openness, uint32_t x, uint32_t y)
{
    bool open_x = openness[nodes[x].reps[0]] > 0.0f, open_y = openness[nodes[y].reps[0]] > 0.0f;
    if (open_x != open_y)
        return open_x;
    if (nodes[x].area != nodes[y].area)
        return nodes[x].area > nodes[y].area;
    return x < y;
}

static void sort_children(const cs_cluster *nodes, const float *openness, uint32_t *ids, uint32_t count)
{
    for (uint32_t a = 1; a < count; a++) {
        uint32_t id = ids[a], b = a;
        while (b > 0 && before(nodes, openness, id, ids[b - 1])) {
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
        c->all_emit = a == 0 ? n->all_emit : (c->all_emit && n->all_emit);
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
    sort_children(t->nodes, compiled->openness, sorted, count);
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
        assign(t->nodes, list, m, centres, k_count, inv_scale2, o->brute_force_assign, owner);
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

// Every node's parent cluster (node ids), from the children lists.
static bool make_parents(cs_radiosity_compiled *c)
{
    uint32_t nodes = cs_radiosity_node_count(c);
    c->parents = malloc(((size_t)nodes + 1) * sizeof *c->parents);
    if (!c->parents)
        return false;
    for (uint32_t v = 0; v < nodes; v++)
        c->parents[v] = CS_RADIOSITY_NO_PARENT;
    for (uint32_t k = 0; k < c->cluster_count; k++)
        for (uint32_t l = c->child_start[k]; l < c->child_start[k + 1]; l++)
            c->parents[c->children[l].target] = c->patch_count + k;
    return true;
}

// The tree; *nodes gets every node as a cs_cluster (patches first, then
// the clusters), which the links are judged on.
static bool build_tree(cs_radiosity_compiled *c, const cs_hierarchy_options *o, cs_cluster **nodes,
                       uint32_t **roots, uint32_t *root_count, cs_error *err)
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
    if (!make_parents(c)) {
        free(t.nodes), free(list);
        return cs_fail(err, "radiosity: out of memory for the cluster tree of %u patches", n);
    }
    *nodes = t.nodes;
    *roots = list;
    *root_count = m;
    return true;
}

// ---- links -----------------------------------------------------------------

typedef enum verdict { SKIP, LINK, SPLIT_RECEIVER, SPLIT_SOURCE } verdict;

// The links while they are made: (receiver, source, factor), in the order
// the refinement finds them; sorted by receiver (stably) at the end.
typedef struct pair_link {
    uint32_t receiver, source;
    float factor;
    float gradient[3]; // of the factor over the receiver's position (a cluster receiver's only)
} pair_link;

typedef struct pair_list {
    pair_link *links;
    uint32_t count, capacity;
} pair_list;

static bool push(pair_list *l, uint32_t receiver, uint32_t source, double factor, const double gradient[3],
                 cs_error *err)
{
    if (l->count == l->capacity) {
        if (l->capacity >= MOST_LINKS)
            return cs_fail(err, "radiosity: more than 2^30 links; raise patch_size");
        uint32_t grown_capacity = l->capacity ? l->capacity * 2 : 4096;
        pair_link *grown = realloc(l->links, (size_t)grown_capacity * sizeof *grown);
        if (!grown)
            return cs_fail(err, "radiosity: out of memory for %u links", grown_capacity);
        l->links = grown;
        l->capacity = grown_capacity;
    }
    l->links[l->count++] = (pair_link){receiver, source, (float)factor,
                                       {(float)gradient[0], (float)gradient[1], (float)gradient[2]}};
    return true;
}

typedef struct linker {
    const cs_radiosity_compiled *c;
    const cs_cluster *nodes; // patches then clusters
    const cs_hierarchy_options *o;
    pair_list out;
    cs_error *err;
    progress *progress;
    // What the kept links may number: all of them, and those received by a
    // cluster (their gradients are a buffer of their own, 16 bytes each).
    uint32_t max_links, max_cluster_links;
    char limit_reason[160];
} linker;

static bool is_cluster(const linker *k, uint32_t node)
{
    return node >= k->c->patch_count;
}

// An end's extent in the rule: a cluster's bounding radius; a patch
// stands for its centre (its own size is the form factor's business).
static double extent(const linker *k, uint32_t node)
{
    return is_cluster(k, node) ? k->nodes[node].radius : 0.0;
}

// True when every point of `far` (its centre for a patch, its box for a
// cluster) lies on or behind the plane of every patch of `near`: bounded
// through near's mean normal m (unit), spread and lowest point along m:
// n_q . (p - x_q) <= m . p - slab_min + spread |p - x_q| for every patch q
// of near and |p - x_q| <= dist + both extents. Coplanar walls end here
// instead of being walked down to zero-factor patches.
static bool wholly_behind(const linker *k, uint32_t near, uint32_t far, double dist)
{
    const cs_cluster *a = &k->nodes[near], *b = &k->nodes[far];
    if (!(length3(a->normal) > 1e-9))
        return false;
    double m[3], highest = -INFINITY;
    unit_normal(a, m);
    if (is_cluster(k, far)) {
        for (int corner = 0; corner < 8; corner++) {
            double p[3] = {corner & 1 ? b->box_max[0] : b->box_min[0], corner & 2 ? b->box_max[1] : b->box_min[1],
                           corner & 4 ? b->box_max[2] : b->box_min[2]};
            highest = fmax(highest, dot3(m, p));
        }
    } else {
        highest = dot3(m, b->center);
    }
    double tolerance = 1e-6 * (1.0 + dist);
    return highest - a->slab_min + a->spread * (dist + extent(k, near) + extent(k, far)) <= tolerance;
}

// A cluster that must be split whatever the distance: normals that cancel
// (no direction to face), spread wider than the rule allows, or divided
// by a wall (radiosity_cluster.h).
static bool must_split(const linker *k, uint32_t node)
{
    const cs_cluster *c = &k->nodes[node];
    return is_cluster(k, node) && (!(length3(c->normal) > 1e-9) || c->spread > k->o->max_spread || c->divided);
}

// Which end to split when the pair cannot be linked: one that must be,
// else the larger cluster measured against its own ratio (radius /
// ratio: the end farther from being linkable; the receiver on a tie),
// else the only cluster.
static verdict split(const linker *k, uint32_t a, uint32_t b)
{
    bool ca = is_cluster(k, a), cb = is_cluster(k, b);
    if (ca && cb) {
        if (must_split(k, a) != must_split(k, b))
            return must_split(k, a) ? SPLIT_RECEIVER : SPLIT_SOURCE;
        return k->nodes[a].radius / k->o->receiver_ratio >= k->nodes[b].radius / k->o->ratio ? SPLIT_RECEIVER
                                                                                              : SPLIT_SOURCE;
    }
    return ca ? SPLIT_RECEIVER : SPLIT_SOURCE;
}

static bool emits(const cs_cluster *c)
{
    return c->emission[0] > 0.0 || c->emission[1] > 0.0 || c->emission[2] > 0.0;
}

// The gradient of F_ab over the receiving point x (a's centroid; a's
// normal n held): with v = c_b - x, P = n . v, Q = -n_b . v, D = d^2 (pi
// d^2 + A_b), F = A_b P Q / D and
//     grad F = F (-n / P + n_b / Q + 2 (2 pi d^2 + A_b) v / D),
// so the push-down can give each patch of a the factor at its own centre
// to first order instead of a's mean.
static void factor_gradient(const double n[3], const double nb[3], const double v[3], double area_b, double factor,
                            double gradient[3])
{
    double d2 = dot3(v, v), p = dot3(n, v), q = -dot3(nb, v);
    double big_d = d2 * (PI * d2 + area_b), radial = 2.0 * (2.0 * PI * d2 + area_b) / big_d;
    for (int k = 0; k < 3; k++)
        gradient[k] = factor * (-n[k] / p + nb[k] / q + radial * v[k]);
}

// The rule (radiosity_cluster.h) for receiver a and source b, not both
// patches and not the same node.
static verdict judge(const linker *k, uint32_t a, uint32_t b, double *factor, double gradient[3])
{
    const cs_cluster *ra = &k->nodes[a], *sb = &k->nodes[b];
    double d[3] = {sb->center[0] - ra->center[0], sb->center[1] - ra->center[1], sb->center[2] - ra->center[2]};
    double dist = length3(d);
    if (wholly_behind(k, a, b, dist) || wholly_behind(k, b, a, dist))
        return SKIP;
    if (is_cluster(k, b) && emits(sb) && !sb->all_emit)
        return SPLIT_SOURCE;
    if (k->o->patch_receivers && is_cluster(k, a))
        return SPLIT_RECEIVER;
    double reach = extent(k, a) + extent(k, b);
    if (!(dist > reach) || must_split(k, a) || must_split(k, b))
        return split(k, a, b);
    double w[3] = {d[0] / dist, d[1] / dist, d[2] / dist}, back[3] = {-w[0], -w[1], -w[2]};
    double cone = asin(reach / dist);
    double facing_a = angle_between(ra->normal, w), facing_b = angle_between(sb->normal, back);
    if (facing_a - ra->spread - cone >= PI / 2 || facing_b - sb->spread - cone >= PI / 2)
        return SKIP;
    // A receiver against the distance to the source's nearest point: its
    // irradiance varies most across it when the source is close.
    // Emitted light is the strongest and its shadows the sharpest: half the
    // receiver ratio for an emitting source patch.
    double receiver_ratio = emits(sb) ? 0.5 * k->o->receiver_ratio : k->o->receiver_ratio;
    // A lamp's cluster at half the source ratio, for the same reason.
    double source_ratio = emits(sb) ? 0.5 * k->o->ratio : k->o->ratio;
    bool small = (!is_cluster(k, a) || ra->radius / (dist - extent(k, b)) < receiver_ratio) &&
                 (!is_cluster(k, b) || sb->radius / dist < source_ratio);
    // Every patch of each end faces the other end's centroid (the push-down
    // takes the receiver's cosine to first order across it).
    bool facing = facing_a + ra->spread < PI / 2 && facing_b + sb->spread < PI / 2;
    if (!small || !facing)
        return split(k, a, b);
    *factor = dot3(ra->normal, w) * sb->area * dot3(sb->normal, back) / (PI * dist * dist + sb->area);
    if (is_cluster(k, a))
        factor_gradient(ra->normal, sb->normal, d, sb->area, *factor, gradient);
    return LINK;
}

// A link the refinement found, to be cast; now and then a progress line.
static bool add_link(linker *k, uint32_t a, uint32_t b, double factor, const double gradient[3])
{
    if (k->out.count % PROGRESS_LINK_STRIDE == PROGRESS_LINK_STRIDE - 1)
        report(k->progress, "%u patches, %u clusters: %.1f M links found (before visibility; %.1f M fit)",
               k->c->patch_count, k->c->cluster_count, k->out.count / 1e6, k->max_links / 1e6);
    return push(&k->out, a, b, factor, gradient, k->err);
}

// The links between receiver a and source b (and everything under them).
static bool refine(linker *k, uint32_t a, uint32_t b)
{
    const cs_radiosity_compiled *c = k->c;
    uint32_t n = c->patch_count;
    if (a == b) {
        if (a < n)
            return true; // a patch does not light itself
        uint32_t first = c->child_start[a - n], end = c->child_start[a - n + 1];
        for (uint32_t x = first; x < end; x++)
            for (uint32_t y = first; y < end; y++)
                if (!refine(k, c->children[x].target, c->children[y].target))
                    return false;
        return true;
    }
    if (a < n && b < n) {
        double f = cs_form_factor(c->corners[a], c->corners[b]), none[3] = {0, 0, 0};
        return !(f > 0.0) || add_link(k, a, b, f, none);
    }
    double f = 0.0, gradient[3] = {0, 0, 0};
    verdict v = judge(k, a, b, &f, gradient);
    if (v == LINK)
        return !(f > 0.0) || add_link(k, a, b, f, gradient);
    if (v == SKIP)
        return true;
    uint32_t parent = v == SPLIT_RECEIVER ? a : b;
    for (uint32_t l = c->child_start[parent - n]; l < c->child_start[parent - n + 1]; l++) {
        uint32_t child = c->children[l].target;
        if (!(v == SPLIT_RECEIVER ? refine(k, child, b) : refine(k, a, child)))
            return false;
    }
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

// A node's r-th representative patch (a patch is its own).
static uint32_t representative(const cs_radiosity_compiled *c, uint32_t node, uint32_t r)
{
    return node < c->patch_count ? node : c->clusters[node - c->patch_count].reps[r];
}

// Rounds of visibility refinement at most (each takes the partly seen
// links one level down the receiver's tree; the tree has fewer levels).
#define VISIBILITY_ROUNDS CS_RADIOSITY_MAX_LEVELS

// A link is seen whole, in part (some of its rays arrive), or not at all.
static uint32_t link_rays(const cs_radiosity_compiled *c, const pair_link *p)
{
    bool ca = p->receiver >= c->patch_count, cb = p->source >= c->patch_count;
    return ca && cb ? CS_CLUSTER_REPS * CS_CLUSTER_REPS : ca || cb ? CS_CLUSTER_REPS : 1;
}

// Ray r of a link: from the receiver's representative to the source's;
// two clusters: every representative of one to every one of the other.
static void link_ray_ends(const cs_radiosity_compiled *c, const pair_link *p, uint32_t r, uint32_t *from,
                          uint32_t *to)
{
    bool ca = p->receiver >= c->patch_count, cb = p->source >= c->patch_count;
    *from = representative(c, p->receiver, ca && cb ? r / CS_CLUSTER_REPS : r);
    *to = representative(c, p->source, ca && cb ? r % CS_CLUSTER_REPS : r);
}

// Casts the rays of links [first, end) and sets arrived[l - first].
static void cast_links(caster *k, const pair_link *links, uint32_t first, uint32_t end, uint32_t *pairs, bool *clear,
                       uint32_t *arrived)
{
    const cs_radiosity_compiled *c = k->c;
    uint32_t rays = 0;
    for (uint32_t l = first; l < end; l++)
        for (uint32_t r = 0; r < link_rays(c, &links[l]); r++, rays++)
            link_ray_ends(c, &links[l], r, &pairs[2 * rays], &pairs[2 * rays + 1]);
    cast_pairs(k, pairs, rays, clear);
    for (uint32_t l = first, r = 0; l < end; l++) {
        arrived[l - first] = 0;
        for (uint32_t e = 0; e < link_rays(c, &links[l]); e++)
            arrived[l - first] += clear[r++];
    }
}

// False with the reason once the kept links are more than the device holds:
// a compile past that could never be uploaded, and the rest of it could
// take an hour.
static bool within_limits(const linker *k, const pair_list *kept, uint32_t cluster_links, uint32_t round,
                          uint32_t cast, uint32_t pending)
{
    if (kept->count <= k->max_links && cluster_links <= k->max_cluster_links)
        return true;
    bool all = kept->count > k->max_links;
    return cs_fail(k->err,
                   "radiosity: %u patches make more links than %s: %u %skept after casting %u of %u links "
                   "(visibility round %u); "
                   "raise radiosity.patch_size (a patch is at most one triangle: else fewer triangles) or leave "
                   "\"radiosity\" out",
                   k->c->patch_count, k->limit_reason, all ? kept->count : cluster_links,
                   all ? "" : "received by clusters ", cast, pending, round + 1);
}

// Visibility, with refinement where a receiving cluster sees its source
// only in part (Hanrahan's rule: a shadow's edge crosses it, and one
// irradiance for all its patches would smear the shadow): the link is
// replaced by the rule applied to each child of the receiver with the
// same source, and those links are cast in the next round. Links seen
// whole, or received by a patch, keep their factor times the fraction of
// their rays that arrive; links with none arriving are dropped. Order:
// the links kept, round by round, in the order they were made.
static bool apply_visibility(cs_context *ctx, const cs_bvh *bvh, linker *lk, pair_list *kept)
{
    const cs_radiosity_compiled *c = lk->c;
    cs_error *err = lk->err;
    uint32_t ray_capacity = VISIBILITY_LINKS * CS_CLUSTER_REPS * CS_CLUSTER_REPS;
    caster k = {.c = c, .bvh = bvh, .ctx = ctx};
    uint32_t *pairs = malloc(2 * (size_t)ray_capacity * sizeof *pairs);
    uint32_t *arrived = malloc(VISIBILITY_LINKS * sizeof *arrived);
    bool *clear = malloc(ray_capacity * sizeof *clear);
    bool ok = pairs && clear && arrived;
    if (ok && ctx) {
        k.rays = malloc((size_t)ray_capacity * sizeof *k.rays);
        k.hits = malloc((size_t)ray_capacity * sizeof *k.hits);
        ok = k.rays && k.hits && cs_raycaster_create(ctx, bvh, ray_capacity, &k.rc, err);
    }
    if (!ok) {
        free(pairs), free(clear), free(arrived), free(k.rays), free(k.hits);
        return err->msg[0] ? false : cs_fail(err, "radiosity: out of memory for visibility");
    }
    uint32_t cluster_links = 0;
    for (uint32_t round = 0; ok && lk->out.count > 0; round++) {
        pair_list pending = lk->out;
        lk->out = (pair_list){0};
        bool last_round = round + 1 >= VISIBILITY_ROUNDS;
        for (uint32_t first = 0; ok && first < pending.count; first += VISIBILITY_LINKS) {
            uint32_t end = CS_MIN(pending.count, first + VISIBILITY_LINKS);
            cast_links(&k, pending.links, first, end, pairs, clear, arrived);
            for (uint32_t l = first; ok && l < end; l++) {
                pair_link p = pending.links[l];
                uint32_t seen = arrived[l - first], rays = link_rays(c, &p);
                if (seen == 0)
                    continue;
                if (seen < rays && p.receiver >= c->patch_count && !last_round) {
                    uint32_t cluster = p.receiver - c->patch_count;
                    for (uint32_t e = c->child_start[cluster]; ok && e < c->child_start[cluster + 1]; e++)
                        ok = refine(lk, c->children[e].target, p.source);
                    continue;
                }
                float fraction = (float)seen / (float)rays;
                p.factor *= fraction;
                for (int e = 0; e < 3; e++)
                    p.gradient[e] *= fraction;
                ok = push(kept, p.receiver, p.source, p.factor, (double[3]){p.gradient[0], p.gradient[1], p.gradient[2]},
                          err);
                if (!ok)
                    break;
                kept->links[kept->count - 1] = p; // the float values as they are
                cluster_links += p.receiver >= c->patch_count;
            }
            ok = ok && within_limits(lk, kept, cluster_links, round, end, pending.count);
            report(lk->progress, "visibility round %u: %.1f M of %.1f M links cast, %.1f M kept (at most %.1f M)",
                   round + 1, end / 1e6, pending.count / 1e6, kept->count / 1e6, lk->max_links / 1e6);
        }
        free(pending.links);
    }
    if (ctx)
        cs_raycaster_destroy(ctx, &k.rc);
    free(pairs), free(clear), free(arrived), free(k.rays), free(k.hits);
    return ok;
}

// ---- divided clusters ---------------------------------------------------------

#define DIVIDED_BATCH (1u << 20)

// Could patches i and j see each other were nothing between them: neither
// lies behind the other's plane (coplanar patches can).
static bool could_see(const cs_radiosity_compiled *c, uint32_t i, uint32_t j)
{
    const cs_patch *p = &c->patches[i], *q = &c->patches[j];
    double d[3] = {q->center_area.x - p->center_area.x, q->center_area.y - p->center_area.y,
                   q->center_area.z - p->center_area.z};
    double np[3] = {p->normal.x, p->normal.y, p->normal.z}, nq[3] = {q->normal.x, q->normal.y, q->normal.z};
    double tolerance = 1e-6 * (1.0 + length3(d));
    return dot3(np, d) >= -tolerance && -dot3(nq, d) >= -tolerance;
}

// Casts the batch's rays and marks the cluster of each blocked one.
static void mark_blocked(caster *k, const uint32_t *pairs, const uint32_t *owners, uint32_t count, bool *clear,
                         cs_cluster *nodes)
{
    cast_pairs(k, pairs, count, clear);
    for (uint32_t r = 0; r < count; r++)
        if (!clear[r])
            nodes[owners[r]].divided = 1;
}

// Marks the divided clusters (radiosity_cluster.h): every open patch
// against every representative of its ancestors that it could see; then a
// cluster above a divided one is divided too. Copied into c->clusters.
static bool mark_divided(cs_context *ctx, const cs_bvh *bvh, cs_radiosity_compiled *c, cs_cluster *nodes,
                         cs_error *err)
{
    uint32_t n = c->patch_count;
    caster k = {.c = c, .bvh = bvh, .ctx = ctx};
    uint32_t *pairs = calloc(2 * (size_t)DIVIDED_BATCH, sizeof *pairs); // zeroed: GCC 12 cannot see it is written before the cast reads it
    uint32_t *owners = malloc((size_t)DIVIDED_BATCH * sizeof *owners);
    bool *clear = malloc((size_t)DIVIDED_BATCH * sizeof *clear);
    bool ok = pairs && owners && clear;
    if (ok && ctx) {
        k.rays = malloc((size_t)DIVIDED_BATCH * sizeof *k.rays);
        k.hits = malloc((size_t)DIVIDED_BATCH * sizeof *k.hits);
        ok = k.rays && k.hits && cs_raycaster_create(ctx, bvh, DIVIDED_BATCH, &k.rc, err);
    }
    if (!ok) {
        free(pairs), free(owners), free(clear), free(k.rays), free(k.hits);
        return err->msg[0] ? false : cs_fail(err, "radiosity: out of memory for the divided clusters' rays");
    }
    uint32_t count = 0;
    for (uint32_t i = 0; bvh && i < n; i++) {
        if (!(c->openness[i] > 0.0f))
            continue;
        for (uint32_t a = c->parents[i]; a != CS_RADIOSITY_NO_PARENT; a = c->parents[a]) {
            for (uint32_t r = 0; r < CS_CLUSTER_REPS; r++) {
                uint32_t rep = nodes[a].reps[r];
                if (rep == i || !(c->openness[rep] > 0.0f) || !could_see(c, i, rep))
                    continue;
                if (count == DIVIDED_BATCH) {
                    mark_blocked(&k, pairs, owners, count, clear, nodes);
                    count = 0;
                }
                pairs[2 * count] = i, pairs[2 * count + 1] = rep, owners[count++] = a;
            }
        }
    }
    mark_blocked(&k, pairs, owners, count, clear, nodes);
    // Children come before their parents in node order.
    for (uint32_t a = n; a < cs_radiosity_node_count(c); a++)
        if (nodes[a].divided && c->parents[a] != CS_RADIOSITY_NO_PARENT)
            nodes[c->parents[a]].divided = 1;
    for (uint32_t a = 0; a < c->cluster_count; a++)
        c->clusters[a].divided = nodes[n + a].divided;
    if (ctx)
        cs_raycaster_destroy(ctx, &k.rc);
    free(pairs), free(owners), free(clear), free(k.rays), free(k.hits);
    return true;
}

// Directions of the openness rays in a patch's frame (normal, then 8
// about it at 60 degrees): a patch is open along a ray that leaves the
// scene or meets the front of a triangle, enclosed along one that meets a
// back (it lies inside an object: the floor under a block).
#define OPEN_RAYS 9u

static void open_ray_direction(const cs_patch *p, uint32_t r, double dir[3])
{
    double n[3] = {p->normal.x, p->normal.y, p->normal.z}, t[3], b[3];
    double helper[3] = {fabs(n[0]) < 0.9 ? 1.0 : 0.0, fabs(n[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    t[0] = helper[1] * n[2] - helper[2] * n[1], t[1] = helper[2] * n[0] - helper[0] * n[2],
    t[2] = helper[0] * n[1] - helper[1] * n[0];
    double tl = length3(t);
    for (int v = 0; v < 3; v++)
        t[v] /= tl;
    b[0] = n[1] * t[2] - n[2] * t[1], b[1] = n[2] * t[0] - n[0] * t[2], b[2] = n[0] * t[1] - n[1] * t[0];
    double phi = 2.0 * PI * (double)(r - 1) / (double)(OPEN_RAYS - 1), s = sin(PI / 3), c = cos(PI / 3);
    for (int v = 0; v < 3; v++)
        dir[v] = r == 0 ? n[v] : c * n[v] + s * (cos(phi) * t[v] + sin(phi) * b[v]);
}

// True when the ray meets the back of triangle `tri` (of bvh->tris).
static bool meets_back(const cs_bvh *bvh, uint32_t tri, const double dir[3])
{
    const cs_tri *t = &bvh->tris[tri];
    double e1[3] = {t->v1.x - t->v0.x, t->v1.y - t->v0.y, t->v1.z - t->v0.z};
    double e2[3] = {t->v2.x - t->v0.x, t->v2.y - t->v0.y, t->v2.z - t->v0.z};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    return dot3(n, dir) > 0.0;
}

// Every patch's openness (the fraction of its OPEN_RAYS that are open):
// what it keeps of the irradiance its clusters gathered, so a patch
// enclosed by an object gets none of its cluster's light. 1 without bvh.
static bool measure_openness(cs_context *ctx, const cs_bvh *bvh, cs_radiosity_compiled *c, cs_error *err)
{
    uint32_t n = c->patch_count, total = n * OPEN_RAYS;
    c->openness = malloc(((size_t)n + 1) * sizeof *c->openness);
    if (!c->openness)
        return cs_fail(err, "radiosity: out of memory");
    for (uint32_t i = 0; i < n; i++)
        c->openness[i] = 1.0f;
    if (!bvh || n == 0)
        return true;
    cs_ray *rays = malloc((size_t)total * sizeof *rays);
    cs_cast_hit *hits = malloc((size_t)total * sizeof *hits);
    bool *open = malloc((size_t)total * sizeof *open);
    cs_raycaster rc;
    bool ok = rays && hits && open && (!ctx || cs_raycaster_create(ctx, bvh, total, &rc, err));
    if (!ok) {
        free(rays), free(hits), free(open);
        return err->msg[0] ? false : cs_fail(err, "radiosity: out of memory for openness rays");
    }
    for (uint32_t i = 0; i < n; i++) {
        const cs_patch *p = &c->patches[i];
        double lift = 1e-4 * sqrt(p->center_area.w);
        double o[3] = {p->center_area.x + lift * p->normal.x, p->center_area.y + lift * p->normal.y,
                       p->center_area.z + lift * p->normal.z};
        for (uint32_t r = 0; r < OPEN_RAYS; r++) {
            double dir[3];
            open_ray_direction(p, r, dir);
            uint32_t k = i * OPEN_RAYS + r;
            if (!ctx) {
                cs_ray_hit hit = cs_bvh_cast(bvh, o, dir, 0.0, INFINITY);
                open[k] = !hit.hit || !meets_back(bvh, hit.tri, dir);
            }
            rays[k] = (cs_ray){.origin_tmin = {(float)o[0], (float)o[1], (float)o[2], 0.0f},
                               .dir_tmax = {(float)dir[0], (float)dir[1], (float)dir[2], INFINITY}};
        }
    }
    if (ctx) {
        cs_raycaster_cast(ctx, &rc, rays, total, false, hits);
        cs_raycaster_destroy(ctx, &rc);
        for (uint32_t k = 0; k < total; k++) {
            double dir[3] = {rays[k].dir_tmax.x, rays[k].dir_tmax.y, rays[k].dir_tmax.z};
            open[k] = hits[k].tri == CS_CAST_NO_HIT || !meets_back(bvh, hits[k].tri, dir);
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t count = 0;
        for (uint32_t r = 0; r < OPEN_RAYS; r++)
            count += open[i * OPEN_RAYS + r];
        c->openness[i] = (float)count / (float)OPEN_RAYS;
    }
    free(rays), free(hits), free(open);
    return true;
}

// The compiled links: by receiving node (counting sort, stable, so each
// receiver's links keep the order the refinement found them in).
static bool store_links(cs_radiosity_compiled *c, const pair_list *links, cs_error *err)
{
    uint32_t nodes = cs_radiosity_node_count(c);
    c->link_start = calloc((size_t)nodes + 2, sizeof *c->link_start);
    c->links = malloc(((size_t)links->count + 1) * sizeof *c->links);
    if (!c->link_start || !c->links)
        return cs_fail(err, "radiosity: out of memory for %u links", links->count);
    for (uint32_t l = 0; l < links->count; l++)
        c->link_start[links->links[l].receiver + 2]++;
    for (uint32_t v = 0; v < nodes; v++)
        c->link_start[v + 2] += c->link_start[v + 1];
    for (uint32_t l = 0; l < links->count; l++) {
        const pair_link *p = &links->links[l];
        c->links[c->link_start[p->receiver + 1]++] = (cs_link){p->source, p->factor};
    }
    c->link_count = links->count;
    // The clusters' links come after every patch's: their gradients, in
    // the same order (a second pass of the same stable sort).
    uint32_t first = c->link_start[c->patch_count];
    c->link_gradients = malloc(((size_t)(c->link_count - first) + 1) * sizeof *c->link_gradients);
    uint32_t *fill = malloc(((size_t)nodes + 1) * sizeof *fill);
    if (!c->link_gradients || !fill) {
        free(fill);
        return cs_fail(err, "radiosity: out of memory for %u links", links->count);
    }
    memcpy(fill, c->link_start, ((size_t)nodes + 1) * sizeof *fill);
    for (uint32_t l = 0; l < links->count; l++) {
        const pair_link *p = &links->links[l];
        if (p->receiver < c->patch_count)
            continue;
        float *g = c->link_gradients[fill[p->receiver]++ - first];
        g[0] = p->gradient[0], g[1] = p->gradient[1], g[2] = p->gradient[2], g[3] = 0.0f;
    }
    free(fill);
    return true;
}

// The kept links' limits: the caller's, else what one storage buffer of the
// device holds (cs_link 8 bytes, a cluster link's gradient 16), else 2^30.
static void set_link_limits(const cs_context *ctx, const cs_hierarchy_options *o, linker *k)
{
    k->max_links = k->max_cluster_links = MOST_LINKS;
    snprintf(k->limit_reason, sizeof k->limit_reason, "the 2^30 a compile holds");
    if (o->max_links) {
        k->max_links = k->max_cluster_links = CS_MIN(o->max_links, MOST_LINKS);
        snprintf(k->limit_reason, sizeof k->limit_reason, "the %u asked for", k->max_links);
    } else if (ctx) {
        uint64_t range = ctx->props.limits.maxStorageBufferRange;
        k->max_links = (uint32_t)CS_MIN(range / sizeof(cs_link), (uint64_t)MOST_LINKS);
        k->max_cluster_links = (uint32_t)CS_MIN(range / 16, (uint64_t)MOST_LINKS);
        char bytes[32];
        cs_format_bytes(range, bytes, sizeof bytes);
        snprintf(k->limit_reason, sizeof k->limit_reason,
                 "the device holds (maxStorageBufferRange %s: %u links, %u of them received by clusters)", bytes,
                 k->max_links, k->max_cluster_links);
    }
}

static bool make_links(cs_context *ctx, const cs_bvh *bvh, cs_radiosity_compiled *c, const cs_cluster *nodes,
                       const uint32_t *roots, uint32_t root_count, const cs_hierarchy_options *o, progress *p,
                       cs_error *err)
{
    linker k = {.c = c, .nodes = nodes, .o = o, .err = err, .progress = p};
    set_link_limits(ctx, o, &k);
    bool ok = true;
    for (uint32_t x = 0; ok && x < root_count; x++)
        for (uint32_t y = 0; ok && y < root_count; y++)
            ok = refine(&k, roots[x], roots[y]);
    pair_list kept = {0};
    ok = ok && apply_visibility(ctx, bvh, &k, &kept) && store_links(c, &kept, err);
    free(k.out.links);
    free(kept.links);
    return ok;
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
    cs_cluster *nodes = NULL;
    progress p = {.out = options->progress, .start = start, .last = start};
    bool ok = cs_radiosity_make_patches(tris, tri_count, patch_size, out, err);
    if (ok)
        report(&p, "%u patches: their openness", out->patch_count);
    ok = ok && measure_openness(ctx, bvh, out, err);
    if (ok)
        report(&p, "%u patches: the cluster tree", out->patch_count);
    ok = ok && build_tree(out, options, &nodes, &roots, &root_count, err);
    if (ok)
        report(&p, "%u patches, %u clusters: divided clusters", out->patch_count, out->cluster_count);
    ok = ok && mark_divided(ctx, bvh, out, nodes, err);
    if (ok)
        report(&p, "%u patches, %u clusters: the links", out->patch_count, out->cluster_count);
    ok = ok && make_links(ctx, bvh, out, nodes, roots, root_count, options, &p, err);
    free(roots);
    free(nodes);
    if (!ok) {
        cs_radiosity_free(out);
        return false;
    }
    out->compile_seconds = cs_now_seconds() - start;
    return true;
}
