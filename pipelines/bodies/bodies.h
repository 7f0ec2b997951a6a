// bodies.h — rigid convex bodies that push and are pushed by the particle
// fluids (scene "bodies", scene.h cs_body).
//
// Owns: the bodies' state on the GPU (cs_body_state: centre of mass,
// quaternion, linear and angular momentum, inverse inertia), their local
// geometry (planes and vertices about the centre of mass), the per-substep
// impulse reduction and the integration. The world calls it around the
// fluids' substeps (host/world/world.c):
//
//   cs_bodies_record_begin(b, rec, links)   "bodies: clear"  the fluids' impulse sums := 0
//   ... every fluid's substep: collide.comp pushes particles out of the
//       bodies (bodies.glsl) and adds -m dv to the particle's contact
//       records, one per moving body it touched (at most 4) ...
//   cs_bodies_record_end(b, rec, links)     "bodies: reduce"     per fluid: its contact records
//                                            (body_records.glsl) sorted by body slot (prim.h stable
//                                            sort), then one fixed-shape sum per slot
//                                           "bodies: integrate"  integrate.comp's stages (move, find
//                                                                contacts, 8 sweeps, separate, finish)
//                                           "bodies: broad phase" broad.comp: the grid's per-cell body
//                                                                lists (bodies_shared.h cs_body_grid)
//                                           the world-space set, published: every particle fluid
//                                           reads b->set from then on (cs_body_link.reads_set);
//                                           "bodies: publish" copies it only into fluids that
//                                           keep their own (the vortons)
//
// The integration stays on the GPU so a frame of many substeps is one
// recording with no read-back: P += J + m g dt, L += J_ang (semi-implicit
// Euler: the new momenta move the body), v = P / m,
// omega = R I^-1 R^T L, x += v dt, q += dt/2 (omega, 0) q, q renormalised.
// 2D: only L_z, omega_z, and x, v in the plane.
// Contacts (integrate.comp: found per body in parallel, then solved by one
// invocation walking them in body order, so the order is fixed and runs
// give the same bytes): sequential impulses at contact
// points, the body's vertices and three points on every edge (the edge
// points catch boxes crossed edge on edge). A point of a moving body past
// a domain face, or inside another body (the other's largest signed plane
// distance; spheres radially), gets a normal impulse at that point,
// accumulated over 8 sweeps and kept >= 0 (restitution only above the
// speed gravity gives in two substeps), and Coulomb friction
// (CS_BODY_CONTACT_FRICTION). The impulse at an off-centre point turns the
// body, which lays a tilted box flat. Then positions: each pair's deepest
// (found before any pair is moved)
// penetration is taken out along its normal, split by inverse mass, and
// each body's deepest point past a face is moved back onto it (translation
// only). Kinematic bodies (scene "path") follow their keys exactly and are
// pushed by nothing; static ones never move.
// Mass properties (cs_body_props_compute): box and sphere exact; a polytope
// by sampling its vertex bounding box on a 64^3 lattice (2D: 256^2) of cell
// centres: volume, centre of mass and inertia tensor to about 1% (exact for
// a box-shaped polytope up to the lattice). The centre of mass becomes the
// body's reference point; the scene's position places the planes' origin.
#pragma once

#include "body_shape.h"
#include "prim.h"
#include "sim.h"

#include "../../shaders/bodies/bodies_shared.h"

typedef struct cs_body_props {
    double mass;                   // kg (2D: per unit depth); kept for static bodies too
    double volume;                 // m^3 (2D: m^2)
    double com[3];                 // centre of mass in the body frame
    double inertia[3][3];          // about the centre of mass, body frame
    double radius;                 // bounding radius about the centre of mass
    double planes[CS_MAX_BODY_PLANES][4]; // about the centre of mass (d shifted)
    uint32_t plane_count;
    double vertices[CS_BODY_MAX_VERTICES][3]; // about the centre of mass
    uint32_t vertex_count;
} cs_body_props;

// Mass properties and local geometry of scene body i.
void cs_body_props_compute(const cs_scene *scene, uint32_t i, cs_body_props *out);

// Where a kinematic body's frame origin is at time t, and its velocity
// (scene.h cs_body path: straight segments, held at the end or looped).
void cs_body_path_at(const cs_body *body, double t, double pos[3], double vel[3]);

// The bodies of a scene in world space at their initial pose (what a fluid
// starts with in its constants). False, with a message naming the scene,
// when they exceed the set (planes, bodies).
bool cs_bodies_set_build(const cs_scene *scene, cs_body_set *out, cs_error *err);

typedef struct cs_bodies {
    cs_context *ctx;
    uint32_t count, dynamic, kinematic, fluids; // dynamic: pushed by the fluids; kinematic: on a path
    cs_buffer params_buffer;       // cs_bodies_params (built and uploaded at creation, not kept on the host)
    cs_buffer states;              // cs_body_state[count]
    cs_buffer set;                 // cs_body_set, written by integrate
    cs_buffer sums;                // floats: ((fluid * dynamic) + slot) * 6 + term
    // The fluids' contact records (bodies_shared.h), one fluid at a time:
    // sort keys (impulse slot) and values (record index), sorted by slot.
    cs_buffer record_keys, record_values;
    cs_buffer overflow;            // u32[2]: dropped impulses, dropped contacts (cs_bodies_overflow)
    cs_buffer work;                // integrate.comp's working copy of every body (CS_BODY_WORK_BYTES each)
    cs_buffer contacts;            // integrate.comp's accumulated contact impulses (CS_BODIES_MAX_CONTACTS)
    uint32_t record_capacity;      // the largest link capacity * CS_BODY_RECORDS_PER_PARTICLE
    uint32_t key_bits;             // sort bits: enough that 2^bits - 1 >= dynamic (unused records last)
    cs_sort sort;
    uint32_t grid_cells;           // the broad phase's cells (bodies_shared.h cs_body_grid)
    cs_program_id records_keys, records_sum, integrate, broad;
} cs_bodies;

// `links` are the fluids' (sim.h), in world order; every fluid must have
// one. A link's capacity never grows after creation.
bool cs_bodies_create(cs_context *ctx, const cs_scene *scene, const cs_body_link *links, uint32_t fluids,
                      cs_bodies *b, cs_error *err);
void cs_bodies_destroy(cs_bodies *b);
void cs_bodies_record_begin(cs_bodies *b, cs_recorder *rec, const cs_body_link *links);
void cs_bodies_record_end(cs_bodies *b, cs_recorder *rec, const cs_body_link *links);
// After the recording was submitted and waited on: every body's state.
void cs_bodies_download(cs_bodies *b, cs_body_state *out);
// What the bodies lost since creation because a fixed-size list was full.
typedef struct cs_bodies_overflow_counts {
    // Times a particle touched more moving bodies in one substep than it has
    // contact records (CS_BODY_RECORDS_PER_PARTICLE): an impulse was lost.
    uint32_t impulses;
    // Contacts and overlapping pairs a body found in one substep past its
    // CS_BODY_CONTACTS_PER_BODY / CS_BODY_PAIRS_PER_BODY: not solved, so
    // bodies may sink into each other (integrate.comp's dropped[]).
    uint32_t contacts;
} cs_bodies_overflow_counts;

// After the recording was submitted and waited on: both counts, read at once.
cs_bodies_overflow_counts cs_bodies_overflow(cs_bodies *b);
// A warning for `cistern run` naming what was lost and what to do, or ""
// when nothing was.
void cs_bodies_overflow_warning(cs_bodies_overflow_counts counts, char *out, size_t size);

// What a checkpoint saves of the bodies (sim.h cs_state_entry): their
// states, the published set, the integrator's contact impulses, the
// reduction's sums and records and the overflow counts;
// appended to out[*n ..]. The parameters are built again by create.
void cs_bodies_state(cs_bodies *b, cs_state_entry *out, uint32_t *n, uint32_t max);

// A checkpoint's copy of a cs_body_set buffer (`bytes` of it: the set, or a
// smaller placeholder) against `fresh`, the same buffer as create made it:
// the counts, plane ranges, flags and slots as made, the floats finite, the
// broad phase's lists within their arrays. False with `why` when it cannot
// be loaded (a fluid's, the vortons' and the bodies' own sets use it).
bool cs_body_set_check(const void *data, const void *fresh, size_t bytes, char *why, size_t why_size);
