// vorton_probes.h — the vorton tests' accuracy probe: the solver's velocity
// at probe points against a CPU reference sum in double.
#pragma once

#include "vorton.h"

#include <stdint.h>

// The unregularised sum u = sum alpha x r / (4 pi |r|^3) in double, at x,
// of the n vortons (pos4: xyz, sigma; vort4: vorticity xyz).
void vorton_singular_velocity(const float *pos4, const float *vort4, uint32_t n, const double x[3], double u[3]);

// A CPU reference velocity at x of the n vortons (vorton_singular_velocity,
// or the regularised vorton_ref_velocity of ref/vorton_ref.h).
typedef void (*vorton_reference_fn)(const float *pos4, const float *vort4, uint32_t n, const double x[3],
                                    double u[3]);

// v's velocity at `count` probe points (vec4) vs `reference`: max |error| /
// max |u| (infinite where nothing was written: the output is poisoned with
// NaN first).
double vorton_probe_error(cs_vorton *v, vorton_reference_fn reference, const float *pos4, const float *vort4,
                          uint32_t n, const float *points, uint32_t count);
