// bodies.glsl — particles against rigid convex bodies (bodies_shared.h
// cs_body_set): the contact query and the collision response the fluid
// wall models (fluid.glsl cs_collide, cs_restitute) run between two passes
// over the boundary set's planes (with the collision margin, then without).
//
// Before including, define CS_BODY_SET as the cs_body_set to read and
// CS_BODY_DT as the substep length (fluid.glsl: fp.bodies, the fluid's dt).
#ifndef CS_BODIES_GLSL
#define CS_BODIES_GLSL

#include "bodies_shared.h"

#ifndef CS_BODY_SET
#error "define CS_BODY_SET (the cs_body_set to read) before including bodies.glsl"
#endif
#ifndef CS_BODY_DT
#error "define CS_BODY_DT (the substep length) before including bodies.glsl"
#endif

// Far from a body: what the broad phase answers (no contact).
#define CS_BODY_FAR 3.402823466e38

uint cs_body_count() { return CS_BODY_SET.counts.x; }

// Velocity of body b's material at world point x: v + omega x (x - c).
vec3 cs_body_surface_velocity(uint b, vec3 x)
{
    cs_body_gpu body = CS_BODY_SET.bodies[b];
    return body.velocity.xyz + cross(body.omega.xyz, x - body.centre.xyz);
}

// The contact of point x with body b, moving at v_rel relative to the body's
// surface during the last substep:
//   xyz = the contact normal (unit, pointing out of the body),
//   w   = the contact distance: > 0 outside, < 0 inside (the penetration).
// The contact point is x - w * normal.
// Broad phase: a point farther than the bounding sphere answers
// (0, CS_BODY_FAR). A sphere: the radial distance. A polytope: the largest
// signed plane distance (inside: the shallowest plane; outside: a lower
// bound near edges and corners), except deep inside (deep rule): among the
// planes the point moved farther behind during the step (dot(n, v_rel) < 0)
// and was still in front of (within 1e-6 of the body's size) at its start,
// x - v_rel dt, the largest distance wins. So a fast point through a thin
// slab goes back out of the face it came in through, not the nearer one
// behind. With no such plane (at rest, or inside from the start) the plain
// largest distance stands. Ties go to the lowest plane. A NaN coordinate
// gives a NaN distance.
// `reach`: how far outside the body a caller still wants the distance (the
// broad phase passes points within the bounding radius + reach). A caller
// that acts on points outside the surface must give it: with reach 0 a point
// just outside a sphere (bounding radius = its radius) answers FAR, so the
// vortons' no-slip band of one core outside a sphere was never seen
// (vorton_spin_3d: no vorticity ever, max speed 0).
vec4 cs_body_contact_within(uint b, vec3 x, vec3 v_rel, float reach)
{
    cs_body_gpu body = CS_BODY_SET.bodies[b];
    vec3 r = x - body.centre.xyz;
    float r2 = dot(r, r);
    float broad = body.centre.w + max(reach, 0.0);
    if (r2 > broad * broad)
        return vec4(0.0, 0.0, 0.0, CS_BODY_FAR);
    if (body.omega.w > 0.0) {
        float len = sqrt(r2);
        vec3 n = len > 0.0 ? r / len : vec3(0.0, 1.0, 0.0);
        return vec4(n, isnan(r2) ? r2 : len - body.omega.w);
    }
    float best = -CS_BODY_FAR, deep = -CS_BODY_FAR;
    vec3 n_best = vec3(0.0), n_deep = vec3(0.0);
    float tol = 1e-6 * body.centre.w;
    for (uint k = 0u; k < body.info.y; k++) {
        vec4 p = CS_BODY_SET.planes[body.info.x + k];
        float d = dot(p.xyz, x) - p.w;
        if (isnan(d))
            return vec4(p.xyz, d);
        if (d > best) {
            best = d;
            n_best = p.xyz;
        }
        float vn = dot(p.xyz, v_rel);
        if (vn < 0.0 && d - vn * CS_BODY_DT >= -tol && d > deep) {
            deep = d;
            n_deep = p.xyz;
        }
    }
    if (best < 0.0 && deep > -CS_BODY_FAR)
        return vec4(n_deep, deep);
    return vec4(n_best, best);
}

// Points inside the bounding sphere only (what the particle collisions need:
// they act inside the body or within a margin the bounding sphere covers for
// their polytopes).
vec4 cs_body_contact(uint b, vec3 x, vec3 v_rel) { return cs_body_contact_within(b, x, v_rel, 0.0); }

// The distance from x to the intersection of `count` (2 or 3) planes it
// is in front of (an edge or a corner of the body), given their normals n
// and x's distances d to them: with the Gram matrix G = (n_i . n_j), the
// nearest point is x - sum_i l_i n_i where G l = d, at distance
// sqrt(d . l) (never less than any d_i). Why not the largest d_i: beside a
// face, past the edge, that lower bound reads the particle as right above
// the face's infinite plane, so a box's bottom face lifted the fluid around
// its footprint too (tests/test_bodies.c, the Archimedes tank). Returns
// (unit normal from the nearest point to x, distance); a degenerate
// system (parallel planes) answers the fallback (n_best, best).
vec4 cs_body_feature_face(vec3 n[3], float d[3], uint count, vec3 n_best, float best)
{
    vec3 l;
    if (count == 2u) {
        float c = dot(n[0], n[1]);
        float det = 1.0 - c * c;
        if (det < 1e-6)
            return vec4(n_best, best);
        l = vec3((d[0] - c * d[1]) / det, (d[1] - c * d[0]) / det, 0.0);
    } else {
        mat3 g = mat3(vec3(1.0, dot(n[0], n[1]), dot(n[0], n[2])), vec3(dot(n[1], n[0]), 1.0, dot(n[1], n[2])),
                      vec3(dot(n[2], n[0]), dot(n[2], n[1]), 1.0));
        if (abs(determinant(g)) < 1e-6)
            return vec4(n_best, best);
        l = inverse(g) * vec3(d[0], d[1], d[2]);
    }
    vec3 offset = l.x * n[0] + l.y * n[1] + (count == 3u ? l.z * n[2] : vec3(0.0));
    float dist = length(offset);
    if (!(dist > best))
        return vec4(n_best, best);
    return vec4(offset / dist, dist);
}

// The face of body b nearest to x, as a wall model reads it (the fluids'
// boundary density and pressure treat it locally as a half-space):
//   xyz = the face's unit normal (out of the body, into the fluid),
//   w   = the signed distance to it (> 0 outside, < 0 inside).
// A polytope: the largest signed plane distance (inside: the shallowest
// plane; outside: a lower bound near edges and corners); a sphere: the
// radial distance (its tangent plane). Broad phase: a point farther than
// the bounding sphere plus `reach` answers (0, CS_BODY_FAR). Ties go to the
// lowest plane.
vec4 cs_body_face(uint b, vec3 x, float reach)
{
    cs_body_gpu body = CS_BODY_SET.bodies[b];
    vec3 r = x - body.centre.xyz;
    float r2 = dot(r, r);
    float R = body.centre.w + reach;
    if (!(r2 <= R * R))
        return vec4(0.0, 0.0, 0.0, CS_BODY_FAR);
    if (body.omega.w > 0.0) {
        float len = sqrt(r2);
        vec3 n = len > 0.0 ? r / len : vec3(0.0, 1.0, 0.0);
        return vec4(n, len - body.omega.w);
    }
    float best = -CS_BODY_FAR;
    vec3 n_best = vec3(0.0);
    // The planes x is in front of (at most 3 kept): outside near an edge or
    // a corner the nearest point of the body is on their intersection.
    vec3 n_out[3];
    float d_out[3];
    uint outside = 0u;
    for (uint k = 0u; k < body.info.y; k++) {
        vec4 p = CS_BODY_SET.planes[body.info.x + k];
        float d = dot(p.xyz, x) - p.w;
        if (d > best) {
            best = d;
            n_best = p.xyz;
        }
        if (d > 0.0) {
            if (outside < 3u) {
                n_out[outside] = p.xyz;
                d_out[outside] = d;
            }
            outside++;
        }
    }
    if (outside < 2u || outside > 3u)
        return vec4(n_best, best);
    return cs_body_feature_face(n_out, d_out, outside, n_best, best);
}

// Pushes x out of every body it is inside, along the contact normal, onto
// the surface; the velocity relative to the body's surface there loses its
// normal part into the body (reflected with restitution e) and a fraction
// `friction` (the body's) of its tangential part. Returns, per body, nothing:
// the caller sees the change of v through CS_BODY_IMPULSE(b, x, dv) when it
// defines it (collide.comp: the momentum the body receives).
void cs_bodies_collide(inout vec3 x, inout vec3 v, float e, float margin)
{
    for (uint b = 0u; b < cs_body_count(); b++) {
        vec3 vs = cs_body_surface_velocity(b, x);
        vec4 c = cs_body_contact(b, x, v - vs);
        c.w -= margin;
        if (!(c.w < 0.0))
            continue;
        vec3 n = c.xyz;
        x -= c.w * n;
#ifdef CS_BODY_PUSH
        // Position-based callers (pbf delta): the move itself is what the
        // body gave the particle (its velocity becomes (x* - x) / dt).
        CS_BODY_PUSH(b, x, -c.w * n);
#endif
        vs = cs_body_surface_velocity(b, x);
        vec3 rel = v - vs;
        float vn = dot(rel, n);
        if (vn < 0.0) {
            vec3 vt = rel - vn * n;
            vec3 v_new = vs - e * vn * n + (1.0 - CS_BODY_SET.bodies[b].velocity.w) * vt;
#ifdef CS_BODY_IMPULSE
            CS_BODY_IMPULSE(b, x, v_new - v);
#endif
            v = v_new;
        }
    }
}

// For position-based solvers (cs_restitute): where x touches a body (within
// `touch`) and moves into it relative to its surface, the normal part is
// reflected with e.
void cs_bodies_restitute(vec3 x, inout vec3 v, float e, float touch, float margin)
{
    for (uint b = 0u; b < cs_body_count(); b++) {
        vec3 vs = cs_body_surface_velocity(b, x);
        vec4 c = cs_body_contact(b, x, v - vs);
        if (!(c.w - margin <= touch))
            continue;
        float vn = dot(v - vs, c.xyz);
        if (vn < 0.0) {
#ifdef CS_BODY_IMPULSE
            CS_BODY_IMPULSE(b, x, -(1.0 + e) * vn * c.xyz);
#endif
            v -= (1.0 + e) * vn * c.xyz;
        }
    }
}

#endif
