// vorton_probes.h — the vorton grid tests' accuracy probe: the grid's
// velocity at probe points against the unregularised sum in double.
#pragma once

#include "vorton.h"

#include <stdint.h>

// The unregularised sum u = sum alpha x r / (4 pi |r|^3) in double, at x,
// of the n vortons (pos4: xyz, sigma; vort4: vorticity xyz).
void vorton_singular_velocity(const float *pos4, const float *vort4, uint32_t n, const double x[3], double u[3]);

// The grid velocity of v's current vortons at `count` probe points (vec4)
// vs vorton_singular_velocity: max |error| / max |u| (infinite where the
// grid wrote nothing: the output is poisoned with NaN first).
double vorton_probe_error(cs_vorton *v, const float *pos4, const float *vort4, uint32_t n, const float *points,
                          uint32_t count);
