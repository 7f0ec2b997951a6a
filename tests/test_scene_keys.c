// test_scene_keys.c — the scene key table (host/scene/scene_keys.h). CPU only.
//   - every block's rows are well formed (unique keys, a field for every row
//     the table reads, arrays and objects read by code);
//   - every row whose default is a plain value ("0.5", "[0, -9.81, 0]",
//     "\"material\"", "true") holds it after parsing a scene that gives none
//     of those keys: the docs' defaults are the parser's;
//   - a panel's access: locate a block's entries, get and set through rows,
//     with the range checks;
//   - an unknown key names the nearest row ("did you mean").
// ctest labels: quick -- 0.01 (the key table's rows, defaults and get/set)
#define _POSIX_C_SOURCE 200809L
#include "fluid_pbf.h"
#include "fluid_sph.h"
#include "fluid_wcsph.h"
#include "reint.h"
#include "geometry.h"
#include "scene.h"
#include "scene_keys.h"
#include "solvers.h"
#include "vorton.h"
#include "test_util.h"

#include <stdlib.h>

static const char scene_text[] =
    "{\"dim\": 3, \"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]},"
    " \"geometry\": [{\"quad\": {\"vertices\": [[0,0,0], [1,0,0], [1,0,1], [0,0,1]]}}],"
    " \"radiosity\": {\"probes\": {}}, \"lights\": [{\"type\": \"point\", \"position\": [0.5, 0.5, 0.5]}],"
    " \"walls\": [{\"normal\": [0, 1, 0]}], \"camera\": {}, \"render\": {}, \"surface\": {},"
    " \"bodies\": [{\"shape\": \"sphere\", \"radius\": 0.1, \"density\": 500, \"position\": [0.5, 0.8, 0.5]}],"
    " \"fluids\": [{\"solver\": \"pbf\", \"particle_spacing\": 0.1,"
    " \"materials\": [{}],"
    " \"blocks\": [{\"min\": [0,0,0], \"max\": [0.2,0.2,0.2]}],"
    " \"emitters\": [{\"position\": [0.5, 0.5, 0.5], \"direction\": [0, -1, 0], \"budget\": 10}],"
    " \"pbf\": {}}]}";

static void check_rows(const cs_scene_key_block *b)
{
    for (uint32_t k = 0; k < b->count; k++) {
        const cs_scene_key *r = &b->keys[k];
        for (uint32_t j = 0; j < k; j++)
            CHECK(strcmp(b->keys[j].key, r->key) != 0, "%s: key %s twice", b->path, r->key);
        CHECK(r->help && r->help[0], "%s.%s: no help", b->path, r->key);
        if (r->type == CS_KEY_OBJECT || r->type == CS_KEY_ARRAY)
            CHECK(r->flags & CS_KEY_BY_CODE, "%s.%s: an object or array is read by code", b->path, r->key);
        if (!(r->flags & CS_KEY_BY_CODE))
            CHECK(r->size > 0, "%s.%s: read by the table but stored nowhere", b->path, r->key);
        if (r->type == CS_KEY_ENUM)
            CHECK(r->choices && r->choices[0], "%s.%s: an enum without choices", b->path, r->key);
        if (r->type == CS_KEY_NUMBER || r->type == CS_KEY_UINT)
            CHECK(r->min <= r->max, "%s.%s: min %g > max %g", b->path, r->key, r->min, r->max);
    }
}

// The row's default, when it is a plain value, against what the parser left.
static uint32_t check_default(const cs_scene_key_block *b, const cs_scene_key *r, const void *base)
{
    if (!r->def || r->size == 0 || (r->flags & CS_KEY_REQUIRED))
        return 0;
    const char *d = r->def;
    double want[3];
    uint32_t n = 0;
    if (r->type == CS_KEY_ENUM && d[0] == '"') {
        char word[64];
        size_t len = strcspn(d + 1, "\"");
        if (d[1 + len] != '"' || d[2 + len] != 0)
            return 0;
        snprintf(word, sizeof word, "%.*s", (int)len, d + 1);
        int index = 0;
        const char *c = r->choices;
        for (; c; index++) {
            size_t l = strcspn(c, "|");
            if (l == len && strncmp(c, word, l) == 0)
                break;
            c = c[l] ? c + l + 1 : NULL;
        }
        CHECK(c != NULL, "%s.%s: default %s is not a choice", b->path, r->key, d);
        want[0] = index, n = 1;
    } else if (r->type == CS_KEY_BOOL && (strcmp(d, "true") == 0 || strcmp(d, "false") == 0)) {
        want[0] = strcmp(d, "true") == 0, n = 1;
    } else if (d[0] == '[') {
        const char *c = d + 1;
        char *end;
        while (n < 3) {
            want[n] = strtod(c, &end);
            if (end == c)
                return 0;
            n++;
            c = end;
            while (*c == ' ' || *c == ',')
                c++;
            if (*c == ']')
                break;
        }
        if (*c != ']' || c[1] != 0)
            return 0;
    } else {
        char *end;
        want[0] = strtod(d, &end);
        if (end == d || *end != 0)
            return 0;
        n = 1;
    }
    for (uint32_t c = 0; c < n; c++) {
        double got = cs_scene_key_get(r, base, c);
        double expect = r->type == CS_KEY_UINT || r->type == CS_KEY_ENUM || r->type == CS_KEY_BOOL ? want[c]
                        : r->size == sizeof(double) ? (double)(float)want[c]
                                                    : (float)want[c];
        CHECK(got == expect, "%s.%s: the docs' default is %s, the parser left %g (component %u)", b->path, r->key,
              d, got, c);
    }
    return 1;
}

static void test_defaults(void)
{
    cs_scene s;
    cs_error err = {0};
    bool ok = cs_scene_parse(scene_text, strlen(scene_text), "keys.json", &s, &err);
    CHECK(ok, "the test scene: %s", err.msg);
    if (!ok)
        return;
    uint32_t n, checked = 0, blocks_located = 0;
    const cs_scene_key_block *const *blocks = cs_scene_key_blocks(&n);
    for (uint32_t b = 0; b < n; b++) {
        check_rows(blocks[b]);
        CHECK(blocks[b]->locate != NULL, "%s: no locate()", blocks[b]->path);
        // A fluid's blocks are found in the fluid's scene.
        bool in_fluid = strncmp(blocks[b]->path, "fluids[].", 9) == 0;
        void *base = blocks[b]->locate(in_fluid ? &s.fluids[0] : &s, 0);
        CHECK(base != NULL, "%s: locate() found no entry 0 in the test scene", blocks[b]->path);
        if (!base)
            continue;
        blocks_located++;
        for (uint32_t k = 0; k < blocks[b]->count; k++)
            checked += check_default(blocks[b], &blocks[b]->keys[k], base);
    }
    // The solvers' blocks: pbf's params as the solver reads them.
    uint32_t solver_blocks = 0;
    for (int i = 0; cs_sim_registry[i]; i++)
        for (int k = 0; cs_sim_registry[i]->keys && cs_sim_registry[i]->keys[k]; k++, solver_blocks++)
            check_rows(cs_sim_registry[i]->keys[k]);
    CHECK(solver_blocks >= 3, "the solvers name %u key blocks (pbf, vorton, vorton.grid at least)", solver_blocks);
    cs_pbf_params p;
    CHECK(cs_pbf_params_read(&s.fluids[0], &p, &err), "pbf: %s", err.msg);
    for (uint32_t k = 0; k < cs_pbf_keys.count; k++)
        checked += check_default(&cs_pbf_keys, &cs_pbf_keys.keys[k], &p);
    cs_scene_free(&s);
    // The vortons' block, empty: its defaults.
    static const char vorton_text[] =
        "{\"dim\": 3, \"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]}, \"fluids\": [{\"solver\": \"vorton\","
        " \"particle_spacing\": 0.1, \"blocks\": [{\"min\": [0,0,0], \"max\": [0.2,0.2,0.2]}], \"vorton\": {}}]}";
    cs_vorton_params *v = calloc(1, sizeof *v);
    float spacing;
    ok = cs_scene_parse(vorton_text, strlen(vorton_text), "keys.json", &s, &err) &&
         cs_vorton_params_read(&s.fluids[0], v, &spacing, &err);
    CHECK(ok, "the vorton scene: %s", err.msg);
    for (uint32_t k = 0; ok && k < cs_vorton_keys.count; k++)
        checked += check_default(&cs_vorton_keys, &cs_vorton_keys.keys[k], v);
    for (uint32_t k = 0; ok && k < cs_vorton_grid_keys.count; k++)
        checked += check_default(&cs_vorton_grid_keys, &cs_vorton_grid_keys.keys[k], v);
    free(v);
    if (ok)
        cs_scene_free(&s);
    // sph, wcsph and reint with empty blocks: their defaults.
    static const char *const solvers[] = {"sph", "wcsph", "reint"};
    for (uint32_t k = 0; k < CS_ARRAY_COUNT(solvers); k++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"dim\": 3, \"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]}, \"fluids\": [{\"solver\": \"%s\","
                 " \"particle_spacing\": 0.1, \"blocks\": [{\"min\": [0,0,0], \"max\": [0.2,0.2,0.2]}], \"%s\": {}}]}",
                 solvers[k], solvers[k]);
        ok = cs_scene_parse(text, strlen(text), "keys.json", &s, &err);
        CHECK(ok, "the %s scene: %s", solvers[k], err.msg);
        if (!ok)
            continue;
        void *base = calloc(1, sizeof(cs_sph) + sizeof(cs_wcsph) + sizeof(cs_reint_params));
        const cs_scene_key_block *b = k == 0 ? &cs_sph_keys : k == 1 ? &cs_wcsph_keys : &cs_reint_keys;
        bool read = k == 0   ? cs_sph_read_block(&s.fluids[0], base, &err)
                    : k == 1 ? cs_wcsph_read_block(&s.fluids[0], base, &err)
                             : cs_reint_params_from_scene(&s.fluids[0], base, &err);
        CHECK(read, "%s block: %s", solvers[k], err.msg);
        for (uint32_t r = 0; read && r < b->count; r++)
            checked += check_default(b, &b->keys[r], base);
        free(base);
        cs_scene_free(&s);
    }
    printf("defaults: %u rows checked in %u blocks\n", checked, blocks_located + 6);
    CHECK(checked >= 70, "only %u defaults checked", checked);
}

static void test_panel(void)
{
    cs_scene s;
    cs_error err = {0};
    if (!cs_scene_parse(scene_text, strlen(scene_text), "keys.json", &s, &err))
        return;
    const cs_scene_key_block *mats = cs_scene_key_block_find("fluids[].materials[]");
    CHECK(mats == cs_scene_material_keys, "block lookup by path");
    cs_material *m = mats->locate(&s.fluids[0], 0);
    CHECK(m == &s.fluids[0].materials[0] && mats->locate(&s.fluids[0], 1) == NULL, "materials[] located");
    const cs_scene_key *visc = cs_scene_key_find(mats, "viscosity_linear");
    CHECK(visc && (visc->flags & CS_KEY_LIVE), "viscosity_linear: a live row");
    CHECK(cs_scene_key_set(visc, m, 0, 2.5, &err) && m->viscosity_linear == 2.5f, "set a number: %s", err.msg);
    CHECK(cs_scene_key_get(visc, m, 0) == 2.5, "get it back");
    CHECK(!cs_scene_key_set(visc, m, 0, -1.0, &err) && strstr(err.msg, "viscosity_linear: must be >= 0 (got -1)"),
          "a number below its range: %s", err.msg);
    CHECK(!cs_scene_key_set(visc, m, 0, 2e6, &err) && strstr(err.msg, "must be <= 1e+06"), "above: %s", err.msg);
    CHECK(m->viscosity_linear == 2.5f, "a refused value leaves the field");
    const cs_scene_key *rho = cs_scene_key_find(mats, "rest_density");
    CHECK(!cs_scene_key_set(rho, m, 0, 0.0, &err) && strstr(err.msg, "must be > 0"), "positive: %s", err.msg);
    const cs_scene_key *color = cs_scene_key_find(mats, "color");
    CHECK(cs_scene_key_set(color, m, 1, 0.25, &err) && m->color[1] == 0.25f, "a colour component");
    CHECK(!cs_scene_key_set(color, m, 3, 0.25, &err), "component 3 of a colour");
    CHECK(!cs_scene_key_set(color, m, 0, 1.5, &err) && strstr(err.msg, "[0, 1]"), "a colour out of range");
    // Gravity: a vector of the world with a per-component limit.
    const cs_scene_key *g = cs_scene_key_find(cs_scene_world_keys, "gravity");
    cs_scene *world = cs_scene_world_keys->locate(&s, 0);
    CHECK(cs_scene_key_get(g, world, 1) == -9.81f, "gravity y");
    CHECK(cs_scene_key_set(g, world, 1, -3.0, &err) && s.gravity[1] == -3.0f, "set gravity y");
    CHECK(!cs_scene_key_set(g, world, 1, -2e4, &err), "gravity beyond its limit");
    // Integers, booleans and enums.
    const cs_scene_key *bounces = cs_scene_key_find(cs_scene_radiosity_keys, "bounces");
    cs_scene_lighting *l = cs_scene_radiosity_keys->locate(&s, 0);
    CHECK(l == &s.geometry->lighting, "radiosity located");
    CHECK(cs_scene_key_set_int(bounces, l, 5, &err) && cs_scene_key_get_int(bounces, l) == 5 && l->bounces == 5,
          "set an integer");
    CHECK(!cs_scene_key_set(bounces, l, 0, 2.5, &err) && strstr(err.msg, "whole number"), "not whole: %s",
          err.msg);
    CHECK(!cs_scene_key_set_int(bounces, l, 65, &err), "an integer above its range");
    const cs_scene_key *feedback = cs_scene_key_find(cs_scene_radiosity_keys, "feedback");
    CHECK(!cs_scene_key_get_bool(feedback, l) && cs_scene_key_set_bool(feedback, l, true, &err) && l->feedback,
          "set a bool");
    const cs_scene_key *mode = cs_scene_key_find(cs_scene_render_keys, "color_mode");
    cs_render_options *r = cs_scene_render_keys->locate(&s, 0);
    CHECK(cs_scene_key_set_int(mode, r, 1, &err) && r->color_mode == CS_COLOR_SPEED, "set an enum");
    CHECK(!cs_scene_key_set_int(mode, r, 3, &err), "an enum past its choices");
    const cs_scene_key *pos = cs_scene_key_find(cs_scene_light_keys, "position");
    cs_scene_light *light = cs_scene_light_keys->locate(&s, 0);
    CHECK(cs_scene_key_set(pos, light, 0, 0.25, &err) && light->position[0] == 0.25f, "move a light");
    CHECK(cs_scene_light_keys->locate(&s, 1) == NULL, "one light");
    // A row that is not stored cannot be set.
    const cs_scene_key *intensity = cs_scene_key_find(cs_scene_light_keys, "intensity");
    CHECK(isnan(cs_scene_key_get(intensity, light, 0)) && !cs_scene_key_set(intensity, light, 0, 1.0, &err),
          "intensity is folded into color");
    // A solver's block: the panel passes the solver's params.
    cs_pbf_params p;
    CHECK(cs_pbf_params_read(&s.fluids[0], &p, &err), "pbf");
    const cs_scene_key *xsph = cs_scene_key_find(&cs_pbf_keys, "xsph");
    CHECK(cs_scene_key_set(xsph, &p, 0, 0.05, &err) && p.xsph == 0.05f, "pbf xsph");
    CHECK(!cs_scene_key_set(xsph, &p, 0, 1.5, &err), "pbf xsph above 1");
    cs_scene_free(&s);
}

// The solver reads its block when the world is made: parse, then read it.
static void expect_pbf_refusal(const char *text, const char *what)
{
    cs_scene s;
    cs_error err = {0};
    cs_pbf_params p;
    bool ok = cs_scene_parse(text, strlen(text), "bad.json", &s, &err);
    CHECK(ok, "%s", err.msg);
    if (!ok)
        return;
    ok = cs_pbf_params_read(&s.fluids[0], &p, &err);
    CHECK(!ok && strstr(err.msg, what), "expected \"%s\", got \"%s\"", what, ok ? "(read)" : err.msg);
    cs_scene_free(&s);
}

static void expect_refusal(const char *text, const char *what)
{
    cs_scene s;
    cs_error err = {0};
    bool ok = cs_scene_parse(text, strlen(text), "bad.json", &s, &err);
    CHECK(!ok && strstr(err.msg, what), "expected \"%s\", got \"%s\"", what, ok ? "(parsed)" : err.msg);
    if (ok)
        cs_scene_free(&s);
}

// The test scene with `from` replaced by `to`.
static void with(char *text, size_t size, const char *from, const char *to)
{
    const char *at = strstr(scene_text, from);
    CS_ASSERT(at, "no %s in the test scene", from);
    snprintf(text, size, "%.*s%s%s", (int)(at - scene_text), scene_text, to, at + strlen(from));
}

static void test_messages(void)
{
    char text[4096];
    with(text, sizeof text, "\"materials\": [{}]", "\"materials\": [{\"viscosty\": 1}]");
    expect_refusal(text, "bad.json: fluids[0].materials[0].viscosty: unknown key (did you mean \"viscosity\"?");
    with(text, sizeof text, "\"render\": {}", "\"render\": {\"draw\": 3}");
    expect_refusal(text, "bad.json: render.draw: must be \"particles\", \"surface\", \"both\" or \"water\" (got a number)");
    with(text, sizeof text, "\"render\": {}", "\"render\": {\"color_mode\": \"sped\"}");
    expect_refusal(text, "bad.json: render.color_mode: must be \"material\", \"speed\" or \"density\" (got \"sped\")");
    with(text, sizeof text, "\"pbf\": {}", "\"pbf\": {\"xsph\": 2}");
    expect_pbf_refusal(text, "bad.json: fluids[0].pbf.xsph: must be <= 1 (got 2)");
    with(text, sizeof text, "\"pbf\": {}", "\"pbf\": {\"iteration\": 2}");
    expect_pbf_refusal(text, "bad.json: fluids[0].pbf.iteration: unknown key (did you mean \"iterations\"?");
    // A misspelled solver names the value, the nearest solver and the list
    // (it was once "fluids[0].pbf: unknown key", about the block).
    with(text, sizeof text, "\"solver\": \"pbf\"", "\"solver\": \"pfb\"");
    expect_refusal(text, "bad.json: fluids[0].solver: \"pfb\" is not a solver: did you mean \"pbf\"? (solvers: "
                   "\"pbf\", \"sph\", \"wcsph\", \"dfsph\", \"reint\", \"vorton\";");
    with(text, sizeof text, "\"solver\": \"pbf\"", "\"solver\": \"flip\"");
    expect_refusal(text, "bad.json: fluids[0].solver: \"flip\" is not a solver (solvers: \"pbf\"");
    // A real solver with another solver's block: the block is named.
    with(text, sizeof text, "\"solver\": \"pbf\"", "\"solver\": \"wcsph\"");
    expect_refusal(text, "bad.json: fluids[0].pbf: is the block of solver \"pbf\" but the fluid's \"solver\" is "
                   "\"wcsph\": rename the block to \"wcsph\"");
    // The first format reads the solver through the same check.
    expect_refusal("{\"solver\": \"wcsh\", \"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]}}",
                   "bad.json: solver: \"wcsh\" is not a solver: did you mean \"wcsph\"?");
    // The parser's list of names is the registry's, in its order.
    uint32_t n = 0;
    for (; cs_sim_registry[n]; n++)
        CHECK(cs_scene_solver_names[n] && strcmp(cs_scene_solver_names[n], cs_sim_registry[n]->solver) == 0,
              "cs_scene_solver_names[%u] is \"%s\", the registry's \"%s\": add a new solver to both", n,
              cs_scene_solver_names[n] ? cs_scene_solver_names[n] : "(end)", cs_sim_registry[n]->solver);
    CHECK(cs_scene_solver_names[n] == NULL, "cs_scene_solver_names has more names than the registry");
    // No nearest key: the list alone.
    with(text, sizeof text, "\"camera\": {}", "\"camera\": {\"q\": 1}");
    expect_refusal(text, "bad.json: camera.q: unknown key (allowed here: position, target, up");
    CHECK(cs_scene_keys_nearest("grvity", (const char *const[]){"dim", "gravity", "dt"}, 3) != NULL,
          "grvity is near gravity");
    CHECK(cs_scene_keys_nearest("x", (const char *const[]){"dim", "gravity", "dt"}, 3) == NULL, "x is near nothing");
}

int main(void)
{
    test_defaults();
    test_panel();
    test_messages();
    if (test_failures)
        fprintf(stderr, "FAIL: %d check(s) failed\n", test_failures);
    else
        printf("PASS\n");
    return test_failures ? 1 : 0;
}
