#version 450
// water.frag — a fluid surface as water, over the scene drawn before it
// (the renderer's scene copy: colour and depth) and the water's own
// back-face depth (feature_water.c), shaded by water_shading.glsl:
//   - Fresnel: Schlick, F = F0 + (1 - F0) (1 - cos i)^5, F0 = 0.02;
//   - reflection: the sky (sky.glsl) in the mirror direction;
//   - refraction: the ray bent by Snell's law (index 1.33) meets the plane
//     of the opaque surface behind the pixel (its point and normal from the
//     scene depth); the scene colour is read where that point lies on the
//     screen (or straight behind, if what lies there is in front of the
//     water); nothing opaque behind: the sky along the bent ray;
//   - absorption: exp(-sigma L) per channel, L the bent ray's path to that
//     plane, cut where the ray leaves the water (the nearest back face:
//     the view ray's length inside, times cos i / cos t);
//   - the sun's highlight (Blinn-Phong, tight).
// colour = (1 - F) transmitted + F reflected + highlight, fogged.
// Screen-space: what is off the screen or hidden behind something in
// front is not seen through the water (docs/surface.md, "Water").
#include "render_shared.h"
#include "render_common.glsl"

layout(push_constant) uniform Push { cs_render_water_push pc; };

layout(binding = 2) uniform sampler2D scene_color;
layout(binding = 3) uniform sampler2D scene_depth;
layout(binding = 4) uniform sampler2D back_depth;

layout(location = 0) in vec3 in_view_pos;
layout(location = 1) in vec3 in_view_normal;
layout(location = 0) out vec4 out_color;

#include "water_shading.glsl"

void main()
{
    vec3 p = in_view_pos;
    float len = length(in_view_normal);
    vec3 to_eye = ortho() ? vec3(0.0, 0.0, 1.0) : normalize(-p);
    vec3 n = len > 1e-6 ? in_view_normal / len : to_eye;
    // The nearest back face, where the view ray leaves the water (behind
    // the opaque scene: the opaque surface ends the path first anyway).
    float b = texelFetch(back_depth, ivec2(gl_FragCoord.xy), 0).r;
    float inside = b < min(depth_at(ivec2(gl_FragCoord.xy)), 1.0) ? length(view_at(gl_FragCoord.xy, b) - p) : -1.0;
    out_color = output_color(cs_water_shade(p, n, gl_FragCoord.xy, inside), pc.modes.x);
}
