// fluid.glsl — what every fluid shader shares: the constant parameters
// buffer (cs_fluid_params, fluid_shared.h), the SPH kernels with their 2D
// and 3D normalisations, and the wall models: collisions and the boundary
// density, both walking the boundary set (shaders/common/boundary.glsl).
//
// Before including, a shader may #define CS_FLUID_PARAMS_BINDING (default 0).
// DIM (2 or 3) is defined by cs_fluid_program(). In 2D every z is 0.
#ifndef CS_FLUID_GLSL
#define CS_FLUID_GLSL

#include "fluid_shared.h"

#ifndef DIM
#define DIM 3 // cs_fluid_program always defines it; 3 lets the tree-wide compile test build each shader
#endif
#ifndef CS_FLUID_PARAMS_BINDING
#define CS_FLUID_PARAMS_BINDING 0
#endif

layout(std430, binding = CS_FLUID_PARAMS_BINDING) readonly buffer FluidParams { cs_fluid_params fp; };

// The boundary set (domain box faces + walls) lives in the same buffer.
#define CS_BOUNDARY_SET (fp.boundary_set)
#include "boundary.glsl"

// The rigid bodies (bodies_shared.h): not in the constants but one buffer
// that every fluid of the world reads, bound at CS_BODY_SET_BINDING by
// cs_fluid_dispatch in every pass whose shader reads it. It is the fluid's
// own copy of the initial set until the bodies first move, then the set
// "bodies: integrate" writes (pipelines/bodies/bodies.h), for all fluids.
layout(std430, binding = CS_BODY_SET_BINDING) readonly buffer BodySet { cs_body_set fluid_body_set; };
#define CS_BODY_SET (fluid_body_set)
#define CS_BODY_DT (fp.domain_max.w)
#include "../bodies/bodies.glsl"

#define CS_H (fp.domain_min.w)
#define CS_DT (fp.domain_max.w)
#define CS_RESTITUTION (fp.gravity.w)

// The real-time mode's speed clamp (fluid.c speed_limit): |v| at most
// fp.wall.y, the direction kept; 0 is no clamp (the physical mode: the
// branch is not taken, v comes back as it went in). A NaN speed fails the
// test and stays NaN, for the run check to see. The scaled vector's length
// may exceed the limit by a rounding (a few parts in 10^7).
vec3 cs_clamp_speed(vec3 v)
{
    float limit = fp.wall.y;
    float s2 = dot(v, v);
    if (limit > 0.0 && s2 > limit * limit)
        v *= limit / sqrt(s2);
    return v;
}
#define CS_MASS(m) (fp.materials[m].x)
#define CS_REST_DENSITY(m) (fp.materials[m].y)
#define CS_REST_VOLUME(m) (fp.materials[m].z)

// Per-material values inside neighbour loops. lavapipe (Mesa's gallivm)
// reads a storage buffer one lane at a time, a branchy scalar loop per
// component, so a table lookup params.materials[m_j] per neighbour cost more
// than the rest of the visit (Clavet density: 14.9 of 22.7 ms a frame in
// double_emitter_2d). Shaders copy the few values they need into registers
// before the loop and pick with cs_pick_material: a chain of selects over the
// scene's CS_MATERIAL_COUNT materials (cs_fluid_program defines it), no memory
// access. Same values, so the same bits as the lookup.
#ifndef CS_MATERIAL_COUNT
#define CS_MATERIAL_COUNT CS_FLUID_MAX_MATERIALS
#endif
float cs_pick_material(float table[CS_FLUID_MAX_MATERIALS], uint m)
{
    float v = table[0];
    for (uint k = 1u; k < uint(CS_MATERIAL_COUNT); k++)
        v = m == k ? table[k] : v;
    return v;
}
vec4 cs_pick_material4(vec4 table[CS_FLUID_MAX_MATERIALS], uint m)
{
    vec4 v = table[0];
    for (uint k = 1u; k < uint(CS_MATERIAL_COUNT); k++)
        v = m == k ? table[k] : v;
    return v;
}

// A particle's vec4 position or velocity as the vec3 the arithmetic uses.
// In 2D z is 0 everywhere, so only x and y are read (one storage-buffer
// component less per neighbour on lavapipe) and the sums keep their bits.
#if DIM == 2
#define CS_FLUID_XYZ(v) vec3((v).xy, 0.0)
#else
#define CS_FLUID_XYZ(v) ((v).xyz)
#endif

// Cell of a position in the fluid's neighbour grid (grid.glsl).
#define CS_FLUID_CELL(x) cs_grid_cell((x), fp.grid_origin.xyz, fp.grid_origin.w, fp.grid_dims.xyz)

// Poly6 of r^2: K (h^2 - r^2)^3 for r < h. K = 315 / (64 pi h^9) in 3D,
// 4 / (pi h^8) in 2D (both integrate to 1 over the disc / ball).
// Neighbour loops take the kernels' constants as a cs_kernels read once
// before the loop (cs_kernels_load): inside it every fp.* read would be a
// storage-buffer read per neighbour on lavapipe (see cs_pick_material).
struct cs_kernels {
    float h, h2, poly6, spiky_grad; // h, h^2, poly6's K, spiky's 3K
};
cs_kernels cs_kernels_load() { return cs_kernels(CS_H, fp.kernel.z, fp.kernel.x, fp.kernel.y); }

float cs_poly6_k(cs_kernels k, float r2)
{
    float d = k.h2 - r2;
    return d > 0.0 ? k.poly6 * d * d * d : 0.0;
}
float cs_poly6(float r2) { return cs_poly6_k(cs_kernels_load(), r2); }

// Gradient of the spiky kernel K (h - r)^3 with respect to x_i, for
// r = x_i - x_j: -3K (h - |r|)^2 r / |r| (points from i towards j).
// 3K = 45 / (pi h^6) in 3D, 30 / (pi h^5) in 2D. Zero at r = 0 and r >= h.
vec3 cs_spiky_grad(vec3 r, float len)
{
    if (len <= 0.0 || len >= CS_H)
        return vec3(0.0);
    float d = CS_H - len;
    return (-fp.kernel.y * d * d / len) * r;
}

// The same from r^2 (one inverse square root instead of a sqrt and a divide).
vec3 cs_spiky_grad_r2_k(cs_kernels k, vec3 r, float r2)
{
    if (r2 <= 0.0 || r2 >= k.h2)
        return vec3(0.0);
    float inv_len = inversesqrt(r2);
    float d = k.h - r2 * inv_len;
    return (-k.spiky_grad * d * d * inv_len) * r;
}
vec3 cs_spiky_grad_r2(vec3 r, float r2) { return cs_spiky_grad_r2_k(cs_kernels_load(), r, r2); }

#define CS_WALL_MARGIN (fp.wall.x)

// The pointer (scene.h "pointer"): within its radius, the velocity v of a
// particle at x gains dt times an acceleration towards (or away from) the
// point that falls linearly to 0 at the radius, and is damped there,
// implicitly, so no damping overshoots. Off (radius 0): v as it was.
vec3 cs_pointer_velocity(vec3 x, vec3 v, float dt)
{
    if (!(fp.pointer.w > 0.0))
        return v;
    vec3 d = fp.pointer.xyz - x;
#if DIM == 2
    d.z = 0.0;
#endif
    float r = length(d);
    if (!(r < fp.pointer.w && r > 0.0))
        return v;
    float w = 1.0 - r / fp.pointer.w;
    v += dt * w * fp.pointer_force.x * (d / r);
    return v / (1.0 + dt * w * fp.pointer_force.y);
}

#ifdef CS_LEVEL_FIELD
// The level (docs/levels.md, "Fluid in a level"): a signed distance field
// baked on the CPU (host/world/level_sdf.c), > 0 in the level's open space.
// A pass that collides defines CS_LEVEL_FIELD before including this file
// and binds the field; without a level a one-float placeholder is bound and
// fp.level_dims.w is 0.
layout(std430, binding = CS_LEVEL_FIELD_BINDING) readonly buffer LevelField { float level_field[]; };

bool cs_level_enabled() { return fp.level_dims.w != 0u; }

float cs_level_node(uvec3 c)
{
    uvec3 d = fp.level_dims.xyz;
    return level_field[(c.z * d.y + c.y) * d.x + c.x];
}

// Trilinear between the eight nodes around x, x clamped to the grid (the
// grid reaches a node past the domain box on every side). x must be finite.
float cs_level_distance(vec3 x)
{
    vec3 top = vec3(fp.level_dims.xyz - 1u);
    vec3 u = clamp((x - fp.level_origin.xyz) * fp.level_origin.w, vec3(0.0), top);
    uvec3 i = uvec3(min(floor(u), top - 1.0));
    vec3 t = u - vec3(i);
    float x00 = mix(cs_level_node(i), cs_level_node(i + uvec3(1, 0, 0)), t.x);
    float x10 = mix(cs_level_node(i + uvec3(0, 1, 0)), cs_level_node(i + uvec3(1, 1, 0)), t.x);
    float x01 = mix(cs_level_node(i + uvec3(0, 0, 1)), cs_level_node(i + uvec3(1, 0, 1)), t.x);
    float x11 = mix(cs_level_node(i + uvec3(0, 1, 1)), cs_level_node(i + uvec3(1, 1, 1)), t.x);
    return mix(mix(x00, x10, t.y), mix(x01, x11, t.y), t.z);
}

// The direction away from the level's solid at x: central differences half
// a cell wide (smoother across cell faces than the trilinear's own
// gradient), normalised; zero where the field is flat (far from walls, or
// exactly between two walls).
vec3 cs_level_normal(vec3 x)
{
    float s = 0.5 / fp.level_origin.w;
    vec3 g = vec3(cs_level_distance(x + vec3(s, 0, 0)) - cs_level_distance(x - vec3(s, 0, 0)),
                  cs_level_distance(x + vec3(0, s, 0)) - cs_level_distance(x - vec3(0, s, 0)),
                  cs_level_distance(x + vec3(0, 0, s)) - cs_level_distance(x - vec3(0, 0, s)));
    float len = length(g);
    return len > 1e-6 * s ? g / len : vec3(0.0);
}

// Keeps x `margin` inside the level's open space: where the distance is
// below the margin, x moves along the normal by what is missing and the
// normal velocity into the solid is reflected with e. Two rounds, so a
// particle pushed out of one wall into a corner's other wall is pushed out
// of that too. A particle deep in solid (past the field's band, where the
// field is flat) has no direction and is left to the box.
void cs_collide_level(inout vec3 x, inout vec3 v, float e, float margin)
{
    if (!cs_level_enabled() || any(isnan(x)) || any(isinf(x)))
        return;
    for (int k = 0; k < 2; k++) {
        float d = cs_level_distance(x);
        if (!(d < margin))
            return;
        vec3 n = cs_level_normal(x);
        x += (margin - d) * n;
        float vn = dot(v, n);
        if (vn < 0.0)
            v -= (1.0 + e) * vn * n;
    }
}

// The velocity half: where x touches the level's margin (within `touch`)
// and v points into the solid, reflect v with e.
void cs_restitute_level(vec3 x, inout vec3 v, float e, float touch, float margin)
{
    if (!cs_level_enabled() || any(isnan(x)) || any(isinf(x)))
        return;
    if (!(cs_level_distance(x) - margin <= touch))
        return;
    vec3 n = cs_level_normal(x);
    float vn = dot(v, n);
    if (vn < 0.0)
        v -= (1.0 + e) * vn * n;
}
#endif

// One projection onto every half-space of the boundary set, keeping the
// centre `margin` inside each plane: the walls first and the box faces last
// (so no particle ever ends outside the box). A box face clamps its axis
// exactly (x[a] = min + margin or max - margin) and reverses that velocity
// component; a wall moves x along its normal. The normal velocity into a
// boundary is reflected, scaled by the restitution e.
void cs_collide_boundary(inout vec3 x, inout vec3 v, float e, float margin)
{
    for (uint i = 0u; i < cs_boundary_count(); i++) {
        uint k = cs_boundary_box_last(i);
        vec4 p = cs_boundary_plane(k);
        float d = cs_boundary_distance(k, x) - margin;
        if (!(d < 0.0))
            continue;
        if (cs_boundary_is_box_face(k)) {
            uint a = cs_boundary_face_axis(k);
            x[a] = p[a] * (p.w + margin); // min + margin, or -1 * (-max + margin)
            if (p[a] * v[a] < 0.0)
                v[a] = -e * v[a];
        } else {
            vec3 n = p.xyz;
            x -= d * n;
            float vn = dot(v, n);
            if (vn < 0.0)
                v -= (1.0 + e) * vn * n;
        }
    }
}

// Keeps x inside the level's open space (passes that define CS_LEVEL_FIELD),
// inside the boundary set and out of every rigid body, reflecting
// the normal velocity into either with the restitution. A particle centre
// stays CS_WALL_MARGIN (half the spacing) inside every box face and wall:
// the particle's own extent keeps it off the wall, and the boundary density
// (cs_boundary, the SPH mirrors, the WCSPH wall layers) is right for a first
// row there; clamping onto the plane itself let gravity press half the
// bottom row onto the floor, where it sits inside the wall's virtual fluid.
//
// The margin yields to the bodies: a body touches the walls themselves
// (bodies.h: its vertices stop at the box faces), so between a body and a
// wall the gap can be thinner than the margin. Three steps: the planes with
// the margin; then the bodies (cs_bodies_collide), which push a particle the
// margin moved into a body back out along the body's contact normal (onto a
// face parallel to the wall: into the gap; a slanted face: sideways, out of
// the wedge); then the planes once more without the margin, so nothing ends
// outside the box. With the margin last instead, a particle squeezed
// between the ceiling and a body thrown against it ended 5e-4 m inside
// the body (tests/test_bodies.c, the falling box). Without bodies the first
// step is all there is.
void cs_collide(inout vec3 x, inout vec3 v)
{
    float e = CS_RESTITUTION;
#ifdef CS_LEVEL_FIELD
    cs_collide_level(x, v, e, CS_WALL_MARGIN); // first: the box's faces have the last word
#endif
    cs_collide_boundary(x, v, e, CS_WALL_MARGIN);
    if (cs_body_count() > 0u) {
        cs_bodies_collide(x, v, e, CS_WALL_MARGIN);
        cs_collide_boundary(x, v, e, 0.0);
    }
#if DIM == 2
    x.z = 0.0;
    v.z = 0.0;
#endif
}

// The velocity half of cs_collide_boundary: where x touches a plane's
// margin (within `touch`) and v points into it, reflect v with e.
void cs_restitute_boundary(vec3 x, inout vec3 v, float e, float touch, float margin)
{
    for (uint i = 0u; i < cs_boundary_count(); i++) {
        uint k = cs_boundary_box_last(i);
        vec4 p = cs_boundary_plane(k);
        float d = cs_boundary_distance(k, x) - margin;
        if (cs_boundary_is_box_face(k)) {
            uint a = cs_boundary_face_axis(k);
            if (d <= touch && p[a] * v[a] < 0.0)
                v[a] = -e * v[a];
        } else {
            vec3 n = p.xyz;
            float vn = dot(v, n);
            if (d <= touch && vn < 0.0)
                v -= (1.0 + e) * vn * n;
        }
    }
}

// For position-based solvers: x was already pushed inside (cs_collide on the
// predicted position) and v derived from the motion; where x touches a
// boundary's margin or a body and v still points into it, reflect v with
// the restitution. Touching: within 1e-5 h (the clamp lands on the margin
// only to rounding). The same order as cs_collide, so in a gap between a
// body and a wall thinner than the margin the body has the last word.
void cs_restitute(vec3 x, inout vec3 v)
{
    float e = CS_RESTITUTION;
    float touch = 1e-5 * CS_H;
#ifdef CS_LEVEL_FIELD
    // A projection along the field's normal lands on the margin only as
    // closely as the trilinear field is straight there: 2% of the margin.
    cs_restitute_level(x, v, e, 0.02 * CS_WALL_MARGIN, CS_WALL_MARGIN);
#endif
    cs_restitute_boundary(x, v, e, touch, CS_WALL_MARGIN);
    if (cs_body_count() > 0u) {
        cs_bodies_restitute(x, v, e, touch, CS_WALL_MARGIN);
        cs_restitute_boundary(x, v, e, touch, 0.0);
    }
}

// Boundary model (fluid_shared.h, boundary tables): every half-space of the
// boundary set closer than h acts like rest fluid filling the region beyond
// it. phi: the kernel (poly6) fraction that region covers (a particle on a
// wall gets half its density from it); grad: the integral of the spiky
// gradient over it (units 1/length, pointing into the boundary). The box's
// faces combine as 1 - prod_axes (1 - phi_axis), so the region behind an
// edge or a corner is not counted twice (exact for one face; within ~1% of
// the lattice at edges and corners, where a plain sum gives +3% and +9%):
// each face subtracts its share from its axis' open fraction, and the last
// face turns the product into the running total. Walls add on.
vec2 cs_boundary_sample(float d)
{
    float t = clamp(d * fp.kernel.w, 0.0, 1.0) * float(CS_FLUID_BOUNDARY_SAMPLES - 1);
    int k = min(int(t), CS_FLUID_BOUNDARY_SAMPLES - 2);
    return mix(fp.boundary[k].xy, fp.boundary[k + 1].xy, t - float(k));
}

void cs_boundary(vec3 x, out float phi, out vec3 grad)
{
    float inv_h = fp.kernel.w;
    vec3 inside = vec3(1.0); // per axis: 1 - the fraction beyond that axis' faces
    vec3 g_axis = vec3(0.0); // per axis: the faces' spiky integrals, in units of 1/h
    phi = 0.0;
    grad = vec3(0.0);
    uint faces = cs_boundary_box_faces();
    for (uint k = 0u; k < cs_boundary_count(); k++) {
        vec4 p = cs_boundary_plane(k);
        float d = cs_boundary_distance(k, x);
        if (cs_boundary_is_box_face(k)) {
            uint a = cs_boundary_face_axis(k);
            vec2 s = cs_boundary_sample(d);
            inside[a] -= s.x;
            g_axis[a] -= p[a] * s.y; // the gradient points out of the fluid: -n
            if (k + 1u == faces) {
                phi = 1.0 - inside.x * inside.y * inside.z;
                grad = (g_axis * inv_h) * vec3(inside.y * inside.z, inside.x * inside.z, inside.x * inside.y);
            }
        } else if (d < CS_H) {
            vec2 s = cs_boundary_sample(d);
            phi += s.x;
            grad -= (s.y * inv_h) * p.xyz;
        }
    }
}

bool cs_finite(vec3 x)
{
    return !any(isnan(x)) && !any(isinf(x));
}

#endif
