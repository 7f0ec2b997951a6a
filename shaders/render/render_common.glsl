// render_common.glsl — what every render shader shares: world → view →
// clip, shading, colour maps, fog and the sRGB encode for UNORM targets.
// tests/test_render.c re-implements each of these on the CPU.
#ifndef RENDER_COMMON_GLSL
#define RENDER_COMMON_GLSL

vec3 to_view(vec4 vx, vec4 vy, vec4 vz, vec3 p)
{
    vec4 h = vec4(p, 1.0);
    return vec3(dot(vx, h), dot(vy, h), dot(vz, h));
}

vec4 to_clip(vec4 proj, bool ortho, vec3 v)
{
    return vec4(proj.x * v.x, proj.y * v.y, proj.z * v.z + proj.w, ortho ? 1.0 : -v.z);
}

// Blinn-Phong with one directional light fixed in view space, so the
// lighting follows the camera and a sphere always reads as a sphere.
vec3 shade(vec3 albedo, vec3 n, vec3 to_eye)
{
    vec3 l = normalize(vec3(CS_RENDER_LIGHT_X, CS_RENDER_LIGHT_Y, CS_RENDER_LIGHT_Z));
    float diffuse = max(dot(n, l), 0.0);
    vec3 h = normalize(l + to_eye);
    float spec = diffuse > 0.0 ? pow(max(dot(n, h), 0.0), CS_RENDER_SHININESS) : 0.0;
    return albedo * (CS_RENDER_AMBIENT + CS_RENDER_DIFFUSE * diffuse) + vec3(CS_RENDER_SPECULAR * spec);
}

vec3 apply_fog(vec3 color, vec4 fog, float fog_start, float depth)
{
    float f = exp(-fog.w * max(depth - fog_start, 0.0));
    return mix(fog.rgb, color, f);
}

vec3 speed_color(float t)
{
    t = clamp(t, 0.0, 1.0) * 3.0;
    vec3 s0 = vec3(CS_RENDER_SPEED_STOP0), s1 = vec3(CS_RENDER_SPEED_STOP1);
    vec3 s2 = vec3(CS_RENDER_SPEED_STOP2), s3 = vec3(CS_RENDER_SPEED_STOP3);
    if (t < 1.0)
        return mix(s0, s1, t);
    if (t < 2.0)
        return mix(s1, s2, t - 1.0);
    return mix(s2, s3, t - 2.0);
}

vec3 density_color(float t)
{
    t = clamp(t, 0.0, 1.0) * 2.0;
    vec3 lo = vec3(CS_RENDER_DENSITY_LOW), mid = vec3(CS_RENDER_DENSITY_MID), hi = vec3(CS_RENDER_DENSITY_HIGH);
    return t < 1.0 ? mix(lo, mid, t) : mix(mid, hi, t - 1.0);
}

// The exact sRGB transfer function, for swapchains that only offer UNORM.
vec3 encode_srgb(vec3 c)
{
    c = clamp(c, 0.0, 1.0);
    vec3 lo = c * 12.92;
    vec3 hi = 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055;
    return mix(hi, lo, lessThanEqual(c, vec3(0.0031308)));
}

vec4 output_color(vec3 linear, uint flags)
{
    return vec4((flags & CS_RENDER_FLAG_ENCODE_SRGB) != 0u ? encode_srgb(linear) : linear, 1.0);
}

#endif
