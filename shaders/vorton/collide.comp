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
//             of its velocity relative to the surface at the contact
//             point); a layer of thickness sigma that brings it to the
//             body's velocity at the wall carries the vorticity
//             (n x u_t) / sigma. The vorton's tangential vorticity becomes
//             that, blended by the body's friction f (1: no-slip, 0: free
//             slip, the vorticity kept): w_t = (1 - f) w_t + f (n x u_t) /
//             sigma. Set, not added: it stays bounded by |u_t| / sigma (the
//             inverse of the vorton's own regularised kernel at sigma, tried
//             first, asked for 18x that and blew up within 100 steps);
//   heat      with a body temperature T_b > 0, T relaxes to it at the
//             rate kappa / sigma^2 (the PSE rate over one core): T += (T_b -
//             T)(1 - exp(-kappa dt / sigma^2)); T_b = 0: adiabatic.
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
#ifndef TRACERS
layout(std430, binding = 1) buffer Vort { vec4 vort[]; };
#endif

#define CS_BODY_SET body_set
#define CS_BODY_DT (pc.gravity_dt.w)
#include "../bodies/bodies.glsl"

#ifdef TRACERS
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
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.counts.y)
        return;
    vec4 p = pos[i], w = vort[i];
    vec3 x = p.xyz, u = vel[i].xyz;
    float sigma = p.w;
    float kappa = pc.physics.y, dt = pc.gravity_dt.w;
    for (uint b = 0u; b < cs_body_count(); b++) {
        // Within sigma of the surface, also outside the bounding sphere.
        vec4 c = cs_body_contact_within(b, x, u - cs_body_surface_velocity(b, x), sigma);
        if (!(c.w < sigma))
            continue;
        vec3 n = c.xyz;
        x += (sigma - c.w) * n;
        vec3 contact = x - sigma * n;
        vec3 omega_body = body_set.bodies[b].omega.xyz;
        vec3 rel = u - cs_body_surface_velocity(b, contact);
        vec3 u_t = rel - dot(rel, n) * n;
        float friction = body_set.bodies[b].velocity.w;
        vec3 w_t = w.xyz - dot(w.xyz, n) * n;
        w_t = (1.0 - friction) * w_t + friction * cross(n, u_t) / sigma;
        w.xyz = dot(2.0 * omega_body, n) * n + w_t;
        float t_body = body_thermal[b].x;
        if (t_body > 0.0)
            w.w += (t_body - w.w) * (1.0 - exp(-kappa * dt / (sigma * sigma)));
    }
    pos[i] = vec4(x, sigma);
    vort[i] = w;
}
#endif
