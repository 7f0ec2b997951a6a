// wcsph_ref.h — double-precision CPU reference for weakly compressible SPH
// (Becker & Teschner 2007; pipelines/fluid/fluid_wcsph.c, shaders/wcsph/).
// Header-only, for tests/test_wcsph.c. Uses the neighbour grid of sph_ref.h.
#pragma once

#include "sph_ref.h"

enum { WCSPH_REF_CUBIC = 0, WCSPH_REF_WENDLAND = 1 };

typedef struct wcsph_ref_material {
    double mass, rest_density, speed_of_sound, gamma, alpha, surface_tension;
} wcsph_ref_material;

typedef struct wcsph_ref_params {
    int dim;
    double h;              // support radius (cubic spline: 2 x smoothing length)
    double dt;
    int kernel;            // WCSPH_REF_CUBIC or WCSPH_REF_WENDLAND
    int clamp_negative_pressure;
    double gravity[3];
    const wcsph_ref_material *materials;
    // Walls (domain box faces and scene walls) as fluid at rest behind them.
    int wall_density;
    int plane_count;
    double planes[32][4];    // inward normal xyz, offset: fluid where dot(n, x) >= offset
    const float *wall_table; // the solver's tables: (psi, area, push / (1 - psi), -) at q = k / wall_steps
    int wall_steps;
    // Ferrand et al. (2013): the density sum divided by the kernel's share
    // inside the fluid at the free surface (wcsph_ref_surface_share).
    int surface_renormalise;
} wcsph_ref_params;

// Linear interpolation in the solver's wall table, in double.
static inline double wcsph_ref_wall(const wcsph_ref_params *p, double q, int c)
{
    if (q >= 1.0)
        return 0.0;
    double t = fmax(q, 0.0) * p->wall_steps;
    int k = (int)t < p->wall_steps - 1 ? (int)t : p->wall_steps - 1;
    double f = t - k;
    return p->wall_table[4 * k + c] * (1.0 - f) + p->wall_table[4 * (k + 1) + c] * f;
}

static inline double wcsph_ref_plane_distance(const wcsph_ref_params *p, int w, const double *x)
{
    double d = -p->planes[w][3];
    for (int a = 0; a < 3; a++)
        d += p->planes[w][a] * x[a];
    return fmax(d, 0.0);
}

// Kernel value and dW/dr for support radius h (q = r/h in [0, 1]).
static inline void wcsph_ref_kernel(int kernel, int dim, double h, double r, double *w, double *dw)
{
    double q = r / h;
    *w = 0.0;
    *dw = 0.0;
    if (q >= 1.0)
        return;
    if (kernel == WCSPH_REF_CUBIC) {
        // Monaghan's cubic spline written over the support radius.
        double k = dim == 2 ? 40.0 / (7.0 * REF_PI * h * h) : 8.0 / (REF_PI * h * h * h);
        if (q <= 0.5) {
            *w = k * (6.0 * q * q * q - 6.0 * q * q + 1.0);
            *dw = k * 6.0 * q * (3.0 * q - 2.0) / h;
        } else {
            double a = 1.0 - q;
            *w = k * 2.0 * a * a * a;
            *dw = -k * 6.0 * a * a / h;
        }
    } else {
        // Wendland C2.
        double k = dim == 2 ? 7.0 / (REF_PI * h * h) : 21.0 / (2.0 * REF_PI * h * h * h);
        double a = 1.0 - q;
        *w = k * a * a * a * a * (1.0 + 4.0 * q);
        *dw = -k * 20.0 * q * a * a * a / h;
    }
}

// The share of the kernel at x beyond the free surface (shaders/wcsph/
// wcsph.glsl wcsph_surface_share, in double): `filled` = sum_j V_j W_ij
// (V_j = m_j / rho0_j, self included) and `grad` its gradient; with wall
// density the walls' shares are added to both. The ratio |grad| h / filled
// is push(q) / (1 - psi(q)) beside a flat surface at q h (the table's z,
// falling from q = 0 to 0 at q = 1): inverted for q, the missing share is
// psi(q).
static inline double wcsph_ref_surface_share(const wcsph_ref_params *p, const double *x, double filled,
                                             const double grad_in[3])
{
    double grad[3] = {grad_in[0], grad_in[1], grad_in[2]};
    if (p->wall_density) {
        double open = 1.0, open_grad[3] = {0.0, 0.0, 0.0}; // grad(open) h / open
        for (int w = 0; w < p->plane_count; w++) {
            double q = wcsph_ref_plane_distance(p, w, x) / p->h;
            double psi = wcsph_ref_wall(p, q, 0);
            open *= 1.0 - psi;
            for (int a = 0; a < 3; a++)
                open_grad[a] += wcsph_ref_wall(p, q, 1) / (1.0 - psi) * p->planes[w][a];
        }
        filled += 1.0 - open;
        for (int a = 0; a < 3; a++)
            grad[a] -= open / p->h * open_grad[a];
    }
    if (!(filled > 0.0))
        return 0.0;
    double ratio = sqrt(grad[0] * grad[0] + grad[1] * grad[1] + grad[2] * grad[2]) * p->h / filled;
    if (!(ratio > 0.0))
        return 0.0;
    const float *t = p->wall_table;
    double q = 0.0;
    if (ratio < t[2]) {
        for (int k = 1; k <= p->wall_steps; k++) {
            double above = t[4 * (k - 1) + 2], here = t[4 * k + 2];
            if (here <= ratio) {
                q = (k - 1 + (above - ratio) / fmax(above - here, 1e-30)) / p->wall_steps;
                break;
            }
        }
    }
    return wcsph_ref_wall(p, q, 0);
}

// rho_i = sum_j m_j W_ij, self included (+ rho0 (1 - prod_k (1 - psi(d_k/h))) over
// the walls with wall_density); p_i = B ((rho/rho0)^gamma - 1),
// B = rho0 c^2 / gamma (Tait), optionally clamped at 0 so the free surface
// (where the sum is truncated) does not pull particles together. With
// surface_renormalise rho_i is divided by 1 - wcsph_ref_surface_share.
static inline void wcsph_ref_density(const wcsph_ref_params *p, const ref_grid *g, uint32_t n, const double *pos4,
                                     const uint32_t *mat, double *density, double *pressure)
{
    uint32_t *cand = malloc(sizeof(uint32_t) * (n + 1));
    for (uint32_t i = 0; i < n; i++) {
        double rho = 0.0;
        double filled = 0.0, filled_grad[3] = {0.0, 0.0, 0.0}; // sum_j V_j W_ij and its gradient
        uint32_t count = ref_grid_candidates(g, pos4 + 4 * i, cand, n + 1);
        for (uint32_t k = 0; k < count; k++) {
            uint32_t j = cand[k];
            double d[3]; // x_j - x_i
            double r = ref_dist(p->dim, pos4 + 4 * i, pos4 + 4 * j, d);
            double w, dw;
            wcsph_ref_kernel(p->kernel, p->dim, p->h, r, &w, &dw);
            rho += p->materials[mat[j]].mass * w;
            double volume = p->materials[mat[j]].mass / p->materials[mat[j]].rest_density;
            filled += volume * w;
            if (r > 0.0 && r < p->h)
                for (int a = 0; a < 3; a++)
                    filled_grad[a] -= volume * dw / r * d[a]; // grad_i W_ij = -(x_j - x_i) / r dW/dr
        }
        const wcsph_ref_material *m = &p->materials[mat[i]];
        if (p->wall_density) {
            double open = 1.0; // corners: independent fractions, 1 - prod(1 - psi_k)
            for (int w = 0; w < p->plane_count; w++)
                open *= 1.0 - wcsph_ref_wall(p, wcsph_ref_plane_distance(p, w, pos4 + 4 * i) / p->h, 0);
            rho += m->rest_density * (1.0 - open);
        }
        if (p->surface_renormalise)
            rho /= 1.0 - wcsph_ref_surface_share(p, pos4 + 4 * i, filled, filled_grad);
        double b = m->rest_density * m->speed_of_sound * m->speed_of_sound / m->gamma;
        double pr = b * (pow(rho / m->rest_density, m->gamma) - 1.0);
        if (p->clamp_negative_pressure && pr < 0.0)
            pr = 0.0;
        density[i] = rho;
        pressure[i] = pr;
    }
    free(cand);
}

// Accelerations: symmetric pressure gradient, Monaghan artificial viscosity
// (Becker eq. 11, nu = 2 alpha h_s c / (rho_i + rho_j), h_s = h/2 the
// smoothing length), same-material cohesion (Becker eq. 14), the walls'
// pressure -(p/rho^2) grad(rho_wall) (rho_wall = rho0 (1 - prod(1 - psi_k))),
// gravity. Then
// symplectic Euler: v' = v + dt a, x' = x + dt v'.
static inline void wcsph_ref_forces(const wcsph_ref_params *p, const ref_grid *g, uint32_t n, const double *pos4,
                                    const double *vel4, const uint32_t *mat, const double *density,
                                    const double *pressure, double *out_pos4, double *out_vel4)
{
    uint32_t *cand = malloc(sizeof(uint32_t) * (n + 1));
    double hs = 0.5 * p->h;
    for (uint32_t i = 0; i < n; i++) {
        const wcsph_ref_material *mi = &p->materials[mat[i]];
        double acc[3] = {p->gravity[0], p->gravity[1], p->dim == 3 ? p->gravity[2] : 0.0};
        double pi_term = pressure[i] / (density[i] * density[i]);
        uint32_t count = ref_grid_candidates(g, pos4 + 4 * i, cand, n + 1);
        for (uint32_t k = 0; k < count; k++) {
            uint32_t j = cand[k];
            if (j == i)
                continue;
            double d[3]; // x_j - x_i
            double r = ref_dist(p->dim, pos4 + 4 * i, pos4 + 4 * j, d);
            if (r >= p->h || r <= 0.0)
                continue;
            const wcsph_ref_material *mj = &p->materials[mat[j]];
            double w, dw;
            wcsph_ref_kernel(p->kernel, p->dim, p->h, r, &w, &dw);
            // grad_i W = (x_i - x_j)/r dW/dr = -d/r dW/dr
            double coef = -mj->mass * (pi_term + pressure[j] / (density[j] * density[j]));
            double vx = 0.0; // v_ij . x_ij
            for (int a = 0; a < 3; a++)
                vx += (vel4[4 * i + a] - vel4[4 * j + a]) * -d[a];
            if (vx < 0.0) {
                double nu = 2.0 * 0.5 * (mi->alpha + mj->alpha) * hs * 0.5 * (mi->speed_of_sound + mj->speed_of_sound) /
                            (density[i] + density[j]);
                double visc = -nu * vx / (r * r + 0.01 * hs * hs);
                coef -= mj->mass * visc;
            }
            double cohesion = 0.0; // times (x_j - x_i)
            if (mat[j] == mat[i])
                cohesion = mi->surface_tension / mi->mass * mj->mass * w;
            for (int a = 0; a < 3; a++)
                acc[a] += coef * (-d[a] / r) * dw + cohesion * d[a];
        }
        if (p->wall_density)
            for (int w = 0; w < p->plane_count; w++) {
                double q = wcsph_ref_plane_distance(p, w, pos4 + 4 * i) / p->h;
                double others = 1.0;
                for (int l = 0; l < p->plane_count; l++)
                    if (l != w)
                        others *= 1.0 - wcsph_ref_wall(p, wcsph_ref_plane_distance(p, l, pos4 + 4 * i) / p->h, 0);
                double push = mi->rest_density * pi_term * wcsph_ref_wall(p, q, 1) / p->h * others;
                for (int a = 0; a < 3; a++)
                    acc[a] += push * p->planes[w][a];
            }
        for (int a = 0; a < 4; a++) {
            out_vel4[4 * i + a] = 0.0;
            out_pos4[4 * i + a] = 0.0;
        }
        for (int a = 0; a < p->dim; a++) {
            double v = vel4[4 * i + a] + p->dt * acc[a];
            out_vel4[4 * i + a] = v;
            out_pos4[4 * i + a] = pos4[4 * i + a] + p->dt * v;
        }
    }
    free(cand);
}
