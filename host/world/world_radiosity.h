// world_radiosity.h — the world's radiosity part: when the scene has
// "geometry", the world compiles its patches and links once (the BVH, then
// the cluster tree and its links, cs_radiosity_compile_hierarchy, or with
// "hierarchy": false every pair, cs_radiosity_compile_gpu: form factors on
// the CPU, visibility rays on the GPU) and, every frame, moves the scene's "lights" along their paths to
// the frame's time and records the direct light and the gathers
// (pipelines/light/radiosity_gpu.h). The renderer draws the geometry lit by the
// result (host/render/feature_geometry.c). docs/light.md, "Radiosity".
#pragma once

#include "geometry.h"
#include "level_mesh.h"
#include "probes.h"
#include "radiosity_gpu.h"

typedef struct cs_world_radiosity {
    const cs_geometry *geometry;       // the scene's triangles, or level_geometry (patch_tri indexes them)
    const cs_scene_lighting *lighting; // the scene's "radiosity" and "lights"
    cs_bvh bvh;
    cs_radiosity_compiled compiled;
    cs_radiosity_gpu gpu;
    bool gpu_made;
    float (*scene_albedo)[3];  // per patch, as the scene gave it
    uint32_t albedo_cycle;     // 0: the scene's colours; k: coloured patches' rgb rotated k times
    uint64_t frames;           // frames recorded
    // "radiosity.probes": light probes over the geometry's bounds, updated
    // after the gathers every `every` frames (pipelines/light/probes.h); the
    // renderer lights particles by them while probes_shading is on.
    cs_probes probes;
    bool probes_made, probes_shading;
    // A scene with a "level" and a "radiosity" block: the level's faces and
    // room lights, then the scene's own (level_light.h); geometry and
    // lighting point here.
    cs_geometry level_geometry;
    bool has_level;
    // The gathers that converge within lighting->tolerance (at most 64):
    // measured by the double solver with the lights at t = 0, again when
    // the tolerance changes (a live key). A frame gathers
    // min(converged_bounces, lighting->bounces).
    uint32_t converged_bounces;
    double converged_tolerance;
} cs_world_radiosity;

// Compiles the scene's geometry (with a level and a "radiosity" block: the
// level's too) at its radiosity.patch_size and uploads it; false with a
// message (the scene's radiosity key) when it cannot.
bool cs_world_radiosity_create(cs_context *ctx, const cs_scene *scene, cs_world_radiosity *part, cs_error *err);
// The same from a level already read (level_file) and built (level_mesh),
// as the world has them; both NULL: read from the scene's file, as above.
bool cs_world_radiosity_create_from(cs_context *ctx, const cs_scene *scene, const cs_tr1_level *level_file,
                                    const cs_level_mesh *level_mesh, cs_world_radiosity *part, cs_error *err);
void cs_world_radiosity_destroy(cs_context *ctx, cs_world_radiosity *part);

// The scene's lights at time t (seconds; paths followed), as the GPU pass
// takes them: punctual ones into `lights`, quads into `areas` (each room for
// CS_MAX_SCENE_LIGHTS); the counts come back.
void cs_world_radiosity_lights_at(const cs_scene_lighting *lighting, double t, cs_light *lights, uint32_t *count,
                                  cs_area_light *areas, uint32_t *area_count);

// The bounces a frame gathers now: the scene's `bounces`, or fewer where
// the reflected light has converged within its `tolerance`.
uint32_t cs_world_radiosity_bounces(cs_world_radiosity *part);

// Records the lights at time t into `rec` (no submit of its own), then
// "radiosity: direct" and the gathers. Outside a pass.
void cs_world_radiosity_record(cs_world_radiosity *part, cs_recorder *rec, double t);

// The walls' colours cycled (the window's G key): every patch whose albedo
// is not grey gets its rgb rotated once more (three steps round).
void cs_world_radiosity_cycle_albedo(cs_context *ctx, cs_world_radiosity *part);

// The window's L key: particles lit by the probes, or the usual look.
// Nothing happens without probes.
void cs_world_radiosity_toggle_probes(cs_context *ctx, cs_world_radiosity *part);
