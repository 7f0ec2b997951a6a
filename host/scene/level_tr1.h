// level_tr1.h — Tomb Raider 1 level files (.PHD): a strict reader, a writer
// that produces the same bytes from the same struct, and the demo generator.
//
// Layout and what is checked: docs/levels.md. The reader interprets rooms
// (geometry, portals, sectors, lights, static meshes), textiles, object and
// sprite textures and the palette; every other section is validated against
// the file size and kept verbatim, so cs_tr1_write(cs_tr1_read(x)) == x.
// Users bring their own game files: nothing of the game is in this repo.
#pragma once

#include "common.h"

#define CS_TR1_VERSION 0x00000020u
#define CS_TR1_TEXTILE_BYTES 65536u // 256 x 256 palette indices
#define CS_TR1_NO_ROOM 255u         // sector.room_below / room_above: none

typedef struct cs_tr1_vertex {
    int16_t x, y, z; // x, z relative to the room; y absolute (down is +)
    int16_t lighting;
} cs_tr1_vertex;

typedef struct cs_tr1_face4 {
    uint16_t vertices[4];
    uint16_t texture; // object texture index
} cs_tr1_face4;

typedef struct cs_tr1_face3 {
    uint16_t vertices[3];
    uint16_t texture;
} cs_tr1_face3;

typedef struct cs_tr1_sprite {
    int16_t vertex;
    int16_t texture; // sprite texture index
} cs_tr1_sprite;

typedef struct cs_tr1_portal {
    uint16_t adjoining_room;
    int16_t normal[3];
    int16_t vertices[4][3]; // room-relative, like the room's vertices
} cs_tr1_portal;

typedef struct cs_tr1_sector {
    uint16_t fd_index, box_index;
    uint8_t room_below;
    int8_t floor; // in clicks of 256 units
    uint8_t room_above;
    int8_t ceiling;
} cs_tr1_sector;

typedef struct cs_tr1_light {
    int32_t x, y, z;
    // TR1 stores it signed (0 off .. 8191 full); a negative light darkens
    // (the game adds it signed to an item's light).
    int16_t intensity;
    uint32_t fade;
} cs_tr1_light;

typedef struct cs_tr1_room_mesh {
    int32_t x, y, z;
    uint16_t rotation, intensity, mesh_id;
} cs_tr1_room_mesh;

typedef struct cs_tr1_room {
    int32_t x, z, y_bottom, y_top;
    uint32_t vertex_count, rect_count, tri_count, sprite_count;
    cs_tr1_vertex *vertices;
    cs_tr1_face4 *rects;
    cs_tr1_face3 *tris;
    cs_tr1_sprite *sprites;
    uint32_t portal_count;
    cs_tr1_portal *portals;
    uint16_t z_sectors, x_sectors;
    cs_tr1_sector *sectors; // x_sectors columns of z_sectors: [x * z_sectors + z]
    int16_t ambient;
    uint32_t light_count;
    cs_tr1_light *lights;
    uint32_t mesh_count;
    cs_tr1_room_mesh *meshes;
    int16_t alternate_room, flags;
    size_t data_offset; // file offset of the room's vertex count (for messages)
    // Bytes of the num_data_words block after the geometry (real files may
    // say more words than the geometry takes; the game seeks by the count).
    // Kept so the writer writes the same block back; 0 normally. Even.
    uint32_t extra_data_size;
    uint8_t *extra_data;
} cs_tr1_room;

typedef struct cs_tr1_object_texture {
    uint16_t attribute, tile;
    uint8_t uv[4][4]; // per vertex: x fraction, x pixel, y fraction, y pixel
} cs_tr1_object_texture;

typedef struct cs_tr1_sprite_texture {
    uint16_t tile;
    uint8_t x, y;
    uint16_t width, height;
    int16_t left, top, right, bottom;
} cs_tr1_sprite_texture;

// Sections after the rooms, in file order. The ones marked (*) are read
// into fields below; the others are kept as bytes.
typedef enum cs_tr1_section {
    CS_TR1_FLOOR_DATA,
    CS_TR1_MESH_DATA,
    CS_TR1_MESH_POINTERS,
    CS_TR1_ANIMATIONS,
    CS_TR1_STATE_CHANGES,
    CS_TR1_ANIM_DISPATCHES,
    CS_TR1_ANIM_COMMANDS,
    CS_TR1_MESH_TREES,
    CS_TR1_FRAMES,
    CS_TR1_MOVEABLES,
    CS_TR1_STATIC_MESHES,
    CS_TR1_OBJECT_TEXTURES, // (*)
    CS_TR1_SPRITE_TEXTURES, // (*)
    CS_TR1_SPRITE_SEQUENCES,
    CS_TR1_CAMERAS,
    CS_TR1_SOUND_SOURCES,
    CS_TR1_BOXES,
    CS_TR1_OVERLAPS,
    CS_TR1_ZONES, // no count of its own: six arrays of NumBoxes u16 (12 bytes per box in all)
    CS_TR1_ANIMATED_TEXTURES,
    CS_TR1_ENTITIES,
    CS_TR1_LIGHT_MAP, // 32 x 256 bytes
    CS_TR1_PALETTE,   // (*) 256 x RGB, 6-bit
    CS_TR1_CINEMATIC_FRAMES,
    CS_TR1_DEMO_DATA,
    CS_TR1_SOUND_MAP, // 256 x i16
    CS_TR1_SOUND_DETAILS,
    CS_TR1_SAMPLES,
    CS_TR1_SAMPLE_INDICES,
    CS_TR1_SECTION_COUNT
} cs_tr1_section;

// One section as it sits in the file.
typedef struct cs_tr1_blob {
    uint32_t count;  // elements (the count field's value; fixed sections: 1)
    size_t offset;   // file offset of the first element (after the count)
    size_t size;     // bytes of elements
    uint8_t *bytes;  // raw sections only (NULL for the (*) ones)
} cs_tr1_blob;

// Oddities of real files the reader tolerates (each counted, with the
// first one's offset and field; cs_tr1_warnings words them), and keeps so
// that the writer writes the same bytes back.
typedef enum cs_tr1_oddity {
    CS_TR1_ODD_ANIM_PADDING,  // zero words after the last animated texture range
    CS_TR1_ODD_DEMO_PALETTE,  // demo-file layout: the palette between sprite sequences and cameras
    CS_TR1_ODD_SPRITE,        // a room sprite whose vertex or sprite texture does not exist: not drawn
    CS_TR1_ODD_DATA_WORDS,    // num_data_words longer than the room geometry: the rest kept
    CS_TR1_ODDITY_COUNT
} cs_tr1_oddity;

typedef struct cs_tr1_tolerated {
    uint32_t count;
    size_t first_at;  // file offset of the first one
    char first[96];   // its field ("rooms[3].sprites[1].texture")
} cs_tr1_tolerated;

typedef struct cs_tr1_level {
    uint32_t textile_count;
    uint8_t *textiles; // textile_count x 65536 palette indices
    uint32_t unused;
    uint32_t room_count;
    cs_tr1_room *rooms;
    cs_tr1_blob sections[CS_TR1_SECTION_COUNT];
    uint32_t object_texture_count;
    cs_tr1_object_texture *object_textures;
    uint32_t sprite_texture_count;
    cs_tr1_sprite_texture *sprite_textures;
    uint8_t palette[256][3]; // 6-bit components (0..63)
    // Animated textures, decoded from the animated_textures section (which
    // keeps its bytes, so the writer writes them back as read): ranges of
    // object textures that cycle. Range r lists anim_textures[first ..
    // first + count - 1]; a face whose texture is the k-th of a range shows
    // the ((k + step) mod count)-th at animation step `step`.
    uint32_t anim_range_count;
    struct cs_tr1_anim_range {
        uint32_t first, count;
    } *anim_ranges;
    uint32_t anim_texture_count;
    uint16_t *anim_textures;
    // The demo-file layout: the palette sits between the sprite sequences
    // and the cameras, not after the light map (the writer follows it).
    bool demo_palette;
    cs_tr1_tolerated tolerated[CS_TR1_ODDITY_COUNT];
} cs_tr1_level;

typedef struct cs_tr1_anim_range cs_tr1_anim_range;

// Sets the level's animated texture ranges (ranges[r] lists counts[r]
// object texture indices, each range at least 1) and encodes them into the
// animated_textures section the writer writes: TR1's uint16 words, the
// range count, then per range (its texture count - 1) and its indices.
// False when a count does not fit a uint16 word.
bool cs_tr1_set_animated_textures(cs_tr1_level *level, const uint16_t *const *ranges, const uint32_t *counts,
                                  uint32_t range_count);

// One line per kind of tolerated oddity ("warning: ..."), joined by '\n',
// into out (always terminated); returns how many kinds there were (0: none).
uint32_t cs_tr1_warnings(const cs_tr1_level *level, char *out, size_t size);

// Whether a room sprite can be drawn: its vertex and its sprite texture
// exist (the reader keeps the ones that do not, with a warning).
bool cs_tr1_sprite_drawable(const cs_tr1_level *level, const cs_tr1_room *room, const cs_tr1_sprite *sprite);

// The room a sector's floor data leads to through a portal (TR1's "door"
// floor data function, found as the game's GetDoor finds it: after an
// optional floor slant and ceiling slant entry), or -1: none, an fd_index
// of 0 or past the floor data, or a room that does not exist.
int cs_tr1_sector_door(const cs_tr1_level *level, const cs_tr1_sector *sector);

// A floor or ceiling slant (TR1 floor data functions 2 and 3): the data
// word's low byte is the x slope, its high byte the z slope, each signed, in
// clicks (256 units) of height change across the sector's 1024 units.
typedef struct cs_tr1_slant {
    int8_t x, z;
} cs_tr1_slant;

// A sector's floor and ceiling slants, read as the game's GetHeight and
// GetCeiling find them: a floor slant entry first, then a ceiling slant
// entry (either may be missing: {0, 0}, flat). False when the sector has
// neither (fd_index 0, past the floor data, or other entries only).
bool cs_tr1_sector_slants(const cs_tr1_level *level, const cs_tr1_sector *sector, cs_tr1_slant *floor,
                          cs_tr1_slant *ceiling);

// The height (TR units, y down) of a sector's floor or ceiling at (lx, lz),
// the offset within the sector in units (0 .. 1024), as the game computes
// it (TRX's M_GetFloorTiltHeight / M_GetCeilingTiltHeight), continuous: the
// game's 1023 and >> 2 become 1024 and / 4. A slant only ever lowers a floor
// and raises a ceiling: the sector's stored height is the floor's highest
// and the ceiling's lowest point. Floor: each x or z unit lowers it by one
// click across the sector, towards -x (-z) for a positive slope, +x (+z)
// for a negative one. Ceiling: raised towards +x for a positive x slope
// (-x for negative), towards -z for a positive z slope (+z for negative):
// the game's z is mirrored against its x there.
double cs_tr1_floor_height(const cs_tr1_sector *sector, cs_tr1_slant slant, double lx, double lz);
double cs_tr1_ceiling_height(const cs_tr1_sector *sector, cs_tr1_slant slant, double lx, double lz);

// The name of a section, as used in messages ("floor_data").
const char *cs_tr1_section_name(cs_tr1_section s);

// Reads a whole .PHD file. On failure fills err with
// "PATH: byte N: FIELD: what" and leaves *out empty (cs_tr1_free is safe).
bool cs_tr1_read(const uint8_t *data, size_t size, const char *path, cs_tr1_level *out, cs_error *err);
void cs_tr1_free(cs_tr1_level *level);
// Frees one room's arrays (cs_tr1_free does it for every room).
void cs_tr1_room_free(cs_tr1_room *room);

// Reads the file at path (a regular file of at most CS_INPUT_FILE_MAX bytes,
// file_io.h) with cs_tr1_read; *size_out (may be NULL) gets its size. The
// tolerated oddities' warnings go to stderr, "cistern: PATH: warning: ...".
bool cs_tr1_load(const char *path, cs_tr1_level *out, size_t *size_out, cs_error *err);

// Writes the level as a .PHD file into a malloc'd buffer (free() it).
// Returns false (and writes nothing) only if a count does not fit its field
// or a raw section's size is not its count times its element size.
bool cs_tr1_write(const cs_tr1_level *level, uint8_t **data, size_t *size);

// Totals for summaries.
typedef struct cs_tr1_stats {
    uint32_t rooms, portals, sectors, vertices, rects, tris, sprites, lights, room_meshes;
    uint32_t textiles, object_textures, sprite_textures, meshes, static_meshes, moveables, entities;
} cs_tr1_stats;
cs_tr1_stats cs_tr1_count(const cs_tr1_level *level);

// TR1's room flag for a room under water.
#define CS_TR1_ROOM_WATER 0x0001

// The demo level shipped as levels/cistern_demo.phd: four rooms on three
// heights joined by wall and floor portals, generated textures and palette,
// lights, static meshes and sprites; the north room (3) is a water room
// (level_gen.c). Deterministic.
void cs_tr1_generate_demo(cs_tr1_level *out);

// A fixture for the fluids, built on the demo level (level_gen.c): the
// east room (1) becomes a ramp, its floor descending two clicks a sector
// towards +x over its two middle sector columns (floor slants, x slope -2)
// from the hall's floor height to its old floor, and its ceiling rising two
// clicks over its first and last sector rows (ceiling slants, z slope +2
// and -2); the faces follow. The north room (3) is a water room
// (CS_TR1_ROOM_WATER), as in the demo. Deterministic.
void cs_tr1_generate_fixture(cs_tr1_level *out);

// A fixture built as the retail levels are (level_gen.c): three rooms whose
// sector grids have a ring of wall sectors. West (0, 6 x 4 sectors) and
// middle (1, 6 x 4) share a floor (y 0, 2 sectors high) and overlap by two
// sector columns: each one's door sectors (ring sectors with a door floor
// data entry naming the other) lie over the other's floor, and the wall
// portal between them is the plane x = 5 sectors, z 1..3 sectors. Under the
// middle room's east half lies the lower room (2, a water room, 2 sectors
// deep), joined by a floor portal at y = 0 over x 7..9, z 1..3 sectors.
// Floors are drawn, walls are not. Deterministic.
void cs_tr1_generate_ringed(cs_tr1_level *out);
