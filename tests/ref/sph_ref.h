// sph_ref.h — double-precision CPU reference for the Clavet double-density
// relaxation solver (pipelines/fluid/fluid_sph.c, shaders/sph/). Header-only, for
// tests/test_sph.c. Also holds the reference neighbour grid that
// wcsph_ref.h reuses.
//
// Every pass is Jacobi-style, like the GPU: it reads the previous state of
// all particles and writes a new array, so the result does not depend on
// the order particles are visited. Inputs come in as doubles (the tests
// convert the GPU's float inputs), outputs are doubles.
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef REF_PI
#define REF_PI 3.14159265358979323846
#endif

// ---- neighbour grid --------------------------------------------------------
// Mirrors the GPU grid (shaders/grid/grid.glsl) *in float*: the same cell
// formula c = floor((x - origin) * inv_cell) clamped into the grid, NaN in
// cell 0, so the reference sees exactly the candidate set the GPU sees:
// every particle binned in the 3x3(x3) cells around the cell of the
// position being evaluated. Passes then keep pairs with r < h. When a pass
// evaluates positions other than the binned ones (Clavet's density after
// the viscosity displacement), a pair can come within h without being in
// adjacent cells; the reference misses it exactly as the GPU does.
typedef struct ref_grid {
    int dim;
    float origin[3];
    float inv_cell;        // 1 / cell size, as the GPU holds it (float)
    uint32_t dims[3];
    uint32_t n;
    uint32_t *cell_of;     // per particle
    uint32_t *cell_start;  // per cell (+1): CSR over `order`
    uint32_t *order;       // particle ids sorted by cell (stable)
} ref_grid;

static inline void ref_grid_cell_coords(const ref_grid *g, const float *p, int c[3])
{
    for (int a = 0; a < 3; a++) {
        float v = a < g->dim ? (p[a] - g->origin[a]) * g->inv_cell : 0.0f;
        if (!(v >= 0.0f))
            v = 0.0f;
        c[a] = v >= (float)g->dims[a] ? (int)g->dims[a] - 1 : (int)v;
    }
}

// Bins `bin_pos4` (vec4 per particle, float as on the GPU).
static inline void ref_grid_build(ref_grid *g, int dim, const float origin[3], float inv_cell, const uint32_t dims[3],
                                  const float *bin_pos4, uint32_t n)
{
    memset(g, 0, sizeof *g);
    g->dim = dim;
    g->inv_cell = inv_cell;
    g->n = n;
    for (int a = 0; a < 3; a++) {
        g->origin[a] = a < dim ? origin[a] : 0.0f;
        g->dims[a] = a < dim ? dims[a] : 1;
    }
    uint32_t cells = g->dims[0] * g->dims[1] * g->dims[2];
    g->cell_of = malloc(sizeof(uint32_t) * (n + 1));
    g->cell_start = calloc(cells + 1, sizeof(uint32_t));
    g->order = malloc(sizeof(uint32_t) * (n + 1));
    for (uint32_t i = 0; i < n; i++) {
        int c[3];
        ref_grid_cell_coords(g, bin_pos4 + 4 * i, c);
        g->cell_of[i] = (uint32_t)c[0] + g->dims[0] * ((uint32_t)c[1] + g->dims[1] * (uint32_t)c[2]);
        g->cell_start[g->cell_of[i] + 1]++;
    }
    for (uint32_t c = 0; c < cells; c++)
        g->cell_start[c + 1] += g->cell_start[c];
    uint32_t *fill = malloc(sizeof(uint32_t) * (cells + 1));
    memcpy(fill, g->cell_start, sizeof(uint32_t) * (cells + 1));
    for (uint32_t i = 0; i < n; i++)
        g->order[fill[g->cell_of[i]]++] = i;
    free(fill);
}

static inline void ref_grid_free(ref_grid *g)
{
    free(g->cell_of);
    free(g->cell_start);
    free(g->order);
    memset(g, 0, sizeof *g);
}

// Candidate neighbours of a particle at `x` (double, rounded to float for
// the cell as the GPU holds it), itself included: every particle binned in
// the cells around the cell of x. Writes up to `cap` ids, returns the count
// (which may exceed cap: callers check).
static inline uint32_t ref_grid_candidates(const ref_grid *g, const double *x, uint32_t *out, uint32_t cap)
{
    float xf[3] = {(float)x[0], (float)x[1], (float)x[2]};
    int c[3];
    ref_grid_cell_coords(g, xf, c);
    uint32_t count = 0;
    int rz = g->dim == 3 ? 1 : 0;
    for (int dz = -rz; dz <= rz; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int x0 = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
                if (x0 < 0 || y < 0 || z < 0 || x0 >= (int)g->dims[0] || y >= (int)g->dims[1] || z >= (int)g->dims[2])
                    continue;
                uint32_t cell = (uint32_t)x0 + g->dims[0] * ((uint32_t)y + g->dims[1] * (uint32_t)z);
                for (uint32_t k = g->cell_start[cell]; k < g->cell_start[cell + 1]; k++, count++)
                    if (count < cap)
                        out[count] = g->order[k];
            }
    return count;
}

static inline double ref_dist(int dim, const double *xi, const double *xj, double d[3])
{
    double r2 = 0.0;
    for (int a = 0; a < 3; a++) {
        d[a] = a < dim ? xj[a] - xi[a] : 0.0;
        r2 += d[a] * d[a];
    }
    return sqrt(r2);
}

// ---- Clavet double-density relaxation ---------------------------------------
// Kernel family (1 - r/h)^n for density and (1 - r/h)^(n+1) for near
// density, normalised so that each integrates to 1 over the support disc or
// ball, and mass-weighted. n = 2 is Clavet et al. 2005; n = 3 is the variant
// of seed 000, which found the steeper pair less compressible at the same
// time step. The relaxation and surface tension use the matching
// a^(n-1), a^n shapes (the kernels' derivatives up to constants folded into
// the stiffnesses).
typedef struct sph_ref_material {
    double mass, rest_density, stiffness, near_stiffness;
    double viscosity_linear, viscosity_quadratic, surface_tension;
} sph_ref_material;

typedef struct sph_ref_params {
    int dim;
    double h;          // support radius
    double dt;         // substep
    int exponent;      // n: 2 (Clavet) or 3 (seed 000)
    double epsilon;    // pairs closer than this have no direction: skipped in relax/viscosity
    const sph_ref_material *materials;
    // Wall mirrors: boundary planes (inward normal xyz, offset; fluid where
    // dot(n, x) >= offset). A particle at distance d < h/2 sees its mirror
    // image (own mass and pressures) at distance 2d in density and relax.
    int wall_mirror;
    int plane_count;
    double planes[32][4];
} sph_ref_params;

static inline double sph_ref_mirror_distance(const sph_ref_params *p, int w, const double *x)
{
    double d = -p->planes[w][3];
    for (int a = 0; a < 3; a++)
        d += p->planes[w][a] * x[a];
    return 2.0 * fmax(d, 0.0);
}

// Normalisation of (1 - r/h)^n over the 2D disc / 3D ball of radius h.
static inline double sph_ref_norm(int dim, int n, double h)
{
    if (dim == 2)
        return (double)((n + 1) * (n + 2)) / (2.0 * REF_PI * h * h);
    return (double)((n + 1) * (n + 2) * (n + 3)) / (8.0 * REF_PI * h * h * h);
}

static inline double ref_powi(double a, int n)
{
    double r = 1.0;
    for (int k = 0; k < n; k++)
        r *= a;
    return r;
}


// Viscosity impulses (Clavet section 5.3): for approaching pairs,
// I = dt (1 - q)(sigma u + beta u^2) along the pair axis, shared in inverse
// proportion to mass so momentum is conserved for unequal masses (1/2 each
// for equal ones). Evaluated at the predicted positions; out_pos4 is
// x_visc = x* + dt dv (what advancing with the corrected velocity gives),
// out_vel4 is v + dv.
static inline void sph_ref_viscosity(const sph_ref_params *p, const ref_grid *g, uint32_t n, const double *pos4,
                                     const double *vel4, const uint32_t *mat, double *out_pos4, double *out_vel4)
{
    uint32_t *cand = malloc(sizeof(uint32_t) * (n + 1));
    for (uint32_t i = 0; i < n; i++) {
        const sph_ref_material *mi = &p->materials[mat[i]];
        double dv[3] = {0, 0, 0};
        uint32_t count = ref_grid_candidates(g, pos4 + 4 * i, cand, n + 1);
        for (uint32_t k = 0; k < count; k++) {
            uint32_t j = cand[k];
            if (j == i)
                continue;
            double d[3];
            double r = ref_dist(p->dim, pos4 + 4 * i, pos4 + 4 * j, d);
            if (r >= p->h || r <= p->epsilon)
                continue;
            const sph_ref_material *mj = &p->materials[mat[j]];
            double u = 0.0;
            for (int a = 0; a < 3; a++)
                u += (vel4[4 * i + a] - vel4[4 * j + a]) * d[a] / r;
            if (u <= 0.0)
                continue;
            double a1 = 1.0 - r / p->h;
            double sigma = 0.5 * (mi->viscosity_linear + mj->viscosity_linear);
            double beta = 0.5 * (mi->viscosity_quadratic + mj->viscosity_quadratic);
            double impulse = p->dt * a1 * (sigma * u + beta * u * u) * mj->mass / (mi->mass + mj->mass);
            for (int a = 0; a < 3; a++)
                dv[a] -= impulse * d[a] / r;
        }
        for (int a = 0; a < 4; a++) {
            out_vel4[4 * i + a] = vel4[4 * i + a] + (a < 3 ? dv[a] : 0.0);
            out_pos4[4 * i + a] = pos4[4 * i + a] + (a < 3 ? p->dt * dv[a] : 0.0);
        }
    }
    free(cand);
}

// Density, near density and the two pressures (Clavet eq. 2-5):
// P = k (rho - rho0), P_near = k_near rho_near. Self is excluded, as in
// Clavet's and the seed's neighbour sums.
static inline void sph_ref_density(const sph_ref_params *p, const ref_grid *g, uint32_t n, const double *pos4,
                                   const uint32_t *mat, double *density, double *near_density, double *pressure,
                                   double *near_pressure)
{
    uint32_t *cand = malloc(sizeof(uint32_t) * (n + 1));
    double norm = sph_ref_norm(p->dim, p->exponent, p->h);
    double near_norm = sph_ref_norm(p->dim, p->exponent + 1, p->h);
    for (uint32_t i = 0; i < n; i++) {
        double rho = 0.0, rho_near = 0.0;
        uint32_t count = ref_grid_candidates(g, pos4 + 4 * i, cand, n + 1);
        for (uint32_t k = 0; k < count; k++) {
            uint32_t j = cand[k];
            if (j == i)
                continue;
            double d[3];
            double r = ref_dist(p->dim, pos4 + 4 * i, pos4 + 4 * j, d);
            if (r >= p->h)
                continue;
            double a1 = 1.0 - r / p->h;
            double mj = p->materials[mat[j]].mass;
            double an = ref_powi(a1, p->exponent);
            rho += mj * norm * an;
            rho_near += mj * near_norm * an * a1;
        }
        const sph_ref_material *mi = &p->materials[mat[i]];
        for (int w = 0; p->wall_mirror && w < p->plane_count; w++) {
            double r = sph_ref_mirror_distance(p, w, pos4 + 4 * i);
            if (r >= p->h)
                continue;
            double a1 = 1.0 - r / p->h, an = ref_powi(a1, p->exponent);
            rho += mi->mass * norm * an;
            rho_near += mi->mass * near_norm * an * a1;
        }
        density[i] = rho;
        near_density[i] = rho_near;
        pressure[i] = mi->stiffness * (rho - mi->rest_density);
        near_pressure[i] = mi->near_stiffness * rho_near;
    }
    free(cand);
}

// Double-density relaxation (Clavet Algorithm 2) as a Jacobi step, plus the
// seed's same-material cohesion, evaluated at the predicted positions pos4
// and added to base4 (x_visc from the viscosity step):
//   dx_i = -(dt^2 / m_i) sum_j [ (P_i+P_j)/2 N_n a^(n-1) + (Pn_i+Pn_j)/2 N_n+1 a^n ] r_hat
//          + (kappa_i / m_i) sum_{j same material} m_j N_n a^(n-1) (x_j - x_i)
// with r_hat = (x_j - x_i)/r. The pair terms are equal and opposite once
// multiplied by the masses, so the step conserves momentum.
static inline void sph_ref_relax(const sph_ref_params *p, const ref_grid *g, uint32_t n, const double *pos4,
                                 const double *base4, const uint32_t *mat, const double *pressure,
                                 const double *near_pressure, double *out_pos4)
{
    uint32_t *cand = malloc(sizeof(uint32_t) * (n + 1));
    double norm = sph_ref_norm(p->dim, p->exponent, p->h);
    double near_norm = sph_ref_norm(p->dim, p->exponent + 1, p->h);
    double dt2 = p->dt * p->dt;
    for (uint32_t i = 0; i < n; i++) {
        const sph_ref_material *mi = &p->materials[mat[i]];
        double dx[3] = {0, 0, 0};
        uint32_t count = ref_grid_candidates(g, pos4 + 4 * i, cand, n + 1);
        for (uint32_t k = 0; k < count; k++) {
            uint32_t j = cand[k];
            if (j == i)
                continue;
            double d[3];
            double r = ref_dist(p->dim, pos4 + 4 * i, pos4 + 4 * j, d);
            if (r >= p->h || r <= p->epsilon)
                continue;
            double a1 = 1.0 - r / p->h;
            double an1 = ref_powi(a1, p->exponent - 1);
            double push = dt2 / mi->mass *
                          (0.5 * (pressure[i] + pressure[j]) * norm * an1 +
                           0.5 * (near_pressure[i] + near_pressure[j]) * near_norm * an1 * a1);
            double pull = 0.0;
            if (mat[j] == mat[i])
                pull = mi->surface_tension / mi->mass * p->materials[mat[j]].mass * norm * an1 * r;
            for (int a = 0; a < 3; a++)
                dx[a] += (pull - push) * d[a] / r;
        }
        for (int w = 0; p->wall_mirror && w < p->plane_count; w++) {
            double r = sph_ref_mirror_distance(p, w, pos4 + 4 * i);
            if (r >= p->h)
                continue;
            double a1 = 1.0 - r / p->h, an1 = ref_powi(a1, p->exponent - 1);
            double push = dt2 / mi->mass * (pressure[i] * norm * an1 + near_pressure[i] * near_norm * an1 * a1);
            for (int a = 0; a < 3; a++)
                dx[a] += push * p->planes[w][a];
        }
        for (int a = 0; a < 4; a++)
            out_pos4[4 * i + a] = base4[4 * i + a] + (a < 3 ? dx[a] : 0.0);
    }
    free(cand);
}
