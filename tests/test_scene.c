// test_scene.c — the scene parser, the block lattice fill and the particle
// count scaling. CPU only: no Vulkan context is created.
//
//   test_scene                  every check below, corpus replay included
//   test_scene --corpus PATH..  only replays files (or folders of files)
//                               through parse + fill + scale + free; used by
//                               tests/fuzz_replay.sh under valgrind
// ctest labels: quick -- 0.05
#define _POSIX_C_SOURCE 200809L
#include "scene.h"
#include "test_util.h"

#include <dirent.h>
#include <sys/stat.h>

#define SCENE_DIR CS_SOURCE_DIR "/scenes"
#define CORPUS_DIR CS_SOURCE_DIR "/tests/fuzz/corpus/scene"

static bool parse_text(const char *text, cs_scene *scene, cs_error *err)
{
    err->msg[0] = 0;
    return cs_scene_parse(text, strlen(text), "bad.json", scene, err);
}

// ---- bad inputs: each must fail with the file and the key path ------------

#define DOMAIN3 "\"domain\":{\"min\":[0,0,0],\"max\":[1,1,1]}"
#define BASE3 "{\"solver\":\"pbf\",\"pbf\":{}," DOMAIN3 ",\"particle_spacing\":0.1"
#define BLOCK3 ",\"blocks\":[{\"min\":[0,0,0],\"max\":[1,1,1]}]"
#define BASE2 "{\"solver\":\"sph\",\"sph\":{},\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,1]},\"particle_spacing\":0.1"

typedef struct bad_case {
    const char *what;
    const char *text;
    const char *expect[2]; // substrings the message must contain
} bad_case;

static const bad_case bad_cases[] = {
    {"empty file", "", {"bad.json: ", "empty"}},
    {"whitespace only", " \n\t\n", {"bad.json: ", "empty"}},
    {"root is an array", "[1, 2]", {"bad.json: ", "top level must be a JSON object"}},
    {"root is a number", "42", {"bad.json: ", "(got a number)"}},
    {"truncated JSON", "{\n  \"solver\": \"pbf\",\n  \"domain\": {\"min\": [0, 0, 0],\n",
     {"bad.json:4:1: ", "end of file"}},
    {"syntax error mid-file", "{\n  \"dt\": 0.1,,\n  \"substeps\": 2\n}", {"bad.json:2:", "near '  \"dt\": 0.1,,'"}},
    {"NUL byte", "{\"solver\"\0:1}", {"bad.json:1:10: ", "NUL"}},
    {"unknown top-level key", BASE3 ",\"domian\":{}}", {"bad.json: domian: unknown key", "allowed here"}},
    {"unknown nested key", BASE3 ",\"blocks\":[{\"min\":[0,0,0],\"max\":[1,1,1],\"spcing\":0.1}]}",
     {"bad.json: blocks[0].spcing: unknown key", "spacing"}},
    {"duplicate key", BASE3 ",\"dt\":0.01,\"dt\":0.02}", {"bad.json: dt: duplicate key", NULL}},
    {"wrong type", BASE3 ",\"dt\":\"fast\"}", {"bad.json: dt: must be a number (got a string)", NULL}},
    {"bool for a number", BASE3 ",\"substeps\":true}", {"substeps: must be a number (got a boolean)", NULL}},
    {"fractional uint", BASE3 ",\"substeps\":2.5}", {"substeps: must be a whole number (got 2.5)", NULL}},
    {"infinite number", BASE3 ",\"dt\":1e999}", {"dt: must be a finite number", NULL}},
    {"negative spacing",
     BASE3 ",\"blocks\":[{\"min\":[0,0,0],\"max\":[1,1,1]},{\"min\":[0,0,0],\"max\":[1,1,1]},"
           "{\"min\":[0,0,0],\"max\":[1,1,1],\"spacing\":-1}]}",
     {"bad.json: blocks[2].spacing: must be > 0 (got -1)", NULL}},
    {"zero particle_spacing", "{\"solver\":\"pbf\",\"pbf\":{}," DOMAIN3 ",\"particle_spacing\":0}",
     {"particle_spacing: must be > 0 (got 0)", NULL}},
    {"no spacing at all", "{\"solver\":\"pbf\",\"pbf\":{}," DOMAIN3 "}", {"particle_spacing: missing", NULL}},
    {"smoothing radius below spacing", BASE3 ",\"smoothing_radius\":0.05}", {"smoothing_radius: must be >=", NULL}},
    {"dim 4", BASE3 ",\"dim\":4}", {"bad.json: dim: must be 2 or 3 (got 4)", NULL}},
    {"unknown material name", BASE3 ",\"materials\":[{\"name\":\"water\"}],"
                              "\"blocks\":[{\"min\":[0,0,0],\"max\":[1,1,1],\"material\":\"lava\"}]}",
     {"bad.json: blocks[0].material: unknown material \"lava\"", "\"water\""}},
    {"material index out of range", BASE3 ",\"blocks\":[{\"min\":[0,0,0],\"max\":[1,1,1],\"material\":3}]}",
     {"blocks[0].material: must be <= 0 (got 3)", NULL}},
    {"material of wrong type", BASE3 ",\"blocks\":[{\"min\":[0,0,0],\"max\":[1,1,1],\"material\":[0]}]}",
     {"blocks[0].material: must be a material name or index (got an array)", NULL}},
    {"duplicate material name", BASE3 ",\"materials\":[{\"name\":\"a\"},{\"name\":\"a\"}]}",
     {"materials[1].name: \"a\" is already the name of materials[0]", NULL}},
    {"no materials", BASE3 ",\"materials\":[]}", {"materials: must hold at least 1 entry", NULL}},
    {"colour out of range", BASE3 ",\"materials\":[{\"color\":[0,2,0]}]}", {"materials[0].color: component 1", NULL}},
    {"missing domain", "{\"solver\":\"pbf\",\"pbf\":{},\"particle_spacing\":0.1}",
     {"bad.json: domain: missing (required)", NULL}},
    {"missing domain.max", "{\"solver\":\"pbf\",\"pbf\":{},\"domain\":{\"min\":[0,0,0]},\"particle_spacing\":0.1}",
     {"bad.json: domain.max: missing", NULL}},
    {"inverted domain", "{\"solver\":\"pbf\",\"pbf\":{},\"domain\":{\"min\":[0,0,0],\"max\":[1,-1,1]},"
                        "\"particle_spacing\":0.1}",
     {"domain.max: must exceed domain.min", "axis 1"}},
    {"short vector in 3D", "{\"solver\":\"pbf\",\"pbf\":{},\"domain\":{\"min\":[0,0],\"max\":[1,1,1]}}",
     {"domain.min: must be an array of 3 numbers (got 2 elements)", NULL}},
    {"string in a vector", BASE3 ",\"gravity\":[0,\"down\",0]}", {"gravity[1]: must be a number (got a string)", NULL}},
    {"2D vector with z", BASE2 ",\"gravity\":[0,-9.8,1]}", {"bad.json: gravity[2]: must be 0 in a 2D scene", NULL}},
    {"missing solver", "{\"pbf\":{}," DOMAIN3 "}", {"bad.json: fluids: missing", "\"solver\" key"}},
    {"solver not a name", "{\"solver\":\"fl ip\"," DOMAIN3 ",\"particle_spacing\":0.1}",
     {"bad.json: solver: \"fl ip\" is not a solver", "(solvers: \"pbf\""}},
    {"unknown solver without its block", "{\"solver\":\"flip\"," DOMAIN3 "}",
     {"bad.json: solver: \"flip\" is not a solver (solvers: \"pbf\", \"sph\"", NULL}},
    {"misspelled solver", "{\"solver\":\"wcsh\",\"wcsph\":{}," DOMAIN3 "}",
     {"bad.json: solver: \"wcsh\" is not a solver: did you mean \"wcsph\"?", NULL}},
    {"two solver blocks", BASE3 ",\"sph\":{}}", {"bad.json: sph: unknown key", NULL}},
    {"missing solver block", "{\"solver\":\"wcsph\"," DOMAIN3 ",\"particle_spacing\":0.1}",
     {"bad.json: wcsph: missing", NULL}},
    {"solver block not an object", "{\"solver\":\"pbf\",\"pbf\":3," DOMAIN3 "}",
     {"bad.json: pbf: must be an object (got a number)", NULL}},
    {"blocks not an array", BASE3 ",\"blocks\":{}}", {"bad.json: blocks: must be an array (got an object)", NULL}},
    {"block outside domain", BASE3 ",\"blocks\":[{\"min\":[0,0,0],\"max\":[1,2,1]}]}",
     {"bad.json: blocks[0]: box", "outside the domain"}},
    {"block inverted", BASE3 ",\"blocks\":[{\"min\":[0,0.5,0],\"max\":[1,0.2,1]}]}",
     {"blocks[0].max: must exceed min", NULL}},
    {"block thinner than a spacing", BASE3 ",\"blocks\":[{\"min\":[0,0,0],\"max\":[1,0.05,1]}]}",
     {"blocks[0]: holds no particle", NULL}},
    {"block missing max", BASE3 ",\"blocks\":[{\"min\":[0,0,0]}]}", {"blocks[0].max: missing", NULL}},
    {"jitter too large", BASE3 ",\"blocks\":[{\"min\":[0,0,0],\"max\":[1,1,1],\"jitter\":0.7}]}",
     {"blocks[0].jitter: must be <= 0.5 (got 0.7)", NULL}},
    {"too many particles", "{\"solver\":\"pbf\",\"pbf\":{},\"domain\":{\"min\":[0,0,0],\"max\":[1000,1000,1000]},"
                           "\"particle_spacing\":0.01,\"blocks\":[{\"min\":[0,0,0],\"max\":[1000,1000,1000]}]}",
     {"blocks[0]: the blocks so far hold", "limit"}},
    {"too many blocks", BASE3 ",\"blocks\":[{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]}",
     {"blocks: holds 17 entries; at most 16", NULL}},
    {"max_particles below blocks", BASE3 ",\"max_particles\":10,\"blocks\":[{\"min\":[0,0,0],\"max\":[1,1,1]}]}",
     {"max_particles: is 10 but the blocks alone hold 1000", NULL}},
    {"emitter without budget", BASE3 ",\"emitters\":[{\"position\":[0.5,0.5,0.5],\"direction\":[1,0,0]}]}",
     {"bad.json: emitters[0].budget: missing", NULL}},
    {"emitter zero direction", BASE3 ",\"emitters\":[{\"position\":[0.5,0.5,0.5],\"direction\":[0,0,0],"
                               "\"budget\":10}]}",
     {"emitters[0].direction: must be a nonzero vector", NULL}},
    {"emitter outside", BASE3 ",\"emitters\":[{\"position\":[5,0.5,0.5],\"direction\":[1,0,0],\"budget\":10}]}",
     {"emitters[0].position: (5 0.5 0.5) lies outside the domain", NULL}},
    {"wall zero normal", BASE3 BLOCK3 ",\"walls\":[{\"normal\":[0,0,0]}]}", {"walls[0].normal: must be a nonzero", NULL}},
    {"wall without normal", BASE3 ",\"walls\":[{\"offset\":1}]}", {"walls[0].normal: missing", NULL}},
    {"camera up parallel", BASE3 BLOCK3 ",\"camera\":{\"position\":[0,5,0],\"target\":[0,0,0]}}",
     {"camera.up: must not be parallel", NULL}},
    {"camera unknown key", BASE3 BLOCK3 ",\"camera\":{\"fov\":60}}", {"camera.fov: unknown key", NULL}},
    {"render colour mode", BASE3 BLOCK3 ",\"render\":{\"color_mode\":\"rainbow\"}}",
     {"render.color_mode: must be \"material\"", "(got \"rainbow\")"}},
    {"render width", BASE3 BLOCK3 ",\"render\":{\"width\":0}}", {"render.width: must be >= 16 (got 0)", NULL}},
    {"nothing to simulate", BASE3 "}", {"bad.json: blocks: the scene has no particles", NULL}},
    {"nothing to simulate, sph", BASE2 "}", {"bad.json: blocks: the scene has no particles", NULL}},
    {"tiny dt", BASE3 BLOCK3 ",\"dt\":1e-50}", {"dt: 1e-50 is too small for a float", NULL}},
    {"spacing below float resolution", "{\"solver\":\"pbf\",\"pbf\":{},\"domain\":{\"min\":[0,0,0],"
     "\"max\":[1e5,1,1]},\"particle_spacing\":0.01}", {"particle_spacing: 0.01 is below what float", NULL}},
    {"empty key", BASE3 BLOCK3 ",\"\":1}", {"bad.json: \"\": unknown key", NULL}},
    {"name too long", BASE3 ",\"name\":\"0123456789012345678901234567890123456789012345678901234567890123456789\"}",
     {"name: must be shorter than 64 characters", NULL}},
};

static void test_bad_inputs(void)
{
    for (size_t i = 0; i < CS_ARRAY_COUNT(bad_cases); i++) {
        const bad_case *c = &bad_cases[i];
        // The NUL-byte case has to pass its length explicitly.
        size_t size = strcmp(c->what, "NUL byte") == 0 ? 14 : strlen(c->text);
        cs_scene scene;
        cs_error err = {{0}};
        bool ok = cs_scene_parse(c->text, size, "bad.json", &scene, &err);
        CHECK(!ok, "%s: parsed but must fail", c->what);
        CHECK(scene.json == NULL && scene.solver_params == NULL, "%s: no tree kept after a failure", c->what);
        for (int e = 0; e < 2; e++) {
            if (c->expect[e])
                CHECK(strstr(err.msg, c->expect[e]), "%s: message \"%s\" lacks \"%s\"", c->what, err.msg,
                      c->expect[e]);
        }
        cs_scene_free(&scene); // safe after a failure, and twice
        cs_scene_free(&scene);
    }
}

// ---- defaults and the JSON helpers ----------------------------------------

static void test_defaults_and_helpers(void)
{
    cs_scene s;
    cs_error err;
    bool ok = parse_text(BASE3 ",\"blocks\":[{\"min\":[0,0,0],\"max\":[0.5,0.5,0.5]}],"
                               "\"emitters\":[{\"position\":[0.5,0.9,0.5],\"direction\":[0,-2,0],\"budget\":77}]}",
                         &s, &err);
    CHECK(ok, "minimal scene parses: %s", err.msg);
    if (!ok)
        return;
    CHECK(strcmp(s.name, "bad") == 0, "name from the file name: %s", s.name);
    CHECK(s.dim == 3 && s.substeps == 1, "dim %d substeps %u", s.dim, s.substeps);
    CHECK(fabsf(s.dt - 1.0f / 60.0f) < 1e-7f, "dt default 1/60: %g", s.dt);
    CHECK(s.gravity[0] == 0.0f && s.gravity[1] == -9.81f && s.gravity[2] == 0.0f, "gravity default");
    CHECK(s.smoothing_radius == 0.2f, "smoothing radius default 2 x spacing: %g", s.smoothing_radius);
    CHECK(s.material_count == 1 && strcmp(s.materials[0].name, "water") == 0, "one default material");
    CHECK(fabs(s.materials[0].mass - 1000.0 * 0.1 * 0.1 * 0.1) < 1e-5, "default mass rho0 s^3: %g",
          s.materials[0].mass);
    CHECK(s.blocks[0].spacing == 0.1f, "block spacing defaults to particle_spacing");
    CHECK(s.emitters[0].direction[1] == -1.0f, "emitter direction normalised");
    CHECK(s.max_particles == 125 + 77, "max_particles = blocks + budgets: %u", s.max_particles);
    CHECK(cs_scene_block_particles(&s) == 125, "block particles %u", cs_scene_block_particles(&s));
    CHECK(s.render.width == 1280 && s.render.color_mode == CS_COLOR_MATERIAL, "render defaults");
    CHECK(s.solver_params && cJSON_IsObject(s.solver_params), "solver block kept");
    cs_scene_free(&s);

    // A wall keeps the plane the file wrote when it is normalised.
    ok = parse_text(BASE3 BLOCK3 ",\"walls\":[{\"normal\":[-1,1,0],\"offset\":-7}]}", &s, &err);
    CHECK(ok, "wall scene: %s", err.msg);
    if (ok) {
        const cs_wall *w = &s.walls[0];
        CHECK(fabsf(w->normal[0] + sqrtf(0.5f)) < 1e-6f && fabsf(w->normal[1] - sqrtf(0.5f)) < 1e-6f &&
                  w->normal[2] == 0.0f && fabsf(w->offset + 7.0f * sqrtf(0.5f)) < 1e-5f,
              "wall normalised with its offset: (%g %g %g) %g", w->normal[0], w->normal[1], w->normal[2], w->offset);
        cs_scene_free(&s);
    }

    // The helpers the solvers use, on a solver block with mistakes in it.
    ok = parse_text("{\"solver\":\"pbf\"," DOMAIN3 BLOCK3 ",\"particle_spacing\":0.1,"
                    "\"pbf\":{\"iterations\":\"four\",\"relaxation\":-5,\"flag\":1,\"v\":[1,2],\"ok\":7,\"b\":true}}",
                    &s, &err);
    CHECK(ok, "solver block keys are not checked by the parser: %s", err.msg);
    if (!ok)
        return;
    const cJSON *p = s.solver_params;
    uint32_t it = 4;
    float f = 1.0f, v[3] = {9, 9, 9};
    bool b = false;
    static const char *const allowed[] = {"iterations", "relaxation", "v", "ok", "b", NULL};
    CHECK(!cs_json_check_keys(&s, p, "pbf", allowed, &err) && strstr(err.msg, "bad.json: pbf.flag: unknown key"),
          "check_keys: %s", err.msg);
    CHECK(!cs_json_uint(&s, p, "pbf", "iterations", 1, 100, &it, &err) &&
              strstr(err.msg, "bad.json: pbf.iterations: must be a number (got a string)") && it == 4,
          "uint type: %s", err.msg);
    CHECK(!cs_json_float(&s, p, "pbf", "relaxation", 0.0f, 1e6f, &f, &err) &&
              strstr(err.msg, "pbf.relaxation: must be >= 0 (got -5)") && f == 1.0f,
          "float range: %s", err.msg);
    CHECK(!cs_json_uint(&s, p, "pbf", "ok", 1, 5, &it, &err) && strstr(err.msg, "pbf.ok: must be <= 5 (got 7)"),
          "uint max: %s", err.msg);
    CHECK(cs_json_uint(&s, p, "pbf", "ok", 1, 10, &it, &err) && it == 7, "uint in range");
    CHECK(cs_json_float(&s, p, "pbf", "absent", 0, 1, &f, &err) && f == 1.0f, "absent key leaves the default");
    CHECK(cs_json_bool(&s, p, "pbf", "b", &b, &err) && b, "bool");
    CHECK(!cs_json_bool(&s, p, "pbf", "ok", &b, &err) && strstr(err.msg, "pbf.ok: must be true or false"), "bool type");
    CHECK(!cs_json_vec(&s, p, "pbf", "v", 3, v, &err) && strstr(err.msg, "pbf.v: must be an array of 3 numbers") &&
              v[0] == 9.0f,
          "vec length: %s", err.msg);
    CHECK(cs_json_vec(&s, p, "pbf", "v", 2, v, &err) && v[0] == 1.0f && v[1] == 2.0f, "vec2");
    CHECK(cs_json_float(&s, NULL, "pbf", "x", 0, 1, &f, &err), "NULL object: every key absent");
    cs_scene_free(&s);
}

// ---- fill -------------------------------------------------------------------

typedef struct fill_result {
    uint32_t count;
    float *pos, *vel;
    uint32_t *mat;
} fill_result;

static fill_result fill(const cs_scene *s, uint32_t capacity)
{
    fill_result r = {0};
    r.pos = malloc((size_t)capacity * 16 + 16);
    r.vel = malloc((size_t)capacity * 16 + 16);
    r.mat = malloc((size_t)capacity * 4 + 4);
    for (size_t i = 0; i < (size_t)capacity * 4; i++)
        r.pos[i] = r.vel[i] = NAN; // poison: unwritten entries show
    for (size_t i = 0; i < capacity; i++)
        r.mat[i] = CS_POISON_U32;
    r.count = cs_scene_fill_blocks(s, r.pos, r.vel, r.mat, capacity);
    return r;
}

static void fill_free(fill_result *r)
{
    free(r->pos);
    free(r->vel);
    free(r->mat);
}

// Lattice points per axis counted one by one (independent of the parser's
// floor formula): point i exists when its cell [i s, (i + 1) s] fits.
static uint32_t count_axis(double lo, double hi, double s)
{
    uint32_t n = 0;
    while (lo + (n + 1) * s <= hi + 1e-4 * s)
        n++;
    return n;
}

// Every particle lies in its block (the block with its material here), in
// the domain, finite, z = 0 in 2D; returns the particles of block `b` seen.
static void check_fill(const char *what, const cs_scene *s, const fill_result *r, const cs_fluid_block *orig_blocks)
{
    uint32_t index = 0, bad = 0;
    for (uint32_t b = 0; b < s->block_count; b++) {
        const cs_fluid_block *blk = &s->blocks[b];
        const cs_fluid_block *box = orig_blocks ? &orig_blocks[b] : blk;
        uint32_t n = count_axis(blk->min[0], blk->max[0], blk->spacing) *
                     count_axis(blk->min[1], blk->max[1], blk->spacing) *
                     (s->dim == 2 ? 1 : count_axis(blk->min[2], blk->max[2], blk->spacing));
        for (uint32_t i = 0; i < n && index < r->count; i++, index++) {
            const float *p = r->pos + (size_t)index * 4;
            const float *v = r->vel + (size_t)index * 4;
            bool ok = r->mat[index] == blk->material && p[3] == 0.0f && v[3] == 0.0f;
            for (int a = 0; a < 3; a++) {
                ok &= !test_not_finite(p[a]) && !test_not_finite(v[a]);
                ok &= p[a] >= box->min[a] && p[a] <= box->max[a];
                ok &= p[a] >= s->domain_min[a] && p[a] <= s->domain_max[a];
                ok &= v[a] == (s->dim == 2 && a == 2 ? 0.0f : blk->velocity[a]);
            }
            if (s->dim == 2)
                ok &= p[2] == 0.0f;
            if (!ok && bad++ == 0)
                fprintf(stderr, "%s: particle %u (block %u) at (%g %g %g) material %u is wrong\n", what, index, b,
                        p[0], p[1], p[2], r->mat[index]);
        }
    }
    CHECK(bad == 0, "%s: %u particles outside their block or wrong", what, bad);
    CHECK(index == r->count, "%s: fill wrote %u, blocks hold %u", what, r->count, index);
}

static void test_fill(void)
{
    cs_scene s;
    cs_error err;
    // Exact counts: 0.45 / 0.1 holds 4 whole cells, 0.4 / 0.02 exactly 20.
    CHECK(parse_text(BASE3 ",\"materials\":[{\"name\":\"a\"},{\"name\":\"b\"}],\"blocks\":["
                           "{\"min\":[0,0,0],\"max\":[0.45,1,0.3],\"velocity\":[1,2,3],\"material\":\"b\"},"
                           "{\"min\":[0.5,0.5,0.5],\"max\":[0.9,0.9,0.9],\"spacing\":0.02}]}",
                     &s, &err),
          "fill scene: %s", err.msg);
    CHECK(cs_scene_block_particles(&s) == 4 * 10 * 3 + 20 * 20 * 20, "block count %u", cs_scene_block_particles(&s));
    fill_result r = fill(&s, cs_scene_block_particles(&s));
    CHECK(r.count == 8120, "filled %u", r.count);
    check_fill("two blocks", &s, &r, NULL);
    CHECK(r.pos[0] == 0.05f && r.pos[1] == 0.05f && r.pos[2] == 0.05f, "first point at min + s/2");
    CHECK(r.pos[4] == 0.15f && r.pos[5] == 0.05f, "x runs fastest");
    CHECK(r.mat[0] == 1 && r.mat[8119] == 0, "materials per block");

    // A capacity below the count writes exactly the first `capacity`.
    fill_result part = fill(&s, 1000);
    CHECK(part.count == 1000 && memcmp(part.pos, r.pos, 1000 * 16) == 0, "capped fill is a prefix");
    CHECK(cs_scene_fill_blocks(&s, NULL, NULL, NULL, 50) == 50, "NULL outputs are skipped");
    fill_free(&part);
    fill_free(&r);
    cs_scene_free(&s);

    // Jitter: inside the blocks, deterministic, different with another seed.
    const char *jit = BASE3 ",\"seed\":%u,\"blocks\":[{\"min\":[0.1,0.1,0.1],\"max\":[0.9,0.6,0.7],\"jitter\":0.5}]}";
    char text[512];
    fill_result runs[3];
    uint32_t seeds[3] = {7, 7, 8};
    for (int k = 0; k < 3; k++) {
        snprintf(text, sizeof text, jit, seeds[k]);
        CHECK(parse_text(text, &s, &err), "jitter scene: %s", err.msg);
        runs[k] = fill(&s, cs_scene_block_particles(&s));
        check_fill("jitter", &s, &runs[k], NULL);
        cs_scene_free(&s);
    }
    size_t bytes = (size_t)runs[0].count * 16;
    CHECK(runs[0].count == 8 * 5 * 6 && runs[1].count == runs[0].count, "jitter counts %u", runs[0].count);
    CHECK(memcmp(runs[0].pos, runs[1].pos, bytes) == 0, "same seed, same bits");
    CHECK(memcmp(runs[0].pos, runs[2].pos, bytes) != 0, "another seed moves particles");
    bool moved = false;
    for (uint32_t i = 0; i < runs[0].count * 4; i += 4)
        moved |= fabsf(runs[0].pos[i] - (0.1f + 0.05f + 0.1f * (float)((i / 4) % 8))) > 1e-4f;
    CHECK(moved, "jitter moves particles off the lattice");
    for (int k = 0; k < 3; k++)
        fill_free(&runs[k]);

    // 2D: one layer at z = 0, 2-element vectors.
    CHECK(parse_text(BASE2 ",\"blocks\":[{\"min\":[0,0],\"max\":[0.5,0.3],\"velocity\":[1,0],\"jitter\":0.3}]}", &s,
                     &err),
          "2D scene: %s", err.msg);
    r = fill(&s, 100);
    CHECK(r.count == 15, "2D block count %u", r.count);
    check_fill("2D", &s, &r, NULL);
    fill_free(&r);
    cs_scene_free(&s);

    // Random boxes and spacings against the one-by-one count.
    for (int t = 0; t < 200; t++) {
        int dim = 2 + (int)(test_rand_u32() % 2);
        double lo[3], hi[3], sp = 0.01 + 0.2 * test_rand_unit();
        for (int a = 0; a < 3; a++) {
            lo[a] = 2.0 * test_rand_unit() - 1.0;
            hi[a] = lo[a] + sp * (0.5 + 15.0 * test_rand_unit());
        }
        snprintf(text, sizeof text,
                 "{\"solver\":\"pbf\",\"pbf\":{},\"dim\":%d,\"domain\":{\"min\":[-2,-2,%d],\"max\":[6,6,%d]},"
                 "\"particle_spacing\":%.9g,\"seed\":%u,\"blocks\":[{\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g],"
                 "\"jitter\":%.3f}]}",
                 dim, dim == 2 ? 0 : -2, dim == 2 ? 0 : 6, sp, test_rand_u32(), lo[0], lo[1], dim == 2 ? 0 : lo[2],
                 hi[0], hi[1], dim == 2 ? 0 : hi[2], 0.5 * test_rand_unit());
        bool ok = parse_text(text, &s, &err);
        if (!ok) {
            // Only a box thinner than one spacing may be refused.
            CHECK(strstr(err.msg, "holds no particle"), "random block %d: %s", t, err.msg);
            continue;
        }
        const cs_fluid_block *b = &s.blocks[0];
        uint32_t want = count_axis(b->min[0], b->max[0], b->spacing) * count_axis(b->min[1], b->max[1], b->spacing) *
                        (dim == 2 ? 1 : count_axis(b->min[2], b->max[2], b->spacing));
        CHECK(cs_scene_block_particles(&s) == want, "random block %d: count %u, one by one %u", t,
              cs_scene_block_particles(&s), want);
        r = fill(&s, want);
        check_fill("random block", &s, &r, NULL);
        fill_free(&r);
        cs_scene_free(&s);
    }
}

// ---- scale ------------------------------------------------------------------

// The scaled scene must be the same flow at another resolution
// (docs/scenes.md "Particle-count scaling"). Checked through the numbers a
// solver computes per substep, in units of h and dt, written here from the
// solvers' equations (not from scene.c's exponent table): each must keep its
// value. `a` is the scene before scaling, `b` after; k = spacing ratio.
static bool same(double before, double after) { return fabs(after - before) <= 1e-4 * fabs(before) + 1e-30; }

static void check_scaled_physics(const char *name, const cs_scene *a, const cs_scene *b)
{
    double k = (double)b->particle_spacing / a->particle_spacing;
    double ha = a->smoothing_radius, hb = b->smoothing_radius;
    int dim = a->dim;
    // Time: a frame keeps its simulated time, dt' <= k dt (CFL kept or lower),
    // with the fewest substeps that allow it.
    CHECK(same((double)a->dt * a->substeps, (double)b->dt * b->substeps), "%s: frame time %g s -> %g s", name,
          (double)a->dt * a->substeps, (double)b->dt * b->substeps);
    CHECK(b->dt <= k * a->dt * (1 + 1e-5) || b->substeps == 1000, "%s: dt %g -> %g for k = %g: CFL grows", name,
          (double)a->dt, (double)b->dt, k);
    CHECK(b->substeps == 1 || (double)a->dt * a->substeps / (b->substeps - 1) > k * a->dt * (1 - 1e-5),
          "%s: %u -> %u substeps is more than needed for k = %g", name, a->substeps, b->substeps, k);
    double cfl_a = a->dt / ha, cfl_b = b->dt / hb; // v dt / h for the same speeds v
    CHECK(cfl_b <= cfl_a * (1 + 1e-4), "%s: CFL number grows by %g", name, cfl_b / cfl_a);
    CHECK(cfl_b >= cfl_a * 0.5 || b->substeps == 1000, "%s: dt shrank more than needed (CFL x %g)", name,
          cfl_b / cfl_a);
    // Physical inputs stay.
    CHECK(memcmp(a->gravity, b->gravity, sizeof a->gravity) == 0 &&
              memcmp(a->domain_min, b->domain_min, sizeof a->domain_min) == 0 &&
              memcmp(a->domain_max, b->domain_max, sizeof a->domain_max) == 0,
          "%s: gravity and domain unchanged", name);
    for (uint32_t e = 0; e < b->emitter_count; e++) {
        const cs_emitter *ea = &a->emitters[e], *eb = &b->emitters[e];
        double ma = a->materials[ea->material].mass, mb = b->materials[eb->material].mass;
        CHECK(same(ea->rate * ma, eb->rate * mb), "%s: emitter %u mass flow %g -> %g", name, e, ea->rate * ma,
              eb->rate * mb);
        CHECK(eb->budget * mb >= ea->budget * ma * (1 - 1e-4) && (eb->budget - 1) * mb < ea->budget * ma,
              "%s: emitter %u mass %g -> %g", name, e, ea->budget * ma, eb->budget * mb);
        CHECK(eb->speed == ea->speed && eb->width == ea->width && eb->start_time == ea->start_time,
              "%s: emitter %u jet unchanged", name, e);
    }
    for (uint32_t m = 0; m < a->material_count; m++) {
        const cs_material *ma = &a->materials[m], *mb = &b->materials[m];
        double da = a->dt, db = b->dt;
        CHECK(ma->rest_density == mb->rest_density && ma->speed_of_sound == mb->speed_of_sound &&
                  ma->tait_gamma == mb->tait_gamma && ma->viscosity == mb->viscosity,
              "%s: material %u: rest density, c, gamma and alpha / XSPH c unchanged", name, m);
        if (strcmp(a->solver, "sph") == 0) {
            // Relax: dx = dt^2 P N_n / m with N_n ∝ h^-dim; dx / h kept.
            double pa = da * da * ma->stiffness / (ma->mass * pow(ha, dim + 1));
            double pb = db * db * mb->stiffness / (mb->mass * pow(hb, dim + 1));
            CHECK(same(pa, pb), "%s: Clavet pressure displacement / h %g -> %g", name, pa, pb);
            pa = da * da * ma->near_stiffness / (ma->mass * pow(ha, dim + 1));
            pb = db * db * mb->near_stiffness / (mb->mass * pow(hb, dim + 1));
            CHECK(same(pa, pb), "%s: Clavet near-pressure displacement / h %g -> %g", name, pa, pb);
            // Viscosity impulse dt sigma u and dt beta u^2 over u, u ∝ h / dt.
            CHECK(same(da * ma->viscosity_linear, db * mb->viscosity_linear), "%s: sigma dt %g -> %g", name,
                  da * ma->viscosity_linear, db * mb->viscosity_linear);
            CHECK(same(ha * ma->viscosity_quadratic, hb * mb->viscosity_quadratic), "%s: beta h %g -> %g", name,
                  ha * ma->viscosity_quadratic, hb * mb->viscosity_quadratic);
            // Cohesion displacement kappa N_n r (m_j / m_i), over h.
            CHECK(same(ma->surface_tension / pow(ha, dim), mb->surface_tension / pow(hb, dim)),
                  "%s: Clavet cohesion displacement / h", name);
        } else {
            CHECK(ma->stiffness == mb->stiffness && ma->viscosity_linear == mb->viscosity_linear,
                  "%s: Clavet keys of a %s scene unchanged", name, a->solver);
        }
        if (strcmp(a->solver, "wcsph") == 0) {
            // Cohesion acceleration kappa N_n r (m_j / m_i), times dt^2 / h.
            CHECK(same(ma->surface_tension * da * da / pow(ha, dim), mb->surface_tension * db * db / pow(hb, dim)),
                  "%s: WCSPH cohesion (per substep, over h)", name);
            // The CFL split of wcsph.cfl (c dt / (h/2)) keeps or lowers its count.
            CHECK(mb->speed_of_sound * db / hb <= ma->speed_of_sound * da / ha * (1 + 1e-4),
                  "%s: acoustic CFL grows", name);
        }
    }
}

// Blocks that fill their box to the faces (whole spacings per axis) keep
// doing so after a scaling whose target a fitting k reaches within 5%: a gap
// at a wall lets a pool at rest slump into it.
static bool axis_whole(double extent, double spacing)
{
    double x = extent / spacing;
    return fabs(x - round(x)) < 2e-5;
}

static void test_scale(const char *name)
{
    uint32_t targets[] = {16000, 64000, 1000 + test_rand_u32() % 100000, 0};
    for (size_t t = 0; t < CS_ARRAY_COUNT(targets); t++) {
        cs_scene file;
        cs_error err;
        if (!cs_scene_load(name, &file, &err)) {
            CHECK(false, "%s: %s", name, err.msg);
            return;
        }
        // Shipped scenes are worlds of one fluid: scale that fluid's scene.
        cs_scene s = file.fluids[0];
        // Half the spacing is 2^dim times the particles: aim 3% off it, where
        // the bisection alone would pick a k that leaves gaps.
        bool refine = targets[t] == 0;
        if (refine)
            targets[t] = (uint32_t)(cs_scene_block_particles(&s) * pow(2.0, s.dim) * 1.03);
        if (s.block_count == 0) {
            cs_scene before = s;
            cs_scene_scale_particle_count(&s, targets[t]);
            CHECK(memcmp(&before, &s, sizeof s) == 0, "%s: a scene without blocks is left as it is", name);
            cs_scene_free(&file);
            return;
        }
        cs_fluid_block orig[CS_MAX_BLOCKS];
        memcpy(orig, s.blocks, sizeof orig);
        cs_scene before = s; // a copy of the numbers (the JSON tree stays shared, freed once below)
        float ratio = s.smoothing_radius / s.particle_spacing;
        double mass_per_volume = s.materials[0].mass / pow(s.particle_spacing, s.dim);
        uint32_t room = s.max_particles - cs_scene_block_particles(&s);
        uint64_t budgets = 0;
        for (uint32_t e = 0; e < s.emitter_count; e++)
            budgets += s.emitters[e].budget;
        cs_scene_scale_particle_count(&s, targets[t]);
        uint32_t n = cs_scene_block_particles(&s);
        double miss = fabs((double)n - targets[t]) / targets[t];
        printf("scale %-18s to %6u: %6u particles (%+.1f%%), spacing %.5g, %u x dt %.4g\n", name, targets[t], n,
               100.0 * ((double)n / targets[t] - 1.0), s.particle_spacing, s.substeps, (double)s.dt);
        CHECK(miss <= 0.10, "%s: scaled to %u particles for a target of %u", name, n, targets[t]);
        CHECK(fabsf(s.smoothing_radius / s.particle_spacing - ratio) < 1e-4f * ratio, "%s: h / spacing kept", name);
        CHECK(fabs(s.materials[0].mass / pow(s.particle_spacing, s.dim) / mass_per_volume - 1.0) < 1e-4,
              "%s: mass scales with spacing^dim", name);
        uint64_t new_budgets = 0;
        for (uint32_t e = 0; e < s.emitter_count; e++)
            new_budgets += s.emitters[e].budget;
        if (room == budgets)
            CHECK(s.max_particles == n + new_budgets, "%s: max_particles %u = %u + emitter budgets %llu", name,
                  s.max_particles, n, (unsigned long long)new_budgets);
        CHECK(s.max_particles >= n + new_budgets, "%s: max_particles %u holds blocks %u + budgets %llu", name,
              s.max_particles, n, (unsigned long long)new_budgets);
        check_scaled_physics(name, &before, &s);
        for (uint32_t b = 0; refine && b < s.block_count; b++)
            for (int a = 0; a < s.dim; a++) {
                double extent = (double)s.blocks[b].max[a] - s.blocks[b].min[a];
                if (axis_whole(extent, before.blocks[b].spacing))
                    CHECK(axis_whole(extent, s.blocks[b].spacing), "%s: block %u axis %d: %g spacings of %g leave a gap",
                          name, b, a, extent / s.blocks[b].spacing, (double)s.blocks[b].spacing);
            }
        fill_result r = fill(&s, n);
        CHECK(r.count == n, "%s: filled %u of %u", name, r.count, n);
        check_fill(name, &s, &r, orig);
        fill_free(&r);
        cs_scene_free(&file);
    }
}

// Scenes with everything scaling touches: emitters, cohesion, both Clavet
// viscosities, a file head room above the budgets, both directions of k.
static void test_scale_inline(void)
{
    static const char *const texts[] = {
        BASE2 ",\"dt\":0.01,\"substeps\":3,\"smoothing_radius\":0.3,\"materials\":[{\"name\":\"w\",\"mass\":1,"
              "\"rest_density\":82,\"stiffness\":0.08,\"near_stiffness\":0.1,\"viscosity_linear\":0.5,"
              "\"viscosity_quadratic\":1,\"surface_tension\":0.001},{\"name\":\"s\",\"mass\":1.4,"
              "\"rest_density\":114.8,\"viscosity_linear\":2}],"
              "\"blocks\":[{\"min\":[0,0],\"max\":[0.5,0.7]},{\"min\":[0.6,0],\"max\":[1,0.2],\"material\":\"s\"}],"
              "\"emitters\":[{\"position\":[0.8,0.8],\"direction\":[-1,0],\"width\":0.2,\"speed\":2,"
              "\"budget\":300,\"material\":\"s\"}]}",
        BASE2 ",\"dt\":0.01,\"substeps\":1,\"smoothing_radius\":0.25,\"max_particles\":5000,"
              "\"blocks\":[{\"min\":[0,0],\"max\":[1,0.5]}],"
              "\"emitters\":[{\"position\":[0.5,0.9],\"direction\":[0,-1],\"width\":0.3,\"speed\":1,"
              "\"rate\":50,\"budget\":100}]}",
        "{\"solver\":\"wcsph\",\"wcsph\":{}," DOMAIN3 ",\"particle_spacing\":0.05,\"smoothing_radius\":0.12,"
        "\"dt\":0.0005,\"substeps\":7,\"materials\":[{\"name\":\"w\",\"mass\":0.125,\"rest_density\":1000,"
        "\"speed_of_sound\":20,\"surface_tension\":0.3}],\"blocks\":[{\"min\":[0,0,0],\"max\":[1,0.3,1]}]}",
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(texts); i++) {
        uint32_t targets[] = {37, 20000, 64000, 100 + test_rand_u32() % 50000};
        for (size_t t = 0; t < CS_ARRAY_COUNT(targets); t++) {
            cs_scene s;
            cs_error err;
            if (!parse_text(texts[i], &s, &err)) {
                CHECK(false, "inline scene %zu: %s", i, err.msg);
                break;
            }
            cs_scene before = s;
            uint32_t room = s.max_particles - cs_scene_block_particles(&s);
            cs_scene_scale_particle_count(&s, targets[t]);
            char name[64];
            snprintf(name, sizeof name, "inline %zu (%s) at %u", i, s.solver, targets[t]);
            check_scaled_physics(name, &before, &s);
            uint32_t n = cs_scene_block_particles(&s);
            double volume = pow((double)s.particle_spacing / before.particle_spacing, s.dim);
            CHECK(s.max_particles >= n + (uint64_t)(room / volume * (1 - 1e-4)),
                  "%s: head room %u kept per mass (max_particles %u, blocks %u)", name, room, s.max_particles, n);
            cs_scene_free(&s);
        }
    }
}

// ---- shipped scenes -----------------------------------------------------------

static void test_shipped_scenes(void)
{
    static const struct {
        const char *name, *solver;
        int dim;
        uint32_t block_particles, max_particles;
    } expected[] = {
        {"dam_break_3d", "pbf", 3, 16000, 16000},     {"dam_break_2d", "sph", 2, 3024, 3024},
        {"double_emitter_2d", "sph", 2, 0, 3000},      {"wcsph_tank_3d", "wcsph", 3, 8175, 8175},
        {"rest_box_3d", "pbf", 3, 2048, 2048},
    };
    DIR *dir = opendir(SCENE_DIR);
    CHECK(dir, "cannot open %s", SCENE_DIR);
    uint32_t files = 0;
    for (struct dirent *e; dir && (e = readdir(dir));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", SCENE_DIR, e->d_name);
        cs_scene s;
        cs_error err;
        bool ok = cs_scene_load(path, &s, &err);
        CHECK(ok, "shipped scene %s: %s", e->d_name, err.msg);
        files++;
        if (!ok)
            continue;
        CHECK(s.description[0], "%s has a description", s.name);
        CHECK(s.fluid_count >= 1 && !s.first_format, "%s: written in the fluids format", s.name);
        cs_scene file = s;
        for (uint32_t f = 0; f < file.fluid_count; f++) {
            s = file.fluids[f];
            fill_result r = fill(&s, cs_scene_block_particles(&s));
            check_fill(s.name, &s, &r, NULL);
            fill_free(&r);
        }
        s = file.fluids[0];
        for (size_t i = 0; i < CS_ARRAY_COUNT(expected); i++) {
            if (strcmp(s.name, expected[i].name) != 0)
                continue;
            CHECK(strcmp(s.solver, expected[i].solver) == 0 && s.dim == expected[i].dim, "%s: solver %s dim %d",
                  s.name, s.solver, s.dim);
            CHECK(cs_scene_block_particles(&s) == expected[i].block_particles, "%s: %u block particles", s.name,
                  cs_scene_block_particles(&s));
            CHECK(s.max_particles == expected[i].max_particles, "%s: max_particles %u", s.name, s.max_particles);
        }
        cs_scene_free(&file);
    }
    if (dir)
        closedir(dir);
    CHECK(files >= CS_ARRAY_COUNT(expected), "found %u scenes", files);
    for (size_t i = 0; i < CS_ARRAY_COUNT(expected); i++) {
        cs_scene s;
        cs_error err;
        CHECK(cs_scene_load(expected[i].name, &s, &err), "load by bare name %s: %s", expected[i].name, err.msg);
        cs_scene_free(&s);
        test_scale(expected[i].name);
    }

    // Seed 000's emitters, as the seed sets them up.
    cs_scene s;
    cs_error err;
    if (cs_scene_load("double_emitter_2d", &s, &err)) {
        const cs_scene *f = &s.fluids[0];
        CHECK(f->emitter_count == 2 && f->material_count == 2, "two emitters, two materials");
        CHECK(f->emitters[1].start_time == 6.0f && f->emitters[0].budget == 1500, "second jet starts at 6 s");
        CHECK(f->materials[1].mass == 1.4f && f->emitters[1].material == 1, "dense jet uses the heavy material");
        CHECK(fabsf(f->emitters[0].direction[0] - 4.0f / sqrtf(17.0f)) < 1e-6f, "direction (4, 1) normalised");
        CHECK(s.substeps == 7 && fabsf(s.dt * 140.0f - 1.0f) < 1e-4f, "7 substeps of 1/140 s");
        CHECK(f->substeps == 7 && f->dt == s.dt, "the fluid has the world's clock");
        cs_scene_free(&s);
    }
    CHECK(!cs_scene_load("no_such_scene", &s, &err) && strstr(err.msg, "no_such_scene"), "missing scene: %s",
          err.msg);
}

// ---- corpus replay --------------------------------------------------------------

// Parses one file; returns false on a silent failure (no message).
static bool replay_file(const char *path)
{
    cs_error err;
    size_t size = 0;
    char *text = cs_read_file(path, &size, &err);
    if (!text)
        return false;
    cs_scene s;
    err.msg[0] = 0;
    bool ok = cs_scene_parse(text, size, path, &s, &err);
    bool good = ok || err.msg[0] != 0;
    if (ok) {
        for (uint32_t i = 0; i < s.fluid_count; i++) {
            fill_result r = fill(&s.fluids[i], CS_MIN(cs_scene_block_particles(&s.fluids[i]), 4096u));
            fill_free(&r);
        }
        cs_scene_scale_world(&s, 1000);
        cs_scene_free(&s);
    }
    free(text);
    return good;
}

static uint32_t replay(const char *path, uint32_t *failures)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "FAIL: %s does not exist\n", path);
        (*failures)++;
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (!replay_file(path)) {
            fprintf(stderr, "FAIL: %s: refused without a message\n", path);
            (*failures)++;
        }
        return 1;
    }
    uint32_t files = 0;
    DIR *dir = opendir(path);
    for (struct dirent *e; dir && (e = readdir(dir));) {
        if (e->d_name[0] == '.')
            continue;
        char child[1024];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        files += replay(child, failures);
    }
    if (dir)
        closedir(dir);
    return files;
}

// ---- the world format: shared keys and a list of fluids ---------------------

#define WORLD2 "{\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[2,1]},\"dt\":0.005,\"substeps\":2,\"seed\":9," \
               "\"walls\":[{\"normal\":[1,1],\"offset\":0.1}],"
#define POOL "{\"solver\":\"sph\",\"sph\":{},\"domain\":{\"min\":[0,0],\"max\":[1,1]},\"particle_spacing\":0.1," \
             "\"blocks\":[{\"min\":[0,0],\"max\":[1,0.4]}]}"
#define BLOCK "{\"name\":\"block\",\"solver\":\"pbf\",\"pbf\":{\"iterations\":3},\"particle_spacing\":0.05," \
              "\"seed\":4,\"blocks\":[{\"min\":[1.2,0],\"max\":[1.6,0.5]}]}"

static void test_world_format(void)
{
    cs_scene s;
    cs_error err;
    bool ok = parse_text(WORLD2 "\"fluids\":[" POOL "," BLOCK "]}", &s, &err);
    CHECK(ok, "two fluids parse: %s", err.msg);
    if (ok) {
        CHECK(s.fluid_count == 2 && !s.first_format && s.solver[0] == 0, "%u fluids, no solver at the top",
              s.fluid_count);
        const cs_scene *a = &s.fluids[0], *b = &s.fluids[1];
        CHECK(strcmp(a->solver, "sph") == 0 && strcmp(b->solver, "pbf") == 0, "solvers %s %s", a->solver, b->solver);
        CHECK(strcmp(a->fluid_name, "sph") == 0 && strcmp(b->fluid_name, "block") == 0, "names %s %s",
              a->fluid_name, b->fluid_name);
        CHECK(a->domain_max[0] == 1.0f && b->domain_max[0] == 2.0f, "own domain / the world's: %g %g",
              a->domain_max[0], b->domain_max[0]);
        CHECK(a->dim == 2 && b->dim == 2 && a->substeps == 2 && b->dt == 0.005f, "world keys copied");
        CHECK(a->wall_count == 1 && b->wall_count == 1, "walls shared");
        CHECK(a->seed == 9 && b->seed == 4, "seed: world default %u, own %u", a->seed, b->seed);
        CHECK(cs_scene_block_particles(a) == 40 && cs_scene_block_particles(b) == 80, "blocks %u %u",
              cs_scene_block_particles(a), cs_scene_block_particles(b));
        uint32_t iterations = 0;
        CHECK(cs_json_uint(b, b->solver_params, "pbf", "iterations", 1, 100, &iterations, &err) && iterations == 3,
              "solver block of fluid 1");
        // A solver's message names the entry.
        CHECK(!cs_json_uint(b, b->solver_params, "pbf", "iterations", 5, 100, &iterations, &err) &&
                  strstr(err.msg, "bad.json: fluids[1].pbf.iterations: "),
              "solver key path: %s", err.msg);
        cs_scene_free(&s);
    }

    // Bodies: shared by every fluid; the polytope's planes normalised, the
    // orientation turned into a unit quaternion.
    ok = parse_text(WORLD2 "\"fluids\":[" POOL "," BLOCK "],\"bodies\":["
                    "{\"shape\":\"box\",\"size\":[0.2,0.1],\"density\":500,\"position\":[1,0.5],"
                    "\"orientation\":{\"axis\":[0,0,1],\"degrees\":90},\"angular_velocity\":[0,0,2]},"
                    "{\"shape\":\"polytope\",\"static\":true,\"position\":[0.5,0.2],"
                    "\"planes\":[[0,-1,0.1],[0.6,0.8,0.1],[-0.6,0.8,0.1]]}]}",
                    &s, &err);
    CHECK(ok, "bodies parse: %s", err.msg);
    if (ok) {
        const cs_scene *a = &s.fluids[1];
        CHECK(s.body_count == 2 && a->body_count == 2, "bodies: %u, fluid 1 sees %u", s.body_count, a->body_count);
        const cs_body *box = &a->bodies[0], *tri = &a->bodies[1];
        CHECK(box->shape == CS_BODY_BOX && box->density == 500.0f && !box->is_static &&
                  fabsf(box->orientation[2] - sqrtf(0.5f)) < 1e-6f && fabsf(box->orientation[3] - sqrtf(0.5f)) < 1e-6f,
              "box: q = (%g %g %g %g)", box->orientation[0], box->orientation[1], box->orientation[2],
              box->orientation[3]);
        CHECK(tri->shape == CS_BODY_POLYTOPE && tri->is_static && tri->plane_count == 3 && tri->planes[1][0] == 0.6f &&
                  tri->planes[1][3] == 0.1f,
              "polytope: %u planes", tri->plane_count);
        cs_scene_free(&s);
    }
    // Two fluids of one solver get numbered names.
    ok = parse_text(WORLD2 "\"fluids\":[" POOL "," POOL "]}", &s, &err);
    CHECK(ok && strcmp(s.fluids[0].fluid_name, "sph0") == 0 && strcmp(s.fluids[1].fluid_name, "sph1") == 0,
          "numbered names: %s", ok ? s.fluids[1].fluid_name : err.msg);
    cs_scene_free(&s);

    static const struct {
        const char *what, *text, *expect;
    } bad[] = {
        {"error inside fluid 1", WORLD2 "\"fluids\":[" POOL ",{\"solver\":\"pbf\",\"pbf\":{},\"particle_spacing\":0.1,"
                                   "\"blocks\":[{\"min\":[0,0],\"max\":[1,5]}]}]}",
         "bad.json: fluids[1].blocks[0]"},
        {"unknown key in a fluid", WORLD2 "\"fluids\":[{\"solver\":\"sph\",\"sph\":{},\"gravity\":[0,1]}]}",
         "bad.json: fluids[0].gravity: unknown key"},
        {"fluid not an object", WORLD2 "\"fluids\":[3]}", "bad.json: fluids[0]: must be an object"},
        {"no fluids", WORLD2 "\"fluids\":[]}", "bad.json: fluids: must hold at least 1 entry"},
        {"same names", WORLD2 "\"fluids\":[" BLOCK "," BLOCK "]}", "fluids[1].name: \"block\" is already"},
        {"level without file", WORLD2 "\"fluids\":[" POOL "],\"level\":{}}", "bad.json: level.file: missing"},
        {"level not an object", WORLD2 "\"fluids\":[" POOL "],\"level\":\"x.phd\"}", "bad.json: level: must be an object"},
        {"level unknown key", WORLD2 "\"fluids\":[" POOL "],\"level\":{\"file\":\"a.phd\",\"scale\":2}}",
         "bad.json: level.scale: unknown key"},
        {"level scale", WORLD2 "\"fluids\":[" POOL "],\"level\":{\"file\":\"a.phd\",\"units_per_metre\":0}}",
         "bad.json: level.units_per_metre"},
        {"lights need geometry", WORLD2 "\"fluids\":[" POOL "],\"lights\":[]}", "bad.json: lights: needs \"geometry\""},
#define BODY(x) WORLD2 "\"fluids\":[" POOL "],\"bodies\":[" x "]}"
        {"body without shape", BODY("{\"position\":[1,0.5],\"static\":true}"), "bad.json: bodies[0].shape: missing"},
        {"body shape unknown", BODY("{\"shape\":\"cone\",\"position\":[1,0.5]}"), "bodies[0].shape: must be \"box\""},
        {"body key of another shape", BODY("{\"shape\":\"box\",\"size\":[1,1],\"radius\":1,\"position\":[1,0.5]}"),
         "bodies[0].radius: does not belong to a box"},
        {"moving body without density", BODY("{\"shape\":\"box\",\"size\":[0.1,0.1],\"position\":[1,0.5]}"),
         "bodies[0].density: missing"},
        {"density and mass", BODY("{\"shape\":\"sphere\",\"radius\":0.1,\"mass\":1,\"density\":1,\"position\":[1,0.5]}"),
         "bodies[0].mass: give density or mass"},
        {"body outside", BODY("{\"shape\":\"sphere\",\"radius\":0.1,\"mass\":1,\"position\":[3,0.5]}"),
         "bodies[0].position: (3, 0.5, 0) is outside"},
        {"plane not unit", BODY("{\"shape\":\"polytope\",\"static\":true,\"position\":[1,0.5],"
                                "\"planes\":[[2,0,0.1],[-1,0,0.1],[0,1,0.1],[0,-1,0.1]]}"),
         "bodies[0].planes[0]: the normal must have unit length"},
        {"polytope unbounded", BODY("{\"shape\":\"polytope\",\"static\":true,\"position\":[1,0.5],"
                                    "\"planes\":[[1,0,0.1],[-1,0,0.1],[0,1,0.1]]}"),
         "bodies[0].planes: do not bound a finite region"},
        {"polytope origin outside", BODY("{\"shape\":\"polytope\",\"static\":true,\"position\":[1,0.5],"
                                         "\"planes\":[[1,0,-0.1],[-1,0,0.3],[0,1,0.1],[0,-1,0.1]]}"),
         "bodies[0].planes[0]: d must be > 0"},
        {"polytope too few planes", BODY("{\"shape\":\"polytope\",\"static\":true,\"position\":[1,0.5],"
                                         "\"planes\":[[1,0,0.1]]}"),
         "bodies[0].planes: holds 1 planes"},
        {"2D body tilted out of plane", BODY("{\"shape\":\"box\",\"size\":[0.1,0.1],\"static\":true,\"position\":[1,0.5],"
                                             "\"orientation\":{\"axis\":[1,0,0],\"degrees\":30}}"),
         "bodies[0].orientation: a 2D body turns about z only"},
        {"static body moving", BODY("{\"shape\":\"box\",\"size\":[0.1,0.1],\"static\":true,\"position\":[1,0.5],"
                                    "\"velocity\":[1,0]}"),
         "bodies[0].static: a static body has no velocity"},
#undef BODY
        {"fluid keys at the top", WORLD2 "\"fluids\":[" POOL "],\"blocks\":[]}", "bad.json: blocks: unknown key"},
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(bad); i++) {
        ok = parse_text(bad[i].text, &s, &err);
        CHECK(!ok && strstr(err.msg, bad[i].expect), "%s: \"%s\" lacks \"%s\"", bad[i].what, err.msg,
              bad[i].expect);
        CHECK(s.json == NULL && s.fluids == NULL, "%s: nothing kept after a failure", bad[i].what);
        cs_scene_free(&s);
    }

    // The first format reads as a world of one fluid with the same numbers.
    cs_scene first, world;
    bool ok1 = parse_text(BASE2 ",\"dt\":0.01,\"blocks\":[{\"min\":[0,0],\"max\":[1,0.5]}]}", &first, &err);
    bool ok2 = parse_text("{\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,1]},\"dt\":0.01,\"fluids\":[{\"solver\":"
                          "\"sph\",\"sph\":{},\"particle_spacing\":0.1,\"blocks\":[{\"min\":[0,0],\"max\":[1,0.5]}]}]}",
                          &world, &err);
    CHECK(ok1 && ok2, "both formats parse: %s", err.msg);
    if (ok1 && ok2) {
        const cs_scene *a = &first.fluids[0], *b = &world.fluids[0];
        CHECK(first.first_format && first.fluid_count == 1, "first format flagged");
        CHECK(a->dt == b->dt && a->particle_spacing == b->particle_spacing &&
                  a->smoothing_radius == b->smoothing_radius && a->max_particles == b->max_particles &&
                  memcmp(a->blocks, b->blocks, sizeof a->blocks) == 0 &&
                  memcmp(a->materials, b->materials, sizeof a->materials) == 0 &&
                  memcmp(&a->camera, &b->camera, sizeof a->camera) == 0,
              "same fluid from both formats");
        // Scaling either keeps them equal.
        cs_scene_scale_world(&first, 500);
        cs_scene_scale_world(&world, 500);
        CHECK(first.fluids[0].particle_spacing == world.fluids[0].particle_spacing && first.dt == world.dt &&
                  first.substeps == world.substeps,
              "scaled alike: %g %g", first.fluids[0].particle_spacing, world.fluids[0].particle_spacing);
    }
    cs_scene_free(&first);
    cs_scene_free(&world);
}

// ---- "surface" and render.draw ------------------------------------------------

#define WORLD3 "{\"domain\":{\"min\":[0,0,0],\"max\":[1,1,1]},"
#define PBF3 "{\"solver\":\"pbf\",\"pbf\":{},\"particle_spacing\":0.1,\"blocks\":[{\"min\":[0,0,0],\"max\":[0.5,0.5,0.5]}]"
#define REINT3 "{\"solver\":\"reint\",\"reint\":{},\"particle_spacing\":0.1"

static void test_surface_keys(void)
{
    cs_scene s;
    cs_error err;
    // Defaults: off for a particle fluid, on for a 3D reint fluid; draw
    // follows (particles without a surface, surface with one).
    bool ok = parse_text(WORLD3 "\"fluids\":[" PBF3 "}]}", &s, &err);
    CHECK(ok, "pbf world: %s", err.msg);
    if (ok) {
        const cs_surface_options *o = &s.fluids[0].surface;
        CHECK(!o->enabled && o->iso == 0.5f && o->radius == 2.5f && o->cells_per_spacing == 0 && o->cell_size == 0,
              "pbf surface defaults: enabled %d iso %g radius %g", o->enabled, o->iso, o->radius);
        CHECK(s.render.draw == CS_DRAW_PARTICLES && s.fluids[0].render.draw == CS_DRAW_PARTICLES, "draw particles");
        cs_scene_free(&s);
    }
    ok = parse_text(WORLD3 "\"fluids\":[" REINT3 "}]}", &s, &err);
    CHECK(ok && s.fluids[0].surface.enabled && s.render.draw == CS_DRAW_SURFACE &&
              s.fluids[0].render.draw == CS_DRAW_SURFACE,
          "3D reint: surface on by default, drawn: %s", ok ? "" : err.msg);
    cs_scene_free(&s);
    // The top level sets every fluid's defaults; a fluid's own block
    // overrides key by key, a resolution key replacing the other one.
    ok = parse_text(WORLD3 "\"surface\":{\"enabled\":true,\"cell_size\":0.05,\"iso\":0.4},"
                    "\"render\":{\"draw\":\"both\"},\"fluids\":["
                    PBF3 ",\"name\":\"a\"}," PBF3 ",\"name\":\"b\",\"surface\":{\"cells_per_spacing\":3,\"radius\":2}},"
                    REINT3 ",\"surface\":{\"enabled\":false,\"iso\":0.3}}]}",
                    &s, &err);
    CHECK(ok, "surface overrides: %s", err.msg);
    if (ok) {
        const cs_surface_options *a = &s.fluids[0].surface, *b = &s.fluids[1].surface, *c = &s.fluids[2].surface;
        CHECK(a->enabled && a->cell_size == 0.05f && a->cells_per_spacing == 0 && a->iso == 0.4f && a->radius == 2.5f,
              "fluid a takes the top level's: %d %g %g %g", a->enabled, a->cell_size, a->iso, a->radius);
        CHECK(b->enabled && b->cell_size == 0 && b->cells_per_spacing == 3.0f && b->iso == 0.4f && b->radius == 2.0f,
              "fluid b overrides: %g %g %g", b->cell_size, b->cells_per_spacing, b->radius);
        CHECK(!c->enabled && c->iso == 0.3f, "the reint fluid turns its own off");
        CHECK(s.render.draw == CS_DRAW_BOTH && s.fluids[2].render.draw == CS_DRAW_BOTH, "draw both");
        // Messages name the block that holds the key.
        CHECK(!cs_scene_surface_fail(&s.fluids[0], &err, "cell_size", "x") &&
                  strstr(err.msg, "bad.json: surface.cell_size: x"),
              "top-level key path: %s", err.msg);
        CHECK(!cs_scene_surface_fail(&s.fluids[1], &err, "cells_per_spacing", "x") &&
                  strstr(err.msg, "bad.json: fluids[1].surface.cells_per_spacing: x"),
              "fluid key path: %s", err.msg);
        CHECK(!cs_scene_surface_fail(&s.fluids[1], &err, "cell_size", "x") &&
                  strstr(err.msg, "bad.json: surface.cell_size: x"),
              "the top level's key for fluid 1: %s", err.msg);
        cs_scene_free(&s);
    }
    // The first format: "surface" at the top level is the fluid's own.
    ok = parse_text(BASE3 BLOCK3 ",\"surface\":{\"enabled\":true,\"radius\":3}}", &s, &err);
    CHECK(ok && s.fluids[0].surface.enabled && s.fluids[0].surface.radius == 3.0f &&
              s.render.draw == CS_DRAW_SURFACE,
          "first format surface: %s", ok ? "" : err.msg);
    if (ok)
        CHECK(!cs_scene_surface_fail(&s.fluids[0], &err, "radius", "x") && strstr(err.msg, "bad.json: surface.radius"),
              "first-format key path: %s", err.msg);
    cs_scene_free(&s);

    static const struct {
        const char *what, *text, *expect;
    } bad[] = {
        {"unknown surface key", WORLD3 "\"fluids\":[" PBF3 ",\"surface\":{\"enable\":true}}]}",
         "bad.json: fluids[0].surface.enable: unknown key"},
        {"surface not an object", WORLD3 "\"surface\":true,\"fluids\":[" PBF3 "}]}",
         "bad.json: surface: must be an object (got a boolean)"},
        {"enabled not a bool", WORLD3 "\"fluids\":[" PBF3 ",\"surface\":{\"enabled\":1}}]}",
         "bad.json: fluids[0].surface.enabled: must be true or false"},
        {"both resolutions", WORLD3 "\"fluids\":[" PBF3 ",\"surface\":{\"cell_size\":0.1,\"cells_per_spacing\":2}}]}",
         "bad.json: fluids[0].surface.cell_size: give cells_per_spacing or cell_size, not both"},
        {"zero cell size", WORLD3 "\"fluids\":[" PBF3 ",\"surface\":{\"cell_size\":0}}]}",
         "bad.json: fluids[0].surface.cell_size: must be > 0 (got 0)"},
        {"cells per spacing too fine", WORLD3 "\"surface\":{\"cells_per_spacing\":100},\"fluids\":[" PBF3 "}]}",
         "bad.json: surface.cells_per_spacing: must be <= 16 (got 100)"},
        {"negative iso", WORLD3 "\"fluids\":[" PBF3 ",\"surface\":{\"iso\":-1}}]}",
         "bad.json: fluids[0].surface.iso: must be >= 1e-06 (got -1)"},
        {"cells per spacing rounding to 0", WORLD3 "\"fluids\":[" PBF3 ",\"surface\":{\"cells_per_spacing\":1e-300}}]}",
         "bad.json: fluids[0].surface.cells_per_spacing: must be >= 0.01 (got 1e-300)"},
        {"radius too small", WORLD3 "\"fluids\":[" PBF3 ",\"surface\":{\"radius\":0.1}}]}",
         "bad.json: fluids[0].surface.radius: must be >= 0.5 (got 0.1)"},
        {"cell larger than the domain", WORLD3 "\"surface\":{\"enabled\":true,\"cell_size\":2},\"fluids\":[" PBF3 "}]}",
         "bad.json: surface.cell_size: 2 does not fit the domain: it must be below its smallest side (1)"},
        {"cell larger than the fluid's domain", WORLD3 "\"fluids\":[" PBF3 ",\"domain\":{\"min\":[0,0,0],"
         "\"max\":[1,0.5,1]},\"surface\":{\"enabled\":true,\"cell_size\":0.6}}]}",
         "bad.json: fluids[0].surface.cell_size: 0.6 does not fit the domain"},
        {"reint resolution", WORLD3 "\"fluids\":[" REINT3 ",\"surface\":{\"cell_size\":0.1}}]}",
         "bad.json: fluids[0].surface.cell_size: a reint fluid meshes its own cells"},
        {"reint radius", WORLD3 "\"fluids\":[" REINT3 ",\"surface\":{\"radius\":2}}]}",
         "bad.json: fluids[0].surface.radius: a reint fluid meshes its own cells"},
        {"surface in 2D", BASE2 ",\"blocks\":[{\"min\":[0,0],\"max\":[1,1]}],\"surface\":{\"enabled\":true}}",
         "bad.json: surface.enabled: a surface is for 3D scenes (this one has dim 2)"},
        {"surface in a 2D fluid", "{\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[1,1]},\"fluids\":[{\"solver\":"
         "\"sph\",\"sph\":{},\"particle_spacing\":0.1,\"blocks\":[{\"min\":[0,0],\"max\":[1,1]}],"
         "\"surface\":{\"enabled\":true}}]}",
         "bad.json: fluids[0].surface.enabled: a surface is for 3D scenes"},
        {"draw unknown", WORLD3 "\"render\":{\"draw\":\"mesh\"},\"fluids\":[" PBF3 "}]}",
         "bad.json: render.draw: must be \"particles\", \"surface\", \"both\" or \"water\" (got \"mesh\")"},
        {"draw surface without one", WORLD3 "\"render\":{\"draw\":\"surface\"},\"fluids\":[" PBF3 "}]}",
         "bad.json: render.draw: \"surface\" needs a fluid with a surface"},
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(bad); i++) {
        ok = parse_text(bad[i].text, &s, &err);
        CHECK(!ok && strstr(err.msg, bad[i].expect), "%s: \"%s\" lacks \"%s\"", bad[i].what, ok ? "(parsed)" : err.msg,
              bad[i].expect);
        CHECK(s.json == NULL && s.fluids == NULL, "%s: nothing kept after a failure", bad[i].what);
        cs_scene_free(&s);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--corpus") == 0) {
        uint32_t failures = 0, files = 0;
        for (int i = 2; i < argc; i++)
            files += replay(argv[i], &failures);
        printf("replayed %u files, %u failures\n", files, failures);
        return failures || files == 0 ? 1 : 0;
    }
    test_seed();
    test_bad_inputs();
    test_defaults_and_helpers();
    test_fill();
    test_shipped_scenes();
    test_scale_inline();
    test_world_format();
    test_surface_keys();
    uint32_t failures = 0, files = replay(CORPUS_DIR, &failures);
    CHECK(files > 0 && failures == 0, "corpus replay: %u files, %u refused without a message", files, failures);
    if (test_failures)
        fprintf(stderr, "FAIL: %d check(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}
