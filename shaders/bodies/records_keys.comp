#version 450
// "bodies: reduce", step 1 of 3: the sort keys of a fluid's contact records
// (body_records.glsl). Record r's key is its body's impulse slot, or
// 0xFFFFFFFF when unused (so unused records sort after every slot: the sort
// compares only the low bits, and those are all ones, >= the slot count);
// its value is r, so the sum can find the record's impulses after the sort.
// A particle whose overflow mark is set adds one to the overflow counter
// (integer atomic: the count, not an order or a float sum, comes out).
#include "index.glsl"
#include "bodies_shared.h"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Records { float impulses[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Values { uint values[]; };
layout(std430, binding = 3) buffer Overflow { uint overflow[]; };
layout(push_constant) uniform Push { cs_body_records_push pc; };
void main()
{
    uint r = cs_linear_index();
    if (r >= pc.records)
        return;
    float key = impulses[r * CS_BODY_RECORD_FLOATS];
    keys[r] = key == CS_BODY_RECORD_NONE ? 0xFFFFFFFFu : uint(key);
    values[r] = r;
    if (r % CS_BODY_RECORDS_PER_PARTICLE == 0u && impulses[r * CS_BODY_RECORD_FLOATS + 7u] == CS_BODY_RECORD_OVERFLOW)
        atomicAdd(overflow[0], 1u);
}
