#version 450
// integrate.comp — one explicit update out = base + h * rate, h = pc.gravity_dt.w.
// The RK2 (midpoint) step runs it twice: to the midpoint with h = dt/2 from
// the rates at the start, then the whole step with h = dt from the rates at
// the midpoint. Vortons move with the velocity and change their vorticity
// and temperature; their radius stays. With TRACERS the targets are passive
// tracers (position moves; w, the temperature they show, stays).
#include "vorton_shared.h"

layout(local_size_x = VORTON_WG) in;
layout(push_constant) uniform PushBlock { vorton_push pc; };

layout(std430, binding = 0) readonly buffer BasePos { vec4 base_pos[]; };
layout(std430, binding = 2) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = 4) writeonly buffer OutPos { vec4 out_pos[]; };
#ifndef TRACERS
layout(std430, binding = 1) readonly buffer BaseVort { vec4 base_vort[]; };
layout(std430, binding = 3) readonly buffer Rate { vec4 rate[]; };
layout(std430, binding = 5) writeonly buffer OutVort { vec4 out_vort[]; };
#endif

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.counts.y)
        return;
    float h = pc.gravity_dt.w;
    vec4 p = base_pos[i];
    out_pos[i] = vec4(p.xyz + h * vel[i].xyz, p.w);
#ifndef TRACERS
    out_vort[i] = base_vort[i] + h * rate[i];
#endif
}
