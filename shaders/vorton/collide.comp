#version 450
// collide.comp — vortons (or, with TRACERS, tracers) against the scene's
// rigid bodies, after each whole step ("vorton: bodies"). The contact query
// is the fluids' (bodies.glsl cs_body_contact: a sphere's radial distance,
// a polytope's largest plane distance with the deep rule). docs/vortons.md
// "Bodies" has the model:
//   eject     a vorton closer than its radius sigma to a body's surface
//             moves along the contact normal to sigma from it (a tracer
//             inside moves just out: 1e-4 of the body's bounding radius);
//   no-through the vorticity's normal part becomes the body's: at a solid
//             surface n . omega = n . 2 Omega (Omega: its angular velocity);
//   no-slip   the fluid slips past the surface at u_t (the tangential part
//             of its velocity at the vorton relative to the surface at the
//             contact point); a layer of thickness sigma that brings it to
//             the body's velocity at the wall carries the vorticity
//             (n x u_t) / sigma. VORTON_NO_SLIP_SET ("no_slip": "set"):
//             the tangential vorticity is replaced by it, blended by the
//             body's friction f (1: no-slip, 0: free slip), w_t = (1 - f)
//             w_t + f (n x u_t) / sigma; that throws away the fluid's own
//             vorticity there and turns a body at rest in a swirl the wrong
//             way. VORTON_NO_SLIP_FLUX ("flux"): the slip u_s is measured at
//             the contact point (WALL_POINTS + a velocity solve there); it
//             is the jump across a viscous layer thinner than a core, whose
//             stress (Rayleigh's, rho nu |u_s| / sqrt(pi nu t)) hands the
//             fluid an impulse J per area with d(J^2)/dt = (4 / pi) nu
//             |u_s|^2. Each step the growth of J goes, as vorticity along
//             n x u_s, to the vortons near the wall, spread over those
//             within sigma + 2 L of the surface (weight w_i, vorton_shared.h)
//             and normalised by the weighted number of vortons sharing that
//             patch of wall, S_i (wall_share.comp): share w_i / max(S_i,
//             w_i); the vorton's vorticity along n x u_s is the J it holds
//             (add_wall_flux has the sizes). On a lattice of spacing sigma
//             S = 1; max(S, w) caps a lone vorton at its own patch. |omega|
//             is then capped at the layer that cancels the slip over one
//             core (never past it);
//   heat      with a body temperature T_b > 0, T relaxes to it at the
//             rate kappa / sigma^2 (the PSE rate over one core): T += (T_b -
//             T)(1 - exp(-kappa dt / sigma^2)); T_b = 0: adiabatic.
//   two-way   (docs/vortons.md "Bodies") what the vorton's change implies
//             for the fluid's momentum goes to a moving body with the
//             opposite sign: the hydrodynamic impulse of a vorton about the
//             body's centre of mass c, r = x - c, alpha = omega V, is
//             P = rho/2 r x alpha (linear) and A = rho/3 r x (r x alpha)
//             (angular; Saffman, Vortex Dynamics 3.2 and 3.5); the body
//             gets -(P_after - P_before) and -(A_after - A_before) through
//             the contact records (VORTON_BODIES_IMPULSES; body_records.glsl:
//             the bodies module clears them each substep and sums them per
//             body). The heat
//             the vorton took, V (T_after - T_before) (in units of rho c_p),
//             goes to the body's heat term (VORTON_BODIES_HEAT), reduced by
//             "vorton: body heat". Every heat term is written (0 without
//             contact), so those need no clearing.
// Bodies in index order, so the result is the same every run.
#include "vorton_shared.h"
#include "../bodies/bodies_shared.h"

layout(local_size_x = VORTON_WG) in;
layout(push_constant) uniform PushBlock { vorton_push pc; };

layout(std430, binding = 0) buffer Pos { vec4 pos[]; };
layout(std430, binding = 2) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = 3) readonly buffer Bodies
{
    cs_body_set body_set;
    vec4 body_thermal[CS_BODIES_MAX]; // x = temperature (K; 0: adiabatic)
};
#ifdef WALL_POINTS
// Per vorton: the contact point on the first body whose band it is in
// (w: body + 1), else its own position (w: 0); the velocity solve fills
// the velocity there for the no-slip "flux" rule. wall_weight: the
// vorton's spreading weight w (0 outside every band).
layout(std430, binding = 1) writeonly buffer WallPos { vec4 wall_pos[]; };
layout(std430, binding = 4) writeonly buffer WallWeight { float wall_weight[]; };
#elif !defined(TRACERS)
layout(std430, binding = 1) buffer Vort { vec4 vort[]; };
// Contact records (bodies_shared.h, sim.h cs_body_link): what vorton i gives
// the moving bodies, summed per body by the bodies module.
layout(std430, binding = 4) buffer Impulses { float impulses[]; };
// body * capacity + i: the heat V dT vorton i took from body b
layout(std430, binding = 5) writeonly buffer HeatTerms { float heat_terms[]; };
// WALL_POINTS's output and the velocity there (no-slip "flux" rule only).
layout(std430, binding = 6) readonly buffer WallTag { vec4 wall_tag[]; };
layout(std430, binding = 7) readonly buffer WallVel { vec4 wall_vel[]; };
// The spreading weight w_i and the patch's weighted count S_i (wall_share.comp).
layout(std430, binding = 8) readonly buffer WallWeight { float wall_weight[]; };
layout(std430, binding = 9) readonly buffer WallShare { float wall_share[]; };
// The vortons' vorticity at the start of the step (the flux rule's cap).
layout(std430, binding = 10) readonly buffer VortStart { vec4 vort_start[]; };
#endif

#define CS_BODY_SET body_set
#define CS_BODY_DT (pc.gravity_dt.w)
#include "../bodies/bodies.glsl"
#if !defined(TRACERS) && !defined(WALL_POINTS)
#include "../bodies/body_records.glsl"
#endif

// The flux rule's spreading length L (vorton_shared.h).
float wall_spread_length(float sigma)
{
    float nu = pc.physics.x, dt = pc.gravity_dt.w;
    return max(sqrt(4.0 * nu * dt), float(VORTON_WALL_SPREAD_FRACTION) * sigma);
}

// How far past the surface the flux rule reaches (the band of one core,
// where the eject puts vortons, plus the spreading).
float wall_reach(float sigma) { return sigma + float(VORTON_WALL_SPREAD_REACH) * wall_spread_length(sigma); }

#if defined(WALL_POINTS)
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.counts.y)
        return;
    vec4 p = pos[i];
    vec3 x = p.xyz, u = vel[i].xyz;
    float sigma = p.w;
    vec4 point = vec4(x, 0.0);
    float weight = 0.0;
    float reach = wall_reach(sigma), spread = wall_spread_length(sigma);
    for (uint b = 0u; b < cs_body_count(); b++) {
        // The same query as collide_one: the contact point (the surface
        // point below the vorton along n; the eject moves it along n).
        vec4 c = cs_body_contact_within(b, x, u - cs_body_surface_velocity(b, x), reach);
        if (c.w < reach) {
            point = vec4(x - c.w * c.xyz, float(b + 1u));
            float above = (max(c.w, sigma) - sigma) / spread; // after the eject
            weight = exp(-above * above);
            break;
        }
    }
    wall_pos[i] = point;
    wall_weight[i] = weight;
}
#elif defined(TRACERS)
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.counts.y)
        return;
    vec3 x = pos[i].xyz, u = vel[i].xyz;
    for (uint b = 0u; b < cs_body_count(); b++) {
        vec4 c = cs_body_contact(b, x, u - cs_body_surface_velocity(b, x));
        if (c.w < 0.0)
            x += (1e-4 * body_set.bodies[b].centre.w - c.w) * c.xyz;
    }
    pos[i].xyz = x;
}
#else
// The impulse the two-way accounting counts for a unit of vorticity
// strength alpha = e (a unit vector) at r (from the body's centre of mass),
// matched to a unit of wall impulse per unit area along -s (the wall drags
// the fluid against its slip s) on a unit of wall at r_c: the k with
// alpha = k J A that makes the vorton's angular impulse rho/3 r x (r x
// alpha) and linear impulse rho/2 r x alpha closest (least squares, the
// angular part over the lever |r_c|) to the wall's r_c x (-s) J A and -s J A.
// For a sphere of radius R with the vorton at r (normal), k is between
// 3 R / r^2 (angular alone) and 2 / r (linear alone): 12.1 1/m for R 0.12,
// r 0.17. A flat wall in its own frame (the planar picture: impulse rho d
// gamma per area for a sheet gamma at height d) would say 1/d; the free-space
// impulse about the centre (no bound vorticity of the body) counts a
// vorton's vorticity at the lever r instead, so the rule is sized to what
// the body is given.
float wall_impulse_per_vorticity(vec3 r, vec3 r_c, vec3 e, vec3 s)
{
    vec3 angular = cross(r, cross(r, e)) / 3.0, linear = 0.5 * cross(r, e);
    vec3 wall_angular = cross(r_c, -s), wall_linear = -s;
    float lever2 = max(dot(r_c, r_c), 1e-12);
    float fit = dot(angular, wall_angular) / lever2 + dot(linear, wall_linear);
    float norm = dot(angular, angular) / lever2 + dot(linear, linear);
    return norm > 0.0 ? fit / norm : 0.0;
}

// The "flux" rule for vorton (x, w) at distance d >= sigma from its patch
// of wall at `contact` (normal n): the wall's slip u_s (the fluid's velocity
// at the contact point less the surface's, tangential) is the jump across
// a viscous layer below the vortons, thinner than a core. Such a layer
// (Rayleigh's, impulsively started: thickness delta = sqrt(pi nu t)) drags
// the fluid with the stress tau = rho nu |u_s| / delta, and the impulse per
// area it has handed the fluid, J = 2 |u_s| sqrt(nu t / pi), grows as
// d(J^2)/dt = (4 / pi) nu |u_s|^2 (the layer's momentum in place of its
// age). The vorton holds its patch's J as the sheet's part of its vorticity,
// omega_e = w . e with e = n x u_s / |u_s|: J share = omega_e sigma / k (k:
// wall_impulse_per_vorticity, the vorticity per impulse the accounting
// counts; share = w_i / max(S_i, w_i), the vorton's part of its patch's
// area sigma^2). Over the step J goes to sqrt(J^2 + (4 / pi) nu dt
// |u_s|^2) and the vorton gets its share of the growth as vorticity along
// e, so the body (given minus the vorton's impulse change) feels the
// layer's stress. The wall makes the sheet (f: the friction); it never
// takes away what the flow brought (the sheet part of a vorton turning the
// other way counts as no layer). Before this (round 4-5) each step added
// the whole sheet n x u_s / sigma, which stops the slip within one core,
// 3.6 times the Rayleigh layer at 0.12 s in test_vorton_spin: the sphere
// lost 4.7 times the layer's spin.
//
// Then the vorton's |omega| is capped at the larger of what it carried at
// the step's start (`start`: the flow's own vorticity is never taken away)
// and the layer that cancels a slip of that size over one core, twice |u| /
// sigma for the larger of the slip at the wall and at the vorton (a
// free-space sheet takes half its jump off each side). Why a cap: a lone
// vorton's kernel changes the velocity at its own contact point by only
// ~1/35 of its layer, so a vorton pinned at a wall that the outer flow
// keeps slipping past (an edge, a sparse patch) would gather layer after
// layer, and stretching between vortons the eject piles up would grow
// them further (the ring on the wedge of test_vorton_bodies: |omega| 60 ->
// 1e3 in 80 steps without stretching, NaN with it).
void add_wall_flux(uint b, vec3 n, vec3 x, vec3 contact, vec3 u, vec3 u_wall, float share, float sigma, float start,
                   inout vec4 w)
{
    vec3 surface = cs_body_surface_velocity(b, contact);
    vec3 rel = u_wall - surface, rel_here = u - surface;
    vec3 u_s = rel - dot(rel, n) * n;
    vec3 u_here = rel_here - dot(rel_here, n) * n;
    float slip = length(u_s);
    vec3 grown = w.xyz;
    if (slip > 0.0 && share > 0.0) {
        vec3 s = u_s / slip, e = cross(n, s);
        vec3 centre = body_set.bodies[b].centre.xyz;
        float k = wall_impulse_per_vorticity(x - centre, contact - centre, e, s);
        if (k > 0.0) {
            float nu = pc.physics.x, dt = pc.gravity_dt.w;
            float friction = body_set.bodies[b].velocity.w;
            float held = max(dot(w.xyz, e), 0.0) * sigma / k; // J share: the layer's impulse this vorton holds
            float grown_by = sqrt(held * held + 4.0 / float(VORTON_PI) * nu * dt * slip * slip * share * share) - held;
            grown += friction * k * grown_by / sigma * e;
        }
    }
    float cap = max(2.0 * max(slip, length(u_here)) / sigma, start);
    float size = length(grown);
    if (size > cap)
        grown *= cap / size;
    w.xyz = grown;
}

// Vorton (x, w) moving at u against body b: eject, no-through, no-slip, heat.
// u_wall: the fluid's velocity at the contact point and share = w_i /
// max(S_i, w_i) (the "flux" rule; only for the body WALL_POINTS chose,
// wall_body; else the vorton's own u and 0).
void collide_one(uint b, inout vec3 x, inout vec4 w, vec3 u, vec3 u_wall, uint wall_body, float share, float start,
                 float sigma, float kappa, float dt)
{
    bool flux = pc.body_slots.z == VORTON_NO_SLIP_FLUX;
    bool spread = flux && wall_body == b + 1u;
    // Within sigma of the surface (the flux rule: within its reach), also
    // outside the bounding sphere.
    float reach = spread ? wall_reach(sigma) : sigma;
    vec4 c = cs_body_contact_within(b, x, u - cs_body_surface_velocity(b, x), reach);
    if (!(c.w < reach))
        return;
    vec3 n = c.xyz;
    if (c.w < sigma) {
        x += (sigma - c.w) * n;
        vec3 contact = x - sigma * n;
        if (!flux) {
            // "set": the no-through (normal part) and the no-slip
            // (tangential part) both replace what the vorton carried.
            vec3 w_t = w.xyz - dot(w.xyz, n) * n;
            vec3 rel = u - cs_body_surface_velocity(b, contact);
            vec3 u_t = rel - dot(rel, n) * n;
            float friction = body_set.bodies[b].velocity.w;
            w_t = (1.0 - friction) * w_t + friction * cross(n, u_t) / sigma;
            w.xyz = dot(2.0 * body_set.bodies[b].omega.xyz, n) * n + w_t;
        }
        float t_body = body_thermal[b].x;
        if (t_body > 0.0)
            w.w += (t_body - w.w) * (1.0 - exp(-kappa * dt / (sigma * sigma)));
    }
    if (spread)
        add_wall_flux(b, n, x, x - max(c.w, sigma) * n, u, u_wall, share, sigma, start, w);
}

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.counts.y)
        return;
    vec4 p = pos[i], w = vort[i];
    vec3 x = p.xyz, u = vel[i].xyz;
    float sigma = p.w;
    float kappa = pc.physics.y, dt = pc.gravity_dt.w;
    float volume = sigma * sigma * sigma, rho = pc.fluid.x;
    uint cap = pc.body_slots.x;
    bool flux = pc.body_slots.z == VORTON_NO_SLIP_FLUX;
    vec3 u_wall = flux ? wall_vel[i].xyz : u;
    uint wall_body = flux ? uint(wall_tag[i].w) : 0u;
    float weight = flux ? wall_weight[i] : 0.0;
    float share = weight > 0.0 ? weight / max(wall_share[i], weight) : 0.0;
    float start = flux ? length(vort_start[i].xyz) : 0.0;
    for (uint b = 0u; b < cs_body_count(); b++) {
        vec3 centre = body_set.bodies[b].centre.xyz;
        vec3 r0 = x - centre, alpha0 = w.xyz * volume;
        float t0 = w.w;
        vec3 impulse0 = 0.5 * cross(r0, alpha0), angular0 = cross(r0, cross(r0, alpha0)) / 3.0;
        collide_one(b, x, w, u, u_wall, wall_body, share, start, sigma, kappa, dt);
        vec3 r1 = x - centre, alpha1 = w.xyz * volume;
        vec3 linear = -rho * (0.5 * cross(r1, alpha1) - impulse0);
        vec3 angular = -rho * (cross(r1, cross(r1, alpha1)) / 3.0 - angular0);
        cs_body_gpu body = body_set.bodies[b];
        // A vorton the body left alone gives exactly 0 (same x and w): no
        // record, so the records hold only the bodies it touched.
        bool touched = any(notEqual(linear, vec3(0.0))) || any(notEqual(angular, vec3(0.0)));
        if ((pc.body_slots.y & VORTON_BODIES_IMPULSES) != 0u && (body.info.z & CS_BODY_DYNAMIC) != 0u && touched)
            cs_body_record_add(i, body.info.w, linear, angular);
        if ((pc.body_slots.y & VORTON_BODIES_HEAT) != 0u)
            heat_terms[b * cap + i] = volume * (w.w - t0);
    }
    pos[i] = vec4(x, sigma);
    vort[i] = w;
}
#endif

