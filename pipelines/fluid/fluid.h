// fluid.h — the base every particle-fluid solver (PBF, Clavet SPH, WCSPH)
// stands on: particle state, neighbour grid + reorder, emitters, collisions,
// stats. A solver module (fluid_pbf.c, fluid_sph.c) embeds one
// cs_fluid, adds its own programs and passes, and fills a cs_sim_ops.
//
// Owns:
//  - particle state, in "current order" (cell order after the last grid
//    build), double-buffered so the reorder can gather:
//      positions   vec4 (xyz, w = 0; with desc.positions_w_material, w =
//                  float(material), kept by every writer: the blocks'
//                  upload, "emit", the reorder, "collide" and the solver's
//                  own passes)
//      velocities  vec4 (xyz, w = 0)
//      predicted   vec4 (only when desc.uses_predicted; xyz, w = particle
//                  mass as "predict" writes it, so loops over x* need no
//                  material lookup; with desc.predicted_w_material, w =
//                  float(material) instead: one storage-buffer read per
//                  neighbour less on lavapipe for solvers that need both)
//      materials   uint (index into scene materials)
//      ids         uint (the particle's creation index: blocks first, then
//                  emitted in emission order — maps any state back to a
//                  fixed order for tests, dumps and determinism checks)
//    plus `densities` (float, written by the solver, not reordered) and up
//    to CS_FLUID_MAX_ARRAYS solver scratch arrays (not reordered either);
//  - the neighbour grid (grid.h) with cell size h over the domain;
//  - the constant parameters every fluid shader reads (fluid_shared.h:
//    domain, h, dt, gravity, restitution, grid layout, materials, kernel
//    constants, and the boundary set of boundary.h: the box faces and the
//    walls every wall model walks) in one read-only storage buffer;
//  - the emission schedule (host side, deterministic: particle k of an
//    emitter is born at start_time + k / rate; the count grows on the host,
//    a small "emit" pass writes the new particles on the GPU);
//  - the stats pass (deterministic reductions, prim.h) and its read-back.
//
// A substep, as a solver records it (each call is one or more labelled
// passes; call them outside a pass):
//
//   cs_fluid_record_emit(f, rec);            // "emit" (only when particles are born)
//   cs_fluid_record_predict_grid(f, rec);    // "predict" (v += g dt, x* = x + v dt, cell ids)
//                                            // then "grid: sort/ranges/reorder"
//   ... solver passes, reading cs_fluid_pos(f) etc. and f->grid.ranges ...
//   cs_fluid_record_collide(f, rec, x, v);   // "collide": the boundary set
//   cs_fluid_end_substep(f);                 // advances the simulated time
//
// IMPORTANT: the reorder swaps the current/alternate buffers on the host at
// RECORD time. Always fetch buffers through cs_fluid_pos(f) etc. right when
// you record a dispatch, never cache the cs_buffer* across a grid build.
// Jacobi-style passes may use the alternate buffers (cs_fluid_pos_alt()...)
// as outputs and then call cs_fluid_swap_*().
//
// Shaders: include "../fluid/fluid.glsl" (params buffer, kernels, collide)
// and "../grid/grid.glsl" (neighbour loop). Compile programs with
// cs_fluid_program(): it adds DIM=2|3 and remembers the program, so
// cs_fluid_destroy() releases the solver's programs too. Hot reload needs
// nothing from the solver: it walks the context's program registry.
#pragma once

#include "../../shaders/fluid/fluid_shared.h"
#include "grid.h"
#include "sim.h"

#define CS_FLUID_MAX_ARRAYS 8
#define CS_FLUID_MAX_PROGRAMS 32

// A per-particle scratch array the solver wants (lambda, pressure, curl...).
typedef struct cs_fluid_array_desc {
    const char *name;          // buffer name ("pbf lambda"); NULL ends the list
    uint32_t stride;           // bytes per particle
} cs_fluid_array_desc;

typedef struct cs_fluid_desc {
    const char *solver;        // "pbf", "sph", "wcsph": names buffers and messages
    bool uses_predicted;       // allocate and reorder the predicted positions
    bool predicted_w_material; // "predict" writes float(material) in w instead of the mass
    bool positions_w_material; // the positions carry float(material) in w (WCSPH: one read per neighbour)
    // Each scene substep runs as this many solver substeps (SPH "split",
    // WCSPH's CFL split): dt is the scene's divided by it; 0 and 1: the scene's.
    uint32_t dt_split;
    cs_fluid_array_desc arrays[CS_FLUID_MAX_ARRAYS];
} cs_fluid_desc;

typedef struct cs_fluid {
    cs_context *ctx;
    cs_fluid_desc desc;
    char scene_name[64];
    char solver[16];
    int dim;
    // The fluid's scene (its entry of the file, or the world's placed copy
    // of it), not a copy: whoever made the fluid keeps it alive and
    // unchanged until cs_fluid_destroy (the world does for its fluids).
    const cs_scene *scene;
    float dt;                  // the solver's substep: scene->dt / desc.dt_split
    uint32_t substeps;         // solver substeps per frame: scene->substeps * desc.dt_split

    uint32_t count;            // live particles (grows with emission)
    uint32_t capacity;         // scene max_particles, or blocks + emitter budgets
    uint32_t block_count;      // particles the blocks made at creation

    // State: [cur] is current, [cur ^ 1] alternate.
    cs_buffer positions[2], velocities[2], predicted[2], materials[2], ids[2];
    uint32_t pos_cur, vel_cur, pred_cur, state_cur; // state_cur: materials + ids
    cs_buffer densities;
    cs_buffer arrays[CS_FLUID_MAX_ARRAYS];

    // Constant parameters (host copy + GPU buffer). A solver may change the
    // host copy after cs_fluid_create (e.g. material masses) and call
    // cs_fluid_upload_params().
    cs_fluid_params params;
    cs_buffer params_buffer;
    double boundary_fill;      // kappa of the boundary tables (fluid.c boundary_fill)

    cs_grid grid;

    // Emission: simulated time and substeps so far, particles born per emitter.
    uint64_t substep_index;
    uint32_t emitted[CS_MAX_EMITTERS];

    // Stats: per-particle terms, reduced to stats_out.
    cs_reduce reduce;
    cs_buffer stats_terms[CS_FLUID_STAT_TERMS]; // one float per particle each
    cs_buffer stats_out;       // one float per reduction
    cs_recorder stats_rec;
    // stats_out copied where the host reads it, one per frame slot
    // (recorder.h: frames in flight read their stats a frame later), and
    // the particle count of the frame each holds.
    cs_buffer stats_readback[CS_FRAME_SLOTS];
    uint32_t stats_count[CS_FRAME_SLOTS];

    // Rigid bodies: what this fluid's collisions give each moving body, per
    // particle (collide.comp WITH_IMPULSES; cs_body_link). Only with moving
    // bodies in the scene (impulse_slots > 0).
    cs_buffer body_impulses;
    uint32_t impulse_slots;

    // The bodies' set (bodies_shared.h) every pass that reads the bodies
    // binds at CS_BODY_SET_BINDING (cs_fluid_dispatch): own_body_set, the
    // initial set built from the scene, until the bodies publish theirs
    // (cs_body_link.reads_set); then shared_body_set, the one buffer every
    // fluid of the world reads.
    cs_buffer own_body_set;
    cs_buffer *shared_body_set;

    // The level's signed distance field (cs_fluid_set_level), bound at
    // CS_LEVEL_FIELD_BINDING by every pass that collides; one placeholder
    // float until a level is set.
    cs_buffer level_field;
    bool has_level;

    cs_program_id predict, predict_cells, reorder, collide, collide_positions, emit, stats;
    // Every program cs_fluid_program built (the base's and the solver's),
    // released by cs_fluid_destroy.
    cs_program_id programs[CS_FLUID_MAX_PROGRAMS];
    uint32_t program_count;
} cs_fluid;

// Particles the scene needs room for (max_particles, else blocks + budgets).
uint32_t cs_fluid_scene_capacity(const cs_scene *scene);

// Checks a particle array of `capacity` elements of `stride` bytes against the
// device, with a message naming the scene, the count and the limit. The base
// calls it for every buffer it will allocate before allocating any.
bool cs_fluid_check_array(const cs_context *ctx, const cs_scene *scene, const char *name, uint32_t capacity,
                          uint32_t stride, cs_error *err);

// Checks every size first (refusing what the device cannot hold, before any
// allocation), then allocates, fills the blocks, uploads the parameters.
bool cs_fluid_create(cs_context *ctx, const cs_scene *scene, const cs_fluid_desc *desc, cs_fluid *f,
                     cs_error *err);
// Destroys everything, including every program made by cs_fluid_program.
void cs_fluid_destroy(cs_fluid *f);

// Compiles shaders/<path> with DIM and the given extra defines (may be
// NULL; terminated by a NULL name) and remembers it for cs_fluid_destroy.
bool cs_fluid_program(cs_fluid *f, const char *path, const cs_define *defines, cs_program_id *prog, cs_error *err);

// Neighbour lists (grid.h) for the solver's loops: radius = h *
// radius_over_h (PBF: 1 + its skin; Clavet SPH and WCSPH: 1 + a hair, no
// skin), slots = slack x the lattice count within the radius at the scene's
// particle spacing (h / 2 without one), buffers named "<solver> neighbours".
bool cs_fluid_create_neighbours(cs_fluid *f, double radius_over_h, double slack, cs_neighbours *nb, cs_error *err);
// Lists with no skin, for loops that all read the positions the lists were
// built on (Clavet SPH, WCSPH): radius h (1 + 1e-4), a hair above h so the
// build's own r^2 test (another shader, which may round differently) keeps
// every pair a loop accepts with r < h; each loop keeps its test, so it sums
// exactly the walk's pairs in the walk's order. Slots: 2 x the lattice count.
bool cs_fluid_create_exact_neighbours(cs_fluid *f, cs_neighbours *nb, cs_error *err);
// The same at a solver's create, where the lists only cost speed: when the
// device cannot hold them (memory, buffer limits) it says so on stderr and
// sets *on false, and the solver runs the cell walk as before lists existed.
void cs_fluid_try_exact_neighbours(cs_fluid *f, cs_neighbours *nb, bool *on);
// Whether a solver builds its lists: the switch `name` of the context's
// settings (CISTERN_SPH_LISTS: "on" or "off") when set, else `fallback`
// (the solver's measured rule). False (err names the variable and its
// values) for any other value.
bool cs_fluid_lists_wanted(const cs_context *ctx, const char *name, bool fallback, bool *wanted, cs_error *err);

// Current and alternate buffers (see the IMPORTANT note above).
static inline cs_buffer *cs_fluid_pos(cs_fluid *f) { return &f->positions[f->pos_cur]; }
static inline cs_buffer *cs_fluid_pos_alt(cs_fluid *f) { return &f->positions[f->pos_cur ^ 1u]; }
static inline cs_buffer *cs_fluid_vel(cs_fluid *f) { return &f->velocities[f->vel_cur]; }
static inline cs_buffer *cs_fluid_vel_alt(cs_fluid *f) { return &f->velocities[f->vel_cur ^ 1u]; }
static inline cs_buffer *cs_fluid_pred(cs_fluid *f) { return &f->predicted[f->pred_cur]; }
static inline cs_buffer *cs_fluid_pred_alt(cs_fluid *f) { return &f->predicted[f->pred_cur ^ 1u]; }
static inline cs_buffer *cs_fluid_mat(cs_fluid *f) { return &f->materials[f->state_cur]; }
static inline cs_buffer *cs_fluid_ids(cs_fluid *f) { return &f->ids[f->state_cur]; }
static inline void cs_fluid_swap_pos(cs_fluid *f) { f->pos_cur ^= 1u; }
static inline void cs_fluid_swap_vel(cs_fluid *f) { f->vel_cur ^= 1u; }
static inline void cs_fluid_swap_pred(cs_fluid *f) { f->pred_cur ^= 1u; }

// Uploads f->params (after a solver changed it).
void cs_fluid_upload_params(cs_fluid *f);
// After a live edit of the fluid's scene (a panel, sim.h's retune): the
// values create took from it that may change while it runs, gravity and
// boundary_restitution, and dt split `split` ways (as desc.dt_split), into
// the host copy; the solver uploads them (with its own) afterwards.
void cs_fluid_retune(cs_fluid *f, uint32_t split);

// cs_dispatch for the fluid's programs: also binds the bodies' set at
// CS_BODY_SET_BINDING when the program's shader reads it.
void cs_fluid_dispatch(cs_fluid *f, cs_recorder *rec, cs_program_id program, const cs_dispatch_desc *desc);

// ---- per-substep passes (each ends with a compute barrier) ----
// "emit": particles whose birth time has come are written at [count, ...)
// and count grows. Nothing is recorded when none is born.
void cs_fluid_record_emit(cs_fluid *f, cs_recorder *rec);
// "predict": v += g dt; predicted = (x + v dt, mass) (needs uses_predicted).
void cs_fluid_record_predict(cs_fluid *f, cs_recorder *rec);
// "grid: cell ids", "grid: sort", "grid: ranges" over the predicted
// positions (on_predicted) or the positions, then "grid: reorder": every
// state array gathered into cell order (the current buffers swap).
void cs_fluid_record_grid(cs_fluid *f, cs_recorder *rec, bool on_predicted);
// cs_fluid_record_predict then cs_fluid_record_grid(f, rec, true), the same
// bits, two dispatches and barriers fewer: "predict" also writes the grid's
// cell ids and clears its ranges (fluid/predict.comp with CELL_IDS), then
// "grid: sort", "grid: ranges", "grid: reorder".
void cs_fluid_record_predict_grid(cs_fluid *f, cs_recorder *rec);
// "collide": positions are kept on the fluid side of every half-space of the
// boundary set (walls, then the domain box's faces: boundary.h); the normal
// velocity into a boundary is reflected and scaled by the scene's
// boundary_restitution. `velocities` may be NULL (positions only).
void cs_fluid_record_collide(cs_fluid *f, cs_recorder *rec, cs_buffer *positions, cs_buffer *velocities);
// Takes a level's distance field (sim.h; 3D only): uploads it and turns on
// the level collision of every collide pass (cs_collide in fluid.glsl). False
// with a message when the device cannot hold it or the fluid is 2D.
bool cs_fluid_set_level(cs_fluid *f, const cs_level_field *field, cs_error *err);
// What the bodies module needs from this fluid (sim.h cs_body_link).
void cs_fluid_body_link(cs_fluid *f, cs_body_link *out);
// Advances the simulated time by dt (emission schedule).
void cs_fluid_end_substep(cs_fluid *f);
// The substep's pointer (cs_substep) into the parameters predict reads,
// written inside the recording (cs_cmd_update) only when it changed.
void cs_fluid_record_pointer(cs_fluid *f, cs_recorder *rec, const cs_substep *step);
// Simulated time at the start of the current substep.
double cs_fluid_time(const cs_fluid *f);
// The real-time mode's speed limit in m/s (scene.h cs_realtime_options:
// max_step x h / dt, which predict, pbf: velocity and pbf: vorticity+xsph
// clamp to); 0 in the physical mode.
float cs_fluid_speed_limit(const cs_fluid *f);

// Records the stats pass on the state as recorded so far, at the frame's
// end, and its copy into the readback of the recorder's frame slot: the
// frame's one submit carries its stats.
void cs_fluid_record_stats(cs_fluid *f, cs_recorder *rec);
// After that recording completed: the stats it computed.
void cs_fluid_read_stats(cs_fluid *f, uint32_t frame_slot, cs_sim_stats *out);

// ---- after the frame was submitted and waited on ----
// Runs the stats pass on the current state (its own submit) and reads it back.
// Density error uses f->densities as the solver last wrote it.
void cs_fluid_stats(cs_fluid *f, cs_sim_stats *out);
void cs_fluid_particles(cs_fluid *f, cs_particle_view *out);

// Downloads current state, indexed by particle id (so two runs compare
// element by element). Any pointer may be NULL. Arrays hold f->count
// elements (vec4 for positions / velocities).
// The base's float state (positions, velocities, predicted positions, both
// of each pair, and densities) as sim.h's float_buffers op lists it.
uint32_t cs_fluid_float_buffers(cs_fluid *f, cs_float_buffer *out, uint32_t max);

// What a checkpoint saves of the particle base (sim.h cs_state_entry): the
// live particles of the state pairs and which of each is current, of the
// densities, the solver's scratch arrays and the bodies' impulses, the
// bodies' initial set, the count and the emission schedule's progress. Appended to out[*n ..]. The parameters and the level's field
// are left out: create builds them the same from the scene.
void cs_fluid_state(cs_fluid *f, cs_state_entry *out, uint32_t *n, uint32_t max);

void cs_fluid_download_by_id(cs_fluid *f, float *positions4, float *velocities4, float *densities,
                             uint32_t *materials);
