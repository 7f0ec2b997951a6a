#version 450
// ssf_shade.frag — the screen-space fluid shaded as water: the view point
// from the smoothed depth, the normal from its neighbours (the side whose
// depth is nearer, so an edge takes the surface's own side), the path in
// the water from the splatted thickness; water_shading.glsl does the rest.
// Writes the depth, so what is drawn after it is hidden behind it.
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_water_push pc; };

layout(binding = 2) uniform sampler2D scene_color;
layout(binding = 3) uniform sampler2D scene_depth;
layout(binding = 5) uniform sampler2D fluid_depth;     // smoothed view distance, 0: no fluid
layout(binding = 6) uniform sampler2D fluid_thickness; // summed chords (m)

layout(location = 0) out vec4 out_color;

#include "water_shading.glsl"

// The view point at pixel px from the smoothed distance z (> 0).
vec3 fluid_point(ivec2 px, float z)
{
    vec2 ndc = (vec2(px) + 0.5) / vec2(textureSize(fluid_depth, 0)) * 2.0 - 1.0;
    if (ortho())
        return vec3(ndc.x / pc.proj.x, ndc.y / pc.proj.y, -z);
    return vec3(ndc.x * z / pc.proj.x, ndc.y * z / pc.proj.y, -z);
}

vec3 fluid_step(ivec2 px, vec3 p, ivec2 axis)
{
    ivec2 size = textureSize(fluid_depth, 0);
    ivec2 a = clamp(px + axis, ivec2(0), size - 1), b = clamp(px - axis, ivec2(0), size - 1);
    float za = texelFetch(fluid_depth, a, 0).r, zb = texelFetch(fluid_depth, b, 0).r;
    vec3 fa = za > 0.0 ? fluid_point(a, za) - p : vec3(0.0);
    vec3 fb = zb > 0.0 ? p - fluid_point(b, zb) : vec3(0.0);
    if (za <= 0.0)
        return fb;
    if (zb <= 0.0)
        return fa;
    return abs(fa.z) <= abs(fb.z) ? fa : fb;
}

void main()
{
    ivec2 px = ivec2(gl_FragCoord.xy);
    float z = texelFetch(fluid_depth, px, 0).r;
    if (z <= 0.0)
        discard;
    vec3 p = fluid_point(px, z);
    vec3 to_eye = ortho() ? vec3(0.0, 0.0, 1.0) : normalize(-p);
    vec3 n = cross(fluid_step(px, p, ivec2(1, 0)), fluid_step(px, p, ivec2(0, 1)));
    n = length(n) > 1e-20 ? normalize(n) : to_eye;
    float thickness = texelFetch(fluid_thickness, px, 0).r;
    vec4 clip = to_clip(pc.proj, ortho(), p);
    gl_FragDepth = clamp(clip.z / clip.w, 0.0, 1.0);
    out_color = output_color(cs_water_shade(p, n, gl_FragCoord.xy, thickness), pc.modes.x);
}
