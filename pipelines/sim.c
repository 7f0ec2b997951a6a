// sim.c — the table of simulation pipelines, looked up by scene "solver".
#include "sim.h"

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
