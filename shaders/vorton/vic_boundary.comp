#version 450
// vic_boundary.comp — Dirichlet values of psi on the boundary nodes from the
// free-space solution of lap(psi) = -omega, psi(x) = 1/(4 pi) int omega(y) /
// |x - y| dy, summed over the blocks of vic_moments.comp to dipole order:
//   psi_c(x) = 1/(4 pi) sum_b [ Q_c / d + D_c . (x - X_b) / d^3 ],  d = |x - X_b|
// (the first terms of 1/|x - y| expanded about X_b). Blocks are summed in
// index order.
#include "vorton_shared.h"
#include "vic_shared.h"
#include "vic_common.glsl"

layout(local_size_x = VIC_WG) in;
layout(push_constant) uniform PushBlock { vic_push pc; };

layout(std430, binding = 0) readonly buffer Moments { vec4 moments[]; };
layout(std430, binding = 1) writeonly buffer Psi { vec4 psi[]; };

const float INV_4PI = float(1.0 / (4.0 * VORTON_PI));

// One invocation per face node: face f = id / nodes^2 (-x, +x, -y, +y, -z,
// +z), (a, b) its node; edge nodes are computed by each of their faces,
// the same value from the same sum. Interior nodes were zeroed by the splat.
ivec3 face_node(uint id, uint nodes)
{
    uint face = id / (nodes * nodes), rest = id % (nodes * nodes);
    int a = int(rest % nodes), b = int(rest / nodes), side = (face & 1u) == 0u ? 0 : int(nodes) - 1;
    uint axis = face >> 1;
    return axis == 0u ? ivec3(side, a, b) : axis == 1u ? ivec3(a, side, b) : ivec3(a, b, side);
}

void main()
{
    uint id = gl_GlobalInvocationID.x;
    if (id >= pc.size.w)
        return;
    uint nodes = pc.size.x, blocks = pc.size.z;
    ivec3 c = face_node(id, nodes);
    float h = box.grid.w; // read once: the loop below is the hot one
    vec3 origin = box.grid.xyz;
    vec3 x = origin + h * vec3(c);
    vec3 sum = vec3(0.0);
    uint count = blocks * blocks * blocks;
    for (uint b = 0u; b < count; b++) {
        vec3 q = moments[4u * b].xyz;
        vec3 dx = moments[4u * b + 1u].xyz, dy = moments[4u * b + 2u].xyz, dz = moments[4u * b + 3u].xyz;
        ivec3 bc = ivec3(b % blocks, (b / blocks) % blocks, b / (blocks * blocks));
        ivec3 lo = bc * VIC_BLOCK, hi = min(lo + VIC_BLOCK, ivec3(nodes));
        vec3 r = x - (origin + h * 0.5 * vec3(lo + hi - 1));
        // The floor only keeps an empty block at a node finite.
        float d2 = max(dot(r, r), 1e-12 * h * h);
        float inv_d = inversesqrt(d2);
        float inv_d3 = inv_d * inv_d * inv_d;
        sum += q * inv_d + vec3(dot(dx, r), dot(dy, r), dot(dz, r)) * inv_d3;
    }
    psi[vic_node(c, nodes)] = vec4(INV_4PI * sum, 0.0);
}
