// pathtrace.h — a progressive GPU path tracer over a scene's static geometry
// (geometry.h triangles, bvh.h hierarchy): Lambertian surfaces, next-event
// estimation, Russian roulette, per-pixel sums and sums of squares, an
// optional variance pass (oversample the pixels with the highest sample
// variance), and a probe mode that estimates every triangle's average
// outgoing radiance (to compare with radiosity). Shaders in
// shaders/pathtrace/, shapes in pathtrace_shared.h, the estimator and RNG in
// docs/light.md, "Path tracer". pathtrace_ref.c is the CPU twin in double.
//
// Units: emission is a Lambertian exitance M (W/m^2, as geometry.h says),
// so the emitted radiance is M / pi. Images hold radiance L (W/m^2/sr);
// probes report the radiosity-equivalent pi L (W/m^2), the unit a
// radiosity solver's B has.
#pragma once

#include "bvh.h"
#include "recorder.h"

#include "../../shaders/pathtrace/pathtrace_shared.h"

typedef struct cs_pt_settings {
    uint32_t width, height;  // image size in pixels (at least 1 x 1)
    uint32_t seed;
    bool nee;                // next-event estimation (default on)
    bool roulette;           // Russian roulette (default on)
    uint32_t max_bounces;    // 1 to CS_PT_MAX_BOUNCES
    uint32_t rr_start;       // first bounce roulette may end a path (default 3)
    // The pinhole camera.
    double position[3], target[3], up[3];
    double fov_degrees;      // vertical
} cs_pt_settings;

// Defaults: NEE and roulette on, 64 bounces, roulette from bounce 3, seed 1.
cs_pt_settings cs_pt_settings_default(uint32_t width, uint32_t height);

// The emissive triangles of `bvh` (emission > 0 in some channel), with the
// area CDF light sampling reads. *area is their total area.
bool cs_pt_lights_build(const cs_bvh *bvh, struct cs_pt_light **lights, uint32_t *count, double *area,
                        cs_error *err);

// Push constants for `settings` over `bvh` (camera basis, ray offset, the
// light count and area); item_count and spp are the recorder's to set.
struct cs_pt_push cs_pt_push_make(const cs_pt_settings *settings, const cs_bvh *bvh, uint32_t light_count,
                                  double light_area);

typedef struct cs_pathtracer {
    cs_program_id trace, probe;
    cs_buffer nodes, tris, lights;
    cs_buffer sum, sum_sq, info, pixel_list;  // per pixel (pixel_list: pixel indices)
    cs_buffer probe_sum, probe_sq;            // per probe slot (triangle x CS_PT_PROBE_LANES)
    struct cs_pt_push push;
    uint32_t pixel_count, tri_count, light_count;
    // Paths an item at most in one dispatch: CS_PT_BATCH_SPP; more only to
    // show what the driver's loop budget does (test_pathtrace_determinism).
    uint32_t batch_spp;
    double light_area;
    cs_pt_settings settings;
} cs_pathtracer;

// Uploads the BVH and lights, zeroes the sums. False with a message for
// settings out of range or a failed allocation.
bool cs_pt_create(cs_context *ctx, const cs_bvh *bvh, const cs_pt_settings *settings, cs_pathtracer *pt,
                  cs_error *err);
void cs_pt_destroy(cs_context *ctx, cs_pathtracer *pt);

// Pass "pathtrace: samples": spp more paths for every pixel.
void cs_pt_record_samples(cs_recorder *rec, cs_pathtracer *pt, uint32_t spp);
// Pass "pathtrace: variance pass": spp more paths for each of the `count`
// pixels of `pixels` (uploaded first; blocking).
void cs_pt_record_oversample(cs_recorder *rec, cs_pathtracer *pt, const uint32_t *pixels, uint32_t count,
                             uint32_t spp);
// Pass "pathtrace: probe": spp more paths for every probe slot.
void cs_pt_record_probe(cs_recorder *rec, cs_pathtracer *pt, uint32_t spp);

// Reads the per-pixel sums back: sum and sum_sq hold 4 floats a pixel
// (rgb, count) and (rgb, 0); info 4 uints (first triangle, vertices, path
// hash, 0) of each pixel's last path. Any of them may be NULL. A pixel's
// count falls short of the paths asked for only where the driver's loop
// budget ran out (CS_PT_BATCH_SPP); its sums are those of its first `count`
// paths, exactly.
void cs_pt_read_pixels(cs_context *ctx, const cs_pathtracer *pt, float *sum, float *sum_sq, uint32_t *info);

// The `count` pixels with the highest sample variance of luminance (ties:
// the lower index first), from sums read back. count <= pixel count.
void cs_pt_highest_variance(const float *sum, const float *sum_sq, uint32_t pixel_count, uint32_t count,
                            uint32_t *pixels);

typedef struct cs_pt_probe_result {
    double radiosity[3];     // pi x mean outgoing radiance over the front (W/m^2)
    double std_error[3];     // its standard error
    uint64_t samples;
} cs_pt_probe_result;

// Per triangle, in the BVH's order (bvh->tri_source maps back to the
// scene's order): sums the lanes in double.
void cs_pt_read_probe(cs_context *ctx, const cs_pathtracer *pt, cs_pt_probe_result *out);

// The CPU twin (pathtrace_ref.c): one camera path of pixel `pixel`, sample
// `sample_index`, in double precision with the same random numbers;
// info as the GPU writes it.
void cs_pt_ref_pixel(const cs_bvh *bvh, const struct cs_pt_light *lights, const struct cs_pt_push *push,
                     uint32_t pixel, uint32_t sample_index, double radiance[3], uint32_t info[3]);
