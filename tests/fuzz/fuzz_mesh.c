// fuzz_mesh.c — libFuzzer target for the mesh import (geometry.c: a
// scene's {"mesh": {"file": ...}} through assimp in a bounded child
// process). The first byte picks the file's extension (ply, obj, gltf,
// glb, stl, off), the rest is its content; a companion "side.bin" (a
// glTF buffer, an OBJ material) is a FIFO with no writer, so an import
// that opens it must not block. Every input ends in triangles or in a
// refusal that names the mesh file; ASan/UBSan catch memory errors in
// cistern's side (assimp's own run in the child).
//
//   cmake --preset fuzz && cmake --build build/fuzz --target fuzz_mesh
//   build/fuzz/fuzz_mesh -max_total_time=120 /tmp/mesh_corpus tests/fuzz/corpus/mesh
// Without clang, fuzz_mesh_replay (this file + replay_main.c) replays the
// corpus (tests/fuzz_replay.sh), which holds the audit's hostile files.
#define _GNU_SOURCE
#include "geometry.h"
#include "scene.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const extensions[] = {"ply", "obj", "gltf", "glb", "stl", "off"};
static char dir[64];

static void remove_dir(void)
{
    char path[128];
    for (size_t i = 0; i < CS_ARRAY_COUNT(extensions); i++) {
        snprintf(path, sizeof path, "%s/mesh.%s", dir, extensions[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/side.bin", dir);
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/cistern_fuzz_mesh_XXXXXX");
        if (!mkdtemp(dir))
            abort();
        atexit(remove_dir);
        char side[128];
        snprintf(side, sizeof side, "%s/side.bin", dir);
        if (mkfifo(side, 0600) != 0)
            abort();
    }
    const char *ext = extensions[data[0] % CS_ARRAY_COUNT(extensions)];
    data++, size--;
    char mesh[128];
    snprintf(mesh, sizeof mesh, "%s/mesh.%s", dir, ext);
    int fd = open(mesh, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 0;
    bool written = write(fd, data, size) == (ssize_t)size;
    if (close(fd) != 0 || !written)
        return 0;
    char text[512], scene_path[128];
    snprintf(text, sizeof text,
             "{\"dim\": 3, \"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]}, \"geometry\": [{\"mesh\": "
             "{\"file\": \"mesh.%s\"}}], \"fluids\": [{\"solver\": \"pbf\", \"particle_spacing\": 0.1, "
             "\"smoothing_radius\": 0.2, \"materials\": [{\"name\": \"w\", \"rest_density\": 1000, \"mass\": 1}], "
             "\"blocks\": [{\"min\": [0,0,0], \"max\": [0.2,0.2,0.2], \"material\": \"w\"}], \"pbf\": {}}]}",
             ext);
    snprintf(scene_path, sizeof scene_path, "%s/scene.json", dir);
    cs_scene scene;
    cs_error err = {{0}};
    if (cs_scene_parse(text, strlen(text), scene_path, &scene, &err)) {
        if (!scene.geometry || !scene.geometry->tri_count)
            abort(); // accepted without triangles
        cs_scene_free(&scene);
    } else if (!strstr(err.msg, "mesh.file") || (!strstr(err.msg, "mesh.") && !strstr(err.msg, "side.bin"))) {
        abort(); // a refusal names the element and the file
    }
    return 0;
}
