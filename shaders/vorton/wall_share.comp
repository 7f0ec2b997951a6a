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
// An O(N^2) gather like rates.comp's (the same bits every run, no
// atomics), split across dispatches of at most VORTON_SOURCE_CHUNK sources
// (lavapipe's loop budget, vorton_shared.h) that carry the running sum on
// in wall_share itself.
#include "vorton_shared.h"

layout(local_size_x = VORTON_WG) in;
layout(push_constant) uniform PushBlock { vorton_push pc; };

layout(std430, binding = 0) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer WallPos { vec4 wall_pos[]; };
layout(std430, binding = 2) readonly buffer WallWeight { float wall_weight[]; };
layout(std430, binding = 3) buffer WallShare { float wall_share[]; };

const float INV_PI = float(1.0 / VORTON_PI);

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
    for (uint j = pc.chunk.x; j < end; j++) {
        vec4 other = wall_pos[j];
        if (other.w != own.w)
            continue;
        vec3 r = other.xyz - own.xyz;
        float sj = pos[j].w;
        sum += wall_weight[j] * sj * sj * inv_s2 * exp(-dot(r, r) * inv_s2) * INV_PI;
    }
    wall_share[i] = sum;
}
