#version 450
// "surface: classify", first dispatch: one bit per field node, set when the
// node is inside (field > iso; NaN is outside), 32 nodes a word in field
// order: inside_bits[w] bit i is node 32 w + i. An invocation reads its 32
// nodes as 8 vec4 loads (lavapipe loads a storage buffer one lane at a
// time, so a vec4 costs about what a float does); the word holding the
// field's last nodes reads them one by one, so nothing past the field is
// read.
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SURFACE_GROUP) in;
layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(std430, binding = 0) readonly buffer Field4 { vec4 field4[]; };
layout(std430, binding = 1) writeonly buffer Bits { uint inside_bits[]; };
layout(push_constant) uniform Push { cs_surface_push pc; };

void main()
{
    uint w = cs_linear_index();
    uint nodes = pc.dims.x * pc.dims.y * pc.dims.z;
    if (w >= pc.dims.w)
        return;
    bool full = 32u * w + 32u <= nodes;
    uint b = 0u;
    // Loops, not branches: a lavapipe branch runs both sides, a loop stops
    // when no lane needs another round.
    uint vecs = full ? 8u : 0u;
    for (uint j = 0u; j < vecs; j++) {
        vec4 f = field4[8u * w + j];
        b |= (f.x > pc.iso ? 1u : 0u) << (4u * j) | (f.y > pc.iso ? 2u : 0u) << (4u * j) |
             (f.z > pc.iso ? 4u : 0u) << (4u * j) | (f.w > pc.iso ? 8u : 0u) << (4u * j);
    }
    uint singles = full ? 0u : nodes - 32u * w;
    for (uint i = 0u; i < singles; i++)
        b |= (field[32u * w + i] > pc.iso ? 1u : 0u) << i;
    inside_bits[w] = b;
}
