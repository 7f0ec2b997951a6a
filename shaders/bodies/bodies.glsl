// bodies.glsl — particles against rigid convex bodies (bodies_shared.h
// cs_body_set): the contact query and the collision response the fluid
// wall models (fluid.glsl cs_collide, cs_restitute) run between two passes
// over the boundary set's planes (with the collision margin, then without).
//
// Before including, define CS_BODY_SET as the cs_body_set to read and
// CS_BODY_DT as the substep length (fluid.glsl: its body set binding, the fluid's dt).
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

// ---------------------------------------------------------------------------
// Broad phase (bodies_shared.h cs_body_grid): which bodies a point may touch.

// The grid cell of x per axis, clamped: a point outside the domain lands in
// the border cell, whose lists hold every body reaching past that face.
// Callers keep NaN away (clamp of NaN is undefined).
ivec3 cs_body_grid_coords(vec3 x)
{
    vec3 cell = floor((x - CS_BODY_SET.grid.origin.xyz) / CS_BODY_SET.grid.origin.w);
    return ivec3(clamp(cell, vec3(0.0), vec3(CS_BODY_SET.grid.dims.xyz) - 1.0));
}

uint cs_body_grid_index(ivec3 c)
{
    uvec3 d = CS_BODY_SET.grid.dims.xyz;
    return (uint(c.z) * d.y + uint(c.y)) * d.x + uint(c.x);
}

// The cells body b is listed in, per axis [lo, hi]: its bounding sphere
// grown by the grid's reach, and a little more (1e-3 of the radius and of a
// cell) so that rounding never leaves out a point the narrow tests accept.
// A NaN body goes in every cell (it is tested wherever it was before).
void cs_body_grid_span(uint b, out ivec3 lo, out ivec3 hi)
{
    vec4 c = CS_BODY_SET.bodies[b].centre;
    float cell = CS_BODY_SET.grid.origin.w;
    float r = (c.w + CS_BODY_SET.grid.reach.x) * 1.001 + 1e-3 * cell;
    vec3 low = c.xyz - r, high = c.xyz + r;
    if (any(isnan(low)) || any(isnan(high))) {
        lo = ivec3(0);
        hi = ivec3(CS_BODY_SET.grid.dims.xyz) - 1;
        return;
    }
    lo = cs_body_grid_coords(low);
    hi = cs_body_grid_coords(high);
}

// The bodies whose bounding sphere grown by `reach` may hold x, in body
// order: with z = 0, entries [x, y) of the grid's lists; with z = 1, the
// bodies [x, y) themselves (every body: no grid, lists that overflowed, a
// reach past the grid's, or a NaN point).
uvec3 cs_body_candidates(vec3 x, float reach)
{
    if (CS_BODY_SET.grid.dims.w != CS_BODY_GRID_READY || reach > CS_BODY_SET.grid.reach.x || any(isnan(x)))
        return uvec3(0u, CS_BODY_SET.counts.x, 1u);
    uint cell = cs_body_grid_index(cs_body_grid_coords(x));
    return uvec3(CS_BODY_SET.grid.starts[cell], CS_BODY_SET.grid.starts[cell + 1u], 0u);
}

// Candidate k of a cs_body_candidates range: a body index.
uint cs_body_candidate(uvec3 range, uint k) { return range.z != 0u ? k : CS_BODY_SET.grid.entries[k]; }

// After a point moved (pushed out of body b): its new candidates after b,
// so the walk goes on in body order from the cell it is in now.
uvec3 cs_body_candidates_after(vec3 x, float reach, uint b)
{
    uvec3 range = cs_body_candidates(x, reach);
    while (range.x < range.y && cs_body_candidate(range, range.x) <= b)
        range.x++;
    return range;
}

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

// Points inside the bounding sphere only. The particle collisions act within
// a margin outside the body, which the bounding sphere does not cover beside
// a polytope's corners, so they call cs_body_contact_within with the margin.
// When they used this one, a WCSPH particle crept to under a tenth of a
// spacing from a floating box's face beside its corner, and was snapped
// half a spacing out in one substep once inside the sphere: the pressure
// spike burst the water out there (tests/test_buoyancy.c, 2D 0.3 rho0).
vec4 cs_body_contact(uint b, vec3 x, vec3 v_rel) { return cs_body_contact_within(b, x, v_rel, 0.0); }

// Outside a polytope (contact c, c.w > 0): the distance to its surface and
// the direction away from it as seen from x, with the corners and edges
// rounded: over the planes x is in front of, |sum d_k n_k| and its
// direction (exact for a box; c itself on a face, where one plane counts).
// A margin along the farthest plane alone is a square around a corner, and
// a particle pushed out of a box's bottom edge there went down along the
// bottom's normal, into the wedge between the box and the floor (a 2 rho0
// box landed on such a wedge and rested 9 degrees tilted, test_bodies).
vec4 cs_body_rounded_distance(uint b, vec3 x, vec4 c)
{
    cs_body_gpu body = CS_BODY_SET.bodies[b];
    if (body.omega.w > 0.0 || !(c.w > 0.0)) // a sphere, or inside (no plane in front: no direction)
        return c;
    vec3 out_sum = vec3(0.0);
    for (uint k = 0u; k < body.info.y; k++) {
        vec4 p = CS_BODY_SET.planes[body.info.x + k];
        float d = dot(p.xyz, x) - p.w;
        if (d > 0.0)
            out_sum += d * p.xyz;
    }
    float len = length(out_sum);
    return len > c.w ? vec4(out_sum / len, len) : c;
}

// Pushes x out of every body it is inside or within `margin` of, along the
// contact normal, to `margin` off the surface; the velocity relative to the body's surface there loses its
// normal part into the body (reflected with restitution e) and a fraction
// `friction` (the body's) of its tangential part. Returns, per body, nothing:
// the caller sees the change of v through CS_BODY_IMPULSE(b, x, dv) when it
// defines it (collide.comp: the momentum the body receives).
// Only the broad phase's candidates are tested (the others answer FAR, so
// skipping them changes nothing); a push moves x, possibly into another
// cell, so the walk goes on with that cell's bodies after b.
void cs_bodies_collide(inout vec3 x, inout vec3 v, float e, float margin)
{
    uvec3 near = cs_body_candidates(x, margin);
    while (near.x < near.y) {
        uint b = cs_body_candidate(near, near.x);
        near.x++;
        vec3 vs = cs_body_surface_velocity(b, x);
        vec4 c = cs_body_contact_within(b, x, v - vs, margin);
        if (c.w > 0.0 && c.w < margin)
            c = cs_body_rounded_distance(b, x, c);
        c.w -= margin;
        if (!(c.w < 0.0))
            continue;
        vec3 n = c.xyz;
        x -= c.w * n;
        near = cs_body_candidates_after(x, margin, b);
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
// `touch` of the margin) and moves into it relative to its surface, the
// normal part is reflected with e. Beside a corner this takes the farthest
// plane, not cs_bodies_collide's rounded distance: rounded (so fewer
// particles touch there), PBF's 2D box of 0.3 rho0 floated +5.4% deep
// against +4.4% (test_buoyancy, bound 5%).
void cs_bodies_restitute(vec3 x, inout vec3 v, float e, float touch, float margin)
{
    uvec3 near = cs_body_candidates(x, margin + touch);
    for (uint k = near.x; k < near.y; k++) {
        uint b = cs_body_candidate(near, k);
        vec3 vs = cs_body_surface_velocity(b, x);
        vec4 c = cs_body_contact_within(b, x, v - vs, margin + touch);
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
