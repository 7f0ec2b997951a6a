// radiosity_gpu.h — the GPU side of radiosity's compilation: visibility
// of the links by rays cast on the GPU against the BVH (pipelines/raycast.h)
// instead of pipelines/bvh.c's CPU walk. docs/light.md, "Radiosity".
#pragma once

#include "radiosity.h"
#include "raycast.h"

// Removes every link of `compiled` whose ray (cs_radiosity_link_ray) meets
// a triangle, casting them on the GPU in batches; keeps the others in
// order and adds the time taken to compile_seconds.
bool cs_radiosity_cull_hidden_gpu(cs_context *ctx, const cs_bvh *bvh, cs_radiosity_compiled *compiled,
                                  cs_error *err);

// cs_radiosity_compile without occlusion, then the GPU visibility above.
bool cs_radiosity_compile_gpu(cs_context *ctx, const cs_tri *tris, uint32_t tri_count, double patch_size,
                              const cs_bvh *bvh, cs_radiosity_compiled *out, cs_error *err);
