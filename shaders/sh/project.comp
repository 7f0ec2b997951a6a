#version 450
// project.comp — first level of the SH projection of an environment:
// L_lm = sum over texels of L(texel) Y_lm(centre) Omega(texel).
// Invocation k sums texels [k ITEMS, (k + 1) ITEMS) in order and writes its
// 27 sums to partials[v * partial_count + k] (v = 3 i + channel). The solid
// angles Omega come from the host (weights[]: one per lat-long row, or one
// per face texel of a cube, the same for every face), computed there in
// double: the exact formulas lose digits to cancellation in float.
// sum.comp folds the partials; nothing here depends on timing or on atomics.
#include "index.glsl"
#include "sh.glsl"

layout(local_size_x = CS_SH_PROJECT_THREADS) in;
layout(std430, binding = 0) readonly buffer Texels { vec4 texels[]; };   // rgb radiance, w unused
layout(std430, binding = 1) readonly buffer Weights { float weights[]; };
layout(std430, binding = 2) writeonly buffer Partials { float partials[]; };
layout(push_constant) uniform Push { cs_sh_project_push pc; };

void main()
{
    uint k = cs_linear_index();
    uint partial_count = (pc.texel_count + CS_SH_PROJECT_ITEMS - 1) / CS_SH_PROJECT_ITEMS;
    if (k >= partial_count)
        return;
    vec3 acc[CS_SH_COUNT];
    for (int i = 0; i < CS_SH_COUNT; i++)
        acc[i] = vec3(0.0);
    uint begin = k * CS_SH_PROJECT_ITEMS;
    uint end = min(begin + CS_SH_PROJECT_ITEMS, pc.texel_count);
    for (uint t = begin; t < end; t++) {
        vec3 d;
        float w;
        if (pc.env_layout == CS_SH_LATLONG) {
            uint x = t % pc.width, y = t / pc.width;
            d = cs_latlong_direction(x, y, pc.width, pc.height);
            w = weights[y];
        } else {
            uint face_texels = pc.width * pc.width;
            uint face = t / face_texels, r = t % face_texels;
            d = cs_cube_direction(face, r % pc.width, r / pc.width, pc.width);
            w = weights[r];
        }
        vec3 radiance = texels[t].rgb * w;
        float y[CS_SH_COUNT];
        cs_sh_basis(d, y);
        for (int i = 0; i < CS_SH_COUNT; i++)
            acc[i] += radiance * y[i];
    }
    for (int i = 0; i < CS_SH_COUNT; i++)
        for (int c = 0; c < 3; c++)
            partials[uint(3 * i + c) * partial_count + k] = acc[i][c];
}
