// sim.c — the table of simulation pipelines, looked up by scene "solver".
#include "sim.h"

#include <math.h>

// Each pipeline module defines its ops table; add it here.
extern const cs_sim_ops cs_pbf_ops;   // fluid_pbf.c
extern const cs_sim_ops cs_sph_ops;   // fluid_sph.c (Clavet double-density relaxation)
extern const cs_sim_ops cs_wcsph_ops; // fluid_wcsph.c
extern const cs_sim_ops cs_reint_ops; // reint.c
extern const cs_sim_ops cs_vorton_ops; // vorton_scene.c

const cs_sim_ops *const cs_sim_registry[] = {
    &cs_pbf_ops,
    &cs_sph_ops,
    &cs_wcsph_ops,
    &cs_reint_ops,
    &cs_vorton_ops,
    NULL,
};

const cs_sim_ops *cs_sim_find(const char *solver)
{
    for (int i = 0; cs_sim_registry[i]; i++)
        if (strcmp(cs_sim_registry[i]->solver, solver) == 0)
            return cs_sim_registry[i];
    return NULL;
}

double cs_level_field_sample(const double origin[3], double cell, const uint32_t dims[3], const float *values,
                             const double p[3])
{
    uint32_t i[3];
    double t[3];
    for (int a = 0; a < 3; a++) {
        double u = (p[a] - origin[a]) / cell;
        u = fmin(fmax(u, 0.0), (double)(dims[a] - 1));
        i[a] = (uint32_t)fmin(floor(u), (double)(dims[a] - 2));
        t[a] = u - i[a];
    }
    double sum = 0.0;
    for (int corner = 0; corner < 8; corner++) {
        double w = 1.0;
        uint32_t c[3];
        for (int a = 0; a < 3; a++) {
            uint32_t bit = (corner >> a) & 1u;
            c[a] = i[a] + bit;
            w *= bit ? t[a] : 1.0 - t[a];
        }
        sum += w * values[((size_t)c[2] * dims[1] + c[1]) * dims[0] + c[0]];
    }
    return sum;
}
