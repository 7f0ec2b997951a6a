// splat_ref.h — CPU reference of the particle splats in double precision,
// written from the description in pipelines/surface/surface.h (not from the
// shaders), brute force over all particles (no grid):
//   - per particle: neighbours within r_n, weights 1 - (r/r_n)^3 (itself
//     included), the smoothed centre, the weighted covariance, its
//     eigen-decomposition (cyclic Jacobi until the off-diagonal part is
//     below 1e-15 of the diagonal, not a fixed count), the clamped and
//     volume-normalised G and its longest semi-axis;
//   - the field at a point: scale * sum (1 - |G (x - c)|^2)^3 over every
//     particle with |G (x - c)| < 1 (isotropic: G = I / R at x itself).
//
// The only decision a float rounding can flip is the neighbour count
// against N_eps: a neighbour within 1e-5 r_n of the radius may be counted
// by the GPU and not here. The reference counts with r_n (1 -+ 1e-5) too;
// where the two counts straddle N_eps the caller may pass the GPU's count
// (`count_hint`), which must lie between them.
#pragma once

#include "surface.h"

#include <math.h>
#include <stdlib.h>

typedef struct splat_ref_params {
    double radius, scale;        // R, scale
    double neighbour_radius;     // r_n
    double smoothing;            // lambda
    double max_ratio;            // k_r
    uint32_t min_neighbours;     // N_eps
} splat_ref_params;

typedef struct splat_ref_particle {
    double centre[3];
    double cov[6];               // xx xy xz yy yz zz
    double sum_w;
    double g[6];                 // xx xy xz yy yz zz
    double extent;               // longest semi-axis of |G d| < 1
    double moved;                // |centre - x|
    uint32_t neighbours;         // others within r_n (exact, in double)
    uint32_t neighbours_lo, neighbours_hi;  // with r_n (1 - 1e-5), r_n (1 + 1e-5)
    bool anisotropic;
    bool ambiguous;              // lo and hi fall on both sides of N_eps
} splat_ref_particle;

// The parameters cs_splat_record uses for `p`, defaults applied.
static splat_ref_params splat_ref_params_from(const cs_splat_params *p)
{
    splat_ref_params r = {.radius = p->radius, .scale = p->scale};
    r.neighbour_radius = p->neighbour_radius > 0 ? p->neighbour_radius : 2 * p->radius;
    r.smoothing = p->smoothing > 0 ? fmin(p->smoothing, 1.0) : p->smoothing < 0 ? 0.0 : CS_SPLAT_DEFAULT_SMOOTHING;
    r.max_ratio = p->max_ratio > 0 ? fmax(p->max_ratio, 1.0) : CS_SPLAT_DEFAULT_MAX_RATIO;
    r.min_neighbours = p->min_neighbours > 0 ? p->min_neighbours : CS_SPLAT_DEFAULT_MIN_NEIGHBOURS;
    return r;
}

// Symmetric 3x3 a (xx xy xz yy yz zz): eigenvalues e and eigenvectors as
// the columns of v (v[row][col]), a = v diag(e) v^T.
static void splat_ref_eigen(const double a6[6], double e[3], double v[3][3])
{
    double a[3][3] = {{a6[0], a6[1], a6[2]}, {a6[1], a6[3], a6[4]}, {a6[2], a6[4], a6[5]}};
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            v[r][c] = r == c;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        double diag = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
        if (off <= 1e-15 * diag || off == 0)
            break;
        static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
        for (int k = 0; k < 3; k++) {
            int p = pairs[k][0], q = pairs[k][1];
            if (a[p][q] == 0)
                continue;
            // Rotation by phi with tan(2 phi) = 2 a_pq / (a_qq - a_pp),
            // written with atan2 (not the GPU's tangent formula).
            double phi = 0.5 * atan2(2 * a[p][q], a[q][q] - a[p][p]);
            double c = cos(phi), s = sin(phi);
            // b = J^T a J, J = identity but J_pp = J_qq = c, J_pq = s, J_qp = -s.
            double j[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
            j[p][p] = c, j[q][q] = c, j[p][q] = s, j[q][p] = -s;
            double t[3][3] = {{0}}, b[3][3] = {{0}}, w[3][3] = {{0}};
            for (int r = 0; r < 3; r++)
                for (int cc = 0; cc < 3; cc++)
                    for (int m = 0; m < 3; m++)
                        t[r][cc] += a[r][m] * j[m][cc];
            for (int r = 0; r < 3; r++)
                for (int cc = 0; cc < 3; cc++)
                    for (int m = 0; m < 3; m++) {
                        b[r][cc] += j[m][r] * t[m][cc];
                        w[r][cc] += v[r][m] * j[m][cc];
                    }
            memcpy(a, b, sizeof a);
            memcpy(v, w, sizeof w);
        }
    }
    for (int k = 0; k < 3; k++)
        e[k] = a[k][k];
}

// Kernels of particles 0..n-1 (positions: vec4 per particle, only the
// first n read). count_hint: NULL, or per particle a neighbour count to
// decide with where the reference's own is ambiguous.
static void splat_ref_kernels(const float *pos4, uint32_t n, const splat_ref_params *p, const uint32_t *count_hint,
                              splat_ref_particle *out)
{
    double rn = p->neighbour_radius;
    for (uint32_t i = 0; i < n; i++) {
        splat_ref_particle *o = &out[i];
        memset(o, 0, sizeof *o);
        double xi[3] = {pos4[4 * i], pos4[4 * i + 1], pos4[4 * i + 2]};
        double sw = 0, swx[3] = {0}, sxx[6] = {0};
        for (uint32_t j = 0; j < n; j++) {
            double d[3], r2 = 0;
            for (int a = 0; a < 3; a++) {
                d[a] = pos4[4 * j + a] - xi[a];
                r2 += d[a] * d[a];
            }
            double r = sqrt(r2);
            if (j != i) {
                o->neighbours_lo += r < rn * (1 - 1e-5);
                o->neighbours_hi += r < rn * (1 + 1e-5);
            }
            if (!(r < rn))   // NaN positions are nobody's neighbours
                continue;
            double w = 1 - (r / rn) * (r / rn) * (r / rn);
            o->neighbours += j != i;
            sw += w;
            for (int a = 0; a < 3; a++)
                swx[a] += w * pos4[4 * j + a];
            sxx[0] += w * d[0] * d[0], sxx[1] += w * d[0] * d[1], sxx[2] += w * d[0] * d[2];
            sxx[3] += w * d[1] * d[1], sxx[4] += w * d[1] * d[2], sxx[5] += w * d[2] * d[2];
        }
        o->sum_w = sw;
        double mean[3] = {xi[0], xi[1], xi[2]};   // a particle with no weight stays where it is
        if (sw > 0)
            for (int a = 0; a < 3; a++)
                mean[a] = swx[a] / sw;
        double md[3] = {mean[0] - xi[0], mean[1] - xi[1], mean[2] - xi[2]};
        o->moved = 0;
        for (int a = 0; a < 3; a++) {
            o->centre[a] = (1 - p->smoothing) * xi[a] + p->smoothing * mean[a];
            o->moved += (o->centre[a] - xi[a]) * (o->centre[a] - xi[a]);
        }
        o->moved = sqrt(o->moved);
        if (sw > 0) {
            // About the weighted mean: sum w (d - md)(d - md)^T / sum w.
            static const int ab[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
            for (int k = 0; k < 6; k++)
                o->cov[k] = sxx[k] / sw - md[ab[k][0]] * md[ab[k][1]];
        }
        bool lo_ok = o->neighbours_lo >= p->min_neighbours, hi_ok = o->neighbours_hi >= p->min_neighbours;
        o->ambiguous = lo_ok != hi_ok;
        uint32_t decide = o->ambiguous && count_hint ? count_hint[i] : o->neighbours;
        double R = p->radius;
        o->g[0] = o->g[3] = o->g[5] = 1 / R;
        o->extent = R;
        if (decide < p->min_neighbours)
            continue;
        double e[3], v[3][3];
        splat_ref_eigen(o->cov, e, v);
        double emax = fmax(e[0], fmax(e[1], e[2]));
        if (!(emax > 1e-12 * rn * rn) || !isfinite(emax))
            continue;
        double s[3], prod = 1;
        for (int k = 0; k < 3; k++) {
            s[k] = fmax(e[k], emax / p->max_ratio);
            prod *= s[k];
        }
        double norm = cbrt(prod), smax = 0;
        for (int k = 0; k < 3; k++) {
            s[k] /= norm;
            smax = fmax(smax, s[k]);
        }
        static const int ab[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
        for (int m = 0; m < 6; m++) {
            double g = 0;
            for (int k = 0; k < 3; k++)
                g += v[ab[m][0]][k] * v[ab[m][1]][k] / s[k];
            o->g[m] = g / R;
        }
        o->extent = R * smax;
        o->anisotropic = true;
    }
}

// |G d|^2 for a packed symmetric G.
static double splat_ref_quad(const double g[6], const double d[3])
{
    double gd[3] = {g[0] * d[0] + g[1] * d[1] + g[2] * d[2], g[1] * d[0] + g[3] * d[1] + g[4] * d[2],
                    g[2] * d[0] + g[4] * d[1] + g[5] * d[2]};
    return gd[0] * gd[0] + gd[1] * gd[1] + gd[2] * gd[2];
}

// The anisotropic field at x; *terms = particles whose ellipsoid holds x.
static double splat_ref_field_aniso(const splat_ref_particle *k, uint32_t n, const splat_ref_params *p,
                                    const double x[3], uint32_t *terms)
{
    double sum = 0;
    *terms = 0;
    for (uint32_t j = 0; j < n; j++) {
        double d[3] = {x[0] - k[j].centre[0], x[1] - k[j].centre[1], x[2] - k[j].centre[2]};
        double q = splat_ref_quad(k[j].g, d);
        if (q < 1) {
            sum += (1 - q) * (1 - q) * (1 - q);
            ++*terms;
        }
    }
    return p->scale * sum;
}

// The isotropic field at x: kernel (1 - r^2/R^2)^3 at the particles themselves.
static double splat_ref_field_iso(const float *pos4, uint32_t n, const splat_ref_params *p, const double x[3],
                                  uint32_t *terms)
{
    double sum = 0;
    *terms = 0;
    for (uint32_t j = 0; j < n; j++) {
        double r2 = 0;
        for (int a = 0; a < 3; a++)
            r2 += (pos4[4 * j + a] - x[a]) * (pos4[4 * j + a] - x[a]);
        double q = r2 / (p->radius * p->radius);
        if (q < 1) {
            sum += (1 - q) * (1 - q) * (1 - q);
            ++*terms;
        }
    }
    return p->scale * sum;
}
