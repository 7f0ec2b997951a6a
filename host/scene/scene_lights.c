// scene_lights.c — "radiosity" and "lights" (scene_lights.h has the format;
// their keys' rows are in scene_key_tables.c).
#include "scene_lights.h"

#include "scene_keys.h"

#include <math.h>
#include <string.h>

#define LIGHT_COORD_LIMIT 1e6
#define DEGREES_TO_RADIANS (3.14159265358979323846 / 180.0)

static const char *const light_type_names[] = {"point", "spot", "sphere", "area"};

static bool read_radiosity(const cs_scene *scene, const cJSON *block, cs_scene_lighting *out, cs_error *err)
{
    if (!cJSON_IsObject(block))
        return cs_scene_fail(scene, err, "", "radiosity",
                             "must be an object {\"patch_size\": 0.05, \"tolerance\": 0.001, \"area_samples\": 4}");
    if (!cs_scene_keys_read(scene, block, "radiosity", cs_scene_radiosity_keys, out, err))
        return false;
    // A float's precision, given or not (the rows store given values so).
    out->patch_size = (float)out->patch_size;
    out->exposure = (float)out->exposure;
    out->tolerance = (float)out->tolerance;
    const cJSON *probes = cJSON_GetObjectItemCaseSensitive(block, "probes");
    if (probes && !cs_scene_probes_read(scene, probes, &out->probes, err))
        return false;
    // A patch of size 0 would cut every triangle into infinitely many.
    if (!(out->patch_size > 0.0))
        return cs_scene_fail(scene, err, "radiosity", "patch_size", "must be above 0 (got %g)", out->patch_size);
    out->radiosity_given = true;
    return true;
}

// "path": {"keys": [[t, x, y, z], ...], "loop": bool}: read as a kinematic
// body's path is (cs_scene_read_path); the light starts at its first key.
static bool read_path(const cs_scene *scene, const cJSON *o, const char *light_path, cs_scene_light *light,
                      cs_error *err)
{
    if (!cs_scene_read_path(scene, o, light_path, 3, LIGHT_COORD_LIMIT, CS_MAX_LIGHT_PATH_KEYS, light->path,
                            &light->path_count, &light->path_loop, err))
        return false;
    memcpy(light->position, &light->path[0][1], 3 * sizeof(float));
    return true;
}

static bool read_unit_vector(const cs_scene *scene, const cJSON *entry, const char *path, const char *key,
                             float out[3], cs_error *err)
{
    if (!cs_json_vec(scene, entry, path, key, 3, out, err))
        return false;
    double len = sqrt((double)out[0] * out[0] + (double)out[1] * out[1] + (double)out[2] * out[2]);
    if (!(len > 1e-6))
        return cs_scene_fail(scene, err, path, key, "must be a nonzero vector");
    for (int k = 0; k < 3; k++)
        out[k] = (float)(out[k] / len);
    return true;
}

// A number a light's code reads into a local (not stored as such), with its
// row's range.
static bool read_local(const cs_scene *scene, const cJSON *entry, const char *path, const char *key, float *out,
                       cs_error *err)
{
    const cs_scene_key *row = cs_scene_key_find(cs_scene_light_keys, key);
    CS_ASSERT(row && row->type == CS_KEY_NUMBER, "lights[]: no number row %s", key);
    return cs_json_float(scene, entry, path, key, (float)row->min, (float)row->max, out, err);
}

// Where the light sits: "position" (point, spot, sphere) or "corner"
// (area), or its path; one of them is required and not both.
static bool read_placement(const cs_scene *scene, const cJSON *entry, const char *path, cs_scene_light *light,
                           cs_error *err)
{
    const char *key = light->type == CS_SCENE_LIGHT_AREA ? "corner" : "position";
    const cJSON *path_object = cJSON_GetObjectItemCaseSensitive(entry, "path");
    bool placed = cJSON_GetObjectItemCaseSensitive(entry, key) != NULL;
    if (path_object && placed)
        return cs_scene_fail(scene, err, path, key, "not with \"path\" (the path's first key is where it starts)");
    if (path_object)
        return read_path(scene, path_object, path, light, err);
    if (!placed)
        return cs_scene_fail(scene, err, path, key, "missing: a %s light needs \"%s\" [x, y, z] or a \"path\"",
                             light_type_names[light->type], key);
    if (!cs_json_vec(scene, entry, path, key, 3, light->position, err))
        return false;
    for (int k = 0; k < 3; k++) {
        if (fabsf(light->position[k]) > LIGHT_COORD_LIMIT)
            return cs_scene_fail(scene, err, path, key, "must lie within +-%g", LIGHT_COORD_LIMIT);
    }
    return true;
}

// The kind-specific keys: a spot's cone, an area light's edges and power.
static bool read_shape(const cs_scene *scene, const cJSON *entry, const char *path, cs_scene_light *light,
                       float intensity, bool has_intensity, cs_error *err)
{
    if (light->type == CS_SCENE_LIGHT_SPOT) {
        float inner = 20.0f, outer = 30.0f;
        if (!cJSON_GetObjectItemCaseSensitive(entry, "direction"))
            return cs_scene_fail(scene, err, path, "direction", "missing: a spot light needs its axis [x, y, z]");
        if (!read_unit_vector(scene, entry, path, "direction", light->direction, err) ||
            !read_local(scene, entry, path, "inner_degrees", &inner, err) ||
            !read_local(scene, entry, path, "outer_degrees", &outer, err))
            return false;
        if (!(outer > inner))
            return cs_scene_fail(scene, err, path, "outer_degrees", "must be above inner_degrees (%g <= %g)", outer,
                                 inner);
        light->inner_radians = inner * (float)DEGREES_TO_RADIANS;
        light->outer_radians = outer * (float)DEGREES_TO_RADIANS;
    }
    if (light->type != CS_SCENE_LIGHT_AREA)
        return true;
    for (int e = 0; e < 2; e++) {
        const char *key = e ? "edge_v" : "edge_u";
        if (!cJSON_GetObjectItemCaseSensitive(entry, key))
            return cs_scene_fail(scene, err, path, key, "missing: an area light is a corner and two edges");
    }
    if (!cs_json_vec(scene, entry, path, "edge_u", 3, light->edge_u, err) ||
        !cs_json_vec(scene, entry, path, "edge_v", 3, light->edge_v, err))
        return false;
    const float *u = light->edge_u, *v = light->edge_v;
    double n[3] = {(double)u[1] * v[2] - (double)u[2] * v[1], (double)u[2] * v[0] - (double)u[0] * v[2],
                   (double)u[0] * v[1] - (double)u[1] * v[0]};
    double area = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(area > 1e-12))
        return cs_scene_fail(scene, err, path, "edge_v", "is parallel to edge_u (the quad has no area)");
    if (!cJSON_GetObjectItemCaseSensitive(entry, "power"))
        return true;
    if (has_intensity)
        return cs_scene_fail(scene, err, path, "power", "not with \"intensity\" (give one of them)");
    float power = 0.0f;
    if (!read_local(scene, entry, path, "power", &power, err))
        return false;
    // The colour is the flux's spectrum: exitance = colour x power / area.
    for (int k = 0; k < 3; k++)
        light->color[k] = light->color[k] / intensity * (float)(power / area);
    return true;
}

static bool read_light(const cs_scene *scene, const cJSON *entry, uint32_t index, cs_scene_light *light,
                       cs_error *err)
{
    // Key by key: which keys a light takes depends on its type.
    const cs_scene_key_block *keys = cs_scene_light_keys;
    char path[32];
    snprintf(path, sizeof path, "lights[%u]", index);
    if (!cJSON_IsObject(entry))
        return cs_scene_fail(scene, err, path, NULL, "must be an object {\"type\": \"point\", ...}");
    if (!cs_scene_keys_check(scene, entry, path, keys, err))
        return false;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(entry, "type");
    if (!cJSON_IsString(type))
        return cs_scene_fail(scene, err, path, "type", "missing or not a string: one of point, spot, sphere, area");
    *light = (cs_scene_light){.radius = 0.02f, .range = 10.0f, .color = {1.0f, 1.0f, 1.0f}};
    uint32_t t = 0;
    while (t < CS_ARRAY_COUNT(light_type_names) && strcmp(type->valuestring, light_type_names[t]) != 0)
        t++;
    if (t == CS_ARRAY_COUNT(light_type_names))
        return cs_scene_fail(scene, err, path, "type", "\"%s\" is not a light type (point, spot, sphere, area)",
                             type->valuestring);
    light->type = (cs_scene_light_type)t;
    static const char *const not_for_area[] = {"radius", "range", "direction", "position"};
    static const char *const only_area[] = {"corner", "edge_u", "edge_v", "power"};
    for (uint32_t k = 0; k < 4; k++) {
        const char *wrong = light->type == CS_SCENE_LIGHT_AREA ? not_for_area[k] : only_area[k];
        if (cJSON_GetObjectItemCaseSensitive(entry, wrong))
            return cs_scene_fail(scene, err, path, wrong, "is not a key of a %s light", light_type_names[t]);
    }
    if (light->type != CS_SCENE_LIGHT_SPOT) {
        for (int k = 0; k < 3; k++) {
            const char *wrong = k == 0 ? "direction" : k == 1 ? "inner_degrees" : "outer_degrees";
            if (cJSON_GetObjectItemCaseSensitive(entry, wrong))
                return cs_scene_fail(scene, err, path, wrong, "is a spot light's key");
        }
    }
    float intensity = 1.0f;
    bool has_intensity = cJSON_GetObjectItemCaseSensitive(entry, "intensity") != NULL;
    if (!cs_scene_key_read_named(scene, entry, path, keys, "color", light, err) ||
        !read_local(scene, entry, path, "intensity", &intensity, err) ||
        !cs_scene_key_read_named(scene, entry, path, keys, "radius", light, err) ||
        !cs_scene_key_read_named(scene, entry, path, keys, "range", light, err))
        return false;
    for (int k = 0; k < 3; k++) {
        if (!(light->color[k] >= 0.0f))
            return cs_scene_fail(scene, err, path, "color", "must be 3 numbers >= 0");
        light->color[k] *= intensity;
    }
    if (!(light->radius > 0.0f))
        return cs_scene_fail(scene, err, path, "radius", "must be above 0 (got %g)", light->radius);
    if (!(light->range > light->radius))
        return cs_scene_fail(scene, err, path, "range", "must be above the radius (%g <= %g)", light->range,
                             light->radius);
    return read_placement(scene, entry, path, light, err) &&
           read_shape(scene, entry, path, light, intensity, has_intensity, err);
}

cs_scene_lighting cs_scene_lighting_default(void)
{
    return (cs_scene_lighting){.patch_size = 0.05, .bounces = 64, .tolerance = 1e-3, .area_samples = 4,
                               .exposure = 4.0, .hierarchy = true};
}

bool cs_scene_lighting_parse(const cs_scene *scene, const cJSON *root, bool has_geometry, cs_scene_lighting *out,
                             cs_error *err)
{
    *out = cs_scene_lighting_default();
    const cJSON *radiosity = cJSON_GetObjectItemCaseSensitive(root, "radiosity");
    const cJSON *lights = cJSON_GetObjectItemCaseSensitive(root, "lights");
    if (!has_geometry && (radiosity || lights))
        return cs_scene_fail(scene, err, "", radiosity ? "radiosity" : "lights",
                             "needs \"geometry\": it lights the scene's static geometry (docs/light.md, "
                             "\"Radiosity\"); the fluids are not lit by it yet");
    if (radiosity && !read_radiosity(scene, radiosity, out, err))
        return false;
    if (!lights)
        return true;
    int n = cJSON_IsArray(lights) ? cJSON_GetArraySize(lights) : -1;
    if (n < 0 || n > CS_MAX_SCENE_LIGHTS)
        return cs_scene_fail(scene, err, "", "lights", "must be an array of at most %d lights",
                             CS_MAX_SCENE_LIGHTS);
    uint32_t i = 0;
    for (const cJSON *e = lights->child; e; e = e->next, i++) {
        if (!read_light(scene, e, i, &out->lights[i], err))
            return false;
    }
    out->light_count = i;
    return true;
}

void cs_scene_light_position_at(const cs_scene_light *light, double t, float out[3])
{
    if (light->path_count < 2) {
        memcpy(out, light->position, 3 * sizeof(float));
        return;
    }
    const float (*k)[4] = light->path;
    uint32_t last = light->path_count - 1;
    double end = k[last][0];
    if (light->path_loop)
        t = fmod(fmax(t, 0.0), end);
    if (t >= end) {
        memcpy(out, &k[last][1], 3 * sizeof(float));
        return;
    }
    uint32_t s = 0;
    while (s + 1 < last && t >= k[s + 1][0])
        s++;
    double f = fmax(0.0, (t - k[s][0]) / (k[s + 1][0] - k[s][0]));
    for (int a = 0; a < 3; a++)
        out[a] = (float)(k[s][1 + a] + f * (k[s + 1][1 + a] - k[s][1 + a]));
}
