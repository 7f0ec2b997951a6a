// test_scene_digest.c — every shipped scene parses to the same bytes as
// recorded in tests/ref/scene_digests.txt. It guards changes to the parser
// that must not change what a scene means (the key table's migration of
// hand-written parsing, docs/scenes.md "Key reference"): a digest of the
// cs_scene of the file, of each fluid's, of the static geometry and its
// lighting, and of each solver's block as the solver reads it (pbf's params,
// sph's and wcsph's options in their zeroed state, reint's params, the
// vortons' params and spacing). CPU only.
//
//   test_scene_digest            compare with tests/ref/scene_digests.txt
//   test_scene_digest --print    print the digests (to regenerate the file
//                                after a change that is meant to change a
//                                scene: test_scene_digest --print >
//                                tests/ref/scene_digests.txt)
//
// Pointers (the JSON tree, the fluids array, the geometry) are replaced by
// whether they are set before hashing; the bodies (an array the file's scene
// owns and every fluid's points at) by their values; everything else is
// hashed as bytes.
// ctest labels: quick -- 0.3 (every shipped scene parses to the recorded bytes)
#define _POSIX_C_SOURCE 200809L
#include "fluid_pbf.h"
#include "fluid_sph.h"
#include "fluid_dfsph.h"
#include "fluid_wcsph.h"
#include "reint.h"
#include "vorton.h"
#include "geometry.h"
#include "scene.h"
#include "test_util.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

// Relative to the source tree (main() changes into it): a scene's path and
// the paths resolved from it (a level's file) are bytes of the parsed
// structs, so absolute paths would make the digests depend on where the
// checkout lies.
#define SCENE_DIR "scenes"
#define REF_FILE "tests/ref/scene_digests.txt"

static uint64_t fnv(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t scene_digest(const cs_scene *s)
{
    cs_scene *copy = malloc(sizeof *copy);
    memcpy(copy, s, sizeof *copy);
    unsigned char set[7] = {copy->json != NULL, copy->fluids != NULL, copy->geometry != NULL,
                            copy->solver_params != NULL, copy->surface.own_block != NULL,
                            copy->surface.top_block != NULL, copy->body_storage != NULL};
    copy->json = NULL, copy->fluids = NULL, copy->geometry = NULL, copy->solver_params = NULL;
    copy->surface.own_block = NULL, copy->surface.top_block = NULL;
    copy->bodies = NULL, copy->body_storage = NULL; // the bodies: their values, below
    uint64_t h = fnv(0xcbf29ce484222325ull, copy, sizeof *copy);
    free(copy);
    h = fnv(h, set, sizeof set);
    return s->bodies ? fnv(h, s->bodies, (size_t)s->body_count * sizeof *s->bodies) : h;
}

typedef struct line_list {
    char (*lines)[160];
    uint32_t count, capacity;
} line_list;

static void add(line_list *l, const char *scene, const char *part, uint64_t h)
{
    if (l->count == l->capacity) {
        l->capacity = l->capacity ? 2 * l->capacity : 256;
        l->lines = realloc(l->lines, l->capacity * sizeof *l->lines);
    }
    snprintf(l->lines[l->count++], sizeof l->lines[0], "%s %s %016llx", scene, part, (unsigned long long)h);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void digest_file(line_list *l, const char *path, const char *label)
{
    cs_scene s;
    cs_error err = {0};
    if (!cs_scene_load(path, &s, &err)) {
        add(l, label, "load-failed", 0);
        fprintf(stderr, "%s: %s\n", label, err.msg);
        return;
    }
    add(l, label, "scene", scene_digest(&s));
    for (uint32_t i = 0; i < s.fluid_count; i++) {
        char part[32];
        snprintf(part, sizeof part, "fluids[%u]", i);
        add(l, label, part, scene_digest(&s.fluids[i]));
        if (strcmp(s.fluids[i].solver, "pbf") == 0) {
            cs_pbf_params p;
            memset(&p, 0, sizeof p);
            bool ok = cs_pbf_params_read(&s.fluids[i], &p, &err);
            snprintf(part, sizeof part, "fluids[%u].pbf", i);
            add(l, label, part, ok ? fnv(0xcbf29ce484222325ull, &p, sizeof p) : 0);
        }
        // sph, wcsph and dfsph: the solver state the block fills, from zero.
        if (strcmp(s.fluids[i].solver, "sph") == 0) {
            cs_sph *x = calloc(1, sizeof *x);
            bool ok = cs_sph_read_block(&s.fluids[i], x, &err);
            snprintf(part, sizeof part, "fluids[%u].sph", i);
            add(l, label, part, ok ? fnv(0xcbf29ce484222325ull, x, sizeof *x) : 0);
            free(x);
        }
        if (strcmp(s.fluids[i].solver, "wcsph") == 0) {
            cs_wcsph *x = calloc(1, sizeof *x);
            bool ok = cs_wcsph_read_block(&s.fluids[i], x, &err);
            snprintf(part, sizeof part, "fluids[%u].wcsph", i);
            add(l, label, part, ok ? fnv(0xcbf29ce484222325ull, x, sizeof *x) : 0);
            free(x);
        }
        if (strcmp(s.fluids[i].solver, "dfsph") == 0) {
            cs_dfsph *x = calloc(1, sizeof *x);
            bool ok = cs_dfsph_read_block(&s.fluids[i], x, &err);
            snprintf(part, sizeof part, "fluids[%u].dfsph", i);
            add(l, label, part, ok ? fnv(0xcbf29ce484222325ull, x, sizeof *x) : 0);
            free(x);
        }
        if (strcmp(s.fluids[i].solver, "reint") == 0) {
            cs_reint_params *x = calloc(1, sizeof *x);
            bool ok = cs_reint_params_from_scene(&s.fluids[i], x, &err);
            snprintf(part, sizeof part, "fluids[%u].reint", i);
            add(l, label, part, ok ? fnv(0xcbf29ce484222325ull, x, sizeof *x) : 0);
            if (!ok)
                fprintf(stderr, "%s: %s\n", label, err.msg);
            free(x);
        }
        if (strcmp(s.fluids[i].solver, "vorton") == 0) {
            cs_vorton_params *v = calloc(1, sizeof *v);
            float spacing = 0.0f;
            bool ok = cs_vorton_params_read(&s.fluids[i], v, &spacing, &err);
            snprintf(part, sizeof part, "fluids[%u].vorton", i);
            add(l, label, part, ok ? fnv(fnv(0xcbf29ce484222325ull, v, sizeof *v), &spacing, sizeof spacing) : 0);
            free(v);
        }
    }
    if (s.geometry) {
        add(l, label, "lighting", fnv(0xcbf29ce484222325ull, &s.geometry->lighting, sizeof s.geometry->lighting));
        uint64_t h = fnv(0xcbf29ce484222325ull, &s.geometry->tri_count, sizeof s.geometry->tri_count);
        h = fnv(h, &s.geometry->element_count, sizeof s.geometry->element_count);
        add(l, label, "geometry", fnv(h, s.geometry->tris, (size_t)s.geometry->tri_count * sizeof *s.geometry->tris));
    }
    cs_scene_free(&s);
}

static void digest_dir(line_list *l, const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[256];
    uint32_t n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], by_name);
    for (uint32_t i = 0; i < n; i++) {
        char path[1024], label[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(label, sizeof label, "%s%s", prefix, names[i]);
        digest_file(l, path, label);
        free(names[i]);
    }
}

int main(int argc, char **argv)
{
    if (chdir(CS_SOURCE_DIR) != 0) {
        fprintf(stderr, "FAIL: cannot enter the source tree %s\n", CS_SOURCE_DIR);
        return 1;
    }
    line_list l = {0};
    digest_dir(&l, SCENE_DIR, "");
    digest_dir(&l, SCENE_DIR "/mesh_scene_small", "mesh_scene_small/");
    // Twice: a digest that changes from one parse to the next would hash
    // something other than the scene (padding, a stale pointer).
    line_list again = {0};
    digest_dir(&again, SCENE_DIR, "");
    digest_dir(&again, SCENE_DIR "/mesh_scene_small", "mesh_scene_small/");
    uint32_t unstable = again.count == l.count ? 0 : 1;
    for (uint32_t i = 0; i < l.count && i < again.count; i++)
        unstable += strcmp(l.lines[i], again.lines[i]) != 0;
    CHECK(unstable == 0, "%u digests differ between two parses of the same files", unstable);
    if (argc > 1 && strcmp(argv[1], "--print") == 0) {
        for (uint32_t i = 0; i < l.count; i++)
            printf("%s\n", l.lines[i]);
        return 0;
    }
    FILE *f = fopen(REF_FILE, "r");
    CHECK(f != NULL, "cannot open %s", REF_FILE);
    char line[200];
    uint32_t i = 0, diffs = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (i >= l.count || strcmp(line, l.lines[i]) != 0) {
            fprintf(stderr, "  recorded: %s\n  parsed:   %s\n", line, i < l.count ? l.lines[i] : "(none)");
            diffs++;
        }
        i++;
    }
    if (f)
        fclose(f);
    CHECK(diffs == 0 && i == l.count,
          "%u of %u digests differ from tests/ref/scene_digests.txt (%u recorded): a shipped scene parses "
          "differently. If that is meant, regenerate: test_scene_digest --print > tests/ref/scene_digests.txt",
          diffs, l.count, i);
    free(l.lines);
    free(again.lines);
    if (test_failures)
        fprintf(stderr, "FAIL: %d check(s) failed\n", test_failures);
    else
        printf("PASS: %u digests of %s\n", l.count, SCENE_DIR);
    return test_failures ? 1 : 0;
}
