// level_statics.c — the static meshes placed in a level's rooms, decoded
// from the mesh data into the room's triangles (see level_statics.h).
#include "level_statics.h"

#include <math.h>

#define PI 3.14159265358979323846

// A bounds-checked reader over the mesh data words.
typedef struct words {
    const uint8_t *bytes;
    size_t size;   // bytes
    size_t at;     // byte offset of the next word
    bool bad;
} words;

static int16_t next_i16(words *w)
{
    if (w->at + 2 > w->size) {
        w->bad = true;
        return 0;
    }
    int16_t v = (int16_t)(w->bytes[w->at] | w->bytes[w->at + 1] << 8);
    w->at += 2;
    return v;
}

static uint32_t read_u32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t read_u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

// A count field: non-negative and its elements (elem words each) inside the data.
static bool next_count(words *w, size_t elem, uint32_t *count)
{
    int16_t n = next_i16(w);
    if (w->bad || n < 0 || w->at + (size_t)n * elem * 2 > w->size)
        return false;
    *count = (uint32_t)n;
    return true;
}

static bool mesh_fail(cs_error *err, uint32_t room, uint32_t placed, size_t offset, const char *what)
{
    return cs_fail(err, "rooms[%u].static_meshes[%u]: mesh_data byte %zu: %s", room, placed, offset, what);
}

// The static mesh table entry (32 bytes: id u32, mesh u16, two boxes, flags)
// whose id is `id`, as the byte offset of its mesh in the mesh data.
static bool find_mesh(const cs_tr1_level *level, uint16_t id, size_t *offset)
{
    const cs_tr1_blob *table = &level->sections[CS_TR1_STATIC_MESHES];
    const cs_tr1_blob *pointers = &level->sections[CS_TR1_MESH_POINTERS];
    for (uint32_t i = 0; i < table->count; i++) {
        const uint8_t *entry = table->bytes + (size_t)i * 32;
        if (read_u32(entry) != id)
            continue;
        uint16_t mesh = read_u16(entry + 4);
        if (mesh >= pointers->count)
            return false;
        *offset = read_u32(pointers->bytes + (size_t)mesh * 4);
        return true;
    }
    return false;
}

// Which way a mesh winds its fronts: seen from outside, most faces' right-
// hand normals point away from the vertices' mean. Returns true if most
// point towards it (the faces must then be reversed).
static bool mesh_winds_inwards(const cs_level_static_mesh *m)
{
    double centre[3] = {0, 0, 0};
    for (uint32_t v = 0; v < m->vertex_count; v++)
        for (int a = 0; a < 3; a++)
            centre[a] += m->vertices[v][a] / (double)m->vertex_count;
    double vote = 0;
    for (uint32_t f = 0; f < m->face_count; f++) {
        const int16_t *p[3];
        for (int k = 0; k < 3; k++)
            p[k] = m->vertices[m->faces[f].vertices[k]];
        double a[3], b[3], out[3];
        for (int c = 0; c < 3; c++) {
            a[c] = p[1][c] - p[0][c];
            b[c] = p[2][c] - p[0][c];
            out[c] = (p[0][c] + p[1][c] + p[2][c]) / 3.0 - centre[c];
        }
        double n[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
        double d = n[0] * out[0] + n[1] * out[1] + n[2] * out[2];
        vote += d > 0 ? 1 : d < 0 ? -1 : 0;
    }
    return vote < 0;
}

static bool read_faces(words *w, uint32_t corners, bool textured, cs_level_static_mesh *m)
{
    uint32_t count;
    if (!next_count(w, corners + 1, &count))
        return false;
    for (uint32_t f = 0; f < count; f++) {
        cs_level_static_face *face = &m->faces[m->face_count++];
        face->corners = corners;
        face->textured = textured;
        for (uint32_t k = 0; k < corners; k++)
            face->vertices[k] = (uint16_t)next_i16(w);
        face->texture = (uint16_t)next_i16(w);
        for (uint32_t k = 0; k < corners; k++)
            if (face->vertices[k] >= m->vertex_count)
                return false;
    }
    return true;
}

bool cs_level_static_mesh_decode(const cs_tr1_level *level, uint16_t id, uint32_t room, uint32_t placed,
                                 cs_level_static_mesh *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    size_t offset;
    if (!find_mesh(level, id, &offset))
        return cs_fail(err, "rooms[%u].static_meshes[%u].mesh_id: static mesh %u does not exist or names a missing "
                            "mesh", room, placed, id);
    const cs_tr1_blob *data = &level->sections[CS_TR1_MESH_DATA];
    words w = {data->bytes, data->size, offset, false};
    // Centre (3 i16) and collision radius (i32): not needed to draw.
    for (int i = 0; i < 5; i++)
        next_i16(&w);
    uint32_t nv;
    if (w.bad || !next_count(&w, 3, &nv))
        return mesh_fail(err, room, placed, w.at, "vertex count past the mesh data");
    out->vertex_count = nv;
    out->vertices = calloc(nv ? nv : 1, sizeof *out->vertices);
    CS_ASSERT(out->vertices, "out of memory for %u mesh vertices", nv);
    for (uint32_t v = 0; v < nv; v++)
        for (int a = 0; a < 3; a++)
            out->vertices[v][a] = next_i16(&w);
    // Normals (3 i16 each) or, when negative, vertex lights (1 i16 each).
    int16_t normals = next_i16(&w);
    size_t skip = normals >= 0 ? (size_t)normals * 6 : (size_t)(-(int32_t)normals) * 2;
    if (w.bad || w.at + skip > w.size) {
        cs_level_static_mesh_free(out);
        return mesh_fail(err, room, placed, w.at, "normals or lights past the mesh data");
    }
    w.at += skip;
    // At most 4 groups of faces; each count is checked before its faces are read.
    size_t capacity = w.size > w.at ? (w.size - w.at) / 8 + 1 : 1;
    out->faces = calloc(capacity, sizeof *out->faces);
    CS_ASSERT(out->faces, "out of memory for %zu mesh faces", capacity);
    static const struct {
        uint32_t corners;
        bool textured;
    } groups[4] = {{4, true}, {3, true}, {4, false}, {3, false}};
    for (int g = 0; g < 4; g++) {
        size_t at = w.at;
        if (!read_faces(&w, groups[g].corners, groups[g].textured, out)) {
            cs_level_static_mesh_free(out);
            return mesh_fail(err, room, placed, at, "a face count past the mesh data or a vertex out of range");
        }
    }
    out->inward = mesh_winds_inwards(out);
    return true;
}

void cs_level_static_mesh_free(cs_level_static_mesh *m)
{
    free(m->vertices);
    free(m->faces);
    memset(m, 0, sizeof *m);
}

void cs_level_static_place(const cs_tr1_room_mesh *placed, const int16_t v[3], double tr1_out[3])
{
    // TR1 turns a placed mesh about its (downward) y axis by rotation / 65536
    // of a full turn: x' = x cos + z sin, z' = z cos - x sin.
    double angle = placed->rotation * (2.0 * PI / 65536.0);
    double c = cos(angle), s = sin(angle);
    // Quarter turns exactly (the usual case), so integer vertices stay integers.
    if (placed->rotation % 16384 == 0) {
        static const int cosines[4] = {1, 0, -1, 0};
        int q = placed->rotation / 16384;
        c = cosines[q];
        s = cosines[(q + 3) % 4];
    }
    tr1_out[0] = placed->x + v[0] * c + v[2] * s;
    tr1_out[1] = placed->y + v[1];
    tr1_out[2] = placed->z + v[2] * c - v[0] * s;
}
