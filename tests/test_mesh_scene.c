// test_mesh_scene.c — tools/mesh_scene.py, the generated mesh scene of
// issue 11 (docs/light.md, "A generated mesh scene"):
//   1. the generator run at 50 k triangles into a temporary folder: the
//      scene loads through the assimp "mesh" geometry, with as many
//      triangles as the OBJ files have "f" lines (at least 50 000), every
//      one valid by the loader's rule and no longer than the scene's
//      patch_size (one patch a triangle), the terrain's facing up;
//   2. the committed scenes/mesh_scene_small is what the generator writes
//      for --triangles 2000 today, byte for byte;
// The radiosity of the small scene: test_mesh_scene_radiosity.c. No GPU
// here. Needs python3 (tools/install-deps.sh).
// ctest labels: quick -- 1.5 (python3: generates 50 k and 2 k triangles)
#define _POSIX_C_SOURCE 200809L // mkdtemp
#include "test_util.h"

#include "file_io.h"
#include "geometry.h"
#include "scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BIG_TRIANGLES 50000u
#define SMALL_TRIANGLES 2000u
#define SMALL_SCENE CS_SOURCE_DIR "/scenes/mesh_scene_small"
// The generator's parts, in the scene's element order.
static const char *const parts[] = {"room", "light", "terrain", "sculptures"};
enum { TERRAIN_ELEMENT = 2 };

static void generate(const char *dir, uint32_t triangles)
{
    char command[1024];
    snprintf(command, sizeof command, "python3 '%s/tools/mesh_scene.py' '%s' --triangles %u", CS_SOURCE_DIR, dir,
             triangles);
    CS_ASSERT(system(command) == 0, "failed: %s", command);
}

static char *read_whole(const char *path, size_t *size)
{
    cs_error err = {0};
    char *text = cs_read_input_file(path, CS_INPUT_FILE_MAX, size, &err);
    CS_ASSERT(text, "%s", err.msg);
    return text;
}

// The "f" lines of an OBJ file: its triangles (the generator writes only those).
static uint32_t obj_faces(const char *path)
{
    size_t size;
    char *text = read_whole(path, &size);
    uint32_t faces = 0;
    for (size_t i = 0; i + 1 < size; i++)
        faces += (i == 0 || text[i - 1] == '\n') && text[i] == 'f' && text[i + 1] == ' ';
    free(text);
    return faces;
}

static void check_generated_scene(const char *dir)
{
    char path[1024];
    uint32_t faces = 0;
    for (size_t k = 0; k < CS_ARRAY_COUNT(parts); k++) {
        snprintf(path, sizeof path, "%s/%s.obj", dir, parts[k]);
        faces += obj_faces(path);
    }
    snprintf(path, sizeof path, "%s/mesh_scene.json", dir);
    cs_scene scene;
    cs_error err = {0};
    double t0 = cs_now_seconds();
    CS_ASSERT(cs_scene_load(path, &scene, &err), "%s", err.msg);
    const cs_geometry *g = scene.geometry;
    CS_ASSERT(g, "%s has no geometry", path);
    printf("%s: %u triangles in %u elements (the OBJ files: %u), loaded in %.2f s, patch_size %.3f\n", path,
           g->tri_count, g->element_count, faces, cs_now_seconds() - t0, g->lighting.patch_size);
    CHECK(g->tri_count == faces && g->tri_count >= BIG_TRIANGLES, "%u triangles loaded, %u in the files, want %u+",
          g->tri_count, faces, BIG_TRIANGLES);
    CHECK(g->element_count == CS_ARRAY_COUNT(parts), "%u elements", g->element_count);
    uint32_t bad = 0, too_long = 0, terrain_down = 0;
    for (uint32_t i = 0; i < g->tri_count; i++) {
        const cs_tri *t = &g->tris[i];
        const float v[3][3] = {{t->v0.x, t->v0.y, t->v0.z}, {t->v1.x, t->v1.y, t->v1.z}, {t->v2.x, t->v2.y, t->v2.z}};
        const char *why = NULL;
        bad += !cs_geometry_triangle_ok(v[0], v[1], v[2], &why);
        for (int e = 0; e < 3; e++) {
            const float *a = v[e], *b = v[(e + 1) % 3];
            double length = sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
            if (length > g->lighting.patch_size) {
                too_long++;
                break;
            }
        }
        if (t->info.x == TERRAIN_ELEMENT) {
            double up = (double)(v[1][2] - v[0][2]) * (v[2][0] - v[0][0]) -
                        (double)(v[1][0] - v[0][0]) * (v[2][2] - v[0][2]); // y of (v1 - v0) x (v2 - v0)
            terrain_down += !(up > 0.0);
        }
    }
    CHECK(bad == 0, "%u triangles fail the loader's shape rule", bad);
    CHECK(too_long == 0, "%u triangles have an edge past patch_size %.3f", too_long, g->lighting.patch_size);
    CHECK(terrain_down == 0, "%u terrain triangles do not face up", terrain_down);
    cs_scene_free(&scene);
}

static void check_small_is_current(const char *dir)
{
    static const char *const files[] = {"mesh_scene.json", "room.obj", "light.obj", "terrain.obj", "sculptures.obj"};
    for (size_t k = 0; k < CS_ARRAY_COUNT(files); k++) {
        char fresh_path[1024], committed_path[1024];
        snprintf(fresh_path, sizeof fresh_path, "%s/%s", dir, files[k]);
        snprintf(committed_path, sizeof committed_path, "%s/%s", SMALL_SCENE, files[k]);
        size_t fresh_size, committed_size;
        char *fresh = read_whole(fresh_path, &fresh_size), *committed = read_whole(committed_path, &committed_size);
        CHECK(fresh_size == committed_size && memcmp(fresh, committed, fresh_size) == 0,
              "%s differs from the generator's output (%zu vs %zu bytes): regenerate it with "
              "python3 tools/mesh_scene.py scenes/mesh_scene_small --triangles %u",
              committed_path, committed_size, fresh_size, SMALL_TRIANGLES);
        free(fresh);
        free(committed);
    }
}

int main(void)
{
    char big[] = "/tmp/cistern_mesh_scene_XXXXXX", small[] = "/tmp/cistern_mesh_small_XXXXXX";
    CS_ASSERT(mkdtemp(big) && mkdtemp(small), "cannot make a temporary folder");
    generate(big, BIG_TRIANGLES);
    check_generated_scene(big);
    generate(small, SMALL_TRIANGLES);
    check_small_is_current(small);
    char command[256];
    snprintf(command, sizeof command, "rm -rf '%s' '%s'", big, small);
    CS_ASSERT(system(command) == 0, "failed: %s", command);
    printf(test_failures ? "FAILED\n" : "PASSED\n");
    return test_failures ? 1 : 0;
}
