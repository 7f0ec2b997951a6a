// pathtrace.glsl — the path tracer's estimator (docs/light.md, "Path
// tracer"), shared by trace.comp (camera paths) and probe.comp (paths that
// start on a triangle). The binding layout is the includer's: nodes, tris,
// lights. pipelines/trace/pathtrace_ref.c is the same algorithm in double.
#ifndef CS_PATHTRACE_GLSL
#define CS_PATHTRACE_GLSL

#include "pathtrace_shared.h"
#include "../geometry/geometry_shared.h"
#include "../geometry/bvh.glsl"

const float CS_PT_PI = 3.14159265358979324;

// PCG hash (Jarzynski & Olano 2020): one 32-bit word in, one out.
uint pt_hash(uint v)
{
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// The random number of (key, sample, bounce, dim) in [0, 1): 24 bits, so a
// float holds it exactly and the CPU twin reads the same value.
float pt_random(uint key, uint sample_index, uint bounce, uint dim)
{
    uint h = pt_hash(pc.seed);
    h = pt_hash(bounce * CS_PT_DIMS + dim + h);
    h = pt_hash(sample_index + h);
    h = pt_hash(key + h);
    return float(h >> 8u) * (1.0 / 16777216.0);
}

vec3 pt_tri_normal(uint i)
{
    return normalize(cross(tris[i].v1.xyz - tris[i].v0.xyz, tris[i].v2.xyz - tris[i].v0.xyz));
}

// Uniform point on triangle i from two numbers in [0, 1).
vec3 pt_tri_point(uint i, float a, float b)
{
    float s = sqrt(a);
    return tris[i].v0.xyz * (1.0 - s) + tris[i].v1.xyz * (s * (1.0 - b)) + tris[i].v2.xyz * (s * b);
}

// sin and cos of 2 pi b, b in [0, 1), from + - * alone, `precise` (no
// contraction): the same bits on every device. GLSL's sin and cos only
// promise an absolute error of 2^-11 and differ between drivers, so the
// built-ins would make the bounce directions, and with them which paths
// the GPU-vs-CPU test (test_pathtrace) can hold equal, depend on the
// device. b's quadrant is split off exactly (4 b and its floor are exact
// for a 24-bit b), and sin and cos of x = frac(4 b) pi / 2 in [0, pi / 2)
// are Taylor series to x^11 and x^12: errors below 6e-8 and 7e-9, at
// float rounding.
void pt_sincos_2pi(float b, out float s, out float c)
{
    precise float q4 = 4.0 * b;
    float qf = floor(q4);
    precise float x = (q4 - qf) * 1.57079632679489662;
    precise float x2 = x * x;
    precise float sn = x * (1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (-1.0 / 5040.0 + x2 * (1.0 / 362880.0 +
                       x2 * (-1.0 / 39916800.0))))));
    precise float cs = 1.0 + x2 * (-0.5 + x2 * (1.0 / 24.0 + x2 * (-1.0 / 720.0 + x2 * (1.0 / 40320.0 +
                       x2 * (-1.0 / 3628800.0 + x2 * (1.0 / 479001600.0))))));
    uint q = uint(qf) & 3u;
    s = q == 0u ? sn : q == 1u ? cs : q == 2u ? -sn : -cs;
    c = q == 0u ? cs : q == 1u ? -sn : q == 2u ? -cs : sn;
}

// Cosine-weighted direction around unit n (Duff et al. 2017 basis).
vec3 pt_cosine_direction(vec3 n, float a, float b)
{
    float sgn = n.z >= 0.0 ? 1.0 : -1.0;
    float c = -1.0 / (sgn + n.z);
    float m = n.x * n.y * c;
    vec3 t = vec3(1.0 + sgn * n.x * n.x * c, sgn * m, -sgn * n.x);
    vec3 bt = vec3(m, sgn + n.y * n.y * c, -n.y);
    float r = sqrt(a), sin_phi, cos_phi;
    pt_sincos_2pi(b, sin_phi, cos_phi);
    return t * (r * cos_phi) + bt * (r * sin_phi) + n * sqrt(max(1.0 - a, 0.0));
}

// The emissive triangle that u in [0, 1) picks (binary search of the CDF).
uint pt_pick_light(float u)
{
    uint lo = 0u, hi = pc.light_count - 1u;
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (u < lights[mid].cdf.x)
            hi = mid;
        else
            lo = mid + 1u;
    }
    return lights[lo].tri.x;
}

// Next-event estimate at p (facing normal ns, albedo a): one point on one
// emissive triangle, f_r L_e cos_x cos_l / r^2 / pdf_area.
vec3 pt_light_sample(uint key, uint s, uint bounce, vec3 p, vec3 ns, vec3 albedo)
{
    uint l = pt_pick_light(pt_random(key, s, bounce, CS_PT_DIM_LIGHT));
    vec3 q = pt_tri_point(l, pt_random(key, s, bounce, CS_PT_DIM_LIGHT_U), pt_random(key, s, bounce, CS_PT_DIM_LIGHT_V));
    vec3 o = p + ns * pc.origin.w;
    vec3 to = q - o;
    float dist2 = dot(to, to);
    vec3 dir = to * inversesqrt(dist2);
    float cos_x = dot(ns, dir), cos_l = -dot(pt_tri_normal(l), dir);
    if (!(cos_x > 0.0 && cos_l > 0.0))
        return vec3(0.0);
    vec3 unused;
    if (bvh_cast(o, to, 0.0, 1.0 - 1e-4, true, unused) != CS_PT_NO_HIT)
        return vec3(0.0);
    vec3 radiance = tris[l].emission.rgb / CS_PT_PI;
    // Balance heuristic against the cosine-sampled bounce: f_r L_e cos_x /
    // (p_light + p_bounce), both pdfs per solid angle. Bounded (by pi L_e
    // f_r), where the plain light-sample weight cos_l / r^2 is not.
    float p_light = dist2 / (cos_l * pc.light_area), p_bounce = cos_x / CS_PT_PI;
    return albedo / CS_PT_PI * radiance * (cos_x / (p_light + p_bounce));
}

// The balance-heuristic weight of emission met by a bounce ray from `from`
// (cosine pdf p_bounce per solid angle) at p on emitter normal n.
float pt_bounce_weight(vec3 from, float p_bounce, vec3 p, vec3 n, vec3 d)
{
    vec3 to = p - from;
    float p_light = dot(to, to) / (max(-dot(n, d), 0.0) * pc.light_area);
    return p_bounce / (p_bounce + p_light);
}

// One path. Camera paths (probe_tri == CS_PT_NO_HIT) start at o along d;
// probe paths start on the front of probe_tri at probe_p. info: (first
// triangle, vertices hit, a hash of every triangle hit in order).
vec3 pt_trace(uint key, uint s, vec3 o, vec3 d, uint probe_tri, vec3 probe_p, out uvec3 info)
{
    vec3 radiance = vec3(0.0), beta = vec3(1.0);
    bool nee = (pc.flags & CS_PT_NEE) != 0u && pc.light_count > 0u;
    info = uvec3(CS_PT_NO_HIT, 0u, 0u);
    float p_bounce = 0.0; // pdf of the ray that led to this vertex
    for (uint bounce = 0u; bounce <= pc.max_bounces; bounce++) {
        uint tri;
        vec3 p;
        if (bounce == 0u && probe_tri != CS_PT_NO_HIT) {
            tri = probe_tri;
            p = probe_p;
            d = -pt_tri_normal(tri); // seen from the front
        } else {
            vec3 tuv;
            tri = bvh_cast(o, d, 0.0, 3.0e38, false, tuv);
            info.z = pt_hash(info.z + tri);
            if (tri == CS_PT_NO_HIT)
                break; // nothing out there emits
            vec3 v0 = tris[tri].v0.xyz;
            p = v0 + (tris[tri].v1.xyz - v0) * tuv.y + (tris[tri].v2.xyz - v0) * tuv.z;
        }
        if (bounce == 0u)
            info.x = tri;
        info.y++;
        vec3 n = pt_tri_normal(tri);
        bool front = dot(n, d) < 0.0;
        // With NEE, emission met by a bounce ray shares the vertex before's
        // light sample's due (multiple importance sampling).
        if (front) {
            float w = bounce == 0u || !nee ? 1.0 : pt_bounce_weight(o, p_bounce, p, n, d);
            radiance += beta * tris[tri].emission.rgb * (w / CS_PT_PI);
        }
        if (bounce == pc.max_bounces)
            break;
        vec3 ns = front ? n : -n;
        vec3 albedo = tris[tri].albedo.rgb;
        if (nee)
            radiance += beta * pt_light_sample(key, s, bounce, p, ns, albedo);
        beta *= albedo; // f_r cos / pdf = (albedo / pi) cos / (cos / pi)
        if ((pc.flags & CS_PT_ROULETTE) != 0u && bounce >= pc.rr_start) {
            float survive = min(max(beta.r, max(beta.g, beta.b)), 0.95);
            if (!(pt_random(key, s, bounce, CS_PT_DIM_ROULETTE) < survive))
                break;
            beta /= survive;
        }
        d = pt_cosine_direction(ns, pt_random(key, s, bounce, CS_PT_DIM_DIR_U), pt_random(key, s, bounce, CS_PT_DIM_DIR_V));
        p_bounce = max(dot(ns, d), 0.0) / CS_PT_PI;
        o = p + ns * pc.origin.w;
    }
    return radiance;
}

#endif
