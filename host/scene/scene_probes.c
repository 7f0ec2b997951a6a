// scene_probes.c — "radiosity.probes" (scene_probes.h has the format).
#include "scene_probes.h"

#include "scene_keys.h"

#define PROBES_PATH "radiosity.probes"

bool cs_scene_probes_read(const cs_scene *scene, const cJSON *block, cs_scene_probes *out, cs_error *err)
{
    *out = (cs_scene_probes){.resolution = {4, 4, 4}, .rays = 256, .every = 1};
    if (!cJSON_IsObject(block))
        return cs_scene_fail(scene, err, "radiosity", "probes",
                             "must be an object {\"resolution\": [8, 8, 8], \"rays\": 256, \"every\": 1}");
    float resolution[3] = {4, 4, 4};
    // resolution by code (whole numbers, its message); rays and every by rows.
    if (!cs_scene_keys_check(scene, block, PROBES_PATH, cs_scene_probe_keys, err) ||
        !cs_json_vec(scene, block, PROBES_PATH, "resolution", 3, resolution, err) ||
        !cs_scene_key_read_named(scene, block, PROBES_PATH, cs_scene_probe_keys, "rays", out, err) ||
        !cs_scene_key_read_named(scene, block, PROBES_PATH, cs_scene_probe_keys, "every", out, err))
        return false;
    for (int a = 0; a < 3; a++) {
        float r = resolution[a];
        if (!(r >= 1.0f && r <= 64.0f && r == (float)(uint32_t)r))
            return cs_scene_fail(scene, err, PROBES_PATH, "resolution",
                                 "must be 3 whole numbers from 1 to 64 (got %g at %d)", r, a);
        out->resolution[a] = (uint32_t)r;
    }
    out->given = true;
    return true;
}
