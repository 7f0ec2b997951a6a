#version 450
// points_flag.comp — first step of the points view: 1 for every cell holding
// more than REINT_POINTS_MIN_UNITS of mass, else 0. The exclusive scan of
// these flags (pipelines/core/prim.h) gives every kept cell its slot in the
// compacted list, in cell order, with no atomics.
#include "reint_common.glsl"

REINT_LOCAL_SIZE;

layout(std430, binding = 0) readonly buffer Mass { uint mass[]; };
layout(std430, binding = 1) writeonly buffer Flags { uint flags[]; };

void main()
{
    IVEC c;
    if (!reint_cell(c))
        return;
    uint i = reint_index(c);
    flags[i] = mass[i] > REINT_POINTS_MIN_UNITS ? 1u : 0u;
}
