// scene.c — the scene parser (JSON → cs_scene): the two file formats, the
// world's keys, each fluid's, and the checks between keys.
//
// Owns: the schema of the keys common to every pipeline (docs/scenes.md is
// its manual and must change with this file) and the error messages for
// them. The keys' types, ranges and defaults are rows of the key table
// (scene_key_tables.c); the getters behind them are in scene_json.c; the
// bodies in scene_bodies.c; the lattice fill and the particle-count
// scaling in scene_lattice.c; geometry, lights and probes in their files.
// Every error is `file: key.path: what is wrong` (or `file:line:col:` for
// JSON syntax); nothing the file says can abort or leak.
#define _POSIX_C_SOURCE 200809L
#include "scene.h"

#include "file_io.h"
#include "geometry.h"
#include "scene_json.h"
#include "scene_keys.h"
#include "scene_parse.h"

#include <float.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <unistd.h>

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
        return cs_json_fail(scene, err, path, "material", "unknown material \"%.64s\" (this scene has %s)",
                        item->valuestring, list);
    }
    double v = 0.0;
    if (!cJSON_IsNumber(item))
        return cs_json_fail(scene, err, path, "material", "must be a material name or index (got %s)",
                        cs_json_type_name(item));
    if (!cs_json_number(scene, object, path, "material", 0, false, (double)scene->material_count - 1, true, &v, NULL,
                    err))
        return false;
    *out = (uint32_t)v;
    return true;
}

// Starts the array walk shared by materials, blocks, emitters, walls and bodies.
bool cs_json_array(const cs_scene *scene, const cJSON *root, const char *key, uint32_t min, uint32_t max,
                      const cJSON **out, uint32_t *count, cs_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    *out = item;
    *count = 0;
    if (!item)
        return true;
    if (!cJSON_IsArray(item))
        return cs_json_fail(scene, err, "", key, "must be an array (got %s)", cs_json_type_name(item));
    int n = cJSON_GetArraySize(item);
    if (n < (int)min)
        return cs_json_fail(scene, err, "", key, "must hold at least %u entr%s", min, min == 1 ? "y" : "ies");
    if (n > (int)max)
        return cs_json_fail(scene, err, "", key, "holds %d entries; at most %u are supported", n, max);
    *count = (uint32_t)n;
    return true;
}

bool cs_scene_inside_domain(const cs_scene *scene, const float *p, float slack)
{
    for (int a = 0; a < 3; a++) {
        if (p[a] < scene->domain_min[a] - slack || p[a] > scene->domain_max[a] + slack)
            return false;
    }
    return true;
}

static bool parse_materials(cs_scene *scene, const cJSON *root, cs_error *err)
{
    const cJSON *array;
    uint32_t count;
    if (!cs_json_array(scene, root, "materials", 1, CS_MAX_MATERIALS, &array, &count, err))
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
            // Pure water's absorption at 650, 550 and 450 nm (1/m): Pope and
            // Fry 1997, Applied Optics 36(33), 8710-8723, table 3.
            .absorption = {0.34f, 0.0565f, 0.0092f},
            .stiffness = 0.08f,
            .near_stiffness = 0.1f,
            .viscosity_linear = 0.5f,
            .viscosity_quadratic = 1.0f,
            .surface_tension = 0.0004f,
            .speed_of_sound = default_c,
            .tait_gamma = 7.0f,
            .viscosity = 0.1f,
        };
        snprintf(m->name, sizeof m->name, i == 0 ? "water" : "material%u", i);
        bool mass_given = false;
        if (entry) {
            char path[64];
            cs_json_join_index(path, sizeof path, "materials", i);
            if (!cs_scene_keys_read(scene, entry, path, cs_scene_material_keys, m, err))
                return false;
            mass_given = cJSON_GetObjectItemCaseSensitive(entry, "mass") != NULL;
            if (m->name[0] == 0)
                return cs_json_fail(scene, err, path, "name", "must not be empty");
            for (int c = 0; c < 3; c++)
                if (!(m->absorption[c] >= 0.0f))
                    return cs_json_fail(scene, err, path, "absorption",
                                        "component %d is %g; absorption is 0 or more per metre", c,
                                        m->absorption[c]);
            for (uint32_t j = 0; j < i; j++) {
                if (strcmp(scene->materials[j].name, m->name) == 0)
                    return cs_json_fail(scene, err, path, "name", "\"%s\" is already the name of materials[%u]",
                                    m->name, j);
            }
        }
        if (!mass_given) {
            // One lattice cell of fluid at rest density.
            m->mass = (float)(m->rest_density * pow(scene->particle_spacing, scene->dim));
            if (!(m->mass > 0.0f) || !isfinite(m->mass))
                return cs_json_fail(scene, err, "materials", NULL,
                                "material \"%s\": rest_density x particle_spacing^%d = %g is not a usable mass; "
                                "give \"mass\"", m->name, scene->dim, (double)m->mass);
        }
        cs_clavet_material_defaults(scene, entry, m);
    }
    return true;
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
        return cs_json_fail(scene, err, path, "room", "needs a \"level\" in the scene (room %u of what?); remove "
                        "\"room\" or add \"level\"", n);
    *room = n;
    return true;
}

static bool parse_blocks(cs_scene *scene, const cJSON *root, uint64_t *particles, cs_error *err)
{
    const cs_scene_key_block *keys = cs_scene_fluid_block_keys;
    const cJSON *array;
    if (!cs_json_array(scene, root, "blocks", 0, CS_MAX_BLOCKS, &array, &scene->block_count, err))
        return false;
    *particles = 0;
    const cJSON *entry = array ? array->child : NULL;
    for (uint32_t i = 0; i < scene->block_count; i++, entry = entry->next) {
        cs_fluid_block *b = &scene->blocks[i];
        *b = (cs_fluid_block){.spacing = scene->particle_spacing};
        char path[64];
        cs_json_join_index(path, sizeof path, "blocks", i);
        // spacing (its message), material (a name or an index) and room
        // (needs a level) are read by code; the rest by their rows.
        if (!cs_scene_keys_check(scene, entry, path, keys, err) ||
            !cs_json_require(scene, entry, path, "min", err) || !cs_json_require(scene, entry, path, "max", err) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "min", b, err) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "max", b, err) ||
            !cs_json_range(scene, entry, path, "spacing", -FLT_MAX, SPACING_MAX, &b->spacing, err) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "velocity", b, err) ||
            !material_ref(scene, entry, path, &b->material, err) ||
            !parse_room(scene, entry, path, &b->in_room, &b->room, err))
            return false;
        // "must be > 0" reads better than a range for the common mistake.
        if (!(b->spacing >= SPACING_MIN))
            return cs_json_fail(scene, err, path, "spacing", "must be > 0 (got %g)%s", b->spacing,
                            b->spacing > 0 ? "; the smallest spacing accepted is 1e-05" : "");
        if (!cs_scene_key_read_named(scene, entry, path, keys, "jitter", b, err))
            return false;
        for (int a = 0; a < scene->dim; a++) {
            if (!(b->max[a] > b->min[a]))
                return cs_json_fail(scene, err, path, "max", "must exceed min on every axis (axis %d: min %g, max %g)",
                                a, b->min[a], b->max[a]);
        }
        // A small slack so a block flush with the domain wall is accepted.
        float slack = 1e-4f * b->spacing;
        bool placed = !b->in_room; // a room-relative box is checked once the world has moved it
        if (placed && (!cs_scene_inside_domain(scene, b->min, slack) || !cs_scene_inside_domain(scene, b->max, slack)))
            return cs_json_fail(scene, err, path, NULL,
                            "box [%g %g %g]..[%g %g %g] reaches outside the domain [%g %g %g]..[%g %g %g]",
                            b->min[0], b->min[1], b->min[2], b->max[0], b->max[1], b->max[2], scene->domain_min[0],
                            scene->domain_min[1], scene->domain_min[2], scene->domain_max[0], scene->domain_max[1],
                            scene->domain_max[2]);
        if (b->spacing < cs_scene_resolution(scene))
            return cs_json_fail(scene, err, path, "spacing", "%g is below what float coordinates resolve in this domain "
                            "(at least %g)", b->spacing, cs_scene_resolution(scene));
        for (int a = 0; a < scene->dim; a++) {
            if (((double)b->max[a] - b->min[a]) / b->spacing > AXIS_LIMIT)
                return cs_json_fail(scene, err, path, NULL, "more than %g particles along axis %d; raise the spacing",
                                AXIS_LIMIT, a);
        }
        uint64_t n = cs_scene_lattice_count(scene, b, b->spacing);
        if (n == 0)
            return cs_json_fail(scene, err, path, NULL, "holds no particle: the box is thinner than one spacing (%g)",
                            b->spacing);
        *particles += n;
        if (*particles > CS_SCENE_MAX_PARTICLES)
            return cs_json_fail(scene, err, path, NULL,
                            "the blocks so far hold %llu particles, more than the limit of %u; raise the spacing",
                            (unsigned long long)*particles, CS_SCENE_MAX_PARTICLES);
    }
    return true;
}

static bool parse_emitters(cs_scene *scene, const cJSON *root, uint64_t *budgets, cs_error *err)
{
    const cs_scene_key_block *keys = cs_scene_emitter_keys;
    const cJSON *array;
    if (!cs_json_array(scene, root, "emitters", 0, CS_MAX_EMITTERS, &array, &scene->emitter_count, err))
        return false;
    *budgets = 0;
    const cJSON *entry = array ? array->child : NULL;
    for (uint32_t i = 0; i < scene->emitter_count; i++, entry = entry->next) {
        cs_emitter *e = &scene->emitters[i];
        *e = (cs_emitter){.width = 4.0f * scene->particle_spacing, .speed = 1.0f};
        char path[64];
        cs_json_join_index(path, sizeof path, "emitters", i);
        bool rate_given = false;
        double rate = 0.0;
        // rate (its default follows width and speed), material and room are
        // read by code; the rest by their rows (required ones first).
        if (!cs_scene_keys_check(scene, entry, path, keys, err) ||
            !cs_json_require(scene, entry, path, "position", err) ||
            !cs_json_require(scene, entry, path, "direction", err) ||
            !cs_json_require(scene, entry, path, "budget", err))
            return false;
        static const char *const rows[] = {"position", "direction", "width", "speed", "speed_jitter", "start_time"};
        for (uint32_t k = 0; k < CS_ARRAY_COUNT(rows); k++)
            if (!cs_scene_key_read_named(scene, entry, path, keys, rows[k], e, err))
                return false;
        if (!cs_json_number(scene, entry, path, "rate", 0.0, true, 1e9, false, &rate, &rate_given, err) ||
            !cs_scene_key_read_named(scene, entry, path, keys, "budget", e, err) ||
            !material_ref(scene, entry, path, &e->material, err) ||
            !parse_room(scene, entry, path, &e->in_room, &e->room, err))
            return false;
        if (!e->in_room && !cs_scene_inside_domain(scene, e->position, 0.0f))
            return cs_json_fail(scene, err, path, "position", "(%g %g %g) lies outside the domain", e->position[0],
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
    const cJSON *array;
    if (!cs_json_array(scene, root, "walls", 0, CS_MAX_WALLS, &array, &scene->wall_count, err))
        return false;
    const cJSON *entry = array ? array->child : NULL;
    for (uint32_t i = 0; i < scene->wall_count; i++, entry = entry->next) {
        cs_wall *w = &scene->walls[i];
        *w = (cs_wall){0};
        char path[64];
        cs_json_join_index(path, sizeof path, "walls", i);
        if (!cs_scene_keys_read(scene, entry, path, cs_scene_wall_keys, w, err))
            return false;
        // Normalise the normal and the offset together: the plane stays the
        // one the file wrote, dot(normal, x) = offset.
        double len = sqrt((double)w->normal[0] * w->normal[0] + (double)w->normal[1] * w->normal[1] +
                          (double)w->normal[2] * w->normal[2]);
        if (!(len > 1e-12) || !isfinite(len))
            return cs_json_fail(scene, err, path, "normal", "must be a nonzero vector");
        for (int a = 0; a < 3; a++)
            w->normal[a] = (float)(w->normal[a] / len);
        w->offset = (float)(w->offset / len);
    }
    return true;
}

static bool parse_camera(cs_scene *scene, const cJSON *root, cs_error *err)
{
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
    if (object && !cs_scene_keys_read(scene, object, "camera", cs_scene_camera_keys, c, err))
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
        return cs_json_fail(scene, err, "camera", "target", "must differ from camera.position");
    cross[0] = view[1] * c->up[2] - view[2] * c->up[1];
    cross[1] = view[2] * c->up[0] - view[0] * c->up[2];
    cross[2] = view[0] * c->up[1] - view[1] * c->up[0];
    if (sqrt(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]) < 1e-6 * len)
        return cs_json_fail(scene, err, "camera", "up", "must not be parallel to the view direction");
    return true;
}

static bool parse_render(cs_scene *scene, const cJSON *root, cs_error *err)
{
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
    // Which fluids have a surface is known after the fluids: finish_draw()
    // checks "surface" / "both" against them.
    return cs_scene_keys_read(scene, object, "render", cs_scene_render_keys, r, err);
}

// "surface": {...}. At the top level (in_fluid false) it sets every fluid's
// defaults; in a fluid's entry it overrides them key by key. A reint fluid
// meshes its own cells (one node per cell), so its own block may not give
// a resolution or a kernel radius (the top level's are for particle fluids).
// Lower bounds instead of "> 0" (the table's surface rows), so a value never
// rounds to 0 in a float (0 reads as "not given").

static bool parse_surface(cs_scene *scene, const cJSON *root, bool in_fluid, cs_error *err)
{
    cs_surface_options *o = &scene->surface;
    const cJSON *object = cJSON_GetObjectItemCaseSensitive(root, "surface");
    if (!object)
        return true;
    if (!cs_scene_keys_check(scene, object, "surface", cs_scene_surface_keys, err))
        return false;
    bool has_cps = cJSON_GetObjectItemCaseSensitive(object, "cells_per_spacing") != NULL;
    bool has_cell = cJSON_GetObjectItemCaseSensitive(object, "cell_size") != NULL;
    if (has_cps && has_cell)
        return cs_json_fail(scene, err, "surface", "cell_size", "give cells_per_spacing or cell_size, not both");
    if (in_fluid && strcmp(scene->solver, "reint") == 0) {
        static const char *const particle_keys[] = {"cells_per_spacing", "cell_size", "radius"};
        for (uint32_t k = 0; k < CS_ARRAY_COUNT(particle_keys); k++) {
            if (cJSON_GetObjectItemCaseSensitive(object, particle_keys[k]))
                return cs_json_fail(scene, err, "surface", particle_keys[k],
                                "a reint fluid meshes its own cells (one field node per cell); remove it");
        }
    }
    // Read over a copy: a resolution key given here replaces both of the
    // defaults' (the top level's), so the other one reads 0 (not given).
    cs_surface_options got = *o;
    got.cells_per_spacing = 0.0f, got.cell_size = 0.0f;
    if (!cs_scene_keys_read(scene, object, "surface", cs_scene_surface_keys, &got, err))
        return false;
    o->enabled_given |= cJSON_GetObjectItemCaseSensitive(object, "enabled") != NULL;
    o->enabled = got.enabled;
    o->iso = got.iso;
    o->radius = got.radius;
    if (has_cps || has_cell) {
        o->cells_per_spacing = got.cells_per_spacing;
        o->cell_size = got.cell_size;
    }
    if (in_fluid)
        o->own_block = object;
    else
        o->top_block = object;
    if (o->enabled && scene->dim != 3)
        return cs_json_fail(scene, err, "surface", "enabled", "a surface is for 3D scenes (this one has dim %d)",
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
// one; "surface", "both" or "water" need one. Every fluid's copy gets the result.
static bool finish_draw(cs_scene *scene, const cJSON *root, cs_error *err)
{
    bool any = false;
    for (uint32_t i = 0; i < scene->fluid_count; i++)
        any |= scene->fluids[i].surface.enabled;
    const cJSON *render = cJSON_GetObjectItemCaseSensitive(root, "render");
    bool given = render && cJSON_GetObjectItemCaseSensitive(render, "draw");
    if (!given)
        scene->render.draw = any ? CS_DRAW_SURFACE : CS_DRAW_PARTICLES;
    // "water" draws a particle fluid without a surface too (3D: the
    // renderer's screen-space fluid).
    else if (scene->render.draw != CS_DRAW_PARTICLES && !any && !(scene->render.draw == CS_DRAW_WATER && scene->dim == 3))
        return cs_json_fail(scene, err, "render", "draw",
                        "\"%s\" needs a fluid with a surface (\"surface\": {\"enabled\": true}, 3D scenes only)",
                        scene->render.draw == CS_DRAW_SURFACE ? "surface"
                        : scene->render.draw == CS_DRAW_BOTH  ? "both"
                                                               : "water");
    for (uint32_t i = 0; i < scene->fluid_count; i++)
        scene->fluids[i].render.draw = scene->render.draw;
    return true;
}

const char *const cs_scene_solver_names[] = {"pbf", "sph", "wcsph", "dfsph", "reint", "vorton", NULL};

// The fluid's "solver" into scene->solver, checked against the solvers'
// names before anything else of the fluid is: a misspelled name would
// otherwise be reported as an unknown key (the real block's name) or a
// missing block (the typo's), which names neither the mistake nor the fix.
// A block named after another solver (a --set that changed the solver but
// not the block) is named too.
static bool read_solver_name(cs_scene *scene, const cJSON *object, cs_error *err)
{
    if (!cs_json_require(scene, object, "", "solver", err) ||
        !cs_json_string(scene, object, "", "solver", scene->solver, sizeof scene->solver, NULL, err))
        return false;
    uint32_t count = 0;
    bool known = false;
    char list[128] = "";
    size_t used = 0;
    for (; cs_scene_solver_names[count]; count++) {
        known |= strcmp(cs_scene_solver_names[count], scene->solver) == 0;
        if (used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s\"%s\"", count ? ", " : "",
                                     cs_scene_solver_names[count]);
    }
    if (!known) {
        const char *near = cs_scene_keys_nearest(scene->solver, cs_scene_solver_names, count);
        return cs_json_fail(scene, err, "", "solver", "\"%s\" is not a solver%s%s%s (solvers: %s; the fluid's "
                            "block of settings is named like its solver)", scene->solver,
                            near ? ": did you mean \"" : "", near ? near : "", near ? "\"?" : "", list);
    }
    for (uint32_t i = 0; i < count; i++) {
        const char *other = cs_scene_solver_names[i];
        if (strcmp(other, scene->solver) != 0 && cJSON_GetObjectItemCaseSensitive(object, other) &&
            !cJSON_GetObjectItemCaseSensitive(object, scene->solver))
            return cs_json_fail(scene, err, "", other, "is the block of solver \"%s\" but the fluid's \"solver\" "
                                "is \"%s\": rename the block to \"%s\" (its keys may differ) or set the solver "
                                "back to \"%s\"", other, scene->solver, scene->solver, other);
    }
    return true;
}

// The fluid's solver and its block (named after it).
static bool parse_solver(cs_scene *scene, const cJSON *root, cs_error *err)
{
    if (!read_solver_name(scene, root, err))
        return false;
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(root, scene->solver);
    if (!own)
        return cs_json_fail(scene, err, "", scene->solver,
                        "missing: the solver block is required ({} takes the solver's defaults)");
    if (!cJSON_IsObject(own))
        return cs_json_fail(scene, err, "", scene->solver, "must be an object (got %s)", cs_json_type_name(own));
    scene->solver_params = own;
    return true;
}

static bool parse_domain(cs_scene *scene, const cJSON *root, cs_error *err)
{
    static const char *const keys[] = {"min", "max", NULL};
    if (!cs_json_require(scene, root, "", "domain", err))
        return false;
    const cJSON *domain = cJSON_GetObjectItemCaseSensitive(root, "domain");
    if (!cs_json_check_keys(scene, domain, "domain", keys, err) || !cs_json_require(scene, domain, "domain", "min", err) ||
        !cs_json_require(scene, domain, "domain", "max", err) ||
        !cs_json_coord(scene, domain, "domain", "min", scene->domain_min, NULL, err) ||
        !cs_json_coord(scene, domain, "domain", "max", scene->domain_max, NULL, err))
        return false;
    for (int a = 0; a < scene->dim; a++) {
        if (!(scene->domain_max[a] > scene->domain_min[a]))
            return cs_json_fail(scene, err, "domain", "max", "must exceed domain.min on every axis (axis %d: %g <= %g)",
                            a, scene->domain_max[a], scene->domain_min[a]);
    }
    return true;
}

// "pointer": the table's keys, then its track by code: keys [t, x, y, z,
// mode] (2D: z is 0), t >= 0 and increasing, mode -1, 0 or 1, each point
// inside the domain box.
static bool parse_pointer(cs_scene *scene, const cJSON *root, cs_error *err)
{
    cs_pointer_options *p = &scene->pointer;
    float g = sqrtf(scene->gravity[0] * scene->gravity[0] + scene->gravity[1] * scene->gravity[1] +
                    scene->gravity[2] * scene->gravity[2]);
    *p = (cs_pointer_options){.strength = g > 0.0f ? 4.0f * g : 40.0f, .damping = 2.0f};
    const cJSON *object = cJSON_GetObjectItemCaseSensitive(root, "pointer");
    if (!object)
        return true;
    if (!cs_scene_keys_read(scene, object, "pointer", cs_scene_pointer_keys, p, err))
        return false;
    const cJSON *track = cJSON_GetObjectItemCaseSensitive(object, "track");
    if (!track)
        return true;
    int n = cJSON_IsArray(track) ? cJSON_GetArraySize(track) : -1;
    if (n < 0 || n > CS_MAX_POINTER_KEYS)
        return cs_json_fail(scene, err, "pointer", "track", "must be an array of at most %d keys [t, x, y, z, mode]",
                            CS_MAX_POINTER_KEYS);
    uint32_t i = 0;
    for (const cJSON *e = track->child; e; e = e->next, i++) {
        char elem[64];
        cs_json_join_index(elem, sizeof elem, "pointer.track", i);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 5)
            return cs_json_fail(scene, err, elem, NULL, "must be [t, x, y, z, mode] (in 2D z is 0)");
        double v[5];
        int c = 0;
        for (const cJSON *x = e->child; x; x = x->next, c++) {
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > COORD_LIMIT)
                return cs_json_fail(scene, err, elem, NULL, "element %d must be a finite number within +-%g", c,
                                    COORD_LIMIT);
            v[c] = x->valuedouble;
        }
        cs_pointer_key *k = &p->track[i];
        *k = (cs_pointer_key){(float)v[0], {(float)v[1], (float)v[2], scene->dim == 2 ? 0.0f : (float)v[3]}, 0};
        if (!(v[0] >= 0.0) || (i > 0 && !(k->time > p->track[i - 1].time)))
            return cs_json_fail(scene, err, elem, NULL, "times must be >= 0 and increase (%g after %g)", v[0],
                                i > 0 ? (double)p->track[i - 1].time : 0.0);
        if (v[4] != -1.0 && v[4] != 0.0 && v[4] != 1.0)
            return cs_json_fail(scene, err, elem, NULL, "mode (element 4) must be 1 (pull), -1 (push) or 0 (off); "
                                                        "got %g", v[4]);
        k->mode = (int32_t)v[4];
        for (int a = 0; a < scene->dim; a++)
            if (!(k->at[a] >= scene->domain_min[a] && k->at[a] <= scene->domain_max[a]))
                return cs_json_fail(scene, err, elem, NULL, "the point (%g, %g, %g) is outside the domain box",
                                    v[1], v[2], v[3]);
    }
    p->track_count = i;
    return true;
}

// The first format's key lists: the world's keys but fluids, level, bodies,
// lights, geometry and radiosity, one fluid's keys, and its solver's block.
// (The world format's top level and fluid entries take theirs from the key
// table's top-level and fluids[] rows.)
// A scene's and a fluid's names name files and folders (out/<scene>,
// particles_<fluid>_NNNNN.ply): a name with a slash, or "." or "..",
// would write outside the run's folder ("../.." wrote beside out/).
static bool check_file_name(const cs_scene *scene, const char *path, const char *name, cs_error *err)
{
    if (strchr(name, '/') || strchr(name, '\\') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return cs_json_fail(scene, err, path, "name", "\"%s\" names files and folders of the run: give a name "
                            "without '/' or '\\' that is not \".\" or \"..\"", name);
    return true;
}

#define WORLD_KEYS                                                                                                     \
    "name", "description", "dim", "domain", "gravity", "dt", "substeps", "seed", "boundary_restitution", "walls",      \
        "camera", "pointer", "realtime", "render", "surface"
// Keys of one fluid (plus its solver block, named after the solver).
#define FLUID_ONLY_KEYS "solver", "smoothing_radius", "particle_spacing", "max_particles", "materials", "blocks", \
                        "emitters"

// "realtime": read with the world's keys (so every fluid's copy has it);
// applied once the fluids are read (apply_realtime).
static bool parse_realtime(cs_scene *scene, const cJSON *root, cs_error *err)
{
    scene->realtime = (cs_realtime_options){.substeps = 2, .max_step = 0.5f};
    const cJSON *object = cJSON_GetObjectItemCaseSensitive(root, "realtime");
    return !object || cs_scene_keys_read(scene, object, "realtime", cs_scene_realtime_keys, &scene->realtime, err);
}

// The real-time mode replaces the file's clock: the same frame (dt x
// substeps) in realtime.substeps steps, for the file and every fluid (the
// world keeps one clock). Only PBF has the clamp in its passes: WCSPH's
// own CFL split would cut the long steps up again, and Clavet SPH and the
// grid solvers have no speed clamp, so a file with any other fluid is
// refused rather than run unclamped.
static void use_realtime_clock(cs_scene *s, double frame)
{
    s->substeps = s->realtime.substeps;
    s->dt = (float)(frame / s->substeps);
}

static bool apply_realtime(cs_scene *scene, cs_error *err)
{
    scene->realtime.physical_dt = scene->dt;
    scene->realtime.physical_substeps = scene->substeps;
    for (uint32_t i = 0; i < scene->fluid_count; i++) {
        scene->fluids[i].realtime.physical_dt = scene->dt;
        scene->fluids[i].realtime.physical_substeps = scene->substeps;
    }
    if (!scene->realtime.enabled)
        return true;
    for (uint32_t i = 0; i < scene->fluid_count; i++)
        if (strcmp(scene->fluids[i].solver, "pbf") != 0)
            return cs_json_fail(scene, err, "realtime", "enabled",
                                "the real-time mode clamps the speed of PBF fluids only, and %s is \"%s\" (its "
                                "steps keep the file's dt and substeps): remove \"realtime\" or set "
                                "\"enabled\": false",
                                scene->fluids[i].key_prefix[0] ? scene->fluids[i].key_prefix : "the fluid",
                                scene->fluids[i].solver);
    double frame = (double)scene->dt * scene->substeps;
    use_realtime_clock(scene, frame);
    for (uint32_t i = 0; i < scene->fluid_count; i++)
        use_realtime_clock(&scene->fluids[i], frame);
    return true;
}

void cs_scene_stepping_text(const cs_scene *scene, char *out, size_t size)
{
    const cs_realtime_options *rt = &scene->realtime;
    if (!rt->enabled) {
        snprintf(out, size, "physical: %u substeps of %.3g ms a frame", scene->substeps, 1e3 * scene->dt);
        return;
    }
    const cs_scene *fluid = scene->fluid_count ? &scene->fluids[0] : scene;
    double limit = (double)rt->max_step * fluid->smoothing_radius / scene->dt;
    char iterations[48] = "the fluids' own PBF iterations";
    if (rt->iterations)
        snprintf(iterations, sizeof iterations, "%u PBF iterations", rt->iterations);
    snprintf(out, size,
             "real time: %u substeps of %.3g ms a frame, %s, speeds clamped to %.3f m/s (physical: %u "
             "substeps)",
             scene->substeps, 1e3 * scene->dt, iterations, limit, rt->physical_substeps);
}

// The keys every part shares: dim, domain, gravity, time step, walls, view.
static bool parse_world(cs_scene *scene, const cJSON *root, cs_error *err)
{
    uint32_t dim = 3;
    if (!cs_json_uint(scene, root, "", "dim", 0, UINT32_MAX, &dim, err))
        return false;
    if (dim != 2 && dim != 3)
        return cs_json_fail(scene, err, "", "dim", "must be 2 or 3 (got %u)", dim);
    scene->dim = (int)dim;

    // The top level's keys are checked by the caller (the table's rows, or
    // the first format's lists); the rows read the values, in this order because the domain is
    // read by code between them.
    const cs_scene_key_block *keys = cs_scene_world_keys;
    if (!cs_scene_key_read_named(scene, root, "", keys, "name", scene, err) ||
        !check_file_name(scene, "", scene->name, err) ||
        !cs_scene_key_read_named(scene, root, "", keys, "description", scene, err) || !parse_domain(scene, root, err))
        return false;

    scene->gravity[1] = -9.81f;
    scene->substeps = 1;
    scene->dt = 0.0f;
    if (!cs_scene_key_read_named(scene, root, "", keys, "gravity", scene, err) ||
        !cs_scene_key_read_named(scene, root, "", keys, "dt", scene, err) ||
        !cs_scene_key_read_named(scene, root, "", keys, "substeps", scene, err) ||
        !cs_scene_key_read_named(scene, root, "", keys, "seed", scene, err))
        return false;
    // One frame is 1/60 s of simulated time unless dt says otherwise.
    if (!(scene->dt > 0.0f))
        scene->dt = 1.0f / (60.0f * (float)scene->substeps);
    scene->surface = (cs_surface_options){.iso = 0.5f, .radius = 2.5f};
    return cs_scene_key_read_named(scene, root, "", keys, "boundary_restitution", scene, err) &&
           parse_walls(scene, root, err) && parse_camera(scene, root, err) && parse_render(scene, root, err) &&
           parse_pointer(scene, root, err) && parse_realtime(scene, root, err) &&
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
    if (!cs_json_number(scene, object, "", "particle_spacing", 0.0, true, SPACING_MAX, false, &spacing, &have_spacing,
                    err) ||
        !cs_json_number(scene, object, "", "smoothing_radius", 0.0, true, SPACING_MAX, false, &h, &have_h, err) ||
        !cs_scene_key_read_named(scene, object, "", cs_scene_fluid_keys, "seed", scene, err) ||
        !cs_scene_key_read_named(scene, object, "", cs_scene_fluid_keys, "boundary_restitution", scene, err))
        return false;
    if (!have_spacing && !have_h)
        return cs_json_fail(scene, err, "", "particle_spacing", "missing (give particle_spacing, smoothing_radius or both)");
    scene->particle_spacing = (float)(have_spacing ? spacing : h / 2.0);
    scene->smoothing_radius = (float)(have_h ? h : spacing * 2.0);
    if (!(scene->particle_spacing >= cs_scene_resolution(scene)))
        return cs_json_fail(scene, err, "", "particle_spacing",
                        "%g is below what float coordinates resolve in this domain (at least %g)",
                        scene->particle_spacing, cs_scene_resolution(scene));
    if (!(scene->smoothing_radius >= scene->particle_spacing))
        return cs_json_fail(scene, err, "", "smoothing_radius",
                        "must be >= particle_spacing (%g), or particles have no neighbours (got %g)",
                        scene->particle_spacing, scene->smoothing_radius);

    uint64_t block_particles, budgets;
    if (!parse_materials(scene, object, err) || !parse_blocks(scene, object, &block_particles, err) ||
        !parse_emitters(scene, object, &budgets, err))
        return false;
    uint64_t needed = block_particles + budgets;
    if (needed > CS_SCENE_MAX_PARTICLES)
        return cs_json_fail(scene, err, "", "emitters",
                        "blocks (%llu particles) + emitter budgets (%llu) exceed the limit of %u particles",
                        (unsigned long long)block_particles, (unsigned long long)budgets, CS_SCENE_MAX_PARTICLES);
    // A particle solver with no particles has nothing to do (and would make
    // empty buffers); the grid solver ("reint") starts from its own grid.
    if (needed == 0 && strcmp(scene->solver, "reint") != 0)
        return cs_json_fail(scene, err, "", "blocks", "the scene has no particles: add a block or an emitter");
    scene->max_particles = (uint32_t)needed;
    if (!cs_scene_key_read_named(scene, object, "", cs_scene_fluid_keys, "max_particles", scene, err))
        return false;
    if (scene->max_particles < block_particles)
        return cs_json_fail(scene, err, "", "max_particles", "is %u but the blocks alone hold %llu particles",
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
    if (!read_solver_name(scene, root, err))
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
        return cs_json_fail(scene, err, "", "level", "must be an object {\"file\": \"...phd\"} (got %s)",
                        cs_json_type_name(level));
    // Every value by code (a path resolved against the scene's folder, a
    // double at the file's precision, a choice that depends on "radiosity");
    // the rows name the keys and give the range.
    const cs_scene_key *upm_row = cs_scene_key_find(cs_scene_level_keys, "units_per_metre");
    char file[512] = "", light[16] = "";
    double upm = 512.0;
    bool has_radiosity = cJSON_GetObjectItemCaseSensitive(root, "radiosity") != NULL;
    if (!cs_scene_keys_check(scene, level, "level", cs_scene_level_keys, err) ||
        !cs_json_require(scene, level, "level", "file", err) ||
        !cs_json_string(scene, level, "level", "file", file, sizeof file, NULL, err) ||
        !cs_json_number(scene, level, "level", "units_per_metre", upm_row->min, true, upm_row->max, false, &upm, NULL,
                        err) ||
        !cs_json_string(scene, level, "level", "light", light, sizeof light, NULL, err) ||
        !cs_json_bool(scene, level, "level", "seal_water", &scene->level.seal_water, err))
        return false;
    if (light[0] && strcmp(light, "baked") != 0 && (strcmp(light, "radiosity") != 0 || !has_radiosity))
        return cs_json_fail(scene, err, "level", "light", "must be \"baked\" or, with a \"radiosity\" block, "
                        "\"radiosity\" (got \"%s\")", light);
    scene->level.radiosity_shown = has_radiosity && strcmp(light, "baked") != 0;
    if (!file[0])
        return cs_json_fail(scene, err, "level", "file", "is empty; give a .PHD path relative to the scene file");
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
    if (!cs_scene_keys_check(scene, root, "", cs_scene_world_keys, err))
        return false;
    if (!parse_world(scene, root, err) || !cs_scene_parse_bodies(scene, root, err) || !parse_level(scene, root, err))
        return false;
    const cJSON *array;
    if (!cs_json_array(scene, root, "fluids", 1, CS_MAX_FLUIDS, &array, &scene->fluid_count, err))
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
        cs_json_join_index(f->key_prefix, sizeof f->key_prefix, "fluids", i);
        if (!cJSON_IsObject(entry))
            return cs_json_fail(scene, err, f->key_prefix, NULL, "must be an object (got %s)", cs_json_type_name(entry));
        // The fluid's keys are its rows plus its solver's block.
        if (!read_solver_name(f, entry, err) ||
            !cs_scene_keys_check_with(f, entry, "", cs_scene_fluid_keys, f->solver, err))
            return false;
        // A fluid may have a domain of its own (its neighbour grid and its
        // box), inside or beside the world's.
        if (cJSON_GetObjectItemCaseSensitive(entry, "domain") && !parse_domain(f, entry, err))
            return false;
        bool named = false;
        named = cJSON_GetObjectItemCaseSensitive(entry, "name") != NULL;
        if (!cs_scene_key_read_named(f, entry, "", cs_scene_fluid_keys, "name", f, err) || !parse_fluid(f, entry, err))
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
        if (!check_file_name(f, "", f->fluid_name, err))
            return false;
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(scene->fluids[j].fluid_name, f->fluid_name) == 0)
                return cs_json_fail(f, err, "", "name", "\"%s\" is already the name of fluids[%u]; names must differ",
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
                       cs_json_type_name(root));
    if (cJSON_GetObjectItemCaseSensitive(root, "fluids"))
        return parse_world_format(scene, root, err) && apply_realtime(scene, err);
    if (!cJSON_GetObjectItemCaseSensitive(root, "solver"))
        return cs_json_fail(scene, err, "", "fluids",
                        "missing: a scene lists its fluids, \"fluids\": [{\"solver\": \"pbf\", ...}] "
                        "(docs/scenes.md), or is one fluid with a \"solver\" key at the top level");
    return parse_first_format(scene, root, err) && apply_realtime(scene, err);
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
    for (size_t i = 0; i <= upto && text[i]; i++) {
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

cJSON *cs_scene_parse_json(const char *text, size_t size, const char *path, cs_error *err)
{
    path = path ? path : "(scene)";
    size_t start = 0;
    while (start < size && (text[start] == ' ' || text[start] == '\t' || text[start] == '\n' || text[start] == '\r'))
        start++;
    if (start == size)
        return cs_fail(err, "%s: the file is empty; a scene is a JSON object (see docs/scenes.md)", path), NULL;
    const char *nul = memchr(text, 0, size);
    if (nul) {
        uint32_t line, column;
        line_column(text, (size_t)(nul - text), &line, &column);
        return cs_fail(err, "%s:%u:%u: a NUL byte: this is not a text file", path, line, column), NULL;
    }
    // cJSON wants NUL-terminated text; our caller's buffer need not be.
    char *copy = malloc(size + 1);
    if (!copy)
        return cs_fail(err, "%s: out of memory reading %zu bytes", path, size), NULL;
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
            cs_fail(err, "%s:%u:%u: JSON nested too deep: more than %d levels of [ ] and { }", path, line,
                    column, CJSON_NESTING_LIMIT);
        } else if (rest >= size)
            cs_fail(err, "%s:%u:%u: JSON syntax error: unexpected end of file (is it truncated?)", path, line,
                    column);
        else
            cs_fail(err, "%s:%u:%u: JSON syntax error near '%s'", path, line, column, near);
        free(copy);
        return NULL;
    }
    free(copy);
    return root;
}

bool cs_scene_parse_tree(cJSON *root, const char *path, cs_scene *scene, cs_error *err)
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

bool cs_scene_parse(const char *text, size_t size, const char *path, cs_scene *scene, cs_error *err)
{
    *scene = (cs_scene){0};
    snprintf(scene->path, sizeof scene->path, "%s", path ? path : "(scene)");
    cJSON *root = cs_scene_parse_json(text, size, scene->path, err);
    if (!root)
        return false;
    char name[sizeof scene->path]; // parse_tree clears *scene first
    memcpy(name, scene->path, sizeof name);
    return cs_scene_parse_tree(root, name, scene, err);
}

bool cs_scene_resolve(const char *name, char *out, size_t size, cs_error *err)
{
    snprintf(out, size, "%s", name);
    // A bare name ("dam_break_3d") means scenes/<name>.json, from the current
    // folder if it has one, else from the source tree.
    if (!strchr(name, '/') && !strstr(name, ".json")) {
        snprintf(out, size, "scenes/%s.json", name);
        if (access(out, R_OK) != 0) {
            char source[512];
            snprintf(source, sizeof source, "%s/scenes/%s.json", CS_SOURCE_DIR, name);
            if (access(source, R_OK) != 0)
                return cs_fail(err, "scene \"%s\": neither %s nor %s exists (`ls scenes/` lists the scenes)", name,
                               out, source);
            snprintf(out, size, "%s", source);
        }
    }
    return true;
}

bool cs_scene_load(const char *path, cs_scene *scene, cs_error *err)
{
    char resolved[512];
    *scene = (cs_scene){0};
    if (!cs_scene_resolve(path, resolved, sizeof resolved, err))
        return false;
    size_t size = 0;
    char *text = cs_read_input_file(resolved, CS_INPUT_FILE_MAX, &size, err);
    if (!text)
        return false;
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
