// vorton.h — vortex particles ("vortons"), a 3D solver of the vorticity
// equation (issue 15; docs/vortons.md has the equations and what is done).
//
// Owns: the vortons (position + radius, vorticity + temperature) in two
// ping-pong copies and a midpoint copy, their rates (velocity, d omega/dt,
// dT/dt), the passive tracers (position + temperature) the renderer draws,
// and the four programs (rates at vortons, velocity at points, and the two
// integrators).
//
// One substep is an RK2 (midpoint) step, each its own label and timestamp:
//   "vorton: rates"     direct Biot-Savart sum at every vorton + stretching,
//                       diffusion (PSE), heat diffusion, buoyancy
//   "vorton: tracers"   velocity at every tracer (same sum, points only)
//   "vorton: half"      vortons and tracers to the midpoint (dt / 2)
//   "vorton: rates", "vorton: tracers" again, at the midpoint
//   "vorton: advance"   the whole step from the midpoint rates (dt)
// Free space: no walls, the domain box does not hold vortons (the velocity
// decays as 1/r^3 far from them); a tracer that leaves the box is counted
// as outside but still moves and is drawn.
#pragma once

#include "bodies.h"
#include "prim.h"
#include "sim.h"
#include "vorton_grid.h"

#include "../../shaders/vorton/vorton_shared.h"

typedef struct cs_vorton_params {
    float dt;                   // seconds per substep
    uint32_t stretching;        // VORTON_STRETCH_*
    float viscosity;            // nu, m^2/s (0: inviscid)
    float diffusivity;          // kappa, m^2/s (heat)
    float expansion;            // beta, 1/K: density falls by beta (T - T0) rho0
    float ambient_temperature;  // T0, K
    float gravity[3];           // m/s^2
    uint32_t velocity;          // VORTON_VELOCITY_*
    // The grid of VORTON_VELOCITY_GRID (vorton_grid.h): a cube from
    // grid_origin with edge grid_size, grid_cells per axis, grid_cycles
    // V-cycles per solve; it follows the vortons (never smaller) unless
    // grid_fixed_box (tests' control: the grid before it followed).
    float grid_origin[3];
    float grid_size;
    uint32_t grid_cells, grid_cycles;
    bool grid_fixed_box;
    // Rigid bodies (docs/vortons.md "Bodies"): a temperature per scene body
    // (K; 0: adiabatic). The bodies themselves come as a cs_body_set
    // (cs_vorton_set_bodies), which the world's bodies module republishes
    // when they move.
    float body_temperature[CS_BODIES_MAX];
    uint32_t no_slip; // VORTON_NO_SLIP_*: how a band vorton's tangential vorticity meets the body's surface
    // Two-way coupling (docs/vortons.md "Bodies"): the fluid's density rho
    // (kg/m^3) turns the vortons' hydrodynamic impulse into the momentum a
    // moving body gets back; rho c_p (c_p: specific_heat, J/(kg K)) and a
    // body's heat capacity (J/K; 0: a fixed reservoir) turn the heat a body
    // gives the vortons into its own temperature change.
    float density;
    float specific_heat;
    float body_heat_capacity[CS_BODIES_MAX];
} cs_vorton_params;

// A vortex ring: a circle of radius `radius` about `axis` through `centre`
// with a core of radius `core` of uniform vorticity, total circulation
// `circulation` (m^2/s; positive: the ring travels along +axis).
typedef struct cs_vorton_ring {
    float centre[3];
    float axis[3];
    float radius;
    float core;
    float circulation;
} cs_vorton_ring;

// A hot (or cold) ball of still fluid: vortons with no vorticity at
// `temperature`, so buoyancy makes the vorticity (the plume).
typedef struct cs_vorton_heat {
    float centre[3];
    float radius;
    float temperature;
} cs_vorton_heat;

typedef struct cs_vorton {
    cs_context *ctx;
    cs_vorton_params params;
    uint32_t count, capacity;                 // vortons
    uint32_t tracer_count, tracer_capacity;
    cs_program_id rates, rates_points, integrate, integrate_tracers;
    cs_buffer pos[2], vort[2];                // vortons; [current] holds the latest
    cs_buffer mid_pos, mid_vort;              // the midpoint state
    cs_buffer vel, rate;                      // rates of the last "vorton: rates"
    cs_buffer rates_partial;                  // the direct sum's running sums between chunks (3 vec4 a vorton)
    uint32_t source_chunk;                    // sources per rates dispatch (VORTON_SOURCE_CHUNK; tests lower it)
    cs_buffer tracer_pos[2], tracer_mid, tracer_vel;
    cs_buffer tracer_temp, tracer_material;   // the view's densities (temperature) and materials (0)
    cs_smoke_style smoke;                     // how the view is drawn (vorton_scene.c "smoke")
    cs_arrow_style arrows;                    // the vortons as arrows along omega (vorton_scene.c "arrows")
    cs_vorton_grid grid;                      // VORTON_VELOCITY_GRID only
    // Stats (stats.comp): per-particle terms reduced on the GPU to stats_out.
    cs_program_id stats;
    cs_buffer stats_speed, stats_non_finite, stats_out;
    cs_reduce reduce;
    cs_recorder stats_rec;
    // Frames in flight (sim.h record_stats / read_stats): per frame slot a
    // host-visible copy of stats_out, the vorton count it was made for and
    // whether the frame had anything to reduce (vortons or tracers).
    cs_buffer frame_stats[CS_FRAME_SLOTS];
    uint32_t frame_counts[CS_FRAME_SLOTS];
    bool frame_reduced[CS_FRAME_SLOTS];
    // Bodies: a cs_body_set then a vec4 per body (x = temperature), what
    // collide.comp reads; "vorton: bodies" runs after each step when
    // body_count > 0.
    cs_program_id collide, collide_tracers;
    cs_buffer bodies;
    // The no-slip "flux" rule measures the slip at the wall: per vorton the
    // contact point on the first body whose reach it is in (w: body + 1, 0:
    // none; collide.comp WALL_POINTS), the velocity there, its spreading
    // weight and the weighted count of vortons sharing its patch of wall
    // (wall_share.comp).
    cs_program_id wall_points, wall_share_prog;
    cs_buffer wall_pos, wall_vel, wall_weight, wall_share;
    // The share sums over the vortons whose contact points lie in the 27
    // cubes (edge VORTON_WALL_SHARE_CELLS sigma_max) around a vorton's own:
    // wall_keys_prog hashes each wall vorton's cube and body into
    // wall_bins' cells (a power of two of them, >= capacity), the grid's
    // sort and ranges list them. wall_share_direct: the O(N^2) sum over
    // every vorton instead (the reference; tests set it).
    cs_program_id wall_keys_prog, wall_share_direct_prog;
    cs_grid wall_bins;
    uint32_t wall_buckets;
    bool wall_share_direct;
    float sigma_max; // the largest vorton radius uploaded
    uint32_t body_count;
    // Two-way: per vorton, what the collide gave the moving bodies (the
    // contact records of bodies_shared.h, sim.h cs_body_link, sorted by body
    // and summed by the bodies module); per vorton and body with a heat
    // capacity, the heat V dT it took (planar: body * capacity + vorton),
    // reduced here ("vorton: body heat") into heat_sums, then body_heat
    // updates the bodies' temperatures. Sized by cs_vorton_set_bodies.
    uint32_t impulse_slots;
    bool heat_exchange;
    cs_buffer impulses, heat_terms, heat_scratch, heat_sums;
    cs_program_id body_heat;
    uint32_t current;
    uint64_t steps;
} cs_vorton;

// The block's rows (scene_keys.h) and its "grid" sub-block's.
extern const cs_scene_key_block cs_vorton_keys, cs_vorton_grid_keys;

// The "vorton" block of a fluid's scene as the solver reads it
// (vorton_scene.c): its params and the vortons' spacing. Messages name
// `vorton.key`.
bool cs_vorton_params_read(const cs_scene *scene, cs_vorton_params *p, float *spacing, cs_error *err);

// What a scene asks for, checked against the device (the workgroup limit,
// maxStorageBufferRange, the largest heap) and the host's memory before
// anything is allocated: a refusal names the spacing and the arithmetic.
typedef struct cs_vorton_counts {
    uint32_t vortons, tracers;
    float spacing, tracer_spacing;               // what sets the counts (0: not a scene's)
    uint64_t vorton_host_bytes, tracer_host_bytes; // host bytes each while setting up
} cs_vorton_counts;
bool cs_vorton_check_counts(const cs_context *ctx, const cs_vorton_counts *c, cs_error *err);

// Capacities are fixed at creation (0 is allowed); checked against the
// device (cs_vorton_check_counts).
bool cs_vorton_create(cs_context *ctx, const cs_vorton_params *p, uint32_t capacity, uint32_t tracer_capacity,
                      cs_vorton **out, cs_error *err);
void cs_vorton_destroy(cs_vorton *v);

// Host copies of the state, 4 floats a vorton (layout in vorton_shared.h).
void cs_vorton_upload(cs_vorton *v, const float *pos4, const float *vort4, uint32_t count);
void cs_vorton_download(cs_vorton *v, float *pos4, float *vort4);
// Tracers: positions (xyz, w = temperature shown).
void cs_vorton_upload_tracers(cs_vorton *v, const float *pos4, uint32_t count);
void cs_vorton_download_tracers(cs_vorton *v, float *pos4);
// The rates of the last "vorton: rates" pass (velocity vec4, rate vec4).
void cs_vorton_download_rates(cs_vorton *v, float *vel4, float *rate4);

// The bodies vortons and tracers collide with (world space; counts.x = 0:
// none). Uploads the set and the params' body temperatures and heat
// capacities; the first call sizes the two-way buffers (later calls must
// keep the number of bodies and moving bodies).
bool cs_vorton_set_bodies(cs_vorton *v, const cs_body_set *set, cs_error *err);
// The bodies' thermal vec4s (vorton_shared.h: T_b, rho c_p / C_b, T_b - T0).
void cs_vorton_download_body_thermal(cs_vorton *v, float thermal[CS_BODIES_MAX][4]);

// Max vorton speed (of the last "vorton: rates") and the particles with a
// NaN/Inf, reduced on the GPU (deterministic: fixed-shape trees); submits
// and waits, reads back two floats.
void cs_vorton_stats(cs_vorton *v, cs_sim_stats *out);
// The same carried by a frame: the stats passes and a copy into the
// recorder's frame slot at the frame's end; read once that frame completed,
// without a submit.
void cs_vorton_record_frame_stats(cs_vorton *v, cs_recorder *rec);
void cs_vorton_read_frame_stats(cs_vorton *v, uint32_t frame_slot, cs_sim_stats *out);

// Records one RK2 substep.
void cs_vorton_record_step(cs_vorton *v, cs_recorder *rec);
// Records "vorton: rates" of the current state only (tests).
void cs_vorton_record_rates(cs_vorton *v, cs_recorder *rec);
// Records the velocity the current vortons induce at `count` points
// (vec4 xyz) into `out` (vec4), the same sum as the tracers' (tests, probes).
void cs_vorton_record_velocity_at(cs_vorton *v, cs_recorder *rec, cs_buffer *points, cs_buffer *out,
                                  uint32_t count);

// Seeding (CPU). Each writes at most `capacity` vortons of radius `spacing`
// (pos4, vort4 may be NULL to count) and returns how many it needs.
uint32_t cs_vorton_ring_fill(const cs_vorton_ring *ring, float spacing, float *pos4, float *vort4,
                             uint32_t capacity);
uint32_t cs_vorton_heat_fill(const cs_vorton_heat *heat, float spacing, float *pos4, float *vort4,
                             uint32_t capacity);

extern const cs_sim_ops cs_vorton_ops;
