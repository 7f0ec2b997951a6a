// sim.c — the table of simulation pipelines, looked up by scene "solver".
#include "sim.h"

// Each pipeline module defines its ops table; add it here.
const cs_sim_ops *const cs_sim_registry[] = {
    NULL,
};

const cs_sim_ops *cs_sim_find(const char *solver)
{
    for (int i = 0; cs_sim_registry[i]; i++)
        if (strcmp(cs_sim_registry[i]->solver, solver) == 0)
            return cs_sim_registry[i];
    return NULL;
}
