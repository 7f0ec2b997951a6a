// fluid_wcsph.h — weakly compressible SPH (Becker & Teschner 2007, "wcsph")
// on the particle-fluid base (fluid.h). Owns the solver's parameter buffer,
// its two programs and two scratch arrays (pressure; rho and p / rho^2 for
// forces' neighbour loop); particle state, grid, emitters, collisions and
// stats belong to the base. The positions carry the material in w
// (cs_fluid_desc.positions_w_material): per candidate neighbour, density
// reads one array and forces three.
//
// One substep, as recorded (every pass labelled and timed):
//   emit → grid on x (+ reorder)
//   → "grid: neighbours" (the lists on x, in 3D: fluid_wcsph.c)
//   → "wcsph: density" (rho = sum m W, Tait p = B((rho/rho0)^gamma - 1), B = rho0 c^2/gamma)
//   → "wcsph: forces"  (pressure, artificial viscosity, cohesion, gravity;
//                       symplectic Euler v' = v + dt a, x' = x + dt v')
//   → collide (the boundary set: domain box faces, walls; boundary.h).
// Both passes are Jacobi-style (read the previous state, write separate
// buffers): the same bits every run, matching tests/ref/wcsph_ref.h.
//
// Walls: the base only clamps positions at walls and the domain box, so the
// layer touching a wall would miss the neighbours beyond it, read as
// under-dense and be squeezed into the wall. With wall_density (default)
// every half-space of the boundary set (boundary.h) counts as layers of
// fluid at rest behind it, spaced like the scene's particle lattice (layer k
// at (k + 1/2) spacing beyond the plane) and continuous along it. psi(q) is
// their density share for a particle at q = d/h; several walls combine as
// independent fractions, so rho += rho0 (1 - prod_k (1 - psi_k)) (summing
// would count a corner twice).
// The pressure term gains -(p/rho^2) grad(rho_wall), the energy-consistent
// force of that density (as for Akinci et al.'s boundary particles; a
// mirror form with twice this, summed over walls, pumped energy into a
// resting block). Layers rather
// than a continuous half-space because a block filled on the lattice must
// start at its rest density at the wall too: the continuous version reads
// 2.3% over-dense there (cubic spline, h = 2.4 spacings), which Tait's
// gamma = 7 turns into ten times the hydrostatic pressure. psi and
// push = -dpsi/dq are tabulated (65 samples, linear interpolation).
//
// Time step: the scene's dt is split into equal parts when it exceeds the
// CFL bound dt <= cfl * h_s / (c (1 + 0.6 alpha)) (Becker & Teschner eq. 12,
// h_s = h/2 the smoothing length), so a scene cannot explode by a too long
// dt; `substeps` then counts the parts.
//
// Scene block "wcsph": { "kernel": "cubic" | "wendland", "clamp_negative_pressure": true,
//                        "wall_density": true, "cfl": 0.4 } (docs/scenes.md).
#pragma once

#include "../../shaders/wcsph/wcsph_shared.h"
#include "fluid.h"

// fluid.arrays[]: pressures, a float per particle; neighbour terms, a vec2
// per particle (rho, p / rho^2), what forces reads of each neighbour
// (density.comp writes both, and the densities).
enum { CS_WCSPH_ARRAY_PRESSURES = 0, CS_WCSPH_ARRAY_NEIGHBOUR_TERMS = 1 };

typedef struct cs_wcsph {
    cs_fluid fluid;            // its scene copy holds the (possibly split) dt and substeps
    int kernel;                // CS_WCSPH_CUBIC or CS_WCSPH_WENDLAND
    bool clamp_negative_pressure;
    bool wall_density;         // walls and the domain box count as fluid at rest behind them
    bool surface_renormalise;  // density / the kernel's share inside the fluid at the free surface
    float cfl;                 // 0: never split dt
    uint32_t dt_split;         // scene dt was divided by this
    cs_wcsph_params params;    // host copy of params_buffer
    cs_buffer params_buffer;
    cs_program_id density[2], forces[2]; // [0] the cell walk, [1] the list loop (compiled when first used)
    cs_neighbours nb;          // built on x after the grid, read by density and forces (fluid_wcsph.c)
    bool lists;                // build and read the lists (fluid_wcsph.c, lists_wanted)
} cs_wcsph;

bool cs_wcsph_create(cs_context *ctx, const cs_scene *scene, cs_wcsph *w, cs_error *err);
extern const cs_scene_key_block cs_wcsph_keys; // the block's rows
// The "wcsph" block into w's options (kernel, clamp_negative_pressure,
// wall_density, cfl, surface_renormalise); cs_wcsph_create calls it.
bool cs_wcsph_read_block(const cs_scene *scene, cs_wcsph *w, cs_error *err);
void cs_wcsph_destroy(cs_wcsph *w);

// Switches the neighbour lists on or off (off: no "grid: neighbours" pass,
// both loops walk the cells; the results are the same bits either way).
// The first switch on creates the lists and the list programs.
// cs_wcsph_create chooses (fluid_wcsph.c, lists_wanted); tests force both.
bool cs_wcsph_set_neighbour_lists(cs_wcsph *w, bool on, cs_error *err);

void cs_wcsph_record_substep(cs_wcsph *w, cs_recorder *rec);
// Density first builds the neighbour lists on the positions (when on: it
// is the first pass after the grid build and reorder).
void cs_wcsph_record_density(cs_wcsph *w, cs_recorder *rec);
void cs_wcsph_record_forces(cs_wcsph *w, cs_recorder *rec);

// Kernel normalisation for support radius h: W = norm * f(r/h).
double cs_wcsph_kernel_norm(int kernel, int dim, double h);
// The kernel (h = 1) integrated over a plane at distance q from the
// particle, or (gradient) minus its derivative along the plane's normal.
// Quadrature in double.
double cs_wcsph_plane_integral(int kernel, int dim, double q, bool gradient);
// The wall tables: for a wall at distance q h, the layers of fluid at rest
// behind it, spaced spacing_over_h h and laterally continuous, summed:
// spacing_over_h * sum_k plane_integral(q + (k + 1/2) spacing_over_h).
double cs_wcsph_wall_table_value(int kernel, int dim, double spacing_over_h, double q, bool gradient);

extern const cs_sim_ops cs_wcsph_ops;
