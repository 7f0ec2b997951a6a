// radiosity_gpu.c — link visibility on the GPU (see radiosity_gpu.h).
#include "radiosity_gpu.h"

#include "radiosity_cluster.h"

#include <stdlib.h>
#include <string.h>

// Rays per dispatch: 32 MiB of rays and 16 MiB of hits, whatever the link count.
#define VISIBILITY_BATCH (1u << 20)

static cs_ray link_ray(const cs_radiosity_compiled *c, uint32_t i, uint32_t j)
{
    double o[3], d[3];
    cs_radiosity_link_ray(c, i, j, o, d);
    return (cs_ray){.origin_tmin = {(float)o[0], (float)o[1], (float)o[2], 0.0f},
                    .dir_tmax = {(float)d[0], (float)d[1], (float)d[2], 1.0f}};
}

bool cs_radiosity_cull_hidden_gpu(cs_context *ctx, const cs_bvh *bvh, cs_radiosity_compiled *c, cs_error *err)
{
    double start = cs_now_seconds();
    uint32_t batch = c->link_count < VISIBILITY_BATCH ? (c->link_count > 0 ? c->link_count : 1) : VISIBILITY_BATCH;
    cs_raycaster rc;
    if (!cs_raycaster_create(ctx, bvh, batch, &rc, err))
        return false;
    cs_ray *rays = malloc((size_t)batch * sizeof *rays);
    cs_cast_hit *hits = malloc((size_t)batch * sizeof *hits);
    bool *visible = malloc((size_t)(c->link_count > 0 ? c->link_count : 1) * sizeof *visible);
    if (!rays || !hits || !visible) {
        free(rays), free(hits), free(visible);
        cs_raycaster_destroy(ctx, &rc);
        return cs_fail(err, "radiosity: out of memory for %u visibility rays", c->link_count);
    }
    // Links are stored patch by patch: walk the owners alongside.
    uint32_t owner = 0;
    for (uint32_t first = 0; first < c->link_count; first += batch) {
        uint32_t n = c->link_count - first < batch ? c->link_count - first : batch;
        for (uint32_t k = 0; k < n; k++) {
            while (c->link_start[owner + 1] <= first + k)
                owner++;
            rays[k] = link_ray(c, owner, c->links[first + k].target);
        }
        cs_raycaster_cast(ctx, &rc, rays, n, true, hits);
        for (uint32_t k = 0; k < n; k++)
            visible[first + k] = hits[k].tri == CS_CAST_NO_HIT;
    }
    // Compact in place, patch by patch, keeping the order.
    uint32_t kept = 0;
    for (uint32_t i = 0; i < c->patch_count; i++) {
        uint32_t begin = c->link_start[i], end = c->link_start[i + 1];
        c->link_start[i] = kept;
        for (uint32_t l = begin; l < end; l++)
            if (visible[l])
                c->links[kept++] = c->links[l];
    }
    c->link_start[c->patch_count] = kept;
    c->link_count = kept;
    free(rays), free(hits), free(visible);
    cs_raycaster_destroy(ctx, &rc);
    c->compile_seconds += cs_now_seconds() - start;
    return true;
}

bool cs_radiosity_compile_gpu(cs_context *ctx, const cs_tri *tris, uint32_t tri_count, double patch_size,
                              const cs_bvh *bvh, cs_radiosity_compiled *out, cs_error *err)
{
    // The n^2 pairs of a large scene take minutes: say where it is.
    if (!cs_radiosity_compile_progress(tris, tri_count, patch_size, NULL, stderr, out, err))
        return false;
    if (!cs_radiosity_cull_hidden_gpu(ctx, bvh, out, err)) {
        cs_radiosity_free(out);
        return false;
    }
    return true;
}

// Receiving nodes by link count, fewest first (ties by index): llvmpipe
// runs 8 invocations in one SIMD loop as long as the longest of them, and
// neighbouring patches differ (at 7330 patches 1.36 link slots a link in
// patch order; about 1.0 sorted). Each node's sum is unchanged.
static uint32_t link_count_key(const cs_radiosity_compiled *c, uint32_t i)
{
    return c->link_start[i + 1] - c->link_start[i];
}

void cs_radiosity_gather_order(const cs_radiosity_compiled *c, uint32_t *order)
{
    uint32_t n = cs_radiosity_node_count(c), most = 0;
    for (uint32_t i = 0; i < n; i++)
        most = CS_MAX(most, link_count_key(c, i));
    // Counting sort: stable, so ties keep index order.
    uint32_t *start = calloc((size_t)most + 2, sizeof *start);
    CS_ASSERT(start, "out of memory for the gather order");
    for (uint32_t i = 0; i < n; i++)
        start[link_count_key(c, i) + 1]++;
    for (uint32_t k = 1; k <= most + 1; k++)
        start[k] += start[k - 1];
    for (uint32_t i = 0; i < n; i++)
        order[start[link_count_key(c, i)]++] = i;
    free(start);
}

uint32_t cs_radiosity_links_per_buffer(const cs_context *ctx)
{
    return (uint32_t)CS_MIN(ctx->props.limits.maxStorageBufferRange / sizeof(cs_link), (VkDeviceSize)UINT32_MAX);
}

bool cs_radiosity_links_fit(const cs_context *ctx, uint64_t links, cs_error *err)
{
    uint64_t per_buffer = cs_radiosity_links_per_buffer(ctx);
    if (links > 2 * per_buffer) {
        char need[32], have[32];
        return cs_fail(err, "radiosity: %llu links (%s) do not fit two link buffers of %s (maxStorageBufferRange)",
                       (unsigned long long)links, cs_format_bytes(links * sizeof(cs_link), need, sizeof need),
                       cs_format_bytes(per_buffer * sizeof(cs_link), have, sizeof have));
    }
    return cs_buffer_check_size(ctx, "radiosity links", CS_MIN(links, per_buffer) * sizeof(cs_link), err) &&
           cs_buffer_check_size(ctx, "radiosity links (second buffer)", (links - CS_MIN(links, per_buffer)) *
                                sizeof(cs_link), err);
}

bool cs_radiosity_gpu_create(cs_context *ctx, const cs_radiosity_compiled *c, const cs_bvh *bvh,
                             uint32_t light_capacity, uint32_t area_capacity, cs_radiosity_gpu *gpu, cs_error *err)
{
    return cs_radiosity_gpu_create_split(ctx, c, bvh, light_capacity, area_capacity,
                                         cs_radiosity_links_per_buffer(ctx), gpu, err);
}

bool cs_radiosity_gpu_create_split(cs_context *ctx, const cs_radiosity_compiled *c, const cs_bvh *bvh,
                                   uint32_t light_capacity, uint32_t area_capacity, uint32_t links_per_buffer,
                                   cs_radiosity_gpu *gpu, cs_error *err)
{
    memset(gpu, 0, sizeof *gpu);
    gpu->patch_count = c->patch_count;
    gpu->cluster_count = c->cluster_count;
    gpu->level_count = c->level_count;
    memcpy(gpu->level_start, c->level_start, sizeof gpu->level_start);
    gpu->light_capacity = light_capacity;
    gpu->area_capacity = area_capacity;
    VkDeviceSize n = c->patch_count, nodes = n + c->cluster_count;
    VkDeviceSize child_count = c->cluster_count ? c->child_start[c->cluster_count] : 0;
    gpu->first_cluster_link = c->link_start ? c->link_start[c->patch_count] : 0;
    VkDeviceSize gradient_links = c->link_gradients ? c->link_count - gpu->first_cluster_link : 0;
    if ((uint64_t)c->link_count > 2 * (uint64_t)links_per_buffer)
        return cs_fail(err, "radiosity: %u links do not fit two link buffers of %u", c->link_count,
                       links_per_buffer);
    gpu->links_in_first = CS_MIN(c->link_count, links_per_buffer);
    VkDeviceSize more_links = c->link_count - gpu->links_in_first;
    bool ok =
        cs_program_create(ctx, &(cs_program_desc){.path = "radiosity/direct.comp"}, &gpu->direct_program, err) &&
        cs_program_create(ctx, &(cs_program_desc){.path = "radiosity/gather.comp"}, &gpu->gather_program, err) &&
        cs_program_create(ctx, &(cs_program_desc){.path = "radiosity/upsweep.comp"}, &gpu->upsweep_program, err) &&
        cs_program_create(ctx, &(cs_program_desc){.path = "radiosity/feedback.comp"}, &gpu->feedback_program, err) &&
        cs_program_create(ctx, &(cs_program_desc){.path = "radiosity/pushdown.comp"}, &gpu->pushdown_program, err) &&
        cs_buffer_create_device(ctx, "radiosity bvh nodes", (VkDeviceSize)bvh->node_count * sizeof(cs_bvh_node),
                                &gpu->nodes, err) &&
        cs_buffer_create_device(ctx, "radiosity triangles", (VkDeviceSize)bvh->tri_count * sizeof(cs_tri), &gpu->tris,
                                err) &&
        cs_buffer_create_device(ctx, "radiosity patches", n * sizeof(cs_patch), &gpu->patches, err) &&
        cs_buffer_create_device(ctx, "radiosity link starts", (nodes + 1) * 4, &gpu->link_start, err) &&
        cs_buffer_create_device(ctx, "radiosity gather order", nodes * 4, &gpu->gather_order, err) &&
        cs_buffer_create_device(ctx, "radiosity parents", nodes * 4, &gpu->parents, err) &&
        cs_buffer_create_device(ctx, "radiosity irradiance", nodes * 16, &gpu->irradiance, err) &&
        cs_buffer_create_device(ctx, "radiosity openness", n * 4, &gpu->openness, err) &&
        cs_buffer_create_device(ctx, "radiosity link gradients", gradient_links * 16, &gpu->link_gradients, err) &&
        cs_buffer_create_device(ctx, "radiosity cluster centres", (VkDeviceSize)c->cluster_count * 16,
                                &gpu->cluster_centres, err) &&
        cs_buffer_create_device(ctx, "radiosity irradiance gradient", (VkDeviceSize)c->cluster_count * 48,
                                &gpu->irradiance_gradient, err) &&
        cs_buffer_create_device(ctx, "radiosity links", (VkDeviceSize)gpu->links_in_first * sizeof(cs_link),
                                &gpu->links, err) &&
        cs_buffer_create_device(ctx, "radiosity links (second buffer)", more_links * sizeof(cs_link),
                                &gpu->more_links, err) &&
        cs_buffer_create_device(ctx, "radiosity child starts", ((VkDeviceSize)c->cluster_count + 1) * 4,
                                &gpu->child_start, err) &&
        cs_buffer_create_device(ctx, "radiosity children", child_count * sizeof(cs_link), &gpu->children, err) &&
        cs_buffer_create_device(ctx, "radiosity lights", (VkDeviceSize)light_capacity * sizeof(cs_light),
                                &gpu->lights, err) &&
        cs_buffer_create_device(ctx, "radiosity area lights", (VkDeviceSize)area_capacity * sizeof(cs_area_light),
                                &gpu->area_lights, err) &&
        cs_buffer_create_device(ctx, "radiosity direct", n * 16, &gpu->direct, err) &&
        cs_buffer_create_device(ctx, "radiosity gathered", n * 16, &gpu->gathered, err) &&
        cs_buffer_create_device(ctx, "radiosity 0", nodes * 16, &gpu->radiosity[0], err) &&
        cs_buffer_create_device(ctx, "radiosity 1", nodes * 16, &gpu->radiosity[1], err);
    if (!ok) {
        cs_radiosity_gpu_destroy(ctx, gpu);
        return false;
    }
    cs_buffer_upload(ctx, &gpu->nodes, bvh->nodes, (VkDeviceSize)bvh->node_count * sizeof(cs_bvh_node), 0);
    if (bvh->tri_count > 0)
        cs_buffer_upload(ctx, &gpu->tris, bvh->tris, (VkDeviceSize)bvh->tri_count * sizeof(cs_tri), 0);
    if (n > 0) {
        cs_buffer_upload(ctx, &gpu->patches, c->patches, n * sizeof(cs_patch), 0);
        cs_buffer_upload(ctx, &gpu->link_start, c->link_start, (nodes + 1) * 4, 0);
        uint32_t *order = malloc(nodes * 4);
        CS_ASSERT(order, "out of memory for the gather order");
        cs_radiosity_gather_order(c, order);
        cs_buffer_upload(ctx, &gpu->gather_order, order, nodes * 4, 0);
        free(order);
    }
    if (c->parents && nodes > 0)
        cs_buffer_upload(ctx, &gpu->parents, c->parents, nodes * 4, 0);
    else
        cs_buffer_fill(ctx, &gpu->parents, CS_RADIOSITY_NO_PARENT);
    if (c->openness && n > 0)
        cs_buffer_upload(ctx, &gpu->openness, c->openness, n * 4, 0);
    else
        cs_buffer_fill(ctx, &gpu->openness, 0x3f800000u); // 1.0f
    if (gradient_links > 0)
        cs_buffer_upload(ctx, &gpu->link_gradients, c->link_gradients, gradient_links * 16, 0);
    else
        cs_buffer_fill(ctx, &gpu->link_gradients, 0u);
    if (c->cluster_count > 0) {
        float (*centres)[4] = malloc((size_t)c->cluster_count * sizeof *centres);
        CS_ASSERT(centres, "out of memory for the cluster centres");
        for (uint32_t k = 0; k < c->cluster_count; k++)
            for (int v = 0; v < 4; v++)
                centres[k][v] = v < 3 ? (float)c->clusters[k].center[v] : 0.0f;
        cs_buffer_upload(ctx, &gpu->cluster_centres, centres, (VkDeviceSize)c->cluster_count * 16, 0);
        free(centres);
    } else {
        cs_buffer_fill(ctx, &gpu->cluster_centres, 0u);
    }
    if (gpu->links_in_first > 0)
        cs_buffer_upload(ctx, &gpu->links, c->links, (VkDeviceSize)gpu->links_in_first * sizeof(cs_link), 0);
    if (more_links > 0)
        cs_buffer_upload(ctx, &gpu->more_links, c->links + gpu->links_in_first, more_links * sizeof(cs_link), 0);
    if (c->cluster_count > 0) {
        cs_buffer_upload(ctx, &gpu->child_start, c->child_start, ((VkDeviceSize)c->cluster_count + 1) * 4, 0);
        cs_buffer_upload(ctx, &gpu->children, c->children, child_count * sizeof(cs_link), 0);
    } else {
        cs_buffer_fill(ctx, &gpu->child_start, 0u);
        cs_buffer_fill(ctx, &gpu->children, 0u);
    }
    cs_buffer *cleared[] = {&gpu->lights,       &gpu->area_lights,  &gpu->direct,     &gpu->radiosity[0],
                            &gpu->radiosity[1], &gpu->gathered,     &gpu->irradiance, &gpu->irradiance_gradient};
    for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++)
        cs_buffer_fill(ctx, cleared[i], 0u);
    gpu->direct_push = (cs_direct_push){.patch_count = c->patch_count, .area_samples = 1};
    return true;
}

void cs_radiosity_gpu_destroy(cs_context *ctx, cs_radiosity_gpu *gpu)
{
    cs_program_destroy(ctx, &gpu->direct_program);
    cs_program_destroy(ctx, &gpu->gather_program);
    cs_program_destroy(ctx, &gpu->upsweep_program);
    cs_program_destroy(ctx, &gpu->feedback_program);
    cs_program_destroy(ctx, &gpu->pushdown_program);
    cs_buffer *buffers[] = {&gpu->nodes,       &gpu->tris,     &gpu->patches,     &gpu->link_start,
                            &gpu->links,       &gpu->lights,   &gpu->area_lights, &gpu->direct,
                            &gpu->radiosity[0], &gpu->radiosity[1], &gpu->child_start, &gpu->children,
                            &gpu->gathered,     &gpu->gather_order, &gpu->parents, &gpu->irradiance, &gpu->openness,
                            &gpu->link_gradients, &gpu->cluster_centres, &gpu->irradiance_gradient,
                            &gpu->more_links};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        cs_buffer_destroy(ctx, buffers[i]);
    memset(gpu, 0, sizeof *gpu);
}

// The counts the direct pass reads (its push constants), checked against
// the capacities.
static void set_light_counts(cs_radiosity_gpu *gpu, uint32_t count, uint32_t area_count, uint32_t area_samples)
{
    CS_ASSERT(count <= gpu->light_capacity && area_count <= gpu->area_capacity && area_samples > 0,
              "radiosity: %u lights, %u area lights (room for %u, %u), %u samples", count, area_count,
              gpu->light_capacity, gpu->area_capacity, area_samples);
    gpu->direct_push.light_count = count;
    gpu->direct_push.area_count = area_count;
    gpu->direct_push.area_samples = area_samples;
}

void cs_radiosity_gpu_set_lights(cs_context *ctx, cs_radiosity_gpu *gpu, const cs_light *lights, uint32_t count,
                                 const cs_area_light *area_lights, uint32_t area_count, uint32_t area_samples)
{
    set_light_counts(gpu, count, area_count, area_samples);
    if (count > 0)
        cs_buffer_upload(ctx, &gpu->lights, lights, (VkDeviceSize)count * sizeof(cs_light), 0);
    if (area_count > 0)
        cs_buffer_upload(ctx, &gpu->area_lights, area_lights, (VkDeviceSize)area_count * sizeof(cs_area_light), 0);
}

void cs_radiosity_gpu_record_lights(cs_recorder *rec, cs_radiosity_gpu *gpu, const cs_light *lights, uint32_t count,
                                    const cs_area_light *area_lights, uint32_t area_count, uint32_t area_samples)
{
    set_light_counts(gpu, count, area_count, area_samples);
    if (count > 0)
        cs_cmd_update(rec, &gpu->lights, lights, (VkDeviceSize)count * sizeof(cs_light), 0);
    if (area_count > 0)
        cs_cmd_update(rec, &gpu->area_lights, area_lights, (VkDeviceSize)area_count * sizeof(cs_area_light), 0);
}

void cs_radiosity_gpu_set_albedo(cs_context *ctx, cs_radiosity_gpu *gpu, const cs_radiosity_compiled *c)
{
    if (c->patch_count > 0)
        cs_buffer_upload(ctx, &gpu->patches, c->patches, (VkDeviceSize)c->patch_count * sizeof(cs_patch), 0);
}

// The clusters' radiosity in `b` from its patches', round by round.
static void record_upsweep(cs_recorder *rec, cs_radiosity_gpu *gpu, cs_buffer *b)
{
    for (uint32_t level = 0; level < gpu->level_count; level++) {
        cs_upsweep_push push = {.first_cluster = gpu->level_start[level],
                                .cluster_count = gpu->level_start[level + 1] - gpu->level_start[level],
                                .patch_count = gpu->patch_count};
        if (push.cluster_count == 0)
            continue;
        cs_pass_begin(rec, "radiosity: up-sweep");
        cs_dispatch(rec, gpu->upsweep_program,
                    &(cs_dispatch_desc){.buffers = {&gpu->child_start, &gpu->children, b},
                                        .push = &push, .push_size = sizeof push, .threads = {push.cluster_count}});
        cs_pass_end(rec);
        cs_barrier_compute(rec);
    }
}

static void record_direct(cs_recorder *rec, cs_radiosity_gpu *gpu)
{
    cs_pass_begin(rec, "radiosity: direct");
    cs_dispatch(rec, gpu->direct_program,
                &(cs_dispatch_desc){.buffers = {&gpu->nodes, &gpu->tris, &gpu->patches, &gpu->lights,
                                                &gpu->area_lights, &gpu->direct},
                                    .push = &gpu->direct_push, .push_size = sizeof gpu->direct_push,
                                    .threads = {gpu->patch_count}});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
}

// One gather from `from` (patches and clusters) into every receiving
// node's irradiance, then the push-down into `to` and gathered.
static void record_gather(cs_recorder *rec, cs_radiosity_gpu *gpu, cs_buffer *from, cs_buffer *to)
{
    cs_gather_push push = {.patch_count = gpu->patch_count,
                           .node_count = gpu->patch_count + gpu->cluster_count,
                           .first_cluster_link = gpu->first_cluster_link,
                           .first_buffer_links = gpu->links_in_first};
    cs_pass_begin(rec, "radiosity: gather");
    cs_dispatch(rec, gpu->gather_program,
                &(cs_dispatch_desc){.buffers = {&gpu->link_start, &gpu->links, from, &gpu->irradiance,
                                                &gpu->gather_order, &gpu->link_gradients, &gpu->irradiance_gradient,
                                                &gpu->more_links},
                                    .push = &push, .push_size = sizeof push, .threads = {push.node_count}});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
    cs_pass_begin(rec, "radiosity: push-down");
    cs_dispatch(rec, gpu->pushdown_program,
                &(cs_dispatch_desc){.buffers = {&gpu->patches, &gpu->direct, &gpu->parents, &gpu->irradiance, to,
                                                &gpu->gathered, &gpu->openness, &gpu->cluster_centres,
                                                &gpu->irradiance_gradient},
                                    .push = &push, .push_size = sizeof push, .threads = {gpu->patch_count}});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
}

void cs_radiosity_gpu_record(cs_recorder *rec, cs_radiosity_gpu *gpu, uint32_t bounces)
{
    record_direct(rec, gpu);
    // B0 = E + rho H is a gather over an all-zero previous radiosity (the
    // previous frame's gathers may still read it).
    cs_barrier_compute_to_transfer(rec);
    cs_cmd_fill(rec, &gpu->radiosity[1], 0u);
    cs_barrier_transfer_to_compute(rec);
    for (uint32_t pass = 0; pass <= bounces; pass++) {
        cs_buffer *from = &gpu->radiosity[(pass + 1) % 2], *to = &gpu->radiosity[pass % 2];
        // Pass 0 reads the zeros just written: no clusters to push up.
        if (pass > 0)
            record_upsweep(rec, gpu, from);
        record_gather(rec, gpu, from, to);
    }
    gpu->last_bounces = bounces;
}

void cs_radiosity_gpu_record_feedback(cs_recorder *rec, cs_radiosity_gpu *gpu)
{
    record_direct(rec, gpu);
    // The input goes to radiosity[1], the result to radiosity[0]
    // (last_bounces 0), so the gathered irradiance is the only state
    // carried from frame to frame.
    cs_buffer *input = &gpu->radiosity[1], *result = &gpu->radiosity[0];
    cs_gather_push push = {.patch_count = gpu->patch_count};
    cs_pass_begin(rec, "radiosity: feedback");
    cs_dispatch(rec, gpu->feedback_program,
                &(cs_dispatch_desc){.buffers = {&gpu->patches, &gpu->direct, &gpu->gathered, input},
                                    .push = &push, .push_size = sizeof push, .threads = {gpu->patch_count}});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
    record_upsweep(rec, gpu, input);
    record_gather(rec, gpu, input, result);
    gpu->last_bounces = 0;
}

cs_buffer *cs_radiosity_gpu_result(cs_radiosity_gpu *gpu)
{
    return &gpu->radiosity[gpu->last_bounces % 2];
}
