// scene_keys.h — the scene file's keys as data: one table of rows per block
// ("materials[]", "surface", "pbf", ...). A row is a key: its type, unit,
// range, default, one line of description and where its value lives (an
// offset into the struct the block fills, CS_KEY_AT). The same rows drive
//   - the parser: which keys a block allows (an unknown one gets the nearest
//     row's name: "did you mean"), each value's type and range checks and
//     their messages (`file: key.path: what is wrong`);
//   - docs/scenes.md's key reference (`cistern help --scene-keys-markdown`,
//     checked by tests/scene_keys_docs.sh);
//   - a parameter panel: walk a block's rows, read and write a loaded
//     scene's values through them with the same range checks
//     (cs_scene_key_get / cs_scene_key_set).
//
// Keys whose reading is more than a typed value — arrays of blocks, shapes,
// paths, values whose default or meaning depends on other keys — are rows
// too (so the block's key list, the docs and "did you mean" know them) with
// CS_KEY_BY_CODE: the block's own code reads them, and says why there.
// Solver blocks keep their table next to their solver (fluid_pbf.c's
// cs_pbf_keys) and name it in their cs_sim_ops.
#pragma once

#include "scene.h"

#include <stddef.h>
#include <stdio.h>

typedef enum cs_key_type {
    CS_KEY_NUMBER,    // float (or double, rounded through float) in [min, max]
    CS_KEY_UINT,      // uint32_t, a whole number in [min, max]
    CS_KEY_BOOL,      // bool: true or false
    CS_KEY_ENUM,      // one of `choices` ("a|b|c"): its index, in an int-sized enum
    CS_KEY_STRING,    // char[size], shorter than size
    CS_KEY_VEC3,      // float[3]; CS_KEY_SPATIAL: 2 numbers in a 2D scene (z = 0)
    CS_KEY_COLOR,     // float[3], linear RGB, each in [0, 1]
    CS_KEY_DIRECTION, // float[3], nonzero, stored normalised (spatial)
    CS_KEY_OBJECT,    // an object its block's code reads (always CS_KEY_BY_CODE)
    CS_KEY_ARRAY,     // an array (of blocks, planes, triangles) its block's code reads (CS_KEY_BY_CODE)
} cs_key_type;

enum {
    CS_KEY_BY_CODE = 1u << 0,  // the block's code reads it (cs_scene_keys_read skips it)
    CS_KEY_POSITIVE = 1u << 1, // NUMBER: > 0 and a normal float (min is 0)
    CS_KEY_MIN_OPEN = 1u << 2, // NUMBER: > min rather than >= min
    CS_KEY_SPATIAL = 1u << 3,  // VEC3: a position-like vector (2D: [x, y] or z = 0)
    CS_KEY_COORD = 1u << 4,    // VEC3: each component within +-max ("coordinates must lie within")
    CS_KEY_LIMIT = 1u << 5,    // VEC3: each component within +-max ("at most max in magnitude")
    CS_KEY_REQUIRED = 1u << 6, // missing is an error
    CS_KEY_LIVE = 1u << 7,     // a panel may change it while the scene runs
};

typedef struct cs_scene_key {
    const char *key;       // "viscosity"
    cs_key_type type;
    size_t at, size;       // CS_KEY_AT(struct, member); size 0: not stored as such (say where in help)
    double min, max;       // NUMBER, UINT: the accepted range; VEC3 with COORD or LIMIT: max |component|
    uint32_t flags;
    const char *choices;   // ENUM: "material|speed|density"
    const char *unit;      // "m", "kg/m^3", "1/s", "" (none)
    const char *def;       // the default, as the docs say it
    const char *help;      // one line
} cs_scene_key;

#define CS_KEY_AT(type, member) .at = offsetof(type, member), .size = sizeof(((type *)0)->member)

typedef struct cs_scene_key_block {
    const char *path;      // its key path in the docs: "fluids[].materials[]"
    const char *what;      // one line: what the block is
    const cs_scene_key *keys;
    uint32_t count;
    // Where a panel finds the struct of entry `index` of this block in a
    // loaded scene (the file's, or a fluid's cs_scene for a fluid's blocks);
    // NULL when the block's struct is not in a cs_scene (a solver's block:
    // the solver holds it). Returns NULL past the last entry.
    void *(*locate)(cs_scene *scene, uint32_t index);
} cs_scene_key_block;

// The scene layer's blocks, one by one (scene_key_tables.c).
extern const cs_scene_key_block *const cs_scene_world_keys;       // the top level ("")
extern const cs_scene_key_block *const cs_scene_fluid_keys;       // fluids[]
extern const cs_scene_key_block *const cs_scene_material_keys;    // fluids[].materials[]
extern const cs_scene_key_block *const cs_scene_fluid_block_keys; // fluids[].blocks[]
extern const cs_scene_key_block *const cs_scene_emitter_keys;     // fluids[].emitters[]
extern const cs_scene_key_block *const cs_scene_wall_keys;        // walls[]
extern const cs_scene_key_block *const cs_scene_body_keys;        // bodies[]
extern const cs_scene_key_block *const cs_scene_camera_keys;      // camera
extern const cs_scene_key_block *const cs_scene_render_keys;      // render
extern const cs_scene_key_block *const cs_scene_pointer_keys;     // pointer
extern const cs_scene_key_block *const cs_scene_realtime_keys;    // realtime
extern const cs_scene_key_block *const cs_scene_surface_keys;     // surface, fluids[].surface
extern const cs_scene_key_block *const cs_scene_radiosity_keys;   // radiosity
extern const cs_scene_key_block *const cs_scene_light_keys;       // lights[]
extern const cs_scene_key_block *const cs_scene_probe_keys;       // radiosity.probes
extern const cs_scene_key_block *const cs_scene_level_keys;       // level

// The blocks of the scene file the scene layer reads, in docs order.
const cs_scene_key_block *const *cs_scene_key_blocks(uint32_t *count);
// A block by its docs path ("surface", "fluids[].materials[]"); NULL if none.
const cs_scene_key_block *cs_scene_key_block_find(const char *path);
// A row by key; NULL if the block has none.
const cs_scene_key *cs_scene_key_find(const cs_scene_key_block *block, const char *key);

// ---- parsing (messages name `path.key` of the scene's file) ----
// Refuses anything but an object, a key no row names (with the nearest
// row's name) and duplicate keys.
bool cs_scene_keys_check(const cs_scene *scene, const cJSON *object, const char *path,
                         const cs_scene_key_block *block, cs_error *err);
// The same, with one more key allowed (a fluid's solver block, named like
// its solver).
bool cs_scene_keys_check_with(const cs_scene *scene, const cJSON *object, const char *path,
                              const cs_scene_key_block *block, const char *extra, cs_error *err);
// Reads one row's value from object into base + row->at when present.
bool cs_scene_key_read(const cs_scene *scene, const cJSON *object, const char *path, const cs_scene_key *row,
                       void *base, cs_error *err);
// The same, by key (a key the block has no row for is a programming error).
bool cs_scene_key_read_named(const cs_scene *scene, const cJSON *object, const char *path,
                             const cs_scene_key_block *block, const char *key, void *base, cs_error *err);
// cs_scene_keys_check, then every row without CS_KEY_BY_CODE, in order.
bool cs_scene_keys_read(const cs_scene *scene, const cJSON *object, const char *path,
                        const cs_scene_key_block *block, void *base, cs_error *err);

// ---- a panel's access to a loaded scene's values ----
// NUMBER, UINT, BOOL (0 or 1), ENUM (the index); VEC3 and COLOR: component c.
// A row that is not stored (size 0) or an OBJECT or STRING reads NAN.
double cs_scene_key_get(const cs_scene_key *row, const void *base, uint32_t component);
// Writes v after the row's checks (type, whole number, range, a component
// index); on refusal leaves the value and says why in err (no file name).
bool cs_scene_key_set(const cs_scene_key *row, void *base, uint32_t component, double v, cs_error *err);
int64_t cs_scene_key_get_int(const cs_scene_key *row, const void *base);
bool cs_scene_key_set_int(const cs_scene_key *row, void *base, int64_t v, cs_error *err);
bool cs_scene_key_get_bool(const cs_scene_key *row, const void *base);
bool cs_scene_key_set_bool(const cs_scene_key *row, void *base, bool v, cs_error *err);

// ---- docs ----
// One block's table for docs/scenes.md (key, type, unit, range, default, what).
void cs_scene_keys_print_markdown(FILE *out, const cs_scene_key_block *block);

// The nearest of `names` to `word` when it is close enough to be a typo
// (edit distance at most a third of its length, at least 2); NULL if none.
const char *cs_scene_keys_nearest(const char *word, const char *const *names, uint32_t count);
