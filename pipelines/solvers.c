// solvers.c — the one file that names every solver: the table of simulation
// pipelines, looked up by scene "solver". It sits above the families
// (pipelines/<family>/, CMakeLists.txt) because it is the only code that
// knows them all; each family defines its ops table (sim.h's cs_sim_ops)
// and declares it in its header. A new solver is its family plus one line
// here.
#include "solvers.h"

#include "fluid_dfsph.h" // cs_dfsph_ops (divergence-free SPH)
#include "fluid_pbf.h"   // cs_pbf_ops
#include "fluid_sph.h"   // cs_sph_ops (Clavet double-density relaxation)
#include "fluid_wcsph.h" // cs_wcsph_ops
#include "reint.h"       // cs_reint_ops
#include "vorton.h"      // cs_vorton_ops (vorton_scene.c)

#include <string.h>

const cs_sim_ops *const cs_sim_registry[] = {
    &cs_pbf_ops,
    &cs_sph_ops,
    &cs_wcsph_ops,
    &cs_dfsph_ops,
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
