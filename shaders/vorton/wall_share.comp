#version 450
// wall_share.comp — the no-slip "flux" rule's normalisation ("vorton: wall
// share"; docs/vortons.md "The no-slip rule"). The wall's vortex sheet
// gamma = n x u_s is spread over the vortons near it, and a patch of wall
// must hand out one sheet in all, however many vortons crowd above it (the
// eject piles vortons onto the surface one core out). Per vorton i with a
// contact point p_i on body b (collide.comp WALL_POINTS: w = b + 1, weight
// w_i), the weighted count of the vortons j that share its patch:
//   S_i = sum_j [b_j == b_i] w_j (sigma_j / sigma_i)^2 exp(-|p_i - p_j|^2 / sigma_i^2) / pi
// the 2D Gaussian of width sigma_i on the wall (unit integral) times the
// wall area sigma_j^2 vorton j stands for. On a square lattice of spacing
// sigma one core out, S = (sum_k exp(-k^2))^2 / pi = 1.0002: each vorton
// gets one layer, as for a lone column; a doubled sheet gets half each.
//
// Three variants:
//   KEYS     per vorton, the bucket of its contact cell (a cube of edge
//            VORTON_WALL_SHARE_CELLS sigma_max, hashed with its body into
//            pc.body_slots.w buckets), or "none" for a vorton near no body;
//            the neighbour grid's sort and ranges (grid.h
//            cs_grid_record_sort_keys) then list each bucket's vortons;
//   (none)   the binned gather: a wall vorton sums over the vortons of the
//            27 contact cells around its own, so the pass costs O(N) plus
//            wall vortons x neighbours. A vorton further than one cell
//            (>= 5 sigma_i) away is left out: its term is below
//            exp(-25) = 1.4e-11 of a neighbour's, under float round-off;
//            the order of the sum differs from DIRECT's, so S agrees with
//            it to round-off, not to the bit (tests/test_vorton_wall.c);
//   DIRECT   the O(N^2) gather over every vorton (the reference; tests
//            only), split across dispatches of at most VORTON_SOURCE_CHUNK
//            sources (lavapipe's loop budget, vorton_shared.h) that carry
//            the running sum on in wall_share itself.
// Both sums run in a fixed order: the same bits every run, no atomics.
#include "vorton_shared.h"

layout(local_size_x = VORTON_WG) in;
layout(push_constant) uniform PushBlock { vorton_push pc; };

layout(std430, binding = 0) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer WallPos { vec4 wall_pos[]; };
#if defined(KEYS)
layout(std430, binding = 2) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 3) writeonly buffer Order { uint order[]; };
#else
layout(std430, binding = 2) readonly buffer WallWeight { float wall_weight[]; };
layout(std430, binding = 3) buffer WallShare { float wall_share[]; };
#endif
#if !defined(KEYS) && !defined(DIRECT)
layout(std430, binding = 4) readonly buffer Order { uint order[]; };
layout(std430, binding = 5) readonly buffer Ranges { uvec2 ranges[]; };
#endif

const float INV_PI = float(1.0 / VORTON_PI);

// The contact cell of a wall point (pc.fluid.y: 1 / cell edge).
ivec3 contact_cell(vec3 p) { return ivec3(floor(p * pc.fluid.y)); }

// Its bucket: the cell and the body hashed into pc.body_slots.w (a power
// of two) buckets. Different cells may share a bucket; the gather checks
// each candidate's own cell, so a collision costs a visit, never a term.
uint contact_bucket(ivec3 c, float body)
{
    uvec3 u = uvec3(c);
    uint h = (u.x * 73856093u) ^ (u.y * 19349663u) ^ (u.z * 83492791u) ^ (uint(body) * 2654435761u);
    return h & (pc.body_slots.w - 1u);
}

#if !defined(KEYS)
// Vorton j's term in S_i (same body checked by the caller).
float share_term(vec3 p_i, float inv_s2, uint j)
{
    vec3 r = wall_pos[j].xyz - p_i;
    float sj = pos[j].w;
    return wall_weight[j] * sj * sj * inv_s2 * exp(-dot(r, r) * inv_s2) * INV_PI;
}
#endif

#if defined(KEYS)
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.counts.y)
        return;
    vec4 own = wall_pos[i];
    keys[i] = own.w == 0.0 ? pc.body_slots.w : contact_bucket(contact_cell(own.xyz), own.w);
    order[i] = i;
}
#elif defined(DIRECT)
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.counts.y)
        return;
    bool resume = (pc.chunk.z & VORTON_CHUNK_RESUME) != 0u;
    float sum = resume ? wall_share[i] : 0.0;
    vec4 own = wall_pos[i];
    if (own.w == 0.0) { // not near any body: no share to normalise
        wall_share[i] = 0.0;
        return;
    }
    float sigma = pos[i].w, inv_s2 = 1.0 / (sigma * sigma);
    uint end = min(pc.chunk.y, pc.counts.x);
    for (uint j = pc.chunk.x; j < end; j++)
        if (wall_pos[j].w == own.w)
            sum += share_term(own.xyz, inv_s2, j);
    wall_share[i] = sum;
}
#else
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.counts.y)
        return;
    vec4 own = wall_pos[i];
    if (own.w == 0.0) { // not near any body: no share to normalise
        wall_share[i] = 0.0;
        return;
    }
    float sigma = pos[i].w, inv_s2 = 1.0 / (sigma * sigma), sum = 0.0;
    ivec3 home = contact_cell(own.xyz);
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                ivec3 cell = home + ivec3(dx, dy, dz);
                uvec2 range = ranges[contact_bucket(cell, own.w)];
                for (uint k = range.x; k < range.y; k++) {
                    uint j = order[k];
                    vec4 other = wall_pos[j];
                    if (other.w == own.w && contact_cell(other.xyz) == cell)
                        sum += share_term(own.xyz, inv_s2, j);
                }
            }
    wall_share[i] = sum;
}
#endif
