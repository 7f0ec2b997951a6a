// scene_bodies.c — "bodies": rigid bodies' shapes, placement, orientation
// and kinematic paths (cs_scene_read_path, shared with moving lights). Each
// value is read through its row of the key table (scene_key_tables.c,
// bodies[]); the order and the checks between them are this file's.
#include "scene_parse.h"

#include "body_shape.h"
#include "scene_keys.h"

#include <math.h>

// ---- bodies ----------------------------------------------------------------

// A polytope's "planes": [[nx, ny, nz, d], ...] (2D: [nx, ny, d] or nz = 0),
// n a unit normal pointing out of the body, inside where dot(n, x) <= d.
static bool parse_body_planes(cs_scene *scene, const cJSON *entry, const char *path, cs_body *b, cs_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(entry, "planes");
    if (!cJSON_IsArray(item))
        return cs_json_fail(scene, err, path, "planes", "must be an array of planes [nx, ny, nz, d] (got %s)",
                        cs_json_type_name(item));
    int n = cJSON_GetArraySize(item);
    int need = scene->dim + 1;
    if (n < need)
        return cs_json_fail(scene, err, path, "planes", "holds %d planes; a bounded %dD polytope needs at least %d", n,
                        scene->dim, need);
    if (n > CS_MAX_BODY_PLANES)
        return cs_json_fail(scene, err, path, "planes", "holds %d planes; at most %d are supported", n,
                        CS_MAX_BODY_PLANES);
    char where[128];
    snprintf(where, sizeof where, "%s.planes", path);
    b->plane_count = (uint32_t)n;
    uint32_t i = 0;
    for (const cJSON *e = item->child; e; e = e->next, i++) {
        char elem[160];
        cs_json_join_index(elem, sizeof elem, where, i);
        int count = cJSON_IsArray(e) ? cJSON_GetArraySize(e) : -1;
        bool flat = scene->dim == 2 && count == 3;
        if (count != 4 && !flat)
            return cs_json_fail(scene, err, elem, NULL, "must be [nx, ny, nz, d]%s (got %s)",
                            scene->dim == 2 ? " or [nx, ny, d]" : "", count < 0 ? cs_json_type_name(e) : "another length");
        double v[4] = {0, 0, 0, 0};
        int c = 0;
        for (const cJSON *x = e->child; x; x = x->next, c++) {
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > COORD_LIMIT)
                return cs_json_fail(scene, err, elem, NULL, "element %d must be a finite number within +-%g", c,
                                COORD_LIMIT);
            v[flat && c == 2 ? 3 : c] = x->valuedouble;
        }
        if (scene->dim == 2 && v[2] != 0.0)
            return cs_json_fail(scene, err, elem, NULL, "nz must be 0 in a 2D scene (got %g)", v[2]);
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(fabs(len - 1.0) <= 1e-3))
            return cs_json_fail(scene, err, elem, NULL, "the normal must have unit length (|n| = %g)", len);
        for (int k = 0; k < 4; k++)
            b->planes[i][k] = (float)(v[k] / len);
        if (!(b->planes[i][3] > 0.0f))
            return cs_json_fail(scene, err, elem, NULL,
                            "d must be > 0: the body frame's origin must lie strictly inside every plane (got %g)",
                            v[3]);
    }
    double planes[CS_MAX_BODY_PLANES][4], verts[CS_BODY_MAX_VERTICES][3];
    uint32_t np = cs_body_planes(b, scene->dim, planes);
    bool bounded;
    uint32_t nv = cs_convex_vertices((const double(*)[4])planes, np, scene->dim, verts, &bounded);
    if (!bounded || nv < (uint32_t)scene->dim + 1)
        return cs_json_fail(scene, err, path, "planes", "do not bound a finite region (the normals must point every way)");
    return true;
}

// One orientation: {"axis": [x, y, z], "degrees": a} or {"quaternion": [x, y, z, w]}.
static bool parse_orientation(cs_scene *scene, const cJSON *entry, const char *path, float q[4], cs_error *err)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(entry, "orientation");
    q[0] = q[1] = q[2] = 0.0f, q[3] = 1.0f;
    if (!o)
        return true;
    char where[128];
    cs_json_join_key(where, sizeof where, path, "orientation");
    static const char *const keys[] = {"axis", "degrees", "quaternion", NULL};
    if (!cs_json_check_keys(scene, o, where, keys, err))
        return false;
    bool has_q = cJSON_GetObjectItemCaseSensitive(o, "quaternion") != NULL;
    bool has_axis = cJSON_GetObjectItemCaseSensitive(o, "axis") || cJSON_GetObjectItemCaseSensitive(o, "degrees");
    if (has_q == has_axis)
        return cs_json_fail(scene, err, where, NULL, "give either \"quaternion\" or \"axis\" and \"degrees\"");
    double v[4];
    if (has_q) {
        float f[4] = {0.0f, 0.0f, 0.0f, 1.0f};
        if (!cs_json_vector(scene, o, where, "quaternion", 4, false, f, NULL, err))
            return false;
        for (int k = 0; k < 4; k++)
            v[k] = f[k];
    } else {
        float axis[3] = {0.0f, 0.0f, 1.0f}, deg = 0.0f;
        if (!cs_json_vector(scene, o, where, "axis", 3, false, axis, NULL, err) ||
            !cs_json_range(scene, o, where, "degrees", -1e6, 1e6, &deg, err))
            return false;
        double len = sqrt((double)axis[0] * axis[0] + (double)axis[1] * axis[1] + (double)axis[2] * axis[2]);
        if (!(len > 1e-12))
            return cs_json_fail(scene, err, where, "axis", "must be a nonzero vector");
        double half = 0.5 * deg * 3.14159265358979323846 / 180.0;
        for (int k = 0; k < 3; k++)
            v[k] = axis[k] / len * sin(half);
        v[3] = cos(half);
    }
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    if (!(len > 1e-12))
        return cs_json_fail(scene, err, where, "quaternion", "must be nonzero");
    if (scene->dim == 2 && (fabs(v[0]) > 1e-6 * len || fabs(v[1]) > 1e-6 * len))
        return cs_json_fail(scene, err, where, NULL, "a 2D body turns about z only");
    for (int k = 0; k < 4; k++)
        q[k] = (float)(v[k] / len);
    return true;
}

// A kinematic body's "path": {"keys": [[t, x, y, z], ...] (2D: [t, x, y]),
// "loop": bool}: positions of the body frame's origin at times t, the
// first at t = 0, t strictly increasing; with loop the last key must equal
// the first (the body goes round again without a jump).
bool cs_scene_read_path(const cs_scene *scene, const cJSON *o, const char *owner, int dim, double coord_limit,
                        uint32_t max_keys, float (*keys)[4], uint32_t *count, bool *loop, cs_error *err)
{
    static const char *const names[] = {"keys", "loop", NULL};
    const char *shape = dim == 3 ? "[t, x, y, z]" : "[t, x, y]";
    char where[160];
    snprintf(where, sizeof where, "%s.path", owner);
    if (!cJSON_IsObject(o))
        return cs_json_fail(scene, err, owner, "path", "must be an object {\"keys\": [%s, ...], \"loop\": bool}", shape);
    *loop = false;
    if (!cs_json_check_keys(scene, o, where, names, err) || !cs_json_require(scene, o, where, "keys", err) ||
        !cs_json_bool(scene, o, where, "loop", loop, err))
        return false;
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, "keys");
    int n = cJSON_IsArray(item) ? cJSON_GetArraySize(item) : -1;
    if (n < 2 || n > (int)max_keys)
        return cs_json_fail(scene, err, where, "keys", "must be an array of 2 to %u keys %s", max_keys, shape);
    snprintf(where, sizeof where, "%s.path.keys", owner);
    uint32_t i = 0;
    for (const cJSON *e = item->child; e; e = e->next, i++) {
        char elem[200];
        cs_json_join_index(elem, sizeof elem, where, i);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 1 + dim)
            return cs_json_fail(scene, err, elem, NULL, "must be %s", shape);
        float *k = keys[i];
        k[0] = k[1] = k[2] = k[3] = 0.0f;
        int c = 0;
        for (const cJSON *x = e->child; x; x = x->next, c++) {
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > coord_limit)
                return cs_json_fail(scene, err, elem, NULL, "element %d must be a finite number within +-%g", c, coord_limit);
            k[c] = (float)x->valuedouble;
        }
        if (i == 0 && k[0] != 0.0f)
            return cs_json_fail(scene, err, elem, NULL, "the first key's time must be 0 (got %g)", k[0]);
        if (i > 0 && !(k[0] > keys[i - 1][0]))
            return cs_json_fail(scene, err, elem, NULL, "times must increase (%g after %g)", k[0], keys[i - 1][0]);
    }
    *count = (uint32_t)n;
    snprintf(where, sizeof where, "%s.path", owner);
    if (*loop && memcmp(&keys[0][1], &keys[n - 1][1], 3 * sizeof(float)) != 0)
        return cs_json_fail(scene, err, where, NULL, "with loop, the last key's position must equal the first's");
    return true;
}

static bool parse_body_path(cs_scene *scene, const cJSON *entry, const char *path, cs_body *b, cs_error *err)
{
    if (!cs_scene_read_path(scene, cJSON_GetObjectItemCaseSensitive(entry, "path"), path, scene->dim, COORD_LIMIT,
                            CS_MAX_BODY_PATH_KEYS, b->path, &b->path_count, &b->path_loop, err))
        return false;
    char where[160];
    snprintf(where, sizeof where, "%s.path.keys", path);
    for (uint32_t i = 0; i < b->path_count; i++) {
        const float *k = b->path[i];
        char elem[200];
        cs_json_join_index(elem, sizeof elem, where, i);
        if (!cs_scene_inside_domain(scene, &k[1], 0.0f))
            return cs_json_fail(scene, err, elem, NULL, "(%g, %g, %g) is outside the domain", k[1], k[2], k[3]);
    }
    for (int a = 0; a < 3; a++)
        b->position[a] = b->path[0][1 + a];
    return true;
}

// A moving body larger than the domain on an axis (a box by its extent
// as oriented, a sphere by its diameter) can never be inside it: the walls
// push it back every substep and the fluid between them with it (a 5 m
// sphere in a 1.2 m box reached 1.8e10 m/s, and exit 0). Static and
// kinematic bodies are pushed by nothing: they may be larger. Polytopes are
// not checked here.
static bool body_fits_domain(const cs_scene *scene, const char *path, const cs_body *b, cs_error *err)
{
    if (b->is_static || b->path_count || b->shape == CS_BODY_POLYTOPE)
        return true;
    const float *q = b->orientation;
    // Rows of the rotation matrix of q (x, y, z, w).
    double r[3][3] = {
        {1 - 2 * (q[1] * q[1] + q[2] * q[2]), 2 * (q[0] * q[1] - q[2] * q[3]), 2 * (q[0] * q[2] + q[1] * q[3])},
        {2 * (q[0] * q[1] + q[2] * q[3]), 1 - 2 * (q[0] * q[0] + q[2] * q[2]), 2 * (q[1] * q[2] - q[0] * q[3])},
        {2 * (q[0] * q[2] - q[1] * q[3]), 2 * (q[1] * q[2] + q[0] * q[3]), 1 - 2 * (q[0] * q[0] + q[1] * q[1])},
    };
    for (int a = 0; a < scene->dim; a++) {
        double extent = 0.0, room = (double)scene->domain_max[a] - (double)scene->domain_min[a];
        if (b->shape == CS_BODY_SPHERE)
            extent = 2.0 * b->radius;
        else
            for (int k = 0; k < scene->dim; k++)
                extent += fabs(r[a][k]) * b->size[k];
        static const char axis_names[] = "xyz";
        if (extent > room)
            return cs_json_fail(scene, err, path, b->shape == CS_BODY_SPHERE ? "radius" : "size",
                                "the %s is %g m across on %c but the domain is %g m: a moving body must fit inside "
                                "it (make it smaller, the domain larger, or the body static)",
                                b->shape == CS_BODY_SPHERE ? "sphere" : "box", extent, axis_names[a], room);
    }
    return true;
}

bool cs_scene_parse_bodies(cs_scene *scene, const cJSON *root, cs_error *err)
{
    // Read key by key in the order the checks need: the shape first, then
    // what the shape and a path allow (the rows give each value's checks).
    const cs_scene_key_block *keys = cs_scene_body_keys;
    const cJSON *array;
    if (!cs_json_array(scene, root, "bodies", 0, CS_MAX_BODIES, &array, &scene->body_count, err))
        return false;
    if (scene->body_count) {
        scene->body_storage = calloc(scene->body_count, sizeof *scene->body_storage);
        if (!scene->body_storage)
            return cs_fail(err, "%s: out of memory", scene->path);
        scene->bodies = scene->body_storage;
    }
    const cJSON *entry = array ? array->child : NULL;
    for (uint32_t i = 0; i < scene->body_count; i++, entry = entry->next) {
        cs_body *b = &scene->body_storage[i];
        *b = (cs_body){0};
        char path[64];
        cs_json_join_index(path, sizeof path, "bodies", i);
        char shape[16] = "";
        if (!cs_scene_keys_check(scene, entry, path, keys, err) || !cs_json_require(scene, entry, path, "shape", err) ||
            !cs_json_string(scene, entry, path, "shape", shape, sizeof shape, NULL, err))
            return false;
        // Only the keys of its shape.
        static const char *const shape_keys[] = {"size", "radius", "planes"};
        int own = strcmp(shape, "box") == 0 ? 0 : strcmp(shape, "sphere") == 0 ? 1 : strcmp(shape, "polytope") == 0 ? 2 : -1;
        if (own < 0)
            return cs_json_fail(scene, err, path, "shape", "must be \"box\", \"sphere\" or \"polytope\" (got \"%s\")",
                            shape);
        for (int k = 0; k < 3; k++) {
            if (k != own && cJSON_GetObjectItemCaseSensitive(entry, shape_keys[k]))
                return cs_json_fail(scene, err, path, shape_keys[k], "does not belong to a %s", shape);
        }
        if (!cs_json_require(scene, entry, path, shape_keys[own], err))
            return false;
        b->shape = own == 0 ? CS_BODY_BOX : own == 1 ? CS_BODY_SPHERE : CS_BODY_POLYTOPE;
        if (own == 0) {
            if (!cs_scene_key_read_named(scene, entry, path, keys, "size", b, err))
                return false;
            for (int a = 0; a < scene->dim; a++) {
                if (!(b->size[a] > 0.0f))
                    return cs_json_fail(scene, err, path, "size", "must be positive on every axis (axis %d: %g)", a,
                                    b->size[a]);
            }
        } else if (own == 1) {
            if (!cs_scene_key_read_named(scene, entry, path, keys, "radius", b, err))
                return false;
        } else if (!parse_body_planes(scene, entry, path, b, err)) {
            return false;
        }
        bool has_density = cJSON_GetObjectItemCaseSensitive(entry, "density") != NULL;
        bool has_mass = cJSON_GetObjectItemCaseSensitive(entry, "mass") != NULL;
        b->is_static = false;
        if (!cs_scene_key_read_named(scene, entry, path, keys, "static", b, err))
            return false;
        if (has_density && has_mass)
            return cs_json_fail(scene, err, path, "mass", "give density or mass, not both");
        bool has_path = cJSON_GetObjectItemCaseSensitive(entry, "path") != NULL;
        if (has_path && (b->is_static || cJSON_GetObjectItemCaseSensitive(entry, "position") ||
                         cJSON_GetObjectItemCaseSensitive(entry, "velocity") ||
                         cJSON_GetObjectItemCaseSensitive(entry, "angular_velocity")))
            return cs_json_fail(scene, err, path, "path", "a body on a path is neither static nor given a position or a velocity "
                            "(its first key is its position)");
        if (has_path && !parse_body_path(scene, entry, path, b, err))
            return false;
        if (!has_density && !has_mass && !b->is_static && !has_path)
            return cs_json_fail(scene, err, path, "density", "missing: a moving body needs a density or a mass");
        if (!cs_scene_key_read_named(scene, entry, path, keys, "density", b, err) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "mass", b, err) ||
            (!has_path && !cs_json_require(scene, entry, path, "position", err)) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "position", b, err) ||
            !parse_orientation(scene, entry, path, b->orientation, err) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "velocity", b, err) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "angular_velocity", b, err) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "restitution", b, err) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "friction", b, err) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "color", b, err))
            return false;
        if (!cs_scene_inside_domain(scene, b->position, 0.0f))
            return cs_json_fail(scene, err, path, "position", "(%g, %g, %g) is outside the domain", b->position[0],
                            b->position[1], b->position[2]);
        if (!body_fits_domain(scene, path, b, err))
            return false;
        for (int a = 0; a < 3; a++) {
            if (fabsf(b->angular_velocity[a]) > 1e4f)
                return cs_json_fail(scene, err, path, "angular_velocity", "component %d is %g; at most 1e4 rad/s", a,
                                b->angular_velocity[a]);
        }
        if (scene->dim == 2 && (b->angular_velocity[0] != 0.0f || b->angular_velocity[1] != 0.0f))
            return cs_json_fail(scene, err, path, "angular_velocity", "a 2D body turns about z only: [0, 0, wz]");
        if (b->is_static && (b->velocity[0] != 0.0f || b->velocity[1] != 0.0f || b->velocity[2] != 0.0f ||
                             b->angular_velocity[0] != 0.0f || b->angular_velocity[1] != 0.0f ||
                             b->angular_velocity[2] != 0.0f))
            return cs_json_fail(scene, err, path, "static", "a static body has no velocity");
    }
    return true;
}

