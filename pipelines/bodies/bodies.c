// bodies.c — rigid bodies (see bodies.h).
#include "bodies.h"
#include "body_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

_Static_assert(CS_BODIES_MAX == CS_MAX_BODIES, "the set must hold every body a scene may have");
_Static_assert(sizeof(cs_body_grid) == 48 + 4 * (CS_BODY_GRID_CELLS + 4) + 4 * CS_BODY_GRID_ENTRIES,
               "cs_body_grid is not std430-packed");
_Static_assert(sizeof(cs_body_set) == 16 + 64 * CS_BODIES_MAX + 16 * CS_BODIES_MAX_PLANES + sizeof(cs_body_grid),
               "cs_body_set is not std430-packed");
_Static_assert(sizeof(cs_body_state) == 160, "cs_body_state is not std430-packed");

// ---------------------------------------------------------------------------
// Mass properties

static void rotate(const float q[4], const double v[3], double out[3])
{
    // v' = v + 2 w (u x v) + 2 u x (u x v), q = (u, w)
    double u[3] = {q[0], q[1], q[2]}, w = q[3];
    double t[3] = {2.0 * (u[1] * v[2] - u[2] * v[1]), 2.0 * (u[2] * v[0] - u[0] * v[2]), 2.0 * (u[0] * v[1] - u[1] * v[0])};
    double ut[3] = {u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2], u[0] * t[1] - u[1] * t[0]};
    for (int a = 0; a < 3; a++)
        out[a] = v[a] + w * t[a] + ut[a];
}

// Polytope volume, centre and second moments by lattice sampling of the
// vertices' bounding box (cell centres inside every plane).
static void sample_polytope(const double (*planes)[4], uint32_t n, int dim, const double (*verts)[3], uint32_t nv,
                            double *volume, double com[3], double second[3][3])
{
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++) {
        lo[a] = hi[a] = verts[0][a];
        for (uint32_t v = 1; v < nv; v++) {
            lo[a] = fmin(lo[a], verts[v][a]);
            hi[a] = fmax(hi[a], verts[v][a]);
        }
    }
    int res = dim == 3 ? 64 : 256;
    int rz = dim == 3 ? res : 1;
    double cell[3] = {(hi[0] - lo[0]) / res, (hi[1] - lo[1]) / res, dim == 3 ? (hi[2] - lo[2]) / res : 1.0};
    double dv = cell[0] * cell[1] * cell[2];
    double count = 0.0, sum[3] = {0, 0, 0}, sq[3][3] = {{0}};
    for (int k = 0; k < rz; k++)
        for (int j = 0; j < res; j++)
            for (int i = 0; i < res; i++) {
                double x[3] = {lo[0] + (i + 0.5) * cell[0], lo[1] + (j + 0.5) * cell[1],
                               dim == 3 ? lo[2] + (k + 0.5) * cell[2] : 0.0};
                bool inside = true;
                for (uint32_t p = 0; p < n && inside; p++)
                    inside = planes[p][0] * x[0] + planes[p][1] * x[1] + planes[p][2] * x[2] <= planes[p][3];
                if (!inside)
                    continue;
                count += 1.0;
                for (int a = 0; a < 3; a++) {
                    sum[a] += x[a];
                    for (int b = 0; b < 3; b++)
                        sq[a][b] += x[a] * x[b];
                }
            }
    *volume = count * dv;
    for (int a = 0; a < 3; a++)
        com[a] = count > 0.0 ? sum[a] / count : 0.0;
    // Second moments about the centre: E[x x^T] - c c^T, times the volume.
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            second[a][b] = count > 0.0 ? (sq[a][b] / count - com[a] * com[b]) * *volume : 0.0;
    // A cell's own extent (a cell is a small box, not a point).
    for (int a = 0; a < dim; a++)
        second[a][a] += *volume * cell[a] * cell[a] / 12.0;
}

void cs_body_props_compute(const cs_scene *scene, uint32_t i, cs_body_props *out)
{
    const cs_body *body = &scene->bodies[i];
    int dim = scene->dim;
    memset(out, 0, sizeof *out);
    double planes[CS_MAX_BODY_PLANES][4];
    uint32_t np = cs_body_planes(body, dim, planes);
    bool bounded = true;
    double verts[CS_BODY_MAX_VERTICES][3];
    uint32_t nv = np ? cs_convex_vertices((const double(*)[4])planes, np, dim, verts, &bounded) : 0;
    // Second moments S = integral of x x^T about the centre, times density
    // later: I = tr(S) 1 - S.
    double second[3][3] = {{0}}, com[3] = {0, 0, 0}, volume = 0.0;
    if (body->shape == CS_BODY_BOX) {
        volume = 1.0;
        for (int a = 0; a < dim; a++)
            volume *= body->size[a];
        for (int a = 0; a < dim; a++)
            second[a][a] = volume * (double)body->size[a] * body->size[a] / 12.0;
    } else if (body->shape == CS_BODY_SPHERE) {
        double r = body->radius;
        volume = dim == 3 ? 4.0 / 3.0 * M_PI * r * r * r : M_PI * r * r;
        double s = dim == 3 ? volume * r * r / 5.0 : volume * r * r / 4.0;
        for (int a = 0; a < dim; a++)
            second[a][a] = s;
    } else {
        sample_polytope((const double(*)[4])planes, np, dim, (const double(*)[3])verts, nv, &volume, com, second);
    }
    double mass = body->mass > 0.0f ? body->mass : (double)body->density * volume;
    out->mass = mass;
    out->volume = volume;
    memcpy(out->com, com, sizeof com);
    double trace = second[0][0] + second[1][1] + second[2][2];
    double density = volume > 0.0 ? mass / volume : 0.0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            out->inertia[a][b] = density * ((a == b ? trace : 0.0) - second[a][b]);
    // Geometry about the centre of mass.
    out->plane_count = np;
    for (uint32_t k = 0; k < np; k++) {
        for (int a = 0; a < 3; a++)
            out->planes[k][a] = planes[k][a];
        out->planes[k][3] = planes[k][3] - (planes[k][0] * com[0] + planes[k][1] * com[1] + planes[k][2] * com[2]);
    }
    out->vertex_count = nv;
    double radius = body->shape == CS_BODY_SPHERE ? body->radius : 0.0;
    for (uint32_t v = 0; v < nv; v++) {
        for (int a = 0; a < 3; a++)
            out->vertices[v][a] = verts[v][a] - com[a];
        radius = fmax(radius, sqrt(out->vertices[v][0] * out->vertices[v][0] + out->vertices[v][1] * out->vertices[v][1] +
                                   out->vertices[v][2] * out->vertices[v][2]));
    }
    out->radius = radius;
}

// Inverse of a symmetric 3x3 (adjugate); 2D: only I_zz matters.
static void inverse_inertia(const cs_body_props *p, int dim, bool is_static, double inv[3][3])
{
    memset(inv, 0, 9 * sizeof(double));
    if (is_static)
        return;
    if (dim == 2) {
        inv[2][2] = p->inertia[2][2] > 0.0 ? 1.0 / p->inertia[2][2] : 0.0;
        return;
    }
    const double(*m)[3] = p->inertia;
    double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1], c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2],
           c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    double det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
    if (!(fabs(det) > 0.0))
        return;
    inv[0][0] = c00 / det, inv[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det,
    inv[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det;
    inv[1][0] = c01 / det, inv[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det,
    inv[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det;
    inv[2][0] = c02 / det, inv[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det,
    inv[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det;
}

// The centre of mass in the world at the initial pose.
static void world_centre(const cs_body *body, const cs_body_props *p, double out[3])
{
    double c[3];
    rotate(body->orientation, p->com, c);
    for (int a = 0; a < 3; a++)
        out[a] = body->position[a] + c[a];
}

bool cs_bodies_set_build(const cs_scene *scene, cs_body_set *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    const char *where = scene->path[0] ? scene->path : scene->name;
    if (scene->body_count > CS_BODIES_MAX)
        return cs_fail(err, "%s: %u bodies, at most %d", where, scene->body_count, CS_BODIES_MAX);
    uint32_t planes = 0, dynamic = 0;
    bool d3 = scene->dim == 3;
    for (uint32_t i = 0; i < scene->body_count; i++) {
        const cs_body *body = &scene->bodies[i];
        cs_body_props p;
        cs_body_props_compute(scene, i, &p);
        if (planes + p.plane_count > CS_BODIES_MAX_PLANES)
            return cs_fail(err, "%s: the bodies have more than %d planes together", where, CS_BODIES_MAX_PLANES);
        double c[3];
        world_centre(body, &p, c);
        cs_body_gpu *g = &out->bodies[i];
        g->centre = (vec4){(float)c[0], (float)c[1], d3 ? (float)c[2] : 0.0f, (float)p.radius};
        float vel[3] = {body->velocity[0], body->velocity[1], body->velocity[2]};
        if (body->path_count) { // kinematic: the first segment's velocity
            double pos[3], v[3];
            cs_body_path_at(body, 0.0, pos, v);
            for (int a = 0; a < 3; a++)
                vel[a] = (float)v[a];
        }
        g->velocity = (vec4){vel[0], vel[1], d3 ? vel[2] : 0.0f, body->friction};
        g->omega = (vec4){d3 ? body->angular_velocity[0] : 0.0f, d3 ? body->angular_velocity[1] : 0.0f,
                          body->angular_velocity[2], body->shape == CS_BODY_SPHERE ? body->radius : 0.0f};
        bool moves = !body->is_static && !body->path_count; // pushed by the fluids: an impulse slot
        g->info = (uvec4){planes, p.plane_count, moves ? CS_BODY_DYNAMIC : 0u, moves ? dynamic : 0u};
        for (uint32_t k = 0; k < p.plane_count; k++) {
            double n[3];
            rotate(body->orientation, p.planes[k], n);
            double d = p.planes[k][3] + n[0] * c[0] + n[1] * c[1] + n[2] * c[2];
            out->planes[planes + k] = (vec4){(float)n[0], (float)n[1], d3 ? (float)n[2] : 0.0f, (float)d};
        }
        planes += p.plane_count;
        dynamic += moves;
    }
    out->counts = (uvec4){scene->body_count, planes, (uint32_t)scene->dim, dynamic};
    cs_body_grid_layout(scene, &out->grid);
    cs_body_grid_fill(out);
    return true;
}

// ---------------------------------------------------------------------------
// Contact points and paths

// Most contact points one body may have: its vertices and three points on
// each edge.
#define MAX_CONTACT_POINTS (CS_BODY_MAX_VERTICES * 4)

// The points body-wall and body-body contacts test (about the centre of
// mass): the vertices, then the points at 1/4, 1/2 and 3/4 of every edge.
// Vertices alone miss two boxes crossed edge on edge (each one's corners
// outside the other); the edge points catch that before the boxes are a
// quarter of an edge into each other. An edge joins two vertices on dim - 1
// common planes. Returns the count (a sphere: 0).
static uint32_t contact_points(const cs_body_props *p, int dim, double (*out)[3])
{
    uint32_t n = 0;
    for (uint32_t v = 0; v < p->vertex_count; v++, n++)
        memcpy(out[n], p->vertices[v], sizeof out[n]);
    double tol = 1e-6 * fmax(p->radius, 1e-12);
    for (uint32_t i = 0; i < p->vertex_count; i++)
        for (uint32_t j = i + 1; j < p->vertex_count; j++) {
            uint32_t shared = 0;
            for (uint32_t k = 0; k < p->plane_count; k++) {
                const double *pl = p->planes[k];
                double di = pl[0] * p->vertices[i][0] + pl[1] * p->vertices[i][1] + pl[2] * p->vertices[i][2] - pl[3];
                double dj = pl[0] * p->vertices[j][0] + pl[1] * p->vertices[j][1] + pl[2] * p->vertices[j][2] - pl[3];
                shared += fabs(di) <= tol && fabs(dj) <= tol;
            }
            if (shared < (uint32_t)dim - 1 || n + 3 > MAX_CONTACT_POINTS)
                continue;
            for (int q = 1; q <= 3; q++, n++)
                for (int a = 0; a < 3; a++)
                    out[n][a] = p->vertices[i][a] + 0.25 * q * (p->vertices[j][a] - p->vertices[i][a]);
        }
    return n;
}

void cs_body_path_at(const cs_body *body, double t, double pos[3], double vel[3])
{
    const float(*k)[4] = body->path;
    uint32_t n = body->path_count;
    double end = k[n - 1][0];
    if (body->path_loop)
        t = fmod(t, end);
    if (t >= end) {
        for (int a = 0; a < 3; a++)
            pos[a] = k[n - 1][1 + a], vel[a] = 0.0;
        return;
    }
    uint32_t i = 0;
    while (i + 2 < n && t >= k[i + 1][0])
        i++;
    double span = (double)k[i + 1][0] - k[i][0], s = (t - k[i][0]) / span;
    for (int a = 0; a < 3; a++) {
        double d = (double)k[i + 1][1 + a] - k[i][1 + a];
        pos[a] = k[i][1 + a] + s * d;
        vel[a] = d / span;
    }
}

// ---------------------------------------------------------------------------
// GPU part

// cs_bodies_create with the set, the states and the integration's constants
// (together 580 KiB) on the heap; the constants are zeroed (calloc).
static bool create(cs_context *ctx, const cs_scene *scene, const cs_body_link *links, uint32_t fluids,
                   cs_bodies *b, cs_body_set *set, cs_body_state *states, cs_bodies_params *bp, cs_error *err)
{
    memset(b, 0, sizeof *b);
    const char *where = scene->path[0] ? scene->path : scene->name;
    if (!cs_bodies_set_build(scene, set, err))
        return false;
    b->ctx = ctx;
    b->count = scene->body_count;
    b->dynamic = set->counts.w;
    b->fluids = fluids;
    b->grid_cells = set->grid.dims.x * set->grid.dims.y * set->grid.dims.z;
    bool d3 = scene->dim == 3;
    bp->counts = (uvec4){b->count, fluids, (uint32_t)scene->dim, b->dynamic};
    bp->gravity = (vec4){scene->gravity[0], scene->gravity[1], d3 ? scene->gravity[2] : 0.0f, scene->dt};
    bp->domain_min = (vec4){scene->domain_min[0], scene->domain_min[1], d3 ? scene->domain_min[2] : 0.0f, 0.0f};
    bp->domain_max = (vec4){scene->domain_max[0], scene->domain_max[1], d3 ? scene->domain_max[2] : 0.0f, 0.0f};
    const size_t states_size = sizeof *states * CS_BODIES_MAX;
    memset(states, 0, states_size);
    uint32_t planes = 0, verts = 0, keys = 0;
    for (uint32_t i = 0; i < b->count; i++) {
        const cs_body *body = &scene->bodies[i];
        bool moves = !body->is_static && !body->path_count; // static and kinematic: nothing pushes them
        cs_body_props p;
        cs_body_props_compute(scene, i, &p);
        double points[MAX_CONTACT_POINTS][3];
        uint32_t np = contact_points(&p, scene->dim, points);
        if (verts + np > CS_BODIES_MAX_VERTICES)
            return cs_fail(err, "%s: the bodies have more than %d contact points (vertices and edge points) together",
                           where, CS_BODIES_MAX_VERTICES);
        if (keys + body->path_count > CS_BODIES_MAX_PATH_KEYS)
            return cs_fail(err, "%s: the bodies have more than %d path keys together", where, CS_BODIES_MAX_PATH_KEYS);
        for (uint32_t k = 0; k < p.plane_count; k++)
            bp->local_planes[planes + k] = (vec4){(float)p.planes[k][0], (float)p.planes[k][1], (float)p.planes[k][2],
                                                  (float)p.planes[k][3]};
        for (uint32_t v = 0; v < np; v++)
            bp->local_vertices[verts + v] = (vec4){(float)points[v][0], (float)points[v][1], (float)points[v][2], 0.0f};
        // Path keys of the centre of mass (the keys place the body frame's origin).
        double com_offset[3];
        rotate(body->orientation, p.com, com_offset);
        for (uint32_t k = 0; k < body->path_count; k++)
            bp->path[keys + k] = (vec4){body->path[k][0], (float)(body->path[k][1] + com_offset[0]),
                                        (float)(body->path[k][2] + com_offset[1]),
                                        d3 ? (float)(body->path[k][3] + com_offset[2]) : 0.0f};
        double inv[3][3], c[3];
        inverse_inertia(&p, scene->dim, !moves, inv);
        world_centre(body, &p, c);
        cs_body_state *s = &states[i];
        double m = moves ? p.mass : 0.0;
        s->position = (vec4){(float)c[0], (float)c[1], d3 ? (float)c[2] : 0.0f, (float)m};
        s->orientation = (vec4){body->orientation[0], body->orientation[1], body->orientation[2], body->orientation[3]};
        s->momentum = (vec4){(float)(m * body->velocity[0]), (float)(m * body->velocity[1]),
                             d3 ? (float)(m * body->velocity[2]) : 0.0f, body->restitution};
        // L = R I R^T omega (world).
        double w_body[3], w[3] = {body->angular_velocity[0], body->angular_velocity[1], body->angular_velocity[2]};
        float qc[4] = {-body->orientation[0], -body->orientation[1], -body->orientation[2], body->orientation[3]};
        rotate(qc, w, w_body);
        double l_body[3] = {0, 0, 0}, l[3];
        for (int a = 0; a < 3; a++)
            for (int c2 = 0; c2 < 3; c2++)
                l_body[a] += (moves ? p.inertia[a][c2] : 0.0) * w_body[c2];
        rotate(body->orientation, l_body, l);
        if (!d3)
            l[0] = l[1] = 0.0;
        s->angular_momentum = (vec4){(float)l[0], (float)l[1], (float)l[2], body->friction};
        for (int r = 0; r < 3; r++)
            s->inv_inertia[r] = (vec4){(float)inv[r][0], (float)inv[r][1], (float)inv[r][2], 0.0f};
        s->shape = (uvec4){planes, p.plane_count, verts, np};
        s->extent = (vec4){(float)p.radius, body->shape == CS_BODY_SPHERE ? body->radius : 0.0f,
                           (float)set->bodies[i].info.w, 0.0f};
        s->motion = (uvec4){keys, body->path_count, 0u, body->path_loop ? 1u : 0u};
        planes += p.plane_count;
        verts += np;
        keys += body->path_count;
        b->kinematic += body->path_count > 0;
    }
    for (uint32_t f = 0; f < fluids; f++)
        b->record_capacity = CS_MAX(b->record_capacity, links[f].capacity * CS_BODY_RECORDS_PER_PARTICLE);
    b->record_capacity = CS_MAX(b->record_capacity, 1u);
    while (((1u << b->key_bits) - 1u) < b->dynamic)
        b->key_bits++;
    VkDeviceSize record_bytes = 4 * (VkDeviceSize)b->record_capacity;
    bool ok = cs_buffer_create(ctx, &(cs_buffer_desc){.name = "bodies params", .size = sizeof *bp}, &b->params_buffer, err) &&
              cs_buffer_create(ctx, &(cs_buffer_desc){.name = "bodies states", .size = states_size}, &b->states, err) &&
              cs_buffer_create(ctx, &(cs_buffer_desc){.name = "bodies set", .size = sizeof *set}, &b->set, err) &&
              cs_buffer_create(ctx,
                               &(cs_buffer_desc){.name = "bodies impulse sums",
                                                 .size = 4 * (VkDeviceSize)CS_MAX(fluids * b->dynamic, 1u) *
                                                         CS_BODIES_IMPULSE_TERMS},
                               &b->sums, err) &&
              cs_buffer_create(ctx, &(cs_buffer_desc){.name = "bodies record keys", .size = record_bytes}, &b->record_keys, err) &&
              cs_buffer_create(ctx, &(cs_buffer_desc){.name = "bodies record values", .size = record_bytes},
                               &b->record_values, err) &&
              cs_buffer_create(ctx, &(cs_buffer_desc){.name = "bodies record overflow", .size = 16}, &b->overflow, err) &&
              cs_buffer_create(ctx,
                               &(cs_buffer_desc){.name = "bodies integrate work",
                                                 .size = (VkDeviceSize)CS_BODY_WORK_BYTES * CS_MAX(b->count, 1u)},
                               &b->work, err) &&
              cs_buffer_create(ctx,
                               &(cs_buffer_desc){.name = "bodies integrate contacts",
                                                 .size = (VkDeviceSize)CS_BODIES_CONTACTS_BYTES},
                               &b->contacts, err);
    ok = ok && cs_sort_create(ctx, b->record_capacity, &b->sort, err);
    ok = ok && cs_program_create(ctx, &(cs_program_desc){.path = "bodies/records_keys.comp"}, &b->records_keys, err);
    ok = ok && cs_program_create(ctx, &(cs_program_desc){.path = "bodies/records_sum.comp"}, &b->records_sum, err);
    cs_program_desc pd = {.path = "bodies/integrate.comp"};
    ok = ok && cs_program_create(ctx, &pd, &b->integrate, err);
    ok = ok && cs_program_create(ctx, &(cs_program_desc){.path = "bodies/broad.comp"}, &b->broad, err);
    if (!ok) {
        cs_bodies_destroy(b);
        return false;
    }
    cs_buffer_upload(ctx, &b->params_buffer, bp, sizeof *bp, 0);
    cs_buffer_upload(ctx, &b->states, states, states_size, 0);
    cs_buffer_upload(ctx, &b->set, set, sizeof *set, 0);
    cs_buffer_fill(ctx, &b->sums, 0);
    cs_buffer_fill(ctx, &b->overflow, 0);
    // A body's contact region past its count and the work area are never
    // read, but a checkpoint saves them whole: left as allocated, they held
    // whatever the memory held, and two runs of one scene gave checkpoint
    // files that differed there (tests/checkpoint_resume.sh, now and then).
    cs_buffer_fill(ctx, &b->contacts, 0);
    cs_buffer_fill(ctx, &b->work, 0);
    return true;
}

bool cs_bodies_create(cs_context *ctx, const cs_scene *scene, const cs_body_link *links, uint32_t fluids,
                      cs_bodies *b, cs_error *err)
{
    cs_body_set *set = malloc(sizeof *set);
    cs_body_state *states = malloc(sizeof *states * CS_BODIES_MAX);
    cs_bodies_params *bp = calloc(1, sizeof *bp);
    CS_ASSERT(set && states && bp, "out of host memory");
    bool ok = create(ctx, scene, links, fluids, b, set, states, bp, err);
    free(set);
    free(states);
    free(bp);
    return ok;
}

void cs_bodies_destroy(cs_bodies *b)
{
    if (!b->ctx)
        return;
    cs_context *ctx = b->ctx;
    cs_program_id *programs[] = {&b->integrate, &b->records_keys, &b->records_sum, &b->broad};
    for (size_t i = 0; i < CS_ARRAY_COUNT(programs); i++)
        if (programs[i]->value)
            cs_program_destroy(ctx, programs[i]);
    if (b->sort.capacity)
        cs_sort_destroy(ctx, &b->sort);
    cs_buffer *bufs[] = {&b->params_buffer, &b->states, &b->set,          &b->sums, &b->record_keys,
                         &b->record_values, &b->overflow, &b->work, &b->contacts};
    for (size_t i = 0; i < CS_ARRAY_COUNT(bufs); i++)
        if (bufs[i]->buffer)
            cs_buffer_destroy(ctx, bufs[i]);
    memset(b, 0, sizeof *b);
}

void cs_bodies_record_begin(cs_bodies *b, cs_recorder *rec, const cs_body_link *links)
{
    if (!b->dynamic)
        return;
    cs_pass_begin(rec, "bodies: clear");
    cs_barrier_compute_to_transfer(rec);
    for (uint32_t f = 0; f < b->fluids; f++)
        if (links[f].impulses)
            cs_cmd_fill(rec, links[f].impulses, CS_BODY_RECORD_NONE_BITS); // every record unused
    cs_barrier_transfer_to_compute(rec);
    cs_pass_end(rec);
}

// Per fluid: the records' keys, the stable sort by slot, one fixed-shape sum
// per slot (records_sum.comp). A fluid with no particles sums nothing: 0.
static void record_reduce(cs_bodies *b, cs_recorder *rec, const cs_body_link *links)
{
    cs_pass_begin(rec, "bodies: reduce");
    cs_barrier_compute(rec); // the fluids' records, written by their passes
    for (uint32_t f = 0; f < b->fluids; f++) {
        const cs_body_link *l = &links[f];
        cs_body_records_push push = {.records = l->impulses ? l->count * CS_BODY_RECORDS_PER_PARTICLE : 0u,
                                     .out_base = f * b->dynamic * CS_BODIES_IMPULSE_TERMS,
                                     .slots = b->dynamic};
        if (push.records) {
            cs_dispatch(rec, b->records_keys, &(cs_dispatch_desc){
                .buffers = {l->impulses, &b->record_keys, &b->record_values, &b->overflow},
                .push = &push, .push_size = sizeof push, .threads = {push.records}});
            cs_barrier_compute(rec);
            cs_sort_record(rec, &b->sort, &b->record_keys, &b->record_values, push.records, b->key_bits);
        }
        cs_dispatch(rec, b->records_sum, &(cs_dispatch_desc){
            .buffers = {l->impulses ? l->impulses : &b->sums, &b->record_keys, &b->record_values, &b->sums},
            .push = &push, .push_size = sizeof push, .threads = {b->dynamic * CS_BODY_REDUCE_GROUP}});
        cs_barrier_compute(rec); // the sums for integrate; the keys free for the next fluid
    }
    cs_pass_end(rec);
}

// One stage of integrate.comp (bodies_shared.h CS_BODIES_STAGE_*), then a
// barrier for the next.
static void integrate_stage(cs_bodies *b, cs_recorder *rec, cs_bodies_integrate_push push, uint32_t threads)
{
    cs_dispatch(rec, b->integrate, &(cs_dispatch_desc){
        .buffers = {&b->params_buffer, &b->states, &b->sums, &b->set, &b->work, &b->contacts, &b->overflow},
        .push = &push, .push_size = sizeof push, .threads = {threads}});
    cs_barrier_compute(rec);
}

// Move every body and find its contacts (one invocation each), the contact
// sweeps and the pair separation (one invocation each walking the list in
// body order, so the sequential impulses see the same sequence every run),
// then write back (one invocation each): 5 + CS_BODIES_CONTACT_ITERATIONS
// dispatches whatever the count.
static void record_integrate(cs_bodies *b, cs_recorder *rec)
{
    cs_barrier_compute(rec); // the impulse sums
    integrate_stage(b, rec, (cs_bodies_integrate_push){.stage = CS_BODIES_STAGE_MOVE}, b->count);
    if (b->dynamic) {
        integrate_stage(b, rec, (cs_bodies_integrate_push){.stage = CS_BODIES_STAGE_NARROW}, b->count);
        for (uint32_t sweep = 0; sweep < CS_BODIES_CONTACT_ITERATIONS; sweep++)
            integrate_stage(b, rec, (cs_bodies_integrate_push){.stage = CS_BODIES_STAGE_SWEEP, .sweep = sweep}, 1);
        integrate_stage(b, rec, (cs_bodies_integrate_push){.stage = CS_BODIES_STAGE_PAIRS}, 1);
    }
    integrate_stage(b, rec, (cs_bodies_integrate_push){.stage = CS_BODIES_STAGE_FINISH}, b->count);
}

// One stage of broad.comp, then a barrier for the next.
static void broad_stage(cs_bodies *b, cs_recorder *rec, uint32_t stage, uint32_t threads)
{
    cs_body_grid_push push = {.stage = stage, .cells = b->grid_cells};
    cs_dispatch(rec, b->broad, &(cs_dispatch_desc){
        .buffers = {&b->set}, .push = &push, .push_size = sizeof push, .threads = {threads}});
    cs_barrier_compute(rec);
}

// The broad phase's lists for the set integrate just wrote (broad.comp):
// count per cell, prefix sum, fill per cell in body order.
static void record_broad(cs_bodies *b, cs_recorder *rec)
{
    broad_stage(b, rec, CS_BODY_GRID_STAGE_COUNT, b->grid_cells);
    broad_stage(b, rec, CS_BODY_GRID_STAGE_SCAN, 1);
    broad_stage(b, rec, CS_BODY_GRID_STAGE_FILL, b->grid_cells);
}

void cs_bodies_record_end(cs_bodies *b, cs_recorder *rec, const cs_body_link *links)
{
    if (!b->dynamic && !b->kinematic)
        return; // static bodies never change: the set the fluids started with stays
    if (b->dynamic)
        record_reduce(b, rec, links);
    cs_pass_begin(rec, "bodies: integrate");
    record_integrate(b, rec);
    cs_pass_end(rec);

    cs_pass_begin(rec, "bodies: broad phase");
    record_broad(b, rec);
    cs_pass_end(rec);

    // Published once: the fluids that read a set of their choosing read this
    // one from now on (broad.comp's last barrier orders their reads after
    // its writes); only fluids that keep the set in a buffer of their own
    // get a copy ("bodies: publish").
    bool copies = false;
    for (uint32_t f = 0; f < b->fluids; f++) {
        if (links[f].reads_set)
            *links[f].reads_set = &b->set;
        else
            copies = true;
    }
    if (!copies)
        return;
    cs_pass_begin(rec, "bodies: publish");
    cs_barrier_compute_to_transfer(rec);
    for (uint32_t f = 0; f < b->fluids; f++)
        if (!links[f].reads_set)
            cs_cmd_copy_range(rec, &b->set, 0, links[f].params, links[f].set_offset, sizeof(cs_body_set));
    cs_barrier_transfer_to_compute(rec);
    cs_pass_end(rec);
}

cs_bodies_overflow_counts cs_bodies_overflow(cs_bodies *b)
{
    uint32_t words[2] = {0, 0}; // records_keys.comp's word, then integrate.comp's
    if (b->ctx)
        cs_buffer_download(b->ctx, &b->overflow, words, sizeof words, 0);
    return (cs_bodies_overflow_counts){.impulses = words[0], .contacts = words[1]};
}

void cs_bodies_overflow_warning(cs_bodies_overflow_counts counts, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    if (counts.impulses)
        n += (size_t)snprintf(out + n, size - n,
                              "bodies: %u particle-substeps touched more than %d moving bodies and lost an impulse "
                              "(the bodies push the fluid less than they should); keep fewer bodies within a "
                              "smoothing radius of each other, or raise CS_BODY_RECORDS_PER_PARTICLE",
                              counts.impulses, CS_BODY_RECORDS_PER_PARTICLE);
    if (counts.contacts && n < size)
        snprintf(out + n, size - n,
                 "%sbodies: %u contacts or overlapping pairs were found past a body's %d contacts or %d "
                 "pairs in a substep and not solved (bodies may sink into each other); start the bodies "
                 "apart and piled less deep, or raise CS_BODY_CONTACTS_PER_BODY / CS_BODY_PAIRS_PER_BODY "
                 "(shaders/bodies/bodies_shared.h)",
                 n ? "\ncistern: " : "", counts.contacts, CS_BODY_CONTACTS_PER_BODY, CS_BODY_PAIRS_PER_BODY);
}

void cs_bodies_download(cs_bodies *b, cs_body_state *out)
{
    if (b->count)
        cs_buffer_download(b->ctx, &b->states, out, (VkDeviceSize)b->count * sizeof *out, 0);
}

// `work` is left out: integrate.comp's MOVE stage fills every body's
// working copy from `states` before anything reads it, and its padding
// (the mat3's fourth words, never written) is not the same bits run to run.
static bool all_finite(const float *v, size_t n, const char *what, char *why, size_t why_size)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return snprintf(why, why_size, "%s: float %zu is %g", what, i, (double)v[i]), false;
    return true;
}

bool cs_body_set_check(const void *data, const void *fresh, size_t bytes, char *why, size_t why_size)
{
    if (bytes < sizeof(cs_body_set)) {
        // A placeholder (a fluid's set in a world without bodies): as made.
        if (memcmp(data, fresh, bytes) != 0)
            return snprintf(why, why_size, "not the placeholder create made"), false;
        return true;
    }
    const cs_body_set *s = data, *f = fresh;
    if (memcmp(&s->counts, &f->counts, sizeof s->counts) != 0)
        return snprintf(why, why_size, "counts (bodies %u, planes %u, dim %u, dynamic %u) are not the scene's "
                        "(bodies %u, planes %u, dim %u, dynamic %u)", s->counts.x, s->counts.y, s->counts.z,
                        s->counts.w, f->counts.x, f->counts.y, f->counts.z, f->counts.w), false;
    // The plane ranges, flags and impulse slots index other arrays: as create made them.
    for (uint32_t i = 0; i < f->counts.x; i++) {
        if (memcmp(&s->bodies[i].info, &f->bodies[i].info, sizeof s->bodies[i].info) != 0)
            return snprintf(why, why_size, "body %u's planes, flags and slot (%u %u %u %u) are not the scene's "
                            "(%u %u %u %u)", i, s->bodies[i].info.x, s->bodies[i].info.y, s->bodies[i].info.z,
                            s->bodies[i].info.w, f->bodies[i].info.x, f->bodies[i].info.y, f->bodies[i].info.z,
                            f->bodies[i].info.w), false;
        if (!all_finite(&s->bodies[i].centre.x, 12, "a body's centre, velocity or spin", why, why_size))
            return false;
    }
    if (!all_finite(&s->planes[0].x, (size_t)f->counts.y * 4, "a body plane", why, why_size) ||
        !all_finite(&s->grid.origin.x, 8, "the broad phase's origin, cell or reach", why, why_size))
        return false;
    // The broad phase's lists: a particle walks entries [starts[c], starts[c + 1]) of its cell.
    const cs_body_grid *g = &s->grid;
    if (g->dims.w != 0 && g->dims.w != CS_BODY_GRID_READY)
        return snprintf(why, why_size, "the broad phase's ready word is %u, not 0 or 1", g->dims.w), false;
    if (g->dims.w) {
        uint64_t cells = (uint64_t)g->dims.x * g->dims.y * g->dims.z;
        if (cells == 0 || cells > CS_BODY_GRID_CELLS)
            return snprintf(why, why_size, "the broad phase's %u x %u x %u cells are not 1 to %u", g->dims.x,
                            g->dims.y, g->dims.z, (unsigned)CS_BODY_GRID_CELLS), false;
        for (uint64_t c = 0; c < cells; c++)
            if (g->starts[c] > g->starts[c + 1] || g->starts[c + 1] > CS_BODY_GRID_ENTRIES)
                return snprintf(why, why_size, "the broad phase's cell %llu lists entries %u to %u, not within "
                                "0 to %u", (unsigned long long)c, g->starts[c], g->starts[c + 1],
                                (unsigned)CS_BODY_GRID_ENTRIES), false;
        for (uint32_t k = 0; k < g->starts[cells]; k++)
            if (g->entries[k] >= s->counts.x)
                return snprintf(why, why_size, "the broad phase's entry %u is body %u of %u", k, g->entries[k],
                                s->counts.x), false;
    }
    return true;
}

// Checks against the fresh instance's buffer (what create uploaded).
static void *download_fresh(cs_context *ctx, const cs_buffer *buffer, size_t bytes)
{
    void *fresh = calloc(1, bytes ? bytes : 1);
    if (fresh && bytes)
        cs_buffer_download(ctx, buffer, fresh, bytes, 0);
    return fresh;
}

static bool check_set(const void *base, const void *data, size_t bytes, char *why, size_t why_size)
{
    const cs_bodies *b = base;
    void *fresh = download_fresh(b->ctx, &b->set, bytes);
    if (!fresh)
        return snprintf(why, why_size, "out of host memory to check it"), false;
    bool ok = cs_body_set_check(data, fresh, bytes, why, why_size);
    free(fresh);
    return ok;
}

// Every body's state: what the scene fixes (mass, restitution, friction,
// inverse inertia, shape ranges, radii, impulse slot, path keys and loop)
// as create made it; what moves (position, orientation, momenta) finite.
static bool check_states(const void *base, const void *data, size_t bytes, char *why, size_t why_size)
{
    const cs_bodies *b = base;
    cs_body_state *fresh = download_fresh(b->ctx, &b->states, bytes);
    if (!fresh)
        return snprintf(why, why_size, "out of host memory to check it"), false;
    const cs_body_state *s = data;
    bool ok = true;
    for (size_t i = 0; ok && i < bytes / sizeof *s; i++) {
        const cs_body_state *a = &s[i], *f = &fresh[i];
        bool fixed = a->position.w == f->position.w && a->momentum.w == f->momentum.w &&
                     a->angular_momentum.w == f->angular_momentum.w &&
                     memcmp(a->inv_inertia, f->inv_inertia, sizeof a->inv_inertia) == 0 &&
                     memcmp(&a->shape, &f->shape, sizeof a->shape) == 0 &&
                     memcmp(&a->extent, &f->extent, sizeof a->extent) == 0 && a->motion.x == f->motion.x &&
                     a->motion.y == f->motion.y && a->motion.w == f->motion.w;
        if (!fixed) {
            snprintf(why, why_size, "body %zu's mass, shape, inertia or path is not the scene's", i);
            ok = false;
        } else
            ok = all_finite(&a->position.x, 16, "a body's position, orientation or momenta", why, why_size);
    }
    free(fresh);
    return ok;
}

// integrate.comp's lists: the counts bound the loops over them. (Its MOVE
// stage sets them to 0 before anything reads them; bounded all the same.)
static bool check_contacts(const void *base, const void *data, size_t bytes, char *why, size_t why_size)
{
    (void)base;
    const uint32_t *u = data;
    if (bytes < 3 * CS_BODIES_MAX * sizeof *u)
        return snprintf(why, why_size, "%zu bytes, less than its counts", bytes), false;
    for (uint32_t a = 0; a < CS_BODIES_MAX; a++)
        if (u[a] > CS_BODY_CONTACTS_PER_BODY || u[CS_BODIES_MAX + a] > CS_BODY_PAIRS_PER_BODY)
            return snprintf(why, why_size, "body %u has %u contacts and %u pairs; at most %d and %d", a, u[a],
                            u[CS_BODIES_MAX + a], CS_BODY_CONTACTS_PER_BODY, CS_BODY_PAIRS_PER_BODY), false;
    return true;
}

// The ranges (sim.h cs_state_range), checked before anything is loaded.
static const cs_state_row bodies_state_rows[] = {
    CS_STATE_BUFFER(cs_bodies, states, CS_CHECKED(check_states)),
    CS_STATE_BUFFER(cs_bodies, set, CS_CHECKED(check_set)),
    // Written by records_sum.comp for every fluid before integrate reads them.
    CS_STATE_BUFFER(cs_bodies, sums, CS_ANY_BITS),
    // Written whole by records_keys.comp before the sort and the sum read them.
    CS_STATE_BUFFER(cs_bodies, record_keys, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_bodies, record_values, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_bodies, overflow, CS_ANY_BITS), // counts of what was lost, only printed
    CS_STATE_BUFFER(cs_bodies, contacts, CS_CHECKED(check_contacts)),
};

void cs_bodies_state(cs_bodies *b, cs_state_entry *out, uint32_t *n, uint32_t max)
{
    cs_state_expand(bodies_state_rows, CS_ARRAY_COUNT(bodies_state_rows), b, "", out, n, max);
}
