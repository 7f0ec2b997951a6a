#version 450
// vic_splat.comp — vorticity on the grid nodes: every node gathers the
// vortons of the 2 x 2 x 2 cells around it with the trilinear (cloud-in-cell)
// weight w = prod_a max(0, 1 - |x_a - X_a| / h):
//   f(X) = sum_j alpha_j w_j(X) / h^3,   alpha_j = omega_j sigma_j^3
// A gather, not a scatter: no float atomics, and the vortons of a cell are
// visited in their stable sorted order (pipelines/core/grid.h), cells by z, y
// then x, so the same vortons give the same bits every run. The trilinear
// weights of a vorton sum to 1 over its 8 nodes: sum f h^3 = sum alpha.
#include "vorton_shared.h"
#include "vic_shared.h"
#include "vic_common.glsl"

layout(local_size_x = VIC_WG) in;
layout(push_constant) uniform PushBlock { vic_push pc; };

layout(std430, binding = 0) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Vort { vec4 vort[]; };
layout(std430, binding = 2) readonly buffer Order { uint order[]; };
layout(std430, binding = 3) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 4) writeonly buffer Field { vec4 field[]; };
// psi = 0: the V-cycles' first guess (vic_boundary.comp then sets the faces).
layout(std430, binding = 5) writeonly buffer Psi { vec4 psi[]; };

void main()
{
    uint id = gl_GlobalInvocationID.x;
    if (id >= pc.size.w)
        return;
    uint nodes = pc.size.x;
    int cells = int(nodes) - 1;
    ivec3 c = vic_node_coords(id, nodes);
    float h = box.grid.w;
    vec3 node_x = box.grid.xyz + h * vec3(c);
    vec3 sum = vec3(0.0);
    for (int z = max(c.z - 1, 0); z <= min(c.z, cells - 1); z++)
        for (int y = max(c.y - 1, 0); y <= min(c.y, cells - 1); y++) {
            // The two cells of a row have consecutive ids: one span.
            uint row = (uint(z) * uint(cells) + uint(y)) * uint(cells);
            uvec2 first = ranges[row + uint(max(c.x - 1, 0))];
            uvec2 last = ranges[row + uint(min(c.x, cells - 1))];
            uint s = first.y > first.x ? first.x : last.x;
            uint e = last.y > last.x ? last.y : first.y;
            for (uint k = s; k < e; k++) {
                uint j = order[k];
                vec4 p = pos[j];
                vec3 w3 = max(vec3(0.0), 1.0 - abs(p.xyz - node_x) / h);
                float w = w3.x * w3.y * w3.z;
                float volume = p.w * p.w * p.w;
                sum += (w * volume) * vort[j].xyz;
            }
        }
    field[id] = vec4(sum / (h * h * h), 0.0);
    psi[id] = vec4(0.0);
}
