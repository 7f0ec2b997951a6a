// geometry_sdf.c — the scene's static geometry as a signed distance field
// (see geometry_sdf.h for the solid rule and what the values mean).
#include "geometry_sdf.h"

#include <math.h>
#include <string.h>

// A triangle's prism, in double: its corners, unit normal (towards the
// front) and per edge the in-plane unit normal pointing into the triangle.
typedef struct prism {
    double v[3][3];
    double edge[3][3];    // edge i: v[i + 1] - v[i]
    double edge_len2[3];
    double inward[3][3];
    double n[3];
} prism;

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void scale_to_unit(double a[3])
{
    double len = sqrt(dot3(a, a));
    for (int k = 0; k < 3; k++)
        a[k] /= len;
}

static prism prism_from_tri(const cs_tri *tri)
{
    prism pr;
    const vec4 *corners[3] = {&tri->v0, &tri->v1, &tri->v2};
    for (int i = 0; i < 3; i++) {
        pr.v[i][0] = corners[i]->x;
        pr.v[i][1] = corners[i]->y;
        pr.v[i][2] = corners[i]->z;
    }
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++)
            pr.edge[i][k] = pr.v[(i + 1) % 3][k] - pr.v[i][k];
        pr.edge_len2[i] = dot3(pr.edge[i], pr.edge[i]);
    }
    // Counter-clockwise corners turn around the normal (v1 - v0) x (v2 - v0).
    cross3(pr.edge[0], pr.edge[1], pr.n);
    scale_to_unit(pr.n);
    // n x edge lies in the plane, at right angles to the edge, and points to
    // the triangle's side of it because the corners turn counter-clockwise.
    for (int i = 0; i < 3; i++) {
        cross3(pr.n, pr.edge[i], pr.inward[i]);
        scale_to_unit(pr.inward[i]);
    }
    return pr;
}

// Distance from q (in the triangle's plane) to edge i, as a segment.
static double edge_distance(const prism *pr, int i, const double q[3])
{
    double d[3] = {q[0] - pr->v[i][0], q[1] - pr->v[i][1], q[2] - pr->v[i][2]};
    double t = fmin(fmax(dot3(d, pr->edge[i]) / pr->edge_len2[i], 0.0), 1.0);
    for (int k = 0; k < 3; k++)
        d[k] -= t * pr->edge[i][k];
    return sqrt(dot3(d, d));
}

// Where p is against one triangle: inside its prism or not, the distance to
// the prism (0 inside), and to the triangle itself with the side p is on.
typedef struct prism_place {
    bool inside;
    bool behind;             // behind the triangle's plane
    double prism_distance;   // 0 when inside
    double triangle_distance;
} prism_place;

// The prism is (triangle) x [-thickness, 0] along n: the distance to a
// product of two convex sets is sqrt(a^2 + b^2), a and b the distances to
// each factor (0 inside it).
static prism_place place_in_prism(const prism *pr, double thickness, const double p[3])
{
    double rel[3] = {p[0] - pr->v[0][0], p[1] - pr->v[0][1], p[2] - pr->v[0][2]};
    double h = dot3(rel, pr->n);
    double q[3] = {p[0] - h * pr->n[0], p[1] - h * pr->n[1], p[2] - h * pr->n[2]};
    bool in_triangle = true;
    for (int i = 0; i < 3; i++) {
        double d[3] = {q[0] - pr->v[i][0], q[1] - pr->v[i][1], q[2] - pr->v[i][2]};
        in_triangle = in_triangle && dot3(d, pr->inward[i]) >= 0.0;
    }
    double in_plane = 0.0;
    if (!in_triangle)
        in_plane = fmin(edge_distance(pr, 0, q), fmin(edge_distance(pr, 1, q), edge_distance(pr, 2, q)));
    double along = h > 0.0 ? h : (h < -thickness ? -thickness - h : 0.0); // h to [-thickness, 0]
    prism_place out = {
        .inside = in_triangle && along == 0.0,
        .behind = h < 0.0,
        .prism_distance = sqrt(in_plane * in_plane + along * along),
        .triangle_distance = sqrt(in_plane * in_plane + h * h),
    };
    return out;
}

// The running result at one point over the triangles seen so far.
typedef struct sdf_point {
    bool inside;          // in some triangle's prism
    double to_solid;      // least prism distance
    double to_front;      // least distance to a triangle p is behind
} sdf_point;

static void add_triangle(sdf_point *at, const prism_place *place)
{
    at->inside = at->inside || place->inside;
    at->to_solid = fmin(at->to_solid, place->prism_distance);
    if (place->behind || place->inside)
        at->to_front = fmin(at->to_front, place->triangle_distance);
}

// Outside: the distance to the union of prisms. Inside: minus the distance
// to the nearest triangle whose back the point is behind: through a front
// face, never a prism's back or its sides, so seams inside the solid (a
// quad's diagonal, two faces meeting) are not surfaces.
static double sdf_value(const sdf_point *at)
{
    return at->inside ? -at->to_front : at->to_solid;
}

double cs_geometry_sdf_at(const cs_tri *tris, uint32_t tri_count, double thickness, const double p[3])
{
    sdf_point at = {.inside = false, .to_solid = INFINITY, .to_front = INFINITY};
    for (uint32_t t = 0; t < tri_count; t++) {
        prism pr = prism_from_tri(&tris[t]);
        prism_place place = place_in_prism(&pr, thickness, p);
        add_triangle(&at, &place);
    }
    return sdf_value(&at);
}

bool cs_geometry_grid_plan(const float domain_min[3], const float domain_max[3], double cell, double band,
                           cs_level_grid *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(cell > 0.0) || !(band > 0.0))
        return cs_fail(err, "the geometry field needs a positive cell size and band (got %g, %g)", cell, band);
    return cs_level_grid_cover(domain_min, domain_max, cell, band, "geometry field", out, err);
}

// The nodes a triangle can change: within the band of its prism's bounding
// box (further away its distance is above the band, where values are
// clamped anyway). False when that box misses the grid.
static bool visit_range(const prism *pr, const cs_level_grid *grid, double thickness, uint32_t lo[3], uint32_t hi[3])
{
    for (int k = 0; k < 3; k++) {
        double min = INFINITY, max = -INFINITY;
        for (int i = 0; i < 3; i++) {
            double front = pr->v[i][k], back = pr->v[i][k] - thickness * pr->n[k];
            min = fmin(min, fmin(front, back));
            max = fmax(max, fmax(front, back));
        }
        double first = ceil((min - grid->band - grid->origin[k]) / grid->cell);
        double last = floor((max + grid->band - grid->origin[k]) / grid->cell);
        first = fmax(first, 0.0);
        last = fmin(last, (double)grid->dims[k] - 1.0);
        if (first > last)
            return false;
        lo[k] = (uint32_t)first;
        hi[k] = (uint32_t)last;
    }
    return true;
}

uint64_t cs_geometry_sdf_visits(const cs_tri *tris, uint32_t tri_count, const cs_level_grid *grid,
                                double thickness)
{
    uint64_t visits = 0;
    for (uint32_t t = 0; t < tri_count; t++) {
        prism pr = prism_from_tri(&tris[t]);
        uint32_t lo[3], hi[3];
        if (visit_range(&pr, grid, thickness, lo, hi))
            visits += (uint64_t)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
    }
    return visits;
}

bool cs_geometry_sdf_bake(const cs_tri *tris, uint32_t tri_count, const cs_level_grid *grid, double thickness,
                          float *values, cs_error *err)
{
    if (!(thickness > 0.0))
        return cs_fail(err, "the geometry's solid thickness must be positive (got %g)", thickness);
    uint64_t visits = cs_geometry_sdf_visits(tris, tri_count, grid, thickness);
    if (visits > CS_GEOMETRY_SDF_MAX_VISITS)
        return cs_fail(err,
                       "the geometry's distance field would take %llu node-triangle visits (%u triangles, %u x %u x "
                       "%u nodes, cell %g m): more than %llu (about 25 s on one core); use fewer triangles or a "
                       "coarser particle spacing",
                       (unsigned long long)visits, tri_count, grid->dims[0], grid->dims[1], grid->dims[2], grid->cell,
                       (unsigned long long)CS_GEOMETRY_SDF_MAX_VISITS);
    size_t nodes = (size_t)grid->dims[0] * grid->dims[1] * grid->dims[2];
    sdf_point *at = malloc(nodes * sizeof *at);
    CS_ASSERT(at, "out of host memory for %zu geometry field nodes", nodes);
    // Starting at the band: what no triangle comes within the band of is
    // clamped there anyway.
    for (size_t i = 0; i < nodes; i++)
        at[i] = (sdf_point){.inside = false, .to_solid = grid->band, .to_front = grid->band};
    for (uint32_t t = 0; t < tri_count; t++) {
        prism pr = prism_from_tri(&tris[t]);
        uint32_t lo[3], hi[3];
        if (!visit_range(&pr, grid, thickness, lo, hi))
            continue;
        for (uint32_t z = lo[2]; z <= hi[2]; z++)
            for (uint32_t y = lo[1]; y <= hi[1]; y++)
                for (uint32_t x = lo[0]; x <= hi[0]; x++) {
                    double p[3] = {grid->origin[0] + x * grid->cell, grid->origin[1] + y * grid->cell,
                                   grid->origin[2] + z * grid->cell};
                    prism_place place = place_in_prism(&pr, thickness, p);
                    add_triangle(&at[((size_t)z * grid->dims[1] + y) * grid->dims[0] + x], &place);
                }
    }
    for (size_t i = 0; i < nodes; i++)
        values[i] = (float)fmax(fmin(sdf_value(&at[i]), grid->band), -grid->band);
    free(at);
    return true;
}
