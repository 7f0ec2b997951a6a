// level_light.c — see level_light.h.
#include "level_light.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// A face's mean colour is taken over the points of this barycentric lattice
// (136 points): enough to average a 128-texel brick pattern to within a few
// per cent, cheap at level build time.
#define ALBEDO_LATTICE 15

cs_scene_light cs_level_light(const cs_tr1_light *light, double units_per_metre)
{
    double range = light->fade / units_per_metre;
    // Signed: a negative TR1 light darkens (TRX adds room lights signed), so
    // its colour is negative and the direct pass subtracts it
    // (shaders/radiosity/direct.comp). Clamped to the scale's +-8191.
    int intensity = CS_MAX(-8191, CS_MIN((int)light->intensity, 8191));
    float brightness = (float)(intensity / 8191.0 * CS_LEVEL_LIGHT_GAIN);
    return (cs_scene_light){
        .type = CS_SCENE_LIGHT_POINT,
        .position = {(float)(light->x / units_per_metre), (float)(-light->y / units_per_metre),
                     (float)(-light->z / units_per_metre)},
        .radius = (float)(range / CS_LEVEL_LIGHT_RADIUS_DIVISOR),
        .color = {brightness, brightness, brightness},
        .range = (float)range,
    };
}

static double srgb_to_linear(uint32_t byte)
{
    double c = byte / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

void cs_level_face_albedo(const cs_level_mesh *mesh, const cs_level_vertex corners[3], float out[3])
{
    double sum[3] = {0, 0, 0};
    uint32_t opaque = 0;
    for (int i = 0; i <= ALBEDO_LATTICE; i++) {
        for (int j = 0; i + j <= ALBEDO_LATTICE; j++) {
            double a = (double)i / ALBEDO_LATTICE, b = (double)j / ALBEDO_LATTICE, c = 1.0 - a - b;
            float u = (float)(c * corners[0].uv[0] + a * corners[1].uv[0] + b * corners[2].uv[0]);
            float v = (float)(c * corners[0].uv[1] + a * corners[1].uv[1] + b * corners[2].uv[1]);
            uint32_t texel = cs_level_vertex_texel(mesh, &corners[0], u, v);
            if ((texel >> 24) == 0)
                continue;
            for (int k = 0; k < 3; k++)
                sum[k] += srgb_to_linear((texel >> (8 * k)) & 0xffu);
            opaque++;
        }
    }
    for (int k = 0; k < 3; k++)
        out[k] = opaque ? (float)CS_MIN(sum[k] / opaque, CS_LEVEL_MAX_ALBEDO) : 0.0f;
}

static void append(cs_geometry *g, uint32_t *capacity, const cs_tri *tri)
{
    if (g->tri_count == *capacity) {
        *capacity = *capacity ? 2 * *capacity : 256;
        g->tris = realloc(g->tris, (size_t)*capacity * sizeof *g->tris);
        CS_ASSERT(g->tris, "out of memory for %u radiosity triangles", *capacity);
    }
    g->tris[g->tri_count++] = *tri;
}

// The room's triangles (sprites left out) as radiosity triangles.
static void add_room(const cs_level_mesh *mesh, uint32_t room, uint32_t first_element, cs_geometry *g,
                     uint32_t *capacity)
{
    const cs_level_room *r = &mesh->rooms[room];
    for (uint32_t v = r->first_vertex; v + 3 <= r->first_vertex + r->vertex_count; v += 3) {
        const cs_level_vertex *corner = &mesh->vertices[v];
        uint32_t flags = (uint32_t)corner->flags;
        if (flags & CS_LEVEL_VERTEX_SPRITE)
            continue;
        const char *why;
        if (!cs_geometry_triangle_ok(corner[0].position, corner[1].position, corner[2].position, &why))
            continue; // a real level's fanned quads may repeat a vertex: nothing to light there
        cs_tri tri = {.info = {first_element + 2 * room + ((flags & CS_LEVEL_VERTEX_STATIC) ? 1 : 0), v + 1, 0, 0}};
        memcpy(&tri.v0, corner[0].position, sizeof corner[0].position);
        memcpy(&tri.v1, corner[1].position, sizeof corner[1].position);
        memcpy(&tri.v2, corner[2].position, sizeof corner[2].position);
        float albedo[3];
        cs_level_face_albedo(mesh, corner, albedo);
        tri.albedo = (vec4){albedo[0], albedo[1], albedo[2], 0.0f};
        append(g, capacity, &tri);
    }
}

bool cs_level_radiosity_geometry(const cs_tr1_level *level, const cs_level_mesh *mesh,
                                 const cs_geometry *scene_geometry, cs_geometry *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    uint32_t scene_elements = scene_geometry ? scene_geometry->element_count : 0;
    // Without a scene geometry: scene_lights.h's defaults.
    if (scene_geometry) {
        out->lighting = scene_geometry->lighting;
    } else {
        out->lighting = cs_scene_lighting_default();
        out->lighting.hierarchy = false; // as before the defaults had a function
    }
    // Room lights first, then the scene's own.
    uint32_t level_lights = 0;
    for (uint32_t r = 0; r < level->room_count; r++)
        level_lights += level->rooms[r].light_count;
    uint32_t scene_lights = scene_geometry ? scene_geometry->lighting.light_count : 0;
    if (level_lights + scene_lights > CS_MAX_SCENE_LIGHTS)
        return cs_fail(err, "the level's %u room lights and the scene's %u lights are more than %u; remove scene "
                       "\"lights\", or draw the level with its baked light (leave out \"radiosity\")",
                       level_lights, scene_lights, CS_MAX_SCENE_LIGHTS);
    uint32_t n = 0;
    for (uint32_t r = 0; r < level->room_count; r++)
        for (uint32_t l = 0; l < level->rooms[r].light_count; l++)
            out->lighting.lights[n++] = cs_level_light(&level->rooms[r].lights[l], mesh->units_per_metre);
    for (uint32_t l = 0; l < scene_lights; l++)
        out->lighting.lights[n++] = scene_geometry->lighting.lights[l];
    out->lighting.light_count = n;

    uint32_t capacity = 0;
    for (uint32_t r = 0; r < mesh->room_count; r++)
        add_room(mesh, r, scene_elements, out, &capacity);
    for (uint32_t t = 0; scene_geometry && t < scene_geometry->tri_count; t++)
        append(out, &capacity, &scene_geometry->tris[t]);
    out->element_count = scene_elements + 2 * mesh->room_count;
    if (out->tri_count > CS_GEOMETRY_MAX_TRIANGLES) {
        cs_geometry_free(out);
        return cs_fail(err, "the level has more than %u triangles", CS_GEOMETRY_MAX_TRIANGLES);
    }
    return true;
}

bool cs_level_radiosity_load(const char *path, double units_per_metre, const cs_geometry *scene_geometry,
                             cs_geometry *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    cs_tr1_level level;
    if (!cs_tr1_load(path, &level, NULL, err))
        return false;
    cs_level_mesh mesh;
    cs_error inner;
    bool ok = cs_level_mesh_build(&level, units_per_metre, &mesh, &inner) &&
              cs_level_radiosity_geometry(&level, &mesh, scene_geometry, out, &inner);
    cs_level_mesh_free(&mesh); // zeroed by a failed build
    cs_tr1_free(&level);
    return ok || cs_fail(err, "%s: %s", path, inner.msg);
}
