// env.h — environment images on the host: lat-long (equirectangular) and
// cube-map layouts of linear RGB radiance, their texel directions and exact
// solid angles, loading Radiance .hdr files, and reducing an environment to
// fewer samples for brute-force convolution.
//
// Layouts and texel centres are defined once, in shaders/sh/sh_shared.h
// (CS_SH_LATLONG, CS_SH_CUBE); the shaders compute the same directions.
// Solid angles (docs/light.md):
//   lat-long texel (x, y): (2 pi / W) (cos theta0 - cos theta1)
//     = (2 pi / W) 2 sin(theta_c) sin(pi / (2 H)), exact for the texel's
//     band of latitude (the integral of cos(latitude) dlatitude dphi), so
//     the texels of any W x H image sum to 4 pi;
//   cube texel [s0, s1] x [t0, t1] on a face at distance 1:
//     F(s0, t0) - F(s0, t1) - F(s1, t0) + F(s1, t1),
//     F(s, t) = atan2(s t, sqrt(s^2 + t^2 + 1)), exact; 6 faces sum to 4 pi.
#pragma once

#include "common.h"

#include "../../shaders/sh/sh_shared.h"

// Refused above this (the GPU copy holds a vec4 per texel: 1 GiB).
#define CS_ENV_MAX_TEXELS (1u << 26)
// The brightest texel value an image may hold: the SH projection and the
// brute-force convolution sum radiance x solid angle (4 pi in all) in
// float, so much larger values overflow to infinity. Real skies stay below
// 1e10 (the sun's disc included); RGBE reaches 1.7e38.
#define CS_ENV_MAX_RADIANCE 1e30f

typedef struct cs_env {
    uint32_t layout;           // CS_SH_LATLONG or CS_SH_CUBE
    uint32_t width, height;    // lat-long: the image; cube: the face size N (width = height = N)
    float *rgb;                // 3 floats per texel; cube: faces +X -X +Y -Y +Z -Z, each N rows of N
    char name[256];            // the file, for messages
} cs_env;

// Allocates a zeroed environment. False with a message for a zero or too
// large size.
bool cs_env_create(cs_env *env, uint32_t layout, uint32_t width, uint32_t height, const char *name, cs_error *err);
void cs_env_free(cs_env *env);
uint32_t cs_env_texel_count(const cs_env *env);

// Loads a Radiance .hdr (RGBE) file with stb_image. `cube`: the image is a
// horizontal strip of six square faces (width = 6 height), in the order and
// orientation of sh_shared.h; otherwise it is a lat-long image of any
// shape. Every failure says the file, the reason and what to do.
bool cs_env_load_hdr(const char *path, bool cube, cs_env *env, cs_error *err);

// Centre direction (unit) and solid angle of texel t, in double.
void cs_env_texel_direction(uint32_t layout, uint32_t width, uint32_t height, uint32_t t, double dir[3]);
double cs_env_texel_solid_angle(uint32_t layout, uint32_t width, uint32_t height, uint32_t t);
// The texel whose area contains unit direction d.
uint32_t cs_env_texel_at(uint32_t layout, uint32_t width, uint32_t height, const double d[3]);

// The solid-angle table the projection shader reads: lat-long, one per row
// (height values); cube, one per face texel (N^2 values, the same for all
// six faces by symmetry). cs_env_weight_count says how many.
uint32_t cs_env_weight_count(uint32_t layout, uint32_t width, uint32_t height);
void cs_env_weights(uint32_t layout, uint32_t width, uint32_t height, float *weights);

// The environment as samples for brute-force convolution: blocks of
// block x block texels (lat-long: block_x x block_y; cube: per face) become
// one sample each: solid angle = the sum of the texels', radiance = their
// solid-angle-weighted mean, direction = their solid-angle-weighted mean
// direction, normalised. The integral of the radiance over the sphere is
// kept; what is lost is detail inside a block. Arrays are vec4s, malloc'd.
typedef struct cs_env_samples {
    uint32_t count;
    float *dir_omega;          // xyz direction, w solid angle
    float *radiance;           // rgb, w = 0
} cs_env_samples;

bool cs_env_samples_make(const cs_env *env, uint32_t block_x, uint32_t block_y, cs_env_samples *out, cs_error *err);
void cs_env_samples_free(cs_env_samples *s);
