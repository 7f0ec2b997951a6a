// level_tr1.c — Tomb Raider 1 .PHD reader and writer (docs/levels.md).
//
// The reader trusts nothing: every count is checked against the bytes that
// are left (of the file, or of the room's data block) before anything is
// allocated or read, every index is checked against what it indexes, and a
// refusal names the file, the byte offset of the field and its path
// ("rooms[3].portals[1].adjoining_room"). Sections it does not interpret are
// kept as bytes, so writing what was read gives the same file back.
#include "level_tr1.h"

#include "file_io.h"

#include <stdarg.h>

// ---- sections after the rooms ---------------------------------------------

typedef enum section_kind { RAW, OBJECT_TEXTURES, SPRITE_TEXTURES, PALETTE } section_kind;

typedef struct section_info {
    const char *name;
    uint32_t count_bytes; // 4, 2, or 0 (fixed size or counted elsewhere)
    uint32_t elem_bytes;
    section_kind kind;
} section_info;

// TRosettaStone's TR1 layout; element sizes are TR1's (TR2+ differ for
// animations, boxes, zones and entities).
static const section_info sections[CS_TR1_SECTION_COUNT] = {
    [CS_TR1_FLOOR_DATA] = {"floor_data", 4, 2, RAW},
    [CS_TR1_MESH_DATA] = {"mesh_data", 4, 2, RAW},
    [CS_TR1_MESH_POINTERS] = {"mesh_pointers", 4, 4, RAW},
    [CS_TR1_ANIMATIONS] = {"animations", 4, 32, RAW},
    [CS_TR1_STATE_CHANGES] = {"state_changes", 4, 6, RAW},
    [CS_TR1_ANIM_DISPATCHES] = {"anim_dispatches", 4, 8, RAW},
    [CS_TR1_ANIM_COMMANDS] = {"anim_commands", 4, 2, RAW},
    [CS_TR1_MESH_TREES] = {"mesh_trees", 4, 4, RAW},
    [CS_TR1_FRAMES] = {"frames", 4, 2, RAW},
    [CS_TR1_MOVEABLES] = {"moveables", 4, 18, RAW},
    [CS_TR1_STATIC_MESHES] = {"static_meshes", 4, 32, RAW},
    [CS_TR1_OBJECT_TEXTURES] = {"object_textures", 4, 20, OBJECT_TEXTURES},
    [CS_TR1_SPRITE_TEXTURES] = {"sprite_textures", 4, 16, SPRITE_TEXTURES},
    [CS_TR1_SPRITE_SEQUENCES] = {"sprite_sequences", 4, 8, RAW},
    [CS_TR1_CAMERAS] = {"cameras", 4, 16, RAW},
    [CS_TR1_SOUND_SOURCES] = {"sound_sources", 4, 16, RAW},
    [CS_TR1_BOXES] = {"boxes", 4, 20, RAW},
    [CS_TR1_OVERLAPS] = {"overlaps", 4, 2, RAW},
    [CS_TR1_ZONES] = {"zones", 0, 12, RAW},
    [CS_TR1_ANIMATED_TEXTURES] = {"animated_textures", 4, 2, RAW},
    [CS_TR1_ENTITIES] = {"entities", 4, 22, RAW},
    [CS_TR1_LIGHT_MAP] = {"light_map", 0, 32 * 256, RAW},
    [CS_TR1_PALETTE] = {"palette", 0, 768, PALETTE},
    [CS_TR1_CINEMATIC_FRAMES] = {"cinematic_frames", 2, 16, RAW},
    [CS_TR1_DEMO_DATA] = {"demo_data", 2, 1, RAW},
    [CS_TR1_SOUND_MAP] = {"sound_map", 0, 512, RAW},
    [CS_TR1_SOUND_DETAILS] = {"sound_details", 4, 8, RAW},
    [CS_TR1_SAMPLES] = {"samples", 4, 1, RAW},
    [CS_TR1_SAMPLE_INDICES] = {"sample_indices", 4, 4, RAW},
};

// The sections in file order: the .PHD layout, or the demo-file layout,
// which has the palette between the sprite sequences and the cameras
// instead of after the light map (TRosettaStone's TR1 notes). Unfinished
// Business files use the ordinary layout.
static void section_order(bool demo_palette, cs_tr1_section order[CS_TR1_SECTION_COUNT])
{
    int n = 0;
    for (int s = 0; s < CS_TR1_SECTION_COUNT; s++) {
        if (demo_palette && s == CS_TR1_PALETTE)
            continue;
        order[n++] = (cs_tr1_section)s;
        if (demo_palette && s == CS_TR1_SPRITE_SEQUENCES)
            order[n++] = CS_TR1_PALETTE;
    }
}

const char *cs_tr1_section_name(cs_tr1_section s)
{
    return (unsigned)s < CS_TR1_SECTION_COUNT ? sections[s].name : "?";
}

// ---- reading ----------------------------------------------------------------

typedef struct reader {
    const uint8_t *d;
    size_t pos, end; // end: the file's size, or the end of a room's data block
    size_t size;
    const char *path;
    cs_error *err;
} reader;

// "PATH: byte AT: FIELD: what". field is a printf format; its arguments come
// first in the list, then what's.
static bool fail_at(reader *r, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_at(reader *r, size_t at, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cs_fail(r->err, "%s: byte %zu: %s", r->path, at, what);
}

// n more bytes must be there before r->end; field names what needs them.
static bool need(reader *r, size_t n, const char *field)
{
    if (n <= r->end - r->pos)
        return true;
    if (r->end < r->size)
        return fail_at(r, r->pos, "%s: needs %zu bytes but the room's data block ends %zu bytes on", field, n,
                       r->end - r->pos);
    return fail_at(r, r->pos, "%s: needs %zu bytes but the file ends %zu bytes on (truncated?)", field, n,
                   r->end - r->pos);
}

static uint8_t get_u8(reader *r) { return r->d[r->pos++]; }
static uint16_t get_u16(reader *r)
{
    uint16_t v = (uint16_t)(r->d[r->pos] | (r->d[r->pos + 1] << 8));
    r->pos += 2;
    return v;
}
static int16_t get_i16(reader *r) { return (int16_t)get_u16(r); }
static uint32_t get_u32(reader *r)
{
    uint32_t v = (uint32_t)r->d[r->pos] | (uint32_t)r->d[r->pos + 1] << 8 | (uint32_t)r->d[r->pos + 2] << 16 |
                 (uint32_t)r->d[r->pos + 3] << 24;
    r->pos += 4;
    return v;
}
static int32_t get_i32(reader *r) { return (int32_t)get_u32(r); }

// A count field of count_bytes (2 signed-or-not, 4) followed by count
// elements of elem bytes, which must fit in what is left. signed16: TR1
// stores the room geometry counts as i16; a negative one is refused.
static bool read_count(reader *r, uint32_t count_bytes, bool signed16, size_t elem, uint32_t *count,
                       const char *field)
{
    size_t at = r->pos;
    if (!need(r, count_bytes, field))
        return false;
    if (count_bytes == 4) {
        *count = get_u32(r);
    } else {
        uint16_t v = get_u16(r);
        if (signed16 && (int16_t)v < 0)
            return fail_at(r, at, "%s: negative count %d", field, (int16_t)v);
        *count = v;
    }
    uint64_t bytes = (uint64_t)*count * elem;
    if (bytes > r->end - r->pos)
        return fail_at(r, at, "%s: count %u x %zu bytes = %llu bytes, but only %zu are left in the %s", field,
                       *count, elem, (unsigned long long)bytes, r->end - r->pos,
                       r->end < r->size ? "room's data block" : "file");
    return true;
}

// calloc that never returns NULL for 0 elements, so "empty" and "failed"
// differ.
static void *alloc_array(uint32_t count, size_t elem)
{
    return calloc(count ? count : 1, elem);
}

#define OOM(r) fail_at((r), (r)->pos, "out of memory")

// Counts one tolerated oddity of kind `kind` at file offset `at`; the first
// one's field (a printf format) is kept for the warning.
static void tolerate(cs_tr1_level *lvl, cs_tr1_oddity kind, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void tolerate(cs_tr1_level *lvl, cs_tr1_oddity kind, size_t at, const char *fmt, ...)
{
    cs_tr1_tolerated *t = &lvl->tolerated[kind];
    if (t->count++ == 0) {
        t->first_at = at;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->first, sizeof t->first, fmt, ap);
        va_end(ap);
    }
}

static bool read_room(reader *r, uint32_t index, cs_tr1_level *lvl)
{
    cs_tr1_room *room = &lvl->rooms[index];
    char f[128];
#define FIELD(...) (snprintf(f, sizeof f, __VA_ARGS__), f)
    if (!need(r, 20, FIELD("rooms[%u].info", index)))
        return false;
    room->x = get_i32(r);
    room->z = get_i32(r);
    room->y_bottom = get_i32(r);
    room->y_top = get_i32(r);
    size_t words_at = r->pos;
    uint32_t words = get_u32(r);
    if ((uint64_t)words * 2 > r->size - r->pos)
        return fail_at(r, words_at, "rooms[%u].num_data_words: %u words = %llu bytes, but only %zu are left in the file",
                       index, words, (unsigned long long)words * 2, r->size - r->pos);
    size_t data_end = r->pos + (size_t)words * 2;
    r->end = data_end; // the geometry's counts must fit the data block
    room->data_offset = r->pos;

    if (!read_count(r, 2, true, 8, &room->vertex_count, FIELD("rooms[%u].vertices", index)))
        return false;
    room->vertices = alloc_array(room->vertex_count, sizeof *room->vertices);
    if (!room->vertices)
        return OOM(r);
    for (uint32_t i = 0; i < room->vertex_count; i++) {
        cs_tr1_vertex *v = &room->vertices[i];
        v->x = get_i16(r);
        v->y = get_i16(r);
        v->z = get_i16(r);
        v->lighting = get_i16(r);
    }

    if (!read_count(r, 2, true, 10, &room->rect_count, FIELD("rooms[%u].rectangles", index)))
        return false;
    room->rects = alloc_array(room->rect_count, sizeof *room->rects);
    if (!room->rects)
        return OOM(r);
    for (uint32_t i = 0; i < room->rect_count; i++) {
        for (int k = 0; k < 4; k++) {
            size_t at = r->pos;
            uint16_t v = room->rects[i].vertices[k] = get_u16(r);
            if (v >= room->vertex_count)
                return fail_at(r, at, "rooms[%u].rectangles[%u].vertices[%d]: vertex %u does not exist (%u vertices)",
                               index, i, k, v, room->vertex_count);
        }
        room->rects[i].texture = get_u16(r); // checked once the object textures are read
    }

    if (!read_count(r, 2, true, 8, &room->tri_count, FIELD("rooms[%u].triangles", index)))
        return false;
    room->tris = alloc_array(room->tri_count, sizeof *room->tris);
    if (!room->tris)
        return OOM(r);
    for (uint32_t i = 0; i < room->tri_count; i++) {
        for (int k = 0; k < 3; k++) {
            size_t at = r->pos;
            uint16_t v = room->tris[i].vertices[k] = get_u16(r);
            if (v >= room->vertex_count)
                return fail_at(r, at, "rooms[%u].triangles[%u].vertices[%d]: vertex %u does not exist (%u vertices)",
                               index, i, k, v, room->vertex_count);
        }
        room->tris[i].texture = get_u16(r);
    }

    if (!read_count(r, 2, true, 4, &room->sprite_count, FIELD("rooms[%u].sprites", index)))
        return false;
    room->sprites = alloc_array(room->sprite_count, sizeof *room->sprites);
    if (!room->sprites)
        return OOM(r);
    // A sprite's vertex and texture are checked with the textures
    // (check_references): real files hold sprites that do not resolve.
    for (uint32_t i = 0; i < room->sprite_count; i++) {
        room->sprites[i].vertex = get_i16(r);
        room->sprites[i].texture = get_i16(r);
    }
    if (r->pos != data_end) {
        // Real files may say more words than the geometry takes; the game
        // (and OpenLara) seek by num_data_words. Keep the rest for the writer.
        room->extra_data_size = (uint32_t)(data_end - r->pos);
        room->extra_data = malloc(room->extra_data_size);
        if (!room->extra_data)
            return OOM(r);
        memcpy(room->extra_data, r->d + r->pos, room->extra_data_size);
        tolerate(lvl, CS_TR1_ODD_DATA_WORDS, words_at, "rooms[%u].num_data_words", index);
        r->pos = data_end;
    }
    r->end = r->size;

    if (!read_count(r, 2, false, 32, &room->portal_count, FIELD("rooms[%u].portals", index)))
        return false;
    room->portals = alloc_array(room->portal_count, sizeof *room->portals);
    if (!room->portals)
        return OOM(r);
    for (uint32_t i = 0; i < room->portal_count; i++) {
        cs_tr1_portal *p = &room->portals[i];
        size_t at = r->pos;
        p->adjoining_room = get_u16(r);
        if (p->adjoining_room >= lvl->room_count)
            return fail_at(r, at, "rooms[%u].portals[%u].adjoining_room: room %u does not exist (%u rooms)", index, i,
                           p->adjoining_room, lvl->room_count);
        if (p->adjoining_room == index)
            return fail_at(r, at, "rooms[%u].portals[%u].adjoining_room: a portal from room %u to itself", index, i,
                           index);
        for (int k = 0; k < 3; k++)
            p->normal[k] = get_i16(r);
        for (int v = 0; v < 4; v++)
            for (int k = 0; k < 3; k++)
                p->vertices[v][k] = get_i16(r);
    }

    if (!need(r, 4, FIELD("rooms[%u].sector_counts", index)))
        return false;
    room->z_sectors = get_u16(r);
    room->x_sectors = get_u16(r);
    uint64_t sector_count = (uint64_t)room->z_sectors * room->x_sectors;
    if (sector_count * 8 > r->size - r->pos)
        return fail_at(r, r->pos - 4, "rooms[%u].sectors: %u x %u sectors x 8 bytes = %llu bytes, but only %zu are left in the file",
                       index, room->z_sectors, room->x_sectors, (unsigned long long)sector_count * 8, r->size - r->pos);
    room->sectors = alloc_array((uint32_t)sector_count, sizeof *room->sectors);
    if (!room->sectors)
        return OOM(r);
    for (uint32_t i = 0; i < sector_count; i++) {
        cs_tr1_sector *s = &room->sectors[i];
        s->fd_index = get_u16(r);
        s->box_index = get_u16(r);
        size_t at = r->pos;
        s->room_below = get_u8(r);
        s->floor = (int8_t)get_u8(r);
        s->room_above = get_u8(r);
        s->ceiling = (int8_t)get_u8(r);
        if (s->room_below != CS_TR1_NO_ROOM && s->room_below >= lvl->room_count)
            return fail_at(r, at, "rooms[%u].sectors[%u].room_below: room %u does not exist (%u rooms; 255 is none)",
                           index, i, s->room_below, lvl->room_count);
        if (s->room_above != CS_TR1_NO_ROOM && s->room_above >= lvl->room_count)
            return fail_at(r, at + 2, "rooms[%u].sectors[%u].room_above: room %u does not exist (%u rooms; 255 is none)",
                           index, i, s->room_above, lvl->room_count);
    }

    if (!need(r, 2, FIELD("rooms[%u].ambient", index)))
        return false;
    room->ambient = get_i16(r);

    if (!read_count(r, 2, false, 18, &room->light_count, FIELD("rooms[%u].lights", index)))
        return false;
    room->lights = alloc_array(room->light_count, sizeof *room->lights);
    if (!room->lights)
        return OOM(r);
    for (uint32_t i = 0; i < room->light_count; i++) {
        cs_tr1_light *l = &room->lights[i];
        l->x = get_i32(r);
        l->y = get_i32(r);
        l->z = get_i32(r);
        l->intensity = get_i16(r);
        l->fade = get_u32(r);
    }

    if (!read_count(r, 2, false, 18, &room->mesh_count, FIELD("rooms[%u].static_meshes", index)))
        return false;
    room->meshes = alloc_array(room->mesh_count, sizeof *room->meshes);
    if (!room->meshes)
        return OOM(r);
    for (uint32_t i = 0; i < room->mesh_count; i++) {
        cs_tr1_room_mesh *m = &room->meshes[i];
        m->x = get_i32(r);
        m->y = get_i32(r);
        m->z = get_i32(r);
        m->rotation = get_u16(r);
        m->intensity = get_u16(r);
        m->mesh_id = get_u16(r);
    }

    if (!need(r, 4, FIELD("rooms[%u].alternate_room", index)))
        return false;
    size_t alt_at = r->pos;
    room->alternate_room = get_i16(r);
    if (room->alternate_room != -1 && (room->alternate_room < 0 || (uint32_t)room->alternate_room >= lvl->room_count))
        return fail_at(r, alt_at, "rooms[%u].alternate_room: room %d does not exist (%u rooms; -1 is none)", index,
                       room->alternate_room, lvl->room_count);
    room->flags = get_i16(r);
    return true;
#undef FIELD
}

static bool read_section(reader *r, cs_tr1_section s, cs_tr1_level *lvl)
{
    const section_info *info = &sections[s];
    cs_tr1_blob *b = &lvl->sections[s];
    if (info->count_bytes) {
        if (!read_count(r, info->count_bytes, false, info->elem_bytes, &b->count, info->name))
            return false;
    } else {
        b->count = s == CS_TR1_ZONES ? lvl->sections[CS_TR1_BOXES].count : 1;
        if (!need(r, (size_t)b->count * info->elem_bytes, info->name))
            return false;
    }
    b->offset = r->pos;
    b->size = (size_t)b->count * info->elem_bytes;

    if (info->kind == RAW) {
        b->bytes = malloc(b->size ? b->size : 1);
        if (!b->bytes)
            return OOM(r);
        memcpy(b->bytes, r->d + r->pos, b->size);
        r->pos += b->size;
    } else if (info->kind == OBJECT_TEXTURES) {
        lvl->object_texture_count = b->count;
        lvl->object_textures = alloc_array(b->count, sizeof *lvl->object_textures);
        if (!lvl->object_textures)
            return OOM(r);
        for (uint32_t i = 0; i < b->count; i++) {
            cs_tr1_object_texture *t = &lvl->object_textures[i];
            t->attribute = get_u16(r);
            size_t at = r->pos;
            t->tile = get_u16(r);
            if (t->tile >= lvl->textile_count)
                return fail_at(r, at, "object_textures[%u].tile: textile %u does not exist (%u textiles)", i, t->tile,
                               lvl->textile_count);
            for (int v = 0; v < 4; v++)
                for (int k = 0; k < 4; k++)
                    t->uv[v][k] = get_u8(r);
        }
    } else if (info->kind == SPRITE_TEXTURES) {
        lvl->sprite_texture_count = b->count;
        lvl->sprite_textures = alloc_array(b->count, sizeof *lvl->sprite_textures);
        if (!lvl->sprite_textures)
            return OOM(r);
        for (uint32_t i = 0; i < b->count; i++) {
            cs_tr1_sprite_texture *t = &lvl->sprite_textures[i];
            size_t at = r->pos;
            t->tile = get_u16(r);
            if (t->tile >= lvl->textile_count)
                return fail_at(r, at, "sprite_textures[%u].tile: textile %u does not exist (%u textiles)", i, t->tile,
                               lvl->textile_count);
            t->x = get_u8(r);
            t->y = get_u8(r);
            t->width = get_u16(r);
            t->height = get_u16(r);
            t->left = get_i16(r);
            t->top = get_i16(r);
            t->right = get_i16(r);
            t->bottom = get_i16(r);
        }
    } else { // PALETTE
        for (int i = 0; i < 256; i++)
            for (int k = 0; k < 3; k++) {
                size_t at = r->pos;
                uint8_t c = lvl->palette[i][k] = get_u8(r);
                if (c > 63)
                    return fail_at(r, at, "palette[%d].%c: %u is not a 6-bit component (0..63)", i, "rgb"[k], c);
            }
    }
    return true;
}

// Indices that point forward in the file: checked once what they index is
// read, with the offsets of the fields they sit in.
static bool check_references(reader *r, cs_tr1_level *lvl)
{
    const cs_tr1_blob *md = &lvl->sections[CS_TR1_MESH_DATA];
    const cs_tr1_blob *mp = &lvl->sections[CS_TR1_MESH_POINTERS];
    for (uint32_t i = 0; i < mp->count; i++) {
        const uint8_t *p = mp->bytes + (size_t)i * 4;
        uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        if (v >= md->size)
            return fail_at(r, mp->offset + (size_t)i * 4,
                           "mesh_pointers[%u]: byte %u is past the mesh data (%zu bytes)", i, v, md->size);
    }
    const cs_tr1_blob *sm = &lvl->sections[CS_TR1_STATIC_MESHES];
    for (uint32_t i = 0; i < sm->count; i++) {
        const uint8_t *p = sm->bytes + (size_t)i * 32 + 4;
        uint32_t mesh = (uint32_t)p[0] | (uint32_t)p[1] << 8;
        if (mesh >= mp->count)
            return fail_at(r, sm->offset + (size_t)i * 32 + 4, "static_meshes[%u].mesh: mesh %u does not exist (%u meshes)",
                           i, mesh, mp->count);
    }
    for (uint32_t ri = 0; ri < lvl->room_count; ri++) {
        const cs_tr1_room *room = &lvl->rooms[ri];
        size_t at = room->data_offset + 2 + (size_t)room->vertex_count * 8 + 2;
        for (uint32_t i = 0; i < room->rect_count; i++, at += 10)
            if (room->rects[i].texture >= lvl->object_texture_count)
                return fail_at(r, at + 8, "rooms[%u].rectangles[%u].texture: object texture %u does not exist (%u)",
                               ri, i, room->rects[i].texture, lvl->object_texture_count);
        at += 2;
        for (uint32_t i = 0; i < room->tri_count; i++, at += 8)
            if (room->tris[i].texture >= lvl->object_texture_count)
                return fail_at(r, at + 6, "rooms[%u].triangles[%u].texture: object texture %u does not exist (%u)",
                               ri, i, room->tris[i].texture, lvl->object_texture_count);
        at += 2;
        // Tolerated (real files hold them): kept for the writer, not drawn.
        for (uint32_t i = 0; i < room->sprite_count; i++, at += 4) {
            const cs_tr1_sprite *sp = &room->sprites[i];
            if (sp->vertex < 0 || (uint32_t)sp->vertex >= room->vertex_count)
                tolerate(lvl, CS_TR1_ODD_SPRITE, at, "rooms[%u].sprites[%u].vertex: vertex %d of %u", ri, i,
                         sp->vertex, room->vertex_count);
            else if (sp->texture < 0 || (uint32_t)sp->texture >= lvl->sprite_texture_count)
                tolerate(lvl, CS_TR1_ODD_SPRITE, at + 2, "rooms[%u].sprites[%u].texture: sprite texture %d of %u", ri,
                         i, sp->texture, lvl->sprite_texture_count);
        }
    }
    return true;
}

// The animated_textures section (TRosettaStone, TR1: a u32 count of u16
// words, then the words): the number of ranges, then per range the number
// of its object textures minus one and their indices. Its bytes stay the
// raw section's (the writer writes them back); this decodes and checks
// them: every range within the words, every index an object texture, and
// no word left after the last range (strict, like the rest of the reader).
// An empty section (count 0) has no ranges.
static bool read_animated_textures(reader *r, cs_tr1_level *lvl)
{
    const cs_tr1_blob *b = &lvl->sections[CS_TR1_ANIMATED_TEXTURES];
    uint32_t words = b->count;
    if (words == 0)
        return true;
#define WORD(i) ((uint16_t)(b->bytes[2 * (size_t)(i)] | b->bytes[2 * (size_t)(i) + 1] << 8))
#define AT(i) (b->offset + 2 * (size_t)(i))
    uint32_t ranges = WORD(0);
    // Each range takes at least 2 words: refuse an absurd count before
    // allocating for it.
    if ((uint64_t)ranges * 2 > words - 1)
        return fail_at(r, AT(0), "animated_textures.ranges: %u ranges need at least %llu words, the section has %u",
                       ranges, (unsigned long long)ranges * 2 + 1, words);
    lvl->anim_ranges = alloc_array(ranges, sizeof *lvl->anim_ranges);
    lvl->anim_textures = alloc_array(words, sizeof *lvl->anim_textures);
    if (!lvl->anim_ranges || !lvl->anim_textures)
        return OOM(r);
    lvl->anim_range_count = ranges;
    uint32_t w = 1;
    for (uint32_t i = 0; i < ranges; i++) {
        if (w >= words)
            return fail_at(r, AT(w), "animated_textures.ranges[%u].count: past the section's %u words", i, words);
        uint32_t count = (uint32_t)WORD(w) + 1;
        if ((uint64_t)w + 1 + count > words)
            return fail_at(r, AT(w), "animated_textures.ranges[%u].count: %u textures need %u words, %u are left", i,
                           count, count, words - w - 1);
        cs_tr1_anim_range *range = &lvl->anim_ranges[i];
        range->first = lvl->anim_texture_count;
        range->count = count;
        w++;
        for (uint32_t k = 0; k < count; k++, w++) {
            uint16_t t = WORD(w);
            if (t >= lvl->object_texture_count)
                return fail_at(r, AT(w), "animated_textures.ranges[%u].textures[%u]: object texture %u does not exist "
                               "(%u)", i, k, t, lvl->object_texture_count);
            lvl->anim_textures[lvl->anim_texture_count++] = t;
        }
    }
    if (w != words) {
        // Zero words after the last range are padding (real files have
        // them; TRX seeks to the section's end). Anything else is refused.
        for (uint32_t k = w; k < words; k++)
            if (WORD(k) != 0)
                return fail_at(r, AT(w), "animated_textures: %u words after the last range (%u ranges), not all 0",
                               words - w, ranges);
        tolerate(lvl, CS_TR1_ODD_ANIM_PADDING, AT(w), "animated_textures: %u zero words after the last range",
                 words - w);
    }
    return true;
#undef WORD
#undef AT
}

// Everything after the rooms, in the layout `demo_palette` says.
static bool read_sections(reader *r, cs_tr1_level *lvl, bool demo_palette)
{
    cs_tr1_section order[CS_TR1_SECTION_COUNT];
    section_order(demo_palette, order);
    for (int i = 0; i < CS_TR1_SECTION_COUNT; i++)
        if (!read_section(r, order[i], lvl))
            return false;
    if (r->pos != r->size)
        return fail_at(r, r->pos, "end: %zu bytes after the last section (sample_indices)", r->size - r->pos);
    return check_references(r, lvl) && read_animated_textures(r, lvl);
}

// Frees what read_sections allocated, so that it can run again.
static void free_sections(cs_tr1_level *lvl)
{
    for (int s = 0; s < CS_TR1_SECTION_COUNT; s++)
        free(lvl->sections[s].bytes);
    memset(lvl->sections, 0, sizeof lvl->sections);
    free(lvl->object_textures);
    free(lvl->sprite_textures);
    free(lvl->anim_ranges);
    free(lvl->anim_textures);
    lvl->object_textures = NULL;
    lvl->sprite_textures = NULL;
    lvl->anim_ranges = NULL;
    lvl->anim_textures = NULL;
    lvl->object_texture_count = lvl->sprite_texture_count = 0;
    lvl->anim_range_count = lvl->anim_texture_count = 0;
}

static bool read_level(reader *r, cs_tr1_level *lvl)
{
    if (!need(r, 4, "version"))
        return false;
    uint32_t version = get_u32(r);
    if (version != CS_TR1_VERSION)
        return fail_at(r, 0, "version: 0x%08x is not a Tomb Raider 1 level (0x%08x; TR2 is 0x2d, TR3 0xff180038)",
                       version, CS_TR1_VERSION);
    if (!read_count(r, 4, false, CS_TR1_TEXTILE_BYTES, &lvl->textile_count, "textiles"))
        return false;
    lvl->textiles = malloc((size_t)lvl->textile_count * CS_TR1_TEXTILE_BYTES + 1);
    if (!lvl->textiles)
        return OOM(r);
    memcpy(lvl->textiles, r->d + r->pos, (size_t)lvl->textile_count * CS_TR1_TEXTILE_BYTES);
    r->pos += (size_t)lvl->textile_count * CS_TR1_TEXTILE_BYTES;
    if (!need(r, 4, "unused"))
        return false;
    lvl->unused = get_u32(r);
    // A room takes at least 20 + 8 (empty geometry) + 2 + 4 + 2 + 2 + 2 + 4
    // = 44 bytes: refuse an absurd count before allocating for it.
    if (!read_count(r, 2, false, 44, &lvl->room_count, "rooms"))
        return false;
    lvl->rooms = alloc_array(lvl->room_count, sizeof *lvl->rooms);
    if (!lvl->rooms)
        return OOM(r);
    for (uint32_t i = 0; i < lvl->room_count; i++)
        if (!read_room(r, i, lvl))
            return false;
    size_t sections_at = r->pos;
    cs_tr1_tolerated rooms_tolerated[CS_TR1_ODDITY_COUNT];
    memcpy(rooms_tolerated, lvl->tolerated, sizeof rooms_tolerated);
    if (read_sections(r, lvl, false))
        return true;
    // Not the .PHD layout: perhaps a demo file's, with the palette moved.
    // Tried second, whole, so that a .PHD file is never read as one; if
    // both fail, the .PHD layout's refusal is the one reported.
    cs_error *err = r->err, phd_err = *r->err, demo_err;
    free_sections(lvl);
    memcpy(lvl->tolerated, rooms_tolerated, sizeof rooms_tolerated);
    r->pos = sections_at;
    r->err = &demo_err;
    bool demo = read_sections(r, lvl, true);
    r->err = err;
    if (!demo) {
        *err = phd_err;
        return false;
    }
    lvl->demo_palette = true;
    tolerate(lvl, CS_TR1_ODD_DEMO_PALETTE, lvl->sections[CS_TR1_PALETTE].offset,
             "palette (between sprite_sequences and cameras)");
    return true;
}

bool cs_tr1_read(const uint8_t *data, size_t size, const char *path, cs_tr1_level *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    reader r = {.d = data, .pos = 0, .end = size, .size = size, .path = path, .err = err};
    if (read_level(&r, out))
        return true;
    cs_tr1_free(out);
    return false;
}

bool cs_tr1_load(const char *path, cs_tr1_level *out, size_t *size_out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    size_t size = 0;
    char *data = cs_read_input_file(path, CS_INPUT_FILE_MAX, &size, err);
    if (!data)
        return false;
    bool ok = cs_tr1_read((const uint8_t *)data, size, path, out, err);
    free(data);
    if (ok && size_out)
        *size_out = size;
    char warnings[CS_TR1_ODDITY_COUNT * 256];
    if (ok && cs_tr1_warnings(out, warnings, sizeof warnings) > 0)
        for (char *line = warnings, *next; line; line = next) {
            next = strchr(line, '\n');
            if (next)
                *next++ = 0;
            fprintf(stderr, "cistern: %s: %s\n", path, line);
        }
    return ok;
}

uint32_t cs_tr1_warnings(const cs_tr1_level *lvl, char *out, size_t size)
{
    static const char *const what[CS_TR1_ODDITY_COUNT] = {
        [CS_TR1_ODD_ANIM_PADDING] = "zero padding after the last animated texture range (kept)",
        [CS_TR1_ODD_DEMO_PALETTE] = "the demo-file layout, palette before the cameras (read and written so)",
        [CS_TR1_ODD_SPRITE] = "room sprites whose vertex or sprite texture does not exist (kept, not drawn)",
        [CS_TR1_ODD_DATA_WORDS] = "rooms whose num_data_words is longer than their geometry (the rest kept)",
    };
    size_t used = 0;
    uint32_t kinds = 0;
    out[0] = 0;
    for (int k = 0; k < CS_TR1_ODDITY_COUNT; k++) {
        const cs_tr1_tolerated *t = &lvl->tolerated[k];
        if (!t->count)
            continue;
        int n = snprintf(out + used, size - used, "%swarning: %u x %s; the first at byte %zu: %s", kinds ? "\n" : "",
                         t->count, what[k], t->first_at, t->first);
        kinds++;
        if (n < 0 || (size_t)n >= size - used)
            break; // truncated: out stays terminated
        used += (size_t)n;
    }
    return kinds;
}

bool cs_tr1_sprite_drawable(const cs_tr1_level *lvl, const cs_tr1_room *room, const cs_tr1_sprite *sprite)
{
    return sprite->vertex >= 0 && (uint32_t)sprite->vertex < room->vertex_count && sprite->texture >= 0 &&
           (uint32_t)sprite->texture < lvl->sprite_texture_count &&
           lvl->sprite_textures[sprite->texture].tile < lvl->textile_count;
}

// TR1 floor data: a word per entry header, function in bits 0..4, the
// last entry of a sector marked by bit 15; a floor or ceiling slant entry
// has one word of data, a portal ("door") entry one word: the room.
#define FD_FUNCTION(word) ((word) & 0x1f)
#define FD_END 0x8000u
enum { FD_DOOR = 1, FD_FLOOR_SLANT = 2, FD_CEILING_SLANT = 3 };

int cs_tr1_sector_door(const cs_tr1_level *lvl, const cs_tr1_sector *sector)
{
    const cs_tr1_blob *fd = &lvl->sections[CS_TR1_FLOOR_DATA];
    // Index 0 is the "no floor data" entry every plain sector points at.
    uint32_t i = sector->fd_index;
    if (i == 0 || !fd->bytes)
        return -1;
#define FD_WORD(k) ((uint16_t)(fd->bytes[2 * (size_t)(k)] | fd->bytes[2 * (size_t)(k) + 1] << 8))
    // The game's GetDoor: skip a floor slant, then a ceiling slant, then
    // a door is the next entry or there is none. The end bit is honoured
    // here (the game trusts its files), so a hostile file cannot walk on.
    static const int skip[2] = {FD_FLOOR_SLANT, FD_CEILING_SLANT};
    for (int s = 0; s < 2; s++) {
        if (i >= fd->count)
            return -1;
        uint16_t h = FD_WORD(i);
        if (FD_FUNCTION(h) != skip[s])
            continue;
        if (h & FD_END)
            return -1;
        i += 2;
    }
    if (i + 1 >= fd->count || FD_FUNCTION(FD_WORD(i)) != FD_DOOR)
        return -1;
    uint32_t room = FD_WORD(i + 1);
#undef FD_WORD
    return room < lvl->room_count ? (int)room : -1;
}

bool cs_tr1_sector_slants(const cs_tr1_level *lvl, const cs_tr1_sector *sector, cs_tr1_slant *floor,
                          cs_tr1_slant *ceiling)
{
    *floor = *ceiling = (cs_tr1_slant){0, 0};
    const cs_tr1_blob *fd = &lvl->sections[CS_TR1_FLOOR_DATA];
    uint32_t i = sector->fd_index;
    if (i == 0 || !fd->bytes)
        return false;
#define FD_WORD(k) ((uint16_t)(fd->bytes[2 * (size_t)(k)] | fd->bytes[2 * (size_t)(k) + 1] << 8))
    // The order GetDoor skips them in: a floor slant, then a ceiling slant.
    bool found = false;
    cs_tr1_slant *out[2] = {floor, ceiling};
    static const int function[2] = {FD_FLOOR_SLANT, FD_CEILING_SLANT};
    for (int s = 0; s < 2; s++) {
        if (i + 1 >= fd->count)
            break;
        uint16_t h = FD_WORD(i);
        if (FD_FUNCTION(h) != function[s])
            continue;
        uint16_t data = FD_WORD(i + 1);
        *out[s] = (cs_tr1_slant){(int8_t)(data & 0xff), (int8_t)(data >> 8)};
        found = true;
        if (h & FD_END)
            break;
        i += 2;
    }
#undef FD_WORD
    return found;
}

// Per slope unit, a click (256 units) across the sector's 1024: a quarter
// of a unit per unit of offset.
double cs_tr1_floor_height(const cs_tr1_sector *s, cs_tr1_slant slant, double lx, double lz)
{
    double h = s->floor * 256.0;
    h += slant.z < 0 ? -slant.z * lz / 4.0 : slant.z * (1024.0 - lz) / 4.0;
    h += slant.x < 0 ? -slant.x * lx / 4.0 : slant.x * (1024.0 - lx) / 4.0;
    return h;
}

double cs_tr1_ceiling_height(const cs_tr1_sector *s, cs_tr1_slant slant, double lx, double lz)
{
    double h = s->ceiling * 256.0;
    h += slant.z < 0 ? slant.z * lz / 4.0 : -slant.z * (1024.0 - lz) / 4.0;
    h += slant.x < 0 ? slant.x * (1024.0 - lx) / 4.0 : -slant.x * lx / 4.0;
    return h;
}

void cs_tr1_room_free(cs_tr1_room *room)
{
    free(room->vertices);
    free(room->rects);
    free(room->tris);
    free(room->sprites);
    free(room->portals);
    free(room->sectors);
    free(room->lights);
    free(room->meshes);
    free(room->extra_data);
    memset(room, 0, sizeof *room);
}

void cs_tr1_free(cs_tr1_level *lvl)
{
    if (lvl->rooms)
        for (uint32_t i = 0; i < lvl->room_count; i++)
            cs_tr1_room_free(&lvl->rooms[i]);
    free(lvl->rooms);
    free(lvl->textiles);
    free(lvl->object_textures);
    free(lvl->sprite_textures);
    free(lvl->anim_ranges);
    free(lvl->anim_textures);
    for (int s = 0; s < CS_TR1_SECTION_COUNT; s++)
        free(lvl->sections[s].bytes);
    memset(lvl, 0, sizeof *lvl);
}

bool cs_tr1_set_animated_textures(cs_tr1_level *lvl, const uint16_t *const *ranges, const uint32_t *counts,
                                  uint32_t range_count)
{
    uint64_t words = 1, textures = 0;
    for (uint32_t i = 0; i < range_count; i++) {
        if (counts[i] < 1 || counts[i] > 65536)
            return false;
        words += 1 + counts[i];
        textures += counts[i];
    }
    if (range_count > 0xffff || words > 0xffffffffull / 2)
        return false;
    uint8_t *bytes = malloc((size_t)words * 2);
    cs_tr1_anim_range *out_ranges = malloc((range_count ? range_count : 1) * sizeof *out_ranges);
    uint16_t *out_textures = malloc((textures ? textures : 1) * sizeof *out_textures);
    CS_ASSERT(bytes && out_ranges && out_textures, "out of memory for %llu animated texture words",
              (unsigned long long)words);
    size_t w = 0;
    uint32_t t = 0;
#define PUT(v) (bytes[2 * w] = (uint8_t)((v) & 0xff), bytes[2 * w + 1] = (uint8_t)((v) >> 8), w++)
    PUT(range_count);
    for (uint32_t i = 0; i < range_count; i++) {
        PUT(counts[i] - 1);
        out_ranges[i] = (cs_tr1_anim_range){.first = t, .count = counts[i]};
        for (uint32_t k = 0; k < counts[i]; k++) {
            PUT(ranges[i][k]);
            out_textures[t++] = ranges[i][k];
        }
    }
#undef PUT
    cs_tr1_blob *b = &lvl->sections[CS_TR1_ANIMATED_TEXTURES];
    free(b->bytes);
    b->bytes = bytes;
    b->count = (uint32_t)words;
    b->size = (size_t)words * 2;
    free(lvl->anim_ranges);
    free(lvl->anim_textures);
    lvl->anim_ranges = out_ranges;
    lvl->anim_range_count = range_count;
    lvl->anim_textures = out_textures;
    lvl->anim_texture_count = t;
    return true;
}

// ---- writing ----------------------------------------------------------------

typedef struct writer {
    uint8_t *d;
    size_t size, cap;
    bool ok;
} writer;

static void put_bytes(writer *w, const void *src, size_t n)
{
    if (!w->ok)
        return;
    if (w->size + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->size + n)
            cap *= 2;
        uint8_t *d = realloc(w->d, cap);
        if (!d) {
            w->ok = false;
            return;
        }
        w->d = d;
        w->cap = cap;
    }
    if (n)
        memcpy(w->d + w->size, src, n);
    w->size += n;
}
static void put_u8(writer *w, uint8_t v) { put_bytes(w, &v, 1); }
static void put_u16(writer *w, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put_bytes(w, b, 2);
}
static void put_u32(writer *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put_bytes(w, b, 4);
}
static void put_i16(writer *w, int16_t v) { put_u16(w, (uint16_t)v); }
static void put_i32(writer *w, int32_t v) { put_u32(w, (uint32_t)v); }

static bool room_fits(const cs_tr1_room *room)
{
    return room->vertex_count <= INT16_MAX && room->rect_count <= INT16_MAX && room->tri_count <= INT16_MAX &&
           room->sprite_count <= INT16_MAX && room->portal_count <= UINT16_MAX &&
           room->light_count <= UINT16_MAX && room->mesh_count <= UINT16_MAX && room->extra_data_size % 2 == 0 &&
           room->extra_data_size <= UINT32_MAX / 2 && (room->extra_data_size == 0 || room->extra_data);
}

static void write_room(writer *w, const cs_tr1_room *room)
{
    put_i32(w, room->x);
    put_i32(w, room->z);
    put_i32(w, room->y_bottom);
    put_i32(w, room->y_top);
    size_t bytes = 8 + (size_t)room->vertex_count * 8 + (size_t)room->rect_count * 10 +
                   (size_t)room->tri_count * 8 + (size_t)room->sprite_count * 4 + room->extra_data_size;
    put_u32(w, (uint32_t)(bytes / 2));
    put_u16(w, (uint16_t)room->vertex_count);
    for (uint32_t i = 0; i < room->vertex_count; i++) {
        const cs_tr1_vertex *v = &room->vertices[i];
        put_i16(w, v->x);
        put_i16(w, v->y);
        put_i16(w, v->z);
        put_i16(w, v->lighting);
    }
    put_u16(w, (uint16_t)room->rect_count);
    for (uint32_t i = 0; i < room->rect_count; i++) {
        for (int k = 0; k < 4; k++)
            put_u16(w, room->rects[i].vertices[k]);
        put_u16(w, room->rects[i].texture);
    }
    put_u16(w, (uint16_t)room->tri_count);
    for (uint32_t i = 0; i < room->tri_count; i++) {
        for (int k = 0; k < 3; k++)
            put_u16(w, room->tris[i].vertices[k]);
        put_u16(w, room->tris[i].texture);
    }
    put_u16(w, (uint16_t)room->sprite_count);
    for (uint32_t i = 0; i < room->sprite_count; i++) {
        put_i16(w, room->sprites[i].vertex);
        put_i16(w, room->sprites[i].texture);
    }
    put_bytes(w, room->extra_data, room->extra_data_size); // the block's bytes after the geometry, as read
    put_u16(w, (uint16_t)room->portal_count);
    for (uint32_t i = 0; i < room->portal_count; i++) {
        const cs_tr1_portal *p = &room->portals[i];
        put_u16(w, p->adjoining_room);
        for (int k = 0; k < 3; k++)
            put_i16(w, p->normal[k]);
        for (int v = 0; v < 4; v++)
            for (int k = 0; k < 3; k++)
                put_i16(w, p->vertices[v][k]);
    }
    put_u16(w, room->z_sectors);
    put_u16(w, room->x_sectors);
    for (uint32_t i = 0; i < (uint32_t)room->z_sectors * room->x_sectors; i++) {
        const cs_tr1_sector *s = &room->sectors[i];
        put_u16(w, s->fd_index);
        put_u16(w, s->box_index);
        put_u8(w, s->room_below);
        put_u8(w, (uint8_t)s->floor);
        put_u8(w, s->room_above);
        put_u8(w, (uint8_t)s->ceiling);
    }
    put_i16(w, room->ambient);
    put_u16(w, (uint16_t)room->light_count);
    for (uint32_t i = 0; i < room->light_count; i++) {
        const cs_tr1_light *l = &room->lights[i];
        put_i32(w, l->x);
        put_i32(w, l->y);
        put_i32(w, l->z);
        put_i16(w, l->intensity);
        put_u32(w, l->fade);
    }
    put_u16(w, (uint16_t)room->mesh_count);
    for (uint32_t i = 0; i < room->mesh_count; i++) {
        const cs_tr1_room_mesh *m = &room->meshes[i];
        put_i32(w, m->x);
        put_i32(w, m->y);
        put_i32(w, m->z);
        put_u16(w, m->rotation);
        put_u16(w, m->intensity);
        put_u16(w, m->mesh_id);
    }
    put_i16(w, room->alternate_room);
    put_i16(w, room->flags);
}

bool cs_tr1_write(const cs_tr1_level *lvl, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    if (lvl->room_count > UINT16_MAX)
        return false;
    for (uint32_t i = 0; i < lvl->room_count; i++)
        if (!room_fits(&lvl->rooms[i]))
            return false;
    for (int s = 0; s < CS_TR1_SECTION_COUNT; s++) {
        const section_info *info = &sections[s];
        const cs_tr1_blob *b = &lvl->sections[s];
        uint32_t count = info->kind == OBJECT_TEXTURES   ? lvl->object_texture_count
                         : info->kind == SPRITE_TEXTURES ? lvl->sprite_texture_count
                         : s == CS_TR1_ZONES             ? lvl->sections[CS_TR1_BOXES].count
                         : info->count_bytes == 0        ? 1
                                                         : b->count;
        if (info->count_bytes == 2 && count > UINT16_MAX)
            return false;
        if (info->kind == RAW && (b->size != (size_t)count * info->elem_bytes || (b->size && !b->bytes)))
            return false;
    }

    writer w = {.ok = true};
    put_u32(&w, CS_TR1_VERSION);
    put_u32(&w, lvl->textile_count);
    put_bytes(&w, lvl->textiles, (size_t)lvl->textile_count * CS_TR1_TEXTILE_BYTES);
    put_u32(&w, lvl->unused);
    put_u16(&w, (uint16_t)lvl->room_count);
    for (uint32_t i = 0; i < lvl->room_count; i++)
        write_room(&w, &lvl->rooms[i]);
    cs_tr1_section order[CS_TR1_SECTION_COUNT];
    section_order(lvl->demo_palette, order);
    for (int o = 0; o < CS_TR1_SECTION_COUNT; o++) {
        cs_tr1_section s = order[o];
        const section_info *info = &sections[s];
        const cs_tr1_blob *b = &lvl->sections[s];
        if (info->kind == OBJECT_TEXTURES) {
            put_u32(&w, lvl->object_texture_count);
            for (uint32_t i = 0; i < lvl->object_texture_count; i++) {
                const cs_tr1_object_texture *t = &lvl->object_textures[i];
                put_u16(&w, t->attribute);
                put_u16(&w, t->tile);
                put_bytes(&w, t->uv, 16);
            }
        } else if (info->kind == SPRITE_TEXTURES) {
            put_u32(&w, lvl->sprite_texture_count);
            for (uint32_t i = 0; i < lvl->sprite_texture_count; i++) {
                const cs_tr1_sprite_texture *t = &lvl->sprite_textures[i];
                put_u16(&w, t->tile);
                put_u8(&w, t->x);
                put_u8(&w, t->y);
                put_u16(&w, t->width);
                put_u16(&w, t->height);
                put_i16(&w, t->left);
                put_i16(&w, t->top);
                put_i16(&w, t->right);
                put_i16(&w, t->bottom);
            }
        } else if (info->kind == PALETTE) {
            put_bytes(&w, lvl->palette, 768);
        } else {
            if (info->count_bytes == 4)
                put_u32(&w, b->count);
            else if (info->count_bytes == 2)
                put_u16(&w, (uint16_t)b->count);
            put_bytes(&w, b->bytes, b->size);
        }
    }
    if (!w.ok) {
        free(w.d);
        return false;
    }
    *data = w.d;
    *size = w.size;
    return true;
}

cs_tr1_stats cs_tr1_count(const cs_tr1_level *lvl)
{
    cs_tr1_stats s = {0};
    s.rooms = lvl->room_count;
    for (uint32_t i = 0; i < lvl->room_count; i++) {
        const cs_tr1_room *room = &lvl->rooms[i];
        s.portals += room->portal_count;
        s.sectors += (uint32_t)room->z_sectors * room->x_sectors;
        s.vertices += room->vertex_count;
        s.rects += room->rect_count;
        s.tris += room->tri_count;
        s.sprites += room->sprite_count;
        s.lights += room->light_count;
        s.room_meshes += room->mesh_count;
    }
    s.textiles = lvl->textile_count;
    s.object_textures = lvl->object_texture_count;
    s.sprite_textures = lvl->sprite_texture_count;
    s.meshes = lvl->sections[CS_TR1_MESH_POINTERS].count;
    s.static_meshes = lvl->sections[CS_TR1_STATIC_MESHES].count;
    s.moveables = lvl->sections[CS_TR1_MOVEABLES].count;
    s.entities = lvl->sections[CS_TR1_ENTITIES].count;
    return s;
}
