#version 450
// points_scatter.comp — second step of the points view: every kept cell
// writes one particle (world units) into slot offsets[i], the exclusive scan
// of the flags, so the list is compacted in cell order, the same every run.
// The last cell also writes the draw arguments: it knows the total (its
// offset plus its own flag), so the renderer can draw exactly the points of
// this frame with an indirect draw, before the host has seen the count.
#include "reint_common.glsl"

REINT_LOCAL_SIZE;

layout(std430, binding = 0) readonly buffer Mass { uint mass[]; };
layout(std430, binding = 1) readonly buffer Pos { VSTORE pos[]; };
layout(std430, binding = 2) readonly buffer Vel { VSTORE vel[]; };
layout(std430, binding = 3) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 4) writeonly buffer OutPositions { vec4 out_positions[]; };
layout(std430, binding = 5) writeonly buffer OutVelocities { vec4 out_velocities[]; };
layout(std430, binding = 6) writeonly buffer OutDensities { float out_densities[]; };
layout(std430, binding = 7) writeonly buffer OutMaterials { uint out_materials[]; };
// VkDrawIndirectCommand (vertex count, instance count, first vertex, first
// instance), then the point count.
layout(std430, binding = 8) writeonly buffer Args { uint args[REINT_POINTS_ARGS_UINTS]; };

void main()
{
    IVEC c;
    if (!reint_cell(c))
        return;
    uint i = reint_index(c);
    uint m = mass[i];
    bool kept = m > REINT_POINTS_MIN_UNITS;
    if (i == pc.dims.w - 1u) {
        uint total = offsets[i] + (kept ? 1u : 0u);
        args[0] = 6u * total;
        args[1] = 1u;
        args[2] = 0u;
        args[3] = 0u;
        args[4] = total;
        args[5] = 0u;
        args[6] = 0u;
        args[7] = 0u;
    }
    if (!kept)
        return;
    uint o = offsets[i];
    float cell = pc.scale.y;
    vec3 x = vec3(0.0), v = vec3(0.0);
    VEC offset = FROM_STORE(pos[i]);
    VEC velocity = FROM_STORE(vel[i]);
    for (int a = 0; a < DIM; a++) {
        // Cell index plus offset first: both are in cells, and the sum is
        // exact enough before the one scale to world units.
        x[a] = (float(c[a]) + offset[a]) * cell;
        v[a] = velocity[a] * cell;
    }
    out_positions[o] = vec4(pc.origin.xyz + x, 0.0);
    out_velocities[o] = vec4(v, 0.0);
    out_densities[o] = float(m) / float(REINT_MASS_ONE_F) * pc.origin.w;
    out_materials[o] = 0u;
}
