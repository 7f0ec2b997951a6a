// sh.h — real spherical harmonics up to l = 2 on the host: the 9 basis
// functions, the clamped-cosine convolution to irradiance, evaluation, and
// rotation of coefficients. Double precision for references and tools,
// float twins of what the shaders compute. Pure math: no GPU here (the
// projection of an environment on the GPU is sh_project.h).
//
// Convention (shaders/sh/sh_shared.h, docs/light.md): unit directions with
// +z up (theta from +z), coefficient index i = l (l + 1) + m, and NO
// Condon–Shortley phase (all normalisation constants positive). GLSL twin:
// shaders/sh/sh.glsl.
//
// Coefficients of a colour function are `double c[CS_SH_COUNT][3]` (RGB).
#pragma once

#include "common.h"

#include "../../shaders/sh/sh_shared.h"

// Band l of coefficient index i (0, 1 or 2).
int cs_sh_band(int i);
// A_l, the clamped-cosine kernel's coefficient for band l <= 2 (pi, 2 pi / 3,
// pi / 4).
double cs_sh_cosine_lobe(int l);

// Y_i(d) for a unit direction d.
void cs_sh_basis(const double d[3], double y[CS_SH_COUNT]);
void cs_sh_basis_f(const float d[3], float y[CS_SH_COUNT]);

// sum_i c[i] Y_i(n).
void cs_sh_eval(const double c[CS_SH_COUNT][3], const double n[3], double out[3]);
// Irradiance coefficients E_lm = A_l L_lm of radiance coefficients L.
void cs_sh_to_irradiance(const double radiance[CS_SH_COUNT][3], double irradiance[CS_SH_COUNT][3]);
// E(n) = sum A_l L_lm Y_lm(n) from radiance coefficients.
void cs_sh_irradiance(const double radiance[CS_SH_COUNT][3], const double n[3], double out[3]);
void cs_sh_irradiance_f(const float radiance[CS_SH_COUNT][3], const float n[3], float out[3]);

// Rotation. R is a 3x3 rotation matrix (row-major, R[row][col]) that moves
// the environment: light arriving from d before arrives from R d after. M is
// the 9x9 block-diagonal matrix with rotated = M original (M[0][0] = 1, a
// 3x3 block for band 1, a 5x5 block for band 2). Each band is closed under
// rotation, so M is exact: band l's block is A^-1 B with A[k][m] = Y_lm(n_k)
// and B[k][m] = Y_lm(R^T n_k) for 2l + 1 fixed directions n_k (a small
// linear solve in double; docs/light.md).
void cs_sh_rotation(const double R[3][3], double M[CS_SH_COUNT][CS_SH_COUNT]);
void cs_sh_rotate(const double R[3][3], const double in[CS_SH_COUNT][3], double out[CS_SH_COUNT][3]);
