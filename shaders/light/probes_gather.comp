#version 450
// probes_gather.comp — the first probe pass: every invocation casts one
// chunk (CS_PROBE_CHUNK) of one probe's K rays against the BVH and sums
// the radiance they bring back, projected onto the 9 SH basis functions.
// A ray that meets a patch's front brings that patch's current radiosity
// as radiance B / pi; one that meets a back face brings nothing and is
// counted (a probe inside geometry sees mostly back faces); one that meets
// nothing brings nothing. The directions are the host's fixed spherical
// Fibonacci set (pipelines/light/probes.c), each of solid angle 4 pi / K; that
// weight is applied in probes_finish.comp. docs/light.md, "Light probes".
#include "index.glsl"
#include "../geometry/geometry_shared.h"
#include "../light/probes_shared.h"
#include "../radiosity/radiosity_shared.h"
#include "../sh/sh.glsl"
layout(local_size_x = CS_PROBE_GROUP) in;
layout(std430, binding = 0) readonly buffer Nodes { cs_bvh_node nodes[]; };
layout(std430, binding = 1) readonly buffer Tris { cs_tri tris[]; };
// Per BVH triangle: x its first patch, y its lattice side n (n^2 patches).
layout(std430, binding = 2) readonly buffer TriPatches { uvec4 tri_patches[]; };
layout(std430, binding = 3) readonly buffer Radiosity { vec4 radiosity[]; };
layout(std430, binding = 4) readonly buffer Directions { vec4 directions[]; };
layout(std430, binding = 5) readonly buffer Probes { cs_probe_grid grid; cs_probe probes[]; };
layout(std430, binding = 6) writeonly buffer Partials { vec4 partials[]; };
layout(push_constant) uniform Push { cs_probes_push pc; };

#include "../geometry/bvh.glsl"
#include "../light/probes.glsl"

// The patch of BVH triangle `tri` holding barycentrics (u, v): the lattice
// of pipelines/light/radiosity.c's make_patches (rows a along u, b along v; in
// each cell the lower triangle, then the upper one when it exists).
uint hit_patch(uint tri, float u, float v)
{
    uint first = tri_patches[tri].x, n = tri_patches[tri].y;
    float fn = float(n);
    uint a = min(uint(max(u * fn, 0.0)), n - 1u);
    uint b = min(uint(max(v * fn, 0.0)), n - 1u - a);
    bool upper = (u * fn - float(a)) + (v * fn - float(b)) > 1.0 && a + b + 1u < n;
    return first + a * (2u * n - a) + 2u * b + (upper ? 1u : 0u);
}

void main()
{
    uint item = cs_linear_index();
    if (item >= pc.probe_count * pc.chunks)
        return;
    uint p = item / pc.chunks, chunk = item % pc.chunks;
    vec3 o = cs_probe_position(p);
    vec3 sums[CS_SH_COUNT];
    for (int i = 0; i < CS_SH_COUNT; i++)
        sums[i] = vec3(0.0);
    float back = 0.0;
    uint first = chunk * CS_PROBE_CHUNK, last = min(first + CS_PROBE_CHUNK, pc.rays);
    for (uint k = first; k < last; k++) {
        vec3 d = directions[k].xyz;
        vec3 tuv;
        uint hit = bvh_cast(o, d, 0.0, 3.0e38, false, tuv);
        if (hit == CS_BVH_NO_HIT) {
            back += pc.closed != 0u ? 1.0 : 0.0; // outside a closed level
            continue;
        }
        vec3 normal = cross(tris[hit].v1.xyz - tris[hit].v0.xyz, tris[hit].v2.xyz - tris[hit].v0.xyz);
        if (dot(normal, d) >= 0.0) {
            back += 1.0;
            continue;
        }
        vec3 radiance = max(radiosity[hit_patch(hit, tuv.y, tuv.z)].rgb, vec3(0.0)) / CS_PROBES_PI;
        float y[CS_SH_COUNT];
        cs_sh_basis(d, y);
        for (int i = 0; i < CS_SH_COUNT; i++)
            sums[i] += radiance * y[i];
    }
    uint base = item * CS_PROBE_PARTIAL_VEC4;
    // 27 floats coefficient-major, then the back-face count.
    float f[28];
    for (int i = 0; i < CS_SH_COUNT; i++) {
        f[3 * i] = sums[i].r;
        f[3 * i + 1] = sums[i].g;
        f[3 * i + 2] = sums[i].b;
    }
    f[27] = back;
    for (uint q = 0u; q < CS_PROBE_PARTIAL_VEC4; q++)
        partials[base + q] = vec4(f[4 * q], f[4 * q + 1], f[4 * q + 2], f[4 * q + 3]);
}
