// sh_ref.h — double-precision references for tests/test_sh.c, written from
// the definitions rather than from pipelines/light/sh.c and pipelines/light/env.c:
//
//   - the real SH basis from its general form,
//       Y_l^m(theta, phi) = Phi_m(phi) N_l^|m| P_l^|m|(cos theta),
//       Phi_m = sqrt(2) cos(m phi) (m > 0), 1 (m = 0), sqrt(2) sin(|m| phi) (m < 0),
//       N_l^m = sqrt((2l + 1) / (4 pi) (l - m)! / (l + m)!),
//     with the associated Legendre functions P_l^m evaluated by the usual
//     recurrence WITH the Condon–Shortley phase (-1)^m (P_1^1 = -sqrt(1 - x^2));
//     cistern's basis has no phase, so ref_sh_basis multiplies by (-1)^m;
//   - texel solid angles by numerical integration (cube: Gauss–Legendre of
//     (1 + s^2 + t^2)^(-3/2) over the texel; lat-long: cos theta0 - cos theta1
//     taken as a plain difference);
//   - projection and brute-force irradiance as plain sums in double.
// Header-only.
#pragma once

#include <math.h>
#include <stdint.h>

#ifndef REF_PI
#define REF_PI 3.14159265358979323846
#endif

// P_l^m(x) with the Condon–Shortley phase, 0 <= m <= l.
static double ref_legendre(int l, int m, double x)
{
    double pmm = 1.0, s = sqrt((1.0 - x) * (1.0 + x)), fact = 1.0;
    for (int i = 1; i <= m; i++) {
        pmm *= -fact * s;
        fact += 2.0;
    }
    if (l == m)
        return pmm;
    double pmmp1 = x * (2.0 * m + 1.0) * pmm;
    if (l == m + 1)
        return pmmp1;
    double pll = 0.0;
    for (int ll = m + 2; ll <= l; ll++) {
        pll = ((2.0 * ll - 1.0) * x * pmmp1 - (ll + m - 1.0) * pmm) / (ll - m);
        pmm = pmmp1;
        pmmp1 = pll;
    }
    return pll;
}

static double ref_factorial(int n)
{
    double f = 1.0;
    for (int i = 2; i <= n; i++)
        f *= i;
    return f;
}

// The seed's (Condon–Shortley) real basis at (theta, phi).
static double ref_sh_cs(int l, int m, double theta, double phi)
{
    int am = m < 0 ? -m : m;
    double n = sqrt((2.0 * l + 1.0) / (4.0 * REF_PI) * ref_factorial(l - am) / ref_factorial(l + am));
    double p = ref_legendre(l, am, cos(theta));
    double ph = m > 0 ? sqrt(2.0) * cos(m * phi) : m == 0 ? 1.0 : sqrt(2.0) * sin(am * phi);
    return ph * n * p;
}

// cistern's basis (no Condon–Shortley phase) at unit direction d, index
// l (l + 1) + m.
static void ref_sh_basis(const double d[3], double y[9])
{
    double theta = acos(fmax(-1.0, fmin(1.0, d[2]))), phi = atan2(d[1], d[0]);
    for (int l = 0; l <= 2; l++)
        for (int m = -l; m <= l; m++)
            y[l * (l + 1) + m] = ((m & 1) ? -1.0 : 1.0) * ref_sh_cs(l, m, theta, phi);
}

// Solid angle of cube texel [s0, s1] x [t0, t1] (face at distance 1):
// 16 x 16 Gauss–Legendre nodes on a smooth integrand.
static double ref_cube_solid_angle(double s0, double s1, double t0, double t1)
{
    // 8-point rule, applied on both halves of each interval.
    static const double x8[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363};
    static const double w8[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};
    double sum = 0.0;
    for (int hs = 0; hs < 2; hs++)
        for (int ht = 0; ht < 2; ht++) {
            double a0 = s0 + hs * (s1 - s0) / 2, a1 = a0 + (s1 - s0) / 2;
            double b0 = t0 + ht * (t1 - t0) / 2, b1 = b0 + (t1 - t0) / 2;
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 8; j++) {
                    double xi = (i < 4 ? -x8[i] : x8[i - 4]), wi = w8[i < 4 ? i : i - 4];
                    double xj = (j < 4 ? -x8[j] : x8[j - 4]), wj = w8[j < 4 ? j : j - 4];
                    double s = 0.5 * (a0 + a1) + 0.5 * (a1 - a0) * xi;
                    double t = 0.5 * (b0 + b1) + 0.5 * (b1 - b0) * xj;
                    sum += wi * wj * 0.25 * (a1 - a0) * (b1 - b0) * pow(1.0 + s * s + t * t, -1.5);
                }
        }
    return sum;
}

// Solid angle of lat-long texel row y of an H-row image (any column).
static double ref_latlong_solid_angle(uint32_t width, uint32_t height, uint32_t y)
{
    return 2.0 * REF_PI / width * (cos(REF_PI * y / height) - cos(REF_PI * (y + 1) / height));
}
