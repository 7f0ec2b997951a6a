// scene_json.c — key paths, messages and typed getters of the scene parser:
// every key of every scene file is read through these, so every message has
// the shape `file: key.path: what is wrong` (scene_json.h).
#define _POSIX_C_SOURCE 200809L
#include "scene_json.h"

#include "scene_keys.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>

// ---- key paths and messages ----------------------------------------------

void cs_json_join_key(char *out, size_t size, const char *path, const char *key)
{
    if (!path || !path[0])
        snprintf(out, size, "%s", key);
    else
        snprintf(out, size, "%s.%s", path, key);
}

void cs_json_join_index(char *out, size_t size, const char *path, uint32_t index)
{
    snprintf(out, size, "%s[%u]", path, index);
}

// `file: path.key: message`. key may be NULL when path already names it.
bool cs_json_fail(const cs_scene *scene, cs_error *err, const char *path, const char *key, const char *fmt, ...)
{
    char where[300], full[300];
    if (key)
        cs_json_join_key(full, sizeof full, path, key[0] ? key : "\"\"");
    else
        snprintf(full, sizeof full, "%s", path);
    // A fluid's scene names its entry first: fluids[1].blocks[0].min.
    cs_json_join_key(where, sizeof where, scene->key_prefix, full);
    // Keys come from the file: keep control bytes out of the terminal.
    for (char *c = where; *c; c++) {
        if ((unsigned char)*c < 32 || *c == 127)
            *c = '?';
    }
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cs_fail(err, "%s: %s: %s", scene->path, where, what);
}

const char *cs_json_type_name(const cJSON *item)
{
    if (cJSON_IsNumber(item))
        return "a number";
    if (cJSON_IsString(item))
        return "a string";
    if (cJSON_IsBool(item))
        return "a boolean";
    if (cJSON_IsNull(item))
        return "null";
    if (cJSON_IsArray(item))
        return "an array";
    if (cJSON_IsObject(item))
        return "an object";
    return "an invalid value";
}

bool cs_scene_fail(const cs_scene *scene, cs_error *err, const char *path, const char *key, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cs_json_fail(scene, err, path, key, "%s", what);
}

bool cs_scene_surface_fail(const cs_scene *fluid, cs_error *err, const char *key, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const cJSON *own = fluid->surface.own_block;
    const cJSON *top = fluid->surface.top_block;
    bool in_own = own && cJSON_GetObjectItemCaseSensitive(own, key);
    bool in_top = top && top != own && cJSON_GetObjectItemCaseSensitive(top, key);
    if (!in_own && in_top) {
        cs_scene world = {0};
        memcpy(world.path, fluid->path, sizeof world.path);
        return cs_json_fail(&world, err, "surface", key, "%s", what);
    }
    return cs_json_fail(fluid, err, "surface", key, "%s", what);
}

// ---- public JSON helpers -------------------------------------------------

bool cs_json_check_keys(const cs_scene *scene, const cJSON *object, const char *path, const char *const *allowed,
                        cs_error *err)
{
    if (!cJSON_IsObject(object))
        return cs_json_fail(scene, err, path, NULL, "must be an object (got %s)", cs_json_type_name(object));
    size_t allowed_count = 0;
    while (allowed[allowed_count])
        allowed_count++;
    CS_ASSERT(allowed_count <= 256, "cs_json_check_keys: %zu allowed keys, at most 256", allowed_count);
    uint64_t seen[4] = {0};
    for (const cJSON *child = object->child; child; child = child->next) {
        const char *key = child->string ? child->string : "";
        size_t a = 0;
        while (a < allowed_count && strcmp(allowed[a], key) != 0)
            a++;
        if (a == allowed_count) {
            char list[768] = "";
            size_t used = 0;
            for (size_t i = 0; i < allowed_count && used < sizeof list; i++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", allowed[i]);
            const char *near = cs_scene_keys_nearest(key, allowed, (uint32_t)allowed_count);
            if (near)
                return cs_json_fail(scene, err, path, key, "unknown key (did you mean \"%s\"? allowed here: %s)",
                                    near, list);
            return cs_json_fail(scene, err, path, key, "unknown key (allowed here: %s)", list);
        }
        if (seen[a / 64] & (1ull << (a % 64)))
            return cs_json_fail(scene, err, path, key, "duplicate key");
        seen[a / 64] |= 1ull << (a % 64);
    }
    return true;
}

// One number with a range; an open lower bound reads "must be > min".
// *present tells whether the key was there (NULL: don't care).
bool cs_json_number(const cs_scene *scene, const cJSON *object, const char *path, const char *key, double min,
                       bool min_open, double max, bool whole, double *out, bool *present, cs_error *err)
{
    const cJSON *item = cJSON_IsObject(object) ? cJSON_GetObjectItemCaseSensitive(object, key) : NULL;
    if (present)
        *present = item != NULL;
    if (!item)
        return true;
    if (!cJSON_IsNumber(item))
        return cs_json_fail(scene, err, path, key, "must be a number (got %s)", cs_json_type_name(item));
    double v = item->valuedouble;
    if (!isfinite(v))
        return cs_json_fail(scene, err, path, key, "must be a finite number (got %g)", v);
    if (whole && v != floor(v))
        return cs_json_fail(scene, err, path, key, "must be a whole number (got %g)", v);
    if (min_open ? !(v > min) : !(v >= min))
        return cs_json_fail(scene, err, path, key, "must be %s %g (got %g)", min_open ? ">" : ">=", min, v);
    if (!(v <= max))
        return cs_json_fail(scene, err, path, key, "must be <= %g (got %g)", max, v);
    *out = v;
    return true;
}

bool cs_json_float(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float min,
                   float max, float *out, cs_error *err)
{
    double v = 0.0;
    bool present;
    if (!cs_json_number(scene, object, path, key, min, false, max, false, &v, &present, err))
        return false;
    if (present && fabs(v) > FLT_MAX)
        return cs_json_fail(scene, err, path, key, "%g does not fit in a float", v);
    if (present)
        *out = (float)v;
    return true;
}

bool cs_json_uint(const cs_scene *scene, const cJSON *object, const char *path, const char *key, uint32_t min,
                  uint32_t max, uint32_t *out, cs_error *err)
{
    double v = 0.0;
    bool present;
    if (!cs_json_number(scene, object, path, key, min, false, max, true, &v, &present, err))
        return false;
    if (present)
        *out = (uint32_t)v;
    return true;
}

bool cs_json_bool(const cs_scene *scene, const cJSON *object, const char *path, const char *key, bool *out,
                  cs_error *err)
{
    const cJSON *item = cJSON_IsObject(object) ? cJSON_GetObjectItemCaseSensitive(object, key) : NULL;
    if (!item)
        return true;
    if (!cJSON_IsBool(item))
        return cs_json_fail(scene, err, path, key, "must be true or false (got %s)", cs_json_type_name(item));
    *out = cJSON_IsTrue(item);
    return true;
}

// A vector of n numbers. `spatial` (n == 3 in a 2D scene): x, y and an
// optional z that must be 0.
bool cs_json_vector(const cs_scene *scene, const cJSON *object, const char *path, const char *key, int n,
                    bool spatial, float *out, bool *present, cs_error *err)
{
    const cJSON *item = cJSON_IsObject(object) ? cJSON_GetObjectItemCaseSensitive(object, key) : NULL;
    if (present)
        *present = item != NULL;
    if (!item)
        return true;
    bool flat = spatial && scene->dim == 2 && n == 3;
    int count = cJSON_IsArray(item) ? cJSON_GetArraySize(item) : -1;
    if (count != n && !(flat && count == 2)) {
        const char *want = flat ? "an array of 2 numbers (x, y) or 3 with z = 0" : NULL;
        char got[64];
        if (count < 0)
            snprintf(got, sizeof got, "%s", cs_json_type_name(item));
        else
            snprintf(got, sizeof got, "%d element%s", count, count == 1 ? "" : "s");
        if (want)
            return cs_json_fail(scene, err, path, key, "must be %s (got %s)", want, got);
        return cs_json_fail(scene, err, path, key, "must be an array of %d numbers (got %s)", n, got);
    }
    char where[300];
    cs_json_join_key(where, sizeof where, path, key);
    float v[4] = {0};
    int i = 0;
    for (const cJSON *e = item->child; e && i < count; e = e->next, i++) {
        char elem[320];
        cs_json_join_index(elem, sizeof elem, where, (uint32_t)i);
        if (!cJSON_IsNumber(e))
            return cs_json_fail(scene, err, elem, NULL, "must be a number (got %s)", cs_json_type_name(e));
        if (!isfinite(e->valuedouble) || fabs(e->valuedouble) > FLT_MAX)
            return cs_json_fail(scene, err, elem, NULL, "must be a finite number (got %g)", e->valuedouble);
        if (flat && i == 2 && e->valuedouble != 0.0)
            return cs_json_fail(scene, err, elem, NULL, "must be 0 in a 2D scene (got %g)", e->valuedouble);
        v[i] = (float)e->valuedouble;
    }
    for (int k = 0; k < n; k++)
        out[k] = v[k];
    return true;
}

bool cs_json_vec(const cs_scene *scene, const cJSON *object, const char *path, const char *key, int n, float *out,
                 cs_error *err)
{
    CS_ASSERT(n >= 1 && n <= 4, "cs_json_vec: n = %d", n);
    return cs_json_vector(scene, object, path, key, n, true, out, NULL, err);
}

// ---- small typed getters used by the parser -----------------------------

bool cs_json_positive(const cs_scene *scene, const cJSON *object, const char *path, const char *key, double max,
                         float *out, cs_error *err)
{
    double v = 0.0;
    bool present;
    if (!cs_json_number(scene, object, path, key, 0.0, true, max, false, &v, &present, err))
        return false;
    if (present && !((float)v >= FLT_MIN))
        return cs_json_fail(scene, err, path, key, "%g is too small for a float (the smallest is %g)", v, FLT_MIN);
    if (present)
        *out = (float)v;
    return true;
}

bool cs_json_range(const cs_scene *scene, const cJSON *object, const char *path, const char *key, double min,
                      double max, float *out, cs_error *err)
{
    double v = 0.0;
    bool present;
    if (!cs_json_number(scene, object, path, key, min, false, max, false, &v, &present, err))
        return false;
    if (present)
        *out = (float)v;
    return true;
}

bool cs_json_string(const cs_scene *scene, const cJSON *object, const char *path, const char *key, char *out,
                       size_t size, bool *present, cs_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (present)
        *present = item != NULL;
    if (!item)
        return true;
    if (!cJSON_IsString(item) || !item->valuestring)
        return cs_json_fail(scene, err, path, key, "must be a string (got %s)", cs_json_type_name(item));
    if (strlen(item->valuestring) >= size)
        return cs_json_fail(scene, err, path, key, "must be shorter than %zu characters", size);
    snprintf(out, size, "%s", item->valuestring);
    return true;
}

// A vector whose components must lie within +-COORD_LIMIT (positions, sizes).
bool cs_json_coord(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float *out,
                      bool *present, cs_error *err)
{
    if (!cs_json_vector(scene, object, path, key, 3, true, out, present, err))
        return false;
    for (int a = 0; a < 3; a++) {
        if (fabsf(out[a]) > COORD_LIMIT)
            return cs_json_fail(scene, err, path, key, "component %d is %g; coordinates must lie within +-%g", a,
                            out[a], COORD_LIMIT);
    }
    return true;
}

// A direction: nonzero, returned normalised.
bool cs_json_direction(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float *out,
                          bool *present, cs_error *err)
{
    if (!cs_json_vector(scene, object, path, key, 3, true, out, present, err))
        return false;
    if (present && !*present)
        return true;
    double len = sqrt((double)out[0] * out[0] + (double)out[1] * out[1] + (double)out[2] * out[2]);
    if (!(len > 1e-12) || !isfinite(len))
        return cs_json_fail(scene, err, path, key, "must be a nonzero vector");
    for (int a = 0; a < 3; a++)
        out[a] = (float)(out[a] / len);
    return true;
}

bool cs_json_color(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float *out,
                      cs_error *err)
{
    float c[3];
    bool present;
    if (!cs_json_vector(scene, object, path, key, 3, false, c, &present, err))
        return false;
    if (!present)
        return true;
    for (int a = 0; a < 3; a++) {
        if (!(c[a] >= 0.0f && c[a] <= 1.0f))
            return cs_json_fail(scene, err, path, key, "component %d is %g; colours are linear RGB in [0, 1]", a,
                            c[a]);
    }
    memcpy(out, c, sizeof c);
    return true;
}

bool cs_json_require(const cs_scene *scene, const cJSON *object, const char *path, const char *key, cs_error *err)
{
    if (cJSON_GetObjectItemCaseSensitive(object, key))
        return true;
    return cs_json_fail(scene, err, path, key, "missing (required)");
}
