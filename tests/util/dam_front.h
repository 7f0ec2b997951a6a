// dam_front.h — Martin & Moyce's dam-break front and how the tests read it
// from a particle fluid (tests/test_dam_front.c, tests/test_clavet_fronts.c).
#pragma once

#include "sim.h"

// Martin & Moyce (1952), n^2 = 2, a = 2.25 in, their Figure 3 as PySPH's
// db_exp_data lists it: the front Z = x / a at T = t sqrt(2 g / a), read by
// straight lines between their points.
double dam_martin_moyce(double t);

// The front of a fluid: the 99th percentile of x of the particle centres
// plus half a spacing (a centre sits half a spacing inside the water's
// edge), so a lone spray particle does not decide it. NaN when a position
// or velocity is not finite; *max_speed: the fastest particle's speed.
double dam_front_of(cs_context *ctx, const cs_sim_ops *ops, void *state, double spacing, double *max_speed);
