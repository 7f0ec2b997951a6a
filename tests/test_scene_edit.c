// test_scene_edit.c — key-path edits of a scene (host/scene/scene_edit.h):
//
//  - `PATH=VALUE` texts that are not edits are refused, naming the text;
//  - edits of a tree: a key replaced, added (objects on the way created), an
//    array component, null removing a key, a bare word as a string; a path
//    through a missing array, a number or past an array's end is refused
//    with the key path (and "did you mean"), leaving the tree unchanged;
//  - a scene loaded with an edit the parser refuses names the key path, the
//    parser's own words ("did you mean", the range) and the edit;
//  - on the GPU, for a Clavet SPH and a PBF fluid (two_fluids_2d): a value
//    given by an edit, the same value written in the file, and the edited
//    scene saved (cs_scene_save) and loaded again give the same bits after
//    FRAMES frames; a save of the saved scene gives the same bytes; and the
//    edit changes the result (the unedited scene ends elsewhere), so the
//    comparison can fail.
// ctest labels: slow,gpu -- 18 s CPU (10 five-frame worlds of two_fluids_2d, validation)
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "file_io.h"
#include "scene_edit.h"
#include "world.h"

#include <unistd.h>

#define FRAMES 5
#define SCENE CS_SOURCE_DIR "/scenes/two_fluids_2d.json"

static bool has(const char *msg, const char *part) { return strstr(msg, part) != NULL; }

static void test_parse(void)
{
    static const struct {
        const char *text, *expect;
    } bad[] = {
        {"viscosity", "wants KEY.PATH=VALUE"},
        {"=1", "no key path"},
        {"gravity=", "no value after '='"},
        {"fluids[x].solver=sph", "[ must hold an index"},
        {"fluids[0.solver=sph", "not an index"},
        {"fluids..solver=sph", "a key is missing at character 8"},
        {"fluids[0]x=1", "unexpected 'x'"},
    };
    for (size_t i = 0; i < (sizeof bad / sizeof bad[0]); i++) {
        cs_scene_edit e;
        cs_error err = {{0}};
        bool ok = cs_scene_edit_parse(bad[i].text, &e, &err);
        CHECK(!ok && has(err.msg, bad[i].expect), "\"%s\": want \"%s\", got %s", bad[i].text, bad[i].expect,
              ok ? "accepted" : err.msg);
    }
    cs_scene_edit e;
    cs_error err;
    CHECK(cs_scene_edit_parse("fluids[0].materials[1].viscosity=0.2", &e, &err) &&
              strcmp(e.path, "fluids[0].materials[1].viscosity") == 0 && strcmp(e.value, "0.2") == 0,
          "a good edit: %s", err.msg);
    CHECK(cs_scene_edit_parse("a.b=x=y", &e, &err) && strcmp(e.value, "x=y") == 0, "split at the first '='");
}

// Applies "PATH=VALUE" to the tree; the message when refused.
static bool edit(cJSON *root, const char *text, cs_error *err)
{
    cs_scene_edit e;
    return cs_scene_edit_parse(text, &e, err) && cs_scene_edit_apply(root, &e, err);
}

static char *print(const cJSON *root) { return cJSON_PrintUnformatted(root); }

static void test_apply(void)
{
    cJSON *root = cJSON_Parse("{\"gravity\":[0,-9.8],\"fluids\":[{\"solver\":\"pbf\",\"materials\":[{\"mass\":1}]}]}");
    cs_error err;
    CHECK(edit(root, "gravity[1]=-3", &err), "%s", err.msg);
    CHECK(edit(root, "fluids[0].materials[0].viscosity=0.25", &err), "%s", err.msg);
    CHECK(edit(root, "fluids[0].materials[0].mass=null", &err), "%s", err.msg);
    CHECK(edit(root, "fluids[0].solver=sph", &err), "%s", err.msg);
    CHECK(edit(root, "fluids[0].surface.iso=0.4", &err), "%s", err.msg);
    CHECK(edit(root, "fluids[0].materials[0].color=[1, 0.5, 0]", &err), "%s", err.msg);
    CHECK(edit(root, "fluids[0].name=\"two words\"", &err), "%s", err.msg);
    char *text = print(root);
    const char *want = "{\"gravity\":[0,-3],\"fluids\":[{\"solver\":\"sph\",\"materials\":[{\"viscosity\":0.25,"
                       "\"color\":[1,0.5,0]}],\"surface\":{\"iso\":0.4},\"name\":\"two words\"}]}";
    CHECK(strcmp(text, want) == 0, "edited tree\n  got  %s\n  want %s", text, want);
    static const struct {
        const char *text, *expect;
    } bad[] = {
        {"fluids[2].solver=pbf", "fluids[2]: the array holds 1 entry"},
        {"fluid[0].solver=pbf", "did you mean \"fluids\""},
        {"gravity.x=1", "is an array, not an object"},
        {"gravity[0].x=1", "is a number, not an object"},
        {"gravity[5]=1", "gravity[5]: the array holds 2 entries"},
        {"fluids[0].solver[0]=1", "fluids[0].solver: is a string, not an array"},
        {"fluids[0].nothing=null", "nothing to remove"},
        {"gravity[0]=null", "null removes keys, not array entries"},
        {"newblock.inner[0]=1", "the scene has no \"inner\" here to index"},
    };
    for (size_t i = 0; i < (sizeof bad / sizeof bad[0]); i++) {
        err.msg[0] = 0;
        bool ok = edit(root, bad[i].text, &err);
        CHECK(!ok && has(err.msg, bad[i].expect), "\"%s\": want \"%s\", got %s", bad[i].text, bad[i].expect,
              ok ? "accepted" : err.msg);
        char *after = print(root);
        CHECK(strcmp(after, text) == 0, "\"%s\" was refused but changed the tree: %s", bad[i].text, after);
        cJSON_free(after);
    }
    cJSON_free(text);
    cJSON_Delete(root);
}

// The parser judges what an edit sets, in its own words.
static void test_parser_messages(void)
{
    static const struct {
        const char *edit, *expect[3];
    } cases[] = {
        {"fluids[0].materials[0].viscosty_linear=0.2",
         {"two_fluids_2d.json: fluids[0].materials[0].viscosty_linear: unknown key", "did you mean \"viscosity_linear\"",
          "(set by the edit fluids[0].materials[0].viscosty_linear=0.2)"}},
        {"fluids[1].materials[0].viscosity=-1", {"fluids[1].materials[0].viscosity: must be >= 0", "-1", "set by"}},
        {"dt=fast", {"two_fluids_2d.json: dt: ", "string", "set by the edit dt=fast"}},
        {"fluids[3].solver=pbf", {"two_fluids_2d.json: edit fluids[3].solver=pbf: fluids[3]", "holds 2 entries", ""}},
    };
    for (size_t i = 0; i < (sizeof cases / sizeof cases[0]); i++) {
        cs_scene_edit e;
        cs_error err = {{0}};
        cs_scene scene;
        CHECK(cs_scene_edit_parse(cases[i].edit, &e, &err), "%s", err.msg);
        bool ok = cs_scene_load_edited("two_fluids_2d", &e, 1, &scene, &err);
        CHECK(!ok, "\"%s\" was accepted", cases[i].edit);
        if (ok) {
            cs_scene_free(&scene);
            continue;
        }
        for (int k = 0; k < 3; k++)
            CHECK(has(err.msg, cases[i].expect[k]), "\"%s\": want \"%s\" in: %s", cases[i].edit, cases[i].expect[k],
                  err.msg);
    }
}

// The panel's path: edits as numbers, saved as a new file, which loads to
// the tree the edits give (the same JSON, printed alike); a refused edit
// writes nothing.
static void test_save_edited(void)
{
    cs_scene_edit e[2];
    cs_error err;
    CHECK(cs_scene_edit_number(&e[0], "fluids[0].materials[0].viscosity_linear", (double)0.3f, &err), "%s", err.msg);
    CHECK(cs_scene_edit_number(&e[1], "gravity[1]", -3.25, &err), "%s", err.msg);
    CHECK(strcmp(e[1].value, "-3.25") == 0 && strtod(e[0].value, NULL) == (double)0.3f, "numbers: %s, %s",
          e[0].value, e[1].value);
    char path[] = "/tmp/cistern_save_edited_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    cs_scene edited, saved;
    bool ok = cs_scene_save_edited(SCENE, e, 2, path, &err);
    CHECK(ok, "save_edited: %s", ok ? "" : err.msg);
    if (ok && cs_scene_load_edited(SCENE, e, 2, &edited, &err)) {
        if (cs_scene_load(path, &saved, &err)) {
            char *a = print(edited.json), *b = print(saved.json);
            CHECK(strcmp(a, b) == 0, "the saved file reads back as another tree");
            CHECK(saved.gravity[1] == -3.25f && saved.fluids[0].materials[0].viscosity_linear == 0.3f,
                  "the saved values: %g, %g", (double)saved.gravity[1],
                  (double)saved.fluids[0].materials[0].viscosity_linear);
            cJSON_free(a), cJSON_free(b);
            cs_scene_free(&saved);
        } else {
            CHECK(false, "load the saved file: %s", err.msg);
        }
        cs_scene_free(&edited);
    }
    // A refused edit leaves the file as it was.
    size_t before = 0, after = 0;
    char *t0 = cs_read_input_file(path, CS_INPUT_FILE_MAX, &before, &err);
    cs_scene_edit bad;
    CHECK(cs_scene_edit_number(&bad, "dt", -1, &err), "%s", err.msg);
    CHECK(!cs_scene_save_edited(SCENE, &bad, 1, path, &err) && has(err.msg, "dt: "), "dt=-1 saved: %s", err.msg);
    char *t1 = cs_read_input_file(path, CS_INPUT_FILE_MAX, &after, &err);
    CHECK(t0 && t1 && before == after && memcmp(t0, t1, before) == 0, "a refused save changed the file");
    free(t0), free(t1);
    unlink(path);
}

typedef struct world_bits {
    uint32_t count[2];
    float *data[2]; // positions then velocities, per fluid
} world_bits;

static bool run_scene(cs_context *ctx, const cs_scene *scene, world_bits *out)
{
    *out = (world_bits){0};
    cs_world world;
    cs_error err;
    bool ok = cs_world_create(ctx, scene, &world, &err);
    CHECK(ok, "world: %s", ok ? "" : err.msg);
    if (!ok)
        return false;
    cs_recorder rec;
    cs_recorder_create(ctx, "scene edit", &rec);
    for (uint32_t f = 0; f < FRAMES; f++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(&world, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_recorder_destroy(&rec);
    for (uint32_t i = 0; i < world.fluid_count && i < 2; i++) {
        cs_particle_view v;
        world.fluids[i].ops->particles(world.fluids[i].state, &v);
        size_t bytes = (size_t)v.count * 16;
        out->count[i] = v.count;
        out->data[i] = malloc(2 * bytes + 16);
        cs_buffer_download(ctx, v.positions, out->data[i], bytes, 0);
        cs_buffer_download(ctx, v.velocities, (char *)out->data[i] + bytes, bytes, 0);
    }
    cs_world_destroy(&world);
    return true;
}

static bool same(const world_bits *a, const world_bits *b)
{
    for (int i = 0; i < 2; i++)
        if (a->count[i] != b->count[i] || memcmp(a->data[i], b->data[i], (size_t)a->count[i] * 32) != 0)
            return false;
    return true;
}

static void free_bits(world_bits *b) { free(b->data[0]), free(b->data[1]); }

// The scene's text with `from` replaced by `to` (once, which must be there).
static char *written_in(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    CHECK(at, "two_fluids_2d.json no longer has %s", from);
    if (!at)
        return NULL;
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

// One edit three ways (an edit, written in the file, saved and loaded),
// and the scene without it.
static void compare(cs_context *ctx, const char *text, const world_bits *b_plain, const char *edit_text,
                    const char *from, const char *to)
{
    cs_error err;
    cs_scene_edit e;
    cs_scene edited, written, saved;
    world_bits b_edited, b_written, b_saved;
    char *changed = written_in(text, from, to);
    if (!changed || !cs_scene_edit_parse(edit_text, &e, &err))
        return;
    char path[] = "/tmp/cistern_scene_edit_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    bool ok = cs_scene_load_edited(SCENE, &e, 1, &edited, &err);
    CHECK(ok, "%s: %s", edit_text, ok ? "" : err.msg);
    bool ok2 = cs_scene_parse(changed, strlen(changed), SCENE, &written, &err);
    CHECK(ok2, "written in: %s", ok2 ? "" : err.msg);
    bool ok3 = ok && cs_scene_save(&edited, path, &err);
    CHECK(!ok || ok3, "save: %s", err.msg);
    ok3 = ok3 && cs_scene_load(path, &saved, &err);
    CHECK(!ok || ok3, "load the saved scene: %s", ok3 ? "" : err.msg);
    if (ok && ok2 && ok3 && run_scene(ctx, &edited, &b_edited) && run_scene(ctx, &written, &b_written) &&
        run_scene(ctx, &saved, &b_saved)) {
        CHECK(same(&b_edited, &b_written), "%s: the edit and the file with %s differ after %d frames", edit_text, to,
              FRAMES);
        CHECK(same(&b_edited, &b_saved), "%s: the edited scene and its saved copy differ after %d frames", edit_text,
              FRAMES);
        CHECK(!same(&b_edited, b_plain), "%s: changes nothing after %d frames (the comparison cannot fail)",
              edit_text, FRAMES);
        printf("%s: the edit, the file and the saved copy agree to the bit after %d frames; the unedited scene "
               "differs\n", edit_text, FRAMES);
        // Saving the saved scene writes the same bytes (a fixed point).
        char again[sizeof path + 8];
        snprintf(again, sizeof again, "%s.again", path);
        size_t n1 = 0, n2 = 0;
        CHECK(cs_scene_save(&saved, again, &err), "%s", err.msg);
        char *t1 = cs_read_input_file(path, CS_INPUT_FILE_MAX, &n1, &err);
        char *t2 = cs_read_input_file(again, CS_INPUT_FILE_MAX, &n2, &err);
        CHECK(t1 && t2 && n1 == n2 && memcmp(t1, t2, n1) == 0, "save, load, save: the two files differ");
        free(t1), free(t2);
        unlink(again);
        free_bits(&b_edited), free_bits(&b_written), free_bits(&b_saved);
    }
    if (ok)
        cs_scene_free(&edited);
    if (ok2)
        cs_scene_free(&written);
    if (ok3)
        cs_scene_free(&saved);
    unlink(path);
    free(changed);
}

int main(void)
{
    test_parse();
    test_apply();
    test_parser_messages();
    test_save_edited();
    cs_context ctx;
    test_context(&ctx);
    cs_error err;
    size_t size = 0;
    char *text = cs_read_input_file(SCENE, CS_INPUT_FILE_MAX, &size, &err);
    CHECK(text, "%s", err.msg);
    cs_scene plain;
    world_bits b_plain;
    bool ok = cs_scene_load(SCENE, &plain, &err);
    CHECK(ok, "%s", ok ? "" : err.msg);
    if (text && ok && run_scene(&ctx, &plain, &b_plain)) {
        // A material of the Clavet pool, a key of PBF's own block (read by
        // the solver), and a world key.
        compare(&ctx, text, &b_plain, "fluids[0].materials[0].viscosity_linear=0.3", "\"viscosity_linear\": 0.5",
                "\"viscosity_linear\": 0.3");
        compare(&ctx, text, &b_plain, "fluids[1].pbf.iterations=2", "\"iterations\": 4", "\"iterations\": 2");
        compare(&ctx, text, &b_plain, "gravity=[0.5, -9.8]", "\"gravity\": [0, -9.8]", "\"gravity\": [0.5, -9.8]");
        free_bits(&b_plain);
    }
    if (ok)
        cs_scene_free(&plain);
    free(text);
    return test_finish(&ctx);
}
