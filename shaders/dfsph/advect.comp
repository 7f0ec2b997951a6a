#version 450
// "dfsph: advect": x' = x + dt v with the divergence- and density-solved
// velocity (symplectic Euler); w (the material) kept. In place: nothing
// else is read.
#include "dfsph.glsl"
layout(std430, binding = 3) buffer Positions { vec4 positions[]; };
layout(std430, binding = 4) readonly buffer Velocities { vec4 velocities[]; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec4 x = positions[i];
    positions[i] = vec4(x.xyz + pc.dt * CS_FLUID_XYZ(velocities[i]), x.w);
}
