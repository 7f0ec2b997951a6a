#version 450
// stats.comp — per-frame statistics and the field the renderer draws.
//
// REINT_STATS_GROUPS workgroups stride over the grid in a fixed pattern and
// reduce in shared memory in a fixed tree, so the partials (and the host's
// sum of them) have the same bits every run. Mass is summed as a 64-bit
// integer (two words with carry): the total is exact.
#include "reint_common.glsl"

layout(local_size_x = REINT_STATS_WG) in;

layout(std430, binding = 0) readonly buffer Mass { uint mass[]; };
layout(std430, binding = 1) readonly buffer Pos { VSTORE pos[]; };
layout(std430, binding = 2) readonly buffer Vel { VSTORE vel[]; };
// Per cell: x: mass / rest cell mass, yzw: velocity in world units (z = 0 in 2D).
layout(std430, binding = 3) writeonly buffer Field { vec4 field[]; };
layout(std430, binding = 4) writeonly buffer Partials { reint_stats_partial partials[]; };

shared uvec4 s_counts[REINT_STATS_WG];
shared uint s_outside[REINT_STATS_WG];
shared vec4 s_values[REINT_STATS_WG];

bool finite(float f)
{
    return !isnan(f) && !isinf(f);
}

void main()
{
    uint lid = gl_LocalInvocationID.x;
    uint stride = gl_NumWorkGroups.x * REINT_STATS_WG;
    uint n = pc.dims.w;
    uvec4 counts = uvec4(0u);
    uint outside = 0u;
    float max_speed = 0.0;
    float energy = 0.0;
    float error_sum = 0.0;
    float error_max = 0.0;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
        uint m = mass[i];
        VEC x = FROM_STORE(pos[i]);
        VEC v = FROM_STORE(vel[i]);
        uint carry;
        counts.x = uaddCarry(counts.x, m, carry);
        counts.y += carry;
        bool ok = true;
        for (int a = 0; a < DIM; a++)
            ok = ok && finite(x[a]) && finite(v[a]);
        if (!ok)
            counts.z++;
        float mf = float(m) / float(REINT_MASS_ONE_F);
        if (m > 0u) {
            counts.w++;
            float error = abs(mf - 1.0);
            error_sum += error;
            error_max = max(error_max, error);
            if (any(lessThan(x, VEC(0.0))) || any(greaterThan(x, VEC(1.0))))
                outside++;
            if (ok) {
                float s2 = dot(v, v);
                if (m >= REINT_MIST_UNITS)
                    max_speed = max(max_speed, sqrt(s2));
                energy += 0.5 * mf * s2;
            }
        }
        vec4 f = vec4(mf, 0.0, 0.0, 0.0);
        for (int a = 0; a < DIM; a++)
            f[1 + a] = v[a] * pc.scale.y;
        field[i] = f;
    }
    s_counts[lid] = counts;
    s_outside[lid] = outside;
    s_values[lid] = vec4(max_speed, energy, error_sum, error_max);
    barrier();
    for (uint half_ = REINT_STATS_WG / 2u; half_ > 0u; half_ /= 2u) {
        if (lid < half_) {
            uvec4 a = s_counts[lid];
            uvec4 b = s_counts[lid + half_];
            uint carry;
            a.x = uaddCarry(a.x, b.x, carry);
            a.y += b.y + carry;
            a.zw += b.zw;
            s_counts[lid] = a;
            s_outside[lid] += s_outside[lid + half_];
            vec4 va = s_values[lid];
            vec4 vb = s_values[lid + half_];
            s_values[lid] = vec4(max(va.x, vb.x), va.y + vb.y, va.z + vb.z, max(va.w, vb.w));
        }
        barrier();
    }
    if (lid == 0u) {
        reint_stats_partial p;
        p.counts = s_counts[0];
        p.counts2 = uvec4(s_outside[0], 0u, 0u, 0u);
        p.values = s_values[0];
        partials[gl_WorkGroupID.x] = p;
    }
}
