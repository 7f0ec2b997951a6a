// level_mesh.h — a TR1 level turned into what the renderer draws: rooms in
// world space (metres, +y up), textured triangles with baked vertex light,
// sprites, the portals between rooms, and the textiles as RGBA8 texels.
//
// Coordinates: TR1 has x east, y down, z north, in units where a sector is
// 1024 wide. World = (x, -y, -z) / units_per_metre: a half turn about x, so
// +y is up, the level is not mirrored and face winding is unchanged (a flip
// of y alone would mirror it). Default scale: 512 units per metre (a sector
// is 2 m, a click of 256 units is 0.5 m).
//
// Static meshes placed in a room (level_statics.h) are part of that room's
// triangles, flagged CS_LEVEL_VERTEX_STATIC: turned and placed as TR1 does,
// lit by the placed mesh's intensity (same scale as the vertex lighting;
// above 8191, no constant light: the room's ambient, same scale), their
// coloured faces in the palette colour (CS_LEVEL_VERTEX_COLOUR).
//
// Faces are one-sided: fronts wind counter-clockwise in the world frame
// (the builder detects which way the file winds them: see
// fronts_wind_clockwise in level_mesh.c). Sprites face the camera.
//
// Built on the CPU once per level; owns only host memory. The render feature
// (host/render/feature_level.c) uploads it and walks the portals per frame.
#pragma once

#include "level_tr1.h"

#include "../../shaders/render/level_shared.h"

#define CS_LEVEL_DEFAULT_UNITS_PER_METRE 512.0

// Three vec4s per vertex, as the shaders read them (shaders/render/level.vert).
typedef struct cs_level_vertex {
    float position[3];
    float light;       // brightness, 1 = the texture as drawn (TR1 0..8191 dark -> 2..0)
    float uv[2];       // texel coordinates in the textile, 0..256
    float tile;        // textile index
    float flags;       // CS_LEVEL_VERTEX_* (level_shared.h)
    float offset[2];   // sprites: right, up offset of this corner in metres
    // Animated textures: anim[0] = the face's entry in cs_level_mesh.anim
    // + 1 (0: not animated), anim[1] = which corner of its object texture
    // this vertex is (0..3), so the shaders can fetch the same corner of
    // the texture the face cycles to.
    float anim[2];
} cs_level_vertex;

// One object texture of an animated range (TR1 animated textures), as the
// shaders read it (three vec4s): its four corners' texel coordinates, its
// textile and alpha-test flag, and where its range lies in the entries. At
// animation step s the k-th entry of a range of n shows the (k + s) mod
// n-th entry's texture (shaders/render/level_anim.glsl).
typedef struct cs_level_anim_entry {
    float corners[4][2];
    float tile;
    float flags;       // CS_LEVEL_VERTEX_ALPHA_TEST or 0
    float range_first; // the range's first entry
    float range_count;
} cs_level_anim_entry;

// TR1 steps its animated textures every 5 frames of its 30 frames a second.
#define CS_LEVEL_ANIM_FRAMES_PER_STEP 5.0
#define CS_LEVEL_ANIM_FRAMES_PER_SECOND 30.0

typedef struct cs_level_room {
    uint32_t first_vertex, vertex_count; // its triangles (and sprites) in cs_level_mesh.vertices
    double min[3], max[3];               // world bounds of the room's box
    uint32_t first_portal, portal_count; // its portals in cs_level_mesh.portals
    // Its sector grid (TR units), for finding the room a point is in:
    // corner x, z; sectors [x * z_sectors + z] in cs_level_mesh.sectors.
    int32_t x, z;
    uint32_t x_sectors, z_sectors, first_sector;
    uint16_t flags;                      // TR1's room flags (CS_TR1_ROOM_WATER: under water)
} cs_level_room;

// What cs_level_room_at needs of a sector (TR units, y down).
typedef struct cs_level_sector {
    int32_t floor, ceiling; // clicks x 256
    int16_t door;           // the room its floor data's portal leads to, -1: none
    uint8_t room_below, room_above; // CS_TR1_NO_ROOM: none
} cs_level_sector;

typedef struct cs_level_portal {
    uint32_t room, to;
    double corners[4][3]; // world space
    double normal[3];     // unit, pointing into `room`
} cs_level_portal;

typedef struct cs_level_mesh {
    double units_per_metre;
    uint32_t vertex_count;
    cs_level_vertex *vertices;
    uint32_t room_count;
    cs_level_room *rooms;
    uint32_t portal_count;
    cs_level_portal *portals;
    uint32_t tile_count;
    uint32_t *texels;     // tile_count x 256 x 256 RGBA8 (sRGB, alpha 0 = transparent)
    uint32_t anim_count;
    cs_level_anim_entry *anim; // the level's animated ranges, entry by entry (anim_textures' order)
    uint32_t sector_count;
    cs_level_sector *sectors;  // every room's, room after room
    uint32_t sprites_dropped;  // room sprites not drawn: their vertex or texture does not exist
    double fog_start, fog_end; // depth cue to black, metres (TR1 style)
    bool flipped;         // the file wound its fronts clockwise: every face was reversed
    uint64_t generation;  // changes whenever the mesh is rebuilt (uploads key on it)
} cs_level_mesh;

// Builds the mesh. Faces whose object texture index is out of range are
// refused with the room and face named (the reader does not check them).
bool cs_level_mesh_build(const cs_tr1_level *level, double units_per_metre, cs_level_mesh *out, cs_error *err);
void cs_level_mesh_free(cs_level_mesh *mesh);

// Reads a .PHD file (cs_tr1_load: the bounded, strict reader) and builds
// its mesh. Messages start with the path.
bool cs_level_mesh_load(const char *path, double units_per_metre, cs_level_mesh *out, cs_error *err);

// The room the point (world frame) is in, as TR1 finds it: start in the
// smallest room box that holds it (boxes of neighbouring rooms overlap by
// their wall columns), look up the sector under the point (clamped into
// the grid as the game's GetFloor does); while its floor data has a portal
// to another room, move there; then follow room_below while the point is
// at or under the sector's floor, or room_above while it is above the
// ceiling. Each walk stops after room_count steps (a loop in a hostile
// file). -1 when no box holds the point.
int cs_level_room_at(const cs_level_mesh *mesh, const double p[3]);
// The room whose box holds the point, or -1: cs_level_room_at's start.
// Boxes are half-open ([min, max) on each axis), so a point on a face two
// boxes share is in one of them. Where boxes overlap, a room whose own
// sector under the point is open floor (not a wall, not a door sector)
// wins over one where it is not, then the smaller box.
int cs_level_room_in_box(const cs_level_mesh *mesh, const double p[3]);

// A camera position inside room `room`'s open space (the headless viewer's
// eye): its box's middle at 40% of the box's height where that is over the
// room's own open floor (not a wall, not a door sector) and between that
// sector's floor and ceiling; else the middle of its open floor sector
// nearest the box's middle, at 40% of that sector's height. Returns false
// (and the box's middle at 40% of its height) when the room has no such
// sector.
bool cs_level_room_eye(const cs_level_mesh *mesh, uint32_t room, double eye[3]);

// The animation step at `seconds` of level time: floor(seconds x 30 / 5);
// 0 for t <= 0 (every face shows its own texture).
uint32_t cs_level_anim_step(double seconds);

// The texture a vertex shows at animation step `step`: its texel
// coordinates, textile and flags (level_anim.glsl's rule, on the CPU).
void cs_level_vertex_animated(const cs_level_mesh *mesh, const cs_level_vertex *vertex, uint32_t step, float uv[2],
                              float *tile, float *flags);

// TR1 room vertex lighting (0 bright .. 8191 dark) as a brightness factor.
double cs_level_brightness(int lighting);

// The baked light of a placed static mesh of room `room`: its intensity on
// the vertex-light scale, or, above 8191 (no constant light: TR1 lights it
// like an item), the room's ambient on the same scale (TR1's convention,
// from memory: ambient 0 is bright, 8191 dark, as the vertex light).
double cs_level_static_brightness(const cs_tr1_level *level, uint32_t room, const cs_tr1_room_mesh *placed);

// The RGBA8 texel an object texture's (u, v) in 0..256 lands on: nearest,
// clamped to the textile, exactly as level.frag fetches it.
uint32_t cs_level_texel(const cs_level_mesh *mesh, uint32_t tile, float u, float v);
// The RGBA8 colour of a vertex's face at (u, v): the texel, or the colour of
// a coloured face (CS_LEVEL_VERTEX_COLOUR), as level.frag reads it.
uint32_t cs_level_vertex_texel(const cs_level_mesh *mesh, const cs_level_vertex *vertex, float u, float v);
