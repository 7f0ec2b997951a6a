// raycast.h — casts lists of rays against a BVH on the GPU
// (shaders/geometry/cast.comp, whose walk is shaders/geometry/bvh.glsl):
// nearest hits, or any hit for visibility and shadow rays. The rays go in
// batches so that a long list (radiosity's link candidates) needs only
// one batch of GPU memory. pipelines/trace/bvh.c's double walk is the reference
// (tests/test_raycast_gpu.c).
#pragma once

#include "bvh.h"
#include "recorder.h"

#include "../../shaders/geometry/cast_shared.h"

typedef struct cs_raycaster {
    cs_program_id program;
    cs_buffer nodes, tris, rays, hits;
    uint32_t batch;          // rays per dispatch (the rays and hits buffers' size)
    double gpu_ms;           // GPU time of every cast so far (timestamps)
} cs_raycaster;

// Uploads the BVH. batch: most rays per dispatch (at least 1).
bool cs_raycaster_create(cs_context *ctx, const cs_bvh *bvh, uint32_t batch, cs_raycaster *rc, cs_error *err);
void cs_raycaster_destroy(cs_context *ctx, cs_raycaster *rc);

// Casts `count` rays and waits: hits[i] is ray i's nearest hit, or with
// any_hit the first one the walk meets (tri CS_CAST_NO_HIT when none).
void cs_raycaster_cast(cs_context *ctx, cs_raycaster *rc, const cs_ray *rays, uint32_t count, bool any_hit,
                       cs_cast_hit *hits);
