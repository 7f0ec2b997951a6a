// fuzz_scene.c — libFuzzer target for the scene parser: any bytes go through
// parse, a capped block fill, particle-count scaling and free. ASan/UBSan
// catch memory errors and leaks; the parser must refuse bad input with a
// message, never crash or abort.
//
//   cmake -S . -B build/fuzz_scene -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCISTERN_FUZZ=ON \
//         "-DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
//   cmake --build build/fuzz_scene --target fuzz_scene
//   build/fuzz_scene/fuzz_scene -max_total_time=120 -dict=tests/fuzz/scene.dict \
//         /tmp/scene_corpus tests/fuzz/corpus/scene
#include "scene.h"

#include <float.h>

// Enough to walk every block and every fill branch without spending the
// fuzzer's time writing millions of particles.
#define FILL_CAP 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Every check on one fluid's scene (a complete cs_scene, see scene.h).
static void check_fluid(const cs_scene *fluid)
{
    cs_scene scene = *fluid;
    cs_error err;
    // The helpers the solver modules call on their own block, on every key.
    static const char *const allowed[] = {"iterations", "relaxation", "xsph", "vorticity", NULL};
    cs_json_check_keys(&scene, scene.solver_params, scene.solver, allowed, &err);
    for (const cJSON *item = scene.solver_params->child; item; item = item->next) {
        float f = 0.0f, v[3];
        uint32_t u = 0;
        bool b = false;
        cs_json_float(&scene, scene.solver_params, scene.solver, item->string, -1e3f, 1e3f, &f, &err);
        cs_json_float(&scene, scene.solver_params, scene.solver, item->string, -FLT_MAX, FLT_MAX, &f, &err);
        cs_json_uint(&scene, scene.solver_params, scene.solver, item->string, 1, 64, &u, &err);
        cs_json_bool(&scene, scene.solver_params, scene.solver, item->string, &b, &err);
        cs_json_vec(&scene, scene.solver_params, scene.solver, item->string, 3, v, &err);
        cs_json_vec(&scene, scene.solver_params, scene.solver, item->string, 2, v, &err);
    }

    uint32_t n = cs_scene_block_particles(&scene);
    uint32_t cap = n < FILL_CAP ? n : FILL_CAP;
    float *positions = malloc((size_t)cap * 16 + 16);
    float *velocities = malloc((size_t)cap * 16 + 16);
    uint32_t *materials = malloc((size_t)cap * 4 + 4);
    uint32_t written = cs_scene_fill_blocks(&scene, positions, velocities, materials, cap);
    if (written != cap)
        abort();
    // Every particle lies in some block, in the domain, with a real material.
    for (uint32_t i = 0; i < written; i++) {
        if (materials[i] >= scene.material_count)
            abort();
        const float *p = positions + (size_t)i * 4;
        bool in_block = false;
        for (uint32_t b = 0; b < scene.block_count && !in_block; b++) {
            bool inside = true;
            for (int a = 0; a < 3; a++)
                inside &= p[a] >= scene.blocks[b].min[a] && p[a] <= scene.blocks[b].max[a];
            in_block |= inside;
        }
        // Blocks may poke 1e-4 spacings past the domain walls.
        for (int a = 0; a < 3; a++)
            in_block &= p[a] >= scene.domain_min[a] - scene.particle_spacing &&
                        p[a] <= scene.domain_max[a] + scene.particle_spacing;
        if (!in_block)
            abort();
    }
    free(positions);
    free(velocities);
    free(materials);
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cs_scene scene;
    cs_error err;
    err.msg[0] = 0;
    if (!cs_scene_parse((const char *)data, size, "fuzz.json", &scene, &err)) {
        // A refusal must say why.
        if (!err.msg[0])
            abort();
        cs_scene_free(&scene);
        return 0;
    }
    for (uint32_t i = 0; i < scene.fluid_count; i++)
        check_fluid(&scene.fluids[i]);
    cs_scene_scale_world(&scene, 1 + (uint32_t)(size % 5000));
    for (uint32_t i = 0; i < scene.fluid_count; i++) {
        const cs_scene *f = &scene.fluids[i];
        if (f->block_count && cs_scene_block_particles(f) > f->max_particles)
            abort();
        if (f->dt != scene.dt || f->substeps != scene.substeps)
            abort(); // one clock for the world
    }
    cs_scene_free(&scene);
    return 0;
}
