// scene.c — the scene parser (JSON → cs_scene), the block lattice fill and
// the particle-count scaling used by benchmarks.
//
// Owns: the schema of the keys common to every pipeline (docs/scenes.md is
// its manual and must change with this file), the error messages for them,
// and the cs_json_* helpers the solver modules use for their own blocks.
// Every error is `file: key.path: what is wrong` (or `file:line:col:` for
// JSON syntax); nothing the file says can abort or leak.
#define _POSIX_C_SOURCE 200809L
#include "scene.h"

#include "body_shape.h"
#include "file_io.h"
#include "geometry.h"

#include <float.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <unistd.h>

// Coordinates and sizes beyond these are certainly typos, and keeping them
// bounded keeps every derived count finite.
#define COORD_LIMIT 1e6
#define SPACING_MIN 1e-5
#define SPACING_MAX 1e5
// floor(extent / spacing) with this slack, so 0.4 / 0.02 counts 20 even when
// the float quotient lands at 19.999998.
#define LATTICE_SLACK 1e-4
// Most lattice points along one axis of a block.
#define AXIS_LIMIT 1e6
// A spacing must stay this many times above the float resolution of the
// domain's coordinates, or neighbouring particles share a position.
#define FLOAT_RESOLUTION 1e-6

// ---- key paths and messages ----------------------------------------------

static void join_key(char *out, size_t size, const char *path, const char *key)
{
    if (!path || !path[0])
        snprintf(out, size, "%s", key);
    else
        snprintf(out, size, "%s.%s", path, key);
}

static void join_index(char *out, size_t size, const char *path, uint32_t index)
{
    snprintf(out, size, "%s[%u]", path, index);
}

// `file: path.key: message`. key may be NULL when path already names it.
static bool key_fail(const cs_scene *scene, cs_error *err, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static bool key_fail(const cs_scene *scene, cs_error *err, const char *path, const char *key, const char *fmt, ...)
{
    char where[300], full[300];
    if (key)
        join_key(full, sizeof full, path, key[0] ? key : "\"\"");
    else
        snprintf(full, sizeof full, "%s", path);
    // A fluid's scene names its entry first: fluids[1].blocks[0].min.
    join_key(where, sizeof where, scene->key_prefix, full);
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

static const char *json_type_name(const cJSON *item)
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
    return key_fail(scene, err, path, key, "%s", what);
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
        return key_fail(&world, err, "surface", key, "%s", what);
    }
    return key_fail(fluid, err, "surface", key, "%s", what);
}

// ---- public JSON helpers -------------------------------------------------

bool cs_json_check_keys(const cs_scene *scene, const cJSON *object, const char *path, const char *const *allowed,
                        cs_error *err)
{
    if (!cJSON_IsObject(object))
        return key_fail(scene, err, path, NULL, "must be an object (got %s)", json_type_name(object));
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
            return key_fail(scene, err, path, key, "unknown key (allowed here: %s)", list);
        }
        if (seen[a / 64] & (1ull << (a % 64)))
            return key_fail(scene, err, path, key, "duplicate key");
        seen[a / 64] |= 1ull << (a % 64);
    }
    return true;
}

// One number with a range; an open lower bound reads "must be > min".
// *present tells whether the key was there (NULL: don't care).
static bool get_number(const cs_scene *scene, const cJSON *object, const char *path, const char *key, double min,
                       bool min_open, double max, bool whole, double *out, bool *present, cs_error *err)
{
    const cJSON *item = cJSON_IsObject(object) ? cJSON_GetObjectItemCaseSensitive(object, key) : NULL;
    if (present)
        *present = item != NULL;
    if (!item)
        return true;
    if (!cJSON_IsNumber(item))
        return key_fail(scene, err, path, key, "must be a number (got %s)", json_type_name(item));
    double v = item->valuedouble;
    if (!isfinite(v))
        return key_fail(scene, err, path, key, "must be a finite number (got %g)", v);
    if (whole && v != floor(v))
        return key_fail(scene, err, path, key, "must be a whole number (got %g)", v);
    if (min_open ? !(v > min) : !(v >= min))
        return key_fail(scene, err, path, key, "must be %s %g (got %g)", min_open ? ">" : ">=", min, v);
    if (!(v <= max))
        return key_fail(scene, err, path, key, "must be <= %g (got %g)", max, v);
    *out = v;
    return true;
}

bool cs_json_float(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float min,
                   float max, float *out, cs_error *err)
{
    double v = 0.0;
    bool present;
    if (!get_number(scene, object, path, key, min, false, max, false, &v, &present, err))
        return false;
    if (present && fabs(v) > FLT_MAX)
        return key_fail(scene, err, path, key, "%g does not fit in a float", v);
    if (present)
        *out = (float)v;
    return true;
}

bool cs_json_uint(const cs_scene *scene, const cJSON *object, const char *path, const char *key, uint32_t min,
                  uint32_t max, uint32_t *out, cs_error *err)
{
    double v = 0.0;
    bool present;
    if (!get_number(scene, object, path, key, min, false, max, true, &v, &present, err))
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
        return key_fail(scene, err, path, key, "must be true or false (got %s)", json_type_name(item));
    *out = cJSON_IsTrue(item);
    return true;
}

// A vector of n numbers. `spatial` (n == 3 in a 2D scene): x, y and an
// optional z that must be 0.
static bool get_vec(const cs_scene *scene, const cJSON *object, const char *path, const char *key, int n,
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
            snprintf(got, sizeof got, "%s", json_type_name(item));
        else
            snprintf(got, sizeof got, "%d element%s", count, count == 1 ? "" : "s");
        if (want)
            return key_fail(scene, err, path, key, "must be %s (got %s)", want, got);
        return key_fail(scene, err, path, key, "must be an array of %d numbers (got %s)", n, got);
    }
    char where[300];
    join_key(where, sizeof where, path, key);
    float v[4] = {0};
    int i = 0;
    for (const cJSON *e = item->child; e && i < count; e = e->next, i++) {
        char elem[320];
        join_index(elem, sizeof elem, where, (uint32_t)i);
        if (!cJSON_IsNumber(e))
            return key_fail(scene, err, elem, NULL, "must be a number (got %s)", json_type_name(e));
        if (!isfinite(e->valuedouble) || fabs(e->valuedouble) > FLT_MAX)
            return key_fail(scene, err, elem, NULL, "must be a finite number (got %g)", e->valuedouble);
        if (flat && i == 2 && e->valuedouble != 0.0)
            return key_fail(scene, err, elem, NULL, "must be 0 in a 2D scene (got %g)", e->valuedouble);
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
    return get_vec(scene, object, path, key, n, true, out, NULL, err);
}

// ---- small typed getters used by the parser -----------------------------

static bool get_positive(const cs_scene *scene, const cJSON *object, const char *path, const char *key, double max,
                         float *out, cs_error *err)
{
    double v = 0.0;
    bool present;
    if (!get_number(scene, object, path, key, 0.0, true, max, false, &v, &present, err))
        return false;
    if (present && !((float)v >= FLT_MIN))
        return key_fail(scene, err, path, key, "%g is too small for a float (the smallest is %g)", v, FLT_MIN);
    if (present)
        *out = (float)v;
    return true;
}

static bool get_range(const cs_scene *scene, const cJSON *object, const char *path, const char *key, double min,
                      double max, float *out, cs_error *err)
{
    double v = 0.0;
    bool present;
    if (!get_number(scene, object, path, key, min, false, max, false, &v, &present, err))
        return false;
    if (present)
        *out = (float)v;
    return true;
}

static bool get_string(const cs_scene *scene, const cJSON *object, const char *path, const char *key, char *out,
                       size_t size, bool *present, cs_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
    if (present)
        *present = item != NULL;
    if (!item)
        return true;
    if (!cJSON_IsString(item) || !item->valuestring)
        return key_fail(scene, err, path, key, "must be a string (got %s)", json_type_name(item));
    if (strlen(item->valuestring) >= size)
        return key_fail(scene, err, path, key, "must be shorter than %zu characters", size);
    snprintf(out, size, "%s", item->valuestring);
    return true;
}

// A vector whose components must lie within +-COORD_LIMIT (positions, sizes).
static bool get_coord(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float *out,
                      bool *present, cs_error *err)
{
    if (!get_vec(scene, object, path, key, 3, true, out, present, err))
        return false;
    for (int a = 0; a < 3; a++) {
        if (fabsf(out[a]) > COORD_LIMIT)
            return key_fail(scene, err, path, key, "component %d is %g; coordinates must lie within +-%g", a,
                            out[a], COORD_LIMIT);
    }
    return true;
}

// A direction: nonzero, returned normalised.
static bool get_direction(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float *out,
                          bool *present, cs_error *err)
{
    if (!get_vec(scene, object, path, key, 3, true, out, present, err))
        return false;
    if (present && !*present)
        return true;
    double len = sqrt((double)out[0] * out[0] + (double)out[1] * out[1] + (double)out[2] * out[2]);
    if (!(len > 1e-12) || !isfinite(len))
        return key_fail(scene, err, path, key, "must be a nonzero vector");
    for (int a = 0; a < 3; a++)
        out[a] = (float)(out[a] / len);
    return true;
}

static bool get_color(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float *out,
                      cs_error *err)
{
    float c[3];
    bool present;
    if (!get_vec(scene, object, path, key, 3, false, c, &present, err))
        return false;
    if (!present)
        return true;
    for (int a = 0; a < 3; a++) {
        if (!(c[a] >= 0.0f && c[a] <= 1.0f))
            return key_fail(scene, err, path, key, "component %d is %g; colours are linear RGB in [0, 1]", a,
                            c[a]);
    }
    memcpy(out, c, sizeof c);
    return true;
}

static bool require(const cs_scene *scene, const cJSON *object, const char *path, const char *key, cs_error *err)
{
    if (cJSON_GetObjectItemCaseSensitive(object, key))
        return true;
    return key_fail(scene, err, path, key, "missing (required)");
}

// ---- lattice ---------------------------------------------------------------

// Lattice points per axis of a block at `spacing`: the points
// min + (i + 0.5) * spacing whose cells of size `spacing` lie inside the box.
static void block_dims(const cs_scene *scene, const cs_fluid_block *b, float spacing, uint64_t n[3])
{
    for (int a = 0; a < 3; a++) {
        if (a == 2 && scene->dim == 2) {
            n[a] = 1;
            continue;
        }
        double cells = floor(((double)b->max[a] - (double)b->min[a]) / (double)spacing + LATTICE_SLACK);
        // Clamped so 16 blocks' products still sum exactly in 64 bits; the
        // parser and the scaling keep real scenes below the clamp.
        n[a] = cells <= 0.0 ? 0 : cells >= AXIS_LIMIT ? (uint64_t)AXIS_LIMIT : (uint64_t)cells;
    }
}

static uint64_t block_count(const cs_scene *scene, const cs_fluid_block *b, float spacing)
{
    uint64_t n[3];
    block_dims(scene, b, spacing, n);
    return n[0] * n[1] * n[2];
}

uint32_t cs_scene_block_particles(const cs_scene *scene)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < scene->block_count; i++)
        total += block_count(scene, &scene->blocks[i], scene->blocks[i].spacing);
    return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

// splitmix64 finaliser: a hash of (seed, block, particle, axis), so the
// jitter of a particle depends on nothing but its own identity.
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float jitter_unit(uint32_t seed, uint32_t block, uint64_t index, int axis)
{
    uint64_t h = mix64(((uint64_t)seed << 32) ^ ((uint64_t)block << 8) ^ (uint64_t)axis);
    h = mix64(h ^ index);
    return (float)((double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0); // [-1, 1)
}

uint32_t cs_scene_fill_blocks(const cs_scene *scene, float *positions4, float *velocities4, uint32_t *materials,
                              uint32_t capacity)
{
    uint32_t written = 0;
    int axes = scene->dim == 2 ? 2 : 3;
    for (uint32_t bi = 0; bi < scene->block_count && written < capacity; bi++) {
        const cs_fluid_block *b = &scene->blocks[bi];
        uint64_t n[3];
        block_dims(scene, b, b->spacing, n);
        float amplitude = b->jitter * b->spacing;
        uint64_t index = 0;
        for (uint64_t k = 0; k < n[2] && written < capacity; k++) {
            for (uint64_t j = 0; j < n[1] && written < capacity; j++) {
                for (uint64_t i = 0; i < n[0] && written < capacity; i++, index++) {
                    uint64_t cell[3] = {i, j, k};
                    float p[3] = {0, 0, 0};
                    for (int a = 0; a < axes; a++) {
                        p[a] = b->min[a] + ((float)cell[a] + 0.5f) * b->spacing;
                        if (amplitude > 0.0f)
                            p[a] += amplitude * jitter_unit(scene->seed, bi, index, a);
                    }
                    if (positions4) {
                        float *o = positions4 + (size_t)written * 4;
                        o[0] = p[0], o[1] = p[1], o[2] = p[2], o[3] = 0.0f;
                    }
                    if (velocities4) {
                        float *o = velocities4 + (size_t)written * 4;
                        o[0] = b->velocity[0], o[1] = b->velocity[1];
                        o[2] = scene->dim == 2 ? 0.0f : b->velocity[2], o[3] = 0.0f;
                    }
                    if (materials)
                        materials[written] = b->material;
                    written++;
                }
            }
        }
    }
    return written;
}

static float scene_resolution(const cs_scene *scene);

// Total block particles if every spacing were multiplied by k (the float
// spacings are what the fill will use, so count those).
static uint64_t scaled_count(const cs_scene *scene, double k)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < scene->block_count; i++)
        total += block_count(scene, &scene->blocks[i], (float)(scene->blocks[i].spacing * k));
    return total;
}

// How a scaled scene stays the same flow at a finer resolution (docs/scenes.md
// "Particle-count scaling" is the manual of this table and must change with
// it). The rule: the discrete system keeps its shape in units of h and dt.
// dt shrinks with k (so h / dt, every velocity and the CFL number v dt / h
// stay) and the frame keeps its simulated time (substeps grow), so every
// number a solver computes per substep in units of h keeps its value; only
// g dt^2 / h shrinks (like k): gravity is resolved by more substeps. Each
// material parameter p whose unit involves h, dt or the particle mass m
// (m ∝ k^dim) becomes p * k^(per_dim * dim + constant) * tau^time, where
// tau = dt' / dt (<= k: whole substeps per frame). Parameters not
// listed stay: rest_density, colours, speed_of_sound (a physical speed; the
// WCSPH CFL split follows h itself), tait_gamma, WCSPH alpha and PBF XSPH c
// (dimensionless per substep), and every solver block (the "pbf" block is
// relative to the lattice, the "sph" block has no units).
typedef struct scale_rule {
    const char *solver;  // scene "solver" this rule applies to
    size_t offset;       // float field of cs_material
    int per_dim, constant, time;
    const char *why;     // the unit argument, for the reader (docs repeat it)
} scale_rule;

static const scale_rule scale_rules[] = {
    // Clavet (pipelines/fluid/fluid_sph.c, shaders/sph/): densities are normalised
    // (rho = N_n sum m a^n, N_n ∝ h^-dim) and do not change.
    {"sph", offsetof(cs_material, stiffness), 2, 1, -2,
     "relax displacement dt^2 P N_n / m ∝ k_s tau^2 k^(-2 dim) must scale like h"},
    {"sph", offsetof(cs_material, near_stiffness), 2, 1, -2, "same as stiffness (P_near = k_near rho_near)"},
    {"sph", offsetof(cs_material, viscosity_linear), 0, 0, -1, "impulse dt sigma u: sigma dt is kept (sigma is 1/s)"},
    {"sph", offsetof(cs_material, viscosity_quadratic), 0, -1, 0,
     "impulse dt beta u^2 over u: beta dt u is kept, u ∝ h / dt, so beta h is"},
    {"sph", offsetof(cs_material, surface_tension), 1, 0, 0,
     "cohesion displacement per substep kappa N_n m r / m ∝ kappa k^(1 - dim) must scale like h"},
    // WCSPH (shaders/wcsph/forces.comp): cohesion is an acceleration.
    {"wcsph", offsetof(cs_material, surface_tension), 1, 0, -2,
     "cohesion acceleration kappa N_n m r / m ∝ kappa k^(1 - dim) must scale like h / dt^2"},
};

// Lattice fit: a block whose box is a whole number of spacings is filled to
// its faces. The bisected k generally leaves a gap of up to one spacing at
// those faces, and the fluid then slumps into it (a pool at rest next to a
// wall starts to flow: wcsph_tank_3d at 64k moved at 1.5 m/s within 0.04 s).
// So where the file's blocks fit, the scaling prefers the closest k that
// keeps them fitting, when its count is within FIT_TOLERANCE of the target.
#define FIT_TOLERANCE 0.05

static bool axis_fits(double extent, double spacing)
{
    double x = extent / spacing;
    return x >= 0.5 && fabs(x - round(x)) < 0.5 * LATTICE_SLACK; // inside the count's slack
}

// Every block axis that fits the file's spacing still fits after k.
static bool fits_after(const cs_scene *scene, double k)
{
    for (uint32_t i = 0; i < scene->block_count; i++) {
        const cs_fluid_block *b = &scene->blocks[i];
        for (int a = 0; a < scene->dim; a++) {
            double extent = (double)b->max[a] - b->min[a];
            if (axis_fits(extent, b->spacing) && !axis_fits(extent, (float)(b->spacing * k)))
                return false;
        }
    }
    return true;
}

// Candidates are k = n0 / j for an axis of n0 spacings and j near n0 / k.
static double fitting_k(const cs_scene *scene, double k, uint32_t target, double min_k, double max_k)
{
    double best = k, best_miss = INFINITY;
    if (fits_after(scene, k))
        return k;
    for (uint32_t i = 0; i < scene->block_count; i++) {
        const cs_fluid_block *b = &scene->blocks[i];
        for (int a = 0; a < scene->dim; a++) {
            double extent = (double)b->max[a] - b->min[a];
            if (!axis_fits(extent, b->spacing))
                continue;
            double n0 = round(extent / b->spacing);
            double j0 = round(n0 / k);
            for (double j = fmax(j0 - 3, 1); j <= j0 + 3; j++) {
                double c = n0 / j;
                if (c < min_k || c > max_k || !fits_after(scene, c))
                    continue;
                double miss = fabs((double)scaled_count(scene, c) - target) / target;
                if (miss <= FIT_TOLERANCE && miss < best_miss)
                    best = c, best_miss = miss;
            }
        }
    }
    return best;
}

// New substep count for a factor k: at least substeps / k (so dt' <= k dt),
// frame time kept: dt' = dt substeps / substeps'.
static uint32_t scaled_substeps(uint32_t substeps, double k)
{
    double n = ceil((double)substeps / k - 1e-6);
    return (uint32_t)fmin(fmax(n, 1.0), 1000.0); // the parser's range
}

void cs_scene_scale_particle_count(cs_scene *scene, uint32_t target)
{
    uint64_t current = scaled_count(scene, 1.0);
    if (target == 0 || current == 0)
        return;
    if (target > CS_SCENE_MAX_PARTICLES)
        target = CS_SCENE_MAX_PARTICLES;
    // The count is a monotone staircase in k (floor per axis): bracket the
    // target between k_small (count >= target) and k_large (count < target),
    // bisect in log space, then take the closer of the two stairs.
    double min_k = 0.0, max_k = INFINITY; // spacings stay in the parser's range
    for (uint32_t i = 0; i < scene->block_count; i++) {
        const cs_fluid_block *b = &scene->blocks[i];
        min_k = fmax(min_k, scene_resolution(scene) / b->spacing);
        max_k = fmin(max_k, SPACING_MAX / b->spacing);
        for (int a = 0; a < scene->dim; a++)
            min_k = fmax(min_k, ((double)b->max[a] - b->min[a]) / (AXIS_LIMIT * b->spacing));
    }
    double guess = fmin(fmax(pow((double)current / target, 1.0 / scene->dim), min_k), max_k);
    double k_small = guess, k_large = guess;
    while (k_small > min_k && scaled_count(scene, k_small) < target)
        k_small = fmax(k_small * 0.5, min_k);
    while (k_large < max_k && scaled_count(scene, k_large) >= target)
        k_large = fmin(k_large * 2.0, max_k);
    for (int it = 0; it < 64 && k_small < k_large; it++) {
        double mid = sqrt(k_small * k_large);
        if (mid <= k_small || mid >= k_large)
            break;
        if (scaled_count(scene, mid) >= target)
            k_small = mid;
        else
            k_large = mid;
    }
    double miss_small = fabs((double)scaled_count(scene, k_small) - target);
    double miss_large = fabs((double)scaled_count(scene, k_large) - target);
    double best_k = fitting_k(scene, miss_small <= miss_large ? k_small : k_large, target, min_k, max_k);
    if (best_k == 1.0)
        return;
    uint64_t old_blocks = current;
    for (uint32_t i = 0; i < scene->block_count; i++)
        scene->blocks[i].spacing = (float)(scene->blocks[i].spacing * best_k);
    scene->particle_spacing = (float)(scene->particle_spacing * best_k);
    scene->smoothing_radius = (float)(scene->smoothing_radius * best_k);
    double volume = pow(best_k, scene->dim); // per particle, relative
    // Same frame time in substeps of dt' = tau dt <= k dt.
    uint32_t substeps = scaled_substeps(scene->substeps, best_k);
    double tau = (double)scene->substeps / substeps;
    scene->dt = (float)(scene->dt * tau);
    scene->substeps = substeps;
    for (uint32_t m = 0; m < scene->material_count; m++) {
        cs_material *mat = &scene->materials[m];
        mat->mass = fmaxf((float)(mat->mass * volume), FLT_MIN);
        for (size_t r = 0; r < CS_ARRAY_COUNT(scale_rules); r++) {
            const scale_rule *rule = &scale_rules[r];
            if (strcmp(rule->solver, scene->solver) != 0)
                continue;
            float *p = (float *)((char *)mat + rule->offset);
            *p = (float)(*p * pow(best_k, rule->per_dim * scene->dim + rule->constant) * pow(tau, rule->time));
        }
    }
    if (scene->render.particle_radius > 0.0f)
        scene->render.particle_radius = (float)(scene->render.particle_radius * best_k);
    // Emitters keep their mass flow: 1/k^dim as many particles, each k^dim
    // as heavy, through the same jet at the same speed.
    uint64_t old_budgets = 0, new_budgets = 0;
    for (uint32_t e = 0; e < scene->emitter_count; e++) {
        cs_emitter *em = &scene->emitters[e];
        old_budgets += em->budget;
        em->rate = fminf((float)(em->rate / volume), 1e9f);
        em->budget = (uint32_t)fmin(fmax(ceil(em->budget / volume - 1e-6), 1.0), CS_SCENE_MAX_PARTICLES);
        new_budgets += em->budget;
    }
    // Keep the head room the file gave above the block particles (its
    // emitter budgets, by default), scaled like the budgets.
    uint64_t new_blocks = scaled_count(scene, 1.0);
    uint64_t room = scene->max_particles >= old_blocks ? scene->max_particles - old_blocks : 0;
    room = room == old_budgets ? new_budgets : (uint64_t)ceil(room / volume - 1e-6);
    uint64_t max = new_blocks + room;
    scene->max_particles = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
}

void cs_scene_scale_world(cs_scene *scene, uint32_t target)
{
    if (scene->first_format) {
        // The top level is the fluid: scale it and copy it again, keeping
        // the copy's own bookkeeping.
        cs_scene_scale_particle_count(scene, target);
        cs_scene *f = &scene->fluids[0];
        cs_scene keep = *f;
        *f = *scene;
        f->json = NULL, f->fluids = NULL, f->fluid_count = 0, f->body_storage = NULL;
        memcpy(f->fluid_name, keep.fluid_name, sizeof f->fluid_name);
        return;
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < scene->fluid_count; i++)
        total += cs_scene_block_particles(&scene->fluids[i]);
    uint32_t most = 0;
    for (uint32_t i = 0; i < scene->fluid_count; i++) {
        cs_scene *f = &scene->fluids[i];
        double share = total ? (double)cs_scene_block_particles(f) / (double)total : 1.0 / scene->fluid_count;
        cs_scene_scale_particle_count(f, (uint32_t)fmax(1.0, round(share * target)));
        if (f->substeps > scene->fluids[most].substeps)
            most = i;
    }
    // One substep clock for the world: the finest fluid's.
    scene->dt = scene->fluids[most].dt;
    scene->substeps = scene->fluids[most].substeps;
    for (uint32_t i = 0; i < scene->fluid_count; i++) {
        scene->fluids[i].dt = scene->dt;
        scene->fluids[i].substeps = scene->substeps;
    }
}

// ---- the parser ------------------------------------------------------------

static bool material_ref(const cs_scene *scene, const cJSON *object, const char *path, uint32_t *out, cs_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, "material");
    if (!item)
        return true;
    if (cJSON_IsString(item) && item->valuestring) {
        for (uint32_t m = 0; m < scene->material_count; m++) {
            if (strcmp(scene->materials[m].name, item->valuestring) == 0) {
                *out = m;
                return true;
            }
        }
        char list[512] = "";
        size_t used = 0;
        for (uint32_t m = 0; m < scene->material_count && used < sizeof list; m++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s\"%s\"", m ? ", " : "",
                                     scene->materials[m].name);
        return key_fail(scene, err, path, "material", "unknown material \"%.64s\" (this scene has %s)",
                        item->valuestring, list);
    }
    double v = 0.0;
    if (!cJSON_IsNumber(item))
        return key_fail(scene, err, path, "material", "must be a material name or index (got %s)",
                        json_type_name(item));
    if (!get_number(scene, object, path, "material", 0, false, (double)scene->material_count - 1, true, &v, NULL,
                    err))
        return false;
    *out = (uint32_t)v;
    return true;
}

// Starts the array walk shared by materials, blocks, emitters and walls.
static bool get_array(const cs_scene *scene, const cJSON *root, const char *key, uint32_t min, uint32_t max,
                      const cJSON **out, uint32_t *count, cs_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    *out = item;
    *count = 0;
    if (!item)
        return true;
    if (!cJSON_IsArray(item))
        return key_fail(scene, err, "", key, "must be an array (got %s)", json_type_name(item));
    int n = cJSON_GetArraySize(item);
    if (n < (int)min)
        return key_fail(scene, err, "", key, "must hold at least %u entr%s", min, min == 1 ? "y" : "ies");
    if (n > (int)max)
        return key_fail(scene, err, "", key, "holds %d entries; at most %u are supported", n, max);
    *count = (uint32_t)n;
    return true;
}

static bool inside_domain(const cs_scene *scene, const float *p, float slack)
{
    for (int a = 0; a < 3; a++) {
        if (p[a] < scene->domain_min[a] - slack || p[a] > scene->domain_max[a] + slack)
            return false;
    }
    return true;
}

static bool parse_materials(cs_scene *scene, const cJSON *root, cs_error *err)
{
    static const char *const keys[] = {"name",     "mass",           "rest_density",        "color",
                                       "stiffness", "near_stiffness", "viscosity_linear",    "viscosity_quadratic",
                                       "surface_tension", "speed_of_sound", "tait_gamma", "viscosity",
                                       NULL};
    const cJSON *array;
    uint32_t count;
    if (!get_array(scene, root, "materials", 1, CS_MAX_MATERIALS, &array, &count, err))
        return false;
    // Default speed of sound: ten times the fastest free fall across the
    // domain (weakly compressible: density error ~ (v / c)^2 ~ 1%).
    double g = sqrt((double)scene->gravity[0] * scene->gravity[0] + (double)scene->gravity[1] * scene->gravity[1] +
                    (double)scene->gravity[2] * scene->gravity[2]);
    double height = 0.0;
    for (int a = 0; a < 3; a++)
        height = fmax(height, (double)scene->domain_max[a] - scene->domain_min[a]);
    float default_c = (float)fmax(10.0 * sqrt(2.0 * g * height), 1.0);
    if (!array)
        count = 1; // no "materials": one default material named "water"
    scene->material_count = count;
    const cJSON *entry = array ? array->child : NULL;
    for (uint32_t i = 0; i < count; i++, entry = entry ? entry->next : NULL) {
        cs_material *m = &scene->materials[i];
        *m = (cs_material){
            .rest_density = 1000.0f,
            .color = {0.15f, 0.4f, 0.85f},
            .stiffness = 0.08f,
            .near_stiffness = 0.1f,
            .viscosity_linear = 0.5f,
            .viscosity_quadratic = 1.0f,
            .surface_tension = 0.0004f,
            .speed_of_sound = default_c,
            .tait_gamma = 7.0f,
            .viscosity = 0.02f,
        };
        snprintf(m->name, sizeof m->name, i == 0 ? "water" : "material%u", i);
        bool mass_given = false;
        if (entry) {
            char path[64];
            join_index(path, sizeof path, "materials", i);
            double mass = 0.0;
            if (!cs_json_check_keys(scene, entry, path, keys, err) ||
                !get_string(scene, entry, path, "name", m->name, sizeof m->name, NULL, err) ||
                !get_number(scene, entry, path, "mass", 0.0, true, 1e9, false, &mass, &mass_given, err) ||
                !get_positive(scene, entry, path, "rest_density", 1e9, &m->rest_density, err) ||
                !get_color(scene, entry, path, "color", m->color, err) ||
                !get_range(scene, entry, path, "stiffness", 0.0, 1e9, &m->stiffness, err) ||
                !get_range(scene, entry, path, "near_stiffness", 0.0, 1e9, &m->near_stiffness, err) ||
                !get_range(scene, entry, path, "viscosity_linear", 0.0, 1e6, &m->viscosity_linear, err) ||
                !get_range(scene, entry, path, "viscosity_quadratic", 0.0, 1e6, &m->viscosity_quadratic, err) ||
                !get_range(scene, entry, path, "surface_tension", 0.0, 1e6, &m->surface_tension, err) ||
                !get_positive(scene, entry, path, "speed_of_sound", 1e6, &m->speed_of_sound, err) ||
                !get_range(scene, entry, path, "tait_gamma", 1.0, 10.0, &m->tait_gamma, err) ||
                !get_range(scene, entry, path, "viscosity", 0.0, 1e3, &m->viscosity, err))
                return false;
            if (m->name[0] == 0)
                return key_fail(scene, err, path, "name", "must not be empty");
            for (uint32_t j = 0; j < i; j++) {
                if (strcmp(scene->materials[j].name, m->name) == 0)
                    return key_fail(scene, err, path, "name", "\"%s\" is already the name of materials[%u]",
                                    m->name, j);
            }
            if (mass_given) {
                m->mass = (float)mass;
                if (!(m->mass > 0.0f))
                    return key_fail(scene, err, path, "mass", "%g is too small for a float", mass);
            }
        }
        if (!mass_given) {
            // One lattice cell of fluid at rest density.
            m->mass = (float)(m->rest_density * pow(scene->particle_spacing, scene->dim));
            if (!(m->mass > 0.0f) || !isfinite(m->mass))
                return key_fail(scene, err, "materials", NULL,
                                "material \"%s\": rest_density x particle_spacing^%d = %g is not a usable mass; "
                                "give \"mass\"", m->name, scene->dim, (double)m->mass);
        }
    }
    return true;
}

// The smallest spacing float positions resolve anywhere in the domain.
static float scene_resolution(const cs_scene *scene)
{
    float largest = 0.0f;
    for (int a = 0; a < 3; a++)
        largest = fmaxf(largest, fmaxf(fabsf(scene->domain_min[a]), fabsf(scene->domain_max[a])));
    return fmaxf((float)SPACING_MIN, largest * (float)FLOAT_RESOLUTION);
}

// "room": N on a block or an emitter: its coordinates are relative to room
// N's origin in the scene's level. Only the level's reader knows the rooms,
// so the range and the move into world coordinates wait for the world
// (host/world/world_rooms.c); here: a level is required.
static bool parse_room(const cs_scene *scene, const cJSON *entry, const char *path, bool *in_room, uint32_t *room,
                       cs_error *err)
{
    *in_room = cJSON_GetObjectItemCaseSensitive(entry, "room") != NULL;
    if (!*in_room)
        return true;
    uint32_t n = 0;
    if (!cs_json_uint(scene, entry, path, "room", 0, UINT16_MAX, &n, err))
        return false;
    if (!scene->level.enabled)
        return key_fail(scene, err, path, "room", "needs a \"level\" in the scene (room %u of what?); remove "
                        "\"room\" or add \"level\"", n);
    *room = n;
    return true;
}

static bool parse_blocks(cs_scene *scene, const cJSON *root, uint64_t *particles, cs_error *err)
{
    static const char *const keys[] = {"min", "max", "spacing", "velocity", "material", "jitter", "room", NULL};
    const cJSON *array;
    if (!get_array(scene, root, "blocks", 0, CS_MAX_BLOCKS, &array, &scene->block_count, err))
        return false;
    *particles = 0;
    const cJSON *entry = array ? array->child : NULL;
    for (uint32_t i = 0; i < scene->block_count; i++, entry = entry->next) {
        cs_fluid_block *b = &scene->blocks[i];
        *b = (cs_fluid_block){.spacing = scene->particle_spacing};
        char path[64];
        join_index(path, sizeof path, "blocks", i);
        if (!cs_json_check_keys(scene, entry, path, keys, err) || !require(scene, entry, path, "min", err) ||
            !require(scene, entry, path, "max", err) || !get_coord(scene, entry, path, "min", b->min, NULL, err) ||
            !get_coord(scene, entry, path, "max", b->max, NULL, err) ||
            !get_range(scene, entry, path, "spacing", -FLT_MAX, SPACING_MAX, &b->spacing, err) ||
            !get_vec(scene, entry, path, "velocity", 3, true, b->velocity, NULL, err) ||
            !material_ref(scene, entry, path, &b->material, err) ||
            !parse_room(scene, entry, path, &b->in_room, &b->room, err))
            return false;
        // "must be > 0" reads better than a range for the common mistake.
        if (!(b->spacing >= SPACING_MIN))
            return key_fail(scene, err, path, "spacing", "must be > 0 (got %g)%s", b->spacing,
                            b->spacing > 0 ? "; the smallest spacing accepted is 1e-05" : "");
        double jitter = 0.0;
        if (!get_number(scene, entry, path, "jitter", 0.0, false, 0.5, false, &jitter, NULL, err))
            return false;
        b->jitter = (float)jitter;
        for (int a = 0; a < scene->dim; a++) {
            if (!(b->max[a] > b->min[a]))
                return key_fail(scene, err, path, "max", "must exceed min on every axis (axis %d: min %g, max %g)",
                                a, b->min[a], b->max[a]);
        }
        // A small slack so a block flush with the domain wall is accepted.
        float slack = 1e-4f * b->spacing;
        bool placed = !b->in_room; // a room-relative box is checked once the world has moved it
        if (placed && (!inside_domain(scene, b->min, slack) || !inside_domain(scene, b->max, slack)))
            return key_fail(scene, err, path, NULL,
                            "box [%g %g %g]..[%g %g %g] reaches outside the domain [%g %g %g]..[%g %g %g]",
                            b->min[0], b->min[1], b->min[2], b->max[0], b->max[1], b->max[2], scene->domain_min[0],
                            scene->domain_min[1], scene->domain_min[2], scene->domain_max[0], scene->domain_max[1],
                            scene->domain_max[2]);
        if (b->spacing < scene_resolution(scene))
            return key_fail(scene, err, path, "spacing", "%g is below what float coordinates resolve in this domain "
                            "(at least %g)", b->spacing, scene_resolution(scene));
        for (int a = 0; a < scene->dim; a++) {
            if (((double)b->max[a] - b->min[a]) / b->spacing > AXIS_LIMIT)
                return key_fail(scene, err, path, NULL, "more than %g particles along axis %d; raise the spacing",
                                AXIS_LIMIT, a);
        }
        uint64_t n = block_count(scene, b, b->spacing);
        if (n == 0)
            return key_fail(scene, err, path, NULL, "holds no particle: the box is thinner than one spacing (%g)",
                            b->spacing);
        *particles += n;
        if (*particles > CS_SCENE_MAX_PARTICLES)
            return key_fail(scene, err, path, NULL,
                            "the blocks so far hold %llu particles, more than the limit of %u; raise the spacing",
                            (unsigned long long)*particles, CS_SCENE_MAX_PARTICLES);
    }
    return true;
}

static bool parse_emitters(cs_scene *scene, const cJSON *root, uint64_t *budgets, cs_error *err)
{
    static const char *const keys[] = {"position", "direction", "width",  "speed",    "speed_jitter",
                                       "start_time", "rate",    "budget", "material", "room", NULL};
    const cJSON *array;
    if (!get_array(scene, root, "emitters", 0, CS_MAX_EMITTERS, &array, &scene->emitter_count, err))
        return false;
    *budgets = 0;
    const cJSON *entry = array ? array->child : NULL;
    for (uint32_t i = 0; i < scene->emitter_count; i++, entry = entry->next) {
        cs_emitter *e = &scene->emitters[i];
        *e = (cs_emitter){.width = 4.0f * scene->particle_spacing, .speed = 1.0f};
        char path[64];
        join_index(path, sizeof path, "emitters", i);
        bool rate_given = false;
        double rate = 0.0;
        if (!cs_json_check_keys(scene, entry, path, keys, err) || !require(scene, entry, path, "position", err) ||
            !require(scene, entry, path, "direction", err) || !require(scene, entry, path, "budget", err) ||
            !get_coord(scene, entry, path, "position", e->position, NULL, err) ||
            !get_direction(scene, entry, path, "direction", e->direction, NULL, err) ||
            !get_range(scene, entry, path, "width", 0.0, COORD_LIMIT, &e->width, err) ||
            !get_positive(scene, entry, path, "speed", 1e4, &e->speed, err) ||
            !get_range(scene, entry, path, "speed_jitter", 0.0, 0.9, &e->speed_jitter, err) ||
            !get_range(scene, entry, path, "start_time", 0.0, 1e9, &e->start_time, err) ||
            !get_number(scene, entry, path, "rate", 0.0, true, 1e9, false, &rate, &rate_given, err) ||
            !cs_json_uint(scene, entry, path, "budget", 1, CS_SCENE_MAX_PARTICLES, &e->budget, err) ||
            !material_ref(scene, entry, path, &e->material, err) ||
            !parse_room(scene, entry, path, &e->in_room, &e->room, err))
            return false;
        if (!e->in_room && !inside_domain(scene, e->position, 0.0f))
            return key_fail(scene, err, path, "position", "(%g %g %g) lies outside the domain", e->position[0],
                            e->position[1], e->position[2]);
        if (rate_given) {
            e->rate = (float)rate;
        } else {
            // Enough particles to fill the jet's cross-section at lattice
            // density: rows of particles `spacing` apart, `speed` per second.
            double across = e->width / scene->particle_spacing;
            double per_row = scene->dim == 2 ? floor(across) + 1.0 : fmax(1.0, 0.25 * 3.14159265358979 * across * across);
            e->rate = (float)(per_row * e->speed / scene->particle_spacing);
        }
        *budgets += e->budget;
    }
    return true;
}

static bool parse_walls(cs_scene *scene, const cJSON *root, cs_error *err)
{
    static const char *const keys[] = {"normal", "offset", NULL};
    const cJSON *array;
    if (!get_array(scene, root, "walls", 0, CS_MAX_WALLS, &array, &scene->wall_count, err))
        return false;
    const cJSON *entry = array ? array->child : NULL;
    for (uint32_t i = 0; i < scene->wall_count; i++, entry = entry->next) {
        cs_wall *w = &scene->walls[i];
        *w = (cs_wall){0};
        char path[64];
        join_index(path, sizeof path, "walls", i);
        if (!cs_json_check_keys(scene, entry, path, keys, err) || !require(scene, entry, path, "normal", err) ||
            !get_vec(scene, entry, path, "normal", 3, true, w->normal, NULL, err) ||
            !get_range(scene, entry, path, "offset", -COORD_LIMIT, COORD_LIMIT, &w->offset, err))
            return false;
        // Normalise the normal and the offset together: the plane stays the
        // one the file wrote, dot(normal, x) = offset.
        double len = sqrt((double)w->normal[0] * w->normal[0] + (double)w->normal[1] * w->normal[1] +
                          (double)w->normal[2] * w->normal[2]);
        if (!(len > 1e-12) || !isfinite(len))
            return key_fail(scene, err, path, "normal", "must be a nonzero vector");
        for (int a = 0; a < 3; a++)
            w->normal[a] = (float)(w->normal[a] / len);
        w->offset = (float)(w->offset / len);
    }
    return true;
}

// ---- bodies ----------------------------------------------------------------

// A polytope's "planes": [[nx, ny, nz, d], ...] (2D: [nx, ny, d] or nz = 0),
// n a unit normal pointing out of the body, inside where dot(n, x) <= d.
static bool parse_body_planes(cs_scene *scene, const cJSON *entry, const char *path, cs_body *b, cs_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(entry, "planes");
    if (!cJSON_IsArray(item))
        return key_fail(scene, err, path, "planes", "must be an array of planes [nx, ny, nz, d] (got %s)",
                        json_type_name(item));
    int n = cJSON_GetArraySize(item);
    int need = scene->dim + 1;
    if (n < need)
        return key_fail(scene, err, path, "planes", "holds %d planes; a bounded %dD polytope needs at least %d", n,
                        scene->dim, need);
    if (n > CS_MAX_BODY_PLANES)
        return key_fail(scene, err, path, "planes", "holds %d planes; at most %d are supported", n,
                        CS_MAX_BODY_PLANES);
    char where[128];
    snprintf(where, sizeof where, "%s.planes", path);
    b->plane_count = (uint32_t)n;
    uint32_t i = 0;
    for (const cJSON *e = item->child; e; e = e->next, i++) {
        char elem[160];
        join_index(elem, sizeof elem, where, i);
        int count = cJSON_IsArray(e) ? cJSON_GetArraySize(e) : -1;
        bool flat = scene->dim == 2 && count == 3;
        if (count != 4 && !flat)
            return key_fail(scene, err, elem, NULL, "must be [nx, ny, nz, d]%s (got %s)",
                            scene->dim == 2 ? " or [nx, ny, d]" : "", count < 0 ? json_type_name(e) : "another length");
        double v[4] = {0, 0, 0, 0};
        int c = 0;
        for (const cJSON *x = e->child; x; x = x->next, c++) {
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > COORD_LIMIT)
                return key_fail(scene, err, elem, NULL, "element %d must be a finite number within +-%g", c,
                                COORD_LIMIT);
            v[flat && c == 2 ? 3 : c] = x->valuedouble;
        }
        if (scene->dim == 2 && v[2] != 0.0)
            return key_fail(scene, err, elem, NULL, "nz must be 0 in a 2D scene (got %g)", v[2]);
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(fabs(len - 1.0) <= 1e-3))
            return key_fail(scene, err, elem, NULL, "the normal must have unit length (|n| = %g)", len);
        for (int k = 0; k < 4; k++)
            b->planes[i][k] = (float)(v[k] / len);
        if (!(b->planes[i][3] > 0.0f))
            return key_fail(scene, err, elem, NULL,
                            "d must be > 0: the body frame's origin must lie strictly inside every plane (got %g)",
                            v[3]);
    }
    double planes[CS_MAX_BODY_PLANES][4], verts[CS_BODY_MAX_VERTICES][3];
    uint32_t np = cs_body_planes(b, scene->dim, planes);
    bool bounded;
    uint32_t nv = cs_convex_vertices((const double(*)[4])planes, np, scene->dim, verts, &bounded);
    if (!bounded || nv < (uint32_t)scene->dim + 1)
        return key_fail(scene, err, path, "planes", "do not bound a finite region (the normals must point every way)");
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
    join_key(where, sizeof where, path, "orientation");
    static const char *const keys[] = {"axis", "degrees", "quaternion", NULL};
    if (!cs_json_check_keys(scene, o, where, keys, err))
        return false;
    bool has_q = cJSON_GetObjectItemCaseSensitive(o, "quaternion") != NULL;
    bool has_axis = cJSON_GetObjectItemCaseSensitive(o, "axis") || cJSON_GetObjectItemCaseSensitive(o, "degrees");
    if (has_q == has_axis)
        return key_fail(scene, err, where, NULL, "give either \"quaternion\" or \"axis\" and \"degrees\"");
    double v[4];
    if (has_q) {
        float f[4] = {0.0f, 0.0f, 0.0f, 1.0f};
        if (!get_vec(scene, o, where, "quaternion", 4, false, f, NULL, err))
            return false;
        for (int k = 0; k < 4; k++)
            v[k] = f[k];
    } else {
        float axis[3] = {0.0f, 0.0f, 1.0f}, deg = 0.0f;
        if (!get_vec(scene, o, where, "axis", 3, false, axis, NULL, err) ||
            !get_range(scene, o, where, "degrees", -1e6, 1e6, &deg, err))
            return false;
        double len = sqrt((double)axis[0] * axis[0] + (double)axis[1] * axis[1] + (double)axis[2] * axis[2]);
        if (!(len > 1e-12))
            return key_fail(scene, err, where, "axis", "must be a nonzero vector");
        double half = 0.5 * deg * 3.14159265358979323846 / 180.0;
        for (int k = 0; k < 3; k++)
            v[k] = axis[k] / len * sin(half);
        v[3] = cos(half);
    }
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
    if (!(len > 1e-12))
        return key_fail(scene, err, where, "quaternion", "must be nonzero");
    if (scene->dim == 2 && (fabs(v[0]) > 1e-6 * len || fabs(v[1]) > 1e-6 * len))
        return key_fail(scene, err, where, NULL, "a 2D body turns about z only");
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
        return key_fail(scene, err, owner, "path", "must be an object {\"keys\": [%s, ...], \"loop\": bool}", shape);
    *loop = false;
    if (!cs_json_check_keys(scene, o, where, names, err) || !require(scene, o, where, "keys", err) ||
        !cs_json_bool(scene, o, where, "loop", loop, err))
        return false;
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, "keys");
    int n = cJSON_IsArray(item) ? cJSON_GetArraySize(item) : -1;
    if (n < 2 || n > (int)max_keys)
        return key_fail(scene, err, where, "keys", "must be an array of 2 to %u keys %s", max_keys, shape);
    snprintf(where, sizeof where, "%s.path.keys", owner);
    uint32_t i = 0;
    for (const cJSON *e = item->child; e; e = e->next, i++) {
        char elem[200];
        join_index(elem, sizeof elem, where, i);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 1 + dim)
            return key_fail(scene, err, elem, NULL, "must be %s", shape);
        float *k = keys[i];
        k[0] = k[1] = k[2] = k[3] = 0.0f;
        int c = 0;
        for (const cJSON *x = e->child; x; x = x->next, c++) {
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > coord_limit)
                return key_fail(scene, err, elem, NULL, "element %d must be a finite number within +-%g", c, coord_limit);
            k[c] = (float)x->valuedouble;
        }
        if (i == 0 && k[0] != 0.0f)
            return key_fail(scene, err, elem, NULL, "the first key's time must be 0 (got %g)", k[0]);
        if (i > 0 && !(k[0] > keys[i - 1][0]))
            return key_fail(scene, err, elem, NULL, "times must increase (%g after %g)", k[0], keys[i - 1][0]);
    }
    *count = (uint32_t)n;
    snprintf(where, sizeof where, "%s.path", owner);
    if (*loop && memcmp(&keys[0][1], &keys[n - 1][1], 3 * sizeof(float)) != 0)
        return key_fail(scene, err, where, NULL, "with loop, the last key's position must equal the first's");
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
        join_index(elem, sizeof elem, where, i);
        if (!inside_domain(scene, &k[1], 0.0f))
            return key_fail(scene, err, elem, NULL, "(%g, %g, %g) is outside the domain", k[1], k[2], k[3]);
    }
    for (int a = 0; a < 3; a++)
        b->position[a] = b->path[0][1 + a];
    return true;
}

static bool parse_bodies(cs_scene *scene, const cJSON *root, cs_error *err)
{
    static const char *const keys[] = {"shape", "size", "radius", "planes", "density", "mass", "position",
                                       "orientation", "velocity", "angular_velocity", "static", "restitution",
                                       "friction", "color", "path", NULL};
    const cJSON *array;
    if (!get_array(scene, root, "bodies", 0, CS_MAX_BODIES, &array, &scene->body_count, err))
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
        join_index(path, sizeof path, "bodies", i);
        char shape[16] = "";
        if (!cs_json_check_keys(scene, entry, path, keys, err) || !require(scene, entry, path, "shape", err) ||
            !get_string(scene, entry, path, "shape", shape, sizeof shape, NULL, err))
            return false;
        // Only the keys of its shape.
        static const char *const shape_keys[] = {"size", "radius", "planes"};
        int own = strcmp(shape, "box") == 0 ? 0 : strcmp(shape, "sphere") == 0 ? 1 : strcmp(shape, "polytope") == 0 ? 2 : -1;
        if (own < 0)
            return key_fail(scene, err, path, "shape", "must be \"box\", \"sphere\" or \"polytope\" (got \"%s\")",
                            shape);
        for (int k = 0; k < 3; k++) {
            if (k != own && cJSON_GetObjectItemCaseSensitive(entry, shape_keys[k]))
                return key_fail(scene, err, path, shape_keys[k], "does not belong to a %s", shape);
        }
        if (!require(scene, entry, path, shape_keys[own], err))
            return false;
        b->shape = own == 0 ? CS_BODY_BOX : own == 1 ? CS_BODY_SPHERE : CS_BODY_POLYTOPE;
        if (own == 0) {
            if (!get_coord(scene, entry, path, "size", b->size, NULL, err))
                return false;
            for (int a = 0; a < scene->dim; a++) {
                if (!(b->size[a] > 0.0f))
                    return key_fail(scene, err, path, "size", "must be positive on every axis (axis %d: %g)", a,
                                    b->size[a]);
            }
        } else if (own == 1) {
            if (!get_positive(scene, entry, path, "radius", COORD_LIMIT, &b->radius, err))
                return false;
        } else if (!parse_body_planes(scene, entry, path, b, err)) {
            return false;
        }
        bool has_density = cJSON_GetObjectItemCaseSensitive(entry, "density") != NULL;
        bool has_mass = cJSON_GetObjectItemCaseSensitive(entry, "mass") != NULL;
        b->is_static = false;
        if (!cs_json_bool(scene, entry, path, "static", &b->is_static, err))
            return false;
        if (has_density && has_mass)
            return key_fail(scene, err, path, "mass", "give density or mass, not both");
        bool has_path = cJSON_GetObjectItemCaseSensitive(entry, "path") != NULL;
        if (has_path && (b->is_static || cJSON_GetObjectItemCaseSensitive(entry, "position") ||
                         cJSON_GetObjectItemCaseSensitive(entry, "velocity") ||
                         cJSON_GetObjectItemCaseSensitive(entry, "angular_velocity")))
            return key_fail(scene, err, path, "path", "a body on a path is neither static nor given a position or a velocity "
                            "(its first key is its position)");
        if (has_path && !parse_body_path(scene, entry, path, b, err))
            return false;
        if (!has_density && !has_mass && !b->is_static && !has_path)
            return key_fail(scene, err, path, "density", "missing: a moving body needs a density or a mass");
        if (!get_positive(scene, entry, path, "density", 1e7, &b->density, err) ||
            !get_positive(scene, entry, path, "mass", 1e9, &b->mass, err) ||
            (!has_path && !require(scene, entry, path, "position", err)) ||
            !get_coord(scene, entry, path, "position", b->position, NULL, err) ||
            !parse_orientation(scene, entry, path, b->orientation, err) ||
            !get_coord(scene, entry, path, "velocity", b->velocity, NULL, err) ||
            !get_vec(scene, entry, path, "angular_velocity", 3, false, b->angular_velocity, NULL, err) ||
            !get_range(scene, entry, path, "restitution", 0.0, 1.0, &b->restitution, err) ||
            !get_range(scene, entry, path, "friction", 0.0, 1.0, &b->friction, err) ||
            !get_color(scene, entry, path, "color", b->color, err))
            return false;
        if (!inside_domain(scene, b->position, 0.0f))
            return key_fail(scene, err, path, "position", "(%g, %g, %g) is outside the domain", b->position[0],
                            b->position[1], b->position[2]);
        for (int a = 0; a < 3; a++) {
            if (fabsf(b->angular_velocity[a]) > 1e4f)
                return key_fail(scene, err, path, "angular_velocity", "component %d is %g; at most 1e4 rad/s", a,
                                b->angular_velocity[a]);
        }
        if (scene->dim == 2 && (b->angular_velocity[0] != 0.0f || b->angular_velocity[1] != 0.0f))
            return key_fail(scene, err, path, "angular_velocity", "a 2D body turns about z only: [0, 0, wz]");
        if (b->is_static && (b->velocity[0] != 0.0f || b->velocity[1] != 0.0f || b->velocity[2] != 0.0f ||
                             b->angular_velocity[0] != 0.0f || b->angular_velocity[1] != 0.0f ||
                             b->angular_velocity[2] != 0.0f))
            return key_fail(scene, err, path, "static", "a static body has no velocity");
    }
    return true;
}

static bool parse_camera(cs_scene *scene, const cJSON *root, cs_error *err)
{
    static const char *const keys[] = {"position", "target", "up", "fov_degrees", "ortho_height", NULL};
    cs_camera *c = &scene->camera;
    float centre[3], diagonal = 0.0f;
    for (int a = 0; a < 3; a++) {
        centre[a] = 0.5f * (scene->domain_min[a] + scene->domain_max[a]);
        float d = scene->domain_max[a] - scene->domain_min[a];
        diagonal += d * d;
    }
    diagonal = sqrtf(diagonal);
    *c = (cs_camera){
        .position = {centre[0], centre[1] + 0.35f * diagonal, centre[2] + 1.2f * diagonal},
        .target = {centre[0], centre[1], centre[2]},
        .up = {0.0f, 1.0f, 0.0f},
        .fov_degrees = 45.0f,
    };
    if (scene->dim == 2)
        c->position[1] = centre[1];
    const cJSON *object = cJSON_GetObjectItemCaseSensitive(root, "camera");
    if (object &&
        (!cs_json_check_keys(scene, object, "camera", keys, err) ||
         !get_coord(scene, object, "camera", "position", c->position, NULL, err) ||
         !get_coord(scene, object, "camera", "target", c->target, NULL, err) ||
         !get_direction(scene, object, "camera", "up", c->up, NULL, err) ||
         !get_range(scene, object, "camera", "fov_degrees", 1.0, 179.0, &c->fov_degrees, err) ||
         !get_range(scene, object, "camera", "ortho_height", 0.0, COORD_LIMIT, &c->ortho_height, err)))
        return false;
    if (scene->dim == 2) {
        // 2D looks down -z at the xy plane: position.xy is the view centre.
        c->position[2] = 1.0f;
        c->target[0] = c->position[0], c->target[1] = c->position[1], c->target[2] = 0.0f;
        c->up[0] = 0.0f, c->up[1] = 1.0f, c->up[2] = 0.0f;
        return true;
    }
    double view[3], cross[3];
    for (int a = 0; a < 3; a++)
        view[a] = (double)c->target[a] - c->position[a];
    double len = sqrt(view[0] * view[0] + view[1] * view[1] + view[2] * view[2]);
    if (!(len > 1e-9))
        return key_fail(scene, err, "camera", "target", "must differ from camera.position");
    cross[0] = view[1] * c->up[2] - view[2] * c->up[1];
    cross[1] = view[2] * c->up[0] - view[0] * c->up[2];
    cross[2] = view[0] * c->up[1] - view[1] * c->up[0];
    if (sqrt(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]) < 1e-6 * len)
        return key_fail(scene, err, "camera", "up", "must not be parallel to the view direction");
    return true;
}

static bool parse_render(cs_scene *scene, const cJSON *root, cs_error *err)
{
    static const char *const keys[] = {"width",      "height", "color_mode", "particle_radius", "background",
                                       "fog_density", "draw", NULL};
    cs_render_options *r = &scene->render;
    *r = (cs_render_options){
        .width = 1280,
        .height = 720,
        .color_mode = CS_COLOR_MATERIAL,
        .background = {0.02f, 0.02f, 0.03f},
    };
    const cJSON *object = cJSON_GetObjectItemCaseSensitive(root, "render");
    if (!object)
        return true;
    char mode[16] = "material", draw[16] = "particles";
    bool mode_given = false, draw_given = false;
    if (!cs_json_check_keys(scene, object, "render", keys, err) ||
        !get_string(scene, object, "render", "draw", draw, sizeof draw, &draw_given, err) ||
        !cs_json_uint(scene, object, "render", "width", 16, 16384, &r->width, err) ||
        !cs_json_uint(scene, object, "render", "height", 16, 16384, &r->height, err) ||
        !get_string(scene, object, "render", "color_mode", mode, sizeof mode, &mode_given, err) ||
        !get_range(scene, object, "render", "particle_radius", 0.0, COORD_LIMIT, &r->particle_radius, err) ||
        !get_color(scene, object, "render", "background", r->background, err) ||
        !get_range(scene, object, "render", "fog_density", 0.0, 1e6, &r->fog_density, err))
        return false;
    // Which fluids have a surface is known after the fluids: finish_draw()
    // checks "surface" / "both" against them.
    static const char *const draws[] = {"particles", "surface", "both"};
    bool draw_known = false;
    for (uint32_t d = 0; d < CS_ARRAY_COUNT(draws); d++) {
        if (strcmp(draw, draws[d]) == 0) {
            r->draw = (cs_draw_mode)d;
            draw_known = true;
        }
    }
    if (!draw_known)
        return key_fail(scene, err, "render", "draw", "must be \"particles\", \"surface\" or \"both\" (got \"%s\")",
                        draw);
    static const char *const modes[] = {"material", "speed", "density"};
    for (uint32_t m = 0; m < CS_ARRAY_COUNT(modes); m++) {
        if (strcmp(mode, modes[m]) == 0) {
            r->color_mode = (cs_color_mode)m;
            return true;
        }
    }
    return key_fail(scene, err, "render", "color_mode", "must be \"material\", \"speed\" or \"density\" (got \"%s\")",
                    mode);
}

// "surface": {...}. At the top level (in_fluid false) it sets every fluid's
// defaults; in a fluid's entry it overrides them key by key. A reint fluid
// meshes its own cells (one node per cell), so its own block may not give
// a resolution or a kernel radius (the top level's are for particle fluids).
// Lower bounds instead of "> 0", so a value never rounds to 0 in a float
// (0 reads as "not given").
#define SURFACE_CELLS_PER_SPACING_MIN 0.01
#define SURFACE_CELLS_PER_SPACING_MAX 16.0
#define SURFACE_ISO_MIN 1e-6
#define SURFACE_RADIUS_MIN 0.5
#define SURFACE_RADIUS_MAX 8.0
#define SURFACE_ISO_MAX 1000.0

static bool parse_surface(cs_scene *scene, const cJSON *root, bool in_fluid, cs_error *err)
{
    static const char *const keys[] = {"enabled", "cells_per_spacing", "cell_size", "iso", "radius", NULL};
    cs_surface_options *o = &scene->surface;
    const cJSON *object = cJSON_GetObjectItemCaseSensitive(root, "surface");
    if (!object)
        return true;
    if (!cs_json_check_keys(scene, object, "surface", keys, err))
        return false;
    bool has_cps = cJSON_GetObjectItemCaseSensitive(object, "cells_per_spacing") != NULL;
    bool has_cell = cJSON_GetObjectItemCaseSensitive(object, "cell_size") != NULL;
    if (has_cps && has_cell)
        return key_fail(scene, err, "surface", "cell_size", "give cells_per_spacing or cell_size, not both");
    if (in_fluid && strcmp(scene->solver, "reint") == 0) {
        static const char *const particle_keys[] = {"cells_per_spacing", "cell_size", "radius"};
        for (uint32_t k = 0; k < CS_ARRAY_COUNT(particle_keys); k++) {
            if (cJSON_GetObjectItemCaseSensitive(object, particle_keys[k]))
                return key_fail(scene, err, "surface", particle_keys[k],
                                "a reint fluid meshes its own cells (one field node per cell); remove it");
        }
    }
    double cps = 0.0, iso = o->iso, radius = o->radius;
    float cell = 0.0f;
    bool enabled_given = cJSON_GetObjectItemCaseSensitive(object, "enabled") != NULL;
    if (!cs_json_bool(scene, object, "surface", "enabled", &o->enabled, err) ||
        !get_number(scene, object, "surface", "cells_per_spacing", SURFACE_CELLS_PER_SPACING_MIN, false,
                    SURFACE_CELLS_PER_SPACING_MAX, false, &cps, NULL, err) ||
        !get_positive(scene, object, "surface", "cell_size", COORD_LIMIT, &cell, err) ||
        !get_number(scene, object, "surface", "iso", SURFACE_ISO_MIN, false, SURFACE_ISO_MAX, false, &iso, NULL, err) ||
        !get_number(scene, object, "surface", "radius", SURFACE_RADIUS_MIN, false, SURFACE_RADIUS_MAX, false, &radius,
                    NULL, err))
        return false;
    o->enabled_given |= enabled_given;
    o->iso = (float)iso;
    o->radius = (float)radius;
    if (has_cps || has_cell) {
        o->cells_per_spacing = (float)cps;
        o->cell_size = cell;
    }
    if (in_fluid)
        o->own_block = object;
    else
        o->top_block = object;
    if (o->enabled && scene->dim != 3)
        return key_fail(scene, err, "surface", "enabled", "a surface is for 3D scenes (this one has dim %d)",
                        scene->dim);
    return true;
}

// After a fluid's keys: the solver's default for "enabled" (a 3D reint
// fluid shows its surface: its points are only a coarse view of the cells)
// and a field node spacing the fluid's domain holds.
static bool finish_surface(cs_scene *scene, cs_error *err)
{
    cs_surface_options *o = &scene->surface;
    if (!o->enabled_given)
        o->enabled = scene->dim == 3 && strcmp(scene->solver, "reint") == 0;
    if (!o->enabled || strcmp(scene->solver, "reint") == 0)
        return true;
    float extent = INFINITY;
    for (int a = 0; a < scene->dim; a++)
        extent = fminf(extent, scene->domain_max[a] - scene->domain_min[a]);
    if (o->cell_size > 0.0f && !(o->cell_size < extent))
        return cs_scene_surface_fail(scene, err, "cell_size",
                                     "%g does not fit the domain: it must be below its smallest side (%g)",
                                     o->cell_size, extent);
    if (o->cells_per_spacing > 0.0f && !(scene->particle_spacing / o->cells_per_spacing < extent))
        return cs_scene_surface_fail(scene, err, "cells_per_spacing",
                                     "%g gives nodes %g apart, wider than the domain's smallest side (%g)",
                                     o->cells_per_spacing, scene->particle_spacing / o->cells_per_spacing, extent);
    return true;
}

// render.draw once the fluids are known: default surface when a fluid has
// one; "surface" or "both" need one. Every fluid's copy gets the result.
static bool finish_draw(cs_scene *scene, const cJSON *root, cs_error *err)
{
    bool any = false;
    for (uint32_t i = 0; i < scene->fluid_count; i++)
        any |= scene->fluids[i].surface.enabled;
    const cJSON *render = cJSON_GetObjectItemCaseSensitive(root, "render");
    bool given = render && cJSON_GetObjectItemCaseSensitive(render, "draw");
    if (!given)
        scene->render.draw = any ? CS_DRAW_SURFACE : CS_DRAW_PARTICLES;
    else if (scene->render.draw != CS_DRAW_PARTICLES && !any)
        return key_fail(scene, err, "render", "draw",
                        "\"%s\" needs a fluid with a surface (\"surface\": {\"enabled\": true}, 3D scenes only)",
                        scene->render.draw == CS_DRAW_SURFACE ? "surface" : "both");
    for (uint32_t i = 0; i < scene->fluid_count; i++)
        scene->fluids[i].render.draw = scene->render.draw;
    return true;
}

// The fluid's solver and its block (named after it). Which solvers exist is
// the pipelines' business (the world checks the name against their registry);
// here the name only has to be a plausible key.
static bool parse_solver(cs_scene *scene, const cJSON *root, cs_error *err)
{
    if (!require(scene, root, "", "solver", err) ||
        !get_string(scene, root, "", "solver", scene->solver, sizeof scene->solver, NULL, err))
        return false;
    bool plain = scene->solver[0] != 0;
    for (const char *c = scene->solver; *c; c++)
        plain &= (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
    if (!plain)
        return key_fail(scene, err, "", "solver", "must be a solver's name, e.g. \"pbf\" (got \"%s\"; "
                        "`cistern help` lists the solvers)", scene->solver);
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(root, scene->solver);
    if (!own)
        return key_fail(scene, err, "", scene->solver,
                        "missing: the solver block is required ({} takes the solver's defaults)");
    if (!cJSON_IsObject(own))
        return key_fail(scene, err, "", scene->solver, "must be an object (got %s)", json_type_name(own));
    scene->solver_params = own;
    return true;
}

static bool parse_domain(cs_scene *scene, const cJSON *root, cs_error *err)
{
    static const char *const keys[] = {"min", "max", NULL};
    if (!require(scene, root, "", "domain", err))
        return false;
    const cJSON *domain = cJSON_GetObjectItemCaseSensitive(root, "domain");
    if (!cs_json_check_keys(scene, domain, "domain", keys, err) || !require(scene, domain, "domain", "min", err) ||
        !require(scene, domain, "domain", "max", err) ||
        !get_coord(scene, domain, "domain", "min", scene->domain_min, NULL, err) ||
        !get_coord(scene, domain, "domain", "max", scene->domain_max, NULL, err))
        return false;
    for (int a = 0; a < scene->dim; a++) {
        if (!(scene->domain_max[a] > scene->domain_min[a]))
            return key_fail(scene, err, "domain", "max", "must exceed domain.min on every axis (axis %d: %g <= %g)",
                            a, scene->domain_max[a], scene->domain_min[a]);
    }
    return true;
}

// Keys a file's top level shares with all its parts.
#define WORLD_KEYS "name", "description", "dim", "domain", "gravity", "dt", "substeps", "seed", \
                   "boundary_restitution", "walls", "camera", "render", "surface"
// Keys of one fluid (plus its solver block, named after the solver).
#define FLUID_ONLY_KEYS "solver", "smoothing_radius", "particle_spacing", "max_particles", "materials", "blocks", \
                        "emitters"
// A fluid may also set its own seed, boundary restitution and surface.
#define FLUID_KEYS FLUID_ONLY_KEYS, "seed", "boundary_restitution", "surface"

// The keys every part shares: dim, domain, gravity, time step, walls, view.
static bool parse_world(cs_scene *scene, const cJSON *root, cs_error *err)
{
    uint32_t dim = 3;
    if (!cs_json_uint(scene, root, "", "dim", 0, UINT32_MAX, &dim, err))
        return false;
    if (dim != 2 && dim != 3)
        return key_fail(scene, err, "", "dim", "must be 2 or 3 (got %u)", dim);
    scene->dim = (int)dim;

    if (!get_string(scene, root, "", "name", scene->name, sizeof scene->name, NULL, err) ||
        !get_string(scene, root, "", "description", scene->description, sizeof scene->description, NULL, err) ||
        !parse_domain(scene, root, err))
        return false;

    scene->gravity[1] = -9.81f;
    scene->substeps = 1;
    float dt = 0.0f;
    if (!get_vec(scene, root, "", "gravity", 3, true, scene->gravity, NULL, err) ||
        !get_positive(scene, root, "", "dt", 1.0, &dt, err) ||
        !cs_json_uint(scene, root, "", "substeps", 1, 1000, &scene->substeps, err) ||
        !cs_json_uint(scene, root, "", "seed", 0, UINT32_MAX, &scene->seed, err))
        return false;
    for (int a = 0; a < 3; a++) {
        if (fabsf(scene->gravity[a]) > 1e4f)
            return key_fail(scene, err, "", "gravity", "component %d is %g; at most 1e4 in magnitude", a,
                            scene->gravity[a]);
    }
    // One frame is 1/60 s of simulated time unless dt says otherwise.
    scene->dt = dt > 0.0f ? dt : 1.0f / (60.0f * (float)scene->substeps);
    scene->surface = (cs_surface_options){.iso = 0.5f, .radius = 2.5f};
    return get_range(scene, root, "", "boundary_restitution", 0.0, 1.0, &scene->boundary_restitution, err) &&
           parse_walls(scene, root, err) && parse_camera(scene, root, err) && parse_render(scene, root, err) &&
           parse_surface(scene, root, false, err);
}

// One fluid's keys, from `object` (the top level of a first-format file, or
// an entry of "fluids"), into a scene that already holds the world's keys.
static bool parse_fluid(cs_scene *scene, const cJSON *object, cs_error *err)
{
    if (!parse_solver(scene, object, err))
        return false;
    bool have_spacing, have_h;
    double spacing = 0.0, h = 0.0;
    if (!get_number(scene, object, "", "particle_spacing", 0.0, true, SPACING_MAX, false, &spacing, &have_spacing,
                    err) ||
        !get_number(scene, object, "", "smoothing_radius", 0.0, true, SPACING_MAX, false, &h, &have_h, err) ||
        !cs_json_uint(scene, object, "", "seed", 0, UINT32_MAX, &scene->seed, err) ||
        !get_range(scene, object, "", "boundary_restitution", 0.0, 1.0, &scene->boundary_restitution, err))
        return false;
    if (!have_spacing && !have_h)
        return key_fail(scene, err, "", "particle_spacing", "missing (give particle_spacing, smoothing_radius or both)");
    scene->particle_spacing = (float)(have_spacing ? spacing : h / 2.0);
    scene->smoothing_radius = (float)(have_h ? h : spacing * 2.0);
    if (!(scene->particle_spacing >= scene_resolution(scene)))
        return key_fail(scene, err, "", "particle_spacing",
                        "%g is below what float coordinates resolve in this domain (at least %g)",
                        scene->particle_spacing, scene_resolution(scene));
    if (!(scene->smoothing_radius >= scene->particle_spacing))
        return key_fail(scene, err, "", "smoothing_radius",
                        "must be >= particle_spacing (%g), or particles have no neighbours (got %g)",
                        scene->particle_spacing, scene->smoothing_radius);

    uint64_t block_particles, budgets;
    if (!parse_materials(scene, object, err) || !parse_blocks(scene, object, &block_particles, err) ||
        !parse_emitters(scene, object, &budgets, err))
        return false;
    uint64_t needed = block_particles + budgets;
    if (needed > CS_SCENE_MAX_PARTICLES)
        return key_fail(scene, err, "", "emitters",
                        "blocks (%llu particles) + emitter budgets (%llu) exceed the limit of %u particles",
                        (unsigned long long)block_particles, (unsigned long long)budgets, CS_SCENE_MAX_PARTICLES);
    // A particle solver with no particles has nothing to do (and would make
    // empty buffers); the grid solver ("reint") starts from its own grid.
    if (needed == 0 && strcmp(scene->solver, "reint") != 0)
        return key_fail(scene, err, "", "blocks", "the scene has no particles: add a block or an emitter");
    scene->max_particles = (uint32_t)needed;
    if (!cs_json_uint(scene, object, "", "max_particles", 1, CS_SCENE_MAX_PARTICLES, &scene->max_particles, err))
        return false;
    if (scene->max_particles < block_particles)
        return key_fail(scene, err, "", "max_particles", "is %u but the blocks alone hold %llu particles",
                        scene->max_particles, (unsigned long long)block_particles);
    return parse_surface(scene, object, true, err) && finish_surface(scene, err);
}

// The first format: one fluid's keys and the world's at the top level.
static bool parse_first_format(cs_scene *scene, const cJSON *root, cs_error *err)
{
    static const char *const keys[] = {WORLD_KEYS, FLUID_ONLY_KEYS, NULL, NULL};
    const char *allowed[CS_ARRAY_COUNT(keys)];
    memcpy(allowed, keys, sizeof keys);
    // The solver block is allowed once the solver is known; a missing
    // solver is reported before any key is.
    if (!require(scene, root, "", "solver", err) ||
        !get_string(scene, root, "", "solver", scene->solver, sizeof scene->solver, NULL, err))
        return false;
    allowed[CS_ARRAY_COUNT(keys) - 2] = scene->solver;
    if (!cs_json_check_keys(scene, root, "", allowed, err) || !parse_world(scene, root, err) ||
        !parse_fluid(scene, root, err))
        return false;
    scene->first_format = true;
    scene->fluid_count = 1;
    scene->fluids = malloc(sizeof *scene->fluids);
    if (!scene->fluids)
        return cs_fail(err, "%s: out of memory", scene->path);
    scene->fluids[0] = *scene;
    scene->fluids[0].json = NULL;
    scene->fluids[0].body_storage = NULL;
    scene->fluids[0].fluids = NULL;
    scene->fluids[0].fluid_count = 0;
    snprintf(scene->fluids[0].fluid_name, sizeof scene->fluids[0].fluid_name, "%s", scene->solver);
    return finish_draw(scene, root, err);
}

// "level": {"file", "units_per_metre"}: the file is resolved against the
// scene file's directory; its content is read by the world.
static bool parse_level(cs_scene *scene, const cJSON *root, cs_error *err)
{
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(root, "level");
    if (!level)
        return true;
    if (!cJSON_IsObject(level))
        return key_fail(scene, err, "", "level", "must be an object {\"file\": \"...phd\"} (got %s)",
                        json_type_name(level));
    static const char *const keys[] = {"file", "units_per_metre", "light", NULL};
    char file[512] = "", light[16] = "";
    double upm = 512.0;
    bool has_radiosity = cJSON_GetObjectItemCaseSensitive(root, "radiosity") != NULL;
    if (!cs_json_check_keys(scene, level, "level", keys, err) || !require(scene, level, "level", "file", err) ||
        !get_string(scene, level, "level", "file", file, sizeof file, NULL, err) ||
        !get_number(scene, level, "level", "units_per_metre", 0.0, true, 1e6, false, &upm, NULL, err) ||
        !get_string(scene, level, "level", "light", light, sizeof light, NULL, err))
        return false;
    if (light[0] && strcmp(light, "baked") != 0 && (strcmp(light, "radiosity") != 0 || !has_radiosity))
        return key_fail(scene, err, "level", "light", "must be \"baked\" or, with a \"radiosity\" block, "
                        "\"radiosity\" (got \"%s\")", light);
    scene->level.radiosity_shown = has_radiosity && strcmp(light, "baked") != 0;
    if (!file[0])
        return key_fail(scene, err, "level", "file", "is empty; give a .PHD path relative to the scene file");
    const char *slash = strrchr(scene->path, '/');
    if (file[0] == '/' || !slash)
        snprintf(scene->level.file, sizeof scene->level.file, "%s", file);
    else
        snprintf(scene->level.file, sizeof scene->level.file, "%.*s/%s", (int)(slash - scene->path), scene->path, file);
    scene->level.units_per_metre = upm;
    scene->level.enabled = true;
    return true;
}

// "geometry": [...] (geometry.h) with its "radiosity" and "lights"
// (scene_lights.h), read after the fluids were copied so that
// only the file's cs_scene holds it.
static bool parse_geometry(cs_scene *scene, const cJSON *root, cs_error *err)
{
    const cJSON *array = cJSON_GetObjectItemCaseSensitive(root, "geometry");
    if (!array && scene->level.enabled && cJSON_GetObjectItemCaseSensitive(root, "radiosity")) {
        // A level lit by radiosity: no triangles of the scene's own, the
        // level's come at world creation (host/world/level_light.h).
        scene->geometry = calloc(1, sizeof *scene->geometry);
        if (!scene->geometry)
            return cs_fail(err, "%s: out of memory", scene->path);
        return cs_scene_lighting_parse(scene, root, true, &scene->geometry->lighting, err);
    }
    if (!array) {
        cs_scene_lighting none; // only to refuse "lights" and "radiosity" without geometry
        return cs_scene_lighting_parse(scene, root, false, &none, err);
    }
    scene->geometry = calloc(1, sizeof *scene->geometry);
    if (!scene->geometry)
        return cs_fail(err, "%s: out of memory", scene->path);
    return cs_geometry_parse(scene, array, scene->geometry, err) &&
           cs_scene_lighting_parse(scene, root, true, &scene->geometry->lighting, err);
}

// The world format: shared keys, then "fluids": [{...}, ...].
static bool parse_world_format(cs_scene *scene, const cJSON *root, cs_error *err)
{
    static const char *const keys[] = {WORLD_KEYS, "fluids", "level", "bodies", "lights", "geometry", "radiosity",
                                       NULL};
    if (!cs_json_check_keys(scene, root, "", keys, err))
        return false;
    if (!parse_world(scene, root, err) || !parse_bodies(scene, root, err) || !parse_level(scene, root, err))
        return false;
    const cJSON *array;
    if (!get_array(scene, root, "fluids", 1, CS_MAX_FLUIDS, &array, &scene->fluid_count, err))
        return false;
    scene->fluids = calloc(scene->fluid_count, sizeof *scene->fluids);
    if (!scene->fluids)
        return cs_fail(err, "%s: out of memory", scene->path);
    const cJSON *entry = array->child;
    for (uint32_t i = 0; i < scene->fluid_count; i++, entry = entry->next) {
        cs_scene *f = &scene->fluids[i];
        *f = *scene; // the shared keys; the bodies stay the file's (f->bodies points at them)
        f->json = NULL;
        f->body_storage = NULL;
        f->fluids = NULL;
        f->fluid_count = 0;
        join_index(f->key_prefix, sizeof f->key_prefix, "fluids", i);
        if (!cJSON_IsObject(entry))
            return key_fail(scene, err, f->key_prefix, NULL, "must be an object (got %s)", json_type_name(entry));
        static const char *const fluid_keys[] = {"name", "domain", FLUID_KEYS, NULL, NULL};
        const char *allowed[CS_ARRAY_COUNT(fluid_keys)];
        memcpy(allowed, fluid_keys, sizeof fluid_keys);
        if (!require(f, entry, "", "solver", err) ||
            !get_string(f, entry, "", "solver", f->solver, sizeof f->solver, NULL, err))
            return false;
        allowed[CS_ARRAY_COUNT(fluid_keys) - 2] = f->solver;
        if (!cs_json_check_keys(f, entry, "", allowed, err))
            return false;
        // A fluid may have a domain of its own (its neighbour grid and its
        // box), inside or beside the world's.
        if (cJSON_GetObjectItemCaseSensitive(entry, "domain") && !parse_domain(f, entry, err))
            return false;
        bool named = false;
        if (!get_string(f, entry, "", "name", f->fluid_name, sizeof f->fluid_name, &named, err) ||
            !parse_fluid(f, entry, err))
            return false;
        if (!named) {
            uint32_t same = 0;
            for (uint32_t j = 0; j < scene->fluid_count; j++) {
                const cJSON *other = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(array, (int)j), "solver");
                same += cJSON_IsString(other) && strcmp(other->valuestring, f->solver) == 0;
            }
            if (same > 1)
                snprintf(f->fluid_name, sizeof f->fluid_name, "%s%u", f->solver, i);
            else
                snprintf(f->fluid_name, sizeof f->fluid_name, "%s", f->solver);
        }
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(scene->fluids[j].fluid_name, f->fluid_name) == 0)
                return key_fail(f, err, "", "name", "\"%s\" is already the name of fluids[%u]; names must differ",
                                f->fluid_name, j);
        }
    }
    return parse_geometry(scene, root, err) && finish_draw(scene, root, err);
}

// Everything after the JSON syntax: fills *scene from the object tree.
static bool parse_root(cs_scene *scene, const cJSON *root, cs_error *err)
{
    if (!cJSON_IsObject(root))
        return cs_fail(err, "%s: the top level must be a JSON object {...} (got %s)", scene->path,
                       json_type_name(root));
    if (cJSON_GetObjectItemCaseSensitive(root, "fluids"))
        return parse_world_format(scene, root, err);
    if (!cJSON_GetObjectItemCaseSensitive(root, "solver"))
        return key_fail(scene, err, "", "fluids",
                        "missing: a scene lists its fluids, \"fluids\": [{\"solver\": \"pbf\", ...}] "
                        "(docs/scenes.md), or is one fluid with a \"solver\" key at the top level");
    return parse_first_format(scene, root, err);
}

// 1-based line and column of byte `offset`.
static void line_column(const char *text, size_t offset, uint32_t *line, uint32_t *column)
{
    *line = 1, *column = 1;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n')
            (*line)++, *column = 1;
        else
            (*column)++;
    }
}

// cJSON refuses arrays and objects nested deeper than CJSON_NESTING_LIMIT
// and reports it as any other failure: true when an opening bracket at or
// before `upto` (cJSON's failure offset) is one level too many; *at gets its
// offset. Brackets inside strings do not count.
static bool nesting_exceeded(const char *text, size_t upto, size_t *at)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; text[i] && i <= upto; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\' && text[i + 1])
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > CJSON_NESTING_LIMIT) {
                *at = i;
                return true;
            }
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return false;
}

bool cs_scene_parse(const char *text, size_t size, const char *path, cs_scene *scene, cs_error *err)
{
    *scene = (cs_scene){0};
    snprintf(scene->path, sizeof scene->path, "%s", path ? path : "(scene)");
    // Name: the file name without folders and without ".json".
    const char *base = strrchr(scene->path, '/');
    base = base ? base + 1 : scene->path;
    snprintf(scene->name, sizeof scene->name, "%s", base);
    size_t name_len = strlen(scene->name);
    if (name_len > 5 && strcmp(scene->name + name_len - 5, ".json") == 0)
        scene->name[name_len - 5] = 0;

    size_t start = 0;
    while (start < size && (text[start] == ' ' || text[start] == '\t' || text[start] == '\n' || text[start] == '\r'))
        start++;
    if (start == size)
        return cs_fail(err, "%s: the file is empty; a scene is a JSON object (see docs/scenes.md)", scene->path);
    const char *nul = memchr(text, 0, size);
    if (nul) {
        uint32_t line, column;
        line_column(text, (size_t)(nul - text), &line, &column);
        return cs_fail(err, "%s:%u:%u: a NUL byte: this is not a text file", scene->path, line, column);
    }
    // cJSON wants NUL-terminated text; our caller's buffer need not be.
    char *copy = malloc(size + 1);
    if (!copy)
        return cs_fail(err, "%s: out of memory reading %zu bytes", scene->path, size);
    memcpy(copy, text, size);
    copy[size] = 0;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(copy, &end, true);
    if (!root) {
        size_t offset = end && end >= copy && end <= copy + size ? (size_t)(end - copy) : size;
        uint32_t line, column;
        line_column(copy, offset, &line, &column);
        // cJSON's error position is often just past the mistake, so show the
        // text leading up to it on the same line as well.
        size_t rest = offset;
        while (rest < size && (copy[rest] == ' ' || copy[rest] == '\t' || copy[rest] == '\n' || copy[rest] == '\r'))
            rest++;
        size_t from = offset;
        while (from > 0 && offset - from < 20 && copy[from - 1] != '\n')
            from--;
        char near[40];
        size_t n = 0;
        for (size_t i = from; i < size && i < offset + 8 && copy[i] != '\n'; i++)
            near[n++] = (copy[i] >= 32 && copy[i] < 127) ? copy[i] : '?';
        near[n] = 0;
        size_t deep_at;
        if (nesting_exceeded(copy, offset, &deep_at)) {
            line_column(copy, deep_at, &line, &column);
            cs_fail(err, "%s:%u:%u: JSON nested too deep: more than %d levels of [ ] and { }", scene->path, line,
                    column, CJSON_NESTING_LIMIT);
        } else if (rest >= size)
            cs_fail(err, "%s:%u:%u: JSON syntax error: unexpected end of file (is it truncated?)", scene->path, line,
                    column);
        else
            cs_fail(err, "%s:%u:%u: JSON syntax error near '%s'", scene->path, line, column, near);
        free(copy);
        return false;
    }
    free(copy);
    scene->json = root;
    if (!parse_root(scene, root, err)) {
        cJSON_Delete(root);
        free(scene->fluids);
        free(scene->body_storage);
        cs_geometry_free(scene->geometry);
        free(scene->geometry);
        char keep[sizeof scene->path];
        memcpy(keep, scene->path, sizeof keep);
        *scene = (cs_scene){0};
        memcpy(scene->path, keep, sizeof keep);
        return false;
    }
    return true;
}

bool cs_scene_load(const char *path, cs_scene *scene, cs_error *err)
{
    char resolved[512];
    snprintf(resolved, sizeof resolved, "%s", path);
    // A bare name ("dam_break_3d") means scenes/<name>.json, from the current
    // folder if it has one, else from the source tree.
    if (!strchr(path, '/') && !strstr(path, ".json")) {
        snprintf(resolved, sizeof resolved, "scenes/%s.json", path);
        if (access(resolved, R_OK) != 0) {
            char source[512];
            snprintf(source, sizeof source, "%s/scenes/%s.json", CS_SOURCE_DIR, path);
            if (access(source, R_OK) != 0) {
                *scene = (cs_scene){0};
                return cs_fail(err, "scene \"%s\": neither %s nor %s exists (`ls scenes/` lists the scenes)", path,
                               resolved, source);
            }
            snprintf(resolved, sizeof resolved, "%s", source);
        }
    }
    size_t size = 0;
    char *text = cs_read_input_file(resolved, CS_INPUT_FILE_MAX, &size, err);
    if (!text) {
        *scene = (cs_scene){0};
        return false;
    }
    bool ok = cs_scene_parse(text, size, resolved, scene, err);
    free(text);
    return ok;
}

void cs_scene_free(cs_scene *scene)
{
    if (!scene)
        return;
    cJSON_Delete(scene->json);
    scene->json = NULL;
    scene->solver_params = NULL;
    free(scene->fluids);
    scene->fluids = NULL;
    scene->fluid_count = 0;
    free(scene->body_storage);
    scene->body_storage = NULL;
    scene->bodies = NULL;
    scene->body_count = 0;
    cs_geometry_free(scene->geometry);
    free(scene->geometry);
    scene->geometry = NULL;
}
