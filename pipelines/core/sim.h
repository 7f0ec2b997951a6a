// sim.h — what every simulation pipeline offers the frame loop, the
// benchmark, the renderer and the dumps.
//
// A pipeline (PBF, Clavet SPH, WCSPH, reintegration tracking) is a table of
// functions looked up by a fluid's "solver" key. The world (host/world/)
// records a frame as substeps: for each substep, every part's
// record_substep() in scene order (later: bodies and coupling between them);
// then, once, every part's record_frame_end(); it submits, then asks for
// stats or a particle view. Nothing here knows which solver runs: the table
// that names them is pipelines/solvers.h, above every family.
#pragma once

#include "recorder.h"
#include "scene.h"
#include "scene_keys.h"

#include <stddef.h>

// Particle data as the renderer and the PLY dumps read it. Arrays are in the
// solver's current order (which may change every step: sorted by cell).
typedef struct cs_float_buffer {
    const char *name;
    cs_buffer *buffer;
    uint32_t floats;
} cs_float_buffer;

// Soft smoke sprites (host/render/feature_smoke.c): a particle view with
// radius > 0 is drawn as additive camera-facing gaussian splats instead of
// lit spheres, coloured by the temperature its `densities` buffer holds on
// a ramp from grey (`cool` K and below) to orange (`hot` K and above).
typedef struct cs_smoke_style {
    float radius;            // the gaussian's standard deviation (m); 0: spheres
    float intensity;         // linear colour one sprite adds at its centre, before the ramp
    float cool, hot;         // K: the ends of the temperature ramp
} cs_smoke_style;

// Oriented arrows (host/render/feature_arrows.c): a line from each point
// along its vector, scale |vector| long (at most max_length), with a head at
// the tip, coloured by the temperature the vector's w holds on the smoke
// ramp (cool .. hot K). The vorton solver shows its vortons so (vorticity).
typedef struct cs_arrow_style {
    float scale;             // m per unit |vector|
    float max_length;        // m
    float cool, hot;         // K: the colour ramp's ends
    bool shown;              // the scene's choice; the window's O key flips it (cs_render_frame.flip_arrows)
} cs_arrow_style;

typedef struct cs_particle_view {
    cs_buffer *positions;    // vec4: xyz, w unused
    cs_buffer *velocities;   // vec4: xyz, w unused
    cs_buffer *densities;    // float
    cs_buffer *materials;    // uint
    uint32_t count;
    // Optional (NULL for most pipelines). For a pipeline that decides the
    // count on the GPU (reint's points): a buffer holding a
    // VkDrawIndirectCommand {6 * particles, 1, 0, 0} written by the frame's
    // own passes. The renderer then draws from it, so a frame draws exactly
    // the particles it made; `count` is the count the host has read back
    // (exact once the frame has completed: PLY dumps). The arrays hold as
    // many particles as draw_args can ask for.
    cs_buffer *draw_args;
    // Optional: the fluid's own scene (its materials and domain), for a
    // frame that draws several fluids; NULL: the frame's scene.
    const cs_scene *scene;
    // Optional: draw as smoke (radius 0: as spheres).
    cs_smoke_style smoke;
    // Optional: draw as water (render.draw "water", 3D; the renderer's
    // screen-space fluid), absorbing `absorption` per metre per channel.
    bool water;
    float absorption[3];
    // Optional: arrows, apart from the particles above (arrow_count 0: none).
    cs_buffer *arrow_positions;  // vec4: xyz, w unused
    cs_buffer *arrow_vectors;    // vec4: xyz the vector, w the temperature (K)
    uint32_t arrow_count;
    cs_arrow_style arrows;
} cs_particle_view;

// A 2D/3D field for grid pipelines (reintegration): drawn as an image in 2D,
// meshed as the fluid's surface in 3D (one node per cell centre).
typedef struct cs_field_view {
    cs_buffer *cells;        // per cell: vec4 (mass / rest mass, velocity xy(z), unused)
    uint32_t dims[3];
    uint32_t stride_floats;  // floats per cell
    float origin[3];         // world position of cell (0, 0, 0)'s low corner
    float cell_size;         // world units (cells are cubes)
} cs_field_view;

typedef struct cs_sim_stats {
    uint32_t particles;
    double mean_density_error; // mean |rho/rho0 - 1| over particles
    double max_density_error;
    double max_speed;
    double kinetic_energy;
    double total_mass;
    uint32_t non_finite;       // particles with a NaN/Inf component
    uint32_t outside_domain;   // particles outside the domain box
    // Cells whose content overflowed the solver's fixed-point capacity since
    // the start (reint: 4096 rest masses a cell); 0 for particle solvers.
    uint32_t over_capacity;
    // A solver that chooses its own steps and iterates its solves to a
    // target (DFSPH): the frame's solver steps, the iterations of its
    // density and divergence solves summed over them, and their dt summed
    // (seconds; mean dt = solver_dt_sum / solver_steps). 0 for the others.
    uint32_t solver_steps;
    uint32_t density_iterations, divergence_iterations;
    double solver_dt_sum;
} cs_sim_stats;

// What the world hands every part for one substep. A fluid's scene carries
// the same dt (the world keeps one substep clock for all its parts, see
// cs_scene_scale_world), so solvers bake dt into their constants; time and
// index let a part that is not a fluid (bodies, coupling) follow the clock.
typedef struct cs_substep {
    uint64_t index;            // substeps since the world was created
    double time;               // simulated time at the start of this substep, seconds
    float dt;                  // its length, seconds
    uint32_t frame_substep;    // 0 .. frame_substeps - 1 within the frame being recorded
    uint32_t frame_substeps;
    // The pointer (scene "pointer", scene.h): where it is and what it does
    // this substep. mode 1 pulls, -1 pushes, 0 is off; radius 0 means four
    // of the fluid's smoothing radii. Particle fluids apply it in their
    // predict (cs_fluid_record_pointer); other parts ignore it.
    float pointer_at[3];
    int32_t pointer_mode;
    float pointer_strength;    // m/s² at the centre
    float pointer_radius;      // m
    float pointer_damping;     // 1/s
} cs_substep;

// What the rigid bodies (bodies.h) need from a particle fluid: where to
// publish the bodies' world-space set, and the momentum its collisions gave
// each moving body (collide.comp WITH_IMPULSES), per particle.
typedef struct cs_body_link {
    // Where the fluid reads the bodies' set. A particle fluid reads it from
    // a buffer of its choosing: reads_set is where the bodies put theirs,
    // once they move, and every such fluid reads that one buffer (nothing is
    // copied). Otherwise (reads_set NULL) the set is copied after every
    // substep into `params` at byte `set_offset` (the vortons: their bodies
    // buffer holds the set and their thermal state).
    cs_buffer **reads_set;
    cs_buffer *params;
    VkDeviceSize set_offset;
    cs_buffer *impulses;       // contact records (bodies_shared.h), CS_BODY_RECORDS_PER_PARTICLE per particle; NULL without moving bodies
    uint32_t count;            // live particles now
    uint32_t capacity;
} cs_body_link;

// A level's signed distance field on a regular grid (host/world/level_sdf.h
// bakes it): > 0 in open space, < 0 in solid, metres. Node (x, y, z) is at
// origin + cell (x, y, z) and holds values[(z dims[1] + y) dims[0] + x].
typedef struct cs_level_field {
    float origin[3];
    float cell;
    uint32_t dims[3];
    const float *values;
} cs_level_field;

// Such a field (origin, cell, dims, values as above) sampled at world point
// p: trilinear between the eight nodes around p, p clamped to the grid, in
// double. The one CPU copy of the shaders' cs_level_distance (fluid.glsl):
// the level bake's checks (host/world/level_sdf.c) and reint's cell flags
// (reint.c) both read the field through it.
double cs_level_field_sample(const double origin[3], double cell, const uint32_t dims[3], const float *values,
                             const double p[3]);

// ---- what a part saves in a checkpoint (host/app/io/checkpoint.c) ----
// A part (a solver's state, the bodies, the world's clock) declares the
// state the next substep reads as a table of rows, one per struct member:
// a GPU buffer (or an array of them: read back whole, each its full size)
// or plain host bytes (counts, current/alternate indices, the emission
// schedule's progress). A member that is rebuilt the same by create (a
// constant parameter buffer, a level's field) or rewritten before it is
// read every frame (a frame slot's stats copy) is left out. The rows are
// data, not code: one table per struct, expanded for an instance by
// cs_state_expand, so what a checkpoint holds is read off the tables.

// What a loaded entry must hold. A checkpoint is a file a user can be
// handed and its checksum catches accidents, not edits: checkpoint.c checks
// every entry against the fresh world it is loaded into, by its row's
// range, before anything is uploaded (a count past the capacity or an
// index above 1 would make the GPU read or loop out of bounds).
typedef enum cs_state_range {
    CS_STATE_ANY_BITS = 1, // any bits are safe (the row's comment says why)
    CS_STATE_MAX,          // uint32_t words (host or buffer), each <= max
    CS_STATE_AT_MOST,      // a host uint32_t <= the struct's uint32_t member at limit_offset
    CS_STATE_FINITE,       // 32-bit floats, each finite
    CS_STATE_CHECK,        // the row's own check
} cs_state_range;

// A row's own check: `data` (`bytes` of them, as the checkpoint holds them)
// against `base`, the fresh instance it is about to be loaded into (its
// buffers still hold what create uploaded). False with `why` (what is
// wrong, for the refusal) when they cannot be loaded.
typedef bool (*cs_state_check_fn)(const void *base, const void *data, size_t bytes, char *why, size_t why_size);

typedef struct cs_state_row {
    const char *name;          // the member ("positions", "emitted")
    size_t offset;             // offsetof(the struct, member)
    size_t bytes;              // sizeof the member (an array of cs_buffer: all of them)
    bool buffer;               // the member is cs_buffer or cs_buffer[N]; else host bytes
    // A per-element buffer of which only the first `count` of `capacity`
    // elements are live (a particle fluid's arrays while emitters fill
    // it): only those are saved. The tail is never read, and holds
    // whatever the allocation held (not the same bits from run to run).
    bool live;
    size_t count_offset, capacity_offset; // uint32_t members of the same struct
    // The range (cs_state_range; every row names one: 0 is a table error).
    cs_state_range range;
    uint32_t max;              // CS_STATE_MAX
    size_t limit_offset;       // CS_STATE_AT_MOST
    cs_state_check_fn check;   // CS_STATE_CHECK
    // A current/alternate pair (positions[2] with pos_cur): only the
    // buffer the loaded index names is checked; the alternate is written
    // before anything reads it.
    bool current_only;
    size_t current_offset;     // a uint32_t member of the same struct
} cs_state_row;

// The ranges, the last argument of the row macros below.
#define CS_ANY_BITS .range = CS_STATE_ANY_BITS
#define CS_AT_MOST_VALUE(n) .range = CS_STATE_MAX, .max = (n)
#define CS_AT_MOST_MEMBER(type, member) .range = CS_STATE_AT_MOST, .limit_offset = offsetof(type, member)
#define CS_FINITE .range = CS_STATE_FINITE
#define CS_CHECKED(fn) .range = CS_STATE_CHECK, .check = (fn)

#define CS_STATE_BUFFER(type, member, range)                                                                   \
    {#member, offsetof(type, member), sizeof(((type *)0)->member), true, range}
#define CS_STATE_HOST(type, member, range) {#member, offsetof(type, member), sizeof(((type *)0)->member), false, range}
#define CS_STATE_LIVE_BUFFER(type, member, count, capacity, range)                                             \
    {#member, offsetof(type, member), sizeof(((type *)0)->member), true, true, offsetof(type, count),           \
     offsetof(type, capacity), range}
// A pair (pos[2] with current): the range holds for the current buffer only.
#define CS_STATE_PAIR(type, member, cur, range)                                                                \
    {#member, offsetof(type, member), sizeof(((type *)0)->member), true, range, .current_only = true,          \
     .current_offset = offsetof(type, cur)}
// A live pair: the range holds for the current buffer (`cur`) only.
#define CS_STATE_LIVE_PAIR(type, member, count, capacity, cur, range)                                          \
    {#member, offsetof(type, member), sizeof(((type *)0)->member), true, true, offsetof(type, count),           \
     offsetof(type, capacity), range, .current_only = true, .current_offset = offsetof(type, cur)}

// One buffer or host range of one instance, as a checkpoint writes it.
typedef struct cs_state_entry {
    char name[64];             // "<prefix>positions[1]"
    cs_buffer *buffer;         // a GPU buffer, or NULL
    void *host;                // else host bytes
    // Bytes saved: the host range's size; a buffer's whole size (0 when the
    // solver never made it) or, `live`, its live elements' (a checkpoint
    // of another count loads into it: at most the buffer's size).
    size_t bytes;
    bool live;
    // What the checks read: the row, the instance and which buffer of the
    // row's array this is.
    const cs_state_row *row;
    void *base;
    uint32_t index;
} cs_state_entry;

// The most entries one part may list.
#define CS_STATE_MAX_ENTRIES 128

// Appends the entries of `rows` (`count` of them) for the struct at `base`,
// names prefixed with `prefix`, to out[*n ..]; an array of buffers is one
// entry per buffer ("positions[0]", "positions[1]"). Asserts on overflow
// of `max` (a table grew past CS_STATE_MAX_ENTRIES).
void cs_state_expand(const cs_state_row *rows, uint32_t count, void *base, const char *prefix, cs_state_entry *out,
                     uint32_t *n, uint32_t max);

typedef struct cs_sim_ops {
    const char *solver;        // scene "solver" value
    const char *summary;       // one line for --help
    // Optional: the row tables of the solver's block (named like the
    // solver) and its sub-blocks, NULL-terminated, for docs/scenes.md's key
    // reference and a parameter panel; NULL while the solver's block is
    // parsed by hand alone.
    const cs_scene_key_block *const *keys;
    // Optional: the keys of fluids[].materials[] the solver reads,
    // NULL-terminated (the table holds every solver's: Clavet's stiffness,
    // WCSPH's speed_of_sound, ...). A panel shows only these (a slider the
    // solver never reads would move nothing); NULL: every key.
    const char *const *material_keys;
    // Parses the solver block and allocates everything. Refuses a particle
    // count the device cannot hold before allocating anything.
    bool (*create)(cs_context *ctx, const cs_scene *scene, void **state, cs_error *err);
    void (*destroy)(void *state);
    // Records one substep as named passes. A solver may split it into
    // smaller steps of its own (Clavet's sph.split, WCSPH's CFL split).
    void (*record_substep)(void *state, cs_recorder *rec, const cs_substep *step);
    // Optional: once a frame, after its substeps (views and reductions the
    // frame shows: reint's stats and points).
    void (*record_frame_end)(void *state, cs_recorder *rec);
    // Read back after the recorder has been submitted and waited on.
    void (*stats)(void *state, cs_sim_stats *out);
    // Optional, both or neither: the stats recorded into the frame's own
    // recording at its end (into the recorder's frame slot), and read after
    // that frame completed, possibly while later frames run. Without them a
    // loop falls back to `stats` and cannot keep frames in flight.
    void (*record_stats)(void *state, cs_recorder *rec);
    void (*read_stats)(void *state, uint32_t frame_slot, cs_sim_stats *out);
    // Optional (NULL when the pipeline has none).
    void (*particles)(void *state, cs_particle_view *out);
    void (*field)(void *state, cs_field_view *out);
    // Optional: the density an interior particle of a block on a lattice of
    // `spacing` of material `material` starts at, as the solver's own density
    // sum computes it (CPU, double; same kernel, same self term), and the
    // material mass that would make it the rest density (0 when the solver
    // derives the mass itself: PBF). False when the solver block does not
    // parse (create reports it). The world checks every block with it
    // before anything runs (world.h, cs_world_check_rest_density).
    bool (*lattice_density)(const cs_scene *scene, uint32_t material, double spacing, double *rho,
                            double *fitting_mass);
    // Optional: a pipeline whose particles collide with rigid bodies fills
    // this (NULL: the world refuses a scene with bodies for it).
    void (*bodies)(void *state, cs_body_link *out);
    // Optional: a pipeline whose particles collide with a level takes its
    // distance field here, after create and before the first substep (NULL:
    // the world refuses a scene with a level for it). False when the device
    // cannot hold the field.
    bool (*level)(void *state, const cs_level_field *field, cs_error *err);
    // Optional: the float buffers the solver's passes write (name, buffer,
    // floats in use), at most `max`; returns how many. Read only when a run
    // went non-finite, to name the first pass that did (world_first_nan.c).
    uint32_t (*float_buffers)(void *state, cs_float_buffer *out, uint32_t max);
    // What a checkpoint saves of the solver (cs_state_entry above): every
    // buffer and host field the next substep reads, at most `max`; returns
    // how many. NULL: the solver cannot be checkpointed (cistern run
    // --checkpoint-every refuses it by name).
    uint32_t (*state)(void *state, cs_state_entry *out, uint32_t max);

    // Optional, for a parameter panel (host/app/panel/panel.h): the struct the
    // running solver holds for one of its `keys` blocks (NULL: none), whose
    // CS_KEY_LIVE rows a panel may write...
    void *(*key_block)(void *state, const cs_scene_key_block *block);
    // ...and, after such a write or one into its scene's CS_KEY_LIVE values
    // (gravity, materials; `scene` is the one create took), re-derives and uploads what create computed from
    // them, exactly as create does, so a value changed before the first
    // substep gives the bits the same value in the file gives. Without it
    // a panel edits none of the fluid's values. False (with a message) when
    // the new values cannot run; the caller puts the old ones back.
    bool (*retune)(void *state, const cs_scene *scene, cs_error *err);
} cs_sim_ops;
