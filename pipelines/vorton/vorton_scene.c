// vorton_scene.c — the "vorton" scene block and the solver's cs_sim_ops
// (registered as "vorton" in solvers.c). Schema in docs/scenes.md and
// docs/vortons.md. The fluid's blocks become the passive tracers.
#include "vorton.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VORTON_MAX_RINGS 8
#define VORTON_MAX_HEATS 8

typedef struct vorton_setup {
    cs_vorton_params params;
    float spacing;
    cs_vorton_ring rings[VORTON_MAX_RINGS];
    uint32_t ring_count;
    cs_vorton_heat heats[VORTON_MAX_HEATS];
    uint32_t heat_count;
    cs_smoke_style smoke;       // how the tracers are drawn (radius 0: spheres)
    cs_arrow_style arrows;      // the vortons as arrows ("arrows"; scale finished by finish_arrows)
    float arrow_length, arrow_omega; // m at 1/s ("arrows": "length", "omega"; 0: the defaults)
} vorton_setup;

// The block's rows (scene_keys.h). Its numbers are read through them; the
// choices keep their code for their messages (each says what it does), and
// arrays, sub-blocks and per-body lists are read by code. spacing is the
// setup's, not a cs_vorton_params field: its row gives the range only.
// Ranges written as floats were float ranges before the table.
static const cs_scene_key vorton_keys[] = {
    {"spacing", CS_KEY_NUMBER, .min = 1e-4f, .max = 1e4f, .flags = CS_KEY_BY_CODE, .unit = "m",
     .def = "the fluid's particle_spacing", .help = "vorton spacing: rings and heat balls are sampled at it"},
    {"stretching", CS_KEY_ENUM, CS_KEY_AT(cs_vorton_params, stretching), .flags = CS_KEY_BY_CODE,
     .choices = "transpose|classical|none", .def = "\"transpose\"",
     .help = "vortex stretching: transpose conserves total vorticity"},
    {"viscosity", CS_KEY_NUMBER, CS_KEY_AT(cs_vorton_params, viscosity), 0.0f, 1e3f, CS_KEY_LIVE, .unit = "m²/s",
     .def = "0", .help = "kinematic viscosity ν (0: inviscid)"},
    {"diffusivity", CS_KEY_NUMBER, CS_KEY_AT(cs_vorton_params, diffusivity), 0.0f, 1e3f, CS_KEY_LIVE,
     .unit = "m²/s", .def = "0", .help = "heat diffusivity κ"},
    {"expansion", CS_KEY_NUMBER, CS_KEY_AT(cs_vorton_params, expansion), 0.0f, 1.0f, CS_KEY_LIVE, .unit = "1/K",
     .def = "0", .help = "buoyancy: density falls by expansion × (T − T0) ρ0"},
    {"ambient_temperature", CS_KEY_NUMBER, CS_KEY_AT(cs_vorton_params, ambient_temperature), 1.0f, 1e5f,
     0, .unit = "K", .def = "300", .help = "T0: air at rest"},
    {"rings", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "none",
     .help = "vortex rings {centre, axis, radius, core, circulation}"},
    {"heat", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "none", .help = "heat balls {centre, radius, temperature}"},
    {"velocity", CS_KEY_ENUM, CS_KEY_AT(cs_vorton_params, velocity), .flags = CS_KEY_BY_CODE,
     .choices = "direct|grid", .def = "\"direct\"",
     .help = "direct: the O(N²) Biot–Savart sum; grid: vortex-in-cell multigrid"},
    {"grid", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "{}", .help = "the velocity grid: fluids[].vorton.grid"},
    {"body_temperature", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "all 0",
     .help = "a temperature per body, K (0: adiabatic)"},
    {"density", CS_KEY_NUMBER, CS_KEY_AT(cs_vorton_params, density), 1e-6f, 1e6f, .unit = "kg/m³", .def = "1.2",
     .help = "the air's density ρ (impulse to bodies)"},
    {"specific_heat", CS_KEY_NUMBER, CS_KEY_AT(cs_vorton_params, specific_heat), 1e-3f, 1e7f, .unit = "J/(kg K)",
     .def = "1005", .help = "the air's c_p (heat to bodies)"},
    {"body_specific_heat", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "all 0",
     .help = "a specific heat per body, J/(kg K) (0: a fixed reservoir)"},
    {"smoke", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "on",
     .help = "false or {radius, brightness, hot}: the tracers as smoke sprites"},
    {"no_slip", CS_KEY_ENUM, CS_KEY_AT(cs_vorton_params, no_slip), .flags = CS_KEY_BY_CODE, .choices = "set|flux",
     .def = "\"flux\"", .help = "how a band vorton's tangential vorticity meets a body: replace or add"},
    {"arrows", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "false",
     .help = "true, false or {length, omega, max_length}: the vortons as arrows"},
};

const cs_scene_key_block cs_vorton_keys = {
    .path = "fluids[].vorton",
    .what = "The vorton solver's block (3D, free space; docs/vortons.md). The solver holds what it fills "
            "(cs_vorton_params, vorton.h).",
    .keys = vorton_keys,
    .count = CS_ARRAY_COUNT(vorton_keys),
};

static const cs_scene_key vorton_grid_keys[] = {
    {"cells", CS_KEY_UINT, CS_KEY_AT(cs_vorton_params, grid_cells), 4, 512, .def = "64",
     .help = "grid cells per axis, a power of two; the grid is the cube around the domain box"},
    {"cycles", CS_KEY_UINT, CS_KEY_AT(cs_vorton_params, grid_cycles), 1, 64, .def = "4",
     .help = "multigrid V(2,2) cycles per solve"},
};

const cs_scene_key_block cs_vorton_grid_keys = {
    .path = "fluids[].vorton.grid",
    .what = "The velocity grid of \"velocity\": \"grid\" (cs_vorton_params' grid_* fields).",
    .keys = vorton_grid_keys,
    .count = CS_ARRAY_COUNT(vorton_grid_keys),
};

static bool parse_stretching(const cs_scene *scene, const cJSON *block, uint32_t *out, cs_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(block, "stretching");
    if (!item)
        return true;
    static const char *const names[] = {"transpose", "classical", "none"};
    for (uint32_t k = 0; k < CS_ARRAY_COUNT(names); k++)
        if (cJSON_IsString(item) && strcmp(item->valuestring, names[k]) == 0) {
            *out = k; // VORTON_STRETCH_* in this order
            return true;
        }
    return cs_scene_fail(scene, err, "vorton", "stretching",
                         "must be \"transpose\" (conserves total vorticity), \"classical\" or \"none\"");
}

// "no_slip": "flux" (the default: the wall's vortex sheet of the slip at
// the contact point, spread over the vortons near the wall and added) or
// "set" (the slip's layer replaces the band vorton's vorticity: turns a
// body at rest in a swirl the wrong way; docs/vortons.md "Bodies").
static bool parse_no_slip(const cs_scene *scene, const cJSON *block, uint32_t *out, cs_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(block, "no_slip");
    *out = VORTON_NO_SLIP_FLUX;
    if (!item)
        return true;
    static const char *const names[] = {"set", "flux"};
    for (uint32_t k = 0; k < CS_ARRAY_COUNT(names); k++)
        if (cJSON_IsString(item) && strcmp(item->valuestring, names[k]) == 0) {
            *out = k; // VORTON_NO_SLIP_* in this order
            return true;
        }
    return cs_scene_fail(scene, err, "vorton", "no_slip",
                         "must be \"set\" (replace by the slip's vorticity) or \"flux\" (add it)");
}

static bool parse_velocity(const cs_scene *scene, const cJSON *block, uint32_t *out, cs_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(block, "velocity");
    if (!item)
        return true;
    static const char *const names[] = {"direct", "grid"};
    for (uint32_t k = 0; k < CS_ARRAY_COUNT(names); k++)
        if (cJSON_IsString(item) && strcmp(item->valuestring, names[k]) == 0) {
            *out = k; // VORTON_VELOCITY_* in this order
            return true;
        }
    return cs_scene_fail(scene, err, "vorton", "velocity",
                         "must be \"direct\" (the O(N^2) Biot-Savart sum) or \"grid\" (vortex-in-cell multigrid)");
}

// The grid is the cube around the scene's domain box (same centre, edge =
// its longest side); "grid": {"cells": 64, "cycles": 4}.
static bool parse_grid(const cs_scene *scene, const cJSON *block, cs_vorton_params *p, cs_error *err)
{
    p->grid_cells = 64;
    p->grid_cycles = 4;
    float edge = 0.0f;
    for (int a = 0; a < 3; a++)
        edge = fmaxf(edge, scene->domain_max[a] - scene->domain_min[a]);
    p->grid_size = edge;
    for (int a = 0; a < 3; a++)
        p->grid_origin[a] = 0.5f * (scene->domain_min[a] + scene->domain_max[a]) - 0.5f * edge;
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(block, "grid");
    if (!grid)
        return true;
    if (!cs_scene_keys_read(scene, grid, "vorton.grid", &cs_vorton_grid_keys, p, err))
        return false;
    if (p->grid_cells & (p->grid_cells - 1))
        return cs_scene_fail(scene, err, "vorton.grid", "cells", "must be a power of two (the multigrid halves it)");
    return true;
}

static bool parse_rings(const cs_scene *scene, const cJSON *block, vorton_setup *s, cs_error *err)
{
    static const char *const keys[] = {"centre", "axis", "radius", "core", "circulation", NULL};
    const cJSON *array = cJSON_GetObjectItemCaseSensitive(block, "rings");
    if (!array)
        return true;
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) > VORTON_MAX_RINGS)
        return cs_scene_fail(scene, err, "vorton", "rings", "must be an array of at most %d rings", VORTON_MAX_RINGS);
    for (const cJSON *e = array->child; e; e = e->next) {
        char path[48];
        snprintf(path, sizeof path, "vorton.rings[%u]", s->ring_count);
        cs_vorton_ring *r = &s->rings[s->ring_count++];
        *r = (cs_vorton_ring){.axis = {0, 1, 0}, .radius = 0.5f, .core = 0.1f, .circulation = 1.0f};
        if (!cs_json_check_keys(scene, e, path, keys, err) ||
            !cs_json_vec(scene, e, path, "centre", 3, r->centre, err) ||
            !cs_json_vec(scene, e, path, "axis", 3, r->axis, err) ||
            !cs_json_float(scene, e, path, "radius", 1e-4f, 1e4f, &r->radius, err) ||
            !cs_json_float(scene, e, path, "core", 1e-5f, 1e4f, &r->core, err) ||
            !cs_json_float(scene, e, path, "circulation", -1e6f, 1e6f, &r->circulation, err))
            return false;
        if (!(r->core < r->radius))
            return cs_scene_fail(scene, err, path, "core", "must be smaller than the ring's radius");
        if (!(fabsf(r->axis[0]) + fabsf(r->axis[1]) + fabsf(r->axis[2]) > 0.0f))
            return cs_scene_fail(scene, err, path, "axis", "must not be zero");
    }
    return true;
}

static bool parse_heats(const cs_scene *scene, const cJSON *block, vorton_setup *s, cs_error *err)
{
    static const char *const keys[] = {"centre", "radius", "temperature", NULL};
    const cJSON *array = cJSON_GetObjectItemCaseSensitive(block, "heat");
    if (!array)
        return true;
    if (!cJSON_IsArray(array) || cJSON_GetArraySize(array) > VORTON_MAX_HEATS)
        return cs_scene_fail(scene, err, "vorton", "heat", "must be an array of at most %d balls", VORTON_MAX_HEATS);
    for (const cJSON *e = array->child; e; e = e->next) {
        char path[48];
        snprintf(path, sizeof path, "vorton.heat[%u]", s->heat_count);
        cs_vorton_heat *h = &s->heats[s->heat_count++];
        *h = (cs_vorton_heat){.radius = 0.2f, .temperature = s->params.ambient_temperature};
        if (!cs_json_check_keys(scene, e, path, keys, err) ||
            !cs_json_vec(scene, e, path, "centre", 3, h->centre, err) ||
            !cs_json_float(scene, e, path, "radius", 1e-4f, 1e4f, &h->radius, err) ||
            !cs_json_float(scene, e, path, "temperature", 0.0f, 1e5f, &h->temperature, err))
            return false;
    }
    return true;
}

// "body_specific_heat": [J/(kg K) per scene body, in body order]: a body's
// heat capacity is that times its mass (density x volume, bodies.h); 0 or
// not listed: a fixed reservoir at its body_temperature.
static bool parse_body_specific_heat(const cs_scene *scene, const cJSON *block, cs_vorton_params *p, cs_error *err)
{
    const cJSON *array = cJSON_GetObjectItemCaseSensitive(block, "body_specific_heat");
    if (!array)
        return true;
    if (!cJSON_IsArray(array) || (uint32_t)cJSON_GetArraySize(array) > scene->body_count)
        return cs_scene_fail(scene, err, "vorton", "body_specific_heat",
                             "must be an array of at most one specific heat per body (%u bodies)", scene->body_count);
    uint32_t b = 0;
    for (const cJSON *e = array->child; e; e = e->next, b++) {
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0.0 && e->valuedouble <= 1e6))
            return cs_scene_fail(scene, err, "vorton", "body_specific_heat",
                                 "entry %u must be a specific heat in J/(kg K) (0: a fixed reservoir), at most 1e6", b);
        cs_body_props props;
        cs_body_props_compute(scene, b, &props);
        p->body_heat_capacity[b] = (float)(e->valuedouble * props.mass);
    }
    return true;
}

// "body_temperature": [T per scene body, in body order] (K; 0: adiabatic,
// the default for bodies not listed).
static bool parse_body_temperature(const cs_scene *scene, const cJSON *block, cs_vorton_params *p, cs_error *err)
{
    const cJSON *array = cJSON_GetObjectItemCaseSensitive(block, "body_temperature");
    if (!array)
        return true;
    if (!cJSON_IsArray(array) || (uint32_t)cJSON_GetArraySize(array) > scene->body_count)
        return cs_scene_fail(scene, err, "vorton", "body_temperature",
                             "must be an array of at most one temperature per body (%u bodies)", scene->body_count);
    uint32_t b = 0;
    for (const cJSON *e = array->child; e; e = e->next, b++) {
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0.0 && e->valuedouble <= 1e5))
            return cs_scene_fail(scene, err, "vorton", "body_temperature",
                                 "entry %u must be a temperature in K (0: adiabatic), at most 1e5", b);
        p->body_temperature[b] = (float)e->valuedouble;
    }
    return true;
}

// The hottest heat ball, or T0 + 30 K when none is hotter than T0: the hot
// end of the smoke's colour ramp.
static float hottest(const vorton_setup *s)
{
    float t0 = s->params.ambient_temperature, hot = t0;
    for (uint32_t h = 0; h < s->heat_count; h++)
        hot = fmaxf(hot, s->heats[h].temperature);
    return hot > t0 ? hot : t0 + 30.0f;
}

// "smoke": false draws the tracers as spheres; else {"radius": sigma (m),
// "brightness": b (1/m), "hot": K}, each optional. A sprite is a gaussian
// of standard deviation sigma (default: the tracer spacing s); brightness
// is the colour a metre of smoke adds along a line of sight (default 1.5),
// so one sprite adds b s^3 / (2 pi sigma^2) at its centre (a lattice of
// spacing s has 1/s^3 sprites a m^3, each covering 2 pi sigma^2 of the
// screen plane): the look does not change when the bench scales s.
// Call after the heat balls are parsed (the ramp's hot end).
static bool parse_smoke(const cs_scene *scene, const cJSON *block, vorton_setup *s, cs_error *err)
{
    static const char *const keys[] = {"radius", "brightness", "hot", NULL};
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(block, "smoke");
    if (cJSON_IsFalse(item)) {
        s->smoke = (cs_smoke_style){0};
        return true;
    }
    float spacing = scene->particle_spacing > 0.0f ? scene->particle_spacing : s->spacing;
    float brightness = 1.5f;
    s->smoke = (cs_smoke_style){.radius = spacing, .cool = s->params.ambient_temperature, .hot = hottest(s)};
    if (item && !cJSON_IsObject(item))
        return cs_scene_fail(scene, err, "vorton", "smoke",
                             "must be false (tracers as spheres) or {\"radius\", \"brightness\", \"hot\"}");
    if (item && (!cs_json_check_keys(scene, item, "vorton.smoke", keys, err) ||
                 !cs_json_float(scene, item, "vorton.smoke", "radius", 1e-5f, 1e3f, &s->smoke.radius, err) ||
                 !cs_json_float(scene, item, "vorton.smoke", "brightness", 0.0f, 1e6f, &brightness, err) ||
                 !cs_json_float(scene, item, "vorton.smoke", "hot", 1.0f, 1e5f, &s->smoke.hot, err)))
        return false;
    if (!(s->smoke.hot > s->smoke.cool))
        return cs_scene_fail(scene, err, "vorton.smoke", "hot", "must be above ambient_temperature (%g K)",
                             (double)s->smoke.cool);
    double sigma = s->smoke.radius;
    s->smoke.intensity = (float)(brightness * pow(spacing, 3.0) / (2.0 * 3.14159265358979 * sigma * sigma));
    return true;
}

// "arrows": false (the default: not drawn until the window's O key), true,
// or {"length": m, "omega": 1/s, "max_length": m}, each optional: a vorton
// is drawn as an arrow along its vorticity, `length` long (default 2 sigma)
// at |omega| = `omega` (default: the largest |omega| at the start, else
// 10 1/s), in proportion, at most `max_length` (default 2 length); coloured
// by temperature on the smoke ramp. Call after parse_smoke (the ramp).
static bool parse_arrows(const cs_scene *scene, const cJSON *block, vorton_setup *s, cs_error *err)
{
    static const char *const keys[] = {"length", "omega", "max_length", NULL};
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(block, "arrows");
    float hot = s->smoke.hot > s->params.ambient_temperature ? s->smoke.hot : hottest(s);
    s->arrows = (cs_arrow_style){.cool = s->params.ambient_temperature, .hot = hot, .shown = false};
    if (!item || cJSON_IsFalse(item))
        return true;
    s->arrows.shown = true;
    if (cJSON_IsTrue(item))
        return true;
    if (!cJSON_IsObject(item))
        return cs_scene_fail(scene, err, "vorton", "arrows",
                             "must be true, false or {\"length\", \"omega\", \"max_length\"}");
    return cs_json_check_keys(scene, item, "vorton.arrows", keys, err) &&
           cs_json_float(scene, item, "vorton.arrows", "length", 1e-6f, 1e3f, &s->arrow_length, err) &&
           cs_json_float(scene, item, "vorton.arrows", "omega", 1e-6f, 1e9f, &s->arrow_omega, err) &&
           cs_json_float(scene, item, "vorton.arrows", "max_length", 1e-6f, 1e3f, &s->arrows.max_length, err);
}

// The arrows' scale from the seeded vortons (vort4: count of them): the
// defaults of parse_arrows.
static void finish_arrows(vorton_setup *s, const float *vort4, uint32_t count)
{
    float length = s->arrow_length > 0.0f ? s->arrow_length : 2.0f * s->spacing, omega = s->arrow_omega;
    if (!(omega > 0.0f)) {
        for (uint32_t i = 0; i < count; i++)
            omega = fmaxf(omega, sqrtf(vort4[i * 4] * vort4[i * 4] + vort4[i * 4 + 1] * vort4[i * 4 + 1] +
                                       vort4[i * 4 + 2] * vort4[i * 4 + 2]));
        if (!(omega > 0.0f))
            omega = 10.0f;
    }
    s->arrows.scale = length / omega;
    if (!(s->arrows.max_length > 0.0f))
        s->arrows.max_length = 2.0f * length;
}

static bool setup_from_scene(const cs_scene *scene, vorton_setup *s, cs_error *err)
{
    const cs_scene_key_block *keys = &cs_vorton_keys;
    const cs_scene_key *spacing = cs_scene_key_find(keys, "spacing");
    const cJSON *block = scene->solver_params;
    *s = (vorton_setup){
        // Air: 1.2 kg/m^3, c_p 1005 J/(kg K).
        .params = {.dt = scene->dt, .stretching = VORTON_STRETCH_TRANSPOSE, .ambient_temperature = 300.0f,
                   .density = 1.2f, .specific_heat = 1005.0f},
        // Absent: the fluid's particle_spacing, so `cistern bench` (which
        // scales particle_spacing) scales the vortons with the tracers.
        .spacing = scene->particle_spacing,
    };
    for (int a = 0; a < 3; a++)
        s->params.gravity[a] = scene->gravity[a];
    if (scene->dim != 3)
        return cs_scene_fail(scene, err, "", "dim", "the vorton solver is 3D only (vortex stretching needs a third "
                                                    "axis)");
    if (scene->wall_count || scene->emitter_count)
        return cs_scene_fail(scene, err, "", scene->wall_count ? "walls" : "emitters",
                             "the vorton solver runs in free space (bodies allowed) with tracers from blocks only; "
                             "remove them");
    return cs_scene_keys_check(scene, block, "vorton", keys, err) &&
           cs_json_float(scene, block, "vorton", "spacing", (float)spacing->min, (float)spacing->max, &s->spacing,
                         err) &&
           parse_stretching(scene, block, &s->params.stretching, err) &&
           parse_no_slip(scene, block, &s->params.no_slip, err) &&
           cs_scene_key_read_named(scene, block, "vorton", keys, "viscosity", &s->params, err) &&
           cs_scene_key_read_named(scene, block, "vorton", keys, "diffusivity", &s->params, err) &&
           cs_scene_key_read_named(scene, block, "vorton", keys, "expansion", &s->params, err) &&
           cs_scene_key_read_named(scene, block, "vorton", keys, "ambient_temperature", &s->params, err) &&
           parse_velocity(scene, block, &s->params.velocity, err) && parse_grid(scene, block, &s->params, err) &&
           parse_rings(scene, block, s, err) && parse_heats(scene, block, s, err) &&
           parse_smoke(scene, block, s, err) && parse_arrows(scene, block, s, err) &&
           cs_scene_key_read_named(scene, block, "vorton", keys, "density", &s->params, err) &&
           cs_scene_key_read_named(scene, block, "vorton", keys, "specific_heat", &s->params, err) &&
           parse_body_temperature(scene, block, &s->params, err) &&
           parse_body_specific_heat(scene, block, &s->params, err);
}

bool cs_vorton_params_read(const cs_scene *scene, cs_vorton_params *p, float *spacing, cs_error *err)
{
    vorton_setup *s = malloc(sizeof *s);
    CS_ASSERT(s, "out of host memory");
    memset(s, 0, sizeof *s);
    bool ok = setup_from_scene(scene, s, err);
    if (ok) {
        memcpy(p, &s->params, sizeof *p);
        *spacing = s->spacing;
    }
    free(s);
    return ok;
}

#define VORTON_WALK_POINTS 268435456.0 // 2^28 lattice points

// At least how many vortons the rings and heat balls make, from their
// sizes alone, and the sum as text for a refusal. Every point of a ball
// of radius r - h sqrt(3)/2 lies in the lattice cell (side h) of a point
// inside the ball of radius r, so a heat ball holds at least
// 4/3 pi (r/h - sqrt(3)/2)^3 points; a ring's core (a disc of radius a on
// a square lattice) at least pi (a/h - sqrt(2)/2)^2, times its copies
// around. Checked against the device before the lattice is walked: the
// walk visits (2 r/h + 1)^3 points a ball, an hour at vorton.spacing
// 0.0001.
// *walk gets the lattice points the count's walk would visit.
static double setup_least(const vorton_setup *s, char *terms, size_t size, double *walk)
{
    double h = s->spacing, least = 0.0;
    size_t n = 0;
    terms[0] = 0;
    *walk = 0.0;
    for (uint32_t r = 0; r < s->ring_count; r++)
        *walk += pow(2.0 * floor(s->rings[r].core / h) + 1.0, 2.0);
    for (uint32_t b = 0; b < s->heat_count; b++)
        *walk += pow(2.0 * floor(s->heats[b].radius / h) + 1.0, 3.0);
    for (uint32_t r = 0; r < s->ring_count; r++) {
        double a = s->rings[r].core / h - sqrt(2.0) / 2.0, around = floor(2.0 * VORTON_PI * s->rings[r].radius / h + 0.5);
        double k = (a > 0.0 ? VORTON_PI * a * a : 0.0) * fmax(3.0, around);
        least += k;
        if (n < size)
            n += (size_t)snprintf(terms + n, size - n, "%sring %u: pi (%g/%g - 0.71)^2 x %.0f = %.3g", n ? ", " : "",
                                  r, (double)s->rings[r].core, h, fmax(3.0, around), k);
    }
    for (uint32_t b = 0; b < s->heat_count; b++) {
        double q = s->heats[b].radius / h - sqrt(3.0) / 2.0;
        double k = q > 0.0 ? 4.0 / 3.0 * VORTON_PI * q * q * q : 0.0;
        least += k;
        if (n < size)
            n += (size_t)snprintf(terms + n, size - n, "%sheat ball %u: 4/3 pi (%g/%g - 0.87)^3 = %.3g",
                                  n ? ", " : "", b, (double)s->heats[b].radius, h, k);
    }
    return least;
}

// Every ring, then every heat ball, in file order (a count past
// UINT32_MAX: UINT32_MAX).
static uint32_t setup_fill(const vorton_setup *s, float *pos4, float *vort4, uint32_t capacity)
{
    uint64_t n = 0;
    for (uint32_t r = 0; r < s->ring_count; r++) {
        uint32_t room = capacity - (uint32_t)CS_MIN(n, capacity);
        uint32_t k = cs_vorton_ring_fill(&s->rings[r], s->spacing, pos4 ? pos4 + 4 * n : NULL,
                                         vort4 ? vort4 + 4 * n : NULL, room);
        for (uint32_t i = 0; vort4 && k <= room && i < k; i++)
            vort4[(n + i) * 4 + 3] = s->params.ambient_temperature;
        n += k;
    }
    for (uint32_t h = 0; h < s->heat_count; h++) {
        uint32_t room = capacity - (uint32_t)CS_MIN(n, capacity);
        n += cs_vorton_heat_fill(&s->heats[h], s->spacing, pos4 ? pos4 + 4 * n : NULL, vort4 ? vort4 + 4 * n : NULL,
                                 room);
    }
    return (uint32_t)CS_MIN(n, (uint64_t)UINT32_MAX);
}

// A tracer shows the temperature of the first heat ball it starts in, else
// the ambient one.
static float tracer_temperature(const vorton_setup *s, const float *p)
{
    for (uint32_t h = 0; h < s->heat_count; h++) {
        const cs_vorton_heat *b = &s->heats[h];
        float d2 = 0.0f;
        for (int a = 0; a < 3; a++)
            d2 += (p[a] - b->centre[a]) * (p[a] - b->centre[a]);
        if (d2 <= b->radius * b->radius)
            return b->temperature;
    }
    return s->params.ambient_temperature;
}

// True when p is inside body b of the set (a sphere: within its radius; a
// polytope: behind every plane).
static bool inside_body(const cs_body_set *set, uint32_t b, const float *p)
{
    const cs_body_gpu *body = &set->bodies[b];
    if (body->omega.w > 0.0f) {
        float dx = p[0] - body->centre.x, dy = p[1] - body->centre.y, dz = p[2] - body->centre.z;
        return dx * dx + dy * dy + dz * dz < body->omega.w * body->omega.w;
    }
    for (uint32_t k = 0; k < body->info.y; k++) {
        const vec4 *plane = &set->planes[body->info.x + k];
        if (plane->x * p[0] + plane->y * p[1] + plane->z * p[2] - plane->w >= 0.0f)
            return false;
    }
    return true;
}

// Drops the particles (vec4s, and their companions in `other` when not
// NULL) that start inside a body, keeping the order of the rest; returns
// how many are left. Seeded vortons inside a body would all be ejected
// onto its surface in the first step.
static uint32_t remove_embedded(const cs_body_set *set, float *pos4, float *other4, uint32_t *other1, uint32_t n)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool inside = false;
        for (uint32_t b = 0; b < set->counts.x && !inside; b++)
            inside = inside_body(set, b, &pos4[i * 4]);
        if (inside)
            continue;
        memmove(&pos4[kept * 4], &pos4[i * 4], 16);
        if (other4)
            memmove(&other4[kept * 4], &other4[i * 4], 16);
        if (other1)
            other1[kept] = other1[i];
        kept++;
    }
    return kept;
}

static bool ops_create(cs_context *ctx, const cs_scene *scene, void **state, cs_error *err)
{
    vorton_setup s;
    cs_body_set *set = malloc(sizeof *set); // a quarter megabyte: not on the stack
    CS_ASSERT(set, "out of host memory");
    if (!setup_from_scene(scene, &s, err) || !cs_bodies_set_build(scene, set, err)) {
        free(set);
        return false;
    }
    uint32_t tracers = cs_scene_block_particles(scene);
    char terms[512];
    double walk, least = setup_least(&s, terms, sizeof terms, &walk);
    cs_error inner;
    // A walk of up to VORTON_WALK_POINTS (about a second) counts exactly,
    // and the exact count is checked below; a longer one only once the
    // device holds the least count, so its length follows what fits.
    if (walk > VORTON_WALK_POINTS && least > (double)UINT32_MAX) {
        free(set);
        return cs_fail(err, "%s: vorton.spacing %g makes at least %.3g vortons (%s), past the %u one count can "
                            "hold: raise vorton.spacing (the count goes as 1/spacing^3)",
                       scene->path[0] ? scene->path : scene->name, (double)s.spacing, least, terms, UINT32_MAX);
    }
    if (walk > VORTON_WALK_POINTS &&
        !cs_vorton_check_counts(ctx, &(cs_vorton_counts){.vortons = (uint32_t)least, .tracers = tracers,
                                                          .spacing = s.spacing, .tracer_spacing = scene->particle_spacing,
                                                          .vorton_host_bytes = 2 * 16,
                                                          .tracer_host_bytes = 16 + 16 + 16 + 4},
                                &inner)) {
        free(set);
        return cs_fail(err, "%s: at least (%s): %s", scene->path[0] ? scene->path : scene->name, terms, inner.msg);
    }
    uint32_t count = setup_fill(&s, NULL, NULL, 0);
    // Checked before the host arrays below are filled (they held 1 GB and
    // took seconds for vorton.spacing 0.001, then the device refused).
    cs_vorton_counts counts = {.vortons = count, .tracers = tracers, .spacing = s.spacing,
                               .tracer_spacing = scene->particle_spacing, .vorton_host_bytes = 2 * 16,
                               .tracer_host_bytes = 16 + 16 + 16 + 4};
    if (!cs_vorton_check_counts(ctx, &counts, &inner)) {
        free(set);
        return cs_fail(err, "%s: %s", scene->path[0] ? scene->path : scene->name, inner.msg);
    }
    float *pos = calloc((size_t)CS_MAX(count, tracers) + 1, 16);
    float *vort = calloc((size_t)count + 1, 16);
    float *vel = calloc((size_t)tracers + 1, 16);
    uint32_t *mat = calloc((size_t)tracers + 1, 4);
    setup_fill(&s, pos, vort, count);
    uint32_t kept = remove_embedded(set, pos, vort, NULL, count);
    finish_arrows(&s, vort, kept);
    cs_vorton *v = NULL;
    bool ok = cs_vorton_create(ctx, &s.params, count, tracers, &v, err);
    ok = ok && cs_vorton_set_bodies(v, set, err);
    if (!ok && v)
        cs_vorton_destroy(v);
    if (ok) {
        cs_vorton_upload(v, pos, vort, kept);
        uint32_t written = cs_scene_fill_blocks(scene, pos, vel, mat, tracers);
        written = remove_embedded(set, pos, NULL, mat, written);
        for (uint32_t i = 0; i < written; i++)
            pos[i * 4 + 3] = tracer_temperature(&s, &pos[i * 4]);
        cs_vorton_upload_tracers(v, pos, written);
        v->smoke = s.smoke;
        v->arrows = s.arrows;
        cs_buffer_upload(ctx, &v->tracer_material, mat, (VkDeviceSize)written * 4, 0);
        *state = v;
    }
    free(pos);
    free(vort);
    free(vel);
    free(mat);
    free(set);
    return ok;
}

static void ops_destroy(void *state) { cs_vorton_destroy(state); }

static void ops_record_substep(void *state, cs_recorder *rec, const cs_substep *step)
{
    (void)step; // dt is baked into the parameters (the world keeps one clock)
    cs_vorton_record_step(state, rec);
}

// Reduced on the GPU (vorton.c, cs_vorton_stats): two floats come back.
static void ops_stats(void *state, cs_sim_stats *out) { cs_vorton_stats(state, out); }
// Frames in flight: the same two floats, carried by the frame.
static void ops_record_stats(void *state, cs_recorder *rec) { cs_vorton_record_frame_stats(state, rec); }
static void ops_read_stats(void *state, uint32_t frame_slot, cs_sim_stats *out)
{
    cs_vorton_read_frame_stats(state, frame_slot, out);
}

static void ops_particles(void *state, cs_particle_view *out)
{
    cs_vorton *v = state;
    *out = (cs_particle_view){
        .positions = &v->tracer_pos[v->current],
        .velocities = &v->tracer_vel,
        .densities = &v->tracer_temp,
        .materials = &v->tracer_material,
        .count = v->tracer_count,
        .smoke = v->smoke,
        .arrow_positions = &v->pos[v->current],
        .arrow_vectors = &v->vort[v->current],
        .arrow_count = v->count,
        .arrows = v->arrows,
    };
}

// The world's bodies module republishes the set into v->bodies when bodies
// move, and reduces what collide.comp gave the moving bodies out of
// v->impulses (docs/vortons.md "Bodies").
static void ops_bodies(void *state, cs_body_link *out)
{
    cs_vorton *v = state;
    *out = (cs_body_link){.params = &v->bodies,
                          .set_offset = 0,
                          .impulses = v->impulse_slots ? &v->impulses : NULL,
                          .count = v->count,
                          .capacity = v->capacity};
}

// What a checkpoint saves (sim.h state): the vortons and tracers (both of
// each pair, which is current, the midpoint state and the last rates), the
// bodies' buffer (their set and thermal state), the walls' points and
// shares, the heat exchange's terms, and the velocity grid's box (it
// follows the vortons) and its last solve.
// The bodies' buffer: a cs_body_set as create made it (bodies.h
// cs_body_set_check), then a finite temperature per body.
static bool check_bodies(const void *base, const void *data, size_t bytes, char *why, size_t why_size)
{
    const cs_vorton *v = base;
    uint8_t *fresh = calloc(1, bytes ? bytes : 1);
    if (!fresh)
        return snprintf(why, why_size, "out of host memory to check it"), false;
    if (bytes)
        cs_buffer_download(v->ctx, &v->bodies, fresh, bytes, 0);
    size_t set = CS_MIN(bytes, sizeof(cs_body_set));
    bool ok = cs_body_set_check(data, fresh, set, why, why_size);
    const uint8_t *temperatures = (const uint8_t *)data + set;
    for (size_t i = 0; ok && i < (bytes - set) / 4; i++) {
        float t;
        memcpy(&t, temperatures + 4 * i, sizeof t); // the bytes as read from the file: no alignment promised
        if (!isfinite(t)) {
            snprintf(why, why_size, "body temperature float %zu is %g", i, (double)t);
            ok = false;
        }
    }
    free(fresh);
    return ok;
}

// Each wall point: finite, and w a body + 1 (0: none) of the vortons' bodies.
static bool check_wall_pos(const void *base, const void *data, size_t bytes, char *why, size_t why_size)
{
    const cs_vorton *v = base;
    const float *p = data;
    for (size_t i = 0; i < bytes / 16; i++) {
        const float *q = &p[i * 4];
        if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2]) || !(q[3] >= 0.0f) ||
            q[3] > (float)v->body_count || q[3] != floorf(q[3]))
            return snprintf(why, why_size, "vorton %zu's wall point (%g %g %g, body %g) is not finite or names "
                            "no body of %u", i, (double)q[0], (double)q[1], (double)q[2], (double)q[3],
                            v->body_count), false;
    }
    return true;
}

// The ranges (sim.h cs_state_range), checked before anything is loaded.
// The state proper (the current vortons and tracers) is finite in every
// checkpoint a run writes (the frame loop stops on a non-finite one); the
// midpoints, rates, wall terms, heat terms and the velocity grid are
// written by a pass before any pass reads them, and may hold anything (a
// real checkpoint of vorton_bench_grid_body_3d holds NaN in grid.res):
// any bits.
static const cs_state_row vorton_state_rows[] = {
    CS_STATE_PAIR(cs_vorton, pos, current, CS_FINITE),
    CS_STATE_PAIR(cs_vorton, vort, current, CS_FINITE),
    CS_STATE_BUFFER(cs_vorton, mid_pos, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, mid_vort, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, vel, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, rate, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, rates_partial, CS_ANY_BITS),
    CS_STATE_PAIR(cs_vorton, tracer_pos, current, CS_FINITE),
    CS_STATE_BUFFER(cs_vorton, tracer_mid, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, tracer_vel, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, tracer_temp, CS_ANY_BITS),
    // The view's materials: only drawn, and particles.vert clamps each to its table.
    CS_STATE_BUFFER(cs_vorton, tracer_material, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, bodies, CS_CHECKED(check_bodies)),
    CS_STATE_BUFFER(cs_vorton, wall_pos, CS_CHECKED(check_wall_pos)),
    CS_STATE_BUFFER(cs_vorton, wall_vel, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, wall_weight, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, wall_share, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, impulses, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, heat_terms, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, heat_scratch, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, heat_sums, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, grid.box, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, grid.box_partials, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, grid.psi, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, grid.f, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, grid.res, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, grid.vel, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_vorton, grid.moments, CS_ANY_BITS),
    CS_STATE_HOST(cs_vorton, count, CS_AT_MOST_MEMBER(cs_vorton, capacity)),
    CS_STATE_HOST(cs_vorton, tracer_count, CS_AT_MOST_MEMBER(cs_vorton, tracer_capacity)),
    CS_STATE_HOST(cs_vorton, current, CS_AT_MOST_VALUE(1)),
    CS_STATE_HOST(cs_vorton, steps, CS_ANY_BITS), // a count of steps: any is a time
};

static uint32_t ops_state(void *state, cs_state_entry *out, uint32_t max)
{
    uint32_t n = 0;
    cs_state_expand(vorton_state_rows, CS_ARRAY_COUNT(vorton_state_rows), state, "", out, &n, max);
    return n;
}

// A panel's edits (sim.h): the block is v->params, which every pass's push
// constants are made from (make_push), gravity taken from the scene.
static void *ops_key_block(void *state, const cs_scene_key_block *block)
{
    return block == &cs_vorton_keys ? &((cs_vorton *)state)->params : NULL;
}

static bool ops_retune(void *state, const cs_scene *scene, cs_error *err)
{
    (void)err;
    cs_vorton *v = state;
    for (int a = 0; a < 3; a++)
        v->params.gravity[a] = scene->gravity[a];
    return true;
}

// Vortons carry no material physics: the colour only.
const cs_sim_ops cs_vorton_ops = {
    .state = ops_state,
    .key_block = ops_key_block,
    .retune = ops_retune,
    .solver = "vorton",
    .keys = (const cs_scene_key_block *const[]){&cs_vorton_keys, &cs_vorton_grid_keys, NULL},
    .material_keys = (const char *const[]){"name", "color", NULL},
    .summary = "vortex particles (issue 15): vorticity carriers, direct Biot-Savart velocity, tracers, 3D",
    .create = ops_create,
    .destroy = ops_destroy,
    .record_substep = ops_record_substep,
    .stats = ops_stats,
    .record_stats = ops_record_stats,
    .read_stats = ops_read_stats,
    .particles = ops_particles,
    .bodies = ops_bodies,
};
