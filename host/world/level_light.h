// level_light.h — a TR1 level lit by radiosity (docs/levels.md, "Lit by
// radiosity"): the rooms' faces (and their placed static meshes) become
// radiosity triangles in world space, each with the mean colour of its
// texture as its albedo, and the rooms' lights become scene point lights.
// The world compiles them with the scene's own "geometry" and "lights"
// (world_radiosity.c); the renderer draws them like any radiosity geometry.
//
// Light mapping (TR1 room light: position, intensity, fade):
//   position  the TR1 point in the world frame (level_mesh.h)
//   range     fade / units_per_metre: the window (CS_WINDOW_DEFAULT,
//             pipelines/light/light.h) reaches 0 there, as TR1's light does
//   radius    range / CS_LEVEL_LIGHT_RADIUS_DIVISOR: the plain attenuation
//             is 1/25 at the fade distance, the window takes it to 0
//   colour    white x intensity / 8191 x CS_LEVEL_LIGHT_GAIN (TR1 room
//             lights: 0 off .. 8191 full; unlike the vertex light and the
//             ambient, where 0 is bright: from memory, unsure)
#pragma once

#include "geometry.h"
#include "level_mesh.h"
#include "scene_lights.h"

#define CS_LEVEL_LIGHT_GAIN 8.0
#define CS_LEVEL_LIGHT_RADIUS_DIVISOR 4.0
// Albedos are kept below this, so that no patch reflects all it receives.
#define CS_LEVEL_MAX_ALBEDO 0.9

// One TR1 room light as a scene point light (the mapping above).
cs_scene_light cs_level_light(const cs_tr1_light *light, double units_per_metre);

// The mean linear colour of a level triangle's texture (or its palette
// colour), over a fixed lattice of points inside it, transparent texels
// left out (black when all are); clamped to CS_LEVEL_MAX_ALBEDO.
void cs_level_face_albedo(const cs_level_mesh *mesh, const cs_level_vertex corners[3], float out[3]);

// The radiosity geometry of a level: every room triangle and static mesh
// face of `mesh` (sprites left out, degenerate triangles skipped) then the
// triangles of `scene_geometry` (may be NULL); lighting: the level's room
// lights, then the scene's own lights (at most CS_MAX_SCENE_LIGHTS in all),
// and the scene's radiosity settings. A level triangle's element is
// first_element + 2 room (+1 for a static mesh), after the scene's
// elements; its info.y is its first vertex in `mesh` + 1 (the renderer
// textures it from there). On failure *out is empty.
bool cs_level_radiosity_geometry(const cs_tr1_level *level, const cs_level_mesh *mesh,
                                 const cs_geometry *scene_geometry, cs_geometry *out, cs_error *err);

// The same, reading and building the level from its file.
bool cs_level_radiosity_load(const char *path, double units_per_metre, const cs_geometry *scene_geometry,
                             cs_geometry *out, cs_error *err);
