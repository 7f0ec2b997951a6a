// test_level.c — the Tomb Raider 1 level reader, writer and demo generator.
// CPU only: no Vulkan context is created. No game file is used: every level
// here is the generated demo level or a variant of it.
//
//   test_level                    every check below, corpus replay included
//   test_level --corpus PATH..    only replays files (or folders of files)
//                                 through read (+ write when accepted); used
//                                 by tests/fuzz_replay.sh under valgrind
//   test_level --write-corpus DIR writes the seed corpus (tests/fuzz/corpus/tr1)
// ctest labels: quick -- 0.03
#define _POSIX_C_SOURCE 200809L
#include "level_mesh.h"
#include "level_tr1.h"
#include "panel.h"
#include "test_util.h"

#include <math.h>

#include <dirent.h>
#include <sys/stat.h>

#define DEMO_PATH CS_SOURCE_DIR "/levels/cistern_demo.phd"
#define CORPUS_DIR CS_SOURCE_DIR "/tests/fuzz/corpus/tr1"

typedef struct bytes {
    uint8_t *d;
    size_t n;
} bytes;

static bytes demo_bytes(void)
{
    cs_tr1_level lvl;
    cs_tr1_generate_demo(&lvl);
    bytes b = {0};
    bool ok = cs_tr1_write(&lvl, &b.d, &b.n);
    CS_ASSERT(ok, "cannot write the demo level");
    cs_tr1_free(&lvl);
    return b;
}

// ---- every field ------------------------------------------------------------

#define SAME(a, b, what, ...)                                                  \
    do {                                                                       \
        if ((a) != (b)) {                                                      \
            CHECK((a) == (b), what, __VA_ARGS__);                              \
            return false;                                                      \
        }                                                                      \
    } while (0)
#define SAME_BYTES(a, b, n, what, ...)                                         \
    do {                                                                       \
        if ((n) != 0 && memcmp((a), (b), (n)) != 0) {                             \
            CHECK(false, what, __VA_ARGS__);                                   \
            return false;                                                      \
        }                                                                      \
    } while (0)

static bool same_room(const cs_tr1_room *a, const cs_tr1_room *b, uint32_t i)
{
    SAME(a->x, b->x, "rooms[%u].x", i);
    SAME(a->z, b->z, "rooms[%u].z", i);
    SAME(a->y_bottom, b->y_bottom, "rooms[%u].y_bottom", i);
    SAME(a->y_top, b->y_top, "rooms[%u].y_top", i);
    SAME(a->vertex_count, b->vertex_count, "rooms[%u].vertex_count", i);
    SAME(a->rect_count, b->rect_count, "rooms[%u].rect_count", i);
    SAME(a->tri_count, b->tri_count, "rooms[%u].tri_count", i);
    SAME(a->sprite_count, b->sprite_count, "rooms[%u].sprite_count", i);
    SAME(a->portal_count, b->portal_count, "rooms[%u].portal_count", i);
    SAME(a->light_count, b->light_count, "rooms[%u].light_count", i);
    SAME(a->mesh_count, b->mesh_count, "rooms[%u].mesh_count", i);
    SAME(a->z_sectors, b->z_sectors, "rooms[%u].z_sectors", i);
    SAME(a->x_sectors, b->x_sectors, "rooms[%u].x_sectors", i);
    for (uint32_t k = 0; k < a->vertex_count; k++) {
        const cs_tr1_vertex *p = &a->vertices[k], *q = &b->vertices[k];
        SAME(p->x, q->x, "rooms[%u].vertices[%u].x", i, k);
        SAME(p->y, q->y, "rooms[%u].vertices[%u].y", i, k);
        SAME(p->z, q->z, "rooms[%u].vertices[%u].z", i, k);
        SAME(p->lighting, q->lighting, "rooms[%u].vertices[%u].lighting", i, k);
    }
    for (uint32_t k = 0; k < a->rect_count; k++) {
        for (int v = 0; v < 4; v++)
            SAME(a->rects[k].vertices[v], b->rects[k].vertices[v], "rooms[%u].rectangles[%u].vertices[%d]", i, k, v);
        SAME(a->rects[k].texture, b->rects[k].texture, "rooms[%u].rectangles[%u].texture", i, k);
    }
    for (uint32_t k = 0; k < a->tri_count; k++) {
        for (int v = 0; v < 3; v++)
            SAME(a->tris[k].vertices[v], b->tris[k].vertices[v], "rooms[%u].triangles[%u].vertices[%d]", i, k, v);
        SAME(a->tris[k].texture, b->tris[k].texture, "rooms[%u].triangles[%u].texture", i, k);
    }
    for (uint32_t k = 0; k < a->sprite_count; k++) {
        SAME(a->sprites[k].vertex, b->sprites[k].vertex, "rooms[%u].sprites[%u].vertex", i, k);
        SAME(a->sprites[k].texture, b->sprites[k].texture, "rooms[%u].sprites[%u].texture", i, k);
    }
    for (uint32_t k = 0; k < a->portal_count; k++) {
        const cs_tr1_portal *p = &a->portals[k], *q = &b->portals[k];
        SAME(p->adjoining_room, q->adjoining_room, "rooms[%u].portals[%u].adjoining_room", i, k);
        for (int c = 0; c < 3; c++)
            SAME(p->normal[c], q->normal[c], "rooms[%u].portals[%u].normal[%d]", i, k, c);
        for (int v = 0; v < 4; v++)
            for (int c = 0; c < 3; c++)
                SAME(p->vertices[v][c], q->vertices[v][c], "rooms[%u].portals[%u].vertices[%d][%d]", i, k, v, c);
    }
    for (uint32_t k = 0; k < (uint32_t)a->z_sectors * a->x_sectors; k++) {
        const cs_tr1_sector *p = &a->sectors[k], *q = &b->sectors[k];
        SAME(p->fd_index, q->fd_index, "rooms[%u].sectors[%u].fd_index", i, k);
        SAME(p->box_index, q->box_index, "rooms[%u].sectors[%u].box_index", i, k);
        SAME(p->room_below, q->room_below, "rooms[%u].sectors[%u].room_below", i, k);
        SAME(p->floor, q->floor, "rooms[%u].sectors[%u].floor", i, k);
        SAME(p->room_above, q->room_above, "rooms[%u].sectors[%u].room_above", i, k);
        SAME(p->ceiling, q->ceiling, "rooms[%u].sectors[%u].ceiling", i, k);
    }
    SAME(a->ambient, b->ambient, "rooms[%u].ambient", i);
    for (uint32_t k = 0; k < a->light_count; k++) {
        const cs_tr1_light *p = &a->lights[k], *q = &b->lights[k];
        SAME(p->x, q->x, "rooms[%u].lights[%u].x", i, k);
        SAME(p->y, q->y, "rooms[%u].lights[%u].y", i, k);
        SAME(p->z, q->z, "rooms[%u].lights[%u].z", i, k);
        SAME(p->intensity, q->intensity, "rooms[%u].lights[%u].intensity", i, k);
        SAME(p->fade, q->fade, "rooms[%u].lights[%u].fade", i, k);
    }
    for (uint32_t k = 0; k < a->mesh_count; k++) {
        const cs_tr1_room_mesh *p = &a->meshes[k], *q = &b->meshes[k];
        SAME(p->x, q->x, "rooms[%u].static_meshes[%u].x", i, k);
        SAME(p->y, q->y, "rooms[%u].static_meshes[%u].y", i, k);
        SAME(p->z, q->z, "rooms[%u].static_meshes[%u].z", i, k);
        SAME(p->rotation, q->rotation, "rooms[%u].static_meshes[%u].rotation", i, k);
        SAME(p->intensity, q->intensity, "rooms[%u].static_meshes[%u].intensity", i, k);
        SAME(p->mesh_id, q->mesh_id, "rooms[%u].static_meshes[%u].mesh_id", i, k);
    }
    SAME(a->alternate_room, b->alternate_room, "rooms[%u].alternate_room", i);
    SAME(a->flags, b->flags, "rooms[%u].flags", i);
    return true;
}

static bool same_level(const cs_tr1_level *a, const cs_tr1_level *b)
{
    SAME(a->textile_count, b->textile_count, "textile_count%s", "");
    SAME_BYTES(a->textiles, b->textiles, (size_t)a->textile_count * CS_TR1_TEXTILE_BYTES, "textiles%s", "");
    SAME(a->unused, b->unused, "unused%s", "");
    SAME(a->room_count, b->room_count, "room_count%s", "");
    for (uint32_t i = 0; i < a->room_count; i++)
        if (!same_room(&a->rooms[i], &b->rooms[i], i))
            return false;
    for (int s = 0; s < CS_TR1_SECTION_COUNT; s++) {
        const cs_tr1_blob *p = &a->sections[s], *q = &b->sections[s];
        SAME(p->count, q->count, "%s.count", cs_tr1_section_name((cs_tr1_section)s));
        SAME(p->size, q->size, "%s.size", cs_tr1_section_name((cs_tr1_section)s));
        if (p->bytes && q->bytes)
            SAME_BYTES(p->bytes, q->bytes, p->size, "%s bytes", cs_tr1_section_name((cs_tr1_section)s));
    }
    SAME(a->object_texture_count, b->object_texture_count, "object_texture_count%s", "");
    for (uint32_t i = 0; i < a->object_texture_count; i++) {
        SAME(a->object_textures[i].attribute, b->object_textures[i].attribute, "object_textures[%u].attribute", i);
        SAME(a->object_textures[i].tile, b->object_textures[i].tile, "object_textures[%u].tile", i);
        SAME_BYTES(a->object_textures[i].uv, b->object_textures[i].uv, 16, "object_textures[%u].uv", i);
    }
    SAME(a->anim_range_count, b->anim_range_count, "anim_range_count%s", "");
    for (uint32_t i = 0; i < a->anim_range_count; i++) {
        SAME(a->anim_ranges[i].first, b->anim_ranges[i].first, "animated_textures.ranges[%u].first", i);
        SAME(a->anim_ranges[i].count, b->anim_ranges[i].count, "animated_textures.ranges[%u].count", i);
    }
    SAME(a->anim_texture_count, b->anim_texture_count, "anim_texture_count%s", "");
    for (uint32_t i = 0; i < a->anim_texture_count; i++)
        SAME(a->anim_textures[i], b->anim_textures[i], "anim_textures[%u]", i);
    SAME(a->sprite_texture_count, b->sprite_texture_count, "sprite_texture_count%s", "");
    for (uint32_t i = 0; i < a->sprite_texture_count; i++) {
        const cs_tr1_sprite_texture *p = &a->sprite_textures[i], *q = &b->sprite_textures[i];
        SAME(p->tile, q->tile, "sprite_textures[%u].tile", i);
        SAME(p->x, q->x, "sprite_textures[%u].x", i);
        SAME(p->y, q->y, "sprite_textures[%u].y", i);
        SAME(p->width, q->width, "sprite_textures[%u].width", i);
        SAME(p->height, q->height, "sprite_textures[%u].height", i);
        SAME(p->left, q->left, "sprite_textures[%u].left", i);
        SAME(p->top, q->top, "sprite_textures[%u].top", i);
        SAME(p->right, q->right, "sprite_textures[%u].right", i);
        SAME(p->bottom, q->bottom, "sprite_textures[%u].bottom", i);
    }
    SAME_BYTES(a->palette, b->palette, 768, "palette%s", "");
    return true;
}

static void test_round_trip(void)
{
    cs_tr1_level gen, back;
    cs_tr1_generate_demo(&gen);
    bytes b = {0};
    CHECK(cs_tr1_write(&gen, &b.d, &b.n), "write the demo level");
    cs_error err;
    bool ok = cs_tr1_read(b.d, b.n, "demo.phd", &back, &err);
    CHECK(ok, "read the demo level back: %s", err.msg);
    if (ok) {
        CHECK(same_level(&gen, &back), "every field of the demo level read back as written");
        bytes again = {0};
        CHECK(cs_tr1_write(&back, &again.d, &again.n), "write what was read");
        CHECK(again.n == b.n && memcmp(again.d, b.d, b.n) == 0, "write(read(x)) == x (%zu vs %zu bytes)", again.n, b.n);
        free(again.d);
        cs_tr1_stats s = cs_tr1_count(&back);
        printf("demo level: %zu bytes, %u rooms, %u portals, %u sectors, %u vertices, %u rectangles, %u triangles, "
               "%u sprites, %u lights, %u room meshes, %u textiles, %u object textures, %u sprite textures, %u meshes\n",
               b.n, s.rooms, s.portals, s.sectors, s.vertices, s.rects, s.tris, s.sprites, s.lights, s.room_meshes,
               s.textiles, s.object_textures, s.sprite_textures, s.meshes);
        CHECK(s.rooms >= 4 && s.portals >= 6 && s.tris > 0 && s.sprites > 0 && s.room_meshes > 0 && s.meshes == 2,
              "the demo level has rooms, portals, triangles, sprites and static meshes");
        // Rooms on different heights.
        bool heights = false;
        for (uint32_t i = 1; i < back.room_count; i++)
            heights |= back.rooms[i].y_bottom != back.rooms[0].y_bottom;
        CHECK(heights, "rooms on different heights");
        // One animated texture range, read back from the file: the wet
        // floor's two frames.
        CHECK(back.anim_range_count == 1 && back.anim_ranges[0].count == 2 && back.anim_textures[0] == 4 &&
                  back.anim_textures[1] == 5,
              "the demo level's animated texture range {4, 5} (%u ranges)", back.anim_range_count);
        cs_tr1_free(&back);
    }
    cs_tr1_free(&gen);

    // Regenerating gives the shipped file, byte for byte.
    size_t n = 0;
    char *shipped = cs_read_file(DEMO_PATH, &n, &err);
    CHECK(shipped, "%s", err.msg);
    if (shipped)
        CHECK(n == b.n && memcmp(shipped, b.d, n) == 0,
              "levels/cistern_demo.phd is what the generator makes (%zu vs %zu bytes; regenerate with "
              "`cistern level --generate levels/cistern_demo.phd`)", n, b.n);
    free(shipped);
    free(b.d);
}

// The writer refuses what TR1 cannot hold instead of truncating a count.
static void test_writer_refuses(void)
{
    cs_tr1_level lvl;
    cs_tr1_generate_demo(&lvl);
    uint8_t *d = NULL;
    size_t n = 0;
    uint32_t saved = lvl.rooms[1].vertex_count;
    lvl.rooms[1].vertex_count = 40000; // i16 count
    CHECK(!cs_tr1_write(&lvl, &d, &n) && !d && n == 0, "a room of 40000 vertices is refused");
    lvl.rooms[1].vertex_count = saved;
    lvl.sections[CS_TR1_FLOOR_DATA].size = 3; // not count x 2 bytes
    CHECK(!cs_tr1_write(&lvl, &d, &n) && !d, "a raw section whose size is not count x element is refused");
    lvl.sections[CS_TR1_FLOOR_DATA].size = 2;
    CHECK(cs_tr1_write(&lvl, &d, &n) && d && n > 0, "restored, it writes again");
    free(d);
    cs_tr1_free(&lvl);
}

// Every portal of room a to room b has a partner in b to a whose quad is
// the same four points in world space, facing the other way.
static void test_portals(void)
{
    cs_tr1_level lvl;
    cs_tr1_generate_demo(&lvl);
    uint32_t checked = 0;
    for (uint32_t a = 0; a < lvl.room_count; a++) {
        const cs_tr1_room *ra = &lvl.rooms[a];
        for (uint32_t i = 0; i < ra->portal_count; i++) {
            const cs_tr1_portal *p = &ra->portals[i];
            const cs_tr1_room *rb = &lvl.rooms[p->adjoining_room];
            bool found = false;
            for (uint32_t j = 0; j < rb->portal_count && !found; j++) {
                const cs_tr1_portal *q = &rb->portals[j];
                if (q->adjoining_room != a)
                    continue;
                bool same = true;
                for (int v = 0; v < 4; v++) {
                    bool any = false;
                    for (int w = 0; w < 4; w++)
                        any |= p->vertices[v][0] + ra->x == q->vertices[w][0] + rb->x &&
                               p->vertices[v][1] == q->vertices[w][1] &&
                               p->vertices[v][2] + ra->z == q->vertices[w][2] + rb->z;
                    same &= any;
                }
                for (int c = 0; c < 3; c++)
                    same &= p->normal[c] == -q->normal[c];
                found = same;
            }
            CHECK(found, "rooms[%u].portals[%u] (to room %u) has a coinciding, opposite portal back", a, i,
                  p->adjoining_room);
            // The quad lies on the portal's plane, inside both rooms' sector grids.
            int axis = p->normal[0] ? 0 : p->normal[1] ? 1 : 2;
            for (int v = 1; v < 4; v++)
                CHECK(p->vertices[v][axis] == p->vertices[0][axis], "rooms[%u].portals[%u] is planar", a, i);
            checked++;
        }
    }
    CHECK(checked == 6, "6 portal sides checked (got %u)", checked);
    cs_tr1_free(&lvl);
}

// ---- malformed variants -----------------------------------------------------

static void set16(bytes *b, size_t at, uint16_t v)
{
    b->d[at] = (uint8_t)v;
    b->d[at + 1] = (uint8_t)(v >> 8);
}
static void set32(bytes *b, size_t at, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        b->d[at + k] = (uint8_t)(v >> (8 * k));
}

// Where a room's fields sit in the file (the demo level's layout).
typedef struct room_at {
    size_t info, words, data, rects, tris, sprites, geometry_end, portals, sector_counts, sectors, ambient, lights,
        meshes, alternate;
} room_at;

static room_at room_offsets(const cs_tr1_room *r)
{
    room_at o;
    o.data = r->data_offset;
    o.info = o.data - 20;
    o.words = o.data - 4;
    o.rects = o.data + 2 + (size_t)r->vertex_count * 8; // the count
    o.tris = o.rects + 2 + (size_t)r->rect_count * 10;
    o.sprites = o.tris + 2 + (size_t)r->tri_count * 8;
    o.geometry_end = o.sprites + 2 + (size_t)r->sprite_count * 4;
    o.portals = o.geometry_end;
    o.sector_counts = o.portals + 2 + (size_t)r->portal_count * 32;
    o.sectors = o.sector_counts + 4;
    o.ambient = o.sectors + (size_t)r->z_sectors * r->x_sectors * 8;
    o.lights = o.ambient + 2;
    o.meshes = o.lights + 2 + (size_t)r->light_count * 18;
    o.alternate = o.meshes + 2 + (size_t)r->mesh_count * 18;
    return o;
}

static uint32_t malformed_count;

// Refused, with "level.phd: byte AT: FIELD" and `what` in the message.
static void expect_refused(const char *name, const bytes *b, size_t at, const char *field, const char *what)
{
    cs_tr1_level lvl;
    cs_error err;
    err.msg[0] = 0;
    bool ok = cs_tr1_read(b->d, b->n, "level.phd", &lvl, &err);
    char prefix[128];
    snprintf(prefix, sizeof prefix, "level.phd: byte %zu: %s", at, field);
    CHECK(!ok, "%s: refused", name);
    CHECK(strncmp(err.msg, prefix, strlen(prefix)) == 0, "%s: message starts with \"%s\": got \"%s\"", name, prefix,
          err.msg);
    CHECK(!what || strstr(err.msg, what), "%s: message says \"%s\": got \"%s\"", name, what ? what : "", err.msg);
    if (ok)
        cs_tr1_free(&lvl);
    malformed_count++;
}

static bytes copy_of(const bytes *b, size_t n)
{
    bytes c = {malloc(n ? n : 1), n};
    memcpy(c.d, b->d, CS_MIN(n, b->n));
    if (n > b->n)
        memset(c.d + b->n, 0, n - b->n);
    return c;
}

static void test_malformed(void)
{
    bytes base = demo_bytes();
    cs_tr1_level lvl;
    cs_error err;
    CS_ASSERT(cs_tr1_read(base.d, base.n, "level.phd", &lvl, &err), "%s", err.msg);
    room_at r0 = room_offsets(&lvl.rooms[0]), r1 = room_offsets(&lvl.rooms[1]), r2 = room_offsets(&lvl.rooms[2]),
            r3 = room_offsets(&lvl.rooms[3]);
    const cs_tr1_room *room0 = &lvl.rooms[0];
    const size_t textiles_end = 8 + 2 * (size_t)CS_TR1_TEXTILE_BYTES;
    bytes c;
#define CASE(name, size, edit, at, field, what)                                \
    do {                                                                       \
        c = copy_of(&base, (size));                                            \
        edit;                                                                  \
        expect_refused(name, &c, (at), field, what);                           \
        free(c.d);                                                             \
    } while (0)
#define SEC(s) (lvl.sections[s].offset)
    size_t n = base.n;

    CASE("empty file", 0, (void)0, 0, "version", "needs 4 bytes");
    CASE("3 bytes", 3, (void)0, 0, "version", "truncated");
    CASE("TR2 version", n, set32(&c, 0, 0x2d), 0, "version", "0x0000002d");
    CASE("zero version", n, set32(&c, 0, 0), 0, "version", "not a Tomb Raider 1 level");
    CASE("textile count beyond the file", n, set32(&c, 4, 1000), 4, "textiles", "count 1000");
    CASE("truncated in the textiles", 1000, (void)0, 4, "textiles", "only 992 are left");
    CASE("truncated before unused", textiles_end, (void)0, textiles_end, "unused", "needs 4 bytes");
    CASE("truncated in the room count", textiles_end + 5, (void)0, textiles_end + 4, "rooms", "needs 2 bytes");
    CASE("room count beyond the file", n, set16(&c, textiles_end + 4, 60000), textiles_end + 4, "rooms",
         "count 60000");
    CASE("truncated in room 3's info", r3.info + 10, (void)0, r3.info, "rooms[3].info", "needs 20 bytes");
    CASE("truncated in room 1's sectors", r1.sectors + 17, (void)0, r1.sector_counts, "rooms[1].sectors",
         "4 x 4 sectors x 8 bytes = 128 bytes, but only 17 are left");
    CASE("num_data_words beyond the file", n, set32(&c, r0.words, 0x7fffffff), r0.words, "rooms[0].num_data_words",
         "only");
    CASE("num_data_words short", n, set32(&c, r0.words, 1), r0.data, "rooms[0].vertices", "room's data block");
    CASE("negative vertex count", n, set16(&c, r0.data, 0x8000), r0.data, "rooms[0].vertices", "negative count");
    CASE("vertex count past the block", n, set16(&c, r0.data, (uint16_t)(room0->vertex_count + 1000)), r0.data,
         "rooms[0].vertices", "room's data block");
    CASE("rectangle vertex out of range", n, set16(&c, r0.rects + 2, (uint16_t)room0->vertex_count), r0.rects + 2,
         "rooms[0].rectangles[0].vertices[0]", "does not exist");
    CASE("rectangle vertex 0xffff", n, set16(&c, r0.rects + 2 + 2 * 10 + 6, 0xffff), r0.rects + 2 + 2 * 10 + 6,
         "rooms[0].rectangles[2].vertices[3]", "vertex 65535 does not exist");
    CASE("triangle vertex out of range", n, set16(&c, r0.tris + 2 + 8 + 4, 999), r0.tris + 2 + 8 + 4,
         "rooms[0].triangles[1].vertices[2]", "vertex 999");
    CASE("negative rectangle count", n, set16(&c, r0.rects, 0xffff), r0.rects, "rooms[0].rectangles",
         "negative count -1");
    CASE("rectangle texture out of range", n, set16(&c, r1.rects + 2 + 8, 6), r1.rects + 2 + 8,
         "rooms[1].rectangles[0].texture", "object texture 6 does not exist (6)");
    CASE("triangle texture out of range", n, set16(&c, r0.tris + 2 + 6, 100), r0.tris + 2 + 6,
         "rooms[0].triangles[0].texture", "object texture 100");
    CASE("portal to a missing room", n, set16(&c, r0.portals + 2 + 32, 17), r0.portals + 2 + 32,
         "rooms[0].portals[1].adjoining_room", "room 17 does not exist (4 rooms)");
    CASE("portal to itself", n, set16(&c, r1.portals + 2, 1), r1.portals + 2, "rooms[1].portals[0].adjoining_room",
         "to itself");
    CASE("portal count beyond the file", n, set16(&c, r0.portals, 0xffff), r0.portals, "rooms[0].portals",
         "count 65535");
    CASE("sector grid beyond the file", n, set16(&c, r0.sector_counts + 2, 0xffff), r0.sector_counts,
         "rooms[0].sectors", "4 x 65535 sectors");
    CASE("room below missing", n, c.d[r0.sectors + 5 * 8 + 4] = 9, r0.sectors + 5 * 8 + 4,
         "rooms[0].sectors[5].room_below", "room 9 does not exist");
    CASE("room above missing", n, c.d[r3.sectors + 8 + 6] = 200, r3.sectors + 8 + 6,
         "rooms[3].sectors[1].room_above", "room 200");
    CASE("light count beyond the file", n, set16(&c, r0.lights, 50000), r0.lights, "rooms[0].lights", "count 50000");
    CASE("static mesh count beyond the file", n, set16(&c, r1.meshes, 40000), r1.meshes, "rooms[1].static_meshes",
         "x 18 bytes");
    CASE("alternate room missing", n, set16(&c, r3.alternate, 4), r3.alternate, "rooms[3].alternate_room",
         "room 4 does not exist");
    CASE("alternate room -2", n, set16(&c, r2.alternate, 0xfffe), r2.alternate, "rooms[2].alternate_room", "-1 is none");
    CASE("floor data beyond the file", n, set32(&c, SEC(CS_TR1_FLOOR_DATA) - 4, 0x40000000),
         SEC(CS_TR1_FLOOR_DATA) - 4, "floor_data", "count 1073741824 x 2 bytes");
    CASE("mesh pointer past the mesh data", n, set32(&c, SEC(CS_TR1_MESH_POINTERS) + 4, 5000),
         SEC(CS_TR1_MESH_POINTERS) + 4, "mesh_pointers[1]", "past the mesh data");
    CASE("static mesh to a missing mesh", n, set16(&c, SEC(CS_TR1_STATIC_MESHES) + 32 + 4, 5),
         SEC(CS_TR1_STATIC_MESHES) + 32 + 4, "static_meshes[1].mesh", "mesh 5 does not exist (2 meshes)");
    CASE("object texture on a missing textile", n, set16(&c, SEC(CS_TR1_OBJECT_TEXTURES) + 2 * 20 + 2, 2),
         SEC(CS_TR1_OBJECT_TEXTURES) + 2 * 20 + 2, "object_textures[2].tile", "textile 2 does not exist (2 textiles)");
    CASE("sprite texture on a missing textile", n, set16(&c, SEC(CS_TR1_SPRITE_TEXTURES) + 16, 7),
         SEC(CS_TR1_SPRITE_TEXTURES) + 16, "sprite_textures[1].tile", "textile 7");
    CASE("animations count beyond the file", n, set32(&c, SEC(CS_TR1_ANIMATIONS) - 4, 100000),
         SEC(CS_TR1_ANIMATIONS) - 4, "animations", "x 32 bytes");
    CASE("boxes beyond the file", n, set32(&c, SEC(CS_TR1_BOXES) - 4, 0x10000000), SEC(CS_TR1_BOXES) - 4, "boxes",
         "x 20 bytes");
    CASE("palette component of 7 bits", n, c.d[SEC(CS_TR1_PALETTE) + 10 * 3 + 1] = 64, SEC(CS_TR1_PALETTE) + 31,
         "palette[10].g", "not a 6-bit component");
    CASE("truncated in the light map", SEC(CS_TR1_LIGHT_MAP) + 100, (void)0, SEC(CS_TR1_LIGHT_MAP), "light_map",
         "needs 8192 bytes");
    CASE("cinematic frames beyond the file", n, set16(&c, SEC(CS_TR1_CINEMATIC_FRAMES) - 2, 0xffff),
         SEC(CS_TR1_CINEMATIC_FRAMES) - 2, "cinematic_frames", "count 65535 x 16 bytes");
    CASE("demo data beyond the file", n, set16(&c, SEC(CS_TR1_DEMO_DATA) - 2, 2000), SEC(CS_TR1_DEMO_DATA) - 2,
         "demo_data", "count 2000 x 1 bytes");
    CASE("samples beyond the file", n, set32(&c, SEC(CS_TR1_SAMPLES) - 4, 9), SEC(CS_TR1_SAMPLES) - 4, "samples",
         "only 4 are left");
    CASE("last byte missing", n - 1, (void)0, n - 4, "sample_indices", "needs 4 bytes");
    CASE("one byte too many", n + 1, (void)0, n, "end", "1 bytes after the last section");
    // Animated textures: the demo's one range {4, 5} is 4 words (range
    // count 1, texture count - 1 = 1, 4, 5).
    size_t anim = SEC(CS_TR1_ANIMATED_TEXTURES);
    CASE("animated texture ranges beyond the words", n, set16(&c, anim, 5), anim, "animated_textures.ranges",
         "5 ranges need at least 11 words");
    CASE("animated texture range beyond the words", n, set16(&c, anim + 2, 7), anim + 2,
         "animated_textures.ranges[0].count", "8 textures need 8 words, 2 are left");
    CASE("animated texture missing", n, set16(&c, anim + 4, 99), anim + 4, "animated_textures.ranges[0].textures[0]",
         "object texture 99 does not exist (6)");
    CASE("words after the animated texture ranges", n, set16(&c, anim + 2, 0), anim + 6, "animated_textures",
         "1 words after the last range");
    // A room grid whose sector count overflows 16 bits: 65535 x 65535.
    CASE("huge sector grid", n, (set16(&c, r2.sector_counts, 0xffff), set16(&c, r2.sector_counts + 2, 0xffff)),
         r2.sector_counts, "rooms[2].sectors", "65535 x 65535");
#undef CASE
#undef SEC
    printf("malformed variants: %u, each refused with its byte offset and field\n", malformed_count);
    CHECK(malformed_count >= 30, "30+ malformed variants (got %u)", malformed_count);
    cs_tr1_free(&lvl);
    free(base.d);
}

// ---- tolerated oddities of real files ---------------------------------------

typedef enum fixture_kind { FIX_ANIM_PADDING, FIX_DEMO_PALETTE, FIX_SPRITES, FIX_DATA_WORDS, FIX_COUNT } fixture_kind;
static const char *const fixture_names[FIX_COUNT] = {"anim_padding", "demo_palette", "bad_sprites", "data_words"};

// Three zero words after the last animated texture range.
static void pad_animated_textures(cs_tr1_level *lvl, uint32_t words)
{
    cs_tr1_blob *b = &lvl->sections[CS_TR1_ANIMATED_TEXTURES];
    uint8_t *bytes = calloc(b->size + 2 * (size_t)words, 1);
    CS_ASSERT(bytes, "out of memory");
    memcpy(bytes, b->bytes, b->size);
    free(b->bytes);
    b->bytes = bytes;
    b->count += words;
    b->size += 2 * (size_t)words;
}

// The demo level (or a level given) with one kind of oddity, built in C and
// written by the writer: the file a real level with it would be.
static void add_oddity(cs_tr1_level *lvl, fixture_kind kind)
{
    switch (kind) {
    case FIX_ANIM_PADDING:
        pad_animated_textures(lvl, 3);
        break;
    case FIX_DEMO_PALETTE:
        lvl->demo_palette = true;
        break;
    case FIX_SPRITES: { // room 0's first sprite on vertex -2, room 2's second on sprite texture 7
        lvl->rooms[0].sprites[0].vertex = -2;
        cs_tr1_room *r = &lvl->rooms[CS_MIN(2u, lvl->room_count - 1)];
        r->sprites[r->sprite_count - 1].texture = 7;
        break;
    }
    case FIX_DATA_WORDS: { // room 1's block says 3 words more than its geometry
        cs_tr1_room *r = &lvl->rooms[1];
        r->extra_data_size = 6;
        r->extra_data = malloc(6);
        CS_ASSERT(r->extra_data, "out of memory");
        memcpy(r->extra_data, "\x01\x02\x03\x04\x05\x06", 6);
        break;
    }
    default:
        break;
    }
}

static const cs_tr1_oddity fixture_oddity[FIX_COUNT] = {CS_TR1_ODD_ANIM_PADDING, CS_TR1_ODD_DEMO_PALETTE,
                                                        CS_TR1_ODD_SPRITE, CS_TR1_ODD_DATA_WORDS};

// Each oddity: the file loads, is counted with a warning (and nothing
// else is), writes back byte for byte, and what it tolerated is kept.
static void test_tolerated(void)
{
    cs_tr1_level plain;
    cs_tr1_generate_demo(&plain);
    cs_level_mesh plain_mesh;
    cs_error err;
    CS_ASSERT(cs_level_mesh_build(&plain, 512, &plain_mesh, &err), "%s", err.msg);
    for (int k = 0; k < FIX_COUNT; k++) {
        cs_tr1_level lvl, back;
        cs_tr1_generate_demo(&lvl);
        add_oddity(&lvl, (fixture_kind)k);
        bytes b = {0};
        CHECK(cs_tr1_write(&lvl, &b.d, &b.n), "%s: the writer writes it", fixture_names[k]);
        bool ok = cs_tr1_read(b.d, b.n, "odd.phd", &back, &err);
        CHECK(ok, "%s: loads: %s", fixture_names[k], ok ? "" : err.msg);
        if (!ok) {
            cs_tr1_free(&lvl);
            free(b.d);
            continue;
        }
        for (int o = 0; o < CS_TR1_ODDITY_COUNT; o++) {
            uint32_t want = o != (int)fixture_oddity[k] ? 0 : k == FIX_SPRITES ? 2 : 1;
            CHECK(back.tolerated[o].count == want, "%s: oddity %d counted %u times, wanted %u", fixture_names[k], o,
                  back.tolerated[o].count, want);
        }
        char warnings[1024];
        uint32_t kinds = cs_tr1_warnings(&back, warnings, sizeof warnings);
        printf("%s: %zu bytes: %s\n", fixture_names[k], b.n, warnings);
        CHECK(kinds == 1 && strncmp(warnings, "warning: ", 9) == 0 && !strchr(warnings, '\n'),
              "%s: one warning line (%u): %s", fixture_names[k], kinds, warnings);
        CHECK(same_level(&lvl, &back), "%s: every field read back as written", fixture_names[k]);
        bytes again = {0};
        CHECK(cs_tr1_write(&back, &again.d, &again.n) && again.n == b.n && memcmp(again.d, b.d, b.n) == 0,
              "%s: write(read(x)) == x (%zu vs %zu bytes)", fixture_names[k], again.n, b.n);
        free(again.d);
        switch ((fixture_kind)k) {
        case FIX_ANIM_PADDING:
            CHECK(back.anim_range_count == 1 && back.anim_texture_count == 2, "anim_padding: the range {4, 5} kept");
            break;
        case FIX_DEMO_PALETTE: {
            // The palette sits right after the sprite sequences, and the
            // same level in the .PHD layout is a different file.
            const cs_tr1_blob *seq = &back.sections[CS_TR1_SPRITE_SEQUENCES];
            CHECK(back.demo_palette && back.sections[CS_TR1_PALETTE].offset == seq->offset + seq->size &&
                      back.sections[CS_TR1_CAMERAS].offset == seq->offset + seq->size + 768 + 4,
                  "demo_palette: the palette between the sprite sequences and the cameras");
            CHECK(memcmp(back.palette, plain.palette, 768) == 0, "demo_palette: the palette read");
            break;
        }
        case FIX_SPRITES: {
            // Kept for the writer, left out of what is drawn: 2 sprites of
            // 6 vertices fewer than the plain demo's mesh.
            cs_level_mesh mesh;
            bool built = cs_level_mesh_build(&back, 512, &mesh, &err);
            CHECK(built, "bad_sprites: the mesh builds: %s", built ? "" : err.msg);
            if (built) {
                CHECK(mesh.sprites_dropped == 2 && mesh.vertex_count + 12 == plain_mesh.vertex_count,
                      "bad_sprites: 2 sprites left out (%u), %u vertices vs %u", mesh.sprites_dropped,
                      mesh.vertex_count, plain_mesh.vertex_count);
                cs_level_mesh_free(&mesh);
            }
            break;
        }
        case FIX_DATA_WORDS:
            CHECK(back.rooms[1].extra_data_size == 6 && memcmp(back.rooms[1].extra_data, "\x01\x02\x03\x04\x05\x06", 6) == 0,
                  "data_words: the 6 bytes after room 1's geometry kept");
            break;
        default:
            break;
        }
        cs_tr1_free(&back);
        cs_tr1_free(&lvl);
        free(b.d);
    }
    // All four in one file: four warning lines.
    cs_tr1_level lvl, back;
    cs_tr1_generate_demo(&lvl);
    for (int k = 0; k < FIX_COUNT; k++)
        add_oddity(&lvl, (fixture_kind)k);
    bytes b = {0};
    CHECK(cs_tr1_write(&lvl, &b.d, &b.n), "all four: written");
    bool ok = cs_tr1_read(b.d, b.n, "odd.phd", &back, &err);
    CHECK(ok, "all four: loads: %s", ok ? "" : err.msg);
    if (ok) {
        char warnings[2048];
        CHECK(cs_tr1_warnings(&back, warnings, sizeof warnings) == 4, "all four: four warnings: %s", warnings);
        bytes again = {0};
        CHECK(cs_tr1_write(&back, &again.d, &again.n) && again.n == b.n && memcmp(again.d, b.d, b.n) == 0,
              "all four: write(read(x)) == x");
        free(again.d);
        cs_tr1_free(&back);
    }
    // Still refused: words after the last range that are not zero, and a
    // num_data_words shorter than the geometry.
    cs_tr1_free(&lvl);
    free(b.d);
    cs_tr1_generate_demo(&lvl);
    pad_animated_textures(&lvl, 2);
    cs_tr1_blob *anim = &lvl.sections[CS_TR1_ANIMATED_TEXTURES];
    anim->bytes[anim->size - 2] = 9;
    CHECK(cs_tr1_write(&lvl, &b.d, &b.n), "non-zero padding: written");
    ok = cs_tr1_read(b.d, b.n, "odd.phd", &back, &err);
    CHECK(!ok && strstr(err.msg, "animated_textures: 2 words after the last range (1 ranges), not all 0"),
          "non-zero words after the last range refused: %s", ok ? "accepted" : err.msg);
    if (ok)
        cs_tr1_free(&back);
    cs_tr1_free(&lvl);
    free(b.d);
    cs_level_mesh_free(&plain_mesh);
    cs_tr1_free(&plain);
}

// ---- the room a point is in ------------------------------------------------

// Two rooms that overlap by their wall columns, as neighbouring rooms of
// real levels do, and a third under the second through a floor portal:
//   A (room 0): sectors x 0..2, z 0..6 (one open column, x = 1), floor 0,
//      ceiling -2048; its wall sector (2, 3) is a door to B.
//   B (room 1): sectors x 1..5, z 2..4 (open: x 2..4, z 3), same heights;
//      its wall sector (0, 1) (world column 1, row 3) is a door to A; its
//      open sectors lead down to C.
//   C (room 2): under B, floor 2048, ceiling 0; its open sectors lead up.
// A's middle (x 1.5, z 3.5 sectors) lies in B's box, which is smaller
// than A's: the smallest-box rule starts there, in B.
#define OV_WALL (-127) // TR1 walls: floor and ceiling both -127 clicks
static void overlap_room(cs_tr1_room *r, int sx, int sz, int nx, int nz, int floor, int ceiling)
{
    memset(r, 0, sizeof *r);
    r->x = sx * 1024;
    r->z = sz * 1024;
    r->y_bottom = floor;
    r->y_top = ceiling;
    r->x_sectors = (uint16_t)nx;
    r->z_sectors = (uint16_t)nz;
    r->sectors = calloc((size_t)nx * nz, sizeof *r->sectors);
    CS_ASSERT(r->sectors, "out of memory");
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < nz; j++) {
            bool wall = i == 0 || j == 0 || i == nx - 1 || j == nz - 1;
            r->sectors[i * nz + j] = (cs_tr1_sector){0, 0xffff, CS_TR1_NO_ROOM, (int8_t)(wall ? OV_WALL : floor / 256),
                                                      CS_TR1_NO_ROOM, (int8_t)(wall ? OV_WALL : ceiling / 256)};
        }
    r->alternate_room = -1;
}

static void overlap_level(cs_tr1_level *lvl)
{
    cs_tr1_generate_demo(lvl);
    for (uint32_t i = 0; i < lvl->room_count; i++) {
        cs_tr1_room *r = &lvl->rooms[i];
        free(r->vertices);
        free(r->rects);
        free(r->tris);
        free(r->sprites);
        free(r->portals);
        free(r->sectors);
        free(r->lights);
        free(r->meshes);
    }
    lvl->room_count = 3;
    overlap_room(&lvl->rooms[0], 0, 0, 3, 7, 0, -2048);
    overlap_room(&lvl->rooms[1], 1, 2, 5, 3, 0, -2048);
    overlap_room(&lvl->rooms[2], 1, 2, 5, 3, 2048, 0);
    // Floor data: entry 0 is "none"; A's door to B comes after a floor
    // slant entry (the game's GetDoor skips it), B's door to A alone.
    static const uint16_t fd[] = {0, 0x0002, 0x0000, 0x8001, 1, 0x8001, 0};
    cs_tr1_blob *b = &lvl->sections[CS_TR1_FLOOR_DATA];
    free(b->bytes);
    b->count = CS_ARRAY_COUNT(fd);
    b->size = sizeof fd;
    b->bytes = malloc(sizeof fd);
    CS_ASSERT(b->bytes, "out of memory");
    for (size_t i = 0; i < CS_ARRAY_COUNT(fd); i++) {
        b->bytes[2 * i] = (uint8_t)fd[i];
        b->bytes[2 * i + 1] = (uint8_t)(fd[i] >> 8);
    }
    lvl->rooms[0].sectors[2 * 7 + 3].fd_index = 1;
    lvl->rooms[1].sectors[0 * 3 + 1].fd_index = 5;
    for (int i = 1; i <= 3; i++) {
        lvl->rooms[1].sectors[i * 3 + 1].room_below = 2;
        lvl->rooms[2].sectors[i * 3 + 1].room_above = 1;
    }
}

// The reference, written from the format description (TRosettaStone's
// floor data and sector fields, and how the game's GetFloor walks them),
// not from level_mesh.c: TR units, the start room given.
static int ref_word(const cs_tr1_level *lvl, uint32_t i)
{
    const cs_tr1_blob *b = &lvl->sections[CS_TR1_FLOOR_DATA];
    return i < b->count ? b->bytes[2 * i] | b->bytes[2 * i + 1] << 8 : -1;
}

// The portal room of a sector's floor data: FloorData[fd_index] onwards,
// function = bits 0..4, bit 15 ends the list; 2 and 3 (floor, ceiling
// slant) carry one word, 1 (portal) one word: the room.
static int ref_door(const cs_tr1_level *lvl, const cs_tr1_sector *s)
{
    if (s->fd_index == 0)
        return -1;
    uint32_t i = s->fd_index;
    for (;;) {
        int h = ref_word(lvl, i);
        if (h < 0)
            return -1;
        int function = h & 0x1f;
        if (function == 1) {
            int room = ref_word(lvl, i + 1);
            return room >= 0 && (uint32_t)room < lvl->room_count ? room : -1;
        }
        if ((function != 2 && function != 3) || (h & 0x8000))
            return -1;
        i += 2;
    }
}

static const cs_tr1_sector *ref_sector(const cs_tr1_room *r, double x, double z, bool clamp)
{
    int sx = (int)floor((x - r->x) / 1024), sz = (int)floor((z - r->z) / 1024);
    int nx = r->x_sectors, nz = r->z_sectors;
    if (!clamp && (sx < 0 || sz < 0 || sx >= nx || sz >= nz))
        return NULL;
    if (sz <= 0 || sz >= nz - 1) { // a z edge row: keep off the corners
        sz = sz <= 0 ? 0 : nz - 1;
        sx = sx < 1 ? 1 : sx > nx - 2 ? nx - 2 : sx;
    } else {
        sx = sx < 0 ? 0 : sx >= nx ? nx - 1 : sx;
    }
    return &r->sectors[sx * nz + sz];
}

static int ref_room_at(const cs_tr1_level *lvl, int room, double x, double y, double z)
{
    const cs_tr1_sector *s;
    for (int guard = 0;; guard++) {
        CS_ASSERT(guard < 16, "a door loop in the fixture");
        s = ref_sector(&lvl->rooms[room], x, z, true);
        int door = ref_door(lvl, s);
        if (door < 0)
            break;
        room = door;
    }
    if (y >= s->floor * 256.0) {
        while (s->room_below != CS_TR1_NO_ROOM) {
            room = s->room_below;
            s = ref_sector(&lvl->rooms[room], x, z, false);
            if (!s || y < s->floor * 256.0)
                break;
        }
    } else if (y < s->ceiling * 256.0) {
        while (s->room_above != CS_TR1_NO_ROOM) {
            room = s->room_above;
            s = ref_sector(&lvl->rooms[room], x, z, false);
            if (!s || y >= s->ceiling * 256.0)
                break;
        }
    }
    return room;
}

// The overlap level as written and read back (so its floor data is the
// reader's).
static void overlap_level_read(cs_tr1_level *lvl)
{
    cs_tr1_level gen;
    overlap_level(&gen);
    bytes b = {0};
    CS_ASSERT(cs_tr1_write(&gen, &b.d, &b.n), "the overlap level does not write");
    cs_tr1_free(&gen);
    cs_error err;
    CS_ASSERT(cs_tr1_read(b.d, b.n, "overlap.phd", lvl, &err), "%s", err.msg);
    free(b.d);
}

// The old start rule: the smallest room box holding the point, inclusive.
static int smallest_box(const cs_level_mesh *mesh, const double p[3])
{
    int best = -1;
    double best_volume = INFINITY;
    for (uint32_t r = 0; r < mesh->room_count; r++) {
        const cs_level_room *room = &mesh->rooms[r];
        bool inside = true;
        double volume = 1;
        for (int a = 0; a < 3; a++) {
            inside = inside && p[a] >= room->min[a] && p[a] <= room->max[a];
            volume *= room->max[a] - room->min[a];
        }
        if (inside && volume < best_volume) {
            best = (int)r;
            best_volume = volume;
        }
    }
    return best;
}

// Whether a world point is over room r's own open floor (not a wall, not
// a door sector) and strictly between that sector's floor and ceiling.
static bool in_room_open_space(const cs_tr1_level *lvl, uint32_t r, const double p[3], double upm)
{
    const cs_tr1_room *room = &lvl->rooms[r];
    double x = p[0] * upm, y = -p[1] * upm, z = -p[2] * upm;
    int sx = (int)floor((x - room->x) / 1024), sz = (int)floor((z - room->z) / 1024);
    if (sx < 0 || sz < 0 || sx >= room->x_sectors || sz >= room->z_sectors)
        return false;
    const cs_tr1_sector *s = &room->sectors[sx * room->z_sectors + sz];
    return s->floor > s->ceiling && cs_tr1_sector_door(lvl, s) < 0 && y < s->floor * 256.0 &&
           y > s->ceiling * 256.0;
}

// Every room's headless eye (cs_level_room_eye) is in that room's open
// space and cs_level_room_at finds the room from it. Returns how many
// rooms' old eyes (the box's middle at 40% of its height, started in the
// smallest box) were not.
static uint32_t check_room_eyes(const char *name, const cs_tr1_level *lvl, double upm)
{
    cs_level_mesh mesh;
    cs_error err;
    CS_ASSERT(cs_level_mesh_build(lvl, upm, &mesh, &err), "%s", err.msg);
    uint32_t good = 0, old_wrong = 0;
    for (uint32_t r = 0; r < lvl->room_count; r++) {
        double eye[3];
        bool placed = cs_level_room_eye(&mesh, r, eye);
        bool open = in_room_open_space(lvl, r, eye, upm);
        int found = cs_level_room_at(&mesh, eye);
        CHECK(placed && open && found == (int)r, "%s, room %u: eye (%g, %g, %g) %s, room_at %d", name, r, eye[0],
              eye[1], eye[2], !placed ? "not placed" : open ? "in open space" : "not in the room's open space",
              found);
        good += placed && open && found == (int)r;
        const cs_level_room *b = &mesh.rooms[r];
        double old_eye[3] = {0.5 * (b->min[0] + b->max[0]), b->min[1] + 0.4 * (b->max[1] - b->min[1]),
                             0.5 * (b->min[2] + b->max[2])};
        old_wrong += !in_room_open_space(lvl, r, old_eye, upm) || smallest_box(&mesh, old_eye) != (int)r;
    }
    printf("%s: %u of %u rooms' eyes in their own open space (the old eye and start: %u not)\n", name, good,
           lvl->room_count, old_wrong);
    cs_level_mesh_free(&mesh);
    return old_wrong;
}

// The demo, the fluids' fixture, the ringed fixture (rings of wall
// sectors, door sectors), the same with a pillar (a wall sector) at its
// west room's middle, and the overlap level (where the old start was
// wrong): the pillar and the overlap level show the check can fail.
static void test_room_eyes(void)
{
    cs_tr1_level lvl;
    cs_tr1_generate_demo(&lvl);
    check_room_eyes("demo", &lvl, 1024);
    cs_tr1_free(&lvl);
    cs_tr1_generate_fixture(&lvl);
    check_room_eyes("fluids' fixture", &lvl, 1024);
    cs_tr1_free(&lvl);
    cs_tr1_generate_ringed(&lvl);
    check_room_eyes("ringed fixture", &lvl, 1024);
    cs_tr1_room *west = &lvl.rooms[0];
    cs_tr1_sector *pillar = &west->sectors[(west->x_sectors / 2) * west->z_sectors + west->z_sectors / 2];
    pillar->floor = pillar->ceiling = -127;
    uint32_t old_wrong = check_room_eyes("ringed fixture, a pillar in the west room", &lvl, 1024);
    CHECK(old_wrong == 1, "the pillar does not catch the old eye (%u rooms)", old_wrong);
    cs_tr1_free(&lvl);
    overlap_level_read(&lvl);
    old_wrong = check_room_eyes("overlap level", &lvl, 512);
    CHECK(old_wrong >= 1, "the overlap level does not catch the old start (%u rooms)", old_wrong);
    cs_tr1_free(&lvl);
}

static void test_room_at(void)
{
    cs_tr1_level lvl;
    overlap_level_read(&lvl);
    cs_error err;
    const double upm = 512;
    cs_level_mesh mesh;
    CS_ASSERT(cs_level_mesh_build(&lvl, upm, &mesh, &err), "%s", err.msg);
    CHECK(cs_tr1_sector_door(&lvl, &lvl.rooms[0].sectors[2 * 7 + 3]) == 1 &&
              cs_tr1_sector_door(&lvl, &lvl.rooms[1].sectors[1]) == 0 &&
              cs_tr1_sector_door(&lvl, &lvl.rooms[1].sectors[4]) == -1,
          "the fixture's doors: A -> B (after a slant entry), B -> A, none");
    // Each room's middle: its own room, as the reference says, and its own
    // box the start; the old rule (the smallest box, bounds inclusive) put
    // A's middle in B, whose sector there is a wall.
    uint32_t old_wrong = 0;
    for (uint32_t r = 0; r < lvl.room_count; r++) {
        const cs_tr1_room *room = &lvl.rooms[r];
        double x = room->x + room->x_sectors * 512.0, z = room->z + room->z_sectors * 512.0;
        double y = 0.5 * (room->y_bottom + room->y_top);
        double p[3] = {x / upm, -y / upm, -z / upm};
        int start = cs_level_room_in_box(&mesh, p), got = cs_level_room_at(&mesh, p);
        int want = ref_room_at(&lvl, start, x, y, z);
        printf("room %u's middle (%g, %g, %g): box start %d, room_at %d, reference %d\n", r, x, y, z, start, got,
               want);
        CHECK(got == (int)r && want == (int)r, "room %u's middle starts in room %d (reference %d)", r, got, want);
        CHECK(start == (int)r, "room %u's middle: its box start is room %d", r, start);
        old_wrong += smallest_box(&mesh, p) != (int)r;
    }
    CHECK(old_wrong == 1, "the fixture does not catch the old rule (%u middles in the wrong box)", old_wrong);
    // On B's floor portal (y = 0, B's floor and C's ceiling): both boxes
    // hold it, B (same size, first) is the start; TR1 puts it below, in C.
    double pit[3] = {3584 / upm, 0, -3584 / upm};
    CHECK(cs_level_room_in_box(&mesh, pit) == 1 && cs_level_room_at(&mesh, pit) == 2,
          "a point on B's floor portal is in C (box %d, room_at %d)", cs_level_room_in_box(&mesh, pit),
          cs_level_room_at(&mesh, pit));
    // Random points in the level's boxes against the reference.
    uint32_t tried = 0, differ = 0, moved = 0;
    for (int i = 0; i < 4000; i++) {
        double x = (test_rand_u32() % 6145), z = (test_rand_u32() % 7169), y = -2048.0 + (test_rand_u32() % 4097);
        double p[3] = {x / upm, -y / upm, -z / upm};
        int start = cs_level_room_in_box(&mesh, p);
        if (start < 0)
            continue;
        tried++;
        int got = cs_level_room_at(&mesh, p), want = ref_room_at(&lvl, start, x, y, z);
        if (got != want && differ++ < 5)
            CHECK(false, "(%g, %g, %g): room_at %d, reference %d (start %d)", x, y, z, got, want, start);
        moved += got != smallest_box(&mesh, p); // where the old start (and no walk) was wrong
    }
    // The walk itself (doors, room_below) is checked from a start that
    // needs it by the middles and the pit above; here the start rule and
    // walk together against the reference, over points where the old start
    // was wrong too.
    printf("room_at: %u random points in the boxes, %u not in their smallest box, %u differ from the reference\n",
           tried, moved, differ);
    CHECK(tried > 1000 && moved > 0 && differ == 0, "random points: %u tried, %u moved, %u differ", tried, moved,
          differ);
    cs_level_mesh_free(&mesh);
    cs_tr1_free(&lvl);
}

// ---- random corruption ------------------------------------------------------

// Reads one buffer: a refusal must carry "PATH: byte "; an acceptance must
// write back the same bytes. Returns false on a broken rule.
static bool read_checked(const uint8_t *d, size_t n, const char *path, bool *accepted)
{
    cs_tr1_level lvl;
    cs_error err;
    err.msg[0] = 0;
    *accepted = cs_tr1_read(d, n, path, &lvl, &err);
    if (!*accepted) {
        char prefix[1100];
        snprintf(prefix, sizeof prefix, "%s: byte ", path);
        return strncmp(err.msg, prefix, strlen(prefix)) == 0;
    }
    uint8_t *out = NULL;
    size_t out_n = 0;
    bool same = cs_tr1_write(&lvl, &out, &out_n) && out_n == n && memcmp(out, d, n) == 0;
    free(out);
    // Any floor data: a slant only lowers a floor and raises a ceiling.
    for (uint32_t r = 0; r < lvl.room_count; r++)
        for (uint32_t k = 0; k < (uint32_t)lvl.rooms[r].x_sectors * lvl.rooms[r].z_sectors; k++) {
            const cs_tr1_sector *s = &lvl.rooms[r].sectors[k];
            cs_tr1_slant f, c;
            cs_tr1_sector_slants(&lvl, s, &f, &c);
            for (int corner = 0; corner < 4; corner++) {
                double lx = (corner & 1) * 1024.0, lz = (corner >> 1) * 1024.0;
                same &= cs_tr1_floor_height(s, f, lx, lz) >= s->floor * 256.0 &&
                        cs_tr1_ceiling_height(s, c, lx, lz) <= s->ceiling * 256.0;
            }
        }
    cs_tr1_free(&lvl);
    return same;
}

static void test_random_corruption(void)
{
    bytes base = demo_bytes();
    const size_t textiles_end = 8 + 2 * (size_t)CS_TR1_TEXTILE_BYTES;
    uint32_t accepted = 0, refused = 0, broken = 0;
    for (int it = 0; it < 1000; it++) {
        bytes c = copy_of(&base, base.n);
        // Most edits land after the textiles (which are plain pixels).
        int edits = 1 + (int)(test_rand_u32() % 8);
        for (int e = 0; e < edits; e++) {
            size_t at = test_rand_u32() % 8 == 0 ? test_rand_u32() % c.n
                                                  : textiles_end + test_rand_u32() % (c.n - textiles_end);
            uint32_t kind = test_rand_u32() % 3;
            c.d[at] = kind == 0 ? (uint8_t)(c.d[at] ^ (1u << (test_rand_u32() % 8)))
                      : kind == 1 ? (uint8_t)test_rand_u32()
                                  : 0xff;
        }
        if (test_rand_u32() % 4 == 0)
            c.n = test_rand_u32() % c.n;
        bool ok;
        if (!read_checked(c.d, c.n, "level.phd", &ok)) {
            broken++;
            CHECK(false, "random corruption %d: broke a rule (refused without an offset, or accepted and wrote "
                  "back different bytes)", it);
        }
        ok ? accepted++ : refused++;
        free(c.d);
    }
    printf("random corruption: 1000 variants, %u accepted (and written back exactly), %u refused, %u broken\n",
           accepted, refused, broken);
    free(base.d);
}

// ---- corpus -------------------------------------------------------------------

static bool replay_file(const char *path)
{
    cs_error err;
    size_t n = 0;
    char *d = cs_read_file(path, &n, &err);
    if (!d) {
        fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    bool ok, good = read_checked((const uint8_t *)d, n, path, &ok);
    if (!good)
        fprintf(stderr, "corpus: %s broke a rule\n", path);
    free(d);
    return good;
}

static uint32_t replay(const char *path, uint32_t *failures)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "corpus: no %s\n", path);
        (*failures)++;
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (!replay_file(path))
            (*failures)++;
        return 1;
    }
    DIR *dir = opendir(path);
    uint32_t files = 0;
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        files += replay(full, failures);
    }
    if (dir)
        closedir(dir);
    return files;
}

static bool write_file(const char *dir, const char *name, const uint8_t *d, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(d, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

// A level without textiles (faces and sprites need textures, so it keeps
// rooms, portals, sectors, floor data, lights and meshes).
static void strip_textures(cs_tr1_level *lvl)
{
    free(lvl->textiles);
    lvl->textiles = NULL;
    lvl->textile_count = 0;
    lvl->object_texture_count = lvl->sprite_texture_count = 0;
    for (uint32_t i = 0; i < lvl->room_count; i++) {
        cs_tr1_room *r = &lvl->rooms[i];
        r->rect_count = r->tri_count = r->sprite_count = 0;
    }
}

// The demo level without textiles.
static void generate_small(cs_tr1_level *lvl)
{
    cs_tr1_generate_demo(lvl);
    strip_textures(lvl);
}

// The seed corpus: the demo level, a small one without textiles (faces and
// sprites need textures, so it keeps rooms, portals, sectors, lights and
// meshes), and truncated and corrupted variants of the small one.
static int write_corpus(const char *dir)
{
    bytes demo = demo_bytes();
    bool ok = write_file(dir, "demo.phd", demo.d, demo.n);
    cs_tr1_level lvl;
    generate_small(&lvl);
    bytes small = {0};
    ok &= cs_tr1_write(&lvl, &small.d, &small.n);
    cs_tr1_free(&lvl);
    ok &= write_file(dir, "small.phd", small.d, small.n);
    static const size_t cuts[] = {0, 3, 7, 12, 40, 200, 1000, 4000};
    for (size_t i = 0; i < CS_ARRAY_COUNT(cuts); i++) {
        char name[64];
        snprintf(name, sizeof name, "small_cut_%zu.phd", cuts[i]);
        ok &= write_file(dir, name, small.d, CS_MIN(cuts[i], small.n));
    }
    uint64_t state = 12345;
    for (int i = 0; i < 8; i++) {
        bytes c = copy_of(&small, small.n);
        for (int e = 0; e < 4; e++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            c.d[(state >> 33) % c.n] ^= (uint8_t)(state >> 20);
        }
        char name[64];
        snprintf(name, sizeof name, "small_flip_%d.phd", i);
        ok &= write_file(dir, name, c.d, c.n);
        free(c.d);
    }
    // The tolerated layouts (test_tolerated), on the small level without
    // textiles and without animated ranges (they name object textures it
    // does not have): each is accepted, warned about and written back.
    for (int k = 0; k < FIX_COUNT; k++) {
        generate_small(&lvl);
        CS_ASSERT(cs_tr1_set_animated_textures(&lvl, NULL, NULL, 0), "no animated ranges");
        if (k == FIX_SPRITES) // no sprite textures: any sprite's texture is out of range
            for (uint32_t i = 0; i < 3; i++) {
                lvl.rooms[i].sprite_count = 2;
                lvl.rooms[i].sprites[0] = (cs_tr1_sprite){0, 0};
                lvl.rooms[i].sprites[1] = (cs_tr1_sprite){0, 0};
            }
        add_oddity(&lvl, (fixture_kind)k);
        bytes odd = {0};
        ok &= cs_tr1_write(&lvl, &odd.d, &odd.n);
        cs_tr1_free(&lvl);
        char name[64];
        snprintf(name, sizeof name, "small_%s.phd", fixture_names[k]);
        ok &= write_file(dir, name, odd.d, odd.n);
        free(odd.d);
    }
    // The overlapping rooms of test_room_at (floor data portals, pits).
    overlap_level(&lvl); // without textiles or textures: small, and the rooms have no faces
    free(lvl.textiles);
    lvl.textiles = NULL;
    lvl.textile_count = lvl.object_texture_count = lvl.sprite_texture_count = 0;
    CS_ASSERT(cs_tr1_set_animated_textures(&lvl, NULL, NULL, 0), "no animated ranges");
    bytes overlap = {0};
    ok &= cs_tr1_write(&lvl, &overlap.d, &overlap.n);
    cs_tr1_free(&lvl);
    ok &= write_file(dir, "overlap.phd", overlap.d, overlap.n);
    free(overlap.d);
    // Floor and ceiling slant entries and a water room (the fluids'
    // fixture, cs_tr1_generate_fixture), without textiles.
    cs_tr1_generate_fixture(&lvl);
    strip_textures(&lvl);
    CS_ASSERT(cs_tr1_set_animated_textures(&lvl, NULL, NULL, 0), "no animated ranges");
    bytes slopes = {0};
    ok &= cs_tr1_write(&lvl, &slopes.d, &slopes.n);
    cs_tr1_free(&lvl);
    ok &= write_file(dir, "small_slopes.phd", slopes.d, slopes.n);
    free(slopes.d);
    free(small.d);
    free(demo.d);
    printf("wrote the tr1 corpus to %s\n", dir);
    return ok ? 0 : 1;
}

// The rooms keep TR1's flags, and `cistern view --panel`'s list names them:
// the demo's north room (3) is a water room (the one --flood fills), the
// others are not. The list once showed sizes only.
static void test_room_flags(void)
{
    cs_level_mesh mesh;
    cs_error err;
    if (!cs_level_mesh_load(DEMO_PATH, CS_LEVEL_DEFAULT_UNITS_PER_METRE, &mesh, &err)) {
        CHECK(false, "%s", err.msg);
        return;
    }
    for (uint32_t r = 0; r < mesh.room_count; r++) {
        char label[128];
        cs_panel_room_label(&mesh.rooms[r], r, label, sizeof label);
        bool water = strstr(label, "water") != NULL;
        CHECK(water == (r == 3), "room %u: %s (flags 0x%04x; the demo's water room is 3)", r, label,
              mesh.rooms[r].flags);
    }
    cs_level_room odd = {.max = {2, 3, 4}, .flags = CS_TR1_ROOM_WATER | 0x0040};
    char label[128];
    cs_panel_room_label(&odd, 7, label, sizeof label);
    CHECK(strcmp(label, "room   7    2.0 x  3.0 x  4.0 m   water   flags 0x0040") == 0, "label: \"%s\"", label);
    cs_level_mesh_free(&mesh);
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--write-corpus") == 0)
        return write_corpus(argv[2]);
    if (argc > 1 && strcmp(argv[1], "--corpus") == 0) {
        uint32_t failures = 0, files = 0;
        for (int i = 2; i < argc; i++)
            files += replay(argv[i], &failures);
        printf("replayed %u files, %u failures\n", files, failures);
        return failures || files == 0 ? 1 : 0;
    }
    test_seed();
    test_round_trip();
    test_writer_refuses();
    test_portals();
    test_malformed();
    test_tolerated();
    test_room_at();
    test_room_eyes();
    test_room_flags();
    test_random_corruption();
    uint32_t failures = 0, files = replay(CORPUS_DIR, &failures);
    CHECK(files > 0 && failures == 0, "corpus replay: %u files, %u broke a rule", files, failures);
    if (test_failures)
        fprintf(stderr, "FAIL: %d check(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}
