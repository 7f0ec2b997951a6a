// reint_ref.h — double-precision CPU reference of the reintegration-tracking
// step (pipelines/reint/reint.c, shaders/reint/), for tests/test_reint.c.
//
// Written independently of the shaders where the algorithm allows it: the
// advect step here SCATTERS each source box over the cells it overlaps
// (forward), while the GPU GATHERS into each cell from its neighbours; the
// kernel normalisation is recomputed here from h. What must match by
// definition (the order of the per-axis mass split, which cell takes the
// rounding remainder, the fixed-point weights) follows the documented rules:
//   - split one axis at a time, x then y then z;
//   - along an axis every overlapped cell but the one holding the box centre
//     gets floor(m * floor(f * 2^24) / 2^24), in increasing cell order, never
//     more than what is left; the centre cell gets the rest;
//   - walls: a centre past a wall stops on it (velocity into it reversed,
//     times the restitution); the part of a box past a wall is mirrored back.
// Header-only; include it from one test.
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../shaders/reint/reint_shared.h"

typedef struct reint_ref {
    uint32_t dim;
    int n[3];            // cells per axis (n[2] = 1 in 2D)
    double dt;           // s
    double r;            // diffusion radius (cells)
    double max_step;     // R - r (cells)
    int search_radius;   // R
    double h;            // kernel radius (cells)
    double restitution;
    double stiffness;    // cells^2/s^2
    double gamma;
    int eos;
    double viscosity;    // artificial viscosity alpha
    int negative_pressure; // 0: pressure clamped at 0
    double gravity[3];   // cells/s^2
} reint_ref;

static inline size_t reint_ref_index(const reint_ref *g, int x, int y, int z)
{
    return (size_t)x + (size_t)g->n[0] * ((size_t)y + (size_t)g->n[1] * (size_t)z);
}

static inline int reint_ref_in_grid(const reint_ref *g, const int c[3])
{
    for (int a = 0; a < 3; a++)
        if (c[a] < 0 || c[a] >= g->n[a])
            return 0;
    return 1;
}

// Neighbour cell c (possibly past a wall) as an image of a cell inside: the
// grid reflected at its walls repeats with period 2n. Fills the source cell
// and, per axis, whether the image is mirrored.
static inline void reint_ref_image(const reint_ref *g, const int c[3], int src[3], int flip[3])
{
    for (int a = 0; a < 3; a++) {
        int n = g->n[a], period = 2 * n;
        int q = ((c[a] % period) + period) % period;
        flip[a] = q >= n;
        src[a] = flip[a] ? period - 1 - q : q;
    }
}

// Absolute centre and velocity of the image of a cell seen at cell c.
static inline void reint_ref_image_state(const reint_ref *g, const float *pos4, const float *vel4, const int c[3],
                                         size_t *index, double x[3], double v[3])
{
    int src[3], flip[3];
    reint_ref_image(g, c, src, flip);
    size_t j = reint_ref_index(g, src[0], src[1], src[2]);
    *index = j;
    for (int a = 0; a < 3; a++) {
        double off = a < (int)g->dim ? pos4[j * 4 + a] : 0.0;
        double vel = vel4 && a < (int)g->dim ? vel4[j * 4 + a] : 0.0;
        x[a] = c[a] + (flip[a] ? 1.0 - off : off);
        v[a] = flip[a] ? -vel : vel;
    }
}

static inline double reint_ref_w(double r2, double h)
{
    double q2 = r2 / (h * h);
    return q2 < 1.0 ? (1.0 - q2) * (1.0 - q2) * (1.0 - q2) : 0.0;
}

static inline double reint_ref_density_norm(const reint_ref *g)
{
    int k = (int)ceil(g->h), kz = g->dim == 3 ? k : 0;
    double s = 0.0;
    for (int z = -kz; z <= kz; z++)
        for (int y = -k; y <= k; y++)
            for (int x = -k; x <= k; x++)
                s += reint_ref_w((double)(x * x + y * y + z * z), g->h);
    return 1.0 / s;
}

// -dW/dr of the normalised spiky kernel.
static inline double reint_ref_grad(const reint_ref *g, double r)
{
    double h = g->h;
    if (r >= h)
        return 0.0;
    double norm = g->dim == 2 ? 10.0 / (3.14159265358979323846 * h * h)
                              : 15.0 / (3.14159265358979323846 * h * h * h);
    return norm * 3.0 * (1.0 - r / h) * (1.0 - r / h) / h;
}

static inline double reint_ref_eos(const reint_ref *g, double rho)
{
    double p = g->eos == REINT_EOS_TAIT ? g->stiffness * (pow(rho, g->gamma) - 1.0) : g->stiffness * rho * (rho - 1.0);
    return g->negative_pressure || p > 0.0 ? p : 0.0;
}

// Absolute centre of mass of cell i (pos4: offsets, 4 floats per cell).
static inline void reint_ref_centre(const reint_ref *g, const float *pos4, int x, int y, int z, double out[3])
{
    size_t i = reint_ref_index(g, x, y, z);
    int c[3] = {x, y, z};
    for (int a = 0; a < 3; a++)
        out[a] = a < (int)g->dim ? c[a] + (double)pos4[i * 4 + a] : 0.0;
}

// Density (relative to rest) and pressure of every cell. Walls are mirrors:
// neighbours past a wall are images of cells inside.
static void reint_ref_density(const reint_ref *g, const uint32_t *mass, const float *pos4, double *rho,
                              double *pressure)
{
    double norm = reint_ref_density_norm(g);
    int k = (int)ceil(g->h), kz = g->dim == 3 ? k : 0;
    for (int z = 0; z < g->n[2]; z++)
        for (int y = 0; y < g->n[1]; y++)
            for (int x = 0; x < g->n[0]; x++) {
                size_t i = reint_ref_index(g, x, y, z);
                rho[i] = pressure[i] = 0.0;
                if (mass[i] == 0)
                    continue;
                double xi[3], xj[3];
                reint_ref_centre(g, pos4, x, y, z, xi);
                double s = 0.0;
                for (int jz = z - kz; jz <= z + kz; jz++)
                    for (int jy = y - k; jy <= y + k; jy++)
                        for (int jx = x - k; jx <= x + k; jx++) {
                            int c[3] = {jx, jy, jz};
                            size_t j;
                            double vj[3];
                            reint_ref_image_state(g, pos4, NULL, c, &j, xj, vj);
                            if (mass[j] == 0)
                                continue;
                            double d2 = 0.0;
                            for (int a = 0; a < 3; a++)
                                d2 += (xj[a] - xi[a]) * (xj[a] - xi[a]);
                            s += mass[j] / REINT_MASS_ONE_F * reint_ref_w(d2, g->h);
                        }
                rho[i] = s * norm;
                pressure[i] = reint_ref_eos(g, rho[i]);
            }
}

// Velocities after pressure, artificial viscosity (Monaghan), gravity and the
// velocity limit. rho/pressure are inputs (so the test can feed the GPU's and
// isolate this pass); vel4 and vel_out4 hold 4 floats / doubles per cell.
static void reint_ref_forces(const reint_ref *g, const uint32_t *mass, const float *pos4, const float *vel4,
                             const float *rho, const float *pressure, double *vel_out4)
{
    int k = (int)ceil(g->h), kz = g->dim == 3 ? k : 0;
    double c0 = sqrt(g->stiffness * (g->eos == REINT_EOS_TAIT ? g->gamma : 1.0));
    for (int z = 0; z < g->n[2]; z++)
        for (int y = 0; y < g->n[1]; y++)
            for (int x = 0; x < g->n[0]; x++) {
                size_t i = reint_ref_index(g, x, y, z);
                double *out = vel_out4 + i * 4;
                out[0] = out[1] = out[2] = out[3] = 0.0;
                if (mass[i] == 0)
                    continue;
                double xi[3], xj[3], vi[3] = {0, 0, 0}, acc[3] = {0, 0, 0};
                reint_ref_centre(g, pos4, x, y, z, xi);
                for (int a = 0; a < (int)g->dim; a++)
                    vi[a] = vel4[i * 4 + a];
                // P / rho^2 with rho floored at rest density (see forces.comp).
                double ri = fmax((double)rho[i], 1.0);
                double pi = (double)pressure[i] / (ri * ri);
                for (int jz = z - kz; jz <= z + kz; jz++)
                    for (int jy = y - k; jy <= y + k; jy++)
                        for (int jx = x - k; jx <= x + k; jx++) {
                            int c[3] = {jx, jy, jz};
                            if (jx == x && jy == y && jz == z)
                                continue;
                            size_t j;
                            double vj[3];
                            reint_ref_image_state(g, pos4, vel4, c, &j, xj, vj);
                            if (mass[j] == 0)
                                continue;
                            double d[3], d2 = 0.0, approach = 0.0;
                            for (int a = 0; a < 3; a++) {
                                d[a] = xi[a] - xj[a];
                                d2 += d[a] * d[a];
                                approach += (vi[a] - vj[a]) * d[a];
                            }
                            if (d2 >= g->h * g->h || d2 < 1e-12 * g->h * g->h)
                                continue;
                            double mj = mass[j] / REINT_MASS_ONE_F, dist = sqrt(d2);
                            double rj = fmax((double)rho[j], 1.0);
                            double pj = (double)pressure[j] / (rj * rj);
                            double visc = 0.0;
                            if (approach < 0.0) {
                                double mu = g->h * approach / (d2 + 0.01 * g->h * g->h);
                                visc = -g->viscosity * c0 * mu / (0.5 * ((double)rho[i] + rho[j]));
                            }
                            for (int a = 0; a < (int)g->dim; a++)
                                acc[a] += mj * (pi + pj + visc) * reint_ref_grad(g, dist) * d[a] / dist;
                        }
                double len2 = 0.0;
                for (int a = 0; a < (int)g->dim; a++) {
                    out[a] = vi[a] + g->dt * (acc[a] + g->gravity[a]);
                    len2 += out[a] * out[a];
                }
                double step = sqrt(len2) * g->dt;
                if (step > g->max_step)
                    for (int a = 0; a < (int)g->dim; a++)
                        out[a] *= g->max_step / step;
            }
}

// Overlap of [a0, a1] and [b0, b1]: adds its length to *len and
// length * centre to *moment.
static inline void reint_ref_overlap(double a0, double a1, double b0, double b1, double *len, double *moment)
{
    double lo = fmax(a0, b0), hi = fmin(a1, b1);
    if (hi > lo) {
        *len += hi - lo;
        *moment += (hi - lo) * 0.5 * (lo + hi);
    }
}

// One source along one axis: the advected box, the cells it covers once
// folded at the walls, each one's share, the centre of each share, the
// remainder cell, and the velocity after the wall. Absolute coordinates.
typedef struct reint_ref_axis {
    int first, count, remainder;
    double frac[REINT_MAX_SPAN];
    double centre[REINT_MAX_SPAN];
    double v;
} reint_ref_axis;

static void reint_ref_axis_advect(const reint_ref *g, int a, int cell, double offset, double v, reint_ref_axis *out)
{
    double n = g->n[a];
    double d = v * g->dt;
    d = d < -g->max_step ? -g->max_step : d > g->max_step ? g->max_step : d;
    double xn = cell + offset + d;
    if (xn < 0.0) {
        xn = 0.0;
        if (v < 0.0)
            v = -g->restitution * v;
    } else if (xn > n) {
        xn = n;
        if (v > 0.0)
            v = -g->restitution * v;
    }
    // The box [lo, hi]; what lies past a wall is mirrored back inside.
    double lo = xn - g->r, hi = xn + g->r;
    double in_lo = fmax(lo, 0.0), in_hi = fmin(hi, n);
    out->first = (int)floor(in_lo);
    out->count = (int)ceil(in_hi) - out->first;
    int rem = (int)floor(xn);
    rem = rem < out->first ? out->first : rem > out->first + out->count - 1 ? out->first + out->count - 1 : rem;
    out->remainder = rem;
    for (int k = 0; k < REINT_MAX_SPAN; k++) {
        double c = out->first + k, len = 0.0, moment = 0.0;
        if (k < out->count) {
            reint_ref_overlap(in_lo, in_hi, c, c + 1.0, &len, &moment);
            if (lo < 0.0)
                reint_ref_overlap(0.0, -lo, c, c + 1.0, &len, &moment);
            if (hi > n)
                reint_ref_overlap(2.0 * n - hi, n, c, c + 1.0, &len, &moment);
        }
        out->frac[k] = len / (2.0 * g->r);
        out->centre[k] = len > 0.0 ? moment / len : c + 0.5;
    }
    out->v = v;
}

// Splits integer mass m over the axis' cells (pieces[k] for cell first + k).
static void reint_ref_split(const reint_ref_axis *ax, uint32_t m, uint32_t pieces[REINT_MAX_SPAN])
{
    uint32_t given = 0;
    for (int k = 0; k < REINT_MAX_SPAN; k++) {
        pieces[k] = 0;
        if (k >= ax->count || ax->first + k == ax->remainder)
            continue;
        double f = fmin(ax->frac[k], 1.0);
        uint64_t w = (uint64_t)(f * REINT_WEIGHT_ONE_F);
        uint64_t q = ((uint64_t)m * w) >> REINT_WEIGHT_BITS;
        if (q > m - given)
            q = m - given;
        pieces[k] = (uint32_t)q;
        given += (uint32_t)q;
    }
    pieces[ax->remainder - ax->first] = m - given;
}

// One advect step by forward scatter. vel4 is the velocity after the forces
// pass. Outputs: integer mass, centre-of-mass offsets and velocities
// (4 doubles per cell). Uses a scratch of 8 doubles per cell.
static void reint_ref_advect(const reint_ref *g, const uint32_t *mass, const float *pos4, const float *vel4,
                             uint32_t *mass_out, double *pos_out4, double *vel_out4)
{
    size_t cells = (size_t)g->n[0] * g->n[1] * g->n[2];
    double *acc = calloc(cells * 8, sizeof(double)); // per cell: mass*centre xyz, mass*velocity xyz, mass
    memset(mass_out, 0, cells * sizeof(uint32_t));
    for (int z = 0; z < g->n[2]; z++)
        for (int y = 0; y < g->n[1]; y++)
            for (int x = 0; x < g->n[0]; x++) {
                size_t i = reint_ref_index(g, x, y, z);
                if (mass[i] == 0)
                    continue;
                int c[3] = {x, y, z};
                reint_ref_axis ax[3];
                for (int a = 0; a < 3; a++) {
                    if (a < (int)g->dim)
                        reint_ref_axis_advect(g, a, c[a], pos4[i * 4 + a], vel4[i * 4 + a], &ax[a]);
                    else
                        ax[a] = (reint_ref_axis){.first = 0, .count = 1, .remainder = 0, .frac = {1.0}};
                }
                uint32_t px[REINT_MAX_SPAN], py[REINT_MAX_SPAN], pz[REINT_MAX_SPAN];
                reint_ref_split(&ax[0], mass[i], px);
                for (int kx = 0; kx < ax[0].count; kx++) {
                    reint_ref_split(&ax[1], px[kx], py);
                    for (int ky = 0; ky < ax[1].count; ky++) {
                        reint_ref_split(&ax[2], py[ky], pz);
                        for (int kz = 0; kz < ax[2].count; kz++) {
                            uint32_t dep = pz[kz];
                            if (dep == 0)
                                continue;
                            int t[3] = {ax[0].first + kx, ax[1].first + ky, ax[2].first + kz};
                            size_t ti = reint_ref_index(g, t[0], t[1], t[2]);
                            mass_out[ti] += dep;
                            for (int a = 0; a < (int)g->dim; a++) {
                                int k = a == 0 ? kx : a == 1 ? ky : kz;
                                acc[ti * 8 + a] += dep * (ax[a].centre[k] - t[a]);
                                acc[ti * 8 + 3 + a] += dep * ax[a].v;
                            }
                            acc[ti * 8 + 6] += dep;
                        }
                    }
                }
            }
    for (size_t i = 0; i < cells; i++) {
        for (int a = 0; a < 4; a++) {
            int used = a < (int)g->dim;
            pos_out4[i * 4 + a] = !used ? 0.0 : mass_out[i] ? acc[i * 8 + a] / acc[i * 8 + 6] : 0.5;
            vel_out4[i * 4 + a] = !used ? 0.0 : mass_out[i] ? acc[i * 8 + 3 + a] / acc[i * 8 + 6] : 0.0;
        }
    }
    free(acc);
}
