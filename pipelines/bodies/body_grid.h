// body_grid.h — the bodies' broad phase on the host: the grid's layout for a
// scene and its per-cell lists for the initial set (bodies_shared.h
// cs_body_grid; the GPU rebuilds the lists after every substep's
// integration, shaders/bodies/broad.comp, the same way).
#pragma once

#include "../../shaders/bodies/bodies_shared.h"
#include "scene.h"

// The grid over the scene's domain: reach = the largest smoothing length of
// its fluids (what WCSPH's body share looks past a body's bounding sphere),
// cells of two reaches (or 1/64 of the longest side, whichever is larger),
// grown until they fit in CS_BODY_GRID_CELLS. The lists are left empty and
// the grid not ready.
void cs_body_grid_layout(const cs_scene *scene, cs_body_grid *grid);

// The lists of `set`'s bodies over its grid's layout, each in body order;
// marks the grid ready unless the entries do not fit (then every particle
// tests every body).
void cs_body_grid_fill(cs_body_set *set);
