// body_share.glsl — a rigid body's volume as rest fluid in a particle's
// kernel, for the solvers whose density counts the bodies (PBF: lambda.comp
// and delta.comp through pbf_bodies.glsl; WCSPH: wcsph.glsl).
//
// Before including, bodies.glsl (CS_BODY_SET) must be in, CS_H defined, and
// the includer must define (anywhere in the shader, the prototype is here)
//   vec2 cs_body_share_table(float d)
// a half-space's (share S, gradient integral G) at distance d >= 0 from
// its plane, from the solver's own wall table: S the fraction of the
// kernel the half-space fills, G (in units of 1/h) the size of its
// density gradient (PBF: fluid.glsl cs_boundary_sample; WCSPH: wcsph_wall).
//
// A convex polytope is the intersection of its planes' inner half-spaces;
// its share is the product over its planes of each half-space's share,
// phi_k = S(d_k) for a plane x is in front of (d_k > 0) and 1 - S(-d_k)
// for one it is behind (separable, as the walls' 1 - prod (1 - S)). Exact
// for a single face; at an edge both sides of the rim read half of the
// face's share and what the rim loses inside the footprint comes back
// past the edge, so over a line across the rim the share integrates to
// the footprint. (The nearest face alone gave the whole S past the edges:
// 7% of a floating box's lift on top of the hydrostatic force in WCSPH.)
// The plane x is farthest in front of counts as at least 0, so a particle
// inside a body before the collision moves it out reads as on the face.
// The gradient of the product: share * sum_k (G_k / phi_k) n_k, G with the
// same sign on both sides of a plane. A sphere: its tangent plane.
//
// cs_body_share(b, x) returns (share * sum_k (G_k / phi_k) n_k, share):
// the vector points out of the body, in the table's units (times 1/h it is
// minus the gradient of the share); 0 beyond h of the body.
#ifndef CS_BODY_SHARE_GLSL
#define CS_BODY_SHARE_GLSL

vec2 cs_body_share_table(float d);

vec4 cs_body_share(uint b, vec3 x)
{
    cs_body_gpu body = CS_BODY_SET.bodies[b];
    vec3 r = x - body.centre.xyz;
    float reach = body.centre.w + CS_H;
    if (!(dot(r, r) <= reach * reach))
        return vec4(0.0);
    if (body.omega.w > 0.0) {
        float len = length(r);
        vec3 n = len > 0.0 ? r / len : vec3(0.0, 1.0, 0.0);
        float d = max(len - body.omega.w, 0.0);
        if (!(d < CS_H))
            return vec4(0.0);
        vec2 s = cs_body_share_table(d);
        return vec4(s.y * n, s.x);
    }
    float front = -CS_BODY_FAR;
    for (uint k = 0u; k < body.info.y; k++) {
        vec4 p = CS_BODY_SET.planes[body.info.x + k];
        front = max(front, dot(p.xyz, x) - p.w);
    }
    if (!(front < CS_H))
        return vec4(0.0);
    float share = 1.0;
    vec3 out_sum = vec3(0.0);
    bool clamped = false;
    for (uint k = 0u; k < body.info.y; k++) {
        vec4 p = CS_BODY_SET.planes[body.info.x + k];
        float d = dot(p.xyz, x) - p.w;
        if (d == front && !clamped) {
            d = max(d, 0.0);
            clamped = true;
        }
        vec2 s = cs_body_share_table(abs(d));
        float phi = d >= 0.0 ? s.x : 1.0 - s.x;
        if (!(phi > 0.0))
            return vec4(0.0);
        share *= phi;
        out_sum += (s.y / phi) * p.xyz;
    }
    return vec4(share * out_sum, share);
}

#endif
