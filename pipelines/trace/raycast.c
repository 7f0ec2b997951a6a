// raycast.c — GPU ray casts against a BVH in batches (see raycast.h).
#include "raycast.h"

#include <string.h>

_Static_assert(sizeof(cs_ray) == 32, "cs_ray is not std430-packed");
_Static_assert(sizeof(cs_cast_hit) == 16, "cs_cast_hit is not std430-packed");

bool cs_raycaster_create(cs_context *ctx, const cs_bvh *bvh, uint32_t batch, cs_raycaster *rc, cs_error *err)
{
    memset(rc, 0, sizeof *rc);
    rc->batch = batch > 0 ? batch : 1;
    VkDeviceSize tri_slots = bvh->tri_count > 0 ? bvh->tri_count : 1;
    bool ok = cs_program_create(ctx, &(cs_program_desc){.path = "geometry/cast.comp"}, &rc->program, err) &&
              cs_buffer_create_device(ctx, "raycast bvh nodes", (VkDeviceSize)bvh->node_count * sizeof(cs_bvh_node),
                                      &rc->nodes, err) &&
              cs_buffer_create_device(ctx, "raycast triangles", tri_slots * sizeof(cs_tri), &rc->tris, err) &&
              cs_buffer_create_device(ctx, "raycast rays", (VkDeviceSize)rc->batch * sizeof(cs_ray), &rc->rays, err) &&
              cs_buffer_create_device(ctx, "raycast hits", (VkDeviceSize)rc->batch * sizeof(cs_cast_hit), &rc->hits,
                                      err);
    if (!ok) {
        cs_raycaster_destroy(ctx, rc);
        return false;
    }
    cs_buffer_upload(ctx, &rc->nodes, bvh->nodes, (VkDeviceSize)bvh->node_count * sizeof(cs_bvh_node), 0);
    if (bvh->tri_count > 0)
        cs_buffer_upload(ctx, &rc->tris, bvh->tris, (VkDeviceSize)bvh->tri_count * sizeof(cs_tri), 0);
    else
        cs_buffer_fill(ctx, &rc->tris, 0u);
    return true;
}

void cs_raycaster_destroy(cs_context *ctx, cs_raycaster *rc)
{
    cs_program_destroy(ctx, &rc->program);
    cs_buffer *buffers[] = {&rc->nodes, &rc->tris, &rc->rays, &rc->hits};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        cs_buffer_destroy(ctx, buffers[i]);
    memset(rc, 0, sizeof *rc);
}

void cs_raycaster_cast(cs_context *ctx, cs_raycaster *rc, const cs_ray *rays, uint32_t count, bool any_hit,
                       cs_cast_hit *hits)
{
    cs_recorder rec;
    cs_recorder_create(ctx, "raycast", &rec);
    for (uint32_t first = 0; first < count; first += rc->batch) {
        uint32_t n = count - first < rc->batch ? count - first : rc->batch;
        cs_buffer_upload(ctx, &rc->rays, rays + first, (VkDeviceSize)n * sizeof(cs_ray), 0);
        cs_cast_push push = {.ray_count = n, .flags = any_hit ? CS_CAST_ANY_HIT : 0u};
        cs_recorder_begin(&rec);
        cs_pass_begin(&rec, "raycast");
        cs_dispatch(&rec, rc->program,
                    &(cs_dispatch_desc){.buffers = {&rc->nodes, &rc->tris, &rc->rays, &rc->hits},
                                        .push = &push, .push_size = sizeof push, .threads = {n}});
        cs_pass_end(&rec);
        cs_recorder_submit_wait(&rec);
        rc->gpu_ms += cs_recorder_total_ms(&rec);
        cs_buffer_download(ctx, &rc->hits, hits + first, (VkDeviceSize)n * sizeof(cs_cast_hit), 0);
    }
    cs_recorder_destroy(&rec);
}
