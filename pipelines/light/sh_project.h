// sh_project.h — spherical harmonics on the GPU: projection of an
// environment (lat-long or cube, env.h) onto the 9 real SH functions l <= 2,
// an irradiance map from the coefficients, and a brute-force irradiance map
// to compare it with. Owns the programs and buffers; shaders in
// shaders/sh/, shapes in shaders/sh/sh_shared.h, conventions and measured
// figures in docs/light.md.
//
// Projection (two passes, each one recorder pass with its own timestamps):
//   "sh: project"  every invocation sums 32 consecutive texels'
//                  L(texel) Y_lm(centre) Omega(texel) in order;
//   "sh: sum"      27 workgroups (9 coefficients x RGB) fold those partial
//                  sums in a fixed tree.
// No atomics and no order that depends on timing: the same environment
// gives the same bits every run. The solid angles are computed on the host
// in double (env.h) and uploaded with the image.
#pragma once

#include "env.h"
#include "recorder.h"

typedef struct cs_sh_gpu {
    cs_program_id project, sum, irradiance_map, convolve;
    cs_buffer texels;          // vec4 per texel (rgb radiance)
    cs_buffer weights;         // solid angles: one per lat-long row or per cube-face texel
    cs_buffer partials;        // 27 rows of one value per projection invocation
    cs_buffer coeffs;          // 27 floats: radiance coefficients L_lm, [3 i + channel]
    uint32_t capacity;         // texels
    // The environment uploaded last.
    uint32_t layout, width, height, texel_count;
} cs_sh_gpu;

// Programs and buffers for environments of up to `capacity` texels.
bool cs_sh_gpu_create(cs_context *ctx, uint32_t capacity, cs_sh_gpu *gpu, cs_error *err);
void cs_sh_gpu_destroy(cs_context *ctx, cs_sh_gpu *gpu);

// Uploads the texels and their solid angles (blocking). False with a
// message when the environment is larger than the capacity.
bool cs_sh_gpu_upload(cs_context *ctx, cs_sh_gpu *gpu, const cs_env *env, cs_error *err);
// Records the projection of the uploaded environment into gpu->coeffs (the
// passes "sh: project" and "sh: sum"), ending with a compute barrier.
void cs_sh_project_record(cs_recorder *rec, cs_sh_gpu *gpu);
// Reads the radiance coefficients back (after the recording ran).
void cs_sh_gpu_read(cs_context *ctx, const cs_sh_gpu *gpu, float radiance[CS_SH_COUNT][3]);

// Pass "sh: irradiance map": out[p] = (E(n_p), 1) for the texel centres n_p
// of a width x height lat-long map, E from gpu->coeffs. `out` holds
// width * height vec4s.
void cs_sh_irradiance_map_record(cs_recorder *rec, cs_sh_gpu *gpu, cs_buffer *out, uint32_t width, uint32_t height);
// Pass "sh: brute force": out[p] = sum_s L_s Omega_s max(n_p . d_s, 0) over
// `count` samples (cs_env_samples_make, uploaded as vec4 arrays).
void cs_sh_convolve_record(cs_recorder *rec, cs_sh_gpu *gpu, cs_buffer *dir_omega, cs_buffer *radiance,
                           uint32_t count, cs_buffer *out, uint32_t width, uint32_t height);
