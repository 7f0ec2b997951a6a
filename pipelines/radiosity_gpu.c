// radiosity_gpu.c — link visibility on the GPU (see radiosity_gpu.h).
#include "radiosity_gpu.h"

#include <stdlib.h>

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
    if (!cs_radiosity_compile(tris, tri_count, patch_size, NULL, out, err))
        return false;
    if (!cs_radiosity_cull_hidden_gpu(ctx, bvh, out, err)) {
        cs_radiosity_free(out);
        return false;
    }
    return true;
}
