#version 450
// vic_moments.comp — per block of VIC_BLOCK^3 nodes, the moments the
// boundary sum uses (interior nodes only; boundary nodes carry no source):
//   Q   = sum_n f_n h^3                        (vec3: one per component)
//   D_c = sum_n f_n,c h^3 (X_n - X_b)          (X_b: the block's node centre)
// out[4 b] = (Q, 0), out[4 b + 1 + c] = (D_c, 0). Each block sums its nodes
// in index order: the same bits every run.
#include "vorton_shared.h"
#include "vic_shared.h"
#include "vic_common.glsl"

layout(local_size_x = VIC_WG) in;
layout(push_constant) uniform PushBlock { vic_push pc; };

layout(std430, binding = 0) readonly buffer Field { vec4 field[]; };
layout(std430, binding = 1) writeonly buffer Moments { vec4 moments[]; };

void main()
{
    uint b = gl_GlobalInvocationID.x;
    if (b >= pc.size.w)
        return;
    uint nodes = pc.size.x, blocks = pc.size.z;
    ivec3 bc = ivec3(b % blocks, (b / blocks) % blocks, b / (blocks * blocks));
    ivec3 lo = bc * VIC_BLOCK, hi = min(lo + VIC_BLOCK, ivec3(nodes));
    float h = box.grid.w;
    vec3 origin = box.grid.xyz;
    vec3 centre = origin + h * 0.5 * vec3(lo + hi - 1);
    vec3 q = vec3(0.0), dx = vec3(0.0), dy = vec3(0.0), dz = vec3(0.0);
    for (int z = lo.z; z < hi.z; z++)
        for (int y = lo.y; y < hi.y; y++)
            for (int x = lo.x; x < hi.x; x++) {
                ivec3 c = ivec3(x, y, z);
                if (vic_is_boundary(c, nodes))
                    continue;
                vec3 f = field[vic_node(c, nodes)].xyz;
                vec3 r = origin + h * vec3(c) - centre;
                q += f;
                dx += f.x * r;
                dy += f.y * r;
                dz += f.z * r;
            }
    float cell = h * h * h;
    moments[4u * b] = vec4(q * cell, 0.0);
    moments[4u * b + 1u] = vec4(dx * cell, 0.0);
    moments[4u * b + 2u] = vec4(dy * cell, 0.0);
    moments[4u * b + 3u] = vec4(dz * cell, 0.0);
}
