#version 450
// "predict": v += g dt; x* = x + v dt (the positions themselves stay: solvers
// derive the velocity from x* - x at the end of the substep). x*.w holds the
// particle's mass, so neighbour loops over x* need no material lookup.
#include "index.glsl"
#include "fluid.glsl"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 3) writeonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 4) readonly buffer Materials { uint materials[]; };
layout(push_constant) uniform Push { cs_fluid_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 v = velocities[i].xyz + fp.gravity.xyz * CS_DT;
#if DIM == 2
    v.z = 0.0;
#endif
    velocities[i] = vec4(v, 0.0);
#ifdef PREDICTED_W_MATERIAL
    // Clavet SPH: its neighbour loops need the neighbour's material (masses,
    // viscosities, cohesion), so it travels with the position: one
    // storage-buffer read per neighbour instead of two (lavapipe reads a
    // buffer one lane at a time). A small integer is exact as a float.
    predicted[i] = vec4(positions[i].xyz + v * CS_DT, float(materials[i]));
#else
    predicted[i] = vec4(positions[i].xyz + v * CS_DT, CS_MASS(materials[i]));
#endif
}
