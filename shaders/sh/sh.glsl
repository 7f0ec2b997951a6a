// sh.glsl — real spherical harmonics l <= 2 in GLSL: the basis, evaluation
// of coefficients, SH irradiance, and the direction of an environment texel.
// The convention (no Condon–Shortley phase, index l (l + 1) + m, +z up) is
// in sh_shared.h; pipelines/light/sh.c is the C twin (tests/test_sh.c compares).
#ifndef CS_SH_GLSL
#define CS_SH_GLSL

#include "sh_shared.h"

// The 9 basis functions at a unit direction d.
void cs_sh_basis(vec3 d, out float y[CS_SH_COUNT])
{
    y[0] = float(CS_SH_K00);
    y[1] = float(CS_SH_K1) * d.y;
    y[2] = float(CS_SH_K1) * d.z;
    y[3] = float(CS_SH_K1) * d.x;
    y[4] = float(CS_SH_K2) * d.x * d.y;
    y[5] = float(CS_SH_K2) * d.y * d.z;
    y[6] = float(CS_SH_K20) * (3.0 * d.z * d.z - 1.0);
    y[7] = float(CS_SH_K2) * d.x * d.z;
    y[8] = float(CS_SH_K22) * (d.x * d.x - d.y * d.y);
}

// sum_i c[i] Y_i(n): the function the coefficients stand for.
vec3 cs_sh_eval(vec3 c[CS_SH_COUNT], vec3 n)
{
    float y[CS_SH_COUNT];
    cs_sh_basis(n, y);
    vec3 sum = vec3(0.0);
    for (int i = 0; i < CS_SH_COUNT; i++)
        sum += c[i] * y[i];
    return sum;
}

// Irradiance at a surface of normal n from radiance coefficients L:
// E(n) = sum_lm A_l L_lm Y_lm(n).
vec3 cs_sh_irradiance(vec3 radiance[CS_SH_COUNT], vec3 n)
{
    float y[CS_SH_COUNT];
    cs_sh_basis(n, y);
    vec3 band0 = radiance[0] * y[0];
    vec3 band1 = radiance[1] * y[1] + radiance[2] * y[2] + radiance[3] * y[3];
    vec3 band2 = radiance[4] * y[4] + radiance[5] * y[5] + radiance[6] * y[6] + radiance[7] * y[7] +
                 radiance[8] * y[8];
    return float(CS_SH_A0) * band0 + float(CS_SH_A1) * band1 + float(CS_SH_A2) * band2;
}

// Centre direction of lat-long texel (x, y) of a width x height image.
vec3 cs_latlong_direction(uint x, uint y, uint width, uint height)
{
    const float pi = 3.14159265358979;
    float phi = 2.0 * pi * (float(x) + 0.5) / float(width);
    float theta = pi * (float(y) + 0.5) / float(height);
    float s = sin(theta);
    return vec3(s * cos(phi), s * sin(phi), cos(theta));
}

// Centre direction of texel (i, j) of cube face `face` (N x N), unit length.
vec3 cs_cube_direction(uint face, uint i, uint j, uint n)
{
    float s = 2.0 * (float(i) + 0.5) / float(n) - 1.0;
    float t = 2.0 * (float(j) + 0.5) / float(n) - 1.0;
    vec3 d;
    switch (face) {
    case 0: d = vec3(1.0, -t, -s); break;
    case 1: d = vec3(-1.0, -t, s); break;
    case 2: d = vec3(s, 1.0, t); break;
    case 3: d = vec3(s, -1.0, -t); break;
    case 4: d = vec3(s, -t, 1.0); break;
    default: d = vec3(-s, -t, -1.0); break;
    }
    return normalize(d);
}

#endif
