// scene_json.h — the parser's getters, for the files of host/scene (the
// scene parser, its key table, its parts' formats). Pipelines use the public
// cs_json_* helpers of scene.h and the key table (scene_keys.h) instead.
//
// Each getter leaves *out unchanged when the key is absent, sets *present
// (when not NULL) to whether it was there, and fails with
// `file: path.key: what is wrong` (cs_json_fail).
#pragma once

#include "scene.h"

// Coordinates and sizes beyond these are certainly typos, and keeping them
// bounded keeps every derived count finite.
#define COORD_LIMIT 1e6
#define SPACING_MIN 1e-5
#define SPACING_MAX 1e5

void cs_json_join_key(char *out, size_t size, const char *path, const char *key);
void cs_json_join_index(char *out, size_t size, const char *path, uint32_t index);
// `file: path.key: message`. key may be NULL when path already names it.
bool cs_json_fail(const cs_scene *scene, cs_error *err, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
const char *cs_json_type_name(const cJSON *item);

// One number in [min, max] (min_open: > min), a whole one when `whole`.
bool cs_json_number(const cs_scene *scene, const cJSON *object, const char *path, const char *key, double min,
                    bool min_open, double max, bool whole, double *out, bool *present, cs_error *err);
// n numbers; `spatial` (n == 3 in a 2D scene): x, y and an optional z = 0.
bool cs_json_vector(const cs_scene *scene, const cJSON *object, const char *path, const char *key, int n,
                    bool spatial, float *out, bool *present, cs_error *err);
// A float > 0 (and at least FLT_MIN) up to max.
bool cs_json_positive(const cs_scene *scene, const cJSON *object, const char *path, const char *key, double max,
                      float *out, cs_error *err);
// A float in [min, max] (no check that it fits a float: callers' ranges do).
bool cs_json_range(const cs_scene *scene, const cJSON *object, const char *path, const char *key, double min,
                   double max, float *out, cs_error *err);
bool cs_json_string(const cs_scene *scene, const cJSON *object, const char *path, const char *key, char *out,
                    size_t size, bool *present, cs_error *err);
// A spatial vector whose components lie within +-COORD_LIMIT.
bool cs_json_coord(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float *out,
                   bool *present, cs_error *err);
// A spatial vector, nonzero, returned normalised.
bool cs_json_direction(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float *out,
                       bool *present, cs_error *err);
// Linear RGB, each component in [0, 1].
bool cs_json_color(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float *out,
                   cs_error *err);
// `missing (required)` when the key is absent.
bool cs_json_require(const cs_scene *scene, const cJSON *object, const char *path, const char *key, cs_error *err);
