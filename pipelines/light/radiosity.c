// radiosity.c — patches, form factors and the reference solver (radiosity.h).
#include "radiosity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

typedef struct dvec3 {
    double x, y, z;
} dvec3;

static dvec3 load3(const float p[3])
{
    return (dvec3){p[0], p[1], p[2]};
}

static dvec3 sub(dvec3 a, dvec3 b)
{
    return (dvec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

static double dot(dvec3 a, dvec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static dvec3 cross(dvec3 a, dvec3 b)
{
    return (dvec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// Area, unit normal and centroid of a triangle.
typedef struct tri_frame {
    double area;
    dvec3 normal, center;
} tri_frame;

static tri_frame frame_of(const float t[3][3])
{
    dvec3 a = load3(t[0]), b = load3(t[1]), c = load3(t[2]);
    dvec3 n = cross(sub(b, a), sub(c, a));
    double len = sqrt(dot(n, n));
    tri_frame f = {.area = 0.5 * len, .center = {(a.x + b.x + c.x) / 3, (a.y + b.y + c.y) / 3, (a.z + b.z + c.z) / 3}};
    f.normal = len > 0 ? (dvec3){n.x / len, n.y / len, n.z / len} : (dvec3){0, 0, 0};
    return f;
}

// The four triangles of the midpoint split, same orientation.
static void split4(const float t[3][3], float out[4][3][3])
{
    float m[3][3];
    for (int k = 0; k < 3; k++) {
        m[0][k] = 0.5f * (t[0][k] + t[1][k]);
        m[1][k] = 0.5f * (t[1][k] + t[2][k]);
        m[2][k] = 0.5f * (t[2][k] + t[0][k]);
    }
    const float *pieces[4][3] = {{t[0], m[0], m[2]}, {m[0], t[1], m[1]}, {m[2], m[1], t[2]}, {m[0], m[1], m[2]}};
    for (int p = 0; p < 4; p++)
        for (int v = 0; v < 3; v++)
            memcpy(out[p][v], pieces[p][v], sizeof out[p][v]);
}

// Wallace's disc formula between two triangles' centroids: finite as r ->
// 0, so it takes the near pieces the split stops at (CS_RADIOSITY_NEAR_DEPTH).
static double disc_factor(const tri_frame *i, const tri_frame *j)
{
    dvec3 r = sub(j->center, i->center);
    double d2 = dot(r, r);
    if (d2 == 0.0)
        return 0.0;
    double d = sqrt(d2);
    double cos_i = dot(i->normal, r) / d, cos_j = -dot(j->normal, r) / d;
    if (cos_i <= 0.0 || cos_j <= 0.0)
        return 0.0;
    return j->area * cos_i * cos_j / (PI * d2 + j->area);
}

// Adds a triangle's covariance about its centroid (uniform over its area),
// the sum over its corners of (v - c)(v - c)^T / 12, to S.
static void covariance_add(const float t[3][3], double S[3][3])
{
    double c[3];
    for (int a = 0; a < 3; a++)
        c[a] = (t[0][a] + t[1][a] + t[2][a]) / 3.0;
    for (int v = 0; v < 3; v++) {
        double e[3] = {t[v][0] - c[0], t[v][1] - c[1], t[v][2] - c[2]};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                S[a][b] += e[a] * e[b] / 12.0;
    }
}

// F_ij of two triangles far apart (beyond the near-field bound): the mean
// over i of the integral over j of K(x, y) = cos_x cos_y / (pi |y - x|^2),
// expanded about the centroids to second order,
//     F = A_j (K(d) + tr(H(d) (S_i + S_j)) / 2),   d = c_j - c_i,
// H the Hessian of K in d (normals held; K depends on x and y only through
// d, so both triangles' spreads add), S their covariances. With
// K = (a.d)(b.d) g / pi, a = n_i, b = -n_j, g = |d|^-4:
//     tr(H S) = (2 g a^T S b + 2 grad(g)^T S grad(a.d b.d)
//                + (a.d)(b.d) tr(H_g S)) / pi,
//     grad g = -4 d |d|^-6, tr(H_g S) = -4 tr(S) |d|^-6 + 24 d^T S d |d|^-8.
// The centroid alone (the point formula) is a first-order rule whose
// error is this term; Wallace's disc, used here before, put -A_j / (pi
// r^2) in its place, right only for a coaxial disc: a closed cube's rows
// summed to 0.9907-1.0003 with it, 0.9994-1.0007 with the expansion
// (docs/light.md, "Form factors"). Clamped at 0 (near a horizon the
// series can undershoot).
static double corrected_factor(const tri_frame *i, const tri_frame *j, const double S[3][3])
{
    dvec3 dv = sub(j->center, i->center);
    double d[3] = {dv.x, dv.y, dv.z}, a[3] = {i->normal.x, i->normal.y, i->normal.z},
           b[3] = {-j->normal.x, -j->normal.y, -j->normal.z};
    double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double ad = a[0] * d[0] + a[1] * d[1] + a[2] * d[2], bd = b[0] * d[0] + b[1] * d[1] + b[2] * d[2];
    if (dd == 0.0 || ad <= 0.0 || bd <= 0.0)
        return 0.0;
    double f = ad * bd, g = 1.0 / (dd * dd);
    double grad_f[3], grad_g[3];
    for (int x = 0; x < 3; x++)
        grad_f[x] = a[x] * bd + b[x] * ad, grad_g[x] = -4.0 * d[x] / (dd * dd * dd);
    double aSb = 0.0, gSf = 0.0, trS = S[0][0] + S[1][1] + S[2][2], dSd = 0.0;
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++) {
            aSb += a[x] * S[x][y] * b[y];
            gSf += grad_g[x] * S[x][y] * grad_f[y];
            dSd += d[x] * S[x][y] * d[y];
        }
    double tr_HfS = 2.0 * aSb, tr_HgS = -4.0 * trS / (dd * dd * dd) + 24.0 * dSd / (dd * dd * dd * dd);
    double K = f * g / PI, second = (g * tr_HfS + 2.0 * gSf + f * tr_HgS) / PI;
    return fmax(j->area * (K + 0.5 * second), 0.0);
}

// True when no point of `other` lies in front of the plane of `t` (f's
// frame): then no piece of the pair can exchange light, so refining it
// would only cost time (coplanar neighbours, back to back).
static bool wholly_behind(const tri_frame *f, const float other[3][3])
{
    for (int v = 0; v < 3; v++) {
        if (dot(f->normal, sub(load3(other[v]), f->center)) > 1e-9 * sqrt(f->area))
            return false;
    }
    return true;
}

// spread: S_i + S_j, the two triangles' covariances (each midpoint piece
// is its triangle halved, so its covariance is a quarter of it).
static double refined_factor(const float from[3][3], const float to[3][3], int depth, const double spread[3][3])
{
    tri_frame i = frame_of(from), j = frame_of(to);
    if (wholly_behind(&i, to) || wholly_behind(&j, from))
        return 0.0;
    dvec3 r = sub(j.center, i.center);
    double size2 = fmax(i.area, j.area);
    if (dot(r, r) >= CS_RADIOSITY_NEAR * CS_RADIOSITY_NEAR * size2)
        return corrected_factor(&i, &j, spread); // far enough for the expansion
    if (depth >= CS_RADIOSITY_NEAR_DEPTH)
        return disc_factor(&i, &j); // near, and split as far as it goes: the disc, finite
    float from4[4][3][3], to4[4][3][3];
    split4(from, from4);
    split4(to, to4);
    double quarter[3][3];
    for (int x = 0; x < 3; x++)
        for (int y = 0; y < 3; y++)
            quarter[x][y] = 0.25 * spread[x][y];
    double sum = 0.0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            sum += refined_factor(from4[a], to4[b], depth + 1, quarter);
    // Sum over the receiver's pieces, average over the sender's (equal areas).
    return sum / 4.0;
}

double cs_form_factor(const float from[3][3], const float to[3][3])
{
    double spread[3][3] = {{0}};
    covariance_add(from, spread);
    covariance_add(to, spread);
    return refined_factor(from, to, 0, spread);
}

// Patches of one triangle: n^2 equal triangles on a barycentric lattice.
static uint32_t subdivisions(const cs_tri *t, double patch_size)
{
    dvec3 a = {t->v0.x, t->v0.y, t->v0.z}, b = {t->v1.x, t->v1.y, t->v1.z}, c = {t->v2.x, t->v2.y, t->v2.z};
    dvec3 e[3] = {sub(b, a), sub(c, b), sub(a, c)};
    double longest = 0.0;
    for (int k = 0; k < 3; k++)
        longest = fmax(longest, sqrt(dot(e[k], e[k])));
    double n = ceil(longest / patch_size);
    return n < 1.0 ? 1u : n > 4096.0 ? 4096u : (uint32_t)n;
}

static void lattice_point(const cs_tri *t, uint32_t n, uint32_t a, uint32_t b, float out[3])
{
    double u = (double)a / n, v = (double)b / n;
    out[0] = (float)(t->v0.x + u * (t->v1.x - t->v0.x) + v * (t->v2.x - t->v0.x));
    out[1] = (float)(t->v0.y + u * (t->v1.y - t->v0.y) + v * (t->v2.y - t->v0.y));
    out[2] = (float)(t->v0.z + u * (t->v1.z - t->v0.z) + v * (t->v2.z - t->v0.z));
}

static void add_patch(cs_radiosity_compiled *c, const cs_tri *t, uint32_t tri, const float p0[3], const float p1[3],
                      const float p2[3])
{
    uint32_t k = c->patch_count++;
    memcpy(c->corners[k][0], p0, sizeof(float[3]));
    memcpy(c->corners[k][1], p1, sizeof(float[3]));
    memcpy(c->corners[k][2], p2, sizeof(float[3]));
    tri_frame f = frame_of(c->corners[k]);
    c->patches[k] = (cs_patch){
        .center_area = {(float)f.center.x, (float)f.center.y, (float)f.center.z, (float)f.area},
        .normal = {(float)f.normal.x, (float)f.normal.y, (float)f.normal.z, 0.0f},
        .albedo = t->albedo,
        .emission = t->emission,
    };
    c->patch_tri[k] = tri;
}

uint64_t cs_radiosity_patch_count(const cs_tri *tris, uint32_t tri_count, double patch_size)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < tri_count; i++) {
        uint64_t n = subdivisions(&tris[i], patch_size);
        total += n * n;
    }
    return total;
}

bool cs_radiosity_make_patches(const cs_tri *tris, uint32_t tri_count, double patch_size, cs_radiosity_compiled *c,
                               cs_error *err)
{
    uint64_t total = cs_radiosity_patch_count(tris, tri_count, patch_size);
    if (total > CS_RADIOSITY_MAX_PATCHES)
        return cs_fail(err, "radiosity: %llu patches at patch_size %g: more than %u; raise patch_size",
                       (unsigned long long)total, patch_size, CS_RADIOSITY_MAX_PATCHES);
    c->patches = calloc(total ? total : 1, sizeof *c->patches);
    c->corners = calloc(total ? total : 1, sizeof *c->corners);
    c->patch_tri = calloc(total ? total : 1, sizeof *c->patch_tri);
    if (!c->patches || !c->corners || !c->patch_tri)
        return cs_fail(err, "radiosity: out of memory for %llu patches", (unsigned long long)total);
    for (uint32_t i = 0; i < tri_count; i++) {
        const cs_tri *t = &tris[i];
        uint32_t n = subdivisions(t, patch_size);
        for (uint32_t a = 0; a < n; a++) {
            for (uint32_t b = 0; a + b < n; b++) {
                float p00[3], p10[3], p01[3];
                lattice_point(t, n, a, b, p00);
                lattice_point(t, n, a + 1, b, p10);
                lattice_point(t, n, a, b + 1, p01);
                add_patch(c, t, i, p00, p10, p01);
                if (a + b + 1 < n) {
                    float p11[3];
                    lattice_point(t, n, a + 1, b + 1, p11);
                    add_patch(c, t, i, p10, p11, p01);
                }
            }
        }
    }
    return true;
}

void cs_radiosity_link_ray(const cs_radiosity_compiled *c, uint32_t i, uint32_t j, double origin[3], double dir[3])
{
    const cs_patch *pi = &c->patches[i], *pj = &c->patches[j];
    double lift = 1e-4 * sqrt(fmax(pi->center_area.w, pj->center_area.w));
    double e[3] = {pj->center_area.x + lift * pj->normal.x, pj->center_area.y + lift * pj->normal.y,
                   pj->center_area.z + lift * pj->normal.z};
    origin[0] = pi->center_area.x + lift * pi->normal.x;
    origin[1] = pi->center_area.y + lift * pi->normal.y;
    origin[2] = pi->center_area.z + lift * pi->normal.z;
    for (int k = 0; k < 3; k++)
        dir[k] = e[k] - origin[k];
}

// Can the centres of patches i and j see each other? (On the CPU; the GPU
// casts the same rays in pipelines/light/radiosity_gpu.c.)
static bool patches_see(const cs_radiosity_compiled *c, const cs_bvh *bvh, uint32_t i, uint32_t j)
{
    if (!bvh)
        return true;
    double o[3], d[3];
    cs_radiosity_link_ray(c, i, j, o, d);
    return cs_bvh_unoccluded(bvh, o, d, 0.0, 1.0);
}

static bool push_link(cs_radiosity_compiled *c, uint32_t *capacity, uint32_t target, double factor, cs_error *err)
{
    if (c->link_count == *capacity) {
        if (*capacity >= (1u << 30))
            return cs_fail(err, "radiosity: more than 2^30 links; raise patch_size");
        uint32_t grown_capacity = *capacity ? *capacity * 2 : 1024;
        cs_link *grown = realloc(c->links, (size_t)grown_capacity * sizeof *grown);
        if (!grown)
            return cs_fail(err, "radiosity: out of memory for %u links", grown_capacity);
        c->links = grown;
        *capacity = grown_capacity;
    }
    c->links[c->link_count++] = (cs_link){target, (float)factor};
    return true;
}

// The rows of patches sampled to estimate the flat links before any is
// made, and the seconds between two progress lines of a long compile.
#define ESTIMATE_ROWS 64u
#define ESTIMATE_COLUMNS 4096u
#define FLAT_PROGRESS_S 5.0

// About how many links the flat compile makes before visibility: the
// facing pairs of ESTIMATE_ROWS rows spread over the patches, each row
// against at most ESTIMATE_COLUMNS patches spread likewise, scaled to all
// n x n (deterministic, and a second at most where the compile would take
// hours).
static uint64_t estimate_flat_links(const cs_radiosity_compiled *c)
{
    uint32_t n = c->patch_count, rows = CS_MIN(n, ESTIMATE_ROWS), columns = CS_MIN(n, ESTIMATE_COLUMNS);
    uint64_t facing = 0;
    // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10 misreads CS_MIN: rows is 0 only without patches
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t i = (uint32_t)((uint64_t)r * n / rows);
        for (uint32_t k = 0; k < columns; k++) {
            uint32_t j = (uint32_t)((uint64_t)k * n / columns);
            facing += j != i && cs_form_factor(c->corners[i], c->corners[j]) > 0.0;
        }
    }
    // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10 misreads CS_MIN (as above)
    return rows ? (uint64_t)((double)facing * ((double)n / rows) * ((double)n / columns)) : 0;
}

// The flat compile's links (8 B each, before the GPU culls the hidden ones)
// are held on the host; more than MemAvailable or 2^30 is refused before
// the n^2 pairs are walked (it walked them for minutes, then said so).
static bool check_flat_links(const cs_radiosity_compiled *c, double patch_size, cs_error *err)
{
    uint64_t links = estimate_flat_links(c), host = cs_host_memory_available();
    uint64_t most = CS_MIN((uint64_t)1 << 30, host / sizeof(cs_link));
    if (links <= most)
        return true;
    char n[32], l[32], total[32], fit[32], avail[32];
    // Links go as patches^2, patches as 1/patch_size^2.
    return cs_fail(err, "radiosity: the flat links (\"hierarchy\": false) join every pair of patches that face: "
                        "%s patches at patch_size %g give about %s links x %zu B = %s (estimated from %u x %u pairs), more "
                        "than the %s that fit (2^30, or the host's %s available); raise patch_size to at least "
                        "%.3g or use the hierarchy",
                   cs_format_count(c->patch_count, n, sizeof n), patch_size, cs_format_count(links, l, sizeof l),
                   sizeof(cs_link), cs_format_bytes(links * sizeof(cs_link), total, sizeof total),
                   CS_MIN(c->patch_count, ESTIMATE_ROWS), CS_MIN(c->patch_count, ESTIMATE_COLUMNS), cs_format_count(most, fit, sizeof fit),
                   cs_format_bytes(host, avail, sizeof avail), patch_size * pow((double)links / (double)most, 0.25));
}

bool cs_radiosity_compile(const cs_tri *tris, uint32_t tri_count, double patch_size, const cs_bvh *bvh,
                          cs_radiosity_compiled *out, cs_error *err)
{
    return cs_radiosity_compile_progress(tris, tri_count, patch_size, bvh, NULL, out, err);
}

bool cs_radiosity_compile_progress(const cs_tri *tris, uint32_t tri_count, double patch_size, const cs_bvh *bvh,
                                   FILE *progress, cs_radiosity_compiled *out, cs_error *err)
{
    *out = (cs_radiosity_compiled){0};
    double start = cs_now_seconds(), last = start;
    if (!(patch_size > 0.0))
        return cs_fail(err, "radiosity: patch_size must be > 0 (got %g)", patch_size);
    if (!cs_radiosity_make_patches(tris, tri_count, patch_size, out, err) ||
        !check_flat_links(out, patch_size, err)) {
        cs_radiosity_free(out);
        return false;
    }
    uint32_t n = out->patch_count, capacity = 0;
    out->link_start = calloc((size_t)n + 1, sizeof *out->link_start);
    if (!out->link_start) {
        cs_radiosity_free(out);
        return cs_fail(err, "radiosity: out of memory");
    }
    for (uint32_t i = 0; i < n; i++) {
        out->link_start[i] = out->link_count;
        double now = progress ? cs_now_seconds() : 0.0;
        if (progress && now - last >= FLAT_PROGRESS_S) {
            last = now;
            // Rows cost about the same: the time left is the rows left at
            // the rate so far.
            fprintf(progress, "radiosity: compiling (%.0f s): %u of %u patches linked, %.1f M links, about %.0f s "
                              "left\n",
                    now - start, i, n, out->link_count / 1e6, (now - start) * (double)(n - i) / (double)i);
            fflush(progress);
        }
        for (uint32_t j = 0; j < n; j++) {
            if (j == i)
                continue;
            double f = cs_form_factor(out->corners[i], out->corners[j]);
            if (f > 0.0 && patches_see(out, bvh, i, j) && !push_link(out, &capacity, j, f, err)) {
                cs_radiosity_free(out);
                return false;
            }
        }
    }
    out->link_start[n] = out->link_count;
    out->compile_seconds = cs_now_seconds() - start;
    return true;
}

void cs_radiosity_free(cs_radiosity_compiled *c)
{
    if (!c)
        return;
    free(c->patches);
    free(c->corners);
    free(c->patch_tri);
    free(c->link_start);
    free(c->links);
    free(c->clusters);
    free(c->child_start);
    free(c->children);
    free(c->parents);
    free(c->openness);
    free(c->link_gradients);
    *c = (cs_radiosity_compiled){0};
}

// Every cluster's B: the area-weighted mean of its children's, round by
// round (node-indexed: patches first, then clusters).
static void push_up(const cs_radiosity_compiled *c, double *nodes)
{
    for (uint32_t k = 0; k < c->cluster_count; k++) {
        double sum[3] = {0, 0, 0};
        for (uint32_t l = c->child_start[k]; l < c->child_start[k + 1]; l++)
            for (int ch = 0; ch < 3; ch++)
                sum[ch] += (double)c->children[l].factor * nodes[3 * c->children[l].target + ch];
        for (int ch = 0; ch < 3; ch++)
            nodes[3 * ((size_t)c->patch_count + k) + ch] = sum[ch];
    }
}

// G of every receiving node over its links from `from` (node-indexed),
// and of every cluster its gradient (gradient[9 k + 3 axis + channel]).
static void gather_nodes(const cs_radiosity_compiled *c, const double *from, double *irradiance, double *gradient)
{
    uint32_t nodes = cs_radiosity_node_count(c), n = c->patch_count;
    for (uint32_t i = 0; i < nodes; i++) {
        double gathered[3] = {0, 0, 0}, slope[9] = {0};
        for (uint32_t l = c->link_start[i]; l < c->link_start[i + 1]; l++) {
            const double *b = &from[3 * (size_t)c->links[l].target];
            for (int k = 0; k < 3; k++)
                gathered[k] += (double)c->links[l].factor * b[k];
            if (i < n)
                continue;
            const float *g = c->link_gradients[l - c->link_start[n]];
            for (int axis = 0; axis < 3; axis++)
                for (int k = 0; k < 3; k++)
                    slope[3 * axis + k] += (double)g[axis] * b[k];
        }
        memcpy(&irradiance[3 * (size_t)i], gathered, sizeof gathered);
        if (i >= n)
            memcpy(&gradient[9 * (size_t)(i - n)], slope, sizeof slope);
    }
}

// Patch i's irradiance: its own G plus its openness times the sum of its
// ancestors' from the parent up (the order of shaders/radiosity/pushdown.comp).
static void pushed_down(const cs_radiosity_compiled *c, const double *irradiance, const double *gradient, uint32_t i,
                        double out[3])
{
    if (!c->parents) {
        memcpy(out, &irradiance[3 * (size_t)i], 3 * sizeof *out);
        return;
    }
    double above[3] = {0, 0, 0};
    const vec4 *x = &c->patches[i].center_area;
    for (uint32_t a = c->parents[i]; a != CS_RADIOSITY_NO_PARENT; a = c->parents[a]) {
        const double *centre = c->clusters[a - c->patch_count].center;
        const double *slope = &gradient[9 * (size_t)(a - c->patch_count)];
        // The offset in float, as the push-down pass computes it.
        float offset[3] = {x->x - (float)centre[0], x->y - (float)centre[1], x->z - (float)centre[2]};
        for (int k = 0; k < 3; k++)
            above[k] += irradiance[3 * (size_t)a + k] + offset[0] * slope[k] + offset[1] * slope[3 + k] +
                        offset[2] * slope[6 + k];
    }
    double open = c->openness ? c->openness[i] : 1.0;
    for (int k = 0; k < 3; k++)
        out[k] = irradiance[3 * (size_t)i + k] + open * above[k];
}

// The light the patches reflect: sum over patches and channels of A (B - E).
static double reflected_power(const cs_radiosity_compiled *c, const double *radiosity)
{
    double power = 0.0;
    for (uint32_t i = 0; i < c->patch_count; i++) {
        const float e[3] = {c->patches[i].emission.x, c->patches[i].emission.y, c->patches[i].emission.z};
        for (int k = 0; k < 3; k++)
            power += (double)c->patches[i].center_area.w * (radiosity[3 * i + k] - e[k]);
    }
    return power;
}

uint32_t cs_radiosity_solve_to(const cs_radiosity_compiled *c, const double *direct, double tolerance,
                               uint32_t max_bounces, double *radiosity)
{
    uint32_t n = c->patch_count;
    size_t nodes = cs_radiosity_node_count(c);
    double *previous = malloc((nodes ? nodes : 1) * 3 * sizeof *previous);
    double *irradiance = malloc((nodes ? nodes : 1) * 3 * sizeof *irradiance);
    double *gradient = malloc(((size_t)c->cluster_count + 1) * 9 * sizeof *gradient);
    CS_ASSERT(previous && irradiance && gradient, "radiosity: out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const float rho[3] = {c->patches[i].albedo.x, c->patches[i].albedo.y, c->patches[i].albedo.z};
        const float e[3] = {c->patches[i].emission.x, c->patches[i].emission.y, c->patches[i].emission.z};
        for (int k = 0; k < 3; k++)
            radiosity[3 * i + k] = e[k] + rho[k] * (direct ? direct[3 * i + k] : 0.0);
    }
    double power = tolerance > 0.0 ? reflected_power(c, radiosity) : 0.0;
    uint32_t bounce = 0;
    while (bounce < max_bounces) {
        memcpy(previous, radiosity, (size_t)n * 3 * sizeof *previous);
        push_up(c, previous);
        gather_nodes(c, previous, irradiance, gradient);
        for (uint32_t i = 0; i < n; i++) {
            double gathered[3];
            pushed_down(c, irradiance, gradient, i, gathered);
            const float rho[3] = {c->patches[i].albedo.x, c->patches[i].albedo.y, c->patches[i].albedo.z};
            const float e[3] = {c->patches[i].emission.x, c->patches[i].emission.y, c->patches[i].emission.z};
            for (int k = 0; k < 3; k++)
                radiosity[3 * i + k] = e[k] + rho[k] * ((direct ? direct[3 * i + k] : 0.0) + gathered[k]);
        }
        bounce++;
        if (tolerance > 0.0) {
            double next = reflected_power(c, radiosity);
            // A dark scene (no reflected light at all) has converged too.
            bool settled = fabs(next - power) <= tolerance * fabs(next);
            power = next;
            if (settled)
                break;
        }
    }
    free(previous);
    free(irradiance);
    free(gradient);
    return bounce;
}

void cs_radiosity_solve(const cs_radiosity_compiled *c, const double *direct, uint32_t bounces, double *radiosity)
{
    cs_radiosity_solve_to(c, direct, 0.0, bounces, radiosity);
}
