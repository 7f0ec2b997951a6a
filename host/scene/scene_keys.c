// scene_keys.c — reading, writing and documenting scene keys through their
// rows (scene_keys.h), and the scene layer's tables (scene_key_tables.c).
#define _POSIX_C_SOURCE 200809L
#include "scene_keys.h"

#include "scene_json.h"

#include <float.h>
#include <math.h>

// ---- names -----------------------------------------------------------------

const char *cs_scene_keys_nearest(const char *word, const char *const *names, uint32_t count)
{
    // A third of the word's length, at least 2, and less than the word's
    // length: "spcing" finds "spacing", "x" or "q" finds nothing.
    size_t len = strlen(word);
    uint32_t limit = CS_MIN(CS_MAX(2u, (uint32_t)(len / 3)), len ? (uint32_t)len - 1 : 0u);
    return cs_nearest_name(word, names, count, limit);
}

const cs_scene_key *cs_scene_key_find(const cs_scene_key_block *block, const char *key)
{
    for (uint32_t k = 0; k < block->count; k++)
        if (strcmp(block->keys[k].key, key) == 0)
            return &block->keys[k];
    return NULL;
}

const cs_scene_key_block *cs_scene_key_block_find(const char *path)
{
    uint32_t n;
    const cs_scene_key_block *const *blocks = cs_scene_key_blocks(&n);
    for (uint32_t b = 0; b < n; b++)
        if (strcmp(blocks[b]->path, path) == 0)
            return blocks[b];
    return NULL;
}

// ---- parsing ---------------------------------------------------------------

#define MAX_BLOCK_KEYS 64

bool cs_scene_keys_check_with(const cs_scene *scene, const cJSON *object, const char *path,
                              const cs_scene_key_block *block, const char *extra, cs_error *err)
{
    const char *names[MAX_BLOCK_KEYS + 2];
    CS_ASSERT(block->count <= MAX_BLOCK_KEYS, "scene key block %s: %u keys, at most %d", block->path, block->count,
              MAX_BLOCK_KEYS);
    uint32_t n = 0;
    for (uint32_t k = 0; k < block->count; k++)
        names[n++] = block->keys[k].key;
    if (extra)
        names[n++] = extra;
    names[n] = NULL;
    return cs_json_check_keys(scene, object, path, names, err);
}

bool cs_scene_keys_check(const cs_scene *scene, const cJSON *object, const char *path,
                         const cs_scene_key_block *block, cs_error *err)
{
    return cs_scene_keys_check_with(scene, object, path, block, NULL, err);
}

// "a", "b" or "c" from "a|b|c".
static void choice_list(const char *choices, char *out, size_t size)
{
    size_t used = 0, n = 1;
    for (const char *c = choices; *c; c++)
        n += *c == '|';
    out[0] = 0;
    size_t i = 0;
    for (const char *c = choices; used < size; i++) {
        size_t len = strcspn(c, "|");
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        used += (size_t)snprintf(out + used, size - used, "%s\"%.*s\"", sep, (int)len, c);
        if (!c[len])
            break;
        c += len + 1;
    }
}

// Index of `word` in "a|b|c", or -1.
static int choice_index(const char *choices, const char *word)
{
    int i = 0;
    size_t wl = strlen(word);
    for (const char *c = choices;; i++) {
        size_t len = strcspn(c, "|");
        if (len == wl && strncmp(c, word, len) == 0)
            return i;
        if (!c[len])
            return -1;
        c += len + 1;
    }
}

static void store_number(const cs_scene_key *row, void *base, double v)
{
    char *p = (char *)base + row->at;
    if (row->size == sizeof(double)) {
        double d = (float)v; // the file's precision is a float's, whatever the field
        memcpy(p, &d, sizeof d);
    } else {
        float f = (float)v;
        memcpy(p, &f, sizeof f);
    }
}

bool cs_scene_key_read(const cs_scene *scene, const cJSON *object, const char *path, const cs_scene_key *row,
                       void *base, cs_error *err)
{
    const char *key = row->key;
    const cJSON *item = cJSON_IsObject(object) ? cJSON_GetObjectItemCaseSensitive(object, key) : NULL;
    if (!item)
        return (row->flags & CS_KEY_REQUIRED) ? cs_json_require(scene, object, path, key, err) : true;
    CS_ASSERT(row->size > 0 && row->type != CS_KEY_OBJECT && row->type != CS_KEY_ARRAY,
              "scene key %s: no field to read into", key);
    void *p = (char *)base + row->at; // the field, of the type row->type says
    switch (row->type) {
    case CS_KEY_NUMBER: {
        if (row->flags & CS_KEY_POSITIVE) {
            float f = 0.0f;
            if (!cs_json_positive(scene, object, path, key, row->max, &f, err))
                return false;
            store_number(row, base, f);
            return true;
        }
        double v = 0.0;
        if (!cs_json_number(scene, object, path, key, row->min, (row->flags & CS_KEY_MIN_OPEN) != 0, row->max,
                            false, &v, NULL, err))
            return false;
        if (fabs(v) > FLT_MAX)
            return cs_json_fail(scene, err, path, key, "%g does not fit in a float", v);
        if ((row->flags & CS_KEY_MIN_OPEN) && row->min == 0.0 && !((float)v > 0.0f))
            return cs_json_fail(scene, err, path, key, "%g is too small for a float", v);
        store_number(row, base, v);
        return true;
    }
    case CS_KEY_UINT: {
        CS_ASSERT(row->size == sizeof(uint32_t), "scene key %s: UINT wants a uint32_t", key);
        double v = 0.0;
        if (!cs_json_number(scene, object, path, key, row->min, false, row->max, true, &v, NULL, err))
            return false;
        uint32_t u = (uint32_t)v;
        memcpy(p, &u, sizeof u);
        return true;
    }
    case CS_KEY_BOOL: {
        CS_ASSERT(row->size == sizeof(bool), "scene key %s: BOOL wants a bool", key);
        bool b = false;
        if (!cs_json_bool(scene, object, path, key, &b, err))
            return false;
        memcpy(p, &b, sizeof b);
        return true;
    }
    case CS_KEY_ENUM: {
        CS_ASSERT(row->size == sizeof(int), "scene key %s: ENUM wants an int-sized enum", key);
        char list[256];
        choice_list(row->choices, list, sizeof list);
        if (!cJSON_IsString(item) || !item->valuestring)
            return cs_json_fail(scene, err, path, key, "must be %s (got %s)", list, cs_json_type_name(item));
        int i = choice_index(row->choices, item->valuestring);
        if (i < 0)
            return cs_json_fail(scene, err, path, key, "must be %s (got \"%.64s\")", list, item->valuestring);
        memcpy(p, &i, sizeof i);
        return true;
    }
    case CS_KEY_STRING:
        return cs_json_string(scene, object, path, key, p, row->size, NULL, err);
    case CS_KEY_VEC3: {
        CS_ASSERT(row->size == 3 * sizeof(float), "scene key %s: VEC3 wants float[3]", key);
        if (row->flags & CS_KEY_COORD) {
            CS_ASSERT(row->max == COORD_LIMIT, "scene key %s: COORD is within +-%g", key, COORD_LIMIT);
            return cs_json_coord(scene, object, path, key, (float *)p, NULL, err);
        }
        float v[3];
        memcpy(v, p, sizeof v);
        if (!cs_json_vector(scene, object, path, key, 3, (row->flags & CS_KEY_SPATIAL) != 0, v, NULL, err))
            return false;
        if (row->flags & CS_KEY_LIMIT) {
            for (int a = 0; a < 3; a++)
                if (fabsf(v[a]) > row->max)
                    return cs_json_fail(scene, err, path, key, "component %d is %g; at most %g in magnitude", a,
                                        v[a], row->max);
        }
        memcpy(p, v, sizeof v);
        return true;
    }
    case CS_KEY_COLOR:
        CS_ASSERT(row->size == 3 * sizeof(float), "scene key %s: COLOR wants float[3]", key);
        return cs_json_color(scene, object, path, key, (float *)p, err);
    case CS_KEY_DIRECTION:
        CS_ASSERT(row->size == 3 * sizeof(float), "scene key %s: DIRECTION wants float[3]", key);
        return cs_json_direction(scene, object, path, key, (float *)p, NULL, err);
    case CS_KEY_OBJECT:
    case CS_KEY_ARRAY:
        break;
    }
    return true;
}

bool cs_scene_key_read_named(const cs_scene *scene, const cJSON *object, const char *path,
                             const cs_scene_key_block *block, const char *key, void *base, cs_error *err)
{
    const cs_scene_key *row = cs_scene_key_find(block, key);
    CS_ASSERT(row != NULL, "scene key block %s has no key %s", block->path, key);
    return cs_scene_key_read(scene, object, path, row, base, err);
}

bool cs_scene_keys_read(const cs_scene *scene, const cJSON *object, const char *path,
                        const cs_scene_key_block *block, void *base, cs_error *err)
{
    if (!cs_scene_keys_check(scene, object, path, block, err))
        return false;
    for (uint32_t k = 0; k < block->count; k++) {
        const cs_scene_key *row = &block->keys[k];
        if (!(row->flags & CS_KEY_BY_CODE) && !cs_scene_key_read(scene, object, path, row, base, err))
            return false;
    }
    return true;
}

// ---- a panel's access --------------------------------------------------------

static uint32_t components(const cs_scene_key *row)
{
    switch (row->type) {
    case CS_KEY_VEC3:
    case CS_KEY_COLOR:
    case CS_KEY_DIRECTION:
        return 3;
    case CS_KEY_NUMBER:
    case CS_KEY_UINT:
    case CS_KEY_BOOL:
    case CS_KEY_ENUM:
        return 1;
    default:
        return 0;
    }
}

double cs_scene_key_get(const cs_scene_key *row, const void *base, uint32_t component)
{
    if (row->size == 0 || component >= components(row))
        return NAN;
    const char *p = (const char *)base + row->at;
    switch (row->type) {
    case CS_KEY_NUMBER:
        if (row->size == sizeof(double)) {
            double d;
            memcpy(&d, p, sizeof d);
            return d;
        } else {
            float f;
            memcpy(&f, p, sizeof f);
            return f;
        }
    case CS_KEY_UINT: {
        uint32_t u;
        memcpy(&u, p, sizeof u);
        return u;
    }
    case CS_KEY_BOOL: {
        bool b;
        memcpy(&b, p, sizeof b);
        return b ? 1.0 : 0.0;
    }
    case CS_KEY_ENUM: {
        int i;
        memcpy(&i, p, sizeof i);
        return i;
    }
    default: {
        float f;
        memcpy(&f, p + component * sizeof(float), sizeof f);
        return f;
    }
    }
}

bool cs_scene_key_set(const cs_scene_key *row, void *base, uint32_t component, double v, cs_error *err)
{
    if (row->size == 0 || component >= components(row))
        return cs_fail(err, "%s: not a value a panel can set", row->key);
    if (!isfinite(v))
        return cs_fail(err, "%s: must be a finite number (got %g)", row->key, v);
    char *p = (char *)base + row->at;
    switch (row->type) {
    case CS_KEY_NUMBER: {
        bool open = (row->flags & (CS_KEY_MIN_OPEN | CS_KEY_POSITIVE)) != 0;
        if (open ? !(v > row->min) : !(v >= row->min))
            return cs_fail(err, "%s: must be %s %g (got %g)", row->key, open ? ">" : ">=", row->min, v);
        if (!(v <= row->max))
            return cs_fail(err, "%s: must be <= %g (got %g)", row->key, row->max, v);
        if (open && row->min == 0.0 && !((float)v >= FLT_MIN))
            return cs_fail(err, "%s: %g is too small for a float", row->key, v);
        store_number(row, base, v);
        return true;
    }
    case CS_KEY_UINT: {
        if (v != floor(v))
            return cs_fail(err, "%s: must be a whole number (got %g)", row->key, v);
        if (!(v >= row->min) || !(v <= row->max))
            return cs_fail(err, "%s: must be %g ... %g (got %g)", row->key, row->min, row->max, v);
        uint32_t u = (uint32_t)v;
        memcpy(p, &u, sizeof u);
        return true;
    }
    case CS_KEY_BOOL: {
        if (v != 0.0 && v != 1.0)
            return cs_fail(err, "%s: must be 0 or 1 (got %g)", row->key, v);
        bool b = v != 0.0;
        memcpy(p, &b, sizeof b);
        return true;
    }
    case CS_KEY_ENUM: {
        int n = 1;
        for (const char *c = row->choices; *c; c++)
            n += *c == '|';
        if (v != floor(v) || v < 0 || v >= n)
            return cs_fail(err, "%s: must be a choice's index, 0 ... %d (got %g)", row->key, n - 1, v);
        int i = (int)v;
        memcpy(p, &i, sizeof i);
        return true;
    }
    case CS_KEY_COLOR:
        if (!(v >= 0.0 && v <= 1.0))
            return cs_fail(err, "%s: component %u is %g; colours are linear RGB in [0, 1]", row->key, component, v);
        break;
    case CS_KEY_VEC3:
        if ((row->flags & (CS_KEY_COORD | CS_KEY_LIMIT)) && !(fabs(v) <= row->max))
            return cs_fail(err, "%s: component %u is %g; at most %g in magnitude", row->key, component, v, row->max);
        if (fabs(v) > FLT_MAX)
            return cs_fail(err, "%s: %g does not fit in a float", row->key, v);
        break;
    case CS_KEY_DIRECTION:
        // One component of a unit vector cannot be set alone.
        return cs_fail(err, "%s: a direction is set whole (write the struct's field and normalise it)", row->key);
    default:
        return cs_fail(err, "%s: not a value a panel can set", row->key);
    }
    float f = (float)v;
    memcpy(p + component * sizeof(float), &f, sizeof f);
    return true;
}

int64_t cs_scene_key_get_int(const cs_scene_key *row, const void *base)
{
    double v = cs_scene_key_get(row, base, 0);
    return isfinite(v) ? (int64_t)llround(v) : 0;
}

bool cs_scene_key_set_int(const cs_scene_key *row, void *base, int64_t v, cs_error *err)
{
    return cs_scene_key_set(row, base, 0, (double)v, err);
}

bool cs_scene_key_get_bool(const cs_scene_key *row, const void *base)
{
    return cs_scene_key_get(row, base, 0) != 0.0;
}

bool cs_scene_key_set_bool(const cs_scene_key *row, void *base, bool v, cs_error *err)
{
    return cs_scene_key_set(row, base, 0, v ? 1.0 : 0.0, err);
}

// ---- docs --------------------------------------------------------------------

static void cell(FILE *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        if (*c == '|')
            fputs("\\|", out);
        else
            fputc(*c, out);
    }
}

static const char *type_name(const cs_scene_key *row)
{
    switch (row->type) {
    case CS_KEY_NUMBER: return "number";
    case CS_KEY_UINT: return "integer";
    case CS_KEY_BOOL: return "bool";
    case CS_KEY_ENUM: return "string";
    case CS_KEY_STRING: return "string";
    case CS_KEY_VEC3: return (row->flags & CS_KEY_SPATIAL) || (row->flags & CS_KEY_COORD) ? "vector" : "3 numbers";
    case CS_KEY_COLOR: return "colour";
    case CS_KEY_DIRECTION: return "direction";
    case CS_KEY_OBJECT: return "object";
    case CS_KEY_ARRAY: return "array";
    }
    return "?";
}

// 0.5, 1000, 4294967295, 1e6, 1e-6, 1e30: short and exact enough for a table.
static const char *num(double v, char buf[32])
{
    double p = v != 0.0 ? log10(fabs(v)) : 0.0;
    if (v == floor(v) && fabs(v) >= 1e5 && fabs(p - round(p)) < 1e-9)
        snprintf(buf, 32, "%s1e%d", v < 0 ? "-" : "", (int)round(p));
    else if (v == floor(v) && fabs(v) < 1e10)
        snprintf(buf, 32, "%.0f", v);
    else {
        char raw[32];
        snprintf(raw, sizeof raw, "%g", v);
        // 1e+30 -> 1e30, 1e-06 -> 1e-6
        size_t o = 0;
        for (const char *c = raw; *c && o < 31; c++) {
            if (*c == 'e') {
                buf[o++] = 'e';
                c++;
                if (*c == '-')
                    buf[o++] = '-';
                if (*c == '+' || *c == '-')
                    c++;
                while (*c == '0' && c[1])
                    c++;
                c--;
                continue;
            }
            buf[o++] = *c;
        }
        buf[o] = 0;
    }
    return buf;
}

static void range_text(const cs_scene_key *row, char *out, size_t size)
{
    char a[32], b[32];
    out[0] = 0;
    switch (row->type) {
    case CS_KEY_NUMBER:
        if (row->flags & CS_KEY_POSITIVE)
            snprintf(out, size, "> 0, ≤ %s", num(row->max, b));
        else if (row->flags & CS_KEY_MIN_OPEN)
            snprintf(out, size, "> %s, ≤ %s", num(row->min, a), num(row->max, b));
        else
            snprintf(out, size, "%s … %s", num(row->min, a), num(row->max, b));
        break;
    case CS_KEY_UINT:
        snprintf(out, size, "%s … %s", num(row->min, a), num(row->max, b));
        break;
    case CS_KEY_ENUM: {
        size_t used = 0;
        const char *c = row->choices;
        for (int i = 0; used < size; i++) {
            size_t len = strcspn(c, "|");
            used += (size_t)snprintf(out + used, size - used, "%s`\"%.*s\"`", i ? ", " : "", (int)len, c);
            if (!c[len])
                break;
            c += len + 1;
        }
        break;
    }
    case CS_KEY_STRING:
        if (row->size)
            snprintf(out, size, "< %zu characters", row->size);
        break;
    case CS_KEY_VEC3:
        if (row->flags & (CS_KEY_COORD | CS_KEY_LIMIT))
            snprintf(out, size, "each within ±%s", num(row->max, b));
        break;
    case CS_KEY_COLOR:
        snprintf(out, size, "each 0 … 1");
        break;
    case CS_KEY_DIRECTION:
        snprintf(out, size, "nonzero; normalised");
        break;
    default:
        break;
    }
}

void cs_scene_keys_print_markdown(FILE *out, const cs_scene_key_block *block)
{
    fprintf(out, "### %s\n\n", block->path[0] ? block->path : "top level");
    cell(out, block->what);
    fprintf(out, "\n\n| key | type | unit | range | default | live | what |\n|---|---|---|---|---|---|---|\n");
    for (uint32_t k = 0; k < block->count; k++) {
        const cs_scene_key *row = &block->keys[k];
        char range[256];
        range_text(row, range, sizeof range);
        fprintf(out, "| `%s` | %s | ", row->key, type_name(row));
        cell(out, row->unit ? row->unit : "");
        fprintf(out, " | ");
        cell(out, range);
        fprintf(out, " | ");
        cell(out, (row->flags & CS_KEY_REQUIRED) ? "**required**" : row->def ? row->def : "");
        fprintf(out, " | %s | ", (row->flags & CS_KEY_LIVE) ? "yes" : "");
        cell(out, row->help ? row->help : "");
        fprintf(out, " |\n");
    }
    fprintf(out, "\n");
}
