// level_gen.c — the demo level (levels/cistern_demo.phd), built from a small
// description in C: rooms as boxes of 1024-unit sectors, portals as world
// space rectangles on a shared wall, floor or ceiling. Everything in it is
// generated here (geometry, palette, textures, meshes), so it is ours to
// ship; the test that regenerates it checks it is byte for byte the same.
#include "level_tr1.h"

#define SECTOR 1024

// y grows downwards in TR: floor > ceiling.
typedef struct gen_room {
    int sx, sz, nx, nz; // first sector and size, in sectors
    int floor, ceiling;
} gen_room;

// A portal: the rectangle where room a and room b touch, axis-aligned on
// plane `axis` (0 x, 1 y, 2 z) at `at`, covering [lo, hi] on the other two
// axes in increasing axis order, world units.
typedef struct gen_portal {
    int a, b, axis, at;
    int lo[2], hi[2];
} gen_portal;

static const gen_room demo_rooms[] = {
    {0, 0, 4, 4, 0, -2048},      // 0: the hall
    {4, 0, 4, 4, 1024, -1024},   // 1: east, a step lower
    {0, 0, 4, 4, -2048, -4096},  // 2: the loft above the hall
    {0, -3, 4, 3, 256, -1536},   // 3: north, a quarter step lower
};

static const gen_portal demo_portals[] = {
    {0, 1, 0, 4096, {-1024, 1024}, {0, 3072}},    // wall x = 4096: y -1024..0, z 1024..3072
    {0, 2, 1, -2048, {1024, 1024}, {3072, 3072}}, // ceiling of 0 / floor of 2: x, z 1024..3072
    {0, 3, 2, 0, {1024, -1536}, {3072, 0}},       // wall z = 0: x 1024..3072, y -1536..0
};

// The other two axes of a plane, in order.
static void other_axes(int axis, int *u, int *v)
{
    *u = axis == 0 ? 1 : 0;
    *v = axis == 2 ? 1 : 2;
}

typedef struct room_builder {
    cs_tr1_room *room;
    uint32_t vcap, rcap, tcap;
} room_builder;

static uint16_t vertex(room_builder *b, int x, int y, int z, int16_t lighting)
{
    cs_tr1_room *r = b->room;
    int16_t lx = (int16_t)(x - r->x), lz = (int16_t)(z - r->z);
    for (uint32_t i = 0; i < r->vertex_count; i++)
        if (r->vertices[i].x == lx && r->vertices[i].y == y && r->vertices[i].z == lz)
            return (uint16_t)i;
    CS_ASSERT(r->vertex_count < b->vcap, "demo level: too many vertices");
    r->vertices[r->vertex_count] = (cs_tr1_vertex){lx, (int16_t)y, lz, lighting};
    return (uint16_t)r->vertex_count++;
}

// A quad from four world points, lit by height (higher is darker in TR's
// 0 bright .. 8191 dark scale, so lofts read as dimmer).
static void quad(room_builder *b, const int p[4][3], uint16_t texture)
{
    cs_tr1_face4 f = {.texture = texture};
    for (int k = 0; k < 4; k++)
        f.vertices[k] = vertex(b, p[k][0], p[k][1], p[k][2], (int16_t)(4096 - p[k][1] / 2));
    CS_ASSERT(b->room->rect_count < b->rcap, "demo level: too many rectangles");
    b->room->rects[b->room->rect_count++] = f;
}

static void tri(room_builder *b, const int p0[3], const int p1[3], const int p2[3], uint16_t texture)
{
    const int *p[3] = {p0, p1, p2};
    cs_tr1_face3 f = {.texture = texture};
    for (int k = 0; k < 3; k++)
        f.vertices[k] = vertex(b, p[k][0], p[k][1], p[k][2], (int16_t)(4096 - p[k][1] / 2));
    CS_ASSERT(b->room->tri_count < b->tcap, "demo level: too many triangles");
    b->room->tris[b->room->tri_count++] = f;
}

// The portal of room `ri` on plane axis/at covering point (u, v), if any.
// On a wall the vertical coordinate is not compared: a wall column is cut
// around any portal that crosses it.
static const gen_portal *portal_at(int ri, int axis, int at, int pu, int pv)
{
    for (size_t i = 0; i < CS_ARRAY_COUNT(demo_portals); i++) {
        const gen_portal *p = &demo_portals[i];
        bool in_u = axis == 0 || (pu > p->lo[0] && pu < p->hi[0]); // axis 0: u is y
        bool in_v = axis == 2 || (pv > p->lo[1] && pv < p->hi[1]); // axis 2: v is y
        if ((p->a == ri || p->b == ri) && p->axis == axis && p->at == at && in_u && in_v)
            return p;
    }
    return NULL;
}

static void set3(int p[3], int x, int y, int z)
{
    p[0] = x;
    p[1] = y;
    p[2] = z;
}

// The north room's floor is wet: object textures 4 and 5, the wet stone
// quadrant (texture 3) as drawn and turned a quarter, form the demo's
// animated texture range, so that floor ripples between the two.
#define DEMO_WET_ROOM 3
#define DEMO_WET_TEXTURE 4

// Floor, ceiling and walls of one room, one quad per sector (walls: per
// sector column, cut around any wall portal).
static void build_geometry(room_builder *b, int ri)
{
    const gen_room *g = &demo_rooms[ri];
    int x0 = g->sx * SECTOR, z0 = g->sz * SECTOR, x1 = x0 + g->nx * SECTOR, z1 = z0 + g->nz * SECTOR;
    for (int i = 0; i < g->nx; i++)
        for (int j = 0; j < g->nz; j++) {
            int ax = x0 + i * SECTOR, az = z0 + j * SECTOR, bx = ax + SECTOR, bz = az + SECTOR;
            int cx = ax + SECTOR / 2, cz = az + SECTOR / 2;
            int p[4][3];
            int floor_texture = ri == DEMO_WET_ROOM ? DEMO_WET_TEXTURE : 0;
            if (!portal_at(ri, 1, g->floor, cx, cz)) {
                set3(p[0], ax, g->floor, az);
                set3(p[1], bx, g->floor, az);
                set3(p[2], bx, g->floor, bz);
                set3(p[3], ax, g->floor, bz);
                if (i == 0 && j == 0) { // one sector as two triangles, so rooms carry both kinds
                    tri(b, p[0], p[1], p[2], floor_texture);
                    tri(b, p[0], p[2], p[3], floor_texture);
                } else {
                    quad(b, (const int(*)[3])p, floor_texture);
                }
            }
            if (!portal_at(ri, 1, g->ceiling, cx, cz)) {
                set3(p[0], ax, g->ceiling, az);
                set3(p[1], ax, g->ceiling, bz);
                set3(p[2], bx, g->ceiling, bz);
                set3(p[3], bx, g->ceiling, az);
                quad(b, (const int(*)[3])p, 1);
            }
        }
    // Walls: side s at x = x0, x = x1 (axis 0) or z = z0, z = z1 (axis 2).
    for (int side = 0; side < 4; side++) {
        int axis = side < 2 ? 0 : 2;
        int at = side == 0 ? x0 : side == 1 ? x1 : side == 2 ? z0 : z1;
        int n = axis == 0 ? g->nz : g->nx;
        int base = axis == 0 ? z0 : x0;
        for (int k = 0; k < n; k++) {
            int a = base + k * SECTOR, c = a + SECTOR;
            // Spans of y to cover: the whole wall, or above and below a portal.
            int spans[2][2], span_count = 0;
            int mid = a + SECTOR / 2, ymid = (g->floor + g->ceiling) / 2;
            const gen_portal *p = axis == 0 ? portal_at(ri, 0, at, (g->floor + g->ceiling) / 2, mid)
                                            : portal_at(ri, 2, at, mid, ymid);
            if (!p) {
                spans[span_count][0] = g->ceiling;
                spans[span_count++][1] = g->floor;
            } else {
                int ylo = axis == 0 ? p->lo[0] : p->lo[1], yhi = axis == 0 ? p->hi[0] : p->hi[1];
                if (ylo > g->ceiling) {
                    spans[span_count][0] = g->ceiling;
                    spans[span_count++][1] = ylo;
                }
                if (yhi < g->floor) {
                    spans[span_count][0] = yhi;
                    spans[span_count++][1] = g->floor;
                }
            }
            for (int s = 0; s < span_count; s++) {
                int top = spans[s][0], bottom = spans[s][1];
                int q[4][3];
                if (axis == 0) {
                    set3(q[0], at, top, a);
                    set3(q[1], at, top, c);
                    set3(q[2], at, bottom, c);
                    set3(q[3], at, bottom, a);
                } else {
                    set3(q[0], a, top, at);
                    set3(q[1], c, top, at);
                    set3(q[2], c, bottom, at);
                    set3(q[3], a, bottom, at);
                }
                // Fronts wind counter-clockwise seen from inside the room
                // (right-hand normal inward): the west (x = x0) and south
                // (z = z1) walls list their corners the other way round.
                if (side == 0 || side == 3) {
                    int t[3];
                    memcpy(t, q[1], sizeof t);
                    memcpy(q[1], q[3], sizeof t);
                    memcpy(q[3], t, sizeof t);
                }
                quad(b, (const int(*)[3])q, p ? 3 : 2);
            }
        }
    }
}

static void build_portals(cs_tr1_room *room, int ri)
{
    const gen_room *g = &demo_rooms[ri];
    room->portals = calloc(CS_ARRAY_COUNT(demo_portals), sizeof *room->portals);
    for (size_t i = 0; i < CS_ARRAY_COUNT(demo_portals); i++) {
        const gen_portal *p = &demo_portals[i];
        if (p->a != ri && p->b != ri)
            continue;
        cs_tr1_portal *out = &room->portals[room->portal_count++];
        out->adjoining_room = (uint16_t)(p->a == ri ? p->b : p->a);
        // The normal points into the room that owns the portal.
        int u, v;
        other_axes(p->axis, &u, &v);
        int centre = p->axis == 0 ? g->sx * SECTOR + g->nx * SECTOR / 2
                     : p->axis == 1 ? (g->floor + g->ceiling) / 2
                                    : g->sz * SECTOR + g->nz * SECTOR / 2;
        out->normal[p->axis] = (int16_t)(centre < p->at ? -1 : 1);
        const int corner[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
        for (int k = 0; k < 4; k++) {
            int w[3];
            w[p->axis] = p->at;
            w[u] = corner[k][0] ? p->hi[0] : p->lo[0];
            w[v] = corner[k][1] ? p->hi[1] : p->lo[1];
            out->vertices[k][0] = (int16_t)(w[0] - room->x);
            out->vertices[k][1] = (int16_t)w[1];
            out->vertices[k][2] = (int16_t)(w[2] - room->z);
        }
    }
}

static void build_sectors(cs_tr1_room *room, int ri)
{
    const gen_room *g = &demo_rooms[ri];
    room->x_sectors = (uint16_t)g->nx;
    room->z_sectors = (uint16_t)g->nz;
    room->sectors = calloc((size_t)g->nx * g->nz, sizeof *room->sectors);
    for (int i = 0; i < g->nx; i++)
        for (int j = 0; j < g->nz; j++) {
            int cx = (g->sx + i) * SECTOR + SECTOR / 2, cz = (g->sz + j) * SECTOR + SECTOR / 2;
            const gen_portal *below = portal_at(ri, 1, g->floor, cx, cz);
            const gen_portal *above = portal_at(ri, 1, g->ceiling, cx, cz);
            cs_tr1_sector *s = &room->sectors[i * g->nz + j];
            s->fd_index = 0;
            s->box_index = 0xffff;
            s->room_below = (uint8_t)(below ? (below->a == ri ? below->b : below->a) : (int)CS_TR1_NO_ROOM);
            s->room_above = (uint8_t)(above ? (above->a == ri ? above->b : above->a) : (int)CS_TR1_NO_ROOM);
            s->floor = (int8_t)(g->floor / 256);
            s->ceiling = (int8_t)(g->ceiling / 256);
        }
}

static void build_room(cs_tr1_room *room, int ri)
{
    const gen_room *g = &demo_rooms[ri];
    room->x = g->sx * SECTOR;
    room->z = g->sz * SECTOR;
    room->y_bottom = g->floor;
    room->y_top = g->ceiling;
    room_builder b = {room, 512, 256, 8};
    room->vertices = calloc(b.vcap, sizeof *room->vertices);
    room->rects = calloc(b.rcap, sizeof *room->rects);
    room->tris = calloc(b.tcap, sizeof *room->tris);
    build_geometry(&b, ri);
    // Two sprites (a plant and a torch) standing on the floor.
    room->sprites = calloc(2, sizeof *room->sprites);
    for (int k = 0; k < 2; k++) {
        int x = room->x + SECTOR / 2 + k * (g->nx - 1) * SECTOR, z = room->z + SECTOR / 2 + k * SECTOR;
        room->sprites[room->sprite_count++] = (cs_tr1_sprite){(int16_t)vertex(&b, x, g->floor, z, 2048),
                                                              (int16_t)k};
    }
    build_portals(room, ri);
    build_sectors(room, ri);
    room->ambient = (int16_t)(2048 + 1024 * ri);
    room->lights = calloc(1, sizeof *room->lights);
    room->light_count = 1;
    room->lights[0] = (cs_tr1_light){room->x + g->nx * SECTOR / 2, g->ceiling + 256,
                                     room->z + g->nz * SECTOR / 2, 0x1000, 4096u * (uint32_t)(ri + 2)};
    // A box in every room, a pillar in the hall.
    room->meshes = calloc(2, sizeof *room->meshes);
    room->meshes[room->mesh_count++] =
        (cs_tr1_room_mesh){room->x + 3 * SECTOR / 2, g->floor, room->z + 3 * SECTOR / 2, 0x4000, 0x1000, 0};
    if (ri == 0)
        room->meshes[room->mesh_count++] =
            (cs_tr1_room_mesh){room->x + 5 * SECTOR / 2, g->floor, room->z + 5 * SECTOR / 2, 0, 0x0800, 1};
    room->alternate_room = -1;
    // The north room, whose floor is wet, is a water room (TR1's flag),
    // so `cistern view --flood` has one to fill.
    room->flags = ri == DEMO_WET_ROOM ? CS_TR1_ROOM_WATER : 0;
}

// ---- palette and textures ---------------------------------------------------

// Four ramps of 64 entries (6-bit): grey, sandstone, water blue, moss green.
// Index 0 is black, and in sprites, transparent.
static void build_palette(uint8_t palette[256][3])
{
    static const int tint[4][3] = {{63, 63, 63}, {63, 50, 34}, {24, 44, 63}, {30, 54, 26}};
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 64; i++)
            for (int k = 0; k < 3; k++)
                palette[r * 64 + i][k] = (uint8_t)(tint[r][k] * i / 63);
}

// Deterministic value noise: an integer hash, no libm, same bytes everywhere.
static uint32_t hash2(uint32_t x, uint32_t y)
{
    uint32_t h = x * 374761393u + y * 668265263u;
    h = (h ^ (h >> 13)) * 1274126177u;
    return h ^ (h >> 16);
}

static uint8_t ramp(int r, int level)
{
    level = level < 1 ? 1 : level > 63 ? 63 : level;
    return (uint8_t)(r * 64 + level);
}

// Textile 0: four 128 x 128 surfaces (sandstone bricks, checker floor,
// mossy stone, wet grey stone). Textile 1: two 64 x 64 sprites on 0.
static void build_textiles(uint8_t *t)
{
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++) {
            int u = x & 127, v = y & 127, q = (y >> 7) * 2 + (x >> 7);
            int n = (int)(hash2((uint32_t)x, (uint32_t)y) & 7);
            uint8_t c;
            if (q == 0) { // bricks: 32 x 16, odd rows offset
                int row = v / 16, bu = (u + (row & 1) * 16) % 32;
                bool mortar = v % 16 == 0 || bu == 0;
                c = ramp(1, mortar ? 18 + n : 40 + n + (int)(hash2((uint32_t)((u + (row & 1) * 16) / 32), (uint32_t)row) & 7));
            } else if (q == 1) { // checker floor
                c = ramp(0, ((u / 16 + v / 16) & 1) ? 48 + n : 22 + n);
            } else if (q == 2) { // mossy stone: noise between moss and stone
                int m = (int)(hash2((uint32_t)(u / 8), (uint32_t)(v / 8)) & 15);
                c = m < 6 ? ramp(3, 26 + n * 2) : ramp(0, 30 + n * 2);
            } else { // wet stone streaks
                c = ramp(2, 20 + (int)(hash2((uint32_t)u, 0) & 15) + n);
            }
            t[y * 256 + x] = c;
        }
    uint8_t *s = t + CS_TR1_TEXTILE_BYTES;
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            int dx = x - 32, dy = y - 32;
            // plant: a green fan; torch: a flame over a stick
            bool leaf = dy < 28 && dx * dx < (64 - y) * (64 - y) / 4 && ((x + y / 3) % 6) < 4;
            s[y * 256 + x] = leaf ? ramp(3, 20 + y / 2) : 0;
            bool flame = dx * dx + (dy + 12) * (dy + 12) < 100, stick = dx * dx < 4 && dy > -2;
            s[y * 256 + 64 + x] = flame ? ramp(1, 63 - (dy + 22)) : stick ? ramp(0, 16) : 0;
        }
}

// ---- the object sections ------------------------------------------------------

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void blob(cs_tr1_level *lvl, cs_tr1_section s, uint32_t count, size_t elem)
{
    lvl->sections[s].count = count;
    lvl->sections[s].size = count * elem;
    lvl->sections[s].bytes = calloc(count * elem != 0 ? count * elem : 1, 1);
}

// Mesh k: an axis-aligned box of half size (h, height) standing on y = 0,
// coloured rectangles only (TR1 mesh layout: centre, radius, vertices,
// lights (negative count), textured rects, textured tris, coloured rects,
// coloured tris).
static size_t write_box_mesh(uint8_t *p, int h, int height, uint16_t colour)
{
    uint16_t w[80];
    size_t n = 0;
    w[n++] = 0;
    w[n++] = (uint16_t)(-height / 2);
    w[n++] = 0;
    w[n++] = (uint16_t)(h + height); // radius, i32 low word
    w[n++] = 0;
    w[n++] = 8;
    for (int i = 0; i < 8; i++) {
        w[n++] = (uint16_t)(i & 1 ? h : -h);
        w[n++] = (uint16_t)(i & 2 ? -height : 0);
        w[n++] = (uint16_t)(i & 4 ? h : -h);
    }
    w[n++] = (uint16_t)-8; // eight vertex lights
    for (int i = 0; i < 8; i++)
        w[n++] = (uint16_t)(i & 2 ? 2048 : 4096);
    w[n++] = 0; // textured rectangles
    w[n++] = 0; // textured triangles
    static const uint16_t faces[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}};
    w[n++] = 6;
    for (int f = 0; f < 6; f++) {
        for (int k = 0; k < 4; k++)
            w[n++] = faces[f][k];
        w[n++] = colour;
    }
    w[n++] = 0; // coloured triangles
    for (size_t i = 0; i < n; i++)
        put16(p + i * 2, w[i]);
    return n * 2;
}

static void build_objects(cs_tr1_level *lvl)
{
    blob(lvl, CS_TR1_FLOOR_DATA, 1, 2); // entry 0: the "no floor data" word every sector points at

    uint8_t mesh[2][256];
    size_t m0 = write_box_mesh(mesh[0], 256, 512, 64 + 40);
    size_t m1 = write_box_mesh(mesh[1], 192, 2048, 32);
    blob(lvl, CS_TR1_MESH_DATA, (uint32_t)((m0 + m1) / 2), 2);
    memcpy(lvl->sections[CS_TR1_MESH_DATA].bytes, mesh[0], m0);
    memcpy(lvl->sections[CS_TR1_MESH_DATA].bytes + m0, mesh[1], m1);
    blob(lvl, CS_TR1_MESH_POINTERS, 2, 4);
    put16(lvl->sections[CS_TR1_MESH_POINTERS].bytes + 4, (uint16_t)m0);

    // Static mesh table: id, mesh, visibility box, collision box, flags.
    blob(lvl, CS_TR1_STATIC_MESHES, 2, 32);
    for (int i = 0; i < 2; i++) {
        uint8_t *p = lvl->sections[CS_TR1_STATIC_MESHES].bytes + i * 32;
        int h = i ? 192 : 256, height = i ? 2048 : 512;
        put16(p, (uint16_t)i);
        put16(p + 4, (uint16_t)i);
        const int16_t box[6] = {(int16_t)-h, (int16_t)h, (int16_t)-height, 0, (int16_t)-h, (int16_t)h};
        for (int k = 0; k < 6; k++) {
            put16(p + 6 + k * 2, (uint16_t)box[k]);
            put16(p + 18 + k * 2, (uint16_t)box[k]);
        }
        put16(p + 30, 2);
    }

    // Object textures: the four 128 x 128 quadrants of textile 0, then the
    // wet floor's two animation frames (the wet stone quadrant, as is and
    // turned a quarter).
    lvl->object_texture_count = 6;
    lvl->object_textures = calloc(6, sizeof *lvl->object_textures);
    for (int i = 0; i < 4; i++) {
        cs_tr1_object_texture *t = &lvl->object_textures[i];
        int x0 = (i & 1) * 128, y0 = (i >> 1) * 128;
        const int corner[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
        for (int k = 0; k < 4; k++) {
            t->uv[k][0] = corner[k][0] ? 255 : 1;
            t->uv[k][1] = (uint8_t)(x0 + corner[k][0] * 127);
            t->uv[k][2] = corner[k][1] ? 255 : 1;
            t->uv[k][3] = (uint8_t)(y0 + corner[k][1] * 127);
        }
    }
    for (int k = 0; k < 4; k++) {
        memcpy(lvl->object_textures[DEMO_WET_TEXTURE].uv[k], lvl->object_textures[3].uv[k], 4);
        memcpy(lvl->object_textures[DEMO_WET_TEXTURE + 1].uv[k], lvl->object_textures[3].uv[(k + 1) % 4], 4);
    }
    lvl->sections[CS_TR1_OBJECT_TEXTURES].count = 6;
    lvl->sections[CS_TR1_OBJECT_TEXTURES].size = 6 * 20;

    // Sprite textures: the plant and the torch on textile 1.
    lvl->sprite_texture_count = 2;
    lvl->sprite_textures = calloc(2, sizeof *lvl->sprite_textures);
    for (int i = 0; i < 2; i++)
        lvl->sprite_textures[i] = (cs_tr1_sprite_texture){1, (uint8_t)(i * 64), 0, 63 * 256 + 255, 63 * 256 + 255,
                                                          -256, -512, 256, 0};
    lvl->sections[CS_TR1_SPRITE_TEXTURES].count = 2;
    lvl->sections[CS_TR1_SPRITE_TEXTURES].size = 2 * 16;

    for (int s = CS_TR1_SPRITE_SEQUENCES; s <= CS_TR1_ENTITIES; s++)
        blob(lvl, (cs_tr1_section)s, 0, 1);
    static const uint16_t wet_frames[] = {DEMO_WET_TEXTURE, DEMO_WET_TEXTURE + 1};
    const uint16_t *const ranges[] = {wet_frames};
    const uint32_t counts[] = {2};
    bool set = cs_tr1_set_animated_textures(lvl, ranges, counts, 1);
    CS_ASSERT(set, "demo level: the animated texture range does not fit");
    // Light map: 32 levels, each colour darkened within its own ramp.
    blob(lvl, CS_TR1_LIGHT_MAP, 1, 32 * 256);
    for (int l = 0; l < 32; l++)
        for (int c = 0; c < 256; c++)
            lvl->sections[CS_TR1_LIGHT_MAP].bytes[l * 256 + c] = (uint8_t)((c & ~63) | ((c & 63) * (31 - l) / 31));
    lvl->sections[CS_TR1_PALETTE].count = 1;
    lvl->sections[CS_TR1_PALETTE].size = 768;
    blob(lvl, CS_TR1_CINEMATIC_FRAMES, 0, 16);
    blob(lvl, CS_TR1_DEMO_DATA, 0, 1);
    blob(lvl, CS_TR1_SOUND_MAP, 1, 512);
    memset(lvl->sections[CS_TR1_SOUND_MAP].bytes, 0xff, 512); // -1: no sound
    blob(lvl, CS_TR1_SOUND_DETAILS, 0, 8);
    blob(lvl, CS_TR1_SAMPLES, 0, 1);
    blob(lvl, CS_TR1_SAMPLE_INDICES, 0, 4);
}

void cs_tr1_generate_demo(cs_tr1_level *out)
{
    memset(out, 0, sizeof *out);
    out->textile_count = 2;
    out->textiles = calloc(2, CS_TR1_TEXTILE_BYTES);
    build_textiles(out->textiles);
    out->room_count = CS_ARRAY_COUNT(demo_rooms);
    out->rooms = calloc(out->room_count, sizeof *out->rooms);
    for (uint32_t i = 0; i < out->room_count; i++)
        build_room(&out->rooms[i], (int)i);
    build_palette(out->palette);
    build_objects(out);
}

// ---- the fluids' fixture ----------------------------------------------------

#define FIXTURE_RAMP_ROOM 1
#define FIXTURE_WATER_ROOM 3
#define FIXTURE_SLOPE 2 // clicks per sector

// The ramp room's floor and ceiling (TR units, y down) at room offset
// (x, z): flat at the hall's floor (0) over the first sector column, two
// clicks lower per column over the next two, flat at the old floor (1024)
// over the last; the ceiling flat at -1024 but over the first and last
// sector rows, where it rises two clicks towards the room's edge.
static int fixture_floor(int x) { return x <= 1024 ? 0 : x >= 3072 ? 1024 : (x - 1024) / 2; }
static int fixture_ceiling(int z) { return z <= 1024 ? -1024 - (1024 - z) / 2 : z >= 3072 ? -1024 - (z - 3072) / 2 : -1024; }

// Appends floor data words; returns the index of the first.
static uint16_t append_floor_data(cs_tr1_level *lvl, const uint16_t *words, uint32_t n)
{
    cs_tr1_blob *b = &lvl->sections[CS_TR1_FLOOR_DATA];
    uint32_t first = b->count;
    b->bytes = realloc(b->bytes, (size_t)(b->count + n) * 2);
    CS_ASSERT(b->bytes, "out of memory for floor data");
    for (uint32_t k = 0; k < n; k++) {
        b->bytes[2 * (first + k)] = (uint8_t)(words[k] & 0xff);
        b->bytes[2 * (first + k) + 1] = (uint8_t)(words[k] >> 8);
    }
    b->count += n;
    b->size = (size_t)b->count * 2;
    CS_ASSERT(first <= 0xffff, "fixture level: floor data past a u16 index");
    return (uint16_t)first;
}

// A slant's data word: the x slope in the low byte, the z slope in the high.
static uint16_t slant_word(int x, int z) { return (uint16_t)((uint8_t)(int8_t)x | (uint16_t)(uint8_t)(int8_t)z << 8); }

void cs_tr1_generate_fixture(cs_tr1_level *out)
{
    cs_tr1_generate_demo(out);
    cs_tr1_room *room = &out->rooms[FIXTURE_RAMP_ROOM];
    int old_floor = room->y_bottom, old_ceiling = room->y_top;
    // Sectors: stored heights are the floor's highest and the ceiling's
    // lowest point; the slants lower the one and raise the other.
    for (uint32_t i = 0; i < room->x_sectors; i++)
        for (uint32_t j = 0; j < room->z_sectors; j++) {
            cs_tr1_sector *s = &room->sectors[i * room->z_sectors + j];
            int x = (int)i * SECTOR;
            s->floor = (int8_t)(fixture_floor(x) / 256);
            int floor_x = i == 1 || i == 2 ? -FIXTURE_SLOPE : 0; // lower towards +x
            int ceiling_z = j == 0 ? FIXTURE_SLOPE : j + 1 == room->z_sectors ? -FIXTURE_SLOPE : 0;
            s->ceiling = (int8_t)(-1024 / 256);
            uint16_t words[4];
            uint32_t n = 0;
            if (floor_x) {
                words[n++] = 0x0002;
                words[n++] = slant_word(floor_x, 0);
            }
            if (ceiling_z) {
                words[n++] = 0x0003;
                words[n++] = slant_word(0, ceiling_z);
            }
            if (n) {
                words[n - 2] |= 0x8000; // the sector's last entry
                s->fd_index = append_floor_data(out, words, n);
            }
        }
    // Faces follow: every vertex on the old floor or ceiling moves onto the
    // new one (both are continuous, so shared vertices stay shared); a face
    // that collapses (the wall under the doorway, now floor high) goes.
    for (uint32_t v = 0; v < room->vertex_count; v++) {
        cs_tr1_vertex *p = &room->vertices[v];
        if (p->y == old_floor)
            p->y = (int16_t)fixture_floor(p->x);
        else if (p->y == old_ceiling)
            p->y = (int16_t)fixture_ceiling(p->z);
    }
    uint32_t kept = 0;
    for (uint32_t f = 0; f < room->rect_count; f++) {
        const cs_tr1_face4 *q = &room->rects[f];
        bool collapsed = false;
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++) {
                const cs_tr1_vertex *u = &room->vertices[q->vertices[a]], *w = &room->vertices[q->vertices[b]];
                collapsed |= u->x == w->x && u->y == w->y && u->z == w->z;
            }
        if (!collapsed)
            room->rects[kept++] = *q;
    }
    room->rect_count = kept;
    for (uint32_t m = 0; m < room->mesh_count; m++)
        room->meshes[m].y = fixture_floor(room->meshes[m].x - room->x);
    room->y_top = -1024 - FIXTURE_SLOPE * 256;
    CS_ASSERT(out->rooms[FIXTURE_WATER_ROOM].flags & CS_TR1_ROOM_WATER, "the demo's water room");
}

// ---- a chain of rooms as the retail levels build them -----------------------

// Each retail room's sector grid has a ring of wall sectors round its floor.
// Two rooms joined by a wall portal overlap by two sector columns: each
// one's door sectors (in its ring, with a door floor data entry naming the
// other, heights copied from the other) lie over the other's floor, and the
// portal is the plane between them. Floor and ceiling portals join a
// sector's floor to the sector of the room below (room_below / room_above).
typedef struct ring_room {
    int sx, sz, nx, nz; // first sector and size, in sectors, ring included
    int floor, ceiling; // TR units, y down
} ring_room;

// West (0) and middle (1) on one floor, joined by a wall portal at x = 5
// sectors; the lower room (2, a water room) under the middle's east half,
// joined by a floor portal at y = 0 over its two by two interior sectors.
static const ring_room ring_rooms[] = {
    {0, 0, 6, 4, 0, -2048},
    {4, 0, 6, 4, 0, -2048},
    {6, 0, 4, 4, 2048, 0},
};
#define RING_WATER_ROOM 2
#define RING_WALL_X 5     // sectors: the wall portal's plane
#define RING_HOLE_X0 7    // sectors: the floor portal's x range [7, 9) and z range [1, 3)
#define RING_HOLE_X1 9

static bool ring_interior(const ring_room *g, int i, int j) { return i > 0 && j > 0 && i + 1 < g->nx && j + 1 < g->nz; }

static void ring_portal(cs_tr1_room *room, uint16_t other, int axis, int normal, const int corners[4][3])
{
    cs_tr1_portal *p = &room->portals[room->portal_count++];
    p->adjoining_room = other;
    p->normal[axis] = (int16_t)normal;
    for (int k = 0; k < 4; k++) {
        p->vertices[k][0] = (int16_t)(corners[k][0] - room->x);
        p->vertices[k][1] = (int16_t)corners[k][1];
        p->vertices[k][2] = (int16_t)(corners[k][2] - room->z);
    }
}

void cs_tr1_generate_ringed(cs_tr1_level *out)
{
    cs_tr1_generate_demo(out); // palette, textures, objects and floor data entry 0
    for (uint32_t r = 0; r < out->room_count; r++)
        cs_tr1_room_free(&out->rooms[r]);
    free(out->rooms);
    out->room_count = CS_ARRAY_COUNT(ring_rooms);
    out->rooms = calloc(out->room_count, sizeof *out->rooms);
    CS_ASSERT(out->rooms, "out of host memory");
    const uint16_t door_to_middle[2] = {0x8000 | 0x0001, 1}, door_to_west[2] = {0x8000 | 0x0001, 0};
    uint16_t fd_to_middle = append_floor_data(out, door_to_middle, 2);
    uint16_t fd_to_west = append_floor_data(out, door_to_west, 2);
    for (uint32_t r = 0; r < out->room_count; r++) {
        const ring_room *g = &ring_rooms[r];
        cs_tr1_room *room = &out->rooms[r];
        room->x = g->sx * SECTOR;
        room->z = g->sz * SECTOR;
        room->y_bottom = g->floor;
        room->y_top = g->ceiling;
        room->alternate_room = -1;
        room->flags = r == RING_WATER_ROOM ? CS_TR1_ROOM_WATER : 0;
        room->ambient = 4096;
        room->x_sectors = (uint16_t)g->nx;
        room->z_sectors = (uint16_t)g->nz;
        room->sectors = calloc((size_t)g->nx * g->nz, sizeof *room->sectors);
        room->portals = calloc(2, sizeof *room->portals);
        room_builder b = {room, 256, 64, 1};
        room->vertices = calloc(b.vcap, sizeof *room->vertices);
        room->rects = calloc(b.rcap, sizeof *room->rects);
        CS_ASSERT(room->sectors && room->portals && room->vertices && room->rects, "out of host memory");
        for (int i = 0; i < g->nx; i++)
            for (int j = 0; j < g->nz; j++) {
                cs_tr1_sector *s = &room->sectors[i * g->nz + j];
                int x = g->sx + i, z = g->sz + j; // world sector
                bool door = j > 0 && j + 1 < g->nz &&
                            ((r == 0 && x == RING_WALL_X) || (r == 1 && x == RING_WALL_X - 1));
                bool hole = z >= 1 && z < 3 && x >= RING_HOLE_X0 && x < RING_HOLE_X1;
                s->box_index = 0xffff;
                s->room_below = s->room_above = (uint8_t)CS_TR1_NO_ROOM;
                if (!ring_interior(g, i, j) && !door) {
                    s->floor = s->ceiling = -127; // a wall sector
                    continue;
                }
                s->floor = (int8_t)(g->floor / 256);
                s->ceiling = (int8_t)(g->ceiling / 256);
                if (door) {
                    s->fd_index = r == 0 ? fd_to_middle : fd_to_west;
                    continue;
                }
                if (hole && r == 1)
                    s->room_below = 2;
                if (hole && r == 2)
                    s->room_above = 1;
                int p[4][3];
                set3(p[0], x * SECTOR, g->floor, z * SECTOR);
                set3(p[1], (x + 1) * SECTOR, g->floor, z * SECTOR);
                set3(p[2], (x + 1) * SECTOR, g->floor, (z + 1) * SECTOR);
                set3(p[3], x * SECTOR, g->floor, (z + 1) * SECTOR);
                if (!(hole && r == 1))
                    quad(&b, p, 0); // a floor to draw, but not over the hole
            }
        int wall[4][3], hole[4][3];
        const int corner[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
        for (int k = 0; k < 4; k++) {
            set3(wall[k], RING_WALL_X * SECTOR, corner[k][0] ? 0 : -2048, corner[k][1] ? 3 * SECTOR : SECTOR);
            set3(hole[k], corner[k][0] ? RING_HOLE_X1 * SECTOR : RING_HOLE_X0 * SECTOR, 0,
                 corner[k][1] ? 3 * SECTOR : SECTOR);
        }
        // Normals point into the room that owns the portal.
        if (r == 0)
            ring_portal(room, 1, 0, -1, wall);
        if (r == 1) {
            ring_portal(room, 0, 0, 1, wall);
            ring_portal(room, 2, 1, -1, hole);
        }
        if (r == 2)
            ring_portal(room, 1, 1, 1, hole);
    }
}
