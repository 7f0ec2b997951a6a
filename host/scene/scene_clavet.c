// scene_clavet.c — Clavet SPH's material defaults, scale-free (issue 31).
//
// Clavet's parameters are not scale-free: the relax displacement of a pair
// is dt^2 k (rho - rho0) N_n a^(n-1) / m, the cohesion displacement
// kappa N_n a^(n-1) r, the viscosity impulse dt a (sigma u + beta u^2). The
// seed's values (k 0.08, k_near 0.1, sigma 0.5, beta 1, kappa 0.0004) suit
// its 2D units (h 0.3, mass 1, rho0 82, dt 1/140 s); in 3D with water's real
// mass (rho0 1000, spacing 0.02, h 0.04) the same k is about 2000 times too
// stiff and the column explodes in a few steps. So a material of a Clavet
// fluid that leaves a key out gets the value that makes the seed's
// per-substep numbers in units of h, whatever the dimension, spacing, mass
// and dt:
//   k      = K_HAT      m h / (dt^2 rho0 N_n(h))      (k_near: N_(n+1))
//   kappa  = KAPPA_HAT  / N_n(h)
//   sigma  = SIGMA_HAT  / dt,   beta = BETA_HAT / h
// dt the solver's substep (the scene's dt / sph.split). The hats are the
// seed's own values at its units (k_hat = dt^2 k rho0 N_3 / (m h) = 0.0395
// there), so the seed's scenes keep their numbers. And the mass that leaves
// a key out is the one that puts the lattice at rest density in Clavet's
// sum (which leaves self out: rho0 spacing^dim starts a 3D column at 0.64
// rho0 with h = 2 spacings, in tension, and its collapse lags the
// experiment by a third; docs/fluids.md, "Defaults in any units").
#include "scene.h"
#include "scene_parse.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

// The seed's per-substep values (2D, h 0.3, mass 1, rho0 82, dt 1/140 s,
// the "seed" kernel n = 3): dt^2 k rho0 N_3 / (m h) for k 0.08 and
// k_near 0.1 (N_4), kappa N_3 for 0.0004, sigma dt for 0.5, beta h for 1.
#define K_HAT 0.0395
#define K_NEAR_HAT 0.0740
#define KAPPA_HAT 0.01415
#define SIGMA_HAT 0.00357
#define BETA_HAT 0.3

double cs_clavet_kernel_norm(int dim, int n, double h)
{
    if (dim == 2)
        return (double)((n + 1) * (n + 2)) / (2.0 * M_PI * h * h);
    return (double)((n + 1) * (n + 2) * (n + 3)) / (8.0 * M_PI * h * h * h);
}

double cs_clavet_lattice_sum(int dim, int n, double h, double spacing)
{
    double sum = 0.0;
    int reach = (int)ceil(h / spacing) + 1;
    for (int k = (dim == 3 ? -reach : 0); k <= (dim == 3 ? reach : 0); k++)
        for (int j = -reach; j <= reach; j++)
            for (int i = -reach; i <= reach; i++) {
                double r = spacing * sqrt((double)(i * i + j * j + k * k));
                if (r > 0.0 && r < h)
                    sum += pow(1.0 - r / h, n);
            }
    return sum;
}

// The "sph" block's kernel exponent and split as the solver will read them
// (fluid_sph.c checks the block and reports its errors at create).
static void block_settings(const cs_scene *scene, int *exponent, double *split)
{
    *exponent = 3;
    *split = 1.0;
    const cJSON *block = scene->solver_params;
    if (!block)
        return;
    const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(block, "kernel");
    if (cJSON_IsString(kernel) && strcmp(kernel->valuestring, "clavet") == 0)
        *exponent = 2;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(block, "split");
    if (cJSON_IsNumber(s) && s->valuedouble >= 1.0)
        *split = s->valuedouble;
}

void cs_clavet_material_defaults(const cs_scene *scene, const cJSON *entry, cs_material *m)
{
    if (strcmp(scene->solver, "sph") != 0)
        return;
    int n;
    double split;
    block_settings(scene, &n, &split);
    double h = scene->smoothing_radius, dt = scene->dt / split;
    double norm = cs_clavet_kernel_norm(scene->dim, n, h), near_norm = cs_clavet_kernel_norm(scene->dim, n + 1, h);
#define GIVEN(key) (entry && cJSON_GetObjectItemCaseSensitive(entry, key))
    if (!GIVEN("mass")) {
        double sum = cs_clavet_lattice_sum(scene->dim, n, h, scene->particle_spacing);
        if (sum > 0.0)
            m->mass = (float)(m->rest_density / (norm * sum));
    }
    double per_density = (double)m->mass * h / (dt * dt * m->rest_density);
    if (!GIVEN("stiffness"))
        m->stiffness = (float)(K_HAT * per_density / norm);
    if (!GIVEN("near_stiffness"))
        m->near_stiffness = (float)(K_NEAR_HAT * per_density / near_norm);
    if (!GIVEN("surface_tension"))
        m->surface_tension = (float)(KAPPA_HAT / norm);
    if (!GIVEN("viscosity_linear"))
        m->viscosity_linear = (float)(SIGMA_HAT / dt);
    if (!GIVEN("viscosity_quadratic"))
        m->viscosity_quadratic = (float)(BETA_HAT / h);
#undef GIVEN
}
