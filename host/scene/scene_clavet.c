// scene_clavet.c — Clavet SPH's material defaults, from the lattice the
// scene draws (issues 31 and 44).
//
// Clavet's parameters are not scale-free: the relax displacement of a pair
// is dt^2 k (rho - rho0) N_n a^(n-1) / m, the cohesion displacement
// kappa N_n a^(n-1) r, the viscosity impulse dt a (sigma u + beta u^2)
// (a = 1 - r/h, N_n the kernel normalisation, dt the solver's substep: the
// scene's dt / sph.split). What a fluid does with them depends on how many
// neighbours a particle has, i.e. on h / spacing. Round 3 (issue 31) fixed
// each pair's numbers at the seed's values; that held at h = 2 spacings
// only: at 2.5 the near pressure, which pushes at rest, and the cohesion
// sum grew with the neighbour count, the lattice was no longer at rest, a
// 3D column expanded to 0.69 rho0 and its front ran 40% ahead of Martin &
// Moyce (issue 44). So the defaults are derived from sums over the scene's
// own lattice (spacing = particle_spacing), self left out:
//   sum_n = sum a^n (the density), P1 = sum a^(n-1) r (the pressure's
//   virial), P2 = sum a^n r (the near pressure's), C = sum a^(n-1) r^2
//   (the cohesion's).
// - stiffness: the long-wave sound speed c of the pressure term is
//   C_HAT h / dt whatever the lattice: a uniform compression changes the
//   stress sum_j F_j r_j / (2 dim V) of a lattice particle by
//   k N_n P1 d(rho) / (2 dim V), so c^2 = k N_n^2 P1 sum_n / (2 dim), and
//   k = C_HAT^2 2 dim h^2 / (dt^2 N_n^2 P1 sum_n), whatever the mass.
// - near_stiffness, surface_tension: whatever the drawn lattice needs to be
//   at rest, i.e. free of stress (a block neither expands nor shrinks at the
//   first step). With the fitting mass (the lattice at rho0, P = 0) that is
//   0 and 0: both are surface-tension terms (negative pressure at a free
//   surface already pulls it in: water at these scales wants no more), and
//   each one made the front lag (docs/fluids.md, "Defaults at any kernel
//   width"). A given mass that puts the lattice below rho0 (P < 0, a pull)
//   gets the near pressure that pushes it back; above rho0 (P > 0), the
//   cohesion that holds it. A given near_stiffness or surface_tension is
//   balanced by the other when that one is left out.
// - viscosity: sigma = SIGMA_HAT / dt, beta = BETA_HAT / h, the seed's
//   per-pair values (the fronts move by under 1% without any viscosity).
// - mass: the one that puts the lattice at rest density in Clavet's sum
//   (which leaves self out: rho0 spacing^dim starts a 3D column at 0.64
//   rho0 with h = 2 spacings, in tension).
#include "scene.h"
#include "scene_parse.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

// c dt / h of the defaults' pressure: 0.25 keeps Martin & Moyce's front
// within 7% at h = 2 .. 3 spacings in 2D and 3D (tests/test_clavet_fronts.c);
// 0.2 lagged 13% in 3D at 3 spacings (a slab 2 h deep), 0.3 blew a 2D
// column (a = 10 spacings) up at 2 spacings.
#define C_HAT 0.25
// The seed's per-substep viscosity (2D, h 0.3, dt 1/140 s): sigma dt for
// 0.5, beta h for 1.
#define SIGMA_HAT 0.00357
#define BETA_HAT 0.3

double cs_clavet_kernel_norm(int dim, int n, double h)
{
    if (dim == 2)
        return (double)((n + 1) * (n + 2)) / (2.0 * M_PI * h * h);
    return (double)((n + 1) * (n + 2) * (n + 3)) / (8.0 * M_PI * h * h * h);
}

cs_clavet_lattice cs_clavet_lattice_sums(int dim, int n, double h, double spacing)
{
    cs_clavet_lattice out = {0};
    int reach = (int)ceil(h / spacing) + 1;
    for (int k = (dim == 3 ? -reach : 0); k <= (dim == 3 ? reach : 0); k++)
        for (int j = -reach; j <= reach; j++)
            for (int i = -reach; i <= reach; i++) {
                double r = spacing * sqrt((double)(i * i + j * j + k * k));
                if (!(r > 0.0 && r < h))
                    continue;
                double a = 1.0 - r / h, a_nm1 = pow(a, n - 1);
                out.density += a_nm1 * a;
                out.near_density += a_nm1 * a * a;
                out.pressure_virial += a_nm1 * r;
                out.near_virial += a_nm1 * a * r;
                out.cohesion_virial += a_nm1 * r * r;
            }
    return out;
}

double cs_clavet_lattice_sum(int dim, int n, double h, double spacing)
{
    return cs_clavet_lattice_sums(dim, n, h, spacing).density;
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

double cs_clavet_lattice_stress(const cs_scene *scene, const cs_material *m, double *modulus)
{
    int n;
    double split;
    block_settings(scene, &n, &split);
    double h = scene->smoothing_radius, dt = scene->dt / split;
    double norm = cs_clavet_kernel_norm(scene->dim, n, h), near_norm = cs_clavet_kernel_norm(scene->dim, n + 1, h);
    cs_clavet_lattice l = cs_clavet_lattice_sums(scene->dim, n, h, scene->particle_spacing);
    double mass = m->mass, pressure = m->stiffness * (mass * norm * l.density - m->rest_density);
    double near_pressure = m->near_stiffness * mass * near_norm * l.near_density;
    // The solver divides the cohesion by split (fluid_sph.c): a displacement
    // kappa / split N_n a^(n-1) r a substep, a force m / dt^2 times that.
    double pull = mass * (m->surface_tension / split) * norm * l.cohesion_virial / (dt * dt);
    double per_volume = 1.0 / (2.0 * scene->dim * pow(scene->particle_spacing, scene->dim));
    if (modulus)
        *modulus = m->stiffness * norm * l.pressure_virial * mass * norm * l.density * per_volume;
    return (pressure * norm * l.pressure_virial + near_pressure * near_norm * l.near_virial - pull) * per_volume;
}

double cs_clavet_sound_number(const cs_scene *scene, double stiffness)
{
    int n;
    double split;
    block_settings(scene, &n, &split);
    double h = scene->smoothing_radius, dt = scene->dt / split, norm = cs_clavet_kernel_norm(scene->dim, n, h);
    cs_clavet_lattice l = cs_clavet_lattice_sums(scene->dim, n, h, scene->particle_spacing);
    double c2 = stiffness * norm * norm * l.pressure_virial * l.density / (2.0 * scene->dim);
    return sqrt(fmax(c2, 0.0)) * dt / h;
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
    cs_clavet_lattice l = cs_clavet_lattice_sums(scene->dim, n, h, scene->particle_spacing);
#define GIVEN(key) (entry && cJSON_GetObjectItemCaseSensitive(entry, key))
    if (!GIVEN("mass") && l.density > 0.0)
        m->mass = (float)(m->rest_density / (norm * l.density));
    if (!GIVEN("stiffness") && cs_clavet_sound_number(scene, 1.0) > 0.0)
        m->stiffness = (float)(C_HAT * C_HAT / pow(cs_clavet_sound_number(scene, 1.0), 2.0));
    bool near_given = GIVEN("near_stiffness"), cohesion_given = GIVEN("surface_tension");
    if (!near_given)
        m->near_stiffness = 0.0f;
    if (!cohesion_given)
        m->surface_tension = 0.0f;
    // The stress of the lattice with what is set so far: a push is held by
    // the cohesion, a pull by the near pressure (each when left out).
    double stress = cs_clavet_lattice_stress(scene, m, NULL);
    double volume_term = 1.0 / (2.0 * scene->dim * pow(scene->particle_spacing, scene->dim));
    if (stress < 0.0 && !near_given && l.near_virial > 0.0)
        m->near_stiffness =
            (float)(-stress / (volume_term * m->mass * near_norm * l.near_density * near_norm * l.near_virial));
    else if (stress > 0.0 && !cohesion_given && l.cohesion_virial > 0.0)
        m->surface_tension = (float)(stress * dt * dt * split / (volume_term * m->mass * norm * l.cohesion_virial));
    if (!GIVEN("viscosity_linear"))
        m->viscosity_linear = (float)(SIGMA_HAT / dt);
    if (!GIVEN("viscosity_quadratic"))
        m->viscosity_quadratic = (float)(BETA_HAT / h);
#undef GIVEN
}
