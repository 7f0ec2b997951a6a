// dfsph_ref.h — double-precision CPU reference for divergence-free SPH
// (pipelines/fluid/fluid_dfsph.c, shaders/dfsph/). Header-only, for
// tests/test_dfsph.c. Every pass sums over all pairs (no grid): the GPU's
// cell walk must find exactly the pairs within h, or the two differ.
// Jacobi-style like the GPU: each pass reads the inputs of all particles
// and writes new arrays. Positions and velocities are vec4 rows (xyz, w);
// the materials come separately.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef REF_PI
#define REF_PI 3.14159265358979323846
#endif

typedef struct dfsph_ref_material {
    double mass, rest_density, alpha, sound;
} dfsph_ref_material;

typedef struct dfsph_ref_params {
    int dim;
    double h;
    const dfsph_ref_material *materials;
    int plane_count;
    double planes[32][4];    // inward normal xyz, offset: fluid where dot(n, x) >= offset
    const float *wall_table; // the solver's (psi, push, 0, 0) at q = k / wall_steps
    int wall_steps;
    double sparse; // fewer neighbours than this: out of the divergence solve
} dfsph_ref_params;

// The cubic spline over support h: value and dW/dr.
static inline void dfsph_ref_kernel(int dim, double h, double r, double *w, double *dw)
{
    double q = r / h, k = dim == 2 ? 40.0 / (7.0 * REF_PI * h * h) : 8.0 / (REF_PI * h * h * h);
    *w = *dw = 0.0;
    if (q >= 1.0)
        return;
    if (q <= 0.5) {
        *w = k * (6.0 * q * q * q - 6.0 * q * q + 1.0);
        *dw = k * 6.0 * q * (3.0 * q - 2.0) / h;
    } else {
        *w = k * 2.0 * (1.0 - q) * (1.0 - q) * (1.0 - q);
        *dw = -k * 6.0 * (1.0 - q) * (1.0 - q) / h;
    }
}

static inline double dfsph_ref_wall(const dfsph_ref_params *p, double q, int c)
{
    if (q >= 1.0)
        return 0.0;
    double t = fmax(q, 0.0) * p->wall_steps;
    int k = (int)t < p->wall_steps - 1 ? (int)t : p->wall_steps - 1;
    double f = t - k;
    return p->wall_table[4 * k + c] * (1.0 - f) + p->wall_table[4 * (k + 1) + c] * f;
}

static inline double dfsph_ref_plane_distance(const dfsph_ref_params *p, int w, const double *x)
{
    double d = -p->planes[w][3];
    for (int a = 0; a < 3; a++)
        d += p->planes[w][a] * x[a];
    return fmax(d, 0.0);
}

// Pair geometry: d = x_j - x_i, r, and grad_i W_ij (0 unless 0 < r < h).
static inline double dfsph_ref_pair(const dfsph_ref_params *p, const double *xi, const double *xj, double grad[3],
                                    double *w)
{
    double d[3] = {0, 0, 0}, r2 = 0.0;
    for (int a = 0; a < p->dim; a++) {
        d[a] = xj[a] - xi[a];
        r2 += d[a] * d[a];
    }
    double r = sqrt(r2), dw;
    dfsph_ref_kernel(p->dim, p->h, r, w, &dw);
    for (int a = 0; a < 3; a++)
        grad[a] = r > 0.0 && r < p->h ? -dw * d[a] / r : 0.0;
    return r;
}

// "dfsph: density + factor": rho/rho0, alpha, neighbours (self included),
// grad psi (3 per particle).
static inline void dfsph_ref_density(const dfsph_ref_params *p, uint32_t n, const double *x4, const uint32_t *mat,
                                     double *rho_hat, double *alpha, double *neighbours, double *wall_grad)
{
    for (uint32_t i = 0; i < n; i++) {
        const dfsph_ref_material *mi = &p->materials[mat[i]];
        double own_volume = mi->mass / mi->rest_density, sum = 0.0, squares = 0.0, count = 0.0;
        double g_sum[3] = {0, 0, 0};
        for (uint32_t j = 0; j < n; j++) {
            double g[3], w;
            double r = dfsph_ref_pair(p, x4 + 4 * i, x4 + 4 * j, g, &w);
            if (r >= p->h)
                continue;
            double volume = p->materials[mat[j]].mass / mi->rest_density;
            sum += volume * w;
            count += 1.0;
            for (int a = 0; a < 3; a++) {
                g_sum[a] += volume * g[a];
                squares += volume * own_volume * g[a] * g[a];
            }
        }
        double open = 1.0;
        for (int k = 0; k < p->plane_count; k++)
            open *= 1.0 - dfsph_ref_wall(p, dfsph_ref_plane_distance(p, k, x4 + 4 * i) / p->h, 0);
        double wg[3] = {0, 0, 0};
        for (int k = 0; k < p->plane_count; k++) {
            double q = dfsph_ref_plane_distance(p, k, x4 + 4 * i) / p->h;
            if (q >= 1.0)
                continue;
            double s = dfsph_ref_wall(p, q, 1) / p->h * open / (1.0 - dfsph_ref_wall(p, q, 0));
            for (int a = 0; a < 3; a++)
                wg[a] -= s * p->planes[k][a];
        }
        double t2 = 0.0;
        for (int a = 0; a < 3; a++)
            t2 += (g_sum[a] + wg[a]) * (g_sum[a] + wg[a]);
        rho_hat[i] = sum + 1.0 - open;
        alpha[i] = t2 + squares > 0.0 ? 1.0 / (t2 + squares) : 0.0;
        neighbours[i] = count;
        memcpy(wall_grad + 3 * i, wg, sizeof wg);
    }
}

// "dfsph: density error" (mode 0) / "divergence error" (mode 1): k and the
// per-particle error; with warm, k from the last kappas (kappa2: x density,
// y divergence, 2 per particle), which are then reset in kappa2_out.
static inline void dfsph_ref_error(const dfsph_ref_params *p, uint32_t n, int mode, int warm, double dt,
                                   const double *x4, const double *v4, const uint32_t *mat, const double *rho_hat,
                                   const double *alpha, const double *neighbours, const double *wall_grad,
                                   const double *kappa2, double *k, double *err, double *kappa2_out)
{
    for (uint32_t i = 0; i < n; i++) {
        double rest = p->materials[mat[i]].rest_density, div = 0.0;
        for (uint32_t j = 0; j < n; j++) {
            double g[3], w;
            double r = dfsph_ref_pair(p, x4 + 4 * i, x4 + 4 * j, g, &w);
            if (r >= p->h || r <= 0.0)
                continue;
            double volume = p->materials[mat[j]].mass / rest;
            for (int a = 0; a < p->dim; a++)
                div += volume * (v4[4 * i + a] - v4[4 * j + a]) * g[a];
        }
        for (int a = 0; a < p->dim; a++)
            div += v4[4 * i + a] * wall_grad[3 * i + a];
        double r;
        if (mode == 0) {
            r = fmax(rho_hat[i] + dt * div - 1.0, 0.0);
            k[i] = r * alpha[i] / (dt * dt);
            err[i] = r;
        } else {
            r = neighbours[i] < p->sparse ? 0.0 : fmax(div, 0.0);
            k[i] = r * alpha[i] / dt;
            err[i] = dt * r;
        }
        kappa2_out[2 * i] = kappa2[2 * i];
        kappa2_out[2 * i + 1] = kappa2[2 * i + 1];
        if (warm) {
            k[i] = r > 0.0 ? 0.5 * kappa2[2 * i + mode] : 0.0;
            kappa2_out[2 * i + mode] = 0.0;
        }
    }
}

// "dfsph: density velocity" / "divergence velocity": v += dt a(k), kappa += k.
static inline void dfsph_ref_velocity(const dfsph_ref_params *p, uint32_t n, int mode, double dt, const double *x4,
                                      const double *v4, const uint32_t *mat, const double *wall_grad, const double *k,
                                      const double *kappa2, double *v4_out, double *kappa2_out)
{
    for (uint32_t i = 0; i < n; i++) {
        double acc[3] = {0, 0, 0}, rest_i = p->materials[mat[i]].rest_density;
        for (uint32_t j = 0; j < n; j++) {
            double g[3], w;
            double r = dfsph_ref_pair(p, x4 + 4 * i, x4 + 4 * j, g, &w);
            if (r >= p->h || r <= 0.0)
                continue;
            const dfsph_ref_material *mj = &p->materials[mat[j]];
            double pair = k[i] / rest_i + k[j] / mj->rest_density;
            for (int a = 0; a < 3; a++)
                acc[a] -= mj->mass * pair * g[a];
        }
        for (int a = 0; a < 3; a++) {
            acc[a] -= k[i] * wall_grad[3 * i + a];
            v4_out[4 * i + a] = a < p->dim ? v4[4 * i + a] + dt * acc[a] : 0.0;
        }
        v4_out[4 * i + 3] = 0.0;
        kappa2_out[2 * i] = kappa2[2 * i] + (mode == 0 ? k[i] : 0.0);
        kappa2_out[2 * i + 1] = kappa2[2 * i + 1] + (mode == 1 ? k[i] : 0.0);
    }
}

// "dfsph: non-pressure forces": gravity and the artificial viscosity taken
// implicitly in its pair rates (forces.comp), densities in kg/m^3. The
// pointer is off in the tests.
static inline void dfsph_ref_forces(const dfsph_ref_params *p, uint32_t n, double dt, const double gravity[3],
                                    const double *x4, const double *v4, const uint32_t *mat, const double *rho,
                                    double *v4_out)
{
    double hs = 0.5 * p->h;
    for (uint32_t i = 0; i < n; i++) {
        const dfsph_ref_material *mi = &p->materials[mat[i]];
        double acc[3] = {0, 0, 0}, rate = 0.0;
        for (uint32_t j = 0; j < n; j++) {
            double g[3], w;
            double r = dfsph_ref_pair(p, x4 + 4 * i, x4 + 4 * j, g, &w);
            if (r >= p->h || r <= 0.0)
                continue;
            double vx = 0.0; // v_ij . x_ij
            for (int a = 0; a < p->dim; a++)
                vx += (v4[4 * i + a] - v4[4 * j + a]) * (x4[4 * i + a] - x4[4 * j + a]);
            if (!(vx < 0.0))
                continue;
            const dfsph_ref_material *mj = &p->materials[mat[j]];
            double nu = (mi->alpha + mj->alpha) * 0.5 * hs * (mi->sound + mj->sound) / (rho[i] + rho[j]);
            double scaled = mj->mass * nu / (r * r + 0.01 * hs * hs);
            double wv, dw;
            dfsph_ref_kernel(p->dim, p->h, r, &wv, &dw);
            for (int a = 0; a < 3; a++)
                acc[a] += scaled * vx * g[a];
            rate += scaled * r * fabs(dw);
        }
        for (int a = 0; a < 3; a++)
            v4_out[4 * i + a] = a < p->dim ? v4[4 * i + a] + dt * (acc[a] / (1.0 + 2.0 * dt * rate) + gravity[a]) : 0.0;
        v4_out[4 * i + 3] = 0.0;
    }
}
