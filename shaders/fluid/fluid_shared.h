// fluid_shared.h — constants and structs shared by pipelines/fluid/fluid.c and the
// fluid shaders (C and GLSL include this same file).
//
// cs_fluid_params is the read-only storage buffer every fluid shader binds
// (see fluid.glsl): what stays constant for a scene. Per-dispatch values
// (particle count, offsets) go in each shader's push constants.
#ifndef CS_FLUID_SHARED_H
#define CS_FLUID_SHARED_H

#include "cs_shared.h"
#include "boundary_shared.h"
#include "../bodies/bodies_shared.h"

#define CS_FLUID_GROUP 64            // local_size_x of the 1D fluid passes
#define CS_FLUID_MAX_MATERIALS 8     // = CS_MAX_MATERIALS
#define CS_FLUID_BOUNDARY_SAMPLES 129 // samples of the boundary integrals over d / h in [0, 1]
#define CS_LEVEL_FIELD_BINDING 14    // the level's distance field, in every pass that collides
#define CS_BODY_SET_BINDING 13       // the bodies' set (bodies_shared.h cs_body_set), in every pass that reads it

// Stats terms, one planar float array each in the stats scratch buffer.
#define CS_FLUID_STAT_DENSITY_ERROR 0 // |rho/rho0 - 1|      (0 for non-finite particles)
#define CS_FLUID_STAT_SPEED 1         // |v|                 (0 for non-finite particles)
#define CS_FLUID_STAT_KINETIC 2       // 0.5 m |v|^2         (0 for non-finite particles)
#define CS_FLUID_STAT_NON_FINITE 3    // 1 if any position / velocity component is NaN or Inf
#define CS_FLUID_STAT_OUTSIDE 4       // 1 if the position is outside the domain box
#define CS_FLUID_STAT_MASS 5          // m
#define CS_FLUID_STAT_TERMS 6

struct cs_fluid_params {
    vec4 domain_min;     // xyz; w = smoothing radius h
    vec4 domain_max;     // xyz; w = dt (one substep)
    vec4 gravity;        // xyz; w = boundary restitution (0..1)
    vec4 grid_origin;    // xyz = domain_min; w = 1 / cell size
    uvec4 grid_dims;     // xyz cells per axis (z = 1 in 2D); w = cell count
    vec4 kernel;         // x = poly6 K, y = spiky-gradient K (|grad W| = y (h - r)^2), z = h^2, w = 1/h
    uvec4 counts;        // x = 0 (the boundary set counts its planes), y = materials, z = dim, w = capacity
    vec4 materials[CS_FLUID_MAX_MATERIALS]; // x = mass, y = rest density, z = rest volume m / rho0, w = 0
    // The domain box's faces and the walls as half-spaces (boundary_shared.h,
    // built by pipelines/core/boundary.c, read through shaders/common/boundary.glsl).
    cs_boundary_set boundary_set;
    // Boundary model for poly6 / spiky solvers (fluid.glsl cs_boundary): a
    // boundary half-space at distance d acts like fluid at kappa times rest
    // density filling the half-space beyond it (kappa ~ 0.9 makes a lattice
    // particle s/2 from a wall exactly as dense as an interior one; see
    // fluid.c). Sample k is at d = h k / (SAMPLES - 1):
    //   x = kappa * integral of poly6 over that half-space (0.5 kappa at d = 0, 0 at d >= h),
    //   y = kappa * h * integral of the spiky kernel over the plane at distance d
    //       (= h |integral of grad W over the half-space|), zw = 0.
    vec4 boundary[CS_FLUID_BOUNDARY_SAMPLES];
    // x = collision margin: how close a particle centre may come to a box
    // face or a wall (fluid.glsl cs_collide). A particle is a cube of the
    // spacing around its centre, so the margin is half the spacing: the
    // first row of a lattice sits there, and the boundary density above is
    // calibrated for that distance. y = the real-time mode's speed limit
    // (m/s, fluid.glsl cs_clamp_speed; 0: no clamp, the physical mode).
    // zw = 0.
    vec4 wall;
    // The level's signed distance field (fluid.glsl cs_collide_level; the
    // field itself is the storage buffer at CS_LEVEL_FIELD_BINDING of the
    // passes that collide): xyz = the world position of node (0, 0, 0),
    // w = 1 / cell size; level_dims xyz = nodes per axis, w = 1 when the
    // fluid has a level (0: no level, the buffer bound is a placeholder).
    vec4 level_origin;
    uvec4 level_dims;
    // The pointer (scene.h "pointer"; predict.comp): xyz = its point, w =
    // its radius (0: off); pointer_force x = the signed acceleration at the
    // centre (+ pulls towards the point, - pushes away), y = damping (1/s).
    // Written inside the recording when it changes (cs_fluid_record_pointer).
    vec4 pointer;
    vec4 pointer_force;
};

// Push constants of the base passes.
struct cs_fluid_push {
    uint count;          // live particles
    uint first;          // emit: first destination index
    uint emitted_before; // emit: sequence number of the first particle
    uint material;       // emit
    vec4 origin;         // emit: xyz jet centre; w = age (s) of the first particle
    vec4 direction;      // emit: xyz unit direction; w = speed
    vec4 across_u;       // emit: xyz first across vector * spacing; w = slots across u
    vec4 across_v;       // emit: xyz second across vector * spacing (3D); w = slots across v
    vec4 timing;         // emit: x = 1 / rate, y = speed jitter (fraction)
    uvec4 seed;          // emit: x = scene seed, y = emitter index
};

#ifndef CS_GLSL
typedef struct cs_fluid_params cs_fluid_params;
typedef struct cs_fluid_push cs_fluid_push;
#endif

#endif
