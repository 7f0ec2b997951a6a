// scene_probes.h — "radiosity": {"probes": {...}}: light probes over the
// scene geometry's bounds (pipelines/light/probes.h), read with the radiosity
// block (scene_lights.c). docs/scenes.md, "Static geometry".
//
//   "probes": {"resolution": [8, 8, 8], "rays": 256, "every": 1}
//
// resolution: probes per axis (1 to 64 each; one at the centre of each cell
// of the geometry's bounding box); rays: K directions a probe gathers (1 to
// 16384, default 256); every: update the probes every N frames (default 1).
#pragma once

#include "scene.h"

typedef struct cs_scene_probes {
    bool given;              // the radiosity block had "probes"
    uint32_t resolution[3];
    uint32_t rays;
    uint32_t every;
} cs_scene_probes;

// Reads `block` (the "probes" object) into *out; messages name
// radiosity.probes.key.
bool cs_scene_probes_read(const cs_scene *scene, const cJSON *block, cs_scene_probes *out, cs_error *err);
