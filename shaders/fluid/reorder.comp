#version 450
// "grid: reorder": every state array gathered into cell order in one pass
// (dst[i] = src[order[i]]), so neighbour loops read coherent memory and the
// grid's cell ranges index the particle arrays directly.
#include "index.glsl"
#include "fluid_shared.h"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 0) readonly buffer Order { uint order[]; };
layout(std430, binding = 1) readonly buffer PosIn { vec4 pos_in[]; };
layout(std430, binding = 2) writeonly buffer PosOut { vec4 pos_out[]; };
layout(std430, binding = 3) readonly buffer VelIn { vec4 vel_in[]; };
layout(std430, binding = 4) writeonly buffer VelOut { vec4 vel_out[]; };
layout(std430, binding = 5) readonly buffer MatIn { uint mat_in[]; };
layout(std430, binding = 6) writeonly buffer MatOut { uint mat_out[]; };
layout(std430, binding = 7) readonly buffer IdIn { uint id_in[]; };
layout(std430, binding = 8) writeonly buffer IdOut { uint id_out[]; };
#ifdef HAS_PREDICTED
layout(std430, binding = 9) readonly buffer PredIn { vec4 pred_in[]; };
layout(std430, binding = 10) writeonly buffer PredOut { vec4 pred_out[]; };
#endif
layout(push_constant) uniform Push { cs_fluid_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    uint s = order[i];
    pos_out[i] = pos_in[s];
    vel_out[i] = vel_in[s];
    mat_out[i] = mat_in[s];
    id_out[i] = id_in[s];
#ifdef HAS_PREDICTED
    pred_out[i] = pred_in[s];
#endif
}
