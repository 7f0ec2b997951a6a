// feature_bodies.c — the scene's rigid bodies (scene "bodies", bodies.h),
// opaque and lit, with depth. Their triangles are built once on the host in
// each body's frame about its centre of mass (the frame the GPU state
// holds): a polytope's faces are its planes clipped by the others (the
// vertices body_shape.h enumerates, ordered around each face and fanned), a
// box is a polytope of 6 faces, a sphere an icosphere (a disc: a fan). The
// vertex shader places them with the pose the GPU integration wrote into
// the bodies' state buffer (the frame's CS_DRAWABLE_BODIES), so drawing reads nothing
// back. Shading: shaders/render/bodies.frag.
#include "feature.h"

#include "bodies.h"

#include <math.h>

// Icosphere subdivisions: 20 * 4^2 = 320 triangles, round enough at the
// sizes bodies are drawn.
#define SPHERE_LEVELS 2
#define DISC_SEGMENTS 64

typedef struct bodies {
    cs_program_id program;
    cs_buffer mesh;            // 3 vec4 per vertex (render_shared.h)
    uint32_t vertex_count;
    // What the mesh was built from: rebuilt when the scene's bodies change.
    cs_body built[CS_MAX_BODIES];
    uint32_t built_count;
    int built_dim;
} bodies;

// A growing vertex array of 12 floats per vertex.
typedef struct mesh {
    float *v;
    uint32_t count, capacity;
} mesh;

static void put(mesh *m, const double p[3], const double n[3], uint32_t body, const float color[3])
{
    if (m->count == m->capacity) {
        m->capacity = m->capacity ? 2 * m->capacity : 1024;
        m->v = realloc(m->v, (size_t)m->capacity * 12 * sizeof(float));
        CS_ASSERT(m->v, "out of memory for %u body vertices", m->capacity);
    }
    float *o = &m->v[(size_t)m->count++ * 12];
    float row[12] = {(float)p[0], (float)p[1], (float)p[2], (float)body, (float)n[0], (float)n[1], (float)n[2], 0.0f,
                     color[0], color[1], color[2], 1.0f};
    memcpy(o, row, sizeof row);
}

static void normalize3(double v[3])
{
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (len > 0.0)
        v[0] /= len, v[1] /= len, v[2] /= len;
}

// One convex polygon (its points in order around it) as a fan.
static void fan(mesh *m, const double (*pts)[3], uint32_t n, const double normal[3], uint32_t body,
                const float color[3])
{
    for (uint32_t i = 1; i + 1 < n; i++) {
        put(m, pts[0], normal, body, color);
        put(m, pts[i], normal, body, color);
        put(m, pts[i + 1], normal, body, color);
    }
}

// The points sorted by angle about their centroid in the plane with normal
// n (counter-clockwise seen from outside), so a fan covers the polygon.
static void order_around(double (*pts)[3], uint32_t n, const double normal[3])
{
    double c[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            c[a] += pts[i][a] / n;
    double u[3] = {pts[0][0] - c[0], pts[0][1] - c[1], pts[0][2] - c[2]};
    normalize3(u);
    double w[3] = {normal[1] * u[2] - normal[2] * u[1], normal[2] * u[0] - normal[0] * u[2],
                   normal[0] * u[1] - normal[1] * u[0]};
    double angle[CS_BODY_MAX_VERTICES];
    for (uint32_t i = 0; i < n; i++) {
        double r[3] = {pts[i][0] - c[0], pts[i][1] - c[1], pts[i][2] - c[2]};
        angle[i] = atan2(r[0] * w[0] + r[1] * w[1] + r[2] * w[2], r[0] * u[0] + r[1] * u[1] + r[2] * u[2]);
    }
    for (uint32_t i = 1; i < n; i++) // insertion sort: a face has few vertices
        for (uint32_t j = i; j > 0 && angle[j] < angle[j - 1]; j--) {
            double t = angle[j];
            angle[j] = angle[j - 1], angle[j - 1] = t;
            double tp[3];
            memcpy(tp, pts[j], sizeof tp);
            memcpy(pts[j], pts[j - 1], sizeof tp);
            memcpy(pts[j - 1], tp, sizeof tp);
        }
}

static void add_polytope(mesh *m, const cs_body_props *p, int dim, uint32_t body, const float color[3])
{
    double pts[CS_BODY_MAX_VERTICES][3];
    if (dim == 2) {
        // The polygon itself, in the plane z = 0, facing the 2D camera.
        const double up[3] = {0, 0, 1};
        memcpy(pts, p->vertices, (size_t)p->vertex_count * sizeof pts[0]);
        order_around(pts, p->vertex_count, up);
        fan(m, (const double(*)[3])pts, p->vertex_count, up, body, color);
        return;
    }
    // A face: the vertices on its plane (within rounding of the vertex
    // enumeration, relative to the body's size).
    double tol = 1e-6 * fmax(p->radius, 1e-9);
    for (uint32_t k = 0; k < p->plane_count; k++) {
        const double *pl = p->planes[k];
        uint32_t n = 0;
        for (uint32_t v = 0; v < p->vertex_count; v++) {
            const double *x = p->vertices[v];
            if (fabs(pl[0] * x[0] + pl[1] * x[1] + pl[2] * x[2] - pl[3]) <= tol)
                memcpy(pts[n++], x, sizeof pts[0]);
        }
        if (n < 3)
            continue; // a redundant plane touching the body in an edge or a vertex
        order_around(pts, n, pl);
        fan(m, (const double(*)[3])pts, n, pl, body, color);
    }
}

// One triangle of the icosphere, split `level` more times; normals radial.
static void sphere_triangle(mesh *m, const double a[3], const double b[3], const double c[3], int level, double r,
                            uint32_t body, const float color[3])
{
    if (level == 0) {
        const double *t[3] = {a, b, c};
        for (int i = 0; i < 3; i++) {
            double p[3] = {r * t[i][0], r * t[i][1], r * t[i][2]};
            put(m, p, t[i], body, color);
        }
        return;
    }
    double ab[3], bc[3], ca[3];
    for (int i = 0; i < 3; i++)
        ab[i] = a[i] + b[i], bc[i] = b[i] + c[i], ca[i] = c[i] + a[i];
    normalize3(ab), normalize3(bc), normalize3(ca);
    sphere_triangle(m, a, ab, ca, level - 1, r, body, color);
    sphere_triangle(m, ab, b, bc, level - 1, r, body, color);
    sphere_triangle(m, ca, bc, c, level - 1, r, body, color);
    sphere_triangle(m, ab, bc, ca, level - 1, r, body, color);
}

static void add_sphere(mesh *m, double r, int dim, uint32_t body, const float color[3])
{
    if (dim == 2) {
        const double up[3] = {0, 0, 1}, centre[3] = {0, 0, 0};
        for (int i = 0; i < DISC_SEGMENTS; i++) {
            double a0 = 2.0 * 3.14159265358979323846 * i / DISC_SEGMENTS;
            double a1 = 2.0 * 3.14159265358979323846 * (i + 1) / DISC_SEGMENTS;
            double p0[3] = {r * cos(a0), r * sin(a0), 0}, p1[3] = {r * cos(a1), r * sin(a1), 0};
            put(m, centre, up, body, color);
            put(m, p0, up, body, color);
            put(m, p1, up, body, color);
        }
        return;
    }
    // The icosahedron: 12 vertices (0, ±1, ±t) cyclically, 20 faces.
    const double t = (1.0 + sqrt(5.0)) / 2.0;
    double v[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                       {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    static const int faces[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                     {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                     {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                     {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    for (int i = 0; i < 12; i++)
        normalize3(v[i]);
    for (int f = 0; f < 20; f++)
        sphere_triangle(m, v[faces[f][0]], v[faces[f][1]], v[faces[f][2]], SPHERE_LEVELS, r, body, color);
}

// (Re)builds the mesh for the scene's bodies and uploads it (a one-shot
// copy, like the renderer's material table: the previous frame has
// completed, the current recording has not been submitted).
static void build(cs_renderer *r, bodies *b, const cs_scene *scene)
{
    mesh m = {0};
    const float neutral[3] = {CS_RENDER_BODY_COLOR};
    for (uint32_t i = 0; i < scene->body_count; i++) {
        const cs_body *body = &scene->bodies[i];
        bool colored = body->color[0] > 0.0f || body->color[1] > 0.0f || body->color[2] > 0.0f;
        const float *color = colored ? body->color : neutral;
        if (body->shape == CS_BODY_SPHERE) {
            add_sphere(&m, body->radius, scene->dim, i, color);
        } else {
            cs_body_props p;
            cs_body_props_compute(scene, i, &p);
            add_polytope(&m, &p, scene->dim, i, color);
        }
    }
    if (b->mesh.buffer) {
        vkDeviceWaitIdle(r->ctx->device); // an earlier frame may still draw from it
        cs_buffer_destroy(r->ctx, &b->mesh);
    }
    cs_error err;
    bool ok = cs_buffer_create(r->ctx, &(cs_buffer_desc){.name = "render bodies mesh",
                                                         .size = (VkDeviceSize)m.count * 12 * sizeof(float)},
                               &b->mesh, &err);
    CS_ASSERT(ok, "%s", ok ? "" : err.msg);
    cs_buffer_upload(r->ctx, &b->mesh, m.v, (VkDeviceSize)m.count * 12 * sizeof(float), 0);
    b->vertex_count = m.count;
    free(m.v);
    memcpy(b->built, scene->bodies, sizeof b->built);
    b->built_count = scene->body_count;
    b->built_dim = scene->dim;
}

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    bodies *b = calloc(1, sizeof *b);
    CS_ASSERT(b, "out of memory");
    *state = b;
    return cs_render_program(r, "render bodies", "render/bodies.vert", "render/bodies.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true, true, VK_COMPARE_OP_LESS, VK_CULL_MODE_NONE, &b->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    bodies *b = state;
    if (b->program.value)
        cs_program_destroy(r->ctx, &b->program);
    if (b->mesh.buffer)
        cs_buffer_destroy(r->ctx, &b->mesh);
    free(b);
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    bodies *b = state;
    cs_buffer *body_states = cs_render_first(view, CS_DRAWABLE_BODIES);
    const cs_scene *scene = view->scene;
    if (!body_states || scene->body_count == 0)
        return;
    CS_ASSERT(body_states->size >= scene->body_count * sizeof(cs_body_state),
              "the body state buffer holds fewer than the scene's %u bodies", scene->body_count);
    if (b->built_count != scene->body_count || b->built_dim != scene->dim ||
        memcmp(b->built, scene->bodies, scene->body_count * sizeof(cs_body)) != 0)
        build(r, b, scene);
    if (b->vertex_count == 0)
        return;
    struct cs_render_bodies_push push = {
        .view_x = view->view_rows[0], .view_y = view->view_rows[1], .view_z = view->view_rows[2],
        .proj = view->proj,
        .fog = view->fog,
        .misc = {view->fog_start, 0, 0, 0},
        .modes = {view->flags, scene->body_count, 0, 0},
    };
    cs_draw(rec, b->program, &(cs_draw_desc){
        .buffers = {&b->mesh, body_states},
        .push = &push, .push_size = sizeof push,
        .vertex_count = b->vertex_count});
}

const cs_render_feature cs_feature_bodies = {.name = "bodies", .draws = CS_DRAWABLE_BIT(CS_DRAWABLE_BODIES),
                                           .create = create, .destroy = destroy, .record = record};
