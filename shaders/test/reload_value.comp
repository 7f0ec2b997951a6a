#version 450
// Test shader for hot reload: writes a constant the test edits on disk.
#include "reload_value.glsl"
layout(local_size_x = 1) in;
layout(std430, binding = 0) writeonly buffer Out { uint value[]; };
void main()
{
    value[0] = RELOAD_VALUE;
}
