// solvers.h — every simulation pipeline, by scene "solver" name: the one
// list of solvers (solvers.c). It sits above every family under pipelines/,
// so only the world, the app and the tests, which may see them all, look a
// solver up; a family knows only sim.h's contract.
#pragma once

#include "sim.h"

// The registered pipelines, and lookup by scene solver name (NULL if none).
extern const cs_sim_ops *const cs_sim_registry[];
const cs_sim_ops *cs_sim_find(const char *solver);
