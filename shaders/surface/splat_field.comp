#version 450
// "surface: splat" with the anisotropic kernel: the field at every node,
//   field(x) = scale * sum_j (1 - |G_j (x - c_j)|^2)^3   where |G_j (x - c_j)| < 1
// (c_j, G_j from "surface: splat kernels"; det G_j = 1/R^3 for every
// particle, so the determinant factor of Yu & Turk is the constant 1/R^3
// folded into `scale`, as in the isotropic splat).
//
// A workgroup is a tile of 4x4x4 nodes. Its candidates are the particles
// binned (by their own position x_j) in the grid cells within `reach` of
// the tile: reach = R k_r^(2/3) (the longest semi-axis an ellipsoid of
// volume (4/3) pi R^3 can have with eigenvalue ratios <= k_r) + lambda r_n
// (the farthest a smoothed centre moves from x_j). The cells' rows are
// walked in batches of 64, their spans laid end to end; each chunk of 64
// candidates is culled against the tile (ellipsoid's bounding ball vs the
// tile's box), the survivors are compacted in order into shared memory,
// and every node of the tile sums over them. Candidates keep the grid's
// order (rows by z then y, indices ascending) and the compaction keeps it,
// so each node adds the same terms in the same order every run: no atomics.
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SPLAT_TILE_GROUP) in;
layout(std430, binding = 0) readonly buffer Centres { vec4 centres[]; };
layout(std430, binding = 1) readonly buffer Kernels { vec4 kernels[]; };
layout(std430, binding = 2) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 3) writeonly buffer Field { float field[]; };
layout(push_constant) uniform Push { cs_splat_aniso_push pc; };
#include "splat_aniso.glsl"

const uint G = CS_SPLAT_TILE_GROUP;
shared uint row_start[G], row_len[G], row_before[G];
shared uint keep[G];
shared vec4 kept_centre[G], kept_g0[G], kept_g1[G];

void main()
{
    uint tile = cs_linear_group();
    if (tile >= pc.dims.w)
        return;   // a whole padding workgroup of a folded dispatch
    uint t = gl_LocalInvocationID.x;
    const uint T = CS_SPLAT_TILE;
    uvec3 tiles = (pc.dims.xyz + T - 1u) / T;
    uvec3 tc = uvec3(tile % tiles.x, (tile / tiles.x) % tiles.y, tile / (tiles.x * tiles.y));
    uvec3 first = tc * T;
    uvec3 node = first + uvec3(t % T, (t / T) % T, t / (T * T));
    bool live = all(lessThan(node, pc.dims.xyz));
    vec3 x = pc.origin.xyz + pc.origin.w * vec3(node);
    // The tile's box over its nodes inside the field.
    uvec3 last = min(first + T - 1u, pc.dims.xyz - 1u);
    vec3 box_lo = pc.origin.xyz + pc.origin.w * vec3(first);
    vec3 box_hi = pc.origin.xyz + pc.origin.w * vec3(last);
    ivec3 lo, hi;
    for (int a = 0; a < 3; a++) {
        lo[a] = splat_cell_along(box_lo[a] - pc.reach, a);
        hi[a] = splat_cell_along(box_hi[a] + pc.reach, a);
    }
    int ny = hi.y - lo.y + 1;
    int rows = ny * (hi.z - lo.z + 1);
    float sum = 0.0;
    // Every loop bound below is the same for the whole workgroup (tile
    // values and sums over shared arrays), so the barriers are uniform.
    for (int batch = 0; batch < rows; batch += int(G)) {
        int r = batch + int(t);
        uvec2 span = uvec2(0u);
        if (r < rows)
            span = splat_row_span(lo.y + r % ny, lo.z + r / ny, lo.x, hi.x);
        row_start[t] = span.x;
        row_len[t] = span.y > span.x ? span.y - span.x : 0u;
        barrier();
        uint before = 0u, total = 0u;
        for (uint k = 0u; k < G; k++) {
            before += k < t ? row_len[k] : 0u;
            total += row_len[k];
        }
        row_before[t] = before;
        barrier();
        for (uint c0 = 0u; c0 < total; c0 += G) {
            uint c = c0 + t;
            bool take = false;
            vec4 cen = vec4(0.0);
            uint j = 0u;
            if (c < total) {
                // The row holding candidate c: the last k with before <= c
                // (an empty row shares its offset with the next one).
                uint k = 0u;
                for (uint step = G / 2u; step > 0u; step >>= 1u)
                    if (row_before[k + step] <= c)
                        k += step;
                j = row_start[k] + (c - row_before[k]);
                cen = centres[j];
                vec3 d = cen.xyz - clamp(cen.xyz, box_lo, box_hi);
                take = dot(d, d) < cen.w;   // NaN centres are never taken
            }
            keep[t] = take ? 1u : 0u;
            barrier();
            uint slot = 0u, kept = 0u;
            for (uint k = 0u; k < G; k++) {
                slot += k < t ? keep[k] : 0u;
                kept += keep[k];
            }
            if (take) {
                kept_centre[slot] = cen;
                kept_g0[slot] = kernels[2u * j];
                kept_g1[slot] = kernels[2u * j + 1u];
            }
            barrier();
            if (live)
                for (uint k = 0u; k < kept; k++) {
                    vec4 cc = kept_centre[k];
                    vec3 d = x - cc.xyz;
                    if (!(dot(d, d) < cc.w))
                        continue;
                    vec4 g0 = kept_g0[k], g1 = kept_g1[k];
                    vec3 gd = vec3(g0.x * d.x + g0.y * d.y + g0.z * d.z,
                                   g0.y * d.x + g0.w * d.y + g1.x * d.z,
                                   g0.z * d.x + g1.x * d.y + g1.y * d.z);
                    float q = dot(gd, gd);
                    if (q < 1.0) {
                        float w = 1.0 - q;
                        sum += w * w * w;
                    }
                }
            barrier();
        }
    }
    if (live)
        field[node.x + pc.dims.x * (node.y + pc.dims.y * node.z)] = pc.scale * sum;
}
