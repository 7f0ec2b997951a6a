// scene_edit.c — key-path edits of a scene's JSON tree, and the tree saved
// as a scene file (scene_edit.h).
#define _POSIX_C_SOURCE 200809L
#include "scene_edit.h"

#include "scene_json.h"

#include "file_io.h"
#include "scene_keys.h"

#include <ctype.h>
#include <math.h>

// One step of a key path: a key, then any number of [index].
#define MAX_STEPS 32
typedef struct path_step {
    char key[64];       // empty: an [index] step
    uint32_t index;
} path_step;

static bool key_char(char c)
{
    return c && c != '.' && c != '[' && c != ']' && c != '=' && !isspace((unsigned char)c);
}

// "fluids[0].materials[1].viscosity" -> fluids, [0], materials, [1], viscosity.
static bool split_path(const char *path, path_step *steps, uint32_t *count, cs_error *err)
{
    *count = 0;
    const char *p = path;
    for (;;) {
        size_t n = 0;
        while (key_char(p[n]))
            n++;
        if (n == 0)
            return cs_fail(err, "%s: a key path is keys joined by '.', each with optional [index] "
                                "(fluids[0].materials[0].viscosity); a key is missing at character %zu",
                           path, (size_t)(p - path) + 1);
        if (n >= sizeof steps[0].key || *count == MAX_STEPS)
            return cs_fail(err, "%s: key path too long", path);
        steps[*count] = (path_step){0};
        memcpy(steps[*count].key, p, n);
        (*count)++;
        p += n;
        while (*p == '[') {
            char *end;
            if (!isdigit((unsigned char)p[1]))
                return cs_fail(err, "%s: [ must hold an index 0, 1, ... (character %zu)", path,
                               (size_t)(p - path) + 2);
            unsigned long index = strtoul(p + 1, &end, 10);
            if (*end != ']' || index > UINT16_MAX)
                return cs_fail(err, "%s: [%.*s is not an index [N] (character %zu)", path,
                               (int)CS_MIN((size_t)(end - p), (size_t)16), p + 1, (size_t)(p - path) + 1);
            if (*count == MAX_STEPS)
                return cs_fail(err, "%s: key path too long", path);
            steps[(*count)++] = (path_step){.index = (uint32_t)index};
            p = end + 1;
        }
        if (*p == 0)
            return true;
        if (*p != '.')
            return cs_fail(err, "%s: unexpected '%c' at character %zu (keys are joined by '.')", path, *p,
                           (size_t)(p - path) + 1);
        p++;
    }
}

bool cs_scene_edit_parse(const char *text, cs_scene_edit *edit, cs_error *err)
{
    *edit = (cs_scene_edit){0};
    const char *eq = strchr(text, '=');
    if (!eq)
        return cs_fail(err, "%.300s: wants KEY.PATH=VALUE, e.g. fluids[0].materials[0].viscosity=0.2", text);
    size_t path_len = (size_t)(eq - text);
    if (path_len == 0)
        return cs_fail(err, "%.300s: no key path before '='", text);
    if (eq[1] == 0)
        return cs_fail(err, "%.300s: no value after '=' (a number, true/false, a word, [..] or \"text\"; null "
                            "removes the key)", text);
    if (path_len >= sizeof edit->path || strlen(eq + 1) >= sizeof edit->value)
        return cs_fail(err, "%.300s: too long (key path under %zu characters, value under %zu)", text,
                       sizeof edit->path, sizeof edit->value);
    memcpy(edit->path, text, path_len);
    snprintf(edit->value, sizeof edit->value, "%s", eq + 1);
    path_step steps[MAX_STEPS];
    uint32_t count;
    return split_path(edit->path, steps, &count, err);
}

bool cs_scene_edits_add(cs_scene_edits *list, const char *text, cs_error *err)
{
    cs_scene_edit edit;
    if (!cs_scene_edit_parse(text, &edit, err))
        return false;
    cs_scene_edit *grown = realloc(list->items, (list->count + 1) * sizeof *grown);
    CS_ASSERT(grown, "out of memory for %u scene edits", list->count + 1);
    list->items = grown;
    list->items[list->count++] = edit;
    return true;
}

void cs_scene_edits_free(cs_scene_edits *list)
{
    free(list->items);
    *list = (cs_scene_edits){0};
}

bool cs_scene_edit_number(cs_scene_edit *edit, const char *path, double v, cs_error *err)
{
    *edit = (cs_scene_edit){0};
    if (!isfinite(v))
        return cs_fail(err, "%s: %g is not a number JSON can hold", path, v);
    if (strlen(path) >= sizeof edit->path)
        return cs_fail(err, "%.300s: key path too long", path);
    snprintf(edit->path, sizeof edit->path, "%s", path);
    snprintf(edit->value, sizeof edit->value, "%.17g", v);
    return true;
}

// The value as JSON; a bare word that is not JSON is a string.
static cJSON *parse_value(const char *text)
{
    cJSON *value = cJSON_ParseWithOpts(text, NULL, true);
    return value ? value : cJSON_CreateString(text);
}

// The key path up to and including step `upto`, for messages.
static void path_prefix(const path_step *steps, uint32_t upto, char *out, size_t size)
{
    size_t used = 0;
    out[0] = 0;
    for (uint32_t i = 0; i <= upto && used < size; i++) {
        if (steps[i].key[0])
            used += (size_t)snprintf(out + used, size - used, "%s%s", i ? "." : "", steps[i].key);
        else
            used += (size_t)snprintf(out + used, size - used, "[%u]", steps[i].index);
    }
}

// "did you mean": the keys the object holds and every key a block of the
// scene layer has.
static const char *nearest_key(const cJSON *object, const char *word)
{
    enum { most = 512 };
    const char *names[most];
    uint32_t n = 0;
    for (const cJSON *c = object->child; c && n < most; c = c->next)
        if (c->string)
            names[n++] = c->string;
    uint32_t block_count;
    const cs_scene_key_block *const *blocks = cs_scene_key_blocks(&block_count);
    for (uint32_t b = 0; b < block_count; b++)
        for (uint32_t k = 0; k < blocks[b]->count && n < most; k++)
            names[n++] = blocks[b]->keys[k].key;
    return cs_scene_keys_nearest(word, names, n);
}

bool cs_scene_edit_apply(cJSON *root, const cs_scene_edit *edit, cs_error *err)
{
    path_step steps[MAX_STEPS];
    uint32_t count;
    if (!split_path(edit->path, steps, &count, err))
        return false;
    if (!cJSON_IsObject(root))
        return cs_fail(err, "%s: the scene's top level is not an object", edit->path);
    bool remove = strcmp(edit->value, "null") == 0;
    char at[CS_SCENE_EDIT_PATH_MAX];
    // Walk to the parent of the last step; objects created on the way are
    // remembered so that a refusal further on takes them out again.
    cJSON *parent = root, *created = NULL, *created_in = NULL;
    for (uint32_t i = 0; i + 1 < count; i++) {
        const path_step *s = &steps[i];
        path_prefix(steps, i, at, sizeof at);
        cJSON *next;
        if (s->key[0]) {
            if (!cJSON_IsObject(parent)) {
                path_prefix(steps, i - 1, at, sizeof at); // i > 0: the root is an object
                goto refuse_not_object;
            }
            next = cJSON_GetObjectItemCaseSensitive(parent, s->key);
            if (!next && !steps[i + 1].key[0]) {
                const char *near = nearest_key(parent, s->key);
                cs_fail(err, "%s: the scene has no \"%s\" here to index%s%s%s", at, s->key,
                        near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
                goto refused;
            }
            if (!next) {
                if (remove) { // nothing to remove
                    cs_fail(err, "%s: the scene has no \"%s\" (nothing to remove)", at, s->key);
                    goto refused;
                }
                next = cJSON_AddObjectToObject(parent, s->key);
                CS_ASSERT(next, "out of memory editing the scene");
                if (!created)
                    created = next, created_in = parent;
            }
        } else {
            if (!cJSON_IsArray(parent)) {
                path_prefix(steps, i - 1, at, sizeof at);
                cs_fail(err, "%s: is %s, not an array", at, cs_json_type_name(parent));
                goto refused;
            }
            int size = cJSON_GetArraySize(parent);
            if ((int)s->index >= size) {
                cs_fail(err, "%s: the array holds %d entr%s%s", at, size, size == 1 ? "y" : "ies",
                        size ? "" : " (add one to the file first)");
                goto refused;
            }
            next = cJSON_GetArrayItem(parent, (int)s->index);
        }
        parent = next;
    }
    const path_step *last = &steps[count - 1];
    path_prefix(steps, count - 1, at, sizeof at);
    if (last->key[0]) {
        if (!cJSON_IsObject(parent)) {
            path_prefix(steps, count - 2, at, sizeof at); // count > 1: the root is an object
            goto refuse_not_object;
        }
        if (remove) {
            if (!cJSON_GetObjectItemCaseSensitive(parent, last->key)) {
                cs_fail(err, "%s: the scene has no \"%s\" (nothing to remove)", at, last->key);
                goto refused;
            }
            cJSON_DeleteItemFromObjectCaseSensitive(parent, last->key);
            return true;
        }
        cJSON *value = parse_value(edit->value);
        CS_ASSERT(value, "out of memory editing the scene");
        if (cJSON_GetObjectItemCaseSensitive(parent, last->key))
            cJSON_ReplaceItemInObjectCaseSensitive(parent, last->key, value);
        else
            cJSON_AddItemToObject(parent, last->key, value);
        return true;
    }
    if (!cJSON_IsArray(parent)) {
        path_prefix(steps, count - 2, at, sizeof at);
        cs_fail(err, "%s: is %s, not an array", at, cs_json_type_name(parent));
        goto refused;
    }
    int size = cJSON_GetArraySize(parent);
    if ((int)last->index >= size) {
        cs_fail(err, "%s: the array holds %d entr%s", at, size, size == 1 ? "y" : "ies");
        goto refused;
    }
    if (remove) {
        cs_fail(err, "%s: null removes keys, not array entries; edit the file", at);
        goto refused;
    }
    cJSON *value = parse_value(edit->value);
    CS_ASSERT(value, "out of memory editing the scene");
    cJSON_ReplaceItemInArray(parent, (int)last->index, value);
    return true;

refuse_not_object:
    cs_fail(err, "%s: is %s, not an object with keys (for %s)", at, cs_json_type_name(parent), edit->path);
refused:
    if (created)
        cJSON_Delete(cJSON_DetachItemViaPointer(created_in, created));
    return false;
}

// The edit that set the key a parser message names, if any: the message
// holds `: PATH:` (the parser's `file: key.path: what`).
static const cs_scene_edit *edit_named(const char *msg, const cs_scene_edit *edits, uint32_t count)
{
    for (uint32_t i = count; i-- > 0;) {
        char needle[CS_SCENE_EDIT_PATH_MAX + 4];
        snprintf(needle, sizeof needle, ": %s:", edits[i].path);
        if (strstr(msg, needle))
            return &edits[i];
    }
    return NULL;
}

void cs_scene_edit_blame(cs_error *err, const cs_scene_edit *edits, uint32_t count)
{
    const cs_scene_edit *culprit = edit_named(err->msg, edits, count);
    if (culprit) {
        size_t used = strlen(err->msg);
        snprintf(err->msg + used, sizeof err->msg - used, " (set by the edit %s=%.64s)", culprit->path,
                 culprit->value);
    }
}

bool cs_scene_load_edited(const char *name, const cs_scene_edit *edits, uint32_t count, cs_scene *scene,
                          cs_error *err)
{
    if (count == 0)
        return cs_scene_load(name, scene, err);
    *scene = (cs_scene){0};
    char path[512];
    if (!cs_scene_resolve(name, path, sizeof path, err))
        return false;
    size_t size = 0;
    char *text = cs_read_input_file(path, CS_INPUT_FILE_MAX, &size, err);
    if (!text)
        return false;
    cJSON *root = cs_scene_parse_json(text, size, path, err);
    free(text);
    if (!root)
        return false;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return cs_fail(err, "%s: the top level must be a JSON object {...}", path);
    }
    for (uint32_t i = 0; i < count; i++) {
        cs_error why;
        if (!cs_scene_edit_apply(root, &edits[i], &why)) {
            cJSON_Delete(root);
            return cs_fail(err, "%s: edit %s=%.64s: %s", path, edits[i].path, edits[i].value, why.msg);
        }
    }
    if (cs_scene_parse_tree(root, path, scene, err))
        return true;
    cs_scene_edit_blame(err, edits, count);
    return false;
}

bool cs_scene_save(const cs_scene *scene, const char *path, cs_error *err)
{
    if (!scene->json)
        return cs_fail(err, "%s: the scene has no JSON tree to save (a fluid's scene, not the file's)", path);
    // cJSON prints a number with 15 digits when they read back as the same
    // double, else with 17: the saved file loads to the same values.
    char *text = cJSON_Print(scene->json);
    CS_ASSERT(text, "out of memory printing the scene");
    cs_out_file out;
    bool ok = cs_out_open(&out, path, true, err);
    if (ok) {
        cs_out_write(&out, text, strlen(text));
        cs_out_write(&out, "\n", 1);
        ok = cs_out_close(&out, err);
    }
    cJSON_free(text);
    return ok;
}

bool cs_scene_save_edited(const char *name, const cs_scene_edit *edits, uint32_t count, const char *path,
                          cs_error *err)
{
    cs_scene *scene = calloc(1, sizeof *scene);
    CS_ASSERT(scene, "out of host memory");
    bool ok = cs_scene_load_edited(name, edits, count, scene, err);
    if (ok) {
        ok = cs_scene_save(scene, path, err);
        cs_scene_free(scene);
    }
    free(scene);
    return ok;
}
