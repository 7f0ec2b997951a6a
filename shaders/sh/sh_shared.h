// sh_shared.h — real spherical harmonics up to l = 2 (9 functions) and the
// environment projection's work shapes, read by C (pipelines/light/sh.c,
// pipelines/light/sh_project.c) and GLSL (shaders/sh/).
//
// Convention (docs/light.md has the table):
//   - directions are unit vectors d = (x, y, z) = (sin θ cos φ, sin θ sin φ,
//     cos θ): θ from +z, φ from +x towards +y;
//   - index i = l (l + 1) + m: Y00, Y1-1, Y10, Y11, Y2-2, Y2-1, Y20, Y21, Y22;
//   - no Condon–Shortley phase: every constant below is positive
//     (Y1-1 = K1 y, Y11 = K1 x, Y2-1 = K2 y z, Y21 = K2 x z). A basis that
//     includes the phase (associated Legendre P_l^m carrying (-1)^m) has the
//     opposite sign on every odd m; its coefficients are ours with odd m
//     negated. Irradiance E(n) is the same in both.
#ifndef SH_SHARED_H
#define SH_SHARED_H

#include "cs_shared.h"

#define CS_SH_COUNT 9        // l <= 2
#define CS_SH_VALUES 27      // 9 coefficients x RGB, stored coefficient-major: [3 i + channel]

// Normalisation constants K_l^|m| (band by band).
#define CS_SH_K00 0.28209479177387814  // 1 / (2 sqrt(pi))           Y00
#define CS_SH_K1 0.48860251190291992   // sqrt(3 / (4 pi))           Y1-1 = K1 y, Y10 = K1 z, Y11 = K1 x
#define CS_SH_K2 1.09254843059207907   // sqrt(15 / (4 pi))          Y2-2 = K2 x y, Y2-1 = K2 y z, Y21 = K2 x z
#define CS_SH_K20 0.31539156525252001  // sqrt(5 / (16 pi))          Y20 = K20 (3 z^2 - 1)
#define CS_SH_K22 0.54627421529603953  // sqrt(15 / (16 pi))         Y22 = K22 (x^2 - y^2)

// Clamped-cosine convolution per band (Ramamoorthi & Hanrahan):
// irradiance coefficients E_lm = A_l L_lm.
#define CS_SH_A0 3.14159265358979324   // pi
#define CS_SH_A1 2.09439510239319549   // 2 pi / 3
#define CS_SH_A2 0.78539816339744831   // pi / 4

// Environment layouts.
//   lat-long: width x height texels, row 0 at the top (theta = 0, +z),
//     texel (x, y) centred on phi = 2 pi (x + 0.5) / width,
//     theta = pi (y + 0.5) / height.
//   cube: six faces of N x N texels in the order +X -X +Y -Y +Z -Z (Vulkan
//     cube layers), face texel (i, j) at s = 2 (i + 0.5) / N - 1,
//     t = 2 (j + 0.5) / N - 1, direction (before normalising) as Vulkan's
//     cube face selection reads it: +X (1, -t, -s), -X (-1, -t, s),
//     +Y (s, 1, t), -Y (s, -1, -t), +Z (s, -t, 1), -Z (-s, -t, -1).
#define CS_SH_LATLONG 0u
#define CS_SH_CUBE 1u

// Projection: every invocation sums CS_SH_PROJECT_ITEMS consecutive texels
// in order (no shared memory, no barrier: lavapipe pays for those) and
// writes its 27 sums to partials[v * partial_count + invocation]; the sum
// pass folds each row of partials with one workgroup in a fixed tree.
#define CS_SH_PROJECT_THREADS 64
#define CS_SH_PROJECT_ITEMS 32
#define CS_SH_SUM_THREADS 256
#define CS_SH_MAP_THREADS 64

struct cs_sh_project_push {
    uint env_layout;     // CS_SH_LATLONG or CS_SH_CUBE
    uint width;          // lat-long: image width; cube: face size N
    uint height;         // lat-long: image height; cube: N
    uint texel_count;    // width * height, or 6 N^2
};

struct cs_sh_sum_push {
    uint partial_count;  // partials per value (one per projection invocation)
};

// Irradiance maps (lat-long, same texel centres as above).
struct cs_sh_map_push {
    uint width;
    uint height;
    uint sample_count;   // convolve.comp: samples of the environment
    uint unused;
};

#endif
