// feature_level.c — a level's rooms (host/world/level_mesh.h): the rooms
// seen from the camera's room through portals, one draw per room, textured
// with the level's textiles and its baked vertex light; animated texture
// ranges cycle with the frame's level_time (level_anim.glsl).
//
// Portal traversal (on the CPU, a few hundred portals at most): start in
// the room holding the camera with the whole screen as the window; through
// each portal of a room that faces the camera, the next room is seen in the
// portal's screen rectangle clipped to the current window; a room reached
// by a window it has already been reached by is not walked again. A camera
// outside every room (or an orthographic one) draws every room.
#include "feature.h"

#include "world_radiosity.h"

#include <math.h>

#define MAX_PORTAL_DEPTH 64

typedef struct rect {
    double x0, y0, x1, y1; // NDC, x0 > x1 means empty
} rect;

typedef struct level_feature {
    cs_program_id program;
    cs_buffer vertices, texels, anim;
    uint64_t generation; // of the mesh uploaded (0: none)
    // Per room, during one traversal.
    uint32_t capacity;
    rect *seen;          // union of the windows the room was reached by
    bool *visible;
} level_feature;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    level_feature *l = calloc(1, sizeof *l);
    CS_ASSERT(l, "out of memory");
    *state = l;
    return cs_render_program(r, "render level", "render/level.vert", "render/level.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true, true, VK_COMPARE_OP_LESS, VK_CULL_MODE_BACK_BIT, &l->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    level_feature *l = state;
    cs_program_destroy(r->ctx, &l->program);
    cs_buffer_destroy(r->ctx, &l->vertices);
    cs_buffer_destroy(r->ctx, &l->texels);
    cs_buffer_destroy(r->ctx, &l->anim);
    free(l->seen);
    free(l->visible);
    free(l);
}

// Uploads the mesh the first time it is drawn (and again when it was
// rebuilt). Blocking, like every set-up upload.
static void upload(cs_renderer *r, level_feature *l, const cs_level_mesh *mesh)
{
    if (l->generation == mesh->generation)
        return;
    vkDeviceWaitIdle(r->ctx->device); // the old buffers may still be read by a frame in flight
    cs_buffer_destroy(r->ctx, &l->vertices);
    cs_buffer_destroy(r->ctx, &l->texels);
    cs_buffer_destroy(r->ctx, &l->anim);
    cs_error err = {0};
    VkDeviceSize vertex_bytes = (VkDeviceSize)mesh->vertex_count * sizeof(cs_level_vertex);
    VkDeviceSize texel_bytes = (VkDeviceSize)mesh->tile_count * 65536u * 4u;
    VkDeviceSize anim_bytes = (VkDeviceSize)mesh->anim_count * sizeof(cs_level_anim_entry);
    bool ok = cs_buffer_create(r->ctx, &(cs_buffer_desc){.name = "level vertices", .size = vertex_bytes},
                               &l->vertices, &err) &&
              cs_buffer_create(r->ctx, &(cs_buffer_desc){.name = "level texels", .size = texel_bytes}, &l->texels,
                               &err) &&
              cs_buffer_create(r->ctx, &(cs_buffer_desc){.name = "level animated textures",
                                                         .size = anim_bytes ? anim_bytes : 16}, &l->anim, &err);
    CS_ASSERT(ok, "%s", err.msg);
    if (vertex_bytes)
        cs_buffer_upload(r->ctx, &l->vertices, mesh->vertices, vertex_bytes, 0);
    if (texel_bytes)
        cs_buffer_upload(r->ctx, &l->texels, mesh->texels, texel_bytes, 0);
    if (anim_bytes)
        cs_buffer_upload(r->ctx, &l->anim, mesh->anim, anim_bytes, 0);
    l->generation = mesh->generation;
    if (l->capacity < mesh->room_count) {
        free(l->seen);
        free(l->visible);
        l->capacity = mesh->room_count;
        l->seen = calloc(l->capacity, sizeof *l->seen);
        l->visible = calloc(l->capacity, sizeof *l->visible);
        CS_ASSERT(l->seen && l->visible, "out of memory for %u rooms", l->capacity);
    }
}

static void to_view(const cs_render_view *view, const double p[3], double out[3])
{
    for (int row = 0; row < 3; row++) {
        const vec4 *v = &view->view_rows[row];
        out[row] = v->x * p[0] + v->y * p[1] + v->z * p[2] + v->w;
    }
}

// The screen rectangle (NDC) of a portal: its quad in view space, clipped
// to the near plane, projected. False when nothing of it is in front.
static bool portal_rect(const cs_render_view *view, const cs_level_portal *portal, rect *out)
{
    double near_z = -view->matrices.near_plane;
    double in[4][3], clipped[8][3];
    for (int k = 0; k < 4; k++)
        to_view(view, portal->corners[k], in[k]);
    int n = 0;
    for (int k = 0; k < 4; k++) { // Sutherland-Hodgman against z <= near_z
        const double *a = in[k], *b = in[(k + 1) % 4];
        bool a_in = a[2] <= near_z, b_in = b[2] <= near_z;
        if (a_in)
            memcpy(clipped[n++], a, sizeof clipped[0]);
        if (a_in != b_in) {
            double t = (near_z - a[2]) / (b[2] - a[2]);
            for (int c = 0; c < 3; c++)
                clipped[n][c] = a[c] + t * (b[c] - a[c]);
            n++;
        }
    }
    if (n == 0)
        return false;
    rect r = {INFINITY, INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < n; k++) {
        double x = view->proj.x * clipped[k][0] / -clipped[k][2], y = view->proj.y * clipped[k][1] / -clipped[k][2];
        r.x0 = fmin(r.x0, x), r.x1 = fmax(r.x1, x);
        r.y0 = fmin(r.y0, y), r.y1 = fmax(r.y1, y);
    }
    *out = r;
    return true;
}

static rect intersect(rect a, rect b)
{
    return (rect){fmax(a.x0, b.x0), fmax(a.y0, b.y0), fmin(a.x1, b.x1), fmin(a.y1, b.y1)};
}

static bool empty(rect a) { return a.x0 >= a.x1 || a.y0 >= a.y1; }

static bool contains(rect outer, rect inner)
{
    return inner.x0 >= outer.x0 && inner.y0 >= outer.y0 && inner.x1 <= outer.x1 && inner.y1 <= outer.y1;
}

static void walk(level_feature *l, const cs_level_mesh *mesh, const cs_render_view *view, const double eye[3],
                 uint32_t room, rect window, int depth)
{
    if (l->visible[room]) {
        if (contains(l->seen[room], window))
            return;
        l->seen[room] = (rect){fmin(l->seen[room].x0, window.x0), fmin(l->seen[room].y0, window.y0),
                               fmax(l->seen[room].x1, window.x1), fmax(l->seen[room].y1, window.y1)};
    } else {
        l->visible[room] = true;
        l->seen[room] = window;
    }
    if (depth == MAX_PORTAL_DEPTH)
        return;
    const cs_level_room *r = &mesh->rooms[room];
    for (uint32_t i = 0; i < r->portal_count; i++) {
        const cs_level_portal *p = &mesh->portals[r->first_portal + i];
        const double *c = p->corners[0];
        double facing = p->normal[0] * (eye[0] - c[0]) + p->normal[1] * (eye[1] - c[1]) + p->normal[2] * (eye[2] - c[2]);
        if (facing <= 0) // the camera is behind the portal: it looks out of this room elsewhere
            continue;
        rect through;
        if (!portal_rect(view, p, &through))
            continue;
        through = intersect(through, window);
        if (!empty(through))
            walk(l, mesh, view, eye, p->to, through, depth + 1);
    }
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    level_feature *l = state;
    const cs_render_level *level = cs_render_first(view, CS_DRAWABLE_LEVEL);
    const cs_level_mesh *mesh = level ? level->mesh : NULL;
    r->level_rooms_drawn = 0;
    if (!mesh || mesh->room_count == 0)
        return;
    // A level lit by radiosity and shown so is the geometry feature's.
    const struct cs_world_radiosity *radiosity = cs_render_first(view, CS_DRAWABLE_RADIOSITY);
    if (radiosity && radiosity->has_level && !level->baked)
        return;
    upload(r, l, mesh);
    double eye[3] = {view->matrices.position[0], view->matrices.position[1], view->matrices.position[2]};
    int start = view->matrices.ortho ? -1 : cs_level_room_at(mesh, eye);
    memset(l->visible, 0, mesh->room_count * sizeof *l->visible);
    if (start < 0) {
        for (uint32_t i = 0; i < mesh->room_count; i++)
            l->visible[i] = true;
    } else {
        walk(l, mesh, view, eye, (uint32_t)start, (rect){-1, -1, 1, 1}, 0);
    }
    // Sprites turn about the vertical: the camera's right, levelled.
    double right[3] = {view->view_rows[0].x, 0, view->view_rows[0].z};
    double len = sqrt(right[0] * right[0] + right[2] * right[2]);
    if (len < 1e-9)
        right[0] = 1, len = 1;
    struct cs_render_level_push push = {
        .view_x = view->view_rows[0], .view_y = view->view_rows[1], .view_z = view->view_rows[2],
        .proj = view->proj,
        .params = {view->frame->no_fog ? 0.0f : (float)mesh->fog_start, view->frame->no_fog ? 0.0f : (float)mesh->fog_end,
                   (float)view->flags, 0},
        .sprite_right = {(float)(right[0] / len), 0, (float)(right[2] / len),
                         (float)cs_level_anim_step(level->time)},
    };
    for (uint32_t i = 0; i < mesh->room_count; i++) {
        const cs_level_room *room = &mesh->rooms[i];
        if (!l->visible[i])
            continue;
        r->level_rooms_drawn++;
        if (room->vertex_count == 0)
            continue;
        push.params.w = (float)room->first_vertex; // exact below 2^24 vertices
        cs_draw(rec, l->program, &(cs_draw_desc){.buffers = {&l->vertices, &l->texels, &l->anim},
                                                 .push = &push, .push_size = sizeof push,
                                                 .vertex_count = room->vertex_count});
    }
}

const cs_render_feature cs_feature_level = {
    .name = "level",
    .draws = CS_DRAWABLE_BIT(CS_DRAWABLE_LEVEL) | CS_DRAWABLE_BIT(CS_DRAWABLE_RADIOSITY),
    .create = create, .destroy = destroy, .record = record,
};
