#version 450
// stats.comp — the per-particle terms of the frame stats, reduced on the GPU
// (prim.h) so a frame reads back two floats instead of every vorton:
//   speed[i]      |u| of vorton i (the velocity of the last "vorton: rates");
//                 0 past the vortons
//   non_finite[i] 1 for vorton i with a NaN/Inf in its position, vorticity
//                 or velocity, plus 1 for tracer i with one in its position
// One invocation per index up to max(vortons, tracers): counts.x vortons,
// counts.y invocations, counts.z tracers.
#include "vorton_shared.h"

layout(local_size_x = VORTON_WG) in;
layout(push_constant) uniform PushBlock { vorton_push pc; };

layout(std430, binding = 0) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Vort { vec4 vort[]; };
layout(std430, binding = 2) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = 3) readonly buffer Tracers { vec4 tracers[]; };
layout(std430, binding = 4) writeonly buffer Speed { float speed[]; };
layout(std430, binding = 5) writeonly buffer NonFinite { float non_finite[]; };

bool not_finite(vec4 v) { return any(isnan(v)) || any(isinf(v)); }

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.counts.y)
        return;
    float s = 0.0, bad = 0.0;
    if (i < pc.counts.x) {
        vec4 u = vel[i];
        bool broken = not_finite(pos[i]) || not_finite(vort[i]) || not_finite(u);
        // A NaN would make the max undefined (GLSL max): counted, not measured.
        s = broken ? 0.0 : length(u.xyz);
        bad += broken ? 1.0 : 0.0;
    }
    if (i < pc.counts.z)
        bad += not_finite(tracers[i]) ? 1.0 : 0.0;
    speed[i] = s;
    non_finite[i] = bad;
}
