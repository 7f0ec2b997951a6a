// radiosity_gpu.h — the GPU side of radiosity's compilation: visibility
// of the links by rays cast on the GPU against the BVH (pipelines/trace/raycast.h)
// instead of pipelines/trace/bvh.c's CPU walk. docs/light.md, "Radiosity".
#pragma once

#include "radiosity.h"
#include "raycast.h"

#include "../../shaders/light/light_shared.h"

// H, the direct irradiance on every patch (3 doubles each), in double: the
// reference for shaders/radiosity/direct.comp. The same rays: from the
// centre lifted 1e-4 sqrt(area) along the normal, to the light's centre
// (a sphere's surface) or to each of an area light's samples^2 cell
// centres, stopping 1e-4 short.
void cs_radiosity_direct_cpu(const cs_radiosity_compiled *compiled, const cs_bvh *bvh, const cs_light *lights,
                             uint32_t light_count, const cs_area_light *area_lights, uint32_t area_count,
                             uint32_t samples, double *direct);

// Removes every link of `compiled` whose ray (cs_radiosity_link_ray) meets
// a triangle, casting them on the GPU in batches; keeps the others in
// order and adds the time taken to compile_seconds.
bool cs_radiosity_cull_hidden_gpu(cs_context *ctx, const cs_bvh *bvh, cs_radiosity_compiled *compiled,
                                  cs_error *err);

// cs_radiosity_compile without occlusion, then the GPU visibility above.
bool cs_radiosity_compile_gpu(cs_context *ctx, const cs_tri *tris, uint32_t tri_count, double patch_size,
                              const cs_bvh *bvh, cs_radiosity_compiled *out, cs_error *err);

// The order in which the gather's invocations take the receiving nodes
// (cs_radiosity_node_count indices): by link count, ties by index, so the
// invocations that run side by side in one SIMD loop on a CPU device have
// about as many links.
void cs_radiosity_gather_order(const cs_radiosity_compiled *compiled, uint32_t *order);

// Radiosity at run time on the GPU, every frame: direct light on every
// patch from the lights with shadow rays (shaders/radiosity/direct.comp),
// then `bounces` gathers (gather.comp). Lights and albedos may change
// between frames without compiling again.
typedef struct cs_radiosity_gpu {
    cs_program_id direct_program, gather_program, upsweep_program, feedback_program, pushdown_program;
    cs_buffer nodes, tris, patches, link_start;
    // The links, the first links_in_first of them in `links`, the rest in
    // more_links: each buffer within maxStorageBufferRange.
    cs_buffer links, more_links;
    uint32_t links_in_first;
    cs_buffer gather_order; // the receiving nodes as the gather's invocations take them (cs_radiosity_gather_order)
    cs_buffer child_start, children; // the cluster tree (compiled's), when it has one
    cs_buffer parents;      // per node: its parent cluster's node id, or CS_RADIOSITY_NO_PARENT
    cs_buffer irradiance;   // per node vec4: the gather's G, before the push-down
    cs_buffer openness;     // per patch float: the share of its ancestors' G it keeps
    cs_buffer link_gradients;      // vec4 per link received by a cluster: grad F
    cs_buffer cluster_centres;     // vec4 per cluster: its centroid
    cs_buffer irradiance_gradient; // 3 vec4 per cluster: d G / dx, dy, dz
    uint32_t first_cluster_link;   // link_start[patch_count]
    cs_buffer lights, area_lights, direct;
    // per patch vec4: the last gather's sum of F_ij B_j, the next feedback
    // frame's higher bounces (zero until the first gather)
    cs_buffer gathered;
    // per node vec4 (rgb): patches first, then clusters; the frame's
    // result is cs_radiosity_gpu_result's
    cs_buffer radiosity[2];
    uint32_t patch_count, cluster_count, light_capacity, area_capacity;
    uint32_t level_start[CS_RADIOSITY_MAX_LEVELS + 1];
    uint32_t level_count;
    cs_direct_push direct_push;
    uint32_t last_bounces;
} cs_radiosity_gpu;

// Uploads the compiled patches and links and the BVH; room for up to
// light_capacity punctual and area_capacity area lights (0 is fine).
bool cs_radiosity_gpu_create(cs_context *ctx, const cs_radiosity_compiled *compiled, const cs_bvh *bvh,
                             uint32_t light_capacity, uint32_t area_capacity, cs_radiosity_gpu *gpu, cs_error *err);
// The same with at most links_per_buffer links in each of the two link
// buffers (tests split small link sets with it).
bool cs_radiosity_gpu_create_split(cs_context *ctx, const cs_radiosity_compiled *compiled, const cs_bvh *bvh,
                                   uint32_t light_capacity, uint32_t area_capacity, uint32_t links_per_buffer,
                                   cs_radiosity_gpu *gpu, cs_error *err);
void cs_radiosity_gpu_destroy(cs_context *ctx, cs_radiosity_gpu *gpu);
// Links one storage buffer holds on this device (maxStorageBufferRange).
uint32_t cs_radiosity_links_per_buffer(const cs_context *ctx);
// Whether `links` links fit the gather's two link buffers (and the
// device's memory); else false with err saying why.
bool cs_radiosity_links_fit(const cs_context *ctx, uint64_t links, cs_error *err);

// The lights of the next frames (counts within the capacities) and the
// area lights' sample grid side (at least 1).
void cs_radiosity_gpu_set_lights(cs_context *ctx, cs_radiosity_gpu *gpu, const cs_light *lights, uint32_t count,
                                 const cs_area_light *area_lights, uint32_t area_count, uint32_t area_samples);
// The same, recorded into `rec` (cs_cmd_update) for the frames recorded
// after it: no submit of its own, so a frame with moving lights stays one
// submit (world_radiosity.c, every frame).
void cs_radiosity_gpu_record_lights(cs_recorder *rec, cs_radiosity_gpu *gpu, const cs_light *lights, uint32_t count,
                                    const cs_area_light *area_lights, uint32_t area_count, uint32_t area_samples);
// New albedos (3 floats per patch), e.g. the walls' colours cycled.
void cs_radiosity_gpu_set_albedo(cs_context *ctx, cs_radiosity_gpu *gpu, const cs_radiosity_compiled *compiled);

// Records one frame: the passes "radiosity: direct" and "radiosity:
// gather" + "radiosity: push-down" (bounces + 1 times: B0 = E + rho H,
// then the bounces); with clusters, every bounce's gather comes after
// "radiosity: up-sweep" (one pass per round of the tree).
void cs_radiosity_gpu_record(cs_recorder *rec, cs_radiosity_gpu *gpu, uint32_t bounces);
// Records one feedback frame (docs/light.md, "Feedback"): "radiosity:
// direct", then "radiosity: feedback" (B_in = E + rho (H(t) + G(t - 1)),
// G the previous gather's irradiance), the up-sweeps, one "radiosity:
// gather" and its "radiosity: push-down". Frame t of a static scene is the t-bounce solution; moved
// lights change the direct light and the first bounce within the frame.
void cs_radiosity_gpu_record_feedback(cs_recorder *rec, cs_radiosity_gpu *gpu);
// The buffer holding the last recorded frame's radiosity (vec4 per patch).
cs_buffer *cs_radiosity_gpu_result(cs_radiosity_gpu *gpu);
