// water_shading.glsl — the water's optics for one pixel (water.frag over a
// marching-cubes surface, ssf_shade.frag over the particles' smoothed
// depth): Fresnel, the sky reflected, the scene refracted and absorbed, the
// sun's highlight. The including shader declares `pc`
// (cs_render_water_push) and the samplers scene_color, scene_depth.
// docs/surface.md, "Water".
#ifndef CS_WATER_SHADING_GLSL
#define CS_WATER_SHADING_GLSL

#include "sky.glsl"

bool ortho() { return (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u; }

vec3 to_world(vec3 d) { return d.x * pc.view_x.xyz + d.y * pc.view_y.xyz + d.z * pc.view_z.xyz; }

vec3 decode_srgb(vec3 c)
{
    vec3 lo = c / 12.92;
    vec3 hi = pow((c + 0.055) / 1.055, vec3(2.4));
    return mix(hi, lo, lessThanEqual(c, vec3(0.04045)));
}

// The view-space point at pixel coordinates `pixel` (centres at .5) and
// depth d: clip = (sx x, sy y, a z + b, ortho ? 1 : -z) undone.
vec3 view_at(vec2 pixel, float d)
{
    vec2 ndc = pixel / vec2(textureSize(scene_depth, 0)) * 2.0 - 1.0;
    if (ortho())
        return vec3(ndc.x / pc.proj.x, ndc.y / pc.proj.y, (d - pc.proj.w) / pc.proj.z);
    float z = -pc.proj.w / (d + pc.proj.z);
    return vec3(-ndc.x * z / pc.proj.x, -ndc.y * z / pc.proj.y, z);
}

vec2 to_pixel(vec3 v)
{
    vec4 c = to_clip(pc.proj, ortho(), v);
    return (c.xy / c.w * 0.5 + 0.5) * vec2(textureSize(scene_depth, 0));
}

float depth_at(ivec2 p)
{
    ivec2 size = textureSize(scene_depth, 0);
    return texelFetch(scene_depth, clamp(p, ivec2(0), size - 1), 0).r;
}

// The neighbour along `axis` on the side whose depth is nearest q's (a
// silhouette then borrows the surface's own side), minus q.
vec3 step_along(ivec2 px, vec3 q, ivec2 axis)
{
    vec3 a = view_at(vec2(px + axis) + 0.5, depth_at(px + axis)) - q;
    vec3 b = q - view_at(vec2(px - axis) + 0.5, depth_at(px - axis));
    return abs(a.z) <= abs(b.z) ? a : b;
}

// The colour of water seen at view point p (the fragment at `frag`,
// gl_FragCoord.xy) with normal n; `inside`: how far the view ray runs in
// the water from p (the back face, the particles' thickness; < 0: unknown,
// the path runs to the opaque surface behind).
vec3 cs_water_shade(vec3 p, vec3 n, vec2 frag, float inside)
{
    vec3 to_eye = ortho() ? vec3(0.0, 0.0, 1.0) : normalize(-p);
    n = dot(n, to_eye) < 0.0 ? -n : n; // the side the eye sees
    float cos_i = clamp(dot(n, to_eye), 0.0, 1.0);
    float fresnel = CS_RENDER_WATER_F0 + (1.0 - CS_RENDER_WATER_F0) * pow(1.0 - cos_i, 5.0);
    vec3 reflected = cs_sky(normalize(to_world(reflect(-to_eye, n))));
    vec3 t_dir = refract(-to_eye, n, 1.0 / CS_RENDER_WATER_IOR);
    float cos_t = max(-dot(t_dir, n), 1e-3);

    ivec2 px = ivec2(frag);
    float d0 = depth_at(px);
    vec3 behind;
    float path = 0.0;
    if (d0 >= 1.0) {
        behind = cs_sky(normalize(to_world(t_dir)));
        path = 1e30;
    } else {
        vec3 q = view_at(frag, d0);
        vec3 nq = cross(step_along(px, q, ivec2(1, 0)), step_along(px, q, ivec2(0, 1)));
        nq = length(nq) > 1e-20 ? normalize(nq) : to_eye;
        nq = dot(nq, to_eye) < 0.0 ? -nq : nq;
        float denom = dot(t_dir, nq);
        path = denom < -1e-4 ? dot(q - p, nq) / denom : length(q - p);
        path = max(path, 0.0);
        vec2 hit = to_pixel(p + t_dir * path);
        vec2 size = vec2(textureSize(scene_color, 0));
        hit = clamp(hit, vec2(0.5), size - 0.5);
        // What lies there is in front of the water: look straight through.
        if (view_at(hit, depth_at(ivec2(hit))).z > p.z)
            hit = frag;
        behind = texture(scene_color, hit / size).rgb;
        if ((pc.modes.x & CS_RENDER_FLAG_ENCODE_SRGB) != 0u)
            behind = decode_srgb(behind);
    }
    if (inside >= 0.0)
        path = min(path, inside * cos_i / cos_t);
    if (path > 1e29)
        path = 0.0; // no way out and nothing behind: a sliver
    vec3 transmitted = behind * exp(-pc.absorption.xyz * path);

    vec3 h = normalize(pc.sun.xyz + to_eye);
    float spec = CS_RENDER_WATER_SUN * pow(max(dot(n, h), 0.0), CS_RENDER_WATER_SHININESS);
    vec3 c = (1.0 - fresnel) * transmitted + fresnel * reflected + spec * vec3(CS_RENDER_SUN_COLOR);
    return apply_fog(c, pc.fog, pc.absorption.w, -p.z);
}

#endif
