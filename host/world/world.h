// world.h — the world: every part a scene holds, run substep by substep.
//
// Owns: one simulation state per fluid of the scene (each its own solver,
// materials, grid and, optionally, its own domain), the substep clock they
// share, and a surface for every fluid whose scene asks for one (its field
// and its mesh, world_surface.c). Later parts (a level, bodies, lights,
// probes) join here as further arrays with their own per-substep and
// per-frame hooks.
//
// A frame, as cs_world_record_frame records it:
//
//   for each substep s of the frame:             (scene.substeps of them)
//       for each fluid, in scene order:  ops->record_substep(state, rec, &step)
//       bodies: integrate what the fluids gave them, publish their new pose
//   for each fluid:  ops->record_frame_end(state, rec)   (views, reductions)
//
// and, in the frames that draw or write a surface, cs_world_mesh_surfaces
// after it: per surface its field and the count passes, a submit, the host
// reads the totals, then the emit passes in the same (resumed) recording,
// which the caller goes on to draw in (docs/surface.md, "In the frame").
//
// Fluids do not interact yet: each sees the world's walls and its own
// domain box, not the other fluids. With more than one fluid, each fluid's
// passes are named "<fluid name>: <pass>" (the recorder's pass prefix) so
// captures, stats.csv and benchmarks tell them apart; a world of one fluid
// keeps the bare names.
//
// run, bench and the window hold a cs_world, never a solver.
#pragma once

#include "level_mesh.h"
#include "world_radiosity.h"

#include "grid.h"
#include "bodies.h"
#include "solvers.h"
#include "surface.h"

// The substep index of a surface that has no mesh yet.
#define CS_WORLD_NOT_MESHED UINT64_MAX

// A fluid's surface: a field built from the fluid's current state, and the
// mesh of it. Particle fluids are splatted (their own neighbour grid over
// the fluid's domain, cell size the kernel radius, and a sorted copy of the
// positions, so the fluid's state and order are never touched); a grid
// fluid's cells are the field, one node per cell centre.
typedef struct cs_world_surface {
    uint32_t fluid;            // index into cs_world.fluids
    bool from_cells;           // a grid fluid's cells (reint); else a particle splat
    cs_surface_params params;  // node origin and spacing; iso (the field reads 1 inside the fluid at rest)
    cs_splat_params splat;     // particle fluids: nodes, kernel radius, scale
    cs_surface mesh;           // node arrays and the mesh (pipelines/surface/surface.h)
    cs_buffer field;           // one float per node
    cs_grid grid;              // particle fluids
    cs_buffer sorted;          // particle fluids: positions in the grid's order
    cs_splat programs;         // the splat and the cells -> field copy
    bool counted;              // count passes recorded, emit not yet
    uint64_t counted_at;       // substep index of the state counted
    bool drawable;             // the mesh buffers hold a complete mesh
    uint64_t meshed_at;        // substep index of the state the mesh shows
    // Set when the default resolution did not fit the device and a coarser
    // one was taken (cistern run prints it); "" otherwise.
    char note[256];
} cs_world_surface;

typedef struct cs_world_fluid {
    const cs_scene *scene;     // the file's fluids[i] (complete: world keys + its own)
    const cs_sim_ops *ops;
    void *state;
} cs_world_fluid;

typedef struct cs_world {
    cs_context *ctx;
    const cs_scene *scene;     // the file; the caller keeps it alive
    cs_world_fluid fluids[CS_MAX_FLUIDS];
    uint32_t fluid_count;
    // The rigid bodies (scene "bodies"; bodies.h), when the scene has any:
    // cleared before the fluids' substep, reduced, integrated and published
    // after it.
    cs_bodies bodies;
    bool has_bodies;
    uint64_t substep_index;    // substeps recorded so far
    // Blocks that start off their rest density (cs_world_check_rest_density)
    // and bodies too small for their PBF fluid (cs_world_check_body_drafts),
    // one line each; "" when none. cistern run and bench print them.
    char density_warnings[2048];
    cs_world_surface *surfaces; // one per fluid with "surface" enabled, in fluid order
    uint32_t surface_count;
    // The scene's "level" (level_mesh.h), read and built when the world is
    // made; the renderer draws it, and every particle fluid collides with
    // it (a distance field baked per fluid at creation, world_level.c).
    cs_level_mesh level;
    bool has_level;
    // The scene's "geometry" lit by radiosity (world_radiosity.h): compiled
    // at creation, recorded at every frame's end; NULL without geometry.
    cs_world_radiosity *radiosity;
    // The fluids' scenes with "room"-relative blocks and emitters moved into
    // world coordinates (world_rooms.c), one per fluid, owned here; NULL when
    // no block or emitter names a room (the fluids then use the file's).
    cs_scene *placed_fluids;
    // The window's pointer (cs_world_set_pointer): while its mode is not 0
    // it stands in for the scene's pointer track.
    float pointer_at[3];
    int32_t pointer_mode;
} cs_world;

// Creates every part: the fluids, then their surfaces. An unknown solver
// names the key and lists the solvers this build has; a part the device
// cannot hold is refused before the next part is made (a surface grid too
// large for the device names its resolution key, the nodes it needs and
// the device's limit). On failure nothing is left allocated.
bool cs_world_create(cs_context *ctx, const cs_scene *scene, cs_world *world, cs_error *err);
// The pointer from a window: `at` (world metres) pulled (mode 1), pushed
// (-1), or let go (0: the scene's "pointer" track acts again), from the
// next substep recorded on (scene.h "pointer").
void cs_world_set_pointer(cs_world *world, const float at[3], int mode);
// Where the pointer acts at simulated time t, and how (the window's while
// it is held, else the track's key in force at t); mode 0 when it is off.
void cs_world_pointer_at(const cs_world *world, double t, float at[3], int32_t *mode);
void cs_world_destroy(cs_world *world);
// After a live edit of the scene's CS_KEY_LIVE values or a solver block's
// (a panel, host/app/panel/panel.h): waits for the device, then every fluid's
// solver re-derives and uploads its parameters (cs_sim_ops.retune). False
// with the solver's message when the values cannot run.
bool cs_world_retune(cs_world *world, cs_error *err);

// A cs_world is a few KiB plus its parts; it lives on the heap (run.c, the
// benches, the replays), never in a stack frame. CS_HEAP_WORLD(w) declares
// `cs_world *w`, zeroed on the heap and freed (after the caller's
// cs_world_destroy) when w goes out of scope.
cs_world *cs_world_alloc(void);
void cs_world_free_at(cs_world **world);
#define CS_HEAP_WORLD(name) cs_world *name __attribute__((cleanup(cs_world_free_at))) = cs_world_alloc()

// Records one frame: scene.substeps substeps, then the parts' frame ends.
void cs_world_record_frame(cs_world *world, cs_recorder *rec);
// The pieces of a frame, for callers that time substeps one by one (bench):
// substep `frame_substep` of a frame of `frame_substeps`, and the frame end.
void cs_world_record_substep(cs_world *world, cs_recorder *rec, uint32_t frame_substep, uint32_t frame_substeps);
void cs_world_record_frame_end(cs_world *world, cs_recorder *rec);

// Simulated time at the start of the next substep, seconds.
double cs_world_time(const cs_world *world);

// After the recording was submitted and waited on: the stats of every fluid
// together (counts, mass and energy summed; maxima; the mean density error
// weighted by particle count). `per_fluid` may be NULL, else holds
// fluid_count entries.
void cs_world_stats(cs_world *world, cs_sim_stats *total, cs_sim_stats *per_fluid);

// Frames in flight: the stats carried by the frame's own recording.
// True when every fluid's solver can record its stats into the frame
// (sim.h record_stats / read_stats); else a loop uses cs_world_stats after
// each frame and cannot keep frames in flight.
bool cs_world_stats_in_frame(const cs_world *world);
// At the frame's end (after every pass that changes the state): the stats
// passes, into the recorder's frame slot.
void cs_world_record_stats(cs_world *world, cs_recorder *rec);
// After the frame recorded in `frame_slot` completed: what
// cs_world_stats would have returned right after it.
void cs_world_read_stats(cs_world *world, uint32_t frame_slot, cs_sim_stats *total, cs_sim_stats *per_fluid);
// The world's figures from the fluids' (as cs_world_stats sums them).
void cs_world_combine_stats(const cs_world *world, const cs_sim_stats *per_fluid, cs_sim_stats *total);

// Whether the frame whose stats these are (per_fluid: cs_world_stats'
// per-fluid figures) went right: false, with what went wrong in `what`
// (the fluid, its solver, the count), when a fluid has NaN/Inf values or
// cells past its fixed-point capacity. `cistern run` and `cistern bench`
// stop there (docs/fluids.md, "When a run goes wrong").
bool cs_world_check_stats(const cs_world *world, const cs_sim_stats *per_fluid, char *what, size_t size);

// A fresh world of `scene` run through its first `frames` simulated frames,
// each submitted and waited on, then its stats read (cs_world_stats), so
// that host-side counts (reint's points) are the last frame's, as a PLY
// dump needs. The world is bit-deterministic: this is the state a run's
// world had after as many frames of its own. False (err) when the world
// could not be made. world_first_nan.c.
bool cs_world_replay(cs_context *ctx, const cs_scene *scene, uint32_t frames, cs_world *world, cs_error *err);

// After a frame's check found NaN/Inf: runs the next frame of `world` (a
// cs_world_replay to the start of the failed frame) with a read-back after
// every pass, and writes the first pass whose output went non-finite into
// `out` ("pass \"sph: relax\" (sph (sph): 6 NaN/Inf values in positions[1])").
// The world is then at the end of that frame, its stats read as
// cs_world_replay does (ready for a dump). False when no pass was found.
// world_first_nan.c.
bool cs_world_find_first_non_finite(cs_world *world, char *out, size_t size);

// Before anything runs (cs_world_create calls it): every block of every
// particle fluid against its material's rest density, by the solver's own
// density sum at an interior particle of the block's lattice
// (cs_sim_ops.lattice_density). Refused (false, the file, block and
// numbers in err) when the block starts more than 2x off rest; blocks more
// than 5% off are listed in `warnings` ("" when none), one line each.
bool cs_world_check_rest_density(const cs_scene *scene, char *warnings, size_t size, cs_error *err);

// Free bodies (boxes, spheres) that float in a PBF fluid drawing under the
// 3 spacings its buoyancy resolves within 5% (world_drafts.c): one warning
// line each, appended to `warnings` (a run prints them with the density's).
void cs_world_check_body_drafts(const cs_scene *scene, char *warnings, size_t size);

// "pbf", "sph", ... the solvers this build has, comma separated, quoted.
void cs_world_list_solvers(char *out, size_t size);

// ---- surfaces (world_surface.c; docs/surface.md, "In the frame") ----
// The extraction needs the mesh's size on the host before the emit pass, so
// a frame that shows a surface is two submits:
//   recording 1: the frame, then cs_world_record_surface_count  (field + count passes)
//   submit, wait; cs_world_prepare_surfaces                     (totals read, outputs grown)
//   recording 2 (resumed): cs_world_record_surface_emit, then the drawing
// cs_world_mesh_surfaces does the middle of it.
//
// Records, for every surface, "surface: splat" (with its own grid build
// "surface: grid: ...", "surface: gather") or "surface: field", then the
// count passes, from the fluid's state as recorded so far. Outside a pass.
void cs_world_record_surface_count(cs_world *world, cs_recorder *rec);
// After that recording completed: reads every counted surface's totals and
// grows its outputs. False with a message when a mesh does not fit the
// device; that surface is then not drawn until a later one fits.
bool cs_world_prepare_surfaces(cs_world *world, cs_error *err);
// Records the emit pass of every surface prepare_surfaces sized. The meshes
// are then ready for compute reads (cs_barrier_compute_to_graphics before
// drawing them).
void cs_world_record_surface_emit(cs_world *world, cs_recorder *rec);
// In an open recording (after the frame's passes): records the count
// passes, submits and waits, prepares, resumes the recording and records
// the emits; the caller records its drawing after it and submits. Nothing
// (no submit) when the world has no surface. False as prepare_surfaces.
bool cs_world_mesh_surfaces(cs_world *world, cs_recorder *rec, cs_error *err);
// True when every surface's mesh shows the current state (nothing stepped
// since it was made): a paused window draws them again without meshing.
bool cs_world_surfaces_current(const cs_world *world);
// The surface of fluid `fluid`, or NULL when it has none.
cs_world_surface *cs_world_surface_of(cs_world *world, uint32_t fluid);
