// scene_parse.h — what the scene parser's files share (scene.c, the
// parser; scene_lattice.c, the block lattice and the scaling;
// scene_bodies.c, "bodies"). Internal to host/scene.
#pragma once

#include "scene_json.h"

// floor(extent / spacing) with this slack, so 0.4 / 0.02 counts 20 even when
// the float quotient lands at 19.999998.
#define LATTICE_SLACK 1e-4
// Most lattice points along one axis of a block.
#define AXIS_LIMIT 1e6
// A spacing must stay this many times above the float resolution of the
// domain's coordinates, or neighbouring particles share a position.
#define FLOAT_RESOLUTION 1e-6

// The smallest spacing float positions resolve anywhere in the domain.
float cs_scene_resolution(const cs_scene *scene);
// Lattice points of block b at `spacing` (scene_lattice.c).
uint64_t cs_scene_lattice_count(const cs_scene *scene, const cs_fluid_block *b, float spacing);
// p inside the scene's domain, with `slack` on every side.
bool cs_scene_inside_domain(const cs_scene *scene, const float *p, float slack);
// root[key] as an array of min..max entries (*out NULL, *count 0 when absent).
bool cs_json_array(const cs_scene *scene, const cJSON *root, const char *key, uint32_t min, uint32_t max,
                   const cJSON **out, uint32_t *count, cs_error *err);
// A Clavet fluid's material: every key the entry (NULL: none) leaves out
// gets its scale-free default (scene_clavet.c); other solvers: nothing.
void cs_clavet_material_defaults(const cs_scene *scene, const cJSON *entry, cs_material *m);
// "bodies" into scene->bodies (scene_bodies.c).
bool cs_scene_parse_bodies(cs_scene *scene, const cJSON *root, cs_error *err);
