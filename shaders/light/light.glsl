// light.glsl — irradiance from point, spot and spherical lights with the
// spherical-light attenuation and its finite-influence windows
// (light_shared.h says the formulas; pipelines/light/light.c is the C twin that
// tests/test_light.c compares against).
#ifndef CS_LIGHT_GLSL
#define CS_LIGHT_GLSL

#include "light_shared.h"

// 1 / (d / r + 1)^2 for d >= 0 (d = +inf gives 0).
float cs_light_attenuation(float d, float r)
{
    float q = d / r + 1.0;
    return 1.0 / (q * q);
}

// The attenuation at distance d >= 0 under a window of range d_max.
float cs_light_falloff(float d, float r, float d_max, uint window)
{
    if (window == CS_WINDOW_NONE)
        return cs_light_attenuation(d, r);
    if (!(d < d_max)) // also catches a NaN d
        return 0.0;
    if (window == CS_WINDOW_CUTOFF) {
        float c = cs_light_attenuation(d_max, r);
        return max((cs_light_attenuation(d, r) - c) / (1.0 - c), 0.0);
    }
    float u = d / d_max;
    float dw;
    if (window == CS_WINDOW_TAN) {
        const float half_pi = 1.57079632679490;
        float t = tan(half_pi * u);
        // float(pi / 2) is a little above pi / 2: u a few ulps below 1 can
        // land past the pole, where tan is negative. That is d_max.
        if (!(t >= 0.0))
            return 0.0;
        dw = d_max / half_pi * t;
    } else {
        dw = d / (1.0 - u * u);
    }
    return cs_light_attenuation(dw, r);
}

// Smooth ramp 0 -> 1 between the outer and inner cone cosines (cubic
// Hermite); a degenerate cone (inner <= outer) is a hard edge at outer.
float cs_light_cone(float cos_angle, float cos_outer, float cos_inner)
{
    if (!(cos_inner > cos_outer))
        return cos_angle >= cos_outer ? 1.0 : 0.0;
    float t = clamp((cos_angle - cos_outer) / (cos_inner - cos_outer), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

// Irradiance at point p on a surface of unit normal n.
vec3 cs_light_irradiance(cs_light light, vec3 p, vec3 n)
{
    vec3 to_light = light.position_radius.xyz - p;
    float r = light.position_radius.w;
    float dist = length(to_light);
    // At the centre there is no direction: take the surface as facing it.
    vec3 l = dist > 0.0 ? to_light / dist : n;
    float d = light.kind.x == CS_LIGHT_SPHERE ? max(dist - r, 0.0) : dist;
    float e = cs_light_falloff(d, r, light.params.y, light.kind.y) * max(dot(n, l), 0.0);
    if (light.kind.x == CS_LIGHT_SPOT)
        e *= cs_light_cone(dot(-l, light.spot.xyz), light.spot.w, light.params.x);
    return light.color.rgb * e;
}

#endif
