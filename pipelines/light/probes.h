// probes.h — light probes: a regular grid of probes over a scene's static
// geometry, each gathering the radiance around it with K rays cast against
// the BVH (a hit on a patch's front brings its current radiosity as
// radiance B / pi) plus the scene's lights with a shadow ray each, projected
// onto 9 RGB SH coefficients (pipelines/light/sh.h's convention) and stored
// convolved with the clamped cosine, ready for E(n) = sum_i E_i Y_i(n).
// Probes whose rays mostly meet back faces are flagged as inside geometry;
// shaders/light/probes.glsl interpolates the others trilinearly.
// docs/light.md, "Light probes".
//
// GPU passes (cs_probes_record): "probes: gather" (one invocation per probe
// and chunk of CS_PROBE_CHUNK rays; shaders/light/probes_gather.comp), then
// "probes: finish" (one per probe: chunk sums in order, lights, flag,
// A_l; probes_finish.comp). cs_probes_cpu is the double twin of both.
#pragma once

#include "radiosity_gpu.h"

#include "../../shaders/light/probes_shared.h"
#include "../../shaders/sh/sh_shared.h"

// Most rays a probe may cast (the direction table's size).
#define CS_PROBES_MAX_RAYS 16384u

typedef struct cs_probes_desc {
    double lo[3], hi[3];     // the box the grid fills: one probe at the centre of each of dims cells
    uint32_t dims[3];        // probes per axis, each >= 1
    uint32_t rays;           // K directions a probe, 1 to CS_PROBES_MAX_RAYS
    float exposure;          // what the renderer shows x = exposure * albedo * E through (geometry's)
    bool closed;             // the geometry encloses its open space (a level): misses count as back faces
} cs_probes_desc;

typedef struct cs_probes {
    cs_program_id gather_program, finish_program;
    cs_buffer directions;    // K vec4 (xyz unit, w 0)
    cs_buffer tri_patches;   // per BVH triangle uvec4 (first patch, lattice side n, 0, 0)
    cs_buffer partials;      // probe x chunk x CS_PROBE_PARTIAL_VEC4 vec4
    cs_buffer probes;        // cs_probe_grid header, then probe_count cs_probe
    cs_probe_grid grid;      // the header as uploaded
    cs_probes_push push;
    uint32_t probe_count;
    float (*direction_table)[4]; // the K directions on the host (the CPU twin reads them)
} cs_probes;

// The fixed direction set: the spherical Fibonacci points
// z_k = 1 - (2k + 1) / K, phi_k = 2 pi frac(k (sqrt 5 - 1) / 2), k < K,
// computed in double and rounded to float. Equal solid angle 4 pi / K each.
void cs_probes_directions(uint32_t rays, float (*out)[4]);

// The grid's header for a desc (shading flag off).
cs_probe_grid cs_probes_grid(const cs_probes_desc *desc);
// Position of probe `index` (i + dims.x (j + dims.y k)).
void cs_probes_position(const cs_probe_grid *grid, uint32_t index, double out[3]);

// Bytes each probe takes in the largest per-probe buffer at `rays` rays:
// the partial sums (ceil(rays / CS_PROBE_CHUNK) chunks of
// CS_PROBE_PARTIAL_VEC4 vec4) or the record (cs_probe), whichever is more.
uint64_t cs_probes_bytes_per_probe(uint32_t rays);
// The most probes this device can hold at `rays` rays: every probe buffer
// within its maxStorageBufferRange.
uint64_t cs_probes_max_count(const cs_context *ctx, uint32_t rays);

// The size refusals alone, before anything is made: a desc out of range or
// more probes than cs_probes_max_count (the message names the count, the
// limit and the device's maxStorageBufferRange). A caller that passes this
// and then fails cs_probes_create failed for another cause (a shader that
// does not build, device memory), which the grid's size does not explain.
bool cs_probes_check(const cs_context *ctx, const cs_probes_desc *desc, cs_error *err);

// Builds the programs and buffers for the patches and BVH radiosity was
// compiled from (the same triangles). False with a message for what
// cs_probes_check refuses, or when a program or buffer cannot be made.
bool cs_probes_create(cs_context *ctx, const cs_probes_desc *desc, const cs_radiosity_compiled *compiled,
                      const cs_bvh *bvh, cs_probes *probes, cs_error *err);
void cs_probes_destroy(cs_context *ctx, cs_probes *probes);

// Records "probes: gather" and "probes: finish" from the radiosity `gpu`
// last recorded (its BVH, result and lights); call after its gathers, the
// barrier after them included. Outside a pass.
void cs_probes_record(cs_recorder *rec, cs_probes *probes, cs_radiosity_gpu *gpu);

// The renderer's switch: lights particles by the probes or not (uploads
// the header's flag; between frames).
void cs_probes_set_shading(cs_context *ctx, cs_probes *probes, bool on);

// Downloads every probe (probe_count records).
void cs_probes_read(cs_context *ctx, const cs_probes *probes, cs_probe *out);

// The double twin of both passes for one probe at `position`: the same
// directions and rays, radiosity 3 doubles per patch, the same lights.
// irradiance gets E_i (rgb), back the fraction of rays that met a back face
// (with `closed`, or nothing: cs_probes_desc.closed).
void cs_probes_cpu(const cs_radiosity_compiled *compiled, const cs_bvh *bvh, const double *radiosity,
                   const float (*directions)[4], uint32_t rays, const cs_light *lights, uint32_t light_count,
                   const cs_area_light *area_lights, uint32_t area_count, uint32_t area_samples,
                   bool closed, const double position[3], double irradiance[CS_SH_COUNT][3], double *back);

// The patch of scene triangle data (first patch, lattice side n) holding
// barycentrics (u, v): the GPU's hit_patch in double.
uint32_t cs_probes_hit_patch(uint32_t first, uint32_t n, double u, double v);
