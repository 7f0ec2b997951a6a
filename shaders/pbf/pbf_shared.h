// pbf_shared.h — push constants of the Position Based Fluids passes
// (pipelines/fluid/fluid_pbf.c and shaders/pbf/*.comp include this same file).
#ifndef CS_PBF_SHARED_H
#define CS_PBF_SHARED_H

#include "cs_shared.h"

struct cs_pbf_push {
    uint count;        // live particles
    uint slot;         // position set this dispatch reads (0 = as at the neighbour build, k = after
                       // k delta steps), compared with the moved marks CS_NB_CELLS + cell (grid_shared.h)
    float scorr_rest;  // (1 - scorr_background) (W(spacing) / W(dq))^n: subtracted from s_corr's (W / W(dq))^n,
                       // clamped at 0 (fluid_pbf.c, "scorr_background")
    uint pad2;
    vec4 solver;       // x = epsilon (relaxation * D0), y = scorr_k / D0, z = 1 / W(dq), w = scorr_n (an integer)
    vec4 post;         // x = vorticity epsilon (m/s), y = XSPH c, z = rest volume V = m / rho0,
                       // w = (skin / 2)^2: a particle further than this from its anchor marks its build cell
};

#ifndef CS_GLSL
typedef struct cs_pbf_push cs_pbf_push;
#endif

#endif
