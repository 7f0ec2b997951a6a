// level_mesh.c — a TR1 level as world-space triangles, portals and texels
// (see level_mesh.h for the conventions).
#include "level_mesh.h"
#include "level_statics.h"

#include <math.h>

static void to_world(double units_per_metre, double x, double y, double z, double out[3])
{
    out[0] = x / units_per_metre;
    out[1] = -y / units_per_metre;
    out[2] = -z / units_per_metre;
}

double cs_level_brightness(int lighting)
{
    // TR1 rooms store 0 (full light) .. 8191 (dark); the middle of the range
    // is the texture as painted.
    double b = (8191.0 - (double)lighting) / 4096.0;
    return b < 0 ? 0 : b > 2 ? 2 : b;
}

double cs_level_static_brightness(const cs_tr1_level *level, uint32_t room, const cs_tr1_room_mesh *placed)
{
    // Above 8191 the mesh has no constant light of its own: TR1 lights such
    // a mesh as it lights items, from the room's ambient (and its lights,
    // which the baked mode has no model for).
    if (placed->intensity > 8191)
        return cs_level_brightness(level->rooms[room].ambient);
    return cs_level_brightness(placed->intensity);
}

// Texel coordinates of an object texture's corner: the pixel, plus one
// when the fraction byte says "high side" (TR1 writes 1 or 255 there).
static void corner_uv(const cs_tr1_object_texture *t, int k, float uv[2])
{
    uv[0] = (float)t->uv[k][1] + (t->uv[k][0] >= 128 ? 1.0f : 0.0f);
    uv[1] = (float)t->uv[k][3] + (t->uv[k][2] >= 128 ? 1.0f : 0.0f);
}

typedef struct builder {
    cs_level_mesh *mesh;
    uint32_t capacity;
    bool flip;         // reverse every face so that fronts wind counter-clockwise
    int32_t *anim_entry_of; // per object texture: its first animated entry, or -1
} builder;

uint32_t cs_level_anim_step(double seconds)
{
    double step = floor(seconds * CS_LEVEL_ANIM_FRAMES_PER_SECOND / CS_LEVEL_ANIM_FRAMES_PER_STEP);
    // The shaders get the step as a float: keep it exact (2^24 steps are 32 days).
    return step > 0 ? (uint32_t)fmod(step, 16777216.0) : 0u;
}

// The animated ranges as entries (cs_level_anim_entry), and which entry
// each object texture is (its first, should a texture be in two ranges).
static bool build_anim(builder *b, const cs_tr1_level *level, cs_error *err)
{
    cs_level_mesh *m = b->mesh;
    m->anim_count = level->anim_texture_count;
    m->anim = calloc(CS_MAX(m->anim_count, 1u), sizeof *m->anim);
    b->anim_entry_of = malloc(CS_MAX(level->object_texture_count, 1u) * sizeof *b->anim_entry_of);
    CS_ASSERT(m->anim && b->anim_entry_of, "out of memory for %u animated textures", m->anim_count);
    for (uint32_t i = 0; i < level->object_texture_count; i++)
        b->anim_entry_of[i] = -1;
    for (uint32_t r = 0; r < level->anim_range_count; r++) {
        const cs_tr1_anim_range *range = &level->anim_ranges[r];
        for (uint32_t k = 0; k < range->count; k++) {
            uint32_t e = range->first + k, ti = level->anim_textures[e];
            if (ti >= level->object_texture_count)
                return cs_fail(err, "animated_textures.ranges[%u].textures[%u]: object texture %u does not exist (%u)",
                               r, k, ti, level->object_texture_count);
            const cs_tr1_object_texture *t = &level->object_textures[ti];
            cs_level_anim_entry *out = &m->anim[e];
            for (int c = 0; c < 4; c++)
                corner_uv(t, c, out->corners[c]);
            out->tile = (float)(t->tile & 0x7fffu);
            out->flags = (float)(t->attribute != 0 ? CS_LEVEL_VERTEX_ALPHA_TEST : 0);
            out->range_first = (float)range->first;
            out->range_count = (float)range->count;
            if (b->anim_entry_of[ti] < 0)
                b->anim_entry_of[ti] = (int32_t)e;
        }
    }
    return true;
}

// Marks a vertex of a face with object texture `ti` at its corner `k` as
// animated, if the texture is in a range.
static void mark_animated(const builder *b, uint32_t ti, int k, cs_level_vertex *v)
{
    int32_t e = b->anim_entry_of[ti];
    v->anim[0] = e < 0 ? 0.0f : (float)(e + 1);
    v->anim[1] = (float)k;
}

void cs_level_vertex_animated(const cs_level_mesh *mesh, const cs_level_vertex *vertex, uint32_t step, float uv[2],
                              float *tile, float *flags)
{
    uv[0] = vertex->uv[0], uv[1] = vertex->uv[1];
    *tile = vertex->tile, *flags = vertex->flags;
    uint32_t e = (uint32_t)vertex->anim[0];
    if (e == 0 || e > mesh->anim_count)
        return;
    e--;
    const cs_level_anim_entry *own = &mesh->anim[e];
    uint32_t first = (uint32_t)own->range_first, count = (uint32_t)own->range_count;
    uint32_t shown = first + (e - first + step % count) % count;
    if (shown == e)
        return; // the face's own texture, exactly as built
    const cs_level_anim_entry *a = &mesh->anim[shown];
    uint32_t corner = (uint32_t)vertex->anim[1] & 3u;
    uv[0] = a->corners[corner][0], uv[1] = a->corners[corner][1];
    *tile = a->tile;
    *flags = (float)(((uint32_t)vertex->flags & ~CS_LEVEL_VERTEX_ALPHA_TEST) | (uint32_t)a->flags);
}

// Which way the level winds its faces. A room is seen from inside, so most
// of a room's faces face its middle: if the right-hand normals of most
// faces point away from their room's middle, the level winds its fronts
// clockwise and every face is reversed. (The TR frame, x east, y down,
// z north, is right-handed, like the world frame.)
static bool fronts_wind_clockwise(const cs_tr1_level *level)
{
    double vote = 0;
    for (uint32_t ri = 0; ri < level->room_count; ri++) {
        const cs_tr1_room *room = &level->rooms[ri];
        double mid[3] = {512.0 * room->x_sectors, 0.5 * ((double)room->y_top + room->y_bottom), 512.0 * room->z_sectors};
        for (uint32_t f = 0; f < room->rect_count + room->tri_count; f++) {
            const uint16_t *idx = f < room->rect_count ? room->rects[f].vertices : room->tris[f - room->rect_count].vertices;
            double p[3][3];
            bool valid = true;
            for (int k = 0; k < 3; k++) {
                valid = valid && idx[k] < room->vertex_count;
                if (!valid)
                    break;
                const cs_tr1_vertex *v = &room->vertices[idx[k]];
                p[k][0] = v->x, p[k][1] = v->y, p[k][2] = v->z;
            }
            if (!valid)
                continue; // refused when the face is built
            double a[3], b[3], to_mid[3];
            for (int c = 0; c < 3; c++) {
                a[c] = p[1][c] - p[0][c];
                b[c] = p[2][c] - p[0][c];
                to_mid[c] = mid[c] - (p[0][c] + p[1][c] + p[2][c]) / 3;
            }
            double n[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
            double d = n[0] * to_mid[0] + n[1] * to_mid[1] + n[2] * to_mid[2];
            vote += d > 0 ? 1 : d < 0 ? -1 : 0;
        }
    }
    return vote < 0;
}

static cs_level_vertex *push_vertex(builder *b)
{
    cs_level_mesh *m = b->mesh;
    if (m->vertex_count == b->capacity) {
        b->capacity = b->capacity ? 2 * b->capacity : 4096;
        cs_level_vertex *grown = realloc(m->vertices, (size_t)b->capacity * sizeof *grown);
        CS_ASSERT(grown, "out of memory building a level mesh (%u vertices)", b->capacity);
        m->vertices = grown;
    }
    cs_level_vertex *v = &m->vertices[m->vertex_count++];
    memset(v, 0, sizeof *v);
    return v;
}

// One face (3 or 4 corners, fanned from corner 0) of room `ri`.
static bool add_face(builder *b, const cs_tr1_level *level, uint32_t ri, const uint16_t *indices, int corners,
                     uint16_t texture, const char *kind, uint32_t face, cs_error *err)
{
    const cs_tr1_room *room = &level->rooms[ri];
    uint32_t ti = texture & 0x7fffu; // bit 15 is a flag in later games
    if (ti >= level->object_texture_count)
        return cs_fail(err, "rooms[%u].%s[%u].texture: object texture %u does not exist (%u)", ri, kind, face, ti,
                       level->object_texture_count);
    const cs_tr1_object_texture *t = &level->object_textures[ti];
    uint32_t tile = t->tile & 0x7fffu;
    if (tile >= level->textile_count)
        return cs_fail(err, "object_textures[%u].tile: textile %u does not exist (%u)", ti, tile, level->textile_count);
    for (int k = 0; k < corners; k++)
        if (indices[k] >= room->vertex_count)
            return cs_fail(err, "rooms[%u].%s[%u]: vertex %u does not exist (%u)", ri, kind, face, indices[k],
                           room->vertex_count);
    static const int fan[2][2][3] = {{{0, 1, 2}, {0, 2, 3}}, {{0, 2, 1}, {0, 3, 2}}};
    for (int tri = 0; tri < corners - 2; tri++)
        for (int c = 0; c < 3; c++) {
            int k = fan[b->flip][tri][c];
            const cs_tr1_vertex *tv = &room->vertices[indices[k]];
            double p[3];
            to_world(b->mesh->units_per_metre, room->x + tv->x, tv->y, room->z + tv->z, p);
            cs_level_vertex *v = push_vertex(b);
            for (int a = 0; a < 3; a++)
                v->position[a] = (float)p[a];
            v->light = (float)cs_level_brightness(tv->lighting);
            corner_uv(t, k, v->uv);
            v->tile = (float)tile;
            v->flags = (float)(t->attribute != 0 ? CS_LEVEL_VERTEX_ALPHA_TEST : 0);
            mark_animated(b, ti, k, v);
        }
    return true;
}

// A sprite as two camera-facing triangles: every corner sits on the
// sprite's vertex and carries its offset; level.vert turns it to the camera.
// A sprite whose vertex or texture does not exist is left out (real files
// hold some; the reader keeps them with a warning) and counted.
static void add_sprite(builder *b, const cs_tr1_level *level, uint32_t ri, uint32_t si)
{
    const cs_tr1_room *room = &level->rooms[ri];
    const cs_tr1_sprite *s = &room->sprites[si];
    if (!cs_tr1_sprite_drawable(level, room, s)) {
        b->mesh->sprites_dropped++;
        return;
    }
    const cs_tr1_sprite_texture *t = &level->sprite_textures[s->texture];
    const cs_tr1_vertex *tv = &room->vertices[s->vertex];
    double p[3];
    to_world(b->mesh->units_per_metre, room->x + tv->x, tv->y, room->z + tv->z, p);
    // Width and height are stored as pixels * 256 + 255.
    float w = (float)((t->width + 1) / 256), h = (float)((t->height + 1) / 256);
    double upm = b->mesh->units_per_metre;
    float left = (float)(t->left / upm), right = (float)(t->right / upm);
    float top = (float)(-t->top / upm), bottom = (float)(-t->bottom / upm); // y down -> up
    const float corner[4][4] = {
        {left, bottom, 0, 1}, {right, bottom, 1, 1}, {right, top, 1, 0}, {left, top, 0, 0}};
    static const int order[6] = {0, 1, 2, 0, 2, 3};
    for (int c = 0; c < 6; c++) {
        const float *q = corner[order[c]];
        cs_level_vertex *v = push_vertex(b);
        for (int a = 0; a < 3; a++)
            v->position[a] = (float)p[a];
        v->light = (float)cs_level_brightness(tv->lighting);
        v->uv[0] = (float)t->x + q[2] * w;
        v->uv[1] = (float)t->y + q[3] * h;
        v->tile = (float)t->tile;
        v->flags = (float)(CS_LEVEL_VERTEX_ALPHA_TEST | CS_LEVEL_VERTEX_SPRITE);
        v->offset[0] = q[0];
        v->offset[1] = q[1];
    }
}

// The sRGB colour of palette entry `index`, packed r | g << 8 | b << 16.
static uint32_t palette_colour(const cs_tr1_level *level, uint32_t index)
{
    const uint8_t *c = level->palette[index & 255u];
    return c[0] * 255u / 63u | (c[1] * 255u / 63u) << 8 | (c[2] * 255u / 63u) << 16;
}

// One face of a placed static mesh, fanned like a room face.
static bool add_static_face(builder *b, const cs_tr1_level *level, const cs_tr1_room_mesh *placed,
                            const cs_level_static_mesh *mesh, const cs_level_static_face *face, uint32_t ri,
                            uint32_t mi, cs_error *err)
{
    const cs_tr1_object_texture *t = NULL;
    uint32_t tile = 0, ti = 0;
    if (face->textured) {
        ti = face->texture & 0x7fffu;
        if (ti >= level->object_texture_count)
            return cs_fail(err, "rooms[%u].static_meshes[%u]: object texture %u does not exist (%u)", ri, mi, ti,
                           level->object_texture_count);
        t = &level->object_textures[ti];
        tile = t->tile & 0x7fffu;
        if (tile >= level->textile_count)
            return cs_fail(err, "object_textures[%u].tile: textile %u does not exist (%u)", ti, tile,
                           level->textile_count);
    }
    float light = (float)cs_level_static_brightness(level, ri, placed);
    static const int fan[2][2][3] = {{{0, 1, 2}, {0, 2, 3}}, {{0, 2, 1}, {0, 3, 2}}};
    for (uint32_t tri = 0; tri + 2 < face->corners; tri++)
        for (int c = 0; c < 3; c++) {
            int k = fan[mesh->inward][tri][c];
            double q[3], p[3];
            cs_level_static_place(placed, mesh->vertices[face->vertices[k]], q);
            to_world(b->mesh->units_per_metre, q[0], q[1], q[2], p);
            cs_level_vertex *v = push_vertex(b);
            for (int a = 0; a < 3; a++)
                v->position[a] = (float)p[a];
            v->light = light;
            if (t) {
                corner_uv(t, k, v->uv);
                v->tile = (float)tile;
                v->flags = (float)(CS_LEVEL_VERTEX_STATIC | (t->attribute != 0 ? CS_LEVEL_VERTEX_ALPHA_TEST : 0));
                mark_animated(b, ti, k, v);
            } else {
                v->tile = (float)palette_colour(level, face->texture); // < 2^24: exact in a float
                v->flags = (float)(CS_LEVEL_VERTEX_STATIC | CS_LEVEL_VERTEX_COLOUR);
            }
        }
    return true;
}

// Placed static mesh `mi` of room `ri`.
static bool add_static(builder *b, const cs_tr1_level *level, uint32_t ri, uint32_t mi, cs_error *err)
{
    const cs_tr1_room_mesh *placed = &level->rooms[ri].meshes[mi];
    cs_level_static_mesh mesh;
    if (!cs_level_static_mesh_decode(level, placed->mesh_id, ri, mi, &mesh, err))
        return false;
    bool ok = true;
    for (uint32_t f = 0; f < mesh.face_count && ok; f++)
        ok = add_static_face(b, level, placed, &mesh, &mesh.faces[f], ri, mi, err);
    cs_level_static_mesh_free(&mesh);
    return ok;
}

static void add_portal(cs_level_mesh *m, const cs_tr1_room *room, uint32_t ri, const cs_tr1_portal *p)
{
    cs_level_portal *out = &m->portals[m->portal_count++];
    out->room = ri;
    out->to = p->adjoining_room;
    for (int k = 0; k < 4; k++)
        to_world(m->units_per_metre, room->x + p->vertices[k][0], p->vertices[k][1], room->z + p->vertices[k][2],
                 out->corners[k]);
    // The normal is a direction: the same half turn, no scale.
    double n[3] = {p->normal[0], -(double)p->normal[1], -(double)p->normal[2]};
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int a = 0; a < 3; a++)
        out->normal[a] = len > 0 ? n[a] / len : 0;
}

static void room_bounds(const cs_level_mesh *m, const cs_tr1_room *room, cs_level_room *out)
{
    double a[3], b[3];
    to_world(m->units_per_metre, room->x, room->y_top, room->z, a);
    to_world(m->units_per_metre, room->x + 1024.0 * room->x_sectors, room->y_bottom, room->z + 1024.0 * room->z_sectors,
             b);
    for (int k = 0; k < 3; k++) {
        out->min[k] = fmin(a[k], b[k]);
        out->max[k] = fmax(a[k], b[k]);
    }
}

// Every room's sector grid, with the portal of each sector's floor data
// resolved, for cs_level_room_at.
static void build_sectors(const cs_tr1_level *level, cs_level_mesh *m)
{
    size_t total = 0;
    for (uint32_t r = 0; r < level->room_count; r++)
        total += (size_t)level->rooms[r].x_sectors * level->rooms[r].z_sectors;
    CS_ASSERT(total <= UINT32_MAX, "a level of %zu sectors", total);
    m->sectors = calloc(total ? total : 1, sizeof *m->sectors);
    CS_ASSERT(m->sectors, "out of memory for %zu sectors", total);
    uint32_t n = 0;
    for (uint32_t r = 0; r < level->room_count; r++) {
        const cs_tr1_room *room = &level->rooms[r];
        cs_level_room *dst = &m->rooms[r];
        dst->x = room->x;
        dst->z = room->z;
        dst->x_sectors = room->x_sectors;
        dst->z_sectors = room->z_sectors;
        dst->first_sector = n;
        dst->flags = (uint16_t)room->flags;
        for (uint32_t i = 0; i < (uint32_t)room->x_sectors * room->z_sectors; i++) {
            const cs_tr1_sector *s = &room->sectors[i];
            m->sectors[n++] = (cs_level_sector){
                .floor = s->floor * 256,
                .ceiling = s->ceiling * 256,
                .door = (int16_t)cs_tr1_sector_door(level, s),
                .room_below = s->room_below,
                .room_above = s->room_above,
            };
        }
    }
    m->sector_count = n;
}

static void build_texels(const cs_tr1_level *level, cs_level_mesh *m)
{
    m->tile_count = level->textile_count;
    size_t n = (size_t)m->tile_count * 65536u;
    m->texels = malloc((n ? n : 1) * sizeof *m->texels);
    CS_ASSERT(m->texels, "out of memory for %u textiles", m->tile_count);
    uint32_t rgba[256];
    for (int i = 0; i < 256; i++) {
        // 6-bit palette components to 8 bits (63 -> 255).
        uint32_t r = level->palette[i][0] * 255u / 63u, g = level->palette[i][1] * 255u / 63u;
        uint32_t b = level->palette[i][2] * 255u / 63u;
        rgba[i] = r | g << 8 | b << 16 | (i == 0 ? 0u : 255u) << 24;
    }
    for (size_t i = 0; i < n; i++)
        m->texels[i] = rgba[level->textiles[i]];
}

bool cs_level_mesh_build(const cs_tr1_level *level, double units_per_metre, cs_level_mesh *out, cs_error *err)
{
    static uint64_t generations;
    memset(out, 0, sizeof *out);
    if (!(units_per_metre > 0) || !isfinite(units_per_metre))
        return cs_fail(err, "level: units per metre must be a positive number (got %g)", units_per_metre);
    out->units_per_metre = units_per_metre;
    out->generation = ++generations;
    // TR1's depth cue: the view fades to black from 8 to 20 sectors.
    out->fog_start = 8 * 1024 / units_per_metre;
    out->fog_end = 20 * 1024 / units_per_metre;
    out->room_count = level->room_count;
    out->rooms = calloc(level->room_count ? level->room_count : 1, sizeof *out->rooms);
    uint32_t portals = 0;
    for (uint32_t r = 0; r < level->room_count; r++)
        portals += level->rooms[r].portal_count;
    out->portals = calloc(portals ? portals : 1, sizeof *out->portals);
    CS_ASSERT(out->rooms && out->portals, "out of memory building a level mesh");
    build_sectors(level, out);
    builder b = {out, 0, fronts_wind_clockwise(level), NULL};
    out->flipped = b.flip;
    if (!build_anim(&b, level, err))
        goto fail;
    for (uint32_t ri = 0; ri < level->room_count; ri++) {
        const cs_tr1_room *room = &level->rooms[ri];
        cs_level_room *dst = &out->rooms[ri];
        dst->first_vertex = out->vertex_count;
        for (uint32_t f = 0; f < room->rect_count; f++)
            if (!add_face(&b, level, ri, room->rects[f].vertices, 4, room->rects[f].texture, "rects", f, err))
                goto fail;
        for (uint32_t f = 0; f < room->tri_count; f++)
            if (!add_face(&b, level, ri, room->tris[f].vertices, 3, room->tris[f].texture, "tris", f, err))
                goto fail;
        for (uint32_t m = 0; m < room->mesh_count; m++)
            if (!add_static(&b, level, ri, m, err))
                goto fail;
        for (uint32_t s = 0; s < room->sprite_count; s++)
            add_sprite(&b, level, ri, s);
        dst->vertex_count = out->vertex_count - dst->first_vertex;
        if (out->vertex_count >= 1u << 24) { // the draw passes first_vertex as a float
            cs_fail(err, "rooms[%u]: the level has more than 2^24 vertices", ri);
            goto fail;
        }
        room_bounds(out, room, dst);
        dst->first_portal = out->portal_count;
        for (uint32_t p = 0; p < room->portal_count; p++) {
            if (room->portals[p].adjoining_room >= level->room_count) {
                cs_fail(err, "rooms[%u].portals[%u].adjoining_room: room %u does not exist (%u rooms)", ri, p,
                        room->portals[p].adjoining_room, level->room_count);
                goto fail;
            }
            add_portal(out, room, ri, &room->portals[p]);
        }
        dst->portal_count = out->portal_count - dst->first_portal;
    }
    build_texels(level, out);
    free(b.anim_entry_of);
    return true;
fail:
    free(b.anim_entry_of);
    cs_level_mesh_free(out);
    return false;
}

bool cs_level_mesh_load(const char *path, double units_per_metre, cs_level_mesh *out, cs_error *err)
{
    cs_tr1_level level;
    if (!cs_tr1_load(path, &level, NULL, err))
        return false;
    cs_error inner;
    bool ok = cs_level_mesh_build(&level, units_per_metre, out, &inner);
    cs_tr1_free(&level);
    return ok || cs_fail(err, "%s: %s", path, inner.msg);
}

void cs_level_mesh_free(cs_level_mesh *mesh)
{
    free(mesh->vertices);
    free(mesh->rooms);
    free(mesh->portals);
    free(mesh->texels);
    free(mesh->anim);
    free(mesh->sectors);
    memset(mesh, 0, sizeof *mesh);
}

// The sector of room r under (x, z) (TR units), or NULL when the room has
// no sectors. clamp: into the grid as the game's GetFloor does (an edge
// row keeps off the corners); otherwise NULL outside the grid.
static const cs_level_sector *sector_at(const cs_level_mesh *mesh, uint32_t r, double x, double z, bool clamp)
{
    const cs_level_room *room = &mesh->rooms[r];
    if (room->x_sectors == 0 || room->z_sectors == 0)
        return NULL;
    double fx = floor((x - room->x) / 1024.0), fz = floor((z - room->z) / 1024.0);
    double nx = room->x_sectors, nz = room->z_sectors;
    if (!clamp && (fx < 0 || fx >= nx || fz < 0 || fz >= nz))
        return NULL;
    if (fz <= 0 || fz >= nz - 1) {
        fz = fz <= 0 ? 0 : nz - 1;
        double lo = nx >= 3 ? 1 : 0, hi = nx >= 3 ? nx - 2 : nx - 1;
        fx = fx < lo ? lo : fx > hi ? hi : fx;
    } else {
        fx = fx < 0 ? 0 : fx > nx - 1 ? nx - 1 : fx;
    }
    return &mesh->sectors[room->first_sector + (uint32_t)fx * room->z_sectors + (uint32_t)fz];
}

int cs_level_room_at(const cs_level_mesh *mesh, const double p[3])
{
    int best = cs_level_room_in_box(mesh, p);
    if (best < 0 || !mesh->sectors)
        return best;
    // TR units: the world frame is (x, -y, -z) / units_per_metre.
    double x = p[0] * mesh->units_per_metre, y = -p[1] * mesh->units_per_metre, z = -p[2] * mesh->units_per_metre;
    uint32_t room = (uint32_t)best;
    const cs_level_sector *s = NULL;
    for (uint32_t step = 0; step <= mesh->room_count; step++) {
        s = sector_at(mesh, room, x, z, true);
        if (!s || s->door < 0 || (uint32_t)s->door == room || (uint32_t)s->door >= mesh->room_count)
            break;
        room = (uint32_t)s->door;
    }
    if (!s)
        return (int)room;
    bool down = y >= s->floor, up = !down && y < s->ceiling;
    for (uint32_t step = 0; (down || up) && step < mesh->room_count; step++) {
        uint8_t next = down ? s->room_below : s->room_above;
        if (next == CS_TR1_NO_ROOM || next >= mesh->room_count)
            break;
        // The game moves first (it trusts the portal); a point that is not
        // over the next room's grid (a hostile file) stops the walk there.
        room = next;
        s = sector_at(mesh, next, x, z, false);
        if (!s)
            break;
        if (down ? y < s->floor : y >= s->ceiling)
            break;
    }
    return (int)room;
}

// Whether room r's own sector under (x, z) (TR units, not clamped) is
// floor to stand on: neither a wall nor a door sector (which lies over the
// floor of the room it leads to).
static bool open_floor_at(const cs_level_mesh *mesh, uint32_t r, double x, double z)
{
    const cs_level_sector *s = sector_at(mesh, r, x, z, false);
    return s && s->floor > s->ceiling && s->door < 0;
}

int cs_level_room_in_box(const cs_level_mesh *mesh, const double p[3])
{
    int best = -1;
    bool best_open = false;
    double best_volume = INFINITY;
    double x = p[0] * mesh->units_per_metre, z = -p[2] * mesh->units_per_metre;
    for (uint32_t r = 0; r < mesh->room_count; r++) {
        const cs_level_room *room = &mesh->rooms[r];
        bool inside = true;
        double volume = 1;
        for (int a = 0; a < 3; a++) {
            // Half-open, so a point on a face two boxes share is in one.
            inside = inside && p[a] >= room->min[a] && p[a] < room->max[a];
            volume *= room->max[a] - room->min[a];
        }
        if (!inside)
            continue;
        // Boxes of neighbouring rooms overlap by their wall rings: a box
        // whose own sector here is open floor wins over one whose sector is
        // a wall or a door, then the smaller box.
        bool open = mesh->sectors && open_floor_at(mesh, r, x, z);
        if ((open && !best_open) || (open == best_open && volume < best_volume)) {
            best = (int)r;
            best_open = open;
            best_volume = volume;
        }
    }
    return best;
}

bool cs_level_room_eye(const cs_level_mesh *mesh, uint32_t room, double eye[3])
{
    const cs_level_room *r = &mesh->rooms[room];
    eye[0] = 0.5 * (r->min[0] + r->max[0]);
    eye[1] = r->min[1] + 0.4 * (r->max[1] - r->min[1]);
    eye[2] = 0.5 * (r->min[2] + r->max[2]);
    if (!mesh->sectors)
        return false;
    double cx = eye[0] * mesh->units_per_metre, cz = -eye[2] * mesh->units_per_metre, best = INFINITY;
    // The box's middle where that is open space of the room's own: the
    // eye the viewer always had (retail rooms put walls, raised floors or
    // door sectors there, where it would see nothing).
    const cs_level_sector *middle = sector_at(mesh, room, cx, cz, false);
    double cy = -eye[1] * mesh->units_per_metre;
    if (middle && middle->floor > middle->ceiling && middle->door < 0 && cy < middle->floor && cy > middle->ceiling)
        return true;
    // Else the open floor sector nearest the box's middle (ties: the first
    // in the grid's order), at 40% of its own height.
    const cs_level_sector *chosen = NULL;
    double sx = 0, sz = 0;
    for (uint32_t i = 0; i < r->x_sectors; i++)
        for (uint32_t j = 0; j < r->z_sectors; j++) {
            const cs_level_sector *s = &mesh->sectors[r->first_sector + i * r->z_sectors + j];
            if (!(s->floor > s->ceiling) || s->door >= 0)
                continue;
            double x = r->x + (i + 0.5) * 1024.0, z = r->z + (j + 0.5) * 1024.0;
            double d = (x - cx) * (x - cx) + (z - cz) * (z - cz);
            if (d < best) {
                best = d;
                chosen = s;
                sx = x;
                sz = z;
            }
        }
    if (!chosen)
        return false;
    double y = chosen->floor + 0.4 * (chosen->ceiling - chosen->floor); // TR y grows downwards
    eye[0] = sx / mesh->units_per_metre;
    eye[1] = -y / mesh->units_per_metre;
    eye[2] = -sz / mesh->units_per_metre;
    return true;
}

uint32_t cs_level_texel(const cs_level_mesh *mesh, uint32_t tile, float u, float v)
{
    int x = (int)floorf(u), y = (int)floorf(v);
    x = x < 0 ? 0 : x > 255 ? 255 : x;
    y = y < 0 ? 0 : y > 255 ? 255 : y;
    return mesh->texels[(size_t)tile * 65536u + (size_t)y * 256u + (size_t)x];
}

uint32_t cs_level_vertex_texel(const cs_level_mesh *mesh, const cs_level_vertex *vertex, float u, float v)
{
    if ((uint32_t)vertex->flags & CS_LEVEL_VERTEX_COLOUR)
        return (uint32_t)vertex->tile | 0xff000000u;
    return cs_level_texel(mesh, (uint32_t)vertex->tile, u, v);
}
