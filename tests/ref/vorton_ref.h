// vorton_ref.h — double-precision CPU reference of the vorton rates
// (shaders/vorton/rates.comp): the direct regularised Biot-Savart sum,
// stretching (both schemes), PSE diffusion of vorticity and heat, buoyancy.
// Inputs are the GPU's float arrays (4 floats a vorton, vorton_shared.h).
#pragma once

#include <math.h>
#include <stdint.h>

#include "../../shaders/vorton/vorton_shared.h"

typedef struct vorton_ref_params {
    uint32_t stretching;
    double viscosity, diffusivity, expansion, ambient;
    double gravity[3];
} vorton_ref_params;

static inline void vorton_ref_cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double vorton_ref_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Velocity at point x (core delta = sigma_j of each source).
static inline void vorton_ref_velocity(const float *pos4, const float *vort4, uint32_t n, const double x[3],
                                       double u[3])
{
    u[0] = u[1] = u[2] = 0.0;
    for (uint32_t j = 0; j < n; j++) {
        double sigma = pos4[j * 4 + 3], volume = sigma * sigma * sigma;
        double r[3], alpha[3], c[3];
        for (int d = 0; d < 3; d++) {
            r[d] = x[d] - pos4[j * 4 + d];
            alpha[d] = vort4[j * 4 + d] * volume;
        }
        double q = vorton_ref_dot(r, r) + sigma * sigma;
        double f = 1.0 / (4.0 * VORTON_PI * q * sqrt(q));
        vorton_ref_cross(alpha, r, c);
        for (int d = 0; d < 3; d++)
            u[d] += f * c[d];
    }
}

// The rates of vorton i: velocity u, d omega/dt, dT/dt.
static inline void vorton_ref_rates(const float *pos4, const float *vort4, uint32_t n, uint32_t i,
                                    const vorton_ref_params *p, double u[3], double domega[3], double *dtemp)
{
    const double pi32 = VORTON_PI * sqrt(VORTON_PI);
    double x[3], omega[3], stretch[3] = {0}, diffuse[3] = {0}, grad_t[3] = {0}, heat = 0.0;
    double sigma_i = pos4[i * 4 + 3], t_i = vort4[i * 4 + 3];
    for (int d = 0; d < 3; d++) {
        x[d] = pos4[i * 4 + d];
        omega[d] = vort4[i * 4 + d];
        u[d] = 0.0;
    }
    for (uint32_t j = 0; j < n; j++) {
        double sigma = pos4[j * 4 + 3], volume = sigma * sigma * sigma, t_j = vort4[j * 4 + 3];
        double r[3], alpha[3], w_j[3], c[3];
        for (int d = 0; d < 3; d++) {
            r[d] = x[d] - pos4[j * 4 + d];
            w_j[d] = vort4[j * 4 + d];
            alpha[d] = w_j[d] * volume;
        }
        double rho2 = vorton_ref_dot(r, r), delta2 = 0.5 * (sigma_i * sigma_i + sigma * sigma);
        double q = rho2 + delta2, f = 1.0 / (4.0 * VORTON_PI * q * sqrt(q));
        vorton_ref_cross(alpha, r, c);
        for (int d = 0; d < 3; d++)
            u[d] += f * c[d];
        if (p->stretching == VORTON_STRETCH_TRANSPOSE) {
            double oc[3];
            vorton_ref_cross(omega, alpha, oc);
            double rc = vorton_ref_dot(r, oc);
            for (int d = 0; d < 3; d++)
                stretch[d] += f * oc[d] - 3.0 * f / q * rc * r[d];
        } else if (p->stretching == VORTON_STRETCH_CLASSICAL) {
            double ao[3];
            vorton_ref_cross(alpha, omega, ao);
            double orr = vorton_ref_dot(omega, r);
            for (int d = 0; d < 3; d++)
                stretch[d] += f * ao[d] - 3.0 * f / q * orr * c[d];
        }
        double gauss = exp(-rho2 / delta2) / (delta2 * sqrt(delta2));
        double eta = 4.0 / pi32 * gauss;
        for (int d = 0; d < 3; d++) {
            diffuse[d] += volume * eta / delta2 * (w_j[d] - omega[d]);
            grad_t[d] += volume * ((t_i - p->ambient) + (t_j - p->ambient)) * (-2.0 * gauss / (pi32 * delta2)) * r[d];
        }
        heat += volume * eta / delta2 * (t_j - t_i);
    }
    double buoy[3];
    vorton_ref_cross(grad_t, p->gravity, buoy);
    for (int d = 0; d < 3; d++)
        domega[d] = stretch[d] + p->viscosity * diffuse[d] - p->expansion * buoy[d];
    *dtemp = p->diffusivity * heat;
}

// Where a ring is along y: the centroid of |alpha| (alpha = omega sigma^3)
// over the vortons (pos4 = x, y, z, sigma; vort4 = omega), so a ring's
// travel can be timed without finding its core.
static inline double vorton_ref_axial_centre(const float *pos4, const float *vort4, uint32_t n)
{
    double sw = 0.0, sy = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double s = pos4[i * 4 + 3], vol = s * s * s;
        double w = vol * sqrt(vort4[i * 4] * vort4[i * 4] + vort4[i * 4 + 1] * vort4[i * 4 + 1] +
                              vort4[i * 4 + 2] * vort4[i * 4 + 2]);
        sw += w;
        sy += w * pos4[i * 4 + 1];
    }
    return sy / sw;
}
