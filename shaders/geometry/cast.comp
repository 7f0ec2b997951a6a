#version 450
// cast.comp — one ray per invocation against the BVH (bvh.glsl): nearest
// hit, or any hit with CS_CAST_ANY_HIT (a shadow or visibility ray, which
// stops at the first triangle it meets). Radiosity's compile-time
// visibility and the GPU-vs-CPU walk test use it.
#include "index.glsl"
#include "../geometry/geometry_shared.h"
#include "../geometry/cast_shared.h"
layout(local_size_x = CS_CAST_GROUP) in;
layout(std430, binding = 0) readonly buffer Nodes { cs_bvh_node nodes[]; };
layout(std430, binding = 1) readonly buffer Tris { cs_tri tris[]; };
layout(std430, binding = 2) readonly buffer Rays { cs_ray rays[]; };
layout(std430, binding = 3) writeonly buffer Hits { cs_cast_hit hits[]; };
layout(push_constant) uniform Push { cs_cast_push pc; };

#include "../geometry/bvh.glsl"

void main()
{
    uint i = cs_linear_index();
    if (i >= pc.ray_count)
        return;
    cs_ray r = rays[i];
    vec3 tuv;
    bool any_hit = (pc.flags & CS_CAST_ANY_HIT) != 0u;
    uint tri = bvh_cast(r.origin_tmin.xyz, r.dir_tmax.xyz, r.origin_tmin.w, r.dir_tmax.w, any_hit, tuv);
    hits[i] = cs_cast_hit(tri, tuv.x, tuv.y, tuv.z);
}
