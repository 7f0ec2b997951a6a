#version 450
// trace.comp — adds pc.spp camera paths to every pixel (or, with
// CS_PT_PIXEL_LIST, to every pixel of the list: the variance pass). One
// invocation per pixel, samples in order, no atomics: the same seed gives
// the same bits. sum[p] = (rgb sum, sample count), sum_sq[p] = (rgb sum of
// squares, 0); the count is also the next sample's index.
#include "index.glsl"
#include "../geometry/geometry_shared.h"
#include "pathtrace_shared.h"

layout(local_size_x = CS_PT_THREADS) in;
layout(std430, binding = 0) readonly buffer Nodes { cs_bvh_node nodes[]; };
layout(std430, binding = 1) readonly buffer Tris { cs_tri tris[]; };
layout(std430, binding = 2) readonly buffer Lights { cs_pt_light lights[]; };
layout(std430, binding = 3) buffer Sum { vec4 sum[]; };
layout(std430, binding = 4) buffer SumSq { vec4 sum_sq[]; };
layout(std430, binding = 5) writeonly buffer Info { uvec4 info[]; };
layout(std430, binding = 6) readonly buffer PixelList { uint pixel_list[]; };
layout(push_constant) uniform Push { cs_pt_push pc; };

#include "pathtrace.glsl"

void main()
{
    uint i = cs_linear_index();
    if (i >= pc.item_count)
        return;
    uint p = (pc.flags & CS_PT_PIXEL_LIST) != 0u ? pixel_list[i] : i;
    uint px = p % pc.width, py = p / pc.width;
    vec4 acc = sum[p], acc_sq = sum_sq[p];
    uint first = uint(acc.w);
    uvec3 path;
    for (uint k = 0u; k < pc.spp; k++) {
        uint s = first + k;
        float sx = 2.0 * (float(px) + pt_random(p, s, 0u, CS_PT_DIM_START_U)) / float(pc.width) - 1.0;
        float sy = 1.0 - 2.0 * (float(py) + pt_random(p, s, 0u, CS_PT_DIM_START_V)) / float(pc.height);
        vec3 d = normalize(pc.forward.xyz + sx * pc.right.xyz + sy * pc.up.xyz);
        vec3 L = pt_trace(p, s, pc.origin.xyz, d, CS_PT_NO_HIT, vec3(0.0), path);
        acc += vec4(L, 1.0);
        acc_sq += vec4(L * L, 0.0);
    }
    sum[p] = acc;
    sum_sq[p] = acc_sq;
    info[p] = uvec4(path, 0u);
}
