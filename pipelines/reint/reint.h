// reint.h — reintegration tracking (seed 001): a grid fluid, 2D or 3D.
//
// Owns: the cell state (integer mass, centre-of-mass offset, velocity) in two
// ping-pong copies, the SPH scratch buffers, the field the renderer draws, the
// stats partials, the points view (particle arrays, scan offsets, draw
// arguments, a scan), and the six programs (density, forces, advect, stats,
// points flag, points scatter).
// It is independent of the particle neighbour grid: the cells ARE the grid.
//
// One step, three passes, each its own label and timestamp pair:
//   "reint: density"  SPH density + pressure of every cell's distribution
//   "reint: forces"   pressure, XSPH viscosity, gravity, velocity limit
//   "reint: advect"   every cell gathers the boxes that land on it
// and once per frame "reint: stats" (stats + field) and "reint: points" (the
// particle view: every cell above REINT_POINTS_MIN_UNITS as one point at its
// centre of mass, compacted in cell order by a flag pass, an exclusive scan
// from pipelines/core/prim.h and a scatter; no atomics). The solver registers as
// "reint" in pipelines/solvers.c; tests and tools may also drive it directly
// through the functions below.
#pragma once

#include "prim.h"
#include "sim.h"

#include "../../shaders/reint/reint_shared.h"

typedef struct cs_reint_params {
    uint32_t dim;               // 2 or 3
    uint32_t grid[3];           // cells per axis (grid[2] = 1 in 2D)
    float cell_size;            // world units per cell (cells are square)
    float dt;                   // seconds per step
    uint32_t substeps;          // steps per frame
    uint32_t search_radius;     // R: cells searched each way by the advect pass
    float diffusion_radius;     // r: half-size of each distribution's box (cells)
    float kernel_radius;        // h: SPH kernel support (cells)
    float stiffness;            // k, world units (m^2/s^2); pressure per rest density
    uint32_t eos;               // REINT_EOS_LINEAR or REINT_EOS_TAIT
    float tait_gamma;
    bool negative_pressure;     // keep P < 0 (cohesion, seed style); false clamps P at 0
    float viscosity;            // artificial viscosity alpha (Monaghan), 0..1
    float restitution;          // 0..1, velocity kept (reversed) at a wall
    float gravity[3];           // world units / s^2
    float rest_density;         // world mass per world volume (stats, points view)
    float origin[3];            // world position of the grid's low corner (points view)
} cs_reint_params;

// Sensible defaults for a grid of the given size and a domain of cells of
// `cell_size` (what a scene without a "reint" block gets).
void cs_reint_params_default(cs_reint_params *p, uint32_t dim, const uint32_t grid[3], float cell_size);

// Reads the scene's common keys and its "reint" block (schema in
// docs/scenes.md). Errors name the file and the key.
bool cs_reint_params_from_scene(const cs_scene *scene, cs_reint_params *p, cs_error *err);
extern const cs_scene_key_block cs_reint_keys; // the "reint" block's rows

// Replaces (or adds) "reint.grid" in the scene's JSON so that the next
// create() builds a grid of `cells` along x and keeps the domain's aspect
// ratio on the other axes (square cells). For `cistern bench`.
bool cs_reint_scene_set_resolution(cs_scene *scene, uint32_t cells_x, cs_error *err);

typedef struct cs_reint {
    cs_context *ctx;
    cs_reint_params params;
    reint_push push;
    uint32_t cell_count;
    cs_program_id density, forces, advect, stats, points_flag, points_scatter;
    cs_buffer mass[2], pos[2], vel[2]; // state; [current] holds the latest
    cs_buffer vel_forced;              // velocities after the forces pass
    cs_buffer dens;                    // vec2 per cell: density, pressure
    cs_buffer field;                   // vec4 per cell (see cs_field_view)
    cs_buffer partials;                // reint_stats_partial[REINT_STATS_GROUPS]
    cs_buffer overflow;                // uvec4: x = cells whose gather overflowed (sticky, advect.comp)
    // Per cell REINT_CELL_SOLID and REINT_FACE_BIT from a level (u32 each;
    // one placeholder u32x4 without a level, never read then).
    cs_buffer cell_flags;
    bool has_level;
    // The points view: per cell a 0/1 flag scanned in place into offsets;
    // up to one point per cell (positions / velocities vec4, densities
    // float, materials uint, world units); the draw arguments + count.
    cs_buffer point_offsets, point_positions, point_velocities, point_densities, point_materials, point_args;
    cs_scan scan;
    // Frames in flight (sim.h record_stats / read_stats): per frame slot, a
    // host-visible copy of the partials, the overflow word and the point
    // draw arguments, filled at the frame's end (REINT_FRAME_STATS_BYTES).
    cs_buffer frame_stats[CS_FRAME_SLOTS];
    uint32_t points_count;             // read back by cs_reint_read_points
    uint32_t current;
    uint64_t steps;                    // steps recorded so far
} cs_reint;

// Checks sizes against the device and allocates. The state starts empty.
bool cs_reint_create(cs_context *ctx, const cs_reint_params *p, cs_reint **out, cs_error *err);
void cs_reint_destroy(cs_reint *r);

// Host copies of the state: mass in REINT_MASS_ONE units; centre-of-mass
// offsets in the cell ([0,1]) and velocities (cells/s) as 4 floats per cell
// (xyz, w unused; z unused in 2D). Arrays hold cell_count cells, x fastest.
void cs_reint_upload(cs_reint *r, const uint32_t *mass, const float *pos4, const float *vel4);
void cs_reint_download(cs_reint *r, uint32_t *mass, float *pos4, float *vel4);
// Intermediates of the last recorded step (tests): density+pressure (2 floats
// per cell) and the velocities after the forces pass (4 floats per cell).
void cs_reint_download_scratch(cs_reint *r, float *dens2, float *vel_forced4);

// Fills the state from the scene's fluid blocks: every cell whose centre is
// inside a block holds one rest mass at its centre, with the block velocity.
void cs_reint_fill_from_scene(cs_reint *r, const cs_scene *scene);

// A level (docs/levels.md, "Reintegration tracking in a level"): cells
// whose centre is in the level's solid become solid cells, faces on a wall
// become blocked faces (cell flags, advect.comp), and the mass a block put
// into solid cells is removed. The field must be baked on this grid's own
// lattice (the same cell, nodes on the cell corners) and the search radius
// must be 1; otherwise refused with what would fit. `removed_units` (may be
// NULL) receives the mass taken out of solid cells.
bool cs_reint_set_level(cs_reint *r, const cs_level_field *field, uint64_t *removed_units, cs_error *err);
// Host copy of the cell flags (cell_count u32s; all 0 without a level).
void cs_reint_download_flags(cs_reint *r, uint32_t *flags);
// Records one step (three passes) / the stats pass / the points pass.
void cs_reint_record_step(cs_reint *r, cs_recorder *rec);
void cs_reint_record_stats(cs_reint *r, cs_recorder *rec);
void cs_reint_record_points(cs_reint *r, cs_recorder *rec);
// After the points pass has completed: reads its count back into
// r->points_count (what the particle view reports) and returns it.
uint32_t cs_reint_read_points(cs_reint *r);
// The particle view of the last points pass (ops.particles).
void cs_reint_particles(cs_reint *r, cs_particle_view *out);

typedef struct cs_reint_stats {
    uint64_t mass_units;        // exact total mass, REINT_MASS_ONE per rest cell
    uint32_t filled_cells;
    uint32_t non_finite;        // cells with a NaN/Inf position or velocity
    uint32_t outside_cell;      // centres of mass outside their cell
    double max_speed;           // cells/s, over cells holding more than mist (REINT_MIST_UNITS)
    double kinetic_energy;      // rest masses * cells^2/s^2
    double density_error_sum;   // sum over filled cells of |mass / rest mass - 1|
    double max_density_error;   // max of the same
    // Cell gathers that overflowed the fixed-point capacity (a u32 of
    // REINT_MASS_ONE units: 4096 rest masses) since the start, counted by
    // the advect pass, which saturates such a cell (mass is then no longer
    // exact). Never cleared: one is enough to distrust the run.
    uint32_t over_capacity;
} cs_reint_stats;

// Reads the partials of the last recorded stats pass (after submit_wait).
void cs_reint_read_stats(cs_reint *r, cs_reint_stats *out);
// Frames in flight: after the frame end (stats and points passes), copies
// what cs_reint_read_stats and cs_reint_read_points read into the
// recorder's frame slot; once that frame completed, reads them from there
// (the points count included) without a submit.
void cs_reint_record_frame_stats(cs_reint *r, cs_recorder *rec);
void cs_reint_read_frame_stats(cs_reint *r, uint32_t frame_slot, cs_reint_stats *out);

extern const cs_sim_ops cs_reint_ops;
