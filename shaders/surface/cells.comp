#version 450
// "surface: field": the field of a grid fluid's cells, one node per cell
// centre: field[i] = cells[i * stride + component] (reint: mass / rest
// mass). The cells are already in the field's order (x fastest).
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SURFACE_GROUP) in;
layout(std430, binding = 0) readonly buffer Cells { float cells[]; };
layout(std430, binding = 1) writeonly buffer Field { float field[]; };
layout(push_constant) uniform Push { cs_cells_push pc; };

void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    field[i] = cells[i * pc.stride + pc.component];
}
