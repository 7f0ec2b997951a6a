// fluid_pbf.h — Position Based Fluids: the ops table (registered in solvers.c)
// and the hooks tests use to drive single substeps and read the constants
// the solver derived from the scene (see fluid_pbf.c).
#pragma once

#include "fluid.h"

extern const cs_sim_ops cs_pbf_ops;

// The fluid's "pbf" block (docs/scenes.md "pbf").
typedef struct cs_pbf_params {
    uint32_t iterations;
    float relaxation;
    float scorr_k, scorr_dq;
    uint32_t scorr_n;
    float vorticity;
    float xsph;
    float scorr_background; // 1: s_corr as the paper's; 0: only between pairs closer than the lattice spacing
} cs_pbf_params;

// The block's rows (scene_keys.h): cs_pbf_params is what they fill.
extern const cs_scene_key_block cs_pbf_keys;

// Reads scene->solver_params (defaults first); messages name `pbf.key`.
bool cs_pbf_params_read(const cs_scene *scene, cs_pbf_params *p, cs_error *err);

typedef struct cs_pbf_constants {
    uint32_t iterations;
    double lattice_density;   // sum_j W over a full lattice of particle_spacing
    double d0;                // sum_k |grad_k C|^2 on that lattice (rest volume m / rho0 = 1 / lattice_density)
    float epsilon;            // relaxation * d0
    float scorr_scale;        // scorr_k / d0
    float inv_w_dq;           // 1 / W(scorr_dq * h)
    float scorr_n;
    float scorr_rest;         // (W(particle_spacing) / W(dq))^n, subtracted (repulsion only closer than the lattice)
    float vorticity;
    float xsph;
} cs_pbf_constants;

cs_fluid *cs_pbf_fluid(void *state);
void cs_pbf_get_constants(void *state, cs_pbf_constants *out);
// Records one substep (all its passes) into rec.
void cs_pbf_record_substep(void *state, cs_recorder *rec);
// Neighbour lists on (default) or off (every loop walks the cells, as if
// every build overflowed the list): results must be the same bits either way.
void cs_pbf_set_neighbour_lists(void *state, bool on);
// The lists (use[i]: whether particle i read its list in the last lambda).
cs_neighbours *cs_pbf_neighbours(void *state);
