// bodies_shared.h — rigid bodies as C (pipelines/bodies/bodies.c) and GLSL
// (shaders/bodies/*) share them.
//
// cs_body_set: every body in world space as the particle collisions read it
// (shaders/bodies/bodies.glsl): one buffer that every particle fluid binds
// (fluid.glsl, CS_BODY_SET_BINDING), the one "bodies: integrate" writes once
// bodies move (pipelines/bodies/bodies.h); the vortons keep a copy.
// Plane k is planes[k] = (n, d): n a unit normal pointing OUT of the body,
// inside where dot(n, x) <= d; dot(n, x) - d is the signed distance
// (negative inside). A sphere has no planes (radius in omega.w).
//
// cs_body_state: one body as "bodies: integrate" advances it, on the GPU.
// A static body has mass 0 and no path keys; a kinematic body (scene
// "path") has mass 0 too (nothing pushes it) and follows its keys.
#ifndef CS_BODIES_SHARED_H
#define CS_BODIES_SHARED_H

#include "cs_shared.h"

#define CS_BODIES_MAX 256         // = CS_MAX_BODIES (host/scene/scene.h)
// "bodies: integrate" runs in stages (integrate.comp): lavapipe gives an
// invocation 65535 loop iterations in all, then leaves every loop early
// without a word (docs/architecture.md), and one invocation for all bodies
// stopped before writing back body 1 with 64 bodies in one layer. Moving,
// finding the contacts (each body against every later one) and writing
// back take one invocation per body; the sequential sweeps walk the
// contact list found, at most CS_BODY_CONTACTS_PER_BODY per body (256 x 128
// = 32768 iterations, within the budget), and one dispatch each.
#define CS_BODIES_INTEGRATE_GROUP 64 // local_size_x of integrate.comp
#define CS_BODIES_CONTACT_ITERATIONS 8 // sequential-impulse sweeps per substep
#define CS_BODY_CONTACTS_PER_BODY 128  // contacts a body finds per substep (a box on the floor: 16, in a corner 48)
#define CS_BODY_PAIRS_PER_BODY 32      // overlapping later bodies a body separates from per substep
#define CS_BODY_WORK_BYTES 192 // integrate.comp's working copy of one body (std430)
// integrate.comp's contact lists (std430): 3 uints a body, 5 vec4 a contact, a vec4 and a uint a pair.
#define CS_BODIES_CONTACTS_BYTES (CS_BODIES_MAX * (12 + 80 * CS_BODY_CONTACTS_PER_BODY + 20 * CS_BODY_PAIRS_PER_BODY))
#define CS_BODIES_STAGE_MOVE 0u
#define CS_BODIES_STAGE_NARROW 1u
#define CS_BODIES_STAGE_SWEEP 2u
#define CS_BODIES_STAGE_PAIRS 3u
#define CS_BODIES_STAGE_FINISH 4u
#define CS_BODIES_MAX_PLANES 2048 // all bodies' planes together (256 boxes: 1536)
#define CS_BODIES_MAX_VERTICES 16384 // all bodies' contact points together: vertices, then points on the edges (a box: 44)
#define CS_BODIES_MAX_PATH_KEYS 128 // all kinematic bodies' path keys together
#define CS_BODIES_IMPULSE_TERMS 6 // per body slot: linear impulse xyz, angular impulse xyz
// Contact records (body_records.glsl): what a particle gives the moving
// bodies in one substep. Every particle owns CS_BODY_RECORDS_PER_PARTICLE
// records of CS_BODY_RECORD_FLOATS floats: [0] the body's impulse slot as a
// float (CS_BODY_RECORD_NONE: unused), [1..3] linear impulse, [4..6]
// angular impulse about the body's centre of mass, [7] (first record of a
// particle only) CS_BODY_RECORD_OVERFLOW when the particle touched more
// moving bodies than it has records (that impulse is lost and counted).
#define CS_BODY_RECORDS_PER_PARTICLE 4
#define CS_BODY_RECORD_FLOATS 8
#define CS_BODY_RECORD_NONE (-1.0)     // the clear's fill value, 0xBF800000
#define CS_BODY_RECORD_NONE_BITS 0xBF800000u
#define CS_BODY_RECORD_OVERFLOW 1.0
#define CS_BODY_REDUCE_GROUP 64        // local_size_x of bodies/records_sum.comp: one group per slot
#define CS_BODY_DYNAMIC 1u        // cs_body_gpu.info.z flag
#define CS_BODY_CONTACT_FRICTION 0.5 // Coulomb coefficient of body-wall and body-body contacts

struct cs_body_gpu {
    vec4 centre;   // xyz centre of mass (world); w = bounding-sphere radius about it
    vec4 velocity; // xyz velocity of the centre of mass; w = friction (0..1)
    vec4 omega;    // xyz angular velocity (world, rad/s); w = sphere radius (0: a polytope)
    uvec4 info;    // x = first plane, y = planes, z = flags (CS_BODY_DYNAMIC), w = impulse slot
};
#ifndef CS_GLSL
typedef struct cs_body_gpu cs_body_gpu;
#endif

// The broad phase (bodies.glsl cs_body_candidates): a coarse uniform grid
// over the domain whose cells list, in body order, every body whose
// bounding sphere grown by `reach` (the largest smoothing length of the
// world's fluids) touches the cell (cells past the domain's faces extend to
// infinity: points and bodies outside are clamped to the border cells). A
// particle tests only its cell's bodies, in the same order as before, so
// every sum keeps its bits. Built on the host for the initial set
// (cs_bodies_set_build) and on the GPU after every substep's integration
// (bodies/broad.comp: count per cell, prefix sum, fill per cell in body
// order: no atomics). More entries than CS_BODY_GRID_ENTRIES, or no grid:
// every particle tests every body (ready = 0).
#define CS_BODY_GRID_CELLS 16384   // most cells (the cell grows until they fit)
#define CS_BODY_GRID_ENTRIES 32768 // most (cell, body) entries together
#define CS_BODY_GRID_READY 1u      // cs_body_grid.dims.w: the lists are complete
#define CS_BODY_GRID_STAGE_COUNT 0u
#define CS_BODY_GRID_STAGE_SCAN 1u
#define CS_BODY_GRID_STAGE_FILL 2u
#define CS_BODY_GRID_GROUP 64      // local_size_x of bodies/broad.comp

struct cs_body_grid {
    uvec4 dims;   // xyz cells (z = 1 in 2D); w = CS_BODY_GRID_READY or 0
    vec4 origin;  // xyz the domain's min corner; w = cell size
    vec4 reach;   // x = how far past its bounding sphere a body is listed; yzw = 0
    uint starts[CS_BODY_GRID_CELLS + 4];  // cell c lists entries [starts[c], starts[c + 1])
    uint entries[CS_BODY_GRID_ENTRIES];   // body indices, ascending within a cell
};
#ifndef CS_GLSL
typedef struct cs_body_grid cs_body_grid;
#endif

struct cs_body_set {
    uvec4 counts;  // x = bodies, y = planes, z = dim, w = dynamic bodies (impulse slots)
    cs_body_gpu bodies[CS_BODIES_MAX];
    vec4 planes[CS_BODIES_MAX_PLANES]; // world space: xyz unit outward normal, w = d
    cs_body_grid grid;
};

// Push constants of bodies/broad.comp.
struct cs_body_grid_push {
    uint stage; // CS_BODY_GRID_STAGE_*
    uint cells; // dims.x * dims.y * dims.z
    uint pad0;
    uint pad1;
};

struct cs_body_state {
    vec4 position;         // xyz centre of mass; w = mass (0: static)
    vec4 orientation;      // unit quaternion (x, y, z, w), body -> world
    vec4 momentum;         // xyz linear momentum; w = restitution against the domain box
    vec4 angular_momentum; // xyz about the centre of mass, world frame; w = friction
    vec4 inv_inertia[3];   // rows of the body-frame inverse inertia tensor (about the COM); w = 0
    uvec4 shape;           // x = first local plane, y = planes, z = first local vertex, w = vertices
    vec4 extent;           // x = bounding radius, y = sphere radius (0: planes), z = impulse slot, w = 0
    uvec4 motion;          // x = first path key, y = path keys (0: not kinematic), z = substeps done, w = loop (0/1)
};

// What "bodies: integrate" reads besides the states (uploaded once).
struct cs_bodies_params {
    uvec4 counts;          // x = bodies, y = fluids, z = dim, w = dynamic bodies
    vec4 gravity;          // xyz; w = dt
    vec4 domain_min;       // xyz (the world's box)
    vec4 domain_max;
    vec4 local_planes[CS_BODIES_MAX_PLANES];     // relative to the centre of mass
    vec4 local_vertices[CS_BODIES_MAX_VERTICES]; // contact points relative to the centre of mass
    vec4 path[CS_BODIES_MAX_PATH_KEYS];          // kinematic bodies: (t, centre of mass xyz) keys
};

// Push constants of bodies/records_keys.comp and bodies/records_sum.comp.
struct cs_body_records_push {
    uint records;  // records in use: live particles * CS_BODY_RECORDS_PER_PARTICLE
    uint out_base; // records_sum: first float of this fluid's sums (fluid * dynamic * 6)
    uint slots;    // dynamic bodies (impulse slots)
    uint pad;
};

// Push constants of bodies/integrate.comp.
struct cs_bodies_integrate_push {
    uint stage; // CS_BODIES_STAGE_*
    uint sweep; // SWEEP: which one (the first starts the accumulated impulses)
    uint pad0;
    uint pad1;
};

#ifndef CS_GLSL
typedef struct cs_body_grid_push cs_body_grid_push;
typedef struct cs_bodies_integrate_push cs_bodies_integrate_push;
typedef struct cs_body_records_push cs_body_records_push;
typedef struct cs_body_set cs_body_set;
typedef struct cs_body_state cs_body_state;
typedef struct cs_bodies_params cs_bodies_params;
#endif

#endif
