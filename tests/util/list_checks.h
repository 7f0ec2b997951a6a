// list_checks.h — a solver's neighbour lists (grid.h) against its own cell
// walk, for any solver that reads cs_neighbours (test_sph, test_wcsph):
// lists on and off must give the same bits, and lists built a hair too
// short must not (else the loops would not be reading them).
#ifndef CISTERN_LIST_CHECKS_H
#define CISTERN_LIST_CHECKS_H

#include "fluid.h"
#include "grid.h"

// What the checks need of a solver. `create` makes it for SCENE (the test's
// scene text or name) with its lists on or off, or returns NULL after a
// failed CHECK; the others reach into what it made.
typedef struct list_solver {
    const char *name; // "sph", "wcsph": in the messages
    void *(*create)(cs_context *ctx, const char *scene, bool lists);
    cs_fluid *(*fluid)(void *solver);
    cs_neighbours *(*neighbours)(void *solver);
    void (*run)(void *solver, uint32_t substeps);
    void (*destroy)(void *solver);
} list_solver;

// Lists on and off: the same positions, velocities and densities, bit for
// bit, and the lists read by most particles, or, with `slots_read` (not 0:
// the slot count the loops compare counts[i] against, while the build still
// fills its own slots), by some while the others walk in the same dispatch.
void list_check_match_walk(const list_solver *ls, cs_context *ctx, const char *what, const char *scene,
                           uint32_t substeps, uint32_t slots_read);
// The negative control: lists built with 0.999 of their radius (pairs just
// inside h missing) must give other positions than the walk.
void list_check_are_read(const list_solver *ls, cs_context *ctx, const char *what, const char *scene,
                         uint32_t substeps);

#endif
