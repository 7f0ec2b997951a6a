// test_scene_lights.c — the scene keys "radiosity" and "lights"
// (host/scene/scene_lights.c), on the CPU:
//   - scenes/cornell_box.json's radiosity block is read;
//   - every light type read with its values (spot angles in radians, an
//     area light's power turned into exitance = colour x power / area);
//   - a path moves a light: positions at key times, between keys, after
//     the last key, and round again with loop;
//   - refusals name the key path: unknown keys in either block, a wrong
//     type, a key of another light type, bad paths (first time, order,
//     loop not closed), lights or radiosity without geometry, and
//     radiosity.probes: resolution 0, negative, fractional, above 64 or
//     not 3 numbers; rays 0, past 16384 or fractional; every below 1.
// ctest labels: quick -- 0.01
#include "test_util.h"

#include "geometry.h"
#include "scene.h"
#include "scene_lights.h"

#include <string.h>

#define GEOMETRY "\"geometry\": [{\"quad\": {\"vertices\": [[0,0,0], [1,0,0], [1,0,1], [0,0,1]]}}],"

static bool parse_scene(const char *extra, cs_scene *scene, cs_error *err)
{
    char text[8192];
    snprintf(text, sizeof text,
             "{\"dim\": 3, \"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]}, %s"
             " \"fluids\": [{\"solver\": \"pbf\", \"particle_spacing\": 0.1, \"smoothing_radius\": 0.2,"
             " \"materials\": [{\"name\": \"w\", \"rest_density\": 1000, \"mass\": 1}],"
             " \"blocks\": [{\"min\": [0,0,0], \"max\": [0.2,0.2,0.2], \"material\": \"w\"}], \"pbf\": {}}]}",
             extra);
    return cs_scene_parse(text, strlen(text), "lights.json", scene, err);
}

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-5 * fmax(1.0, fabs(b));
}

static void test_cornell(void)
{
    cs_scene scene;
    cs_error err = {0};
    bool ok = cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_box.json", &scene, &err);
    CHECK(ok, "cornell_box.json: %s", err.msg);
    if (!ok)
        return;
    const cs_scene_lighting *l = &scene.geometry->lighting;
    // Bounces until converged (the defaults): test_radiosity_shipped checks the light.
    CHECK(l->radiosity_given && near(l->patch_size, 0.07) && l->bounces == 64 && near(l->tolerance, 1e-3),
          "cornell radiosity: %g, %u, %g", l->patch_size, l->bounces, l->tolerance);
    cs_scene_free(&scene);
}

static void test_values(void)
{
    cs_scene scene;
    cs_error err = {0};
    bool ok = parse_scene(GEOMETRY "\"radiosity\": {\"patch_size\": 0.25, \"bounces\": 5, \"area_samples\": 3},"
                                   "\"lights\": ["
                                   "{\"type\": \"point\", \"position\": [0.5,0.9,0.5], \"color\": [1,0.5,0.25],"
                                   " \"intensity\": 4, \"radius\": 0.05, \"range\": 3},"
                                   "{\"type\": \"spot\", \"position\": [0.5,0.9,0.5], \"direction\": [0,-2,0],"
                                   " \"inner_degrees\": 30, \"outer_degrees\": 60},"
                                   "{\"type\": \"sphere\", \"position\": [0.2,0.5,0.5], \"radius\": 0.1},"
                                   "{\"type\": \"area\", \"corner\": [0.4,0.99,0.4], \"edge_u\": [0.2,0,0],"
                                   " \"edge_v\": [0,0,0.1], \"color\": [1,0.5,0], \"power\": 2},"
                                   "{\"type\": \"point\", \"path\": {\"keys\": [[0, 0.1,0.5,0.5], [2, 0.9,0.5,0.5],"
                                   " [3, 0.9,0.9,0.5], [4, 0.1,0.5,0.5]], \"loop\": true}}],",
                          &scene, &err);
    CHECK(ok, "lights parse: %s", err.msg);
    if (!ok)
        return;
    const cs_scene_lighting *l = &scene.geometry->lighting;
    CHECK(l->radiosity_given && near(l->patch_size, 0.25) && l->bounces == 5 && l->area_samples == 3,
          "radiosity: %g %u %u", l->patch_size, l->bounces, l->area_samples);
    CHECK(l->light_count == 5, "light count %u", l->light_count);
    const cs_scene_light *p = &l->lights[0], *s = &l->lights[1], *a = &l->lights[3], *m = &l->lights[4];
    CHECK(p->type == CS_SCENE_LIGHT_POINT && near(p->color[0], 4) && near(p->color[1], 2) && near(p->color[2], 1) &&
              near(p->radius, 0.05) && near(p->range, 3),
          "point: colour %g %g %g", p->color[0], p->color[1], p->color[2]);
    CHECK(s->type == CS_SCENE_LIGHT_SPOT && near(s->direction[1], -1) && near(s->inner_radians, 3.14159265358979323846 / 6) &&
              near(s->outer_radians, 3.14159265358979323846 / 3),
          "spot: axis y %g, cone %g..%g", s->direction[1], s->inner_radians, s->outer_radians);
    CHECK(l->lights[2].type == CS_SCENE_LIGHT_SPHERE && near(l->lights[2].radius, 0.1), "sphere");
    // 2 W over 0.02 m^2: exitance 100 W/m^2 times the colour.
    CHECK(a->type == CS_SCENE_LIGHT_AREA && near(a->color[0], 100) && near(a->color[1], 50) && a->color[2] == 0.0f &&
              near(a->position[1], 0.99) && near(a->edge_v[2], 0.1),
          "area: exitance %g %g %g", a->color[0], a->color[1], a->color[2]);
    CHECK(m->path_count == 4 && m->path_loop && near(m->position[0], 0.1), "path: %u keys", m->path_count);
    static const struct {
        double t, x, y;
    } along[] = {{0, 0.1, 0.5}, {1, 0.5, 0.5}, {2, 0.9, 0.5}, {2.5, 0.9, 0.7}, {3.5, 0.5, 0.7}, {5, 0.5, 0.5},
                 {8, 0.1, 0.5}};
    for (size_t i = 0; i < CS_ARRAY_COUNT(along); i++) {
        float at[3];
        cs_scene_light_position_at(m, along[i].t, at);
        CHECK(near(at[0], along[i].x) && near(at[1], along[i].y) && near(at[2], 0.5), "t = %g: (%g %g %g), want (%g %g)",
              along[i].t, at[0], at[1], at[2], along[i].x, along[i].y);
    }
    // Without loop the light stays at the last key.
    cs_scene_light held = *m;
    held.path_loop = false;
    float at[3];
    cs_scene_light_position_at(&held, 7.0, at);
    CHECK(near(at[0], 0.1) && near(at[1], 0.5), "held: (%g %g)", at[0], at[1]);
    cs_scene_light_position_at(&held, 3.5, at);
    CHECK(near(at[0], 0.5) && near(at[1], 0.7), "held, between keys: (%g %g)", at[0], at[1]);
    cs_scene_free(&scene);
}

static void test_refusals(void)
{
    static const struct {
        const char *text, *expect;
    } bad[] = {
        {"\"radiosity\": {\"patch_size\": 0.1},", "lights.json: radiosity: needs \"geometry\""},
        {"\"lights\": [],", "lights.json: lights: needs \"geometry\""},
        {GEOMETRY "\"radiosity\": {\"patch\": 0.1},", "lights.json: radiosity.patch: unknown key"},
        {GEOMETRY "\"radiosity\": {\"patch_size\": 0},", "lights.json: radiosity.patch_size: must be above 0"},
        {GEOMETRY "\"radiosity\": {\"bounces\": 1.5},", "lights.json: radiosity.bounces"},
        {GEOMETRY "\"radiosity\": 3,", "lights.json: radiosity: must be an object"},
        // radiosity.probes (host/scene/scene_probes.c); the device's own
        // limit on the probe count is checked where a device is
        // (tests/test_probes.c).
        {GEOMETRY "\"radiosity\": {\"probes\": {\"resolution\": [0, 4, 4]}},",
         "lights.json: radiosity.probes.resolution: must be 3 whole numbers from 1 to 64 (got 0 at 0)"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"resolution\": [4, -2, 4]}},",
         "lights.json: radiosity.probes.resolution: must be 3 whole numbers from 1 to 64 (got -2 at 1)"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"resolution\": [4, 4, 2.5]}},",
         "lights.json: radiosity.probes.resolution: must be 3 whole numbers from 1 to 64 (got 2.5 at 2)"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"resolution\": [4, 65, 4]}},",
         "lights.json: radiosity.probes.resolution: must be 3 whole numbers from 1 to 64 (got 65 at 1)"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"resolution\": [4, 4]}},",
         "lights.json: radiosity.probes.resolution: must be an array of 3 numbers"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"resolution\": 8}},",
         "lights.json: radiosity.probes.resolution: must be an array of 3 numbers"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"rays\": 0}},", "lights.json: radiosity.probes.rays: must be >= 1"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"rays\": 16385}},", "lights.json: radiosity.probes.rays: must be <= 16384"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"rays\": 1e12}},", "lights.json: radiosity.probes.rays: must be <= 16384"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"rays\": 64.5}},", "lights.json: radiosity.probes.rays: must be a whole number"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"every\": 0}},", "lights.json: radiosity.probes.every: must be >= 1"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"every\": 0.5}},", "lights.json: radiosity.probes.every: must be a whole number"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"every\": -1}},", "lights.json: radiosity.probes.every: must be >= 1"},
        {GEOMETRY "\"radiosity\": {\"probes\": {\"ray\": 64}},", "lights.json: radiosity.probes.ray: unknown key"},
        {GEOMETRY "\"radiosity\": {\"probes\": true},", "lights.json: radiosity.probes: must be an object"},
        {GEOMETRY "\"lights\": {},", "lights.json: lights: must be an array"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"position\": [0,0,0], \"watts\": 1}],",
         "lights.json: lights[0].watts: unknown key"},
        {GEOMETRY "\"lights\": [{\"type\": \"laser\", \"position\": [0,0,0]}],",
         "lights.json: lights[0].type: \"laser\" is not a light type"},
        {GEOMETRY "\"lights\": [{\"position\": [0,0,0]}],", "lights.json: lights[0].type: missing"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\"}],", "lights.json: lights[0].position: missing"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"position\": [0,0,0], \"edge_u\": [1,0,0]}],",
         "lights.json: lights[0].edge_u: is not a key of a point light"},
        {GEOMETRY "\"lights\": [{\"type\": \"area\", \"corner\": [0,0,0], \"edge_u\": [1,0,0]}],",
         "lights.json: lights[0].edge_v: missing"},
        {GEOMETRY "\"lights\": [{\"type\": \"area\", \"corner\": [0,0,0], \"edge_u\": [1,0,0], \"edge_v\": [2,0,0]}],",
         "lights.json: lights[0].edge_v: is parallel"},
        {GEOMETRY "\"lights\": [{\"type\": \"sphere\", \"position\": [0,0,0], \"direction\": [0,1,0]}],",
         "lights.json: lights[0].direction: is a spot light's key"},
        {GEOMETRY "\"lights\": [{\"type\": \"spot\", \"position\": [0,0,0]}],",
         "lights.json: lights[0].direction: missing"},
        {GEOMETRY "\"lights\": [{\"type\": \"spot\", \"position\": [0,0,0], \"direction\": [0,-1,0],"
                  " \"inner_degrees\": 40, \"outer_degrees\": 30}],",
         "lights.json: lights[0].outer_degrees: must be above inner_degrees"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"position\": [0,0,0], \"color\": [1,-1,0]}],",
         "lights.json: lights[0].color"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"position\": [0,0,0], \"radius\": 0}],",
         "lights.json: lights[0].radius: must be above 0"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"position\": [0,0,0], \"path\": {\"keys\": [[0,0,0,0],[1,1,1,1]]}}],",
         "lights.json: lights[0].position: not with \"path\""},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"path\": {\"keys\": [[0,0,0,0],[1,1,1,1]], \"speed\": 1}}],",
         "lights.json: lights[0].path.speed: unknown key"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"path\": {\"keys\": [[0,0,0,0]]}}],",
         "lights.json: lights[0].path.keys: must be an array of 2 to 16"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"path\": {\"keys\": [[1,0,0,0],[2,1,1,1]]}}],",
         "lights.json: lights[0].path.keys[0]: the first key's time must be 0"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"path\": {\"keys\": [[0,0,0,0],[1,1,1,1],[1,0,0,0]]}}],",
         "lights.json: lights[0].path.keys[2]: times must increase"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"path\": {\"keys\": [[0,0,0,0],[1,1,1]]}}],",
         "lights.json: lights[0].path.keys[1]: must be [t, x, y, z]"},
        {GEOMETRY "\"lights\": [{\"type\": \"point\", \"path\": {\"keys\": [[0,0,0,0],[1,1,1,1]], \"loop\": true}}],",
         "lights.json: lights[0].path: with loop, the last key's position must equal the first's"},
        {GEOMETRY "\"lights\": [{\"type\": \"area\", \"corner\": [0,0,0], \"edge_u\": [1,0,0], \"edge_v\": [0,0,1],"
                  " \"power\": 1, \"intensity\": 2}],",
         "lights.json: lights[0].power: not with \"intensity\""},
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(bad); i++) {
        cs_scene scene;
        cs_error err = {0};
        bool ok = parse_scene(bad[i].text, &scene, &err);
        CHECK(!ok, "accepted: %s", bad[i].text);
        if (ok) {
            cs_scene_free(&scene);
            continue;
        }
        CHECK(strstr(err.msg, bad[i].expect), "message \"%s\" lacks \"%s\"", err.msg, bad[i].expect);
    }
}

int main(void)
{
    test_seed();
    test_cornell();
    test_values();
    test_refusals();
    if (test_failures)
        fprintf(stderr, "%d check(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}
