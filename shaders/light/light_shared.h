// light_shared.h — punctual and spherical lights with the spherical-light
// attenuation curve and finite-influence windows, read by C
// (pipelines/light/light.c) and GLSL (shaders/light/light.glsl). Formulas and
// the reasoning behind them: docs/light.md.
//
// Attenuation of a spherical light of radius r at distance d from its
// surface (a point light: from its centre, r then only sets the knee):
//     f(d) = 1 / (d / r + 1)^2
// which is the irradiance of a uniformly emitting sphere, relative to its
// value at the surface, at any point that sees the whole sphere above its
// horizon (cosine factor aside). Windows bring it to zero at a range d_max:
//     CUTOFF    (f - c) / (1 - c), c = f(d_max), clamped at 0: zero value at
//               d_max but NOT zero slope (a kink: Mach bands)
//     TAN       f(d'), d' = (2 d_max / pi) tan(pi d / (2 d_max))
//     RATIONAL  f(d'), d' = d / (1 - (d / d_max)^2)        (the default)
// TAN and RATIONAL send d' to infinity at d_max, so both value and slope
// reach zero there; both keep d' ~ d near the light. Every window is 0 for
// d >= d_max.
#ifndef LIGHT_SHARED_H
#define LIGHT_SHARED_H

#include "cs_shared.h"

#define CS_LIGHT_POINT 0u
#define CS_LIGHT_SPOT 1u
#define CS_LIGHT_SPHERE 2u

#define CS_WINDOW_NONE 0u
#define CS_WINDOW_CUTOFF 1u
#define CS_WINDOW_TAN 2u
#define CS_WINDOW_RATIONAL 3u
#define CS_WINDOW_DEFAULT CS_WINDOW_RATIONAL

struct cs_light {
    vec4 position_radius;   // xyz centre, w radius r > 0
    vec4 color;             // rgb: irradiance on a surface facing the light at d = 0
                            // (a sphere of radiance Le: pi Le); w unused
    vec4 spot;              // spot lights: xyz unit axis (the way it shines), w cos(outer half-angle)
    vec4 params;            // x spot cos(inner half-angle), y range d_max > 0 (every window but NONE)
    uvec4 kind;             // x CS_LIGHT_*, y CS_WINDOW_*
};

#ifndef CS_GLSL
typedef struct cs_light cs_light;
#endif

#endif
