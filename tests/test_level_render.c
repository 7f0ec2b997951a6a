// test_level_render.c — a level drawn through its portals
// (host/world/level_mesh.c, host/render/feature_level.c) against a CPU ray
// caster.
//
// The demo level (generated, levels/cistern_demo.phd) without its sprites
// is drawn headless, fog off, from cameras inside its rooms: fixed ones
// (facing a wall portal, facing away from it, looking up through the
// ceiling portal) and random ones (position in a random room, random
// direction; the seed is printed). The reference casts a ray through every
// pixel against every triangle of every room (in double): the nearest hit
// that is not a cut-out texel gives the texel (nearest, cs_level_texel) and
// the interpolated vertex light; faces are one-sided (counter-clockwise
// fronts). Where the reference is the same at the
// pixel centre and at four points 0.3 px around it (not on an edge or a
// texel boundary), the GPU pixel must match it within 2/255 per channel.
// Because the reference ignores the portal walk, a room the walk wrongly
// culled shows up as mismatched pixels; that the walk does cull is checked
// by the room counts (facing away from the east portal draws fewer rooms).
// The mesh builder refuses a face with a missing object texture, and a
// placed static mesh with a missing id, by name. Static meshes: a camera
// facing one must show it on at least 1/50 of the image (compared with the
// ray caster); their placement (position, a quarter and an eighth turn) is
// checked on the vertices.
// ctest labels: quick,gpu -- 1
#include "test_util.h"

#include "camera.h"
#include "level_mesh.h"
#include "render.h"

#include <math.h>

#define WIDTH 192
#define HEIGHT 108
// How far around a pixel centre the reference must not change for the pixel
// to be compared: the GPU samples the centre, so only a texel or face
// boundary within rounding distance makes a pixel ambiguous.
#define J 0.03

typedef struct hit {
    bool found;
    bool on_static; // a face of a placed static mesh
    uint8_t rgb[3];
} hit;

// Compared pixels that showed a static mesh, in the last check_view.
static uint32_t static_pixels;

static uint8_t srgb8(double linear)
{
    linear = fmin(fmax(linear, 0.0), 1.0);
    double c = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1.0 / 2.4) - 0.055;
    return (uint8_t)lrint(255.0 * c);
}

static double srgb_decode(uint32_t byte)
{
    double c = byte / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

// World ray through pixel (x, y) (pixel units, top-left origin).
static void pixel_ray(const cs_camera_matrices *m, double x, double y, double dir[3])
{
    double ndc_x = 2.0 * x / WIDTH - 1.0, ndc_y = 2.0 * y / HEIGHT - 1.0;
    double v[3] = {ndc_x / m->proj_params[0], ndc_y / m->proj_params[1], -1.0};
    // view is column-major world -> view; its rotation's transpose maps back.
    for (int a = 0; a < 3; a++)
        dir[a] = m->view[a * 4 + 0] * v[0] + m->view[a * 4 + 1] * v[1] + m->view[a * 4 + 2] * v[2];
}

static hit cast(const cs_level_mesh *mesh, const double o[3], const double d[3], double near_t)
{
    hit best = {0};
    double best_t = INFINITY;
    for (uint32_t i = 0; i + 2 < mesh->vertex_count; i += 3) {
        const cs_level_vertex *v = &mesh->vertices[i];
        double p0[3], e1[3], e2[3];
        for (int a = 0; a < 3; a++) {
            p0[a] = v[0].position[a];
            e1[a] = v[1].position[a] - p0[a];
            e2[a] = v[2].position[a] - p0[a];
        }
        // One-sided faces: fronts wind counter-clockwise, so a front's
        // right-hand normal e1 x e2 points against the ray.
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        if (n[0] * d[0] + n[1] * d[1] + n[2] * d[2] >= 0)
            continue;
        double pv[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
        double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
        if (fabs(det) < 1e-14)
            continue;
        double tv[3] = {o[0] - p0[0], o[1] - p0[1], o[2] - p0[2]};
        double u = (tv[0] * pv[0] + tv[1] * pv[1] + tv[2] * pv[2]) / det;
        if (u < 0 || u > 1)
            continue;
        double qv[3] = {tv[1] * e1[2] - tv[2] * e1[1], tv[2] * e1[0] - tv[0] * e1[2], tv[0] * e1[1] - tv[1] * e1[0]};
        double w = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) / det;
        if (w < 0 || u + w > 1)
            continue;
        double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
        if (t < near_t || t >= best_t)
            continue;
        double b0 = 1 - u - w;
        float uv[2];
        for (int k = 0; k < 2; k++)
            uv[k] = (float)(b0 * v[0].uv[k] + u * v[1].uv[k] + w * v[2].uv[k]);
        uint32_t texel = cs_level_vertex_texel(mesh, &v[0], uv[0], uv[1]);
        if (((uint32_t)v[0].flags & CS_LEVEL_VERTEX_ALPHA_TEST) && (texel >> 24) < 128)
            continue;
        double light = b0 * v[0].light + u * v[1].light + w * v[2].light;
        best_t = t;
        best.found = true;
        best.on_static = ((uint32_t)v[0].flags & CS_LEVEL_VERTEX_STATIC) != 0;
        for (int c = 0; c < 3; c++)
            best.rgb[c] = srgb8(srgb_decode((texel >> (8 * c)) & 255u) * light);
    }
    return best;
}

static bool same(hit a, hit b)
{
    bool close = true;
    for (int c = 0; c < 3; c++)
        close = close && abs((int)a.rgb[c] - (int)b.rgb[c]) <= 1;
    return a.found == b.found && (!a.found || close);
}

// Draws the level from the camera and compares it with the ray caster.
// Returns the rooms the portal walk drew.
static uint32_t check_view(cs_renderer *r, cs_recorder *rec, const cs_level_mesh *mesh, const cs_scene *scene,
                           const double eye[3], const double target[3], const double up[3], const char *what)
{
    cs_view_camera cam;
    cs_camera_from_scene(&cam, scene);
    memcpy(cam.position, eye, sizeof cam.position);
    memcpy(cam.target, target, sizeof cam.target);
    memcpy(cam.up, up, sizeof cam.up);
    cam.fov_degrees = 70;
    cam.near_plane = 0.05;
    cam.far_plane = 100;
    cs_recorder_begin(rec);
    cs_render_frame frame = {.scene = scene, .camera = &cam, .color_mode = -1, .hide_box = true, .no_fog = true};
    cs_render_level level = {.mesh = mesh};
    cs_render_frame_add(&frame, CS_DRAWABLE_LEVEL, &level);
    cs_render_record(r, rec, &frame);
    cs_render_record_readback(r, rec);
    cs_recorder_submit_wait(rec);
    const uint8_t *px = cs_render_pixels(r);
    cs_camera_matrices m;
    cs_camera_matrices_get(&cam, (double)WIDTH / HEIGHT, &m);
    uint32_t compared = 0, mismatched = 0, missed = 0;
    static_pixels = 0;
    static const double jitter[4][2] = {{-J, -J}, {J, -J}, {-J, J}, {J, J}};
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            double d[3];
            pixel_ray(&m, x + 0.5, y + 0.5, d);
            hit centre = cast(mesh, eye, d, 1e-3);
            bool stable = true;
            for (int j = 0; j < 4 && stable; j++) {
                pixel_ray(&m, x + 0.5 + jitter[j][0], y + 0.5 + jitter[j][1], d);
                stable = same(centre, cast(mesh, eye, d, 1e-3));
            }
            if (!stable)
                continue;
            if (!centre.found) {
                missed++;
                continue;
            }
            compared++;
            static_pixels += centre.on_static;
            const uint8_t *g = &px[4 * (y * WIDTH + x)];
            bool ok = true;
            for (int c = 0; c < 3; c++)
                ok = ok && abs((int)g[c] - (int)centre.rgb[c]) <= 2;
            if (!ok && mismatched++ < 3)
                fprintf(stderr, "  %s: pixel (%u, %u): gpu (%u %u %u) ray cast (%u %u %u)\n", what, x, y, g[0], g[1],
                        g[2], centre.rgb[0], centre.rgb[1], centre.rgb[2]);
        }
    printf("%-34s %u of %u rooms drawn; %u of %u pixels compared (%u on static meshes), %u differ, %u stable rays "
           "hit nothing\n", what, r->level_rooms_drawn, mesh->room_count, compared, WIDTH * HEIGHT, static_pixels,
           mismatched, missed);
    CHECK(compared > WIDTH * HEIGHT / 4, "%s: only %u pixels were away from edges", what, compared);
    CHECK(mismatched <= compared / 500, "%s: %u of %u pixels differ from the ray cast", what, mismatched, compared);
    CHECK(missed == 0, "%s: %u rays leave the level (a hole in the demo level?)", what, missed);
    return r->level_rooms_drawn;
}

static void centre_of(const cs_level_room *room, double height_fraction, double out[3])
{
    out[0] = 0.5 * (room->min[0] + room->max[0]);
    out[1] = room->min[1] + height_fraction * (room->max[1] - room->min[1]);
    out[2] = 0.5 * (room->min[2] + room->max[2]);
}

static void check_refusals(void)
{
    cs_tr1_level level;
    cs_tr1_generate_demo(&level);
    level.rooms[1].rects[2].texture = 999;
    cs_level_mesh mesh;
    cs_error err = {{0}};
    CHECK(!cs_level_mesh_build(&level, CS_LEVEL_DEFAULT_UNITS_PER_METRE, &mesh, &err) &&
              strstr(err.msg, "rooms[1].rects[2].texture: object texture 999 does not exist"),
          "a missing object texture: \"%s\"", err.msg);
    level.rooms[1].rects[2].texture = 0;
    level.rooms[2].tris = realloc(level.rooms[2].tris, (level.rooms[2].tri_count + 1) * sizeof *level.rooms[2].tris);
    level.rooms[2].tris[level.rooms[2].tri_count++] = (cs_tr1_face3){{0, 1, 60000}, 0};
    CHECK(!cs_level_mesh_build(&level, CS_LEVEL_DEFAULT_UNITS_PER_METRE, &mesh, &err) && strstr(err.msg, "vertex 60000"),
          "a missing vertex: \"%s\"", err.msg);
    CHECK(!cs_level_mesh_build(&level, -1, &mesh, &err) && strstr(err.msg, "units per metre"), "scale: \"%s\"", err.msg);
    level.rooms[2].tri_count--;
    level.rooms[0].meshes[0].mesh_id = 77;
    CHECK(!cs_level_mesh_build(&level, CS_LEVEL_DEFAULT_UNITS_PER_METRE, &mesh, &err) &&
              strstr(err.msg, "rooms[0].static_meshes[0].mesh_id: static mesh 77 does not exist"),
          "a missing static mesh: \"%s\"", err.msg);
    cs_tr1_free(&level);
}

// World bounds (x, z) of room 0's first placed static mesh.
static bool first_static_bounds(const cs_tr1_level *level, double lo[3], double hi[3])
{
    cs_level_mesh mesh;
    cs_error err;
    if (!cs_level_mesh_build(level, CS_LEVEL_DEFAULT_UNITS_PER_METRE, &mesh, &err))
        return false;
    const cs_level_room *room = &mesh.rooms[0];
    for (int a = 0; a < 3; a++)
        lo[a] = INFINITY, hi[a] = -INFINITY;
    uint32_t faces = 0;
    for (uint32_t i = room->first_vertex; i < room->first_vertex + room->vertex_count; i++) {
        const cs_level_vertex *v = &mesh.vertices[i];
        if (!((uint32_t)v->flags & CS_LEVEL_VERTEX_STATIC))
            continue;
        if (faces++ >= 36) // the first box: 6 faces, 12 triangles
            break;
        for (int a = 0; a < 3; a++)
            lo[a] = fmin(lo[a], v->position[a]), hi[a] = fmax(hi[a], v->position[a]);
    }
    cs_level_mesh_free(&mesh);
    return faces > 0;
}

// Placement: the demo's first mesh (a 512 x 512 x 512-unit box standing on
// the floor, turned a quarter) sits on its placed point; turned by an eighth
// instead, its x and z extent grows by sqrt(2).
static void check_static_placement(void)
{
    cs_tr1_level level;
    cs_tr1_generate_demo(&level);
    const cs_tr1_room_mesh *placed = &level.rooms[0].meshes[0];
    double upm = CS_LEVEL_DEFAULT_UNITS_PER_METRE, lo[3], hi[3];
    bool ok = first_static_bounds(&level, lo, hi);
    CHECK(ok, "room 0 has no static mesh vertices");
    double centre[3] = {placed->x / upm, -placed->y / upm, -placed->z / upm};
    double half = 256 / upm, height = 512 / upm;
    CHECK(ok && fabs(lo[0] - (centre[0] - half)) < 1e-6 && fabs(hi[0] - (centre[0] + half)) < 1e-6 &&
              fabs(lo[2] - (centre[2] - half)) < 1e-6 && fabs(hi[2] - (centre[2] + half)) < 1e-6 &&
              fabs(lo[1] - centre[1]) < 1e-6 && fabs(hi[1] - (centre[1] + height)) < 1e-6,
          "static mesh bounds x %g..%g y %g..%g z %g..%g, placed at (%g, %g, %g)", lo[0], hi[0], lo[1], hi[1], lo[2],
          hi[2], centre[0], centre[1], centre[2]);
    level.rooms[0].meshes[0].rotation = 0x2000;
    ok = first_static_bounds(&level, lo, hi);
    double diagonal = half * sqrt(2.0);
    CHECK(ok && fabs(hi[0] - lo[0] - 2 * diagonal) < 1e-5 && fabs(hi[2] - lo[2] - 2 * diagonal) < 1e-5,
          "turned an eighth: extent %g x %g, want %g", hi[0] - lo[0], hi[2] - lo[2], 2 * diagonal);
    cs_tr1_free(&level);
}

int main(void)
{
    check_refusals();
    check_static_placement();
    cs_tr1_level level;
    cs_tr1_generate_demo(&level);
    for (uint32_t i = 0; i < level.room_count; i++)
        level.rooms[i].sprite_count = 0; // billboards are not in the ray caster
    cs_level_mesh mesh;
    cs_error err;
    bool built = cs_level_mesh_build(&level, CS_LEVEL_DEFAULT_UNITS_PER_METRE, &mesh, &err);
    cs_tr1_free(&level);
    CHECK(built, "%s", err.msg);
    if (!built)
        return 1;
    // The portal pairs coincide: every portal has a twin in the room it
    // leads to with the same corners (in some order) and the opposite normal.
    for (uint32_t i = 0; i < mesh.portal_count; i++) {
        const cs_level_portal *p = &mesh.portals[i];
        bool twin = false;
        for (uint32_t j = 0; j < mesh.portal_count && !twin; j++) {
            const cs_level_portal *q = &mesh.portals[j];
            if (q->room != p->to || q->to != p->room)
                continue;
            uint32_t matched = 0;
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++)
                    matched += fabs(p->corners[a][0] - q->corners[b][0]) + fabs(p->corners[a][1] - q->corners[b][1]) +
                                   fabs(p->corners[a][2] - q->corners[b][2]) < 1e-9;
            double dot = p->normal[0] * q->normal[0] + p->normal[1] * q->normal[1] + p->normal[2] * q->normal[2];
            twin = matched == 4 && dot < -0.999;
        }
        CHECK(twin, "portal %u (room %u -> %u) has no twin in world space", i, p->room, p->to);
    }

    cs_context ctx;
    test_context(&ctx);
    cs_renderer r;
    if (!cs_renderer_create(&ctx, &(cs_renderer_desc){.width = WIDTH, .height = HEIGHT}, &r, &err)) {
        CHECK(false, "%s", err.msg);
        cs_level_mesh_free(&mesh);
        return test_finish(&ctx);
    }
    cs_recorder rec;
    cs_recorder_create(&ctx, "level render", &rec);
    cs_scene scene = {.dim = 3, .domain_min = {-2, -5, -9}, .domain_max = {18, 5, 9}};

    // Room 0 (the hall): its wall portal to room 1 lies at x = 8 m.
    const cs_level_room *hall = &mesh.rooms[0];
    double eye[3], target[3], up[3] = {0, 1, 0};
    centre_of(hall, 0.4, eye);
    memcpy(target, eye, sizeof target);
    target[0] += 1;
    uint32_t east = check_view(&r, &rec, &mesh, &scene, eye, target, up, "hall, facing the east portal");
    CHECK(east >= 2, "the room behind the east portal is not drawn (%u rooms)", east);
    target[0] = eye[0] - 1;
    uint32_t west = check_view(&r, &rec, &mesh, &scene, eye, target, up, "hall, facing away from it");
    CHECK(west < east, "facing away from the east portal draws as many rooms (%u) as facing it (%u)", west, east);
    memcpy(target, eye, sizeof target);
    target[1] += 1, target[0] += 0.2;
    double up_z[3] = {0, 0, -1};
    uint32_t loft = check_view(&r, &rec, &mesh, &scene, eye, target, up_z, "hall, looking up into the loft");
    CHECK(loft >= 2, "the loft above the ceiling portal is not drawn (%u rooms)", loft);
    // Facing the hall's first placed static mesh: it must show (drawn and
    // matching the ray caster, which sees the same triangles).
    double mesh_mid[3] = {0, 0, 0}, mesh_vertices = 0;
    for (uint32_t i = hall->first_vertex; i < hall->first_vertex + hall->vertex_count && mesh_vertices < 36; i++)
        if ((uint32_t)mesh.vertices[i].flags & CS_LEVEL_VERTEX_STATIC) {
            for (int a = 0; a < 3; a++)
                mesh_mid[a] += mesh.vertices[i].position[a];
            mesh_vertices++;
        }
    for (int a = 0; a < 3 && mesh_vertices > 0; a++)
        mesh_mid[a] /= mesh_vertices;
    check_view(&r, &rec, &mesh, &scene, eye, mesh_mid, up, "hall, facing a static mesh");
    CHECK(static_pixels > WIDTH * HEIGHT / 50, "the static mesh shows in only %u compared pixels", static_pixels);

    uint64_t seed = test_seed();
    printf("random cameras: seed %llu (CISTERN_TEST_SEED to repeat)\n", (unsigned long long)seed);
    for (int k = 0; k < 4; k++) {
        const cs_level_room *room = &mesh.rooms[test_rand_u32() % mesh.room_count];
        for (int a = 0; a < 3; a++) {
            double margin = 0.15 * (room->max[a] - room->min[a]);
            eye[a] = room->min[a] + margin + test_rand_unit() * (room->max[a] - room->min[a] - 2 * margin);
        }
        double yaw = 2 * 3.14159265358979 * test_rand_unit(), pitch = (test_rand_unit() - 0.5) * 1.2;
        target[0] = eye[0] + cos(pitch) * cos(yaw);
        target[1] = eye[1] + sin(pitch);
        target[2] = eye[2] + cos(pitch) * sin(yaw);
        char what[64];
        snprintf(what, sizeof what, "random camera %d (room %u)", k, (uint32_t)(room - mesh.rooms));
        check_view(&r, &rec, &mesh, &scene, eye, target, up, what);
    }
    cs_recorder_destroy(&rec);
    cs_renderer_destroy(&r);
    cs_level_mesh_free(&mesh);
    return test_finish(&ctx);
}
