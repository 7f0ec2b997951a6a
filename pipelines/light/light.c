// light.c — point, spot and spherical lights on the host (see light.h).
#include "light.h"

#include <math.h>

_Static_assert(sizeof(cs_light) == 80, "cs_light is not std430-packed");

static const double PI = 3.14159265358979323846;

double cs_light_attenuation(double d, double r)
{
    double q = d / r + 1.0;
    return 1.0 / (q * q);
}

double cs_light_falloff(double d, double r, double d_max, uint32_t window)
{
    if (window == CS_WINDOW_NONE)
        return cs_light_attenuation(d, r);
    if (!(d < d_max))
        return 0.0;
    if (window == CS_WINDOW_CUTOFF) {
        double c = cs_light_attenuation(d_max, r);
        return fmax((cs_light_attenuation(d, r) - c) / (1.0 - c), 0.0);
    }
    double u = d / d_max, dw;
    if (window == CS_WINDOW_TAN) {
        double t = tan(0.5 * PI * u);
        if (!(t >= 0.0))
            return 0.0;
        dw = 2.0 * d_max / PI * t;
    } else {
        dw = d / (1.0 - u * u);
    }
    return cs_light_attenuation(dw, r);
}

double cs_light_cone(double cos_angle, double cos_outer, double cos_inner)
{
    if (!(cos_inner > cos_outer))
        return cos_angle >= cos_outer ? 1.0 : 0.0;
    double t = fmin(fmax((cos_angle - cos_outer) / (cos_inner - cos_outer), 0.0), 1.0);
    return t * t * (3.0 - 2.0 * t);
}

void cs_light_irradiance(const cs_light *light, const double p[3], const double n[3], double out[3])
{
    const float *c = &light->position_radius.x;
    double to[3] = {c[0] - p[0], c[1] - p[1], c[2] - p[2]};
    double r = light->position_radius.w;
    double dist = sqrt(to[0] * to[0] + to[1] * to[1] + to[2] * to[2]);
    double l[3];
    for (int a = 0; a < 3; a++)
        l[a] = dist > 0.0 ? to[a] / dist : n[a];
    double d = light->kind.x == CS_LIGHT_SPHERE ? fmax(dist - r, 0.0) : dist;
    double e = cs_light_falloff(d, r, light->params.y, light->kind.y) * fmax(n[0] * l[0] + n[1] * l[1] + n[2] * l[2], 0.0);
    if (light->kind.x == CS_LIGHT_SPOT) {
        double cos_angle = -(l[0] * light->spot.x + l[1] * light->spot.y + l[2] * light->spot.z);
        e *= cs_light_cone(cos_angle, light->spot.w, light->params.x);
    }
    out[0] = light->color.x * e;
    out[1] = light->color.y * e;
    out[2] = light->color.z * e;
}

double cs_light_range(double r, double intensity, double threshold)
{
    return r * (sqrt(intensity / threshold) - 1.0);
}

static cs_light make(uint32_t kind, const float position[3], float radius, const float color[3], float range,
                     uint32_t window)
{
    cs_light l;
    memset(&l, 0, sizeof l);
    l.position_radius = (vec4){position[0], position[1], position[2], radius};
    l.color = (vec4){color[0], color[1], color[2], 0.0f};
    l.spot = (vec4){0.0f, 0.0f, -1.0f, -1.0f}; // not a spot: the whole sphere
    l.params = (vec4){-1.0f, range, 0.0f, 0.0f};
    l.kind = (uvec4){kind, window, 0, 0};
    return l;
}

cs_light cs_light_point(const float position[3], float radius, const float color[3], float range, uint32_t window)
{
    return make(CS_LIGHT_POINT, position, radius, color, range, window);
}

cs_light cs_light_sphere(const float position[3], float radius, const float color[3], float range, uint32_t window)
{
    return make(CS_LIGHT_SPHERE, position, radius, color, range, window);
}

cs_light cs_light_spot(const float position[3], const float axis[3], float inner, float outer, float radius,
                       const float color[3], float range, uint32_t window)
{
    cs_light l = make(CS_LIGHT_SPOT, position, radius, color, range, window);
    l.spot = (vec4){axis[0], axis[1], axis[2], cosf(outer)};
    l.params.x = cosf(inner);
    return l;
}

bool cs_light_check(const cs_light *light, const char *what, cs_error *err)
{
    float r = light->position_radius.w, range = light->params.y;
    if (light->kind.x > CS_LIGHT_SPHERE)
        return cs_fail(err, "%s: unknown light kind %u (point 0, spot 1, sphere 2)", what, light->kind.x);
    if (light->kind.y > CS_WINDOW_RATIONAL)
        return cs_fail(err, "%s: unknown window %u (none 0, cutoff 1, tan 2, rational 3)", what, light->kind.y);
    if (!(r > 0.0f) || !isfinite(r))
        return cs_fail(err, "%s: radius %g; it must be positive and finite (a point light's r sets where the "
                       "attenuation bends: 1 / (d / r + 1)^2)", what, r);
    if (light->kind.y != CS_WINDOW_NONE && (!(range > 0.0f) || !isfinite(range)))
        return cs_fail(err, "%s: range %g; a windowed light needs a positive, finite range d_max", what, range);
    if (light->kind.x == CS_LIGHT_SPOT) {
        double len = sqrt((double)light->spot.x * light->spot.x + (double)light->spot.y * light->spot.y +
                          (double)light->spot.z * light->spot.z);
        if (fabs(len - 1.0) > 1e-4)
            return cs_fail(err, "%s: spot axis has length %g; give a unit vector", what, len);
        if (!(light->params.x > light->spot.w))
            return cs_fail(err, "%s: spot cone: the inner half-angle must be smaller than the outer one", what);
    }
    return true;
}
