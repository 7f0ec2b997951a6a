#version 450
// vic_curl.comp — the velocity on the nodes, u = curl(psi), by central
// differences (one-sided on the boundary faces, where a neighbour is missing).
#include "vorton_shared.h"
#include "vic_shared.h"
#include "vic_common.glsl"

layout(local_size_x = VIC_WG) in;
layout(push_constant) uniform PushBlock { vic_push pc; };

layout(std430, binding = 0) readonly buffer Psi { vec4 psi[]; };
layout(std430, binding = 1) writeonly buffer Vel { vec4 vel[]; };

// d psi / d x_axis at node c.
vec3 derivative(ivec3 c, int axis, uint nodes, float h)
{
    ivec3 step = ivec3(0);
    step[axis] = 1;
    ivec3 hi = min(c + step, ivec3(nodes - 1u));
    ivec3 lo = max(c - step, ivec3(0));
    float span = float(hi[axis] - lo[axis]) * h;
    return (psi[vic_node(hi, nodes)].xyz - psi[vic_node(lo, nodes)].xyz) / span;
}

void main()
{
    uint id = gl_GlobalInvocationID.x;
    if (id >= pc.size.w)
        return;
    uint nodes = pc.size.x;
    float h = box.grid.w;
    ivec3 c = vic_node_coords(id, nodes);
    vec3 dx = derivative(c, 0, nodes, h), dy = derivative(c, 1, nodes, h), dz = derivative(c, 2, nodes, h);
    vel[id] = vec4(dy.z - dz.y, dz.x - dx.z, dx.y - dy.x, 0.0);
}
