#version 450
// "dfsph: speed": |v_i| into the errors array, which the CFL step reduces
// to the fastest particle's speed (prim.h, max) at the start of every
// scene substep. A non-finite speed is written as +inf, so the step falls
// to its smallest dt rather than reading a NaN maximum.
#include "dfsph.glsl"
layout(std430, binding = 3) readonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 4) writeonly buffer Errors { float errors[]; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    float s = length(CS_FLUID_XYZ(velocities[i]));
    errors[i] = isnan(s) || isinf(s) ? uintBitsToFloat(0x7f800000u) : s;
}
