// scene_lights.h — the scene keys that light a scene's static geometry:
// "radiosity" (how finely it is cut and how many bounces) and "lights"
// (point, spot, sphere and quad area lights, each optionally moving along
// a path). docs/scenes.md, "Static geometry"; docs/light.md, "Radiosity".
//
//   "radiosity": {"patch_size": 0.05, "bounces": 64, "tolerance": 0.001, "area_samples": 4, "exposure": 4,
//                 "hierarchy": true, "feedback": false},
//   "lights": [
//     {"type": "point",  "position": [x,y,z], "radius": 0.02, "color": [r,g,b], "intensity": 1, "range": 3},
//     {"type": "spot",   "position": [...], "direction": [...], "inner_degrees": 20, "outer_degrees": 30, ...},
//     {"type": "sphere", "position": [...], "radius": 0.05, ...},
//     {"type": "area",   "corner": [...], "edge_u": [...], "edge_v": [...], "color": [...], "power": 10},
//     {"type": "point",  "path": {"keys": [[0, x,y,z], [2, x,y,z], [4, x,y,z]], "loop": true}, ...}
//   ]
//
// A path has the shape of a kinematic body's (docs/scenes.md, bodies):
// keys [t, x, y, z], 2 to CS_MAX_LIGHT_PATH_KEYS, the first at t = 0, t
// strictly increasing; with "loop" the last position must equal the first.
// It moves the light's position (an area light's corner) and replaces
// "position" / "corner". Both keys are read only with "geometry": today the
// lights light the radiosity of the geometry, nothing else.
#pragma once

#include "scene.h"
#include "scene_probes.h"

#define CS_MAX_SCENE_LIGHTS 64
#define CS_MAX_LIGHT_PATH_KEYS 16

typedef enum cs_scene_light_type {
    CS_SCENE_LIGHT_POINT,
    CS_SCENE_LIGHT_SPOT,
    CS_SCENE_LIGHT_SPHERE,
    CS_SCENE_LIGHT_AREA,
} cs_scene_light_type;

typedef struct cs_scene_light {
    cs_scene_light_type type;
    // point, spot, sphere: the centre; area: the corner (at t = 0 with a path)
    float position[3];
    float radius;            // point, spot, sphere (m); default 0.02
    // rgb times intensity: irradiance at d = 0 facing the light (point,
    // spot, sphere); an area light's exitance M (W/m^2, or power / area)
    float color[3];
    float range;             // d_max of the light's window (CS_WINDOW_RATIONAL); default 10
    float direction[3];      // spot: unit axis
    float inner_radians, outer_radians; // spot half-angles
    float edge_u[3], edge_v[3];         // area: the quad, front towards edge_u x edge_v
    float path[CS_MAX_LIGHT_PATH_KEYS][4]; // [t, x, y, z]
    uint32_t path_count;     // 0: the light stays put
    bool path_loop;
} cs_scene_light;

typedef struct cs_scene_lighting {
    bool radiosity_given;    // the scene had a "radiosity" block
    double patch_size;       // m; default 0.05
    uint32_t bounces;        // the most gathers a frame; default 64
    // Fewer when the reflected light has converged: the bounces after which
    // it grows by at most tolerance of itself (world_radiosity.c measures it
    // on the CPU at the lights' t = 0 places); 0: always `bounces`. Default 1e-3.
    double tolerance;
    uint32_t area_samples;   // an area light's s x s shadow-ray grid; default 4
    double exposure;         // drawn colour x / (1 + x), x = exposure B; default 4
    cs_scene_probes probes;  // "radiosity.probes" (scene_probes.h); probes.given false without it
    bool hierarchy;          // links through the k-means cluster tree (radiosity_cluster.h); default true
    bool feedback;           // one gather a frame on the previous frame's (docs/light.md "Feedback"); default false
    cs_scene_light lights[CS_MAX_SCENE_LIGHTS];
    uint32_t light_count;
} cs_scene_lighting;

// The "radiosity" block's defaults (the rows of scene_key_tables.c say the
// same): patch_size 0.05, bounces 64, tolerance 1e-3, area_samples 4,
// exposure 4, hierarchy on, feedback off.
cs_scene_lighting cs_scene_lighting_default(void);

// Reads "radiosity" and "lights" of the file's root object into *out
// (defaults first). `has_geometry`: the scene has "geometry"; without it
// either key is refused. Messages: `file: lights[2].path.keys[1]: what`.
bool cs_scene_lighting_parse(const cs_scene *scene, const cJSON *root, bool has_geometry, cs_scene_lighting *out,
                             cs_error *err);

// Where a light is at time t (seconds): its position (area: corner) moved
// along its path, straight between keys, held after the last key or, with
// loop, round again.
void cs_scene_light_position_at(const cs_scene_light *light, double t, float out[3]);
