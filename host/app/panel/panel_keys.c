// panel_keys.c — see panel.h, "live keys": the running scene's CS_KEY_LIVE
// values, found through the key tables alone (scene_keys.h's blocks and
// their locate(), the solvers' blocks through cs_sim_ops.key_block), set
// through the rows' own checks, and carried into the running world.
#include "panel.h"

#include "scene_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// "fluids[].materials[]" with indices {0, 2} -> "fluids[0].materials[2]".
static void fill_indices(char *out, size_t size, const char *path, const uint32_t *index, uint32_t depth)
{
    size_t used = 0;
    uint32_t k = 0;
    for (const char *p = path; *p && used + 12 < size; p++) {
        if (p[0] == '[' && p[1] == ']' && k < depth) {
            used += (size_t)snprintf(out + used, size - used, "[%u]", index[k++]);
            p++;
        } else {
            out[used++] = *p;
        }
    }
    out[used] = 0;
}

static bool settable(const cs_scene_key *row)
{
    if (!(row->flags & CS_KEY_LIVE) || row->size == 0)
        return false;
    switch (row->type) {
    case CS_KEY_NUMBER: case CS_KEY_UINT: case CS_KEY_BOOL: case CS_KEY_ENUM: case CS_KEY_VEC3: case CS_KEY_COLOR:
        return true;
    default:
        return false;
    }
}

static uint32_t add_rows(const cs_scene_key_block *block, const char *group, void *base, int fluid, cs_panel_key *out,
                         uint32_t n, uint32_t max)
{
    for (uint32_t k = 0; k < block->count && n < max; k++) {
        const cs_scene_key *row = &block->keys[k];
        if (!settable(row))
            continue;
        cs_panel_key *key = &out[n++];
        *key = (cs_panel_key){.row = row, .base = base, .fluid = fluid};
        snprintf(key->group, sizeof key->group, "%s", group);
        snprintf(key->path, sizeof key->path, "%s%s%s", group, group[0] ? "." : "", row->key);
    }
    return n;
}

// Every entry of a block: its arrays' indices in turn ("[]" in its path).
static uint32_t add_block(const cs_scene_key_block *block, cs_scene *from, const uint32_t *outer, uint32_t depth,
                          int fluid, cs_panel_key *out, uint32_t n, uint32_t max)
{
    if (!block->locate)
        return n;
    size_t len = strlen(block->path);
    bool array = len >= 2 && strcmp(block->path + len - 2, "[]") == 0;
    for (uint32_t i = 0; n < max; i++) {
        void *base = block->locate(from, i);
        if (!base)
            break;
        uint32_t index[4] = {0};
        memcpy(index, outer, depth * sizeof *outer);
        index[depth] = i;
        char group[CS_PANEL_PATH];
        fill_indices(group, sizeof group, block->path, index, depth + (array ? 1 : 0));
        n = add_rows(block, group, base, fluid, out, n, max);
        if (!array)
            break;
    }
    return n;
}

// A fluid can only take values live when its solver can re-derive what it
// computed from them at create (cs_sim_ops.retune).
static bool fluid_live(const cs_world *world, uint32_t f)
{
    return world && f < world->fluid_count && world->fluids[f].ops->retune;
}

// The radiosity's values are live where the running part reads the scene's
// own (a level's radiosity runs on a copy: world_radiosity.c).
static bool radiosity_live(const cs_scene *scene, const cs_world *world)
{
    return scene->geometry && (!world || !world->radiosity || world->radiosity->lighting == &scene->geometry->lighting);
}

uint32_t cs_panel_keys_list(cs_scene *scene, cs_world *world, cs_panel_key *out, uint32_t max)
{
    uint32_t count, n = 0;
    const cs_scene_key_block *const *blocks = cs_scene_key_blocks(&count);
    bool every_fluid_live = true;
    for (uint32_t f = 0; f < scene->fluid_count; f++)
        every_fluid_live = every_fluid_live && fluid_live(world, f);
    // The top level and the blocks beside it.
    for (uint32_t b = 0; b < count; b++) {
        const cs_scene_key_block *block = blocks[b];
        // A fluid's blocks are listed under each fluid; the top level's
        // surface is only the fluids' default (each fluid holds its own).
        if (strncmp(block->path, "fluids[]", 8) == 0 || block == cs_scene_surface_keys)
            continue;
        if ((block == cs_scene_radiosity_keys || block == cs_scene_probe_keys || block == cs_scene_light_keys) &&
            !radiosity_live(scene, world))
            continue;
        if (block == cs_scene_world_keys) {
            // Every fluid reads the world's keys; the ones a fluid may hold
            // itself (boundary_restitution) are set fluid by fluid.
            if (!every_fluid_live)
                continue;
            uint32_t first = n;
            n = add_block(block, scene, NULL, 0, -1, out, n, max);
            uint32_t kept = first;
            for (uint32_t k = first; k < n; k++)
                if (!cs_scene_key_find(cs_scene_fluid_keys, out[k].row->key))
                    out[kept++] = out[k];
            n = kept;
            continue;
        }
        n = add_block(block, scene, NULL, 0, -1, out, n, max);
    }
    // Each fluid: its own keys, its sub-blocks, its surface, its solver's block.
    for (uint32_t f = 0; f < scene->fluid_count && n < max; f++) {
        if (!fluid_live(world, f))
            continue;
        cs_scene *fs = &scene->fluids[f];
        uint32_t outer[1] = {f};
        char own[CS_PANEL_PATH];
        snprintf(own, sizeof own, "fluids[%u]", f);
        n = add_rows(cs_scene_fluid_keys, own, fs, (int)f, out, n, max);
        for (uint32_t b = 0; b < count; b++) {
            const cs_scene_key_block *block = blocks[b];
            if (strncmp(block->path, "fluids[].", 9) != 0)
                continue;
            uint32_t first = n;
            n = add_block(block, fs, outer, 1, (int)f, out, n, max);
            // A material key the solver does not read would be a slider
            // that moves nothing (PBF's Clavet stiffness): left out.
            const char *const *reads = world->fluids[f].ops->material_keys;
            if (block != cs_scene_material_keys || !reads)
                continue;
            uint32_t kept = first;
            for (uint32_t k = first; k < n; k++) {
                bool read = false;
                for (uint32_t r = 0; reads[r] && !read; r++)
                    read = strcmp(reads[r], out[k].row->key) == 0;
                if (read)
                    out[kept++] = out[k];
            }
            n = kept;
        }
        if (fs->surface.enabled) {
            char group[CS_PANEL_PATH];
            snprintf(group, sizeof group, "fluids[%u].surface", f);
            n = add_rows(cs_scene_surface_keys, group, &fs->surface, (int)f, out, n, max);
        }
        const cs_world_fluid *wf = &world->fluids[f];
        for (uint32_t k = 0; wf->ops->keys && wf->ops->keys[k] && wf->ops->key_block && n < max; k++) {
            const cs_scene_key_block *block = wf->ops->keys[k];
            void *base = wf->ops->key_block(wf->state, block);
            if (!base)
                continue;
            char group[CS_PANEL_PATH];
            fill_indices(group, sizeof group, block->path, (uint32_t[]){f}, 1);
            n = add_rows(block, group, base, (int)f, out, n, max);
        }
    }
    return n;
}

// The shortest decimal that reads back as the same float: 0.3, not 0.300000012.
static void format_float(double v, char *out, size_t size)
{
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(out, size, "%.*g", digits, v);
        if ((float)strtod(out, NULL) == (float)v)
            return;
    }
}

// The value as the scene file writes it: "0.2", "[0, -5, 0]", "true", "\"speed\"".
static void format_value(const cs_scene_key *row, const void *base, char *out, size_t size)
{
    char c[3][32];
    switch (row->type) {
    case CS_KEY_VEC3: case CS_KEY_COLOR:
        for (uint32_t k = 0; k < 3; k++)
            format_float(cs_scene_key_get(row, base, k), c[k], sizeof c[k]);
        snprintf(out, size, "[%s, %s, %s]", c[0], c[1], c[2]);
        return;
    case CS_KEY_BOOL:
        snprintf(out, size, "%s", cs_scene_key_get_bool(row, base) ? "true" : "false");
        return;
    case CS_KEY_ENUM: {
        int64_t index = cs_scene_key_get_int(row, base);
        const char *choice = row->choices;
        for (int64_t i = 0; i < index && choice; i++) {
            choice = strchr(choice, '|');
            choice = choice ? choice + 1 : NULL;
        }
        size_t len = choice ? strcspn(choice, "|") : 0;
        snprintf(out, size, "\"%.*s\"", (int)len, choice ? choice : "");
        return;
    }
    default:
        format_float(cs_scene_key_get(row, base, 0), out, size);
    }
}

static void note_edit(cs_panel_edits *edits, const cs_panel_key *key)
{
    if (!edits)
        return;
    char value[96];
    format_value(key->row, key->base, value, sizeof value);
    size_t len = strlen(key->path);
    uint32_t i = 0;
    while (i < edits->count && !(strncmp(edits->items[i], key->path, len) == 0 && edits->items[i][len] == '='))
        i++;
    if (i == edits->count) {
        if (edits->count == CS_PANEL_MAX_EDITS)
            return; // the list is full; the value itself is set
        edits->count++;
    }
    snprintf(edits->items[i], sizeof edits->items[i], "%s=%s", key->path, value);
}

// Where the running world reads a value of the run's scene: the top
// level's rows that a fluid does not override are copies in every fluid's
// scene (the parser copied them), and a level's world runs placed copies of
// the fluids' scenes (world->placed_fluids). Each copy gets the bytes.
static void carry_into_world(cs_scene *scene, cs_world *world, const cs_panel_key *key)
{
    const cs_scene_key *row = key->row;
    if (key->fluid < 0 && (char *)key->base == (char *)scene) {
        // Only rows no fluid holds itself are listed at the top level
        // (cs_panel_keys_list): every fluid's copy follows.
        for (uint32_t f = 0; f < scene->fluid_count; f++) {
            memcpy((char *)&scene->fluids[f] + row->at, (char *)scene + row->at, row->size);
            if (world && f < world->fluid_count && world->fluids[f].scene != &scene->fluids[f])
                memcpy((char *)world->fluids[f].scene + row->at, (char *)scene + row->at, row->size);
        }
        return;
    }
    if (key->fluid < 0 || !world || (uint32_t)key->fluid >= world->fluid_count)
        return;
    // A value inside the fluid's cs_scene (its keys, materials, blocks,
    // emitters, surface); a solver's own struct lies elsewhere.
    cs_scene *fs = &scene->fluids[key->fluid];
    char *at = (char *)key->base + row->at;
    if (at < (char *)fs || at + row->size > (char *)(fs + 1))
        return;
    // The world's scenes are read-only to it; the panel is the one writer.
    char *running = (char *)world->fluids[key->fluid].scene;
    if (running != (char *)fs)
        memcpy(running + (at - (char *)fs), at, row->size);
}

bool cs_panel_key_set(cs_world *world, const cs_panel_key *key, const double *values, uint32_t count,
                      cs_panel_edits *edits, cs_error *err)
{
    const cs_scene_key *row = key->row;
    // All or nothing: a refused component leaves the others as they were.
    unsigned char before[64];
    CS_ASSERT(row->size <= sizeof before, "%s: a %zu-byte value", key->path, row->size);
    memcpy(before, (char *)key->base + row->at, row->size);
    for (uint32_t c = 0; c < count; c++) {
        cs_error inner;
        if (!cs_scene_key_set(row, key->base, count == 1 ? 0 : c, values[c], &inner)) {
            memcpy((char *)key->base + row->at, before, row->size);
            const char *why = strncmp(inner.msg, row->key, strlen(row->key)) == 0 ? inner.msg + strlen(row->key) : "";
            return cs_fail(err, "%s%s", key->path, *why ? why : inner.msg);
        }
    }
    if (world) {
        carry_into_world((cs_scene *)world->scene, world, key);
        if (!cs_world_retune(world, err)) {
            memcpy((char *)key->base + row->at, before, row->size);
            carry_into_world((cs_scene *)world->scene, world, key);
            cs_error again;
            cs_world_retune(world, &again);
            return false;
        }
    }
    note_edit(edits, key);
    return true;
}

// "[1, 2, 3]" or "1" or "true" or "speed" (quotes optional) into numbers.
static bool parse_value(const cs_panel_key *key, const char *text, double *v, uint32_t *count, cs_error *err)
{
    const cs_scene_key *row = key->row;
    while (*text == ' ')
        text++;
    if (row->type == CS_KEY_BOOL) {
        *count = 1;
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
            v[0] = text[0] == 't';
            return true;
        }
        return cs_fail(err, "%s: wants true or false (got %s)", key->path, text);
    }
    if (row->type == CS_KEY_ENUM) {
        char name[64];
        snprintf(name, sizeof name, "%s", text[0] == '"' ? text + 1 : text);
        name[strcspn(name, "\"")] = 0;
        int i = 0;
        for (const char *c = row->choices; c; i++) {
            size_t len = strcspn(c, "|");
            if (len == strlen(name) && strncmp(c, name, len) == 0) {
                v[0] = i, *count = 1;
                return true;
            }
            c = c[len] ? c + len + 1 : NULL;
        }
        return cs_fail(err, "%s: wants one of %s (got %s)", key->path, row->choices, text);
    }
    bool vector = row->type == CS_KEY_VEC3 || row->type == CS_KEY_COLOR;
    const char *p = text;
    if (vector && *p++ != '[')
        return cs_fail(err, "%s: wants [x, y, z] (got %s)", key->path, text);
    *count = 0;
    for (uint32_t c = 0; c < (vector ? 3u : 1u); c++) {
        char *end;
        v[c] = strtod(p, &end);
        if (end == p)
            return cs_fail(err, "%s: wants %s (got %s)", key->path, vector ? "[x, y, z]" : "a number", text);
        p = end;
        while (*p == ' ' || *p == ',')
            p++;
        (*count)++;
    }
    if (vector ? *p != ']' : *p != 0)
        return cs_fail(err, "%s: %s: unexpected text after the value", key->path, text);
    return true;
}

bool cs_panel_set_path(cs_scene *scene, cs_world *world, const char *path, const char *value, cs_panel_edits *edits,
                       cs_error *err)
{
    static cs_panel_key keys[CS_PANEL_MAX_KEYS];
    uint32_t n = cs_panel_keys_list(scene, world, keys, CS_PANEL_MAX_KEYS);
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(keys[i].path, path) != 0)
            continue;
        double v[3];
        uint32_t count = 0;
        return parse_value(&keys[i], value, v, &count, err) && cs_panel_key_set(world, &keys[i], v, count, edits, err);
    }
    return cs_fail(err, "%s: not a value that can change while the scene runs (docs/scenes.md lists the live keys)",
                   path);
}
