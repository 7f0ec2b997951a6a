#version 450
// "bodies: integrate": one invocation per body (bodies.h for the scheme).
// Reads the impulses the fluids' collisions gave each moving body this
// substep (sums: ((fluid * dynamic) + slot) * 6 + term, summed over the
// fluids in world order), adds gravity, moves the body, keeps it in the
// domain box, and writes its world-space entry of the body set.
#include "index.glsl"
#include "bodies_shared.h"
layout(local_size_x = 8) in;
layout(std430, binding = 0) readonly buffer Params { cs_bodies_params bp; };
layout(std430, binding = 1) buffer States { cs_body_state states[]; };
layout(std430, binding = 2) readonly buffer Sums { float sums[]; };
layout(std430, binding = 3) writeonly buffer Set { cs_body_set set; };

mat3 quat_to_mat(vec4 q)
{
    float x = q.x, y = q.y, z = q.z, w = q.w;
    // Columns (GLSL mat3 is column-major).
    return mat3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w),
                2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w),
                2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y));
}

vec4 quat_mul(vec4 a, vec4 b)
{
    return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

void main()
{
    uint b = cs_linear_index();
    uint count = bp.counts.x;
    if (b == 0u)
        set.counts = uvec4(count, 0u, bp.counts.z, bp.counts.w);
    if (b >= count)
        return;
    cs_body_state s = states[b];
    bool d2 = bp.counts.z == 2u;
    float dt = bp.gravity.w;
    float mass = s.position.w;
    uint slot = uint(s.extent.z); // its impulse slot (moving bodies in scene order)
    vec3 x = s.position.xyz;
    vec4 q = s.orientation;
    vec3 p = s.momentum.xyz, l = s.angular_momentum.xyz;
    mat3 inv_body = transpose(mat3(s.inv_inertia[0].xyz, s.inv_inertia[1].xyz, s.inv_inertia[2].xyz));
    vec3 v = vec3(0.0), w = vec3(0.0);
    mat3 r = quat_to_mat(q);
    if (mass > 0.0) {
        vec3 j = vec3(0.0), ja = vec3(0.0);
        uint terms = bp.counts.w * CS_BODIES_IMPULSE_TERMS;
        for (uint f = 0u; f < bp.counts.y; f++) {
            uint base = f * terms + slot * CS_BODIES_IMPULSE_TERMS;
            j += vec3(sums[base], sums[base + 1u], sums[base + 2u]);
            ja += vec3(sums[base + 3u], sums[base + 4u], sums[base + 5u]);
        }
        p += j + mass * bp.gravity.xyz * dt;
        l += ja;
        if (d2) {
            p.z = 0.0;
            l.xy = vec2(0.0);
        }
        v = p / mass;
        w = r * (inv_body * (transpose(r) * l));
        x += v * dt;
        q = normalize(q + 0.5 * dt * quat_mul(vec4(w, 0.0), q));
        r = quat_to_mat(q);
        // Domain box: per face, the deepest vertex past it.
        float e = s.momentum.w;
        bool touching = false;
        for (uint a = 0u; a < (d2 ? 2u : 3u); a++) {
            float lo = 0.0, hi = 0.0; // deepest extent below / above the centre along a
            if (s.extent.y > 0.0) {
                lo = -s.extent.y;
                hi = s.extent.y;
            }
            for (uint k = 0u; k < s.shape.w; k++) {
                float c = (r * bp.local_vertices[s.shape.z + k].xyz)[a];
                lo = min(lo, c);
                hi = max(hi, c);
            }
            float below = bp.domain_min[a] - (x[a] + lo), above = (x[a] + hi) - bp.domain_max[a];
            if (below > 0.0) {
                x[a] += below;
                if (p[a] < 0.0)
                    p[a] = -e * p[a];
                touching = true;
            }
            if (above > 0.0) {
                x[a] -= above;
                if (p[a] > 0.0)
                    p[a] = -e * p[a];
                touching = true;
            }
        }
        if (touching) {
            l *= 0.95;
            // Tangential damping: every component loses 1% (the normal one was just reflected).
            p *= 0.99;
        }
        v = p / mass;
        w = r * (inv_body * (transpose(r) * l));
        if (d2) {
            x.z = 0.0;
            v.z = 0.0;
            w.xy = vec2(0.0);
        }
        states[b].position = vec4(x, mass);
        states[b].orientation = q;
        states[b].momentum = vec4(p, s.momentum.w);
        states[b].angular_momentum = vec4(l, s.angular_momentum.w);
    }
    // The world-space entry (static bodies: the same every substep).
    float radius = s.extent.x;
    set.bodies[b].centre = vec4(x, radius);
    set.bodies[b].velocity = vec4(v, s.angular_momentum.w);
    set.bodies[b].omega = vec4(w, s.extent.y);
    set.bodies[b].info = uvec4(s.shape.x, s.shape.y, mass > 0.0 ? CS_BODY_DYNAMIC : 0u, slot);
    for (uint k = 0u; k < s.shape.y; k++) {
        vec4 pl = bp.local_planes[s.shape.x + k];
        vec3 n = r * pl.xyz;
        if (d2)
            n.z = 0.0;
        set.planes[s.shape.x + k] = vec4(n, pl.w + dot(n, x));
    }
    if (b == 0u) {
        uint planes = 0u;
        for (uint k = 0u; k < count; k++)
            planes += states[k].shape.y;
        set.counts.y = planes;
    }
}
