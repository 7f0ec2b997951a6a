// level_statics.h — static meshes (TR1 room "static meshes": furniture,
// plants, pillars) decoded from the level's mesh data so that the level
// mesh (level_mesh.c) draws them in their room.
//
// Mesh data layout (TR1, words): centre 3 x i16, collision radius i32,
// vertex count i16 + vertices 3 x i16, normal count i16 + normals 3 x i16
// (or, when negative, that many vertex lights i16), then four face groups,
// each a count i16 and faces: textured rectangles (4 vertices + object
// texture), textured triangles (3 + texture), coloured rectangles (4 +
// palette index in the low byte), coloured triangles (3 + palette index).
// A placed mesh names a static mesh by id (the static mesh table's first
// field); the table names a mesh pointer, a byte offset into the mesh data.
// Every count and index is checked against the data (bad files never crash).
#pragma once

#include "level_tr1.h"

typedef struct cs_level_static_face {
    uint16_t vertices[4];
    uint16_t texture;   // object texture, or palette index (low byte) when not textured
    uint32_t corners;   // 3 or 4
    bool textured;
} cs_level_static_face;

typedef struct cs_level_static_mesh {
    uint32_t vertex_count;
    int16_t (*vertices)[3]; // TR1 units, relative to the placed position, y down
    uint32_t face_count;
    cs_level_static_face *faces;
    bool inward;            // most fronts face the mesh's middle: reverse every face
} cs_level_static_mesh;

// Decodes static mesh `id` for placed mesh `placed` of room `room` (named in
// messages). False with a message naming the placed mesh and the mesh data
// byte when the id is missing or the data does not hold the mesh.
bool cs_level_static_mesh_decode(const cs_tr1_level *level, uint16_t id, uint32_t room, uint32_t placed,
                                 cs_level_static_mesh *out, cs_error *err);
void cs_level_static_mesh_free(cs_level_static_mesh *m);

// A mesh vertex in TR1 level coordinates: turned about y by the placed
// rotation (rotation / 65536 of a full turn; x' = x cos + z sin,
// z' = z cos - x sin, exact for quarter turns) and moved to the placed
// position.
void cs_level_static_place(const cs_tr1_room_mesh *placed, const int16_t v[3], double tr1_out[3]);
