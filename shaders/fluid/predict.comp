#version 450
// "predict": v += g dt (clamped in the real-time mode, fluid.glsl
// cs_clamp_speed); x* = x + v dt (the positions themselves stay: solvers
// derive the velocity from x* - x at the end of the substep). x*.w holds the
// particle's mass, so neighbour loops over x* need no material lookup.
//
// With CELL_IDS (cs_fluid_record_predict_grid) this one dispatch is also the
// grid build's first two steps, which cost a dispatch and a barrier each at
// small sizes: key[i] = cell of x*, order[i] = i exactly as
// grid/cell_ids.comp writes them (same x*, same rule for non-finite
// particles), and every cell's range cleared to (0, 0) as grid/clear.comp
// does (invocation c clears cell c: the dispatch covers max(particles, cells)).
#include "index.glsl"
#include "fluid.glsl"
#ifdef CELL_IDS
#include "../grid/grid.glsl" // cs_grid_push, the cell of a position
#endif
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 3) writeonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 4) readonly buffer Materials { uint materials[]; };
#ifdef CELL_IDS
layout(std430, binding = 5) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 6) writeonly buffer Order { uint order[]; };
layout(std430, binding = 7) writeonly buffer Ranges { uvec2 ranges[]; };
layout(push_constant) uniform Push { cs_grid_push pc; }; // dims.w = particle count
#define PARTICLE_COUNT (pc.dims.w)
#else
layout(push_constant) uniform Push { cs_fluid_push pc; };
#define PARTICLE_COUNT (pc.count)
#endif
void main()
{
    uint i = cs_linear_index();
#ifdef CELL_IDS
    uint cell_count = pc.dims.x * pc.dims.y * pc.dims.z;
    if (i < cell_count)
        ranges[i] = uvec2(0u);
#endif
    if (i >= PARTICLE_COUNT)
        return;
    vec3 v = cs_pointer_velocity(positions[i].xyz, velocities[i].xyz + fp.gravity.xyz * CS_DT, CS_DT);
    v = cs_clamp_speed(v); // real-time mode only: x* moves at most its limit a substep
#if DIM == 2
    v.z = 0.0;
#endif
    velocities[i] = vec4(v, 0.0);
#ifdef PREDICTED_W_MATERIAL
    // Clavet SPH: its neighbour loops need the neighbour's material (masses,
    // viscosities, cohesion), so it travels with the position: one
    // storage-buffer read per neighbour instead of two (lavapipe reads a
    // buffer one lane at a time). A small integer is exact as a float.
    vec3 x = positions[i].xyz + v * CS_DT;
    predicted[i] = vec4(x, float(materials[i]));
#else
    vec3 x = positions[i].xyz + v * CS_DT;
    predicted[i] = vec4(x, CS_MASS(materials[i]));
#endif
#ifdef CELL_IDS
    bool finite = !any(isnan(x)) && !any(isinf(x));
    ivec3 c = cs_grid_cell(x, pc.origin.xyz, pc.origin.w, pc.dims.xyz);
    keys[i] = finite ? cs_grid_cell_id(c, pc.dims.xyz) : cell_count;
    order[i] = i;
#endif
}
