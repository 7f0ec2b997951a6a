// scene_edit.h — edits of a scene's JSON tree by key path, and the tree
// written back as a scene file.
//
// An edit is `PATH=VALUE` with PATH spelled the way the parser's messages
// spell a key ("fluids[0].materials[0].viscosity", "gravity[1]",
// "surface.iso") and VALUE JSON text (a number, true/false, "a string", an
// array, an object), where a bare word that is not JSON is taken as a
// string (solver=sph) and `null` removes the key (back to its default).
//
// Edits change the file's tree before the scene parser reads it, so an
// edited value passes every check and message of the parser unchanged: a
// key no block has gets the parser's "did you mean", a value out of range
// the parser's range. A value given by an edit and the same value written
// in the file give the same scene, bit for bit (both are read by cJSON's
// number parser). The scene keeps the edited tree (scene->json), which is
// what cs_scene_save writes: `cistern run --set`, a scene reloaded while it
// runs (run.c) and a panel's "save as" go through this one module.
#pragma once

#include "scene.h"

#define CS_SCENE_EDIT_PATH_MAX 256
#define CS_SCENE_EDIT_VALUE_MAX 2048

typedef struct cs_scene_edit {
    char path[CS_SCENE_EDIT_PATH_MAX];   // "fluids[0].materials[0].viscosity"
    char value[CS_SCENE_EDIT_VALUE_MAX]; // "0.2" (JSON text, or a bare word)
} cs_scene_edit;

// "PATH=VALUE" (split at the first '='): both non-empty, PATH made of keys
// and [index] steps, each within the sizes above. Messages start with the
// text given.
bool cs_scene_edit_parse(const char *text, cs_scene_edit *edit, cs_error *err);
// A list of edits in the order given (`--set` is repeatable; a later edit
// of the same key wins, as in the tree).
typedef struct cs_scene_edits {
    cs_scene_edit *items;
    uint32_t count;
} cs_scene_edits;
// cs_scene_edit_parse, then appended.
bool cs_scene_edits_add(cs_scene_edits *list, const char *text, cs_error *err);
void cs_scene_edits_free(cs_scene_edits *list);
// An edit of PATH to the number v, printed so that it reads back as the
// same double (so a float field gets the same float). False when PATH is
// too long.
bool cs_scene_edit_number(cs_scene_edit *edit, const char *path, double v, cs_error *err);
// Sets PATH in the tree to VALUE: objects on the way that are missing are
// created (the parser then judges their keys), an array index must exist.
// Messages: `PATH: what is wrong` (with "did you mean" for a key that is
// not there where an array was wanted). On failure the tree is unchanged.
bool cs_scene_edit_apply(cJSON *root, const cs_scene_edit *edit, cs_error *err);
// cs_scene_load with `count` edits applied in order to the file's tree
// before it is parsed. A failed edit: `FILE: edit PATH=VALUE: what`; a
// parser message about a key an edit set says which edit set it.
bool cs_scene_load_edited(const char *name, const cs_scene_edit *edits, uint32_t count, cs_scene *scene,
                          cs_error *err);
// Appends " (set by the edit PATH=VALUE)" to a message about the key an
// edit set (`: PATH:` in it), for messages of a later reader: a solver's
// block is read when the world is made.
void cs_scene_edit_blame(cs_error *err, const cs_scene_edit *edits, uint32_t count);
// Writes the scene's tree (with its edits) to `path` as JSON, atomically
// (PATH.tmp renamed onto PATH). Numbers are printed so that they read back
// as the same doubles: loading the saved file gives the same scene. A
// "level" file path stays as written, relative to the scene's folder: save
// next to the original (or fix "level.file") when the scene has a level.
bool cs_scene_save(const cs_scene *scene, const char *path, cs_error *err);
// A panel's "save as": the scene file `name` with `count` edits applied,
// parsed (every check of the parser) and written to `path`; nothing is
// written when it does not parse. Editing a loaded scene's tree in place
// is for leaf values only (the scene points into its objects: a solver's
// block, "surface"); a list of edits replayed here never touches a live
// scene.
bool cs_scene_save_edited(const char *name, const cs_scene_edit *edits, uint32_t count, const char *path,
                          cs_error *err);
