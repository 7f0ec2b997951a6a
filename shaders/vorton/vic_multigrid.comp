#version 450
// vic_multigrid.comp — the passes of one geometric multigrid V-cycle for
// -lap(psi) = f on the node grid (7-point Laplacian, Dirichlet boundary
// nodes untouched), all three components at once. One program per OP:
//   SMOOTH    red-black Gauss-Seidel, the nodes of parity size.z:
//             psi = (sum of the 6 neighbours + h^2 f) / 6
//   RESIDUAL  res = f + lap(psi) at interior nodes, 0 on the boundary
//   RESTRICT  coarse f = full weighting (1/4, 1/2, 1/4 per axis) of the fine
//             residual around node 2I; coarse psi = 0 (the correction's guess
//             and its zero boundary)
//   PROLONG   fine psi += trilinear interpolation of the coarse correction
// Every node is written by one invocation from values no other invocation
// of the dispatch writes (red-black: a node's neighbours have the other
// parity), so the result is the same bits every run.
#include "vorton_shared.h"
#include "vic_shared.h"
#if defined(RESTRICT) || defined(PROLONG)
#define VIC_NO_BOX // no spacing needed: index arithmetic only
#endif
#include "vic_common.glsl"

layout(local_size_x = VIC_WG) in;
layout(push_constant) uniform PushBlock { vic_push pc; };

#if defined(SMOOTH)
layout(std430, binding = 0) readonly buffer F { vec4 f[]; };
layout(std430, binding = 1) buffer Psi { vec4 psi[]; };
#elif defined(RESIDUAL)
layout(std430, binding = 0) readonly buffer F { vec4 f[]; };
layout(std430, binding = 1) readonly buffer Psi { vec4 psi[]; };
layout(std430, binding = 2) writeonly buffer Res { vec4 res[]; };
#elif defined(RESTRICT)
layout(std430, binding = 0) readonly buffer Res { vec4 res[]; };
layout(std430, binding = 1) writeonly buffer CoarseF { vec4 coarse_f[]; };
layout(std430, binding = 2) writeonly buffer CoarsePsi { vec4 coarse_psi[]; };
#elif defined(PROLONG)
layout(std430, binding = 0) readonly buffer CoarsePsi { vec4 coarse_psi[]; };
layout(std430, binding = 1) buffer Psi { vec4 psi[]; };
#endif

#if defined(SMOOTH) || defined(RESIDUAL)
vec3 neighbour_sum(ivec3 c, uint nodes)
{
    return psi[vic_node(c + ivec3(1, 0, 0), nodes)].xyz + psi[vic_node(c - ivec3(1, 0, 0), nodes)].xyz +
           psi[vic_node(c + ivec3(0, 1, 0), nodes)].xyz + psi[vic_node(c - ivec3(0, 1, 0), nodes)].xyz +
           psi[vic_node(c + ivec3(0, 0, 1), nodes)].xyz + psi[vic_node(c - ivec3(0, 0, 1), nodes)].xyz;
}
#endif

void main()
{
    uint id = gl_GlobalInvocationID.x;
    if (id >= pc.size.w)
        return;
    uint nodes = pc.size.x;
    ivec3 c = vic_node_coords(id, nodes);
    bool boundary = vic_is_boundary(c, nodes);
#if defined(SMOOTH) || defined(RESIDUAL)
    float h = box.grid.w * pc.level.x;
#endif
#if defined(SMOOTH)
    if (boundary || uint(c.x + c.y + c.z) % 2u != pc.size.z)
        return;
    psi[id] = vec4((neighbour_sum(c, nodes) + h * h * f[id].xyz) / 6.0, 0.0);
#elif defined(RESIDUAL)
    if (boundary) {
        res[id] = vec4(0.0);
        return;
    }
    vec3 lap = (neighbour_sum(c, nodes) - 6.0 * psi[id].xyz) / (h * h);
    res[id] = vec4(f[id].xyz + lap, 0.0);
#elif defined(RESTRICT)
    coarse_psi[id] = vec4(0.0);
    if (boundary) {
        coarse_f[id] = vec4(0.0);
        return;
    }
    uint fine = pc.size.y;
    ivec3 centre = 2 * c;
    vec3 sum = vec3(0.0);
    for (int z = -1; z <= 1; z++)
        for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++) {
                ivec3 d = ivec3(x, y, z);
                vec3 w3 = mix(vec3(0.25), vec3(0.5), equal(d, ivec3(0)));
                sum += (w3.x * w3.y * w3.z) * res[vic_node(centre + d, fine)].xyz;
            }
    coarse_f[id] = vec4(sum, 0.0);
#elif defined(PROLONG)
    if (boundary)
        return;
    uint coarse = pc.size.y;
    ivec3 base = c >> 1;
    vec3 frac = 0.5 * vec3(c & 1);
    vec3 sum = vec3(0.0);
    for (int z = 0; z <= 1; z++)
        for (int y = 0; y <= 1; y++)
            for (int x = 0; x <= 1; x++) {
                ivec3 d = ivec3(x, y, z);
                vec3 w3 = mix(1.0 - frac, frac, equal(d, ivec3(1)));
                float w = w3.x * w3.y * w3.z;
                if (w > 0.0)
                    sum += w * coarse_psi[vic_node(base + d, coarse)].xyz;
            }
    psi[id] = vec4(psi[id].xyz + sum, 0.0);
#endif
}
