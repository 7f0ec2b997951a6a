// pbf_ref.h — a double-precision CPU reference of one Position Based Fluids
// substep (Macklin & Müller 2013), written from the equations, not from the
// GPU code: brute-force neighbours, plain loops. tests/test_pbf.c compares
// one GPU substep with it. Header-only (only tests/test_*.c are built).
//
// Same algorithm and constants as pipelines/fluid/fluid_pbf.c (the test reads the
// constants the solver derived: epsilon, s_corr scale, W(dq), masses), so
// any difference is float rounding or a bug:
//   v += g dt, x* = x + v dt
//   iterations × { rho_i = sum_j m_j W(x*_ij), C_i = max(rho_i / rho0_i - 1, 0),
//                  lambda_i = -C_i / (sum_k |grad_k C_i|^2 + eps),
//                  dx_i = 1/rho0_i sum_{j != i} m_j (lambda_i + lambda_j + s_corr) gradW_ij,
//                  x*_i = collide(x*_i + dx_i) }            (Jacobi)
//   v = (x* - x) / dt, reflected where x* touches a boundary (restitution)
//   omega_i = sum_j V_j (v_j - v_i) x gradW_ij, eta_i = sum_j V_j (|omega_j| - |omega_i|) gradW_ij
//   v_i += dt eps_v (eta/|eta| x omega_i) + c sum_j V_j (v_j - v_i) W_ij,   x = x*
// Boundaries (domain faces, walls): rest fluid filling the half-space beyond
// each plane closer than h adds rho0 * phi to rho_i, its gradient g to
// grad_i C_i, and lambda_i g to dx_i.
// Neighbours: pairs closer than h at the current positions, searched among
// the pairs closer than 1.5 h after the prediction (the GPU also searches
// once per substep, in the grid built on x*).
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct pbf_ref_params {
    int dim;
    double lo[3], hi[3];
    double h, dt;
    double gravity[3];
    double restitution;
    double margin;                // collision margin: centres stay this far inside every plane
    uint32_t wall_count;
    double walls[16][4];          // normal xyz, offset: fluid keeps dot(n, x) >= offset
    double mass[8], rho0[8];      // per material
    uint32_t iterations;
    double epsilon;               // absolute, added to sum |grad C|^2
    double scorr_scale;           // s_corr = -scorr_scale (W / W(dq))^n
    double inv_w_dq, scorr_n;     // n is an integer
    double scorr_rest;            // subtracted from (W / W(dq))^n, clamped at 0
    double vorticity, xsph;
    double boundary_fill;         // kappa: the fluid beyond a boundary is at kappa * rho0
} pbf_ref_params;

static double pbf_ref_poly6(const pbf_ref_params *p, double r2)
{
    double h = p->h, d = h * h - r2;
    if (d <= 0.0)
        return 0.0;
    double k = p->dim == 3 ? 315.0 / (64.0 * M_PI * pow(h, 9)) : 4.0 / (M_PI * pow(h, 8));
    return k * d * d * d;
}

// Gradient with respect to x_i of the spiky kernel, r = x_i - x_j.
static void pbf_ref_spiky_grad(const pbf_ref_params *p, const double r[3], double out[3])
{
    double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    out[0] = out[1] = out[2] = 0.0;
    if (len <= 0.0 || len >= p->h)
        return;
    double k = p->dim == 3 ? 15.0 / (M_PI * pow(p->h, 6)) : 10.0 / (M_PI * pow(p->h, 5));
    double s = -3.0 * k * (p->h - len) * (p->h - len) / len;
    for (int a = 0; a < 3; a++)
        out[a] = s * r[a];
}

static void pbf_ref_cross(const double a[3], const double b[3], double out[3])
{
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    out[0] = x, out[1] = y, out[2] = z;
}

static void pbf_ref_collide(const pbf_ref_params *p, double x[3])
{
    for (uint32_t w = 0; w < p->wall_count; w++) {
        const double *n = p->walls[w];
        double d = n[0] * x[0] + n[1] * x[1] + n[2] * x[2] - n[3] - p->margin;
        if (d < 0.0)
            for (int a = 0; a < 3; a++)
                x[a] -= d * n[a];
    }
    for (int a = 0; a < p->dim; a++) {
        double lo = p->lo[a] + p->margin, hi = p->hi[a] - p->margin;
        x[a] = x[a] < lo ? lo : x[a] > hi ? hi : x[a];
    }
    if (p->dim == 2)
        x[2] = 0.0;
}

static void pbf_ref_restitute(const pbf_ref_params *p, const double x[3], double v[3])
{
    double e = p->restitution, touch = 1e-5 * p->h;
    for (uint32_t w = 0; w < p->wall_count; w++) {
        const double *n = p->walls[w];
        double vn = n[0] * v[0] + n[1] * v[1] + n[2] * v[2];
        if (n[0] * x[0] + n[1] * x[1] + n[2] * x[2] - n[3] - p->margin <= touch && vn < 0.0)
            for (int a = 0; a < 3; a++)
                v[a] -= (1.0 + e) * vn * n[a];
    }
    for (int a = 0; a < p->dim; a++) {
        if (x[a] - p->lo[a] - p->margin <= touch && v[a] < 0.0)
            v[a] = -e * v[a];
        if (p->hi[a] - x[a] - p->margin <= touch && v[a] > 0.0)
            v[a] = -e * v[a];
    }
}

// Which planes and box faces restitution counts x as touching (bit k: wall
// k, then bit 16 + 2a low face, 17 + 2a high face), by the same rule as
// pbf_ref_restitute. test_pbf compares this at the GPU's and the
// reference's positions: where they differ (positions agree to ~1e-6 m, the
// threshold is 1e-5 h from the margin) one side reflects the velocity and
// the other does not, a tie rather than an error of either.
static uint32_t pbf_ref_touching(const pbf_ref_params *p, const double x[3])
{
    double touch = 1e-5 * p->h;
    uint32_t bits = 0;
    for (uint32_t w = 0; w < p->wall_count && w < 16; w++) {
        const double *n = p->walls[w];
        if (n[0] * x[0] + n[1] * x[1] + n[2] * x[2] - n[3] - p->margin <= touch)
            bits |= 1u << w;
    }
    for (int a = 0; a < p->dim; a++) {
        if (x[a] - p->lo[a] - p->margin <= touch)
            bits |= 1u << (16 + 2 * a);
        if (p->hi[a] - x[a] - p->margin <= touch)
            bits |= 1u << (17 + 2 * a);
    }
    return bits;
}

// Boundary model: fluid at kappa * rho0 fills the region beyond the domain
// box (faces combined as 1 - prod(1 - phi_axis)) and the half-space beyond
// every wall. phi(u) = poly6 integral over the half-space at distance u h;
// g(u) = spiky integral over the plane at distance u h (times h). A dense
// table (midpoint rule, 4097 samples) built once per dimension.
#define PBF_REF_BSAMPLES 4097
static double pbf_ref_btable[2][PBF_REF_BSAMPLES][2];
static int pbf_ref_btable_dim;

static void pbf_ref_boundary_table(int dim)
{
    if (pbf_ref_btable_dim == dim)
        return;
    pbf_ref_btable_dim = dim;
    const int m = 1500;
    for (int k = 0; k < PBF_REF_BSAMPLES; k++) {
        double u = (double)k / (PBF_REF_BSAMPLES - 1), phi = 0.0, g = 0.0;
        for (int q = 0; q < m; q++) {
            double z = u + (1.0 - u) * (q + 0.5) / m, dz = (1.0 - u) / m;
            if (dim == 3) {
                // slab at depth z: disc integral of K (1 - z^2 - rho^2)^3 = K pi (1 - z^2)^4 / 4
                phi += 315.0 / (64.0 * M_PI) * M_PI * pow(1.0 - z * z, 4) / 4.0 * dz;
                // ring at radius z: 2 pi z K_spiky (1 - z)^3
                g += 2.0 * M_PI * z * 15.0 / M_PI * pow(1.0 - z, 3) * dz;
            } else {
                // line at depth z: integral of K (1 - z^2 - t^2)^3 dt = K (32/35) (1 - z^2)^(7/2)
                phi += 4.0 / M_PI * 32.0 / 35.0 * pow(1.0 - z * z, 3.5) * dz;
            }
        }
        if (dim == 2) {
            double a = sqrt(1.0 - u * u);
            for (int q = 0; q < m; q++) {
                double t = -a + 2.0 * a * (q + 0.5) / m, r = sqrt(u * u + t * t);
                g += r < 1.0 ? 10.0 / M_PI * pow(1.0 - r, 3) * 2.0 * a / m : 0.0;
            }
        }
        pbf_ref_btable[dim - 2][k][0] = phi;
        pbf_ref_btable[dim - 2][k][1] = g;
    }
}

static void pbf_ref_boundary_sample(const pbf_ref_params *p, double d, double *phi, double *g)
{
    double t = fmin(fmax(d / p->h, 0.0), 1.0) * (PBF_REF_BSAMPLES - 1);
    int k = (int)t;
    if (k > PBF_REF_BSAMPLES - 2)
        k = PBF_REF_BSAMPLES - 2;
    double f = t - k;
    const double(*tb)[2] = pbf_ref_btable[p->dim - 2];
    *phi = p->boundary_fill * (tb[k][0] + f * (tb[k + 1][0] - tb[k][0]));
    *g = p->boundary_fill * (tb[k][1] + f * (tb[k + 1][1] - tb[k][1])) / p->h;
}

// Density fraction phi and gradient (pointing into the boundaries, 1/length)
// of the rest fluid beyond the box and the walls.
static void pbf_ref_boundary(const pbf_ref_params *p, const double x[3], double *phi, double grad[3])
{
    pbf_ref_boundary_table(p->dim);
    double inside[3] = {1, 1, 1}, ga[3] = {0, 0, 0}, f, g, f2, g2;
    for (int a = 0; a < p->dim; a++) {
        pbf_ref_boundary_sample(p, x[a] - p->lo[a], &f, &g);
        pbf_ref_boundary_sample(p, p->hi[a] - x[a], &f2, &g2);
        inside[a] = 1.0 - f - f2;
        ga[a] = g2 - g;
    }
    // The box: 1 - prod (1 - fraction beyond each axis' faces), so edges and
    // corners are not counted twice. Walls add on.
    *phi = 1.0 - inside[0] * inside[1] * inside[2];
    grad[0] = ga[0] * inside[1] * inside[2];
    grad[1] = ga[1] * inside[0] * inside[2];
    grad[2] = ga[2] * inside[0] * inside[1];
    for (uint32_t w = 0; w < p->wall_count; w++) {
        const double *n = p->walls[w];
        double d = n[0] * x[0] + n[1] * x[1] + n[2] * x[2] - n[3];
        if (d < p->h) {
            pbf_ref_boundary_sample(p, d, &f, &g);
            *phi += f;
            for (int a = 0; a < 3; a++)
                grad[a] -= g * n[a];
        }
    }
}

// Candidate pairs (CSR): for each i, the j (including i) within 1.5 h of x.
typedef struct pbf_ref_pairs {
    uint32_t *start; // n + 1
    uint32_t *index;
} pbf_ref_pairs;

static pbf_ref_pairs pbf_ref_find_pairs(const pbf_ref_params *p, uint32_t n, const double *x)
{
    pbf_ref_pairs pr;
    pr.start = (uint32_t *)calloc((size_t)n + 1, sizeof(uint32_t));
    size_t cap = (size_t)n * 64 + 16, used = 0;
    pr.index = (uint32_t *)malloc(cap * sizeof(uint32_t));
    double r2max = 2.25 * p->h * p->h;
    for (uint32_t i = 0; i < n; i++) {
        pr.start[i] = (uint32_t)used;
        for (uint32_t j = 0; j < n; j++) {
            double d2 = 0.0;
            for (int a = 0; a < 3; a++)
                d2 += (x[3 * i + a] - x[3 * j + a]) * (x[3 * i + a] - x[3 * j + a]);
            if (d2 < r2max) {
                if (used == cap) {
                    cap *= 2;
                    pr.index = (uint32_t *)realloc(pr.index, cap * sizeof(uint32_t));
                }
                pr.index[used++] = j;
            }
        }
    }
    pr.start[n] = (uint32_t)used;
    return pr;
}

// One substep. x, v: 3n doubles in, replaced by the result; rho_out: the
// density of the last lambda evaluation (what the GPU stores).
static void pbf_ref_step(const pbf_ref_params *p, uint32_t n, double *x, double *v, const uint32_t *mat,
                         double *rho_out)
{
    double *xs = (double *)malloc(sizeof(double) * 3 * (n + 1));
    double *xs_new = (double *)malloc(sizeof(double) * 3 * (n + 1));
    double *lambda = (double *)malloc(sizeof(double) * (n + 1));
    double *w = (double *)malloc(sizeof(double) * 4 * (n + 1));
    double *v_new = (double *)malloc(sizeof(double) * 3 * (n + 1));
    double h2 = p->h * p->h;
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            v[3 * i + a] += p->gravity[a] * p->dt;
            if (p->dim == 2 && a == 2)
                v[3 * i + a] = 0.0;
            xs[3 * i + a] = x[3 * i + a] + v[3 * i + a] * p->dt;
        }
    pbf_ref_pairs pr = pbf_ref_find_pairs(p, n, xs);

    for (uint32_t it = 0; it < p->iterations; it++) {
        for (uint32_t i = 0; i < n; i++) {
            double rho = 0.0, grad_i[3] = {0, 0, 0}, sum_sq = 0.0, inv_rho0 = 1.0 / p->rho0[mat[i]];
            for (uint32_t k = pr.start[i]; k < pr.start[i + 1]; k++) {
                uint32_t j = pr.index[k];
                double r[3] = {xs[3 * i] - xs[3 * j], xs[3 * i + 1] - xs[3 * j + 1], xs[3 * i + 2] - xs[3 * j + 2]};
                double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
                if (r2 >= h2)
                    continue;
                double mj = p->mass[mat[j]], g[3];
                rho += mj * pbf_ref_poly6(p, r2);
                pbf_ref_spiky_grad(p, r, g);
                for (int a = 0; a < 3; a++) {
                    g[a] *= mj * inv_rho0;
                    grad_i[a] += g[a];
                }
                sum_sq += g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
            }
            double phi, gb[3];
            pbf_ref_boundary(p, xs + 3 * i, &phi, gb);
            rho += p->rho0[mat[i]] * phi;
            for (int a = 0; a < 3; a++)
                grad_i[a] += gb[a];
            double c = fmax(rho * inv_rho0 - 1.0, 0.0); // unilateral: pushes, never pulls
            lambda[i] = -c / (sum_sq + grad_i[0] * grad_i[0] + grad_i[1] * grad_i[1] + grad_i[2] * grad_i[2] + p->epsilon);
            rho_out[i] = rho;
        }
        for (uint32_t i = 0; i < n; i++) {
            double dx[3] = {0, 0, 0};
            for (uint32_t k = pr.start[i]; k < pr.start[i + 1]; k++) {
                uint32_t j = pr.index[k];
                if (j == i)
                    continue;
                double r[3] = {xs[3 * i] - xs[3 * j], xs[3 * i + 1] - xs[3 * j + 1], xs[3 * i + 2] - xs[3 * j + 2]};
                double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
                if (r2 >= h2)
                    continue;
                double scorr = p->scorr_scale > 0.0
                                   ? p->scorr_scale * fmax(pow(pbf_ref_poly6(p, r2) * p->inv_w_dq, p->scorr_n) - p->scorr_rest, 0.0)
                                   : 0.0;
                double g[3];
                pbf_ref_spiky_grad(p, r, g);
                double s = p->mass[mat[j]] * (lambda[i] + lambda[j] - scorr);
                for (int a = 0; a < 3; a++)
                    dx[a] += s * g[a];
            }
            double phi, gb[3];
            pbf_ref_boundary(p, xs + 3 * i, &phi, gb);
            for (int a = 0; a < 3; a++)
                xs_new[3 * i + a] = xs[3 * i + a] + dx[a] / p->rho0[mat[i]] + lambda[i] * gb[a];
            pbf_ref_collide(p, xs_new + 3 * i);
        }
        memcpy(xs, xs_new, sizeof(double) * 3 * n);
    }

    for (uint32_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++)
            v[3 * i + a] = (xs[3 * i + a] - x[3 * i + a]) / p->dt;
        pbf_ref_restitute(p, xs + 3 * i, v + 3 * i);
    }
    // Vorticity (curl) and its gradient, then confinement and XSPH.
    for (uint32_t i = 0; i < n; i++) {
        double om[3] = {0, 0, 0};
        for (uint32_t k = pr.start[i]; k < pr.start[i + 1]; k++) {
            uint32_t j = pr.index[k];
            double r[3] = {xs[3 * i] - xs[3 * j], xs[3 * i + 1] - xs[3 * j + 1], xs[3 * i + 2] - xs[3 * j + 2]};
            if (j == i || r[0] * r[0] + r[1] * r[1] + r[2] * r[2] >= h2)
                continue;
            double g[3], dv[3], c[3], vol = p->mass[mat[j]] / p->rho0[mat[j]];
            pbf_ref_spiky_grad(p, r, g);
            for (int a = 0; a < 3; a++)
                dv[a] = v[3 * j + a] - v[3 * i + a];
            pbf_ref_cross(dv, g, c);
            for (int a = 0; a < 3; a++)
                om[a] += vol * c[a];
        }
        for (int a = 0; a < 3; a++)
            w[4 * i + a] = om[a];
        w[4 * i + 3] = sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]);
    }
    for (uint32_t i = 0; i < n; i++) {
        double xsph[3] = {0, 0, 0}, eta[3] = {0, 0, 0};
        for (uint32_t k = pr.start[i]; k < pr.start[i + 1]; k++) {
            uint32_t j = pr.index[k];
            double r[3] = {xs[3 * i] - xs[3 * j], xs[3 * i + 1] - xs[3 * j + 1], xs[3 * i + 2] - xs[3 * j + 2]};
            double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            if (j == i || r2 >= h2)
                continue;
            double vol = p->mass[mat[j]] / p->rho0[mat[j]], g[3];
            double wk = pbf_ref_poly6(p, r2);
            pbf_ref_spiky_grad(p, r, g);
            for (int a = 0; a < 3; a++) {
                xsph[a] += vol * wk * (v[3 * j + a] - v[3 * i + a]);
                eta[a] += vol * (w[4 * j + 3] - w[4 * i + 3]) * g[a];
            }
        }
        double eta_len = sqrt(eta[0] * eta[0] + eta[1] * eta[1] + eta[2] * eta[2]);
        double f[3] = {0, 0, 0};
        if (p->vorticity > 0.0 && eta_len > 0.0) {
            double nrm[3] = {eta[0] / eta_len, eta[1] / eta_len, eta[2] / eta_len};
            pbf_ref_cross(nrm, w + 4 * i, f);
        }
        for (int a = 0; a < 3; a++)
            v_new[3 * i + a] = v[3 * i + a] + p->xsph * xsph[a] + p->dt * p->vorticity * f[a];
        if (p->dim == 2)
            v_new[3 * i + 2] = 0.0;
    }
    memcpy(v, v_new, sizeof(double) * 3 * n);
    memcpy(x, xs, sizeof(double) * 3 * n);
    free(pr.start);
    free(pr.index);
    free(xs);
    free(xs_new);
    free(lambda);
    free(w);
    free(v_new);
}

// Density at positions x (3n doubles), brute force, in double: for checking
// a settled state independently of what the solver last stored.
static void pbf_ref_densities(const pbf_ref_params *p, uint32_t n, const double *x, const uint32_t *mat, double *rho)
{
    double h2 = p->h * p->h;
    for (uint32_t i = 0; i < n; i++) {
        double s = 0.0;
        for (uint32_t j = 0; j < n; j++) {
            double d2 = 0.0;
            for (int a = 0; a < 3; a++)
                d2 += (x[3 * i + a] - x[3 * j + a]) * (x[3 * i + a] - x[3 * j + a]);
            if (d2 < h2)
                s += p->mass[mat[j]] * pbf_ref_poly6(p, d2);
        }
        double phi, gb[3];
        pbf_ref_boundary(p, x + 3 * i, &phi, gb);
        rho[i] = s + p->rho0[mat[i]] * phi;
    }
}
