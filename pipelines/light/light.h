// light.h — point, spot and spherical lights on the host: building and
// checking a cs_light (shaders/light/light_shared.h, shared with GLSL), and
// the attenuation, windows and irradiance in double precision, the twin of
// shaders/light/light.glsl. Formulas and tests: docs/light.md.
#pragma once

#include "common.h"

#include "../../shaders/light/light_shared.h"

// 1 / (d / r + 1)^2.
double cs_light_attenuation(double d, double r);
// The attenuation at d >= 0 under `window` (CS_WINDOW_*) of range d_max;
// 0 for d >= d_max under every window but NONE.
double cs_light_falloff(double d, double r, double d_max, uint32_t window);
// The spot cone's smooth ramp (0 outside the outer cone, 1 inside the inner).
double cs_light_cone(double cos_angle, double cos_outer, double cos_inner);
// Irradiance (RGB) at p on a surface of unit normal n.
void cs_light_irradiance(const cs_light *light, const double p[3], const double n[3], double out[3]);

// The range at which a light of radius r and intensity `intensity` falls to
// `threshold` with the plain attenuation: r (sqrt(intensity / threshold) - 1).
double cs_light_range(double r, double intensity, double threshold);

// Builders. `color` is the irradiance on a surface facing the light at
// d = 0; `range` is d_max; `window` one of CS_WINDOW_* (CS_WINDOW_DEFAULT
// is RATIONAL). Angles of a spot are half-angles in radians.
cs_light cs_light_point(const float position[3], float radius, const float color[3], float range, uint32_t window);
cs_light cs_light_sphere(const float position[3], float radius, const float color[3], float range, uint32_t window);
cs_light cs_light_spot(const float position[3], const float axis[3], float inner, float outer, float radius,
                       const float color[3], float range, uint32_t window);

// False, with a message naming `what`, for a light the formulas cannot
// evaluate: r <= 0 or not finite, a window without a positive range, an
// unknown kind or window, a spot axis that is not unit length or a cone
// whose inner angle is not inside its outer one.
bool cs_light_check(const cs_light *light, const char *what, cs_error *err);
