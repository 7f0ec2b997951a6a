#version 450
// "bodies: integrate", in stages (push constant `stage`) so that no
// invocation runs out of lavapipe's loop budget (65535 iterations in all,
// then every loop leaves early without a word: docs/architecture.md) and a
// world can hold CS_BODIES_MAX bodies. The working copy of every body lives
// in the `work` buffer between the dispatches; every stage is either one
// invocation per body writing only its own entry, or one invocation walking
// list in the fixed order, so runs give the same bytes
// (bodies.h for the scheme).
//  MOVE (one invocation per body): every moving body takes the impulses the
//     fluids' collisions gave it this substep (sums: ((fluid * dynamic) +
//     slot) * 6 + term, summed over the fluids in world order) and gravity,
//     and moves (semi-implicit Euler). A kinematic body moves to its path's
//     point at the end of the substep with the path's velocity; a static
//     one stays.
//  NARROW (one invocation per body a): every contact point (vertices and
//     edge points, bodies_shared.h) of a past a domain face, then for every
//     later body b, a's points inside b and b's inside a (the deepest-face
//     normal: the largest signed plane distance; spheres radially), into
//     a's region of the contact list; and each pair's deepest penetration.
//  SWEEP (one invocation, CS_BODIES_CONTACT_ITERATIONS dispatches): every
//     contact in body order gets a normal impulse at its point, accumulated
//     over the sweeps and kept >= 0, aiming at a separating speed of e
//     times the approach speed, and a Coulomb friction impulse
//     (CS_BODY_CONTACT_FRICTION times the normal one). An impulse at a
//     point off the centre turns the body: that lays a tilted box flat.
//  PAIRS (one invocation): each pair's deepest penetration is taken out
//     along its normal, split by inverse mass.
//  FINISH (one invocation per body): each moving body's deepest point past
//     each domain face is moved back onto it (translation only), so the box
//     has the last word; the state is written back with the world-space
//     entry of the body in the set.
#include "index.glsl"
#include "bodies_shared.h"
layout(local_size_x = CS_BODIES_INTEGRATE_GROUP) in;
layout(std430, binding = 0) readonly buffer Params { cs_bodies_params bp; };
layout(std430, binding = 1) buffer States { cs_body_state states[]; };
layout(std430, binding = 2) readonly buffer Sums { float sums[]; };
layout(std430, binding = 3) writeonly buffer Set { cs_body_set set; };
// The working copy of one body (CS_BODY_WORK_BYTES, bodies_shared.h).
struct cs_body_work {
    vec3 position; // centre of mass
    float inv_mass; // 0 for static and kinematic bodies
    vec4 orientation;
    vec3 momentum;
    float pad0;
    vec3 angular_momentum; // world
    float pad1;
    vec3 velocity;
    float pad2;
    vec3 omega;
    float pad3;
    mat3 rotation;
    mat3 inv_world; // R I^-1 R^T (0 for static and kinematic bodies)
};
layout(std430, binding = 4) buffer Work { cs_body_work work[]; };
// The contacts of this substep, found once (NARROW: the positions do not
// change while the impulses are solved), in one region of
// CS_BODY_CONTACTS_PER_BODY per body, visited in body order by every sweep:
// at = (world point, restitution), normal = (normal from b into a, 0),
// ids = (a, b: WALL for a domain face); normal_acc = (accumulated normal
// impulse, target speed), tangent_acc = accumulated friction impulse. And
// per body its pairs' deepest penetrations (PAIRS), CS_BODY_PAIRS_PER_BODY
// each: pair_push = (normal pushing a out, depth), pair_other = b.
// dropped[a]: contacts or pairs body a found past its region (not solved).
layout(std430, binding = 5) buffer Contacts {
    uint contact_count[CS_BODIES_MAX];
    uint pair_count[CS_BODIES_MAX];
    uint dropped[CS_BODIES_MAX];
    vec4 contact_at[CS_BODIES_MAX * CS_BODY_CONTACTS_PER_BODY];
    vec4 contact_normal[CS_BODIES_MAX * CS_BODY_CONTACTS_PER_BODY];
    uvec4 contact_ids[CS_BODIES_MAX * CS_BODY_CONTACTS_PER_BODY];
    vec4 normal_acc[CS_BODIES_MAX * CS_BODY_CONTACTS_PER_BODY];
    vec4 tangent_acc[CS_BODIES_MAX * CS_BODY_CONTACTS_PER_BODY];
    vec4 pair_push[CS_BODIES_MAX * CS_BODY_PAIRS_PER_BODY];
    uint pair_other[CS_BODIES_MAX * CS_BODY_PAIRS_PER_BODY];
};
// overflow[1]: contacts and pairs every body dropped, summed over the
// substeps since creation (cs_bodies_overflow; overflow[0] is the
// particles' lost impulses, records_keys.comp).
layout(std430, binding = 6) buffer Overflow { uint overflow[]; };
layout(push_constant) uniform Push { cs_bodies_integrate_push pc; };

#define WALL 0xFFFFFFFFu // the "other body" of a domain-face contact: fixed, at rest

// The working copy of every body this substep (the work buffer).
#define xs(b) work[b].position
#define inv_mass(b) work[b].inv_mass
#define qs(b) work[b].orientation
#define rs(b) work[b].rotation
#define ps(b) work[b].momentum
#define ls(b) work[b].angular_momentum
#define vs(b) work[b].velocity
#define ws(b) work[b].omega
#define inv_world(b) work[b].inv_world
bool flat2d;
uint sweep;

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

// Velocity and angular velocity from the momenta (2D: in the plane, about z).
void update_velocity(uint b)
{
    if (flat2d) {
        ps(b).z = 0.0;
        ls(b).xy = vec2(0.0);
    }
    vs(b) = ps(b) * inv_mass(b);
    ws(b) = inv_world(b) * ls(b);
    if (flat2d)
        ws(b).xy = vec2(0.0);
}

// A kinematic body's path at time t: xyz = centre of mass, and its velocity.
void path_at(cs_body_state s, float t, out vec3 x, out vec3 v)
{
    uint first = s.motion.x, n = s.motion.y;
    float end = bp.path[first + n - 1u].x;
    if (s.motion.w != 0u)
        t = mod(t, end);
    if (t >= end) {
        x = bp.path[first + n - 1u].yzw;
        v = vec3(0.0);
        return;
    }
    uint i = 0u;
    while (i + 2u < n && t >= bp.path[first + i + 1u].x)
        i++;
    vec4 k0 = bp.path[first + i], k1 = bp.path[first + i + 1u];
    float span = k1.x - k0.x;
    v = (k1.yzw - k0.yzw) / span;
    x = k0.yzw + (t - k0.x) / span * (k1.yzw - k0.yzw);
}

void apply_impulse(uint b, vec3 r, vec3 j)
{
    if (b == WALL || inv_mass(b) == 0.0)
        return;
    ps(b) += j;
    ls(b) += cross(r, j);
    update_velocity(b);
}

vec3 point_velocity(uint b, vec3 r) { return b == WALL ? vec3(0.0) : vs(b) + cross(ws(b), r); }

// 1 / (the mass a unit impulse along d at r sees), both bodies together.
float inverse_effective_mass(uint a, vec3 ra, uint b, vec3 rb, vec3 d)
{
    float k = inv_mass(a) + dot(d, cross(inv_world(a) * cross(ra, d), ra));
    if (b != WALL)
        k += inv_mass(b) + dot(d, cross(inv_world(b) * cross(rb, d), rb));
    return k;
}

uint owner; // NARROW: the body whose region takes the contacts found

// NARROW: one contact at world point `at`, normal n pointing from b into a
// (the way a must move), restitution e, into the owner's region.
void contact(uint a, uint b, vec3 at, vec3 n, float e, float mu)
{
    uint k = contact_count[owner];
    if (k >= CS_BODY_CONTACTS_PER_BODY) {
        dropped[owner]++;
        return;
    }
    uint c = owner * CS_BODY_CONTACTS_PER_BODY + k;
    contact_count[owner] = k + 1u;
    contact_at[c] = vec4(at, e);
    contact_normal[c] = vec4(n, mu);
    contact_ids[c] = uvec4(a, b, 0u, 0u);
}

// One sweep's impulse at contact c: the normal impulse accumulated over
// the sweeps and kept >= 0, then friction within the cone |Jt| <= mu Jn.
void solve(uint c)
{
    uint a = contact_ids[c].x, b = contact_ids[c].y;
    vec3 at = contact_at[c].xyz, n = contact_normal[c].xyz;
    float e = contact_at[c].w, mu = contact_normal[c].w;
    vec3 ra = at - xs(a), rb = b == WALL ? vec3(0.0) : at - xs(b);
    float un = dot(point_velocity(a, ra) - point_velocity(b, rb), n);
    float k = inverse_effective_mass(a, ra, b, rb, n);
    if (!(k > 0.0))
        return;
    if (sweep == 0u) {
        // The separating speed to reach: restitution only for a real impact
        // (faster than gravity gives in two substeps), so resting contacts rest.
        float rest_speed = 2.0 * length(bp.gravity.xyz) * bp.gravity.w;
        normal_acc[c] = vec4(0.0, un < -rest_speed ? -e * un : 0.0, 0.0, 0.0);
        tangent_acc[c] = vec4(0.0);
    }
    float target = normal_acc[c].y;
    float dj = (target - un) / k;
    float total = max(normal_acc[c].x + dj, 0.0);
    dj = total - normal_acc[c].x;
    normal_acc[c].x = total;
    apply_impulse(a, ra, dj * n);
    apply_impulse(b, rb, -dj * n);
    vec3 u = point_velocity(a, ra) - point_velocity(b, rb);
    vec3 ut = u - dot(u, n) * n;
    float slide = length(ut);
    if (!(slide > 1e-9))
        return;
    vec3 t = ut / slide;
    float kt = inverse_effective_mass(a, ra, b, rb, t);
    if (!(kt > 0.0))
        return;
    vec3 jt = -slide / kt * t;
    vec3 before = tangent_acc[c].xyz, after = before + jt;
    float limit = mu * normal_acc[c].x, len = length(after);
    if (len > limit)
        after *= limit / len;
    tangent_acc[c] = vec4(after, 0.0);
    jt = after - before;
    apply_impulse(a, ra, jt);
    apply_impulse(b, rb, -jt);
}

// The world contact points of body b: count, and point k.
uint point_count(uint b) { return states[b].shape.w; }
vec3 point_of(uint b, uint k) { return xs(b) + rs(b) * bp.local_vertices[states[b].shape.z + k].xyz; }

// The face of body b nearest to world point x (the largest signed plane
// distance; a sphere: radial): xyz = outward normal, w = signed distance.
vec4 face_of(uint b, vec3 x)
{
    float radius = states[b].extent.y;
    vec3 r = x - xs(b);
    if (radius > 0.0) {
        float len = length(r);
        return vec4(len > 0.0 ? r / len : vec3(0.0, 1.0, 0.0), len - radius);
    }
    vec4 best = vec4(0.0, 0.0, 0.0, -3.402823466e38);
    uvec4 shape = states[b].shape;
    for (uint k = 0u; k < shape.y; k++) {
        vec4 pl = bp.local_planes[shape.x + k];
        vec3 n = rs(b) * pl.xyz;
        if (flat2d)
            n.z = 0.0;
        float d = dot(n, r) - pl.w;
        if (d > best.w)
            best = vec4(n, d);
    }
    return best;
}

// Every contact of body a's points inside body b (normal out of b, into
// a); with `solve`, each gets its impulse. Returns the deepest as
// (normal pushing a out, depth), depth 0 when none.
vec4 points_inside(uint a, uint b, bool solve, float e, float mu)
{
    vec4 deepest = vec4(0.0);
    float ra = states[a].extent.y;
    if (ra > 0.0) { // a sphere: its centre against b's nearest face
        vec4 f = face_of(b, xs(a));
        float depth = ra - f.w;
        if (depth > 0.0) {
            if (solve)
                contact(a, b, xs(a) - ra * f.xyz, f.xyz, e, mu);
            deepest = vec4(f.xyz, depth);
        }
        return deepest;
    }
    for (uint k = 0u; k < point_count(a); k++) {
        vec3 x = point_of(a, k);
        vec4 f = face_of(b, x);
        if (!(f.w < 0.0))
            continue;
        if (solve)
            contact(a, b, x, f.xyz, e, mu);
        if (-f.w > deepest.w)
            deepest = vec4(f.xyz, -f.w);
    }
    return deepest;
}

// The pair (a, b): a's points in b, then (unless a is a sphere, which
// answers for both) b's points in a. Returns the deepest, pushing a out.
vec4 pair_contacts(uint a, uint b, bool solve)
{
    if (inv_mass(a) == 0.0 && inv_mass(b) == 0.0)
        return vec4(0.0);
    float reach = states[a].extent.x + states[b].extent.x;
    vec3 d = xs(a) - xs(b);
    if (dot(d, d) > reach * reach)
        return vec4(0.0);
    float e = max(states[a].momentum.w, states[b].momentum.w);
    vec4 deepest = points_inside(a, b, solve, e, CS_BODY_CONTACT_FRICTION);
    if (states[a].extent.y > 0.0)
        return deepest;
    vec4 other = points_inside(b, a, solve, e, CS_BODY_CONTACT_FRICTION);
    if (other.w > deepest.w)
        deepest = vec4(-other.xyz, other.w);
    return deepest;
}

// How far body b's lowest and highest points reach from its centre along
// axis a (a sphere: its radius).
vec2 extent_along(uint b, uint a)
{
    float radius = states[b].extent.y;
    if (radius > 0.0)
        return vec2(-radius, radius);
    vec2 lohi = vec2(0.0);
    for (uint k = 0u; k < point_count(b); k++) {
        float c = (rs(b) * bp.local_vertices[states[b].shape.z + k].xyz)[a];
        lohi = vec2(min(lohi.x, c), max(lohi.y, c));
    }
    return lohi;
}

// Every point of moving body b past a domain face: an impulse each.
void wall_contacts(uint b)
{
    float e = states[b].momentum.w, radius = states[b].extent.y;
    for (uint a = 0u; a < (flat2d ? 2u : 3u); a++)
        for (uint side = 0u; side < 2u; side++) {
            vec3 n = vec3(0.0);
            n[a] = side == 0u ? 1.0 : -1.0; // into the domain
            float face = side == 0u ? bp.domain_min[a] : bp.domain_max[a];
            if (n[a] * (face - xs(b)[a]) + states[b].extent.x <= 0.0)
                continue; // broad phase: the bounding sphere does not reach the face
            if (radius > 0.0) {
                vec3 x = xs(b) - radius * n;
                if (n[a] * (face - x[a]) > 0.0)
                    contact(b, WALL, x, n, e, CS_BODY_CONTACT_FRICTION);
                continue;
            }
            for (uint k = 0u; k < point_count(b); k++) {
                vec3 x = point_of(b, k);
                if (n[a] * (face - x[a]) > 0.0)
                    contact(b, WALL, x, n, e, CS_BODY_CONTACT_FRICTION);
            }
        }
}

// Translation only: each moving body's deepest point past each face back onto it.
void keep_in_domain(uint b)
{
    for (uint a = 0u; a < (flat2d ? 2u : 3u); a++) {
        vec2 lohi = extent_along(b, a);
        float below = bp.domain_min[a] - (xs(b)[a] + lohi.x), above = (xs(b)[a] + lohi.y) - bp.domain_max[a];
        if (below > 0.0)
            xs(b)[a] += below;
        if (above > 0.0)
            xs(b)[a] -= above;
    }
}

// MOVE: body b's working copy from its state, moved through the substep.
void move(uint b)
{
    float dt = bp.gravity.w;
    cs_body_state s = states[b];
    float mass = s.position.w;
    xs(b) = s.position.xyz;
    inv_mass(b) = mass > 0.0 ? 1.0 / mass : 0.0;
    qs(b) = s.orientation;
    ps(b) = s.momentum.xyz;
    ls(b) = s.angular_momentum.xyz;
    rs(b) = quat_to_mat(qs(b));
    inv_world(b) = mat3(0.0);
    vs(b) = vec3(0.0);
    ws(b) = vec3(0.0);
    if (s.motion.y > 0u) {
        // Kinematic: where the path is at the end of this substep.
        vec3 x, v;
        path_at(s, float(s.motion.z + 1u) * dt, x, v);
        xs(b) = x;
        vs(b) = v;
        ps(b) = vec3(0.0);
        ls(b) = vec3(0.0);
        return;
    }
    if (mass == 0.0)
        return;
    vec3 j = vec3(0.0), ja = vec3(0.0);
    uint slot = uint(s.extent.z); // its impulse slot (moving bodies in scene order)
    uint terms = bp.counts.w * CS_BODIES_IMPULSE_TERMS;
    for (uint f = 0u; f < bp.counts.y; f++) {
        uint base = f * terms + slot * CS_BODIES_IMPULSE_TERMS;
        j += vec3(sums[base], sums[base + 1u], sums[base + 2u]);
        ja += vec3(sums[base + 3u], sums[base + 4u], sums[base + 5u]);
    }
    ps(b) += j + mass * bp.gravity.xyz * dt;
    ls(b) += ja;
    mat3 inv_body = transpose(mat3(s.inv_inertia[0].xyz, s.inv_inertia[1].xyz, s.inv_inertia[2].xyz));
    inv_world(b) = rs(b) * inv_body * transpose(rs(b));
    update_velocity(b);
    xs(b) += vs(b) * dt;
    qs(b) = normalize(qs(b) + 0.5 * dt * quat_mul(vec4(ws(b), 0.0), qs(b)));
    rs(b) = quat_to_mat(qs(b));
    inv_world(b) = rs(b) * inv_body * transpose(rs(b));
    update_velocity(b);
}

// NARROW: body a's contacts with the domain faces and with every later
// body, and each of those pairs' deepest penetration, into a's regions.
void narrow(uint a, uint count)
{
    owner = a;
    contact_count[a] = 0u;
    pair_count[a] = 0u;
    dropped[a] = 0u;
    if (inv_mass(a) > 0.0)
        wall_contacts(a);
    for (uint b = a + 1u; b < count; b++) {
        vec4 deepest = pair_contacts(a, b, true);
        if (!(deepest.w > 0.0) || !(inv_mass(a) + inv_mass(b) > 0.0))
            continue;
        uint k = pair_count[a];
        if (k >= CS_BODY_PAIRS_PER_BODY) {
            dropped[a]++;
            continue;
        }
        pair_push[a * CS_BODY_PAIRS_PER_BODY + k] = deepest;
        pair_other[a * CS_BODY_PAIRS_PER_BODY + k] = b;
        pair_count[a] = k + 1u;
    }
    // Counted for the host (a tally: the order of the adds changes no result).
    if (dropped[a] > 0u)
        atomicAdd(overflow[1], dropped[a]);
}

// SWEEP: every contact once, in body order.
void sweep_contacts(uint count)
{
    for (uint a = 0u; a < count; a++) {
        uint first = a * CS_BODY_CONTACTS_PER_BODY, n = contact_count[a];
        for (uint k = 0u; k < n; k++)
            solve(first + k);
    }
}

// PAIRS: each pair's deepest penetration (found before any was taken out)
// out along its normal, split by inverse mass, in body order.
void separate(uint count)
{
    for (uint a = 0u; a < count; a++) {
        uint first = a * CS_BODY_PAIRS_PER_BODY, n = pair_count[a];
        for (uint k = 0u; k < n; k++) {
            vec4 deepest = pair_push[first + k];
            uint b = pair_other[first + k];
            float total = inv_mass(a) + inv_mass(b);
            xs(a) += deepest.w * inv_mass(a) / total * deepest.xyz;
            xs(b) -= deepest.w * inv_mass(b) / total * deepest.xyz;
        }
    }
}

// FINISH: body b inside the domain, written back, and its entry in the set.
void finish(uint b, uint count)
{
    if (inv_mass(b) > 0.0)
        keep_in_domain(b);
    cs_body_state s = states[b];
    if (flat2d) {
        xs(b).z = 0.0;
        vs(b).z = 0.0;
        ws(b).xy = vec2(0.0);
    }
    vec3 x = xs(b);
    mat3 r = rs(b);
    states[b].position = vec4(x, s.position.w);
    states[b].orientation = qs(b);
    states[b].momentum = vec4(ps(b), s.momentum.w);
    states[b].angular_momentum = vec4(ls(b), s.angular_momentum.w);
    states[b].motion.z = s.motion.z + 1u;
    set.bodies[b].centre = vec4(x, s.extent.x);
    set.bodies[b].velocity = vec4(vs(b), s.angular_momentum.w);
    set.bodies[b].omega = vec4(ws(b), s.extent.y);
    set.bodies[b].info = uvec4(s.shape.x, s.shape.y, s.position.w > 0.0 ? CS_BODY_DYNAMIC : 0u, uint(s.extent.z));
    for (uint k = 0u; k < s.shape.y; k++) {
        vec4 pl = bp.local_planes[s.shape.x + k];
        vec3 n = r * pl.xyz;
        if (flat2d)
            n.z = 0.0;
        set.planes[s.shape.x + k] = vec4(n, pl.w + dot(n, x));
    }
    if (b == 0u) {
        uint planes = 0u;
        for (uint k = 0u; k < count; k++)
            planes += states[k].shape.y;
        set.counts = uvec4(count, planes, bp.counts.z, bp.counts.w);
    }
}

void main()
{
    uint count = bp.counts.x;
    flat2d = bp.counts.z == 2u;
    sweep = pc.sweep;
    uint i = cs_linear_index();
    if (pc.stage == CS_BODIES_STAGE_MOVE) {
        if (i < count)
            move(i);
    } else if (pc.stage == CS_BODIES_STAGE_NARROW) {
        if (i < count)
            narrow(i, count);
    } else if (pc.stage == CS_BODIES_STAGE_FINISH) {
        if (i < count)
            finish(i, count);
    } else if (i == 0u) {
        if (pc.stage == CS_BODIES_STAGE_SWEEP)
            sweep_contacts(count);
        else
            separate(count);
    }
}
