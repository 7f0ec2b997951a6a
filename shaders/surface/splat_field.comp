#version 450
// "surface: splat" with the anisotropic kernel: the field at every node,
//   field(x) = scale * sum_j (1 - |G_j (x - c_j)|^2)^3   where |G_j (x - c_j)| < 1
// (c_j, G_j from "surface: splat kernels"; det G_j = 1/R^3 for every
// particle, so the determinant factor of Yu & Turk is the constant 1/R^3
// folded into `scale`, as in the isotropic splat).
//
// A workgroup is a tile of 4 x 4 x 16 nodes; invocation t owns four of
// them, 4 apart along z, so every cell and particle it loads serves all
// four (CS_SPLAT_NODES_PER). The tile's candidate cells are the grid cells within the largest
// cell reach ("surface: splat kernels": how far the ellipsoids of a cell's
// particles go beyond the cell's box; at most R k_r^(2/3), the longest
// semi-axis an ellipsoid of volume (4/3) pi R^3 can have with eigenvalue
// ratios <= k_r, + lambda r_n, the farthest a smoothed centre moves from
// the particle that is binned, for particles inside the domain). They are
// taken in rounds of 64 x CS_SPLAT_CELLS_PER cells: invocation t tests its
// run of consecutive cells against the tile with each cell's own reach and
// keeps those that pass in its slots of shared memory. Then each node walks
// the slots in invocation order, i.e. in cell order: cells whose reach it
// is out of are skipped, the particles of the others are tested against
// their bounding ball, then their ellipsoid. Cells in (z, y, x) order,
// particles ascending: each node adds the same terms in the same order
// every run (no float atomics; an integer count of the cells a round kept
// lets tiles far from the fluid skip the walk). Two barriers per round (a
// few rounds per tile), none per particle.
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SPLAT_TILE_GROUP) in;
layout(std430, binding = 0) readonly buffer Centres { vec4 centres[]; };
layout(std430, binding = 1) readonly buffer Kernels { vec4 kernels[]; };
layout(std430, binding = 2) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 3) readonly buffer Reach { float cell_reach[]; };
layout(std430, binding = 4) readonly buffer MaxReach { float max_reach[]; };
layout(std430, binding = 5) writeonly buffer Field { float field[]; };
layout(push_constant) uniform Push { cs_splat_aniso_push pc; };
#include "splat_aniso.glsl"

const uint G = CS_SPLAT_TILE_GROUP;
const uint PER = CS_SPLAT_CELLS_PER;
shared uvec2 slot_range[G * PER];  // particles [x, y) of a kept cell
shared vec4 slot_box[G * PER];     // xyz: the kept cell box's low corner; w: the cell's reach
shared uint slot_count[G];         // cells kept by each invocation this round
shared uint round_kept[2];         // cells kept by the tile in even / odd rounds (an integer sum: no order)

// Whether x is within reach of the cell box [lo, lo + h].
bool near_box(vec3 x, vec4 box, float h)
{
    vec3 out_of_box = x - clamp(x, box.xyz, box.xyz + h);
    return dot(out_of_box, out_of_box) < box.w * box.w;
}

// (1 - |G d|^2)^3 inside particle j's ellipsoid (ball test first), else 0.
float kernel_at(vec3 d, float extent2, uint j)
{
    if (!(dot(d, d) < extent2))    // outside the ellipsoid's ball (or NaN)
        return 0.0;
    vec4 g0 = kernels[2u * j], g1 = kernels[2u * j + 1u];
    vec3 gd = vec3(g0.x * d.x + g0.y * d.y + g0.z * d.z,
                   g0.y * d.x + g0.w * d.y + g1.x * d.z,
                   g0.z * d.x + g1.x * d.y + g1.y * d.z);
    float w = 1.0 - dot(gd, gd);
    return w > 0.0 ? w * w * w : 0.0;
}

void main()
{
    uint tile = cs_linear_group();
    if (tile >= pc.dims.w)
        return;   // a whole padding workgroup of a folded dispatch
    uint t = gl_LocalInvocationID.x;
    const uint NP = CS_SPLAT_NODES_PER;
    const uvec3 T = uvec3(CS_SPLAT_TILE, CS_SPLAT_TILE, NP * CS_SPLAT_TILE);
    uvec3 tiles = (pc.dims.xyz + T - 1u) / T;
    uvec3 tc = uvec3(tile % tiles.x, (tile / tiles.x) % tiles.y, tile / (tiles.x * tiles.y));
    uvec3 first = tc * T;
    uvec3 node0 = first + uvec3(t % CS_SPLAT_TILE, (t / CS_SPLAT_TILE) % CS_SPLAT_TILE, t / (CS_SPLAT_TILE * CS_SPLAT_TILE));
    bool live[NP];
    vec3 xs[NP];
    float sums[NP];
    for (uint m = 0u; m < NP; m++) {
        uvec3 nd = node0 + uvec3(0u, 0u, m * CS_SPLAT_TILE);
        live[m] = all(lessThan(nd, pc.dims.xyz));
        xs[m] = pc.origin.xyz + pc.origin.w * vec3(nd);
        sums[m] = 0.0;
    }
    // The tile's box over its nodes inside the field.
    uvec3 last = min(first + T - 1u, pc.dims.xyz - 1u);
    vec3 tile_lo = pc.origin.xyz + pc.origin.w * vec3(first);
    vec3 tile_hi = pc.origin.xyz + pc.origin.w * vec3(last);
    // Every cell that can reach the tile is within the largest cell reach.
    float reach = max_reach[0];
    ivec3 lo, hi;
    for (int a = 0; a < 3; a++) {
        lo[a] = splat_cell_along(tile_lo[a] - reach, a);
        hi[a] = splat_cell_along(tile_hi[a] + reach, a);
    }
    ivec3 span = hi - lo + 1;
    uint cells = uint(span.x * span.y * span.z);
    float h = pc.grid_origin.w;
    if (t == 0u)
        round_kept[0] = round_kept[1] = 0u;
    barrier();
    // The round count is the same for the whole workgroup: uniform barriers.
    for (uint base = 0u, round = 0u; base < cells; base += G * PER, round ^= 1u) {
        uint kept = 0u;
        for (uint i = 0u; i < PER; i++) {
            uint k = base + t * PER + i;
            if (k >= cells)
                break;
            ivec3 c = lo + ivec3(k % span.x, (k / span.x) % span.y, k / (span.x * span.y));
            uint id = (uint(c.z) * pc.grid_dims.y + uint(c.y)) * pc.grid_dims.x + uint(c.x);
            uvec2 r = ranges[id];
            if (r.x >= r.y)
                continue;
            vec4 box = vec4(pc.grid_origin.xyz + h * vec3(c), cell_reach[id]);
            // Box to box: the gap along each axis, 0 where they overlap.
            vec3 gap = max(max(box.xyz - tile_hi, tile_lo - (box.xyz + h)), vec3(0.0));
            if (!(dot(gap, gap) < box.w * box.w))
                continue;
            slot_range[t * PER + kept] = r;
            slot_box[t * PER + kept] = box;
            kept++;
        }
        slot_count[t] = kept;
        if (kept > 0u)
            atomicAdd(round_kept[round], kept);
        barrier();
        // The other counter is free until the next round's barrier.
        if (t == 0u)
            round_kept[round ^ 1u] = 0u;
        uint total = round_kept[round];
        for (uint s = 0u, seen = 0u; seen < total; s++) {
            uint n = slot_count[s];
            seen += n;
            for (uint b = s * PER; b < s * PER + n; b++) {
                vec4 cb = slot_box[b];
                bool near[NP];
                bool any_near = false;
                for (uint m = 0u; m < NP; m++) {
                    near[m] = live[m] && near_box(xs[m], cb, h);
                    any_near = any_near || near[m];
                }
                if (!any_near)
                    continue;
                uvec2 pr = slot_range[b];
                for (uint j = pr.x; j < pr.y; j++) {
                    vec4 cc = centres[j];
                    for (uint m = 0u; m < NP; m++)
                        if (near[m])
                            sums[m] += kernel_at(xs[m] - cc.xyz, cc.w, j);
                }
            }
        }
        barrier();
    }
    for (uint m = 0u; m < NP; m++)
        if (live[m]) {
            uvec3 nd = node0 + uvec3(0u, 0u, m * CS_SPLAT_TILE);
            field[nd.x + pc.dims.x * (nd.y + pc.dims.y * nd.z)] = pc.scale * sums[m];
        }
}
