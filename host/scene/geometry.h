// geometry.h — a scene's static geometry: the "geometry" key (docs/scenes.md)
// read into one flat triangle list (shaders/geometry/geometry_shared.h), each
// triangle with the diffuse albedo and emission of the element it came from.
//
//   "geometry": [
//     {"box":  {"min": [x,y,z], "max": [x,y,z], "inward": false}, "albedo": [r,g,b]},
//     {"quad": {"vertices": [[x,y,z], [x,y,z], [x,y,z], [x,y,z]]}, "albedo": [...], "emission": [...]},
//     {"mesh": {"file": "bunny.obj", "scale": 1, "translate": [x,y,z]}, "albedo": [...]}
//   ]
//
// A quad is the triangles (v0, v1, v2) and (v0, v2, v3): its front is the
// side its vertices turn counter-clockwise around (it need not be planar).
// A box's faces look out of it, or into it with "inward": true (a room).
// Meshes (OBJ, PLY, glTF, ... through assimp's C API) are read relative to
// the scene file, triangulated, their node transforms applied, then scaled
// and moved. Refused, with the element's key path and the file: a mesh that
// does not parse or has no triangles, points or lines in a mesh, a vertex
// that is not finite, a degenerate triangle (zero area, or so thin that its
// normal is not defined in float: area below 1e-6 of its longest edge
// squared).
#pragma once

#include "scene.h"
#include "scene_lights.h"

#include "../../shaders/geometry/geometry_shared.h"

// Most triangles one scene may hold (keeps every count and byte size in 32 bits).
#define CS_GEOMETRY_MAX_TRIANGLES (1u << 24)
// A triangle whose doubled area |e1 x e2| is below this fraction of its
// longest edge squared is refused as degenerate.
#define CS_GEOMETRY_MIN_SHAPE 1e-6
// Largest emission per channel (W/m^2), as for a light's "intensity" and
// "power": the radiosity and path-tracer sums multiply it by areas, form
// factors and path weights in float, and 1e38 overflowed to infinity.
#define CS_GEOMETRY_MAX_EMISSION 1e9f

typedef struct cs_geometry {
    cs_tri *tris;            // tri_count triangles, in element order
    uint32_t tri_count;
    uint32_t element_count;  // entries of "geometry"
    cs_scene_lighting lighting; // "radiosity" and "lights" (scene_lights.h)
} cs_geometry;

// Reads `array` (the scene's "geometry" value); messages name
// `geometry[i].key` of `scene`'s file. On failure *geometry is empty.
bool cs_geometry_parse(const cs_scene *scene, const cJSON *array, cs_geometry *geometry, cs_error *err);
void cs_geometry_free(cs_geometry *geometry);

// Total area of the triangles (double sum).
double cs_geometry_area(const cs_geometry *geometry);

// False when the triangle is degenerate or has a vertex that is not finite
// (the rule above); *why gets a short reason.
bool cs_geometry_triangle_ok(const float v0[3], const float v1[3], const float v2[3], const char **why);
