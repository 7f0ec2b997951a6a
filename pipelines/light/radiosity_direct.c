// radiosity_direct.c — direct light on every patch in double, the twin of
// shaders/radiosity/direct.comp (see cs_radiosity_direct_cpu).
#include "radiosity_gpu.h"

#include "light.h"

#include <math.h>

static const double PI = 3.14159265358979323846;
// Shadow rays stop this fraction short of their end (the light itself).
static const double SHORT = 1e-4;

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void punctual(const cs_bvh *bvh, const cs_light *light, const double o[3], const double n[3], double h[3])
{
    double e[3];
    cs_light_irradiance(light, o, n, e);
    // Negative lights (TR1 room lights of negative intensity) subtract.
    if (!(fmax(fabs(e[0]), fmax(fabs(e[1]), fabs(e[2]))) > 0.0))
        return;
    double to[3] = {light->position_radius.x - o[0], light->position_radius.y - o[1],
                    light->position_radius.z - o[2]};
    double dist = sqrt(dot3(to, to));
    double end = light->kind.x == CS_LIGHT_SPHERE ? 1.0 - light->position_radius.w / dist : 1.0;
    if (end > 0.0 && !cs_bvh_unoccluded(bvh, o, to, 0.0, end - SHORT))
        return;
    for (int k = 0; k < 3; k++)
        h[k] += e[k];
}

static void area(const cs_bvh *bvh, const cs_area_light *light, uint32_t s, const double o[3], const double n[3],
                 double h[3])
{
    double c[3] = {light->corner.x, light->corner.y, light->corner.z};
    double eu[3] = {light->edge_u.x, light->edge_u.y, light->edge_u.z};
    double ev[3] = {light->edge_v.x, light->edge_v.y, light->edge_v.z};
    double nl[3] = {eu[1] * ev[2] - eu[2] * ev[1], eu[2] * ev[0] - eu[0] * ev[2], eu[0] * ev[1] - eu[1] * ev[0]};
    double quad_area = sqrt(dot3(nl, nl));
    for (int k = 0; k < 3; k++)
        nl[k] /= quad_area;
    double sum = 0.0;
    for (uint32_t a = 0; a < s; a++) {
        for (uint32_t b = 0; b < s; b++) {
            double w[3];
            for (int k = 0; k < 3; k++)
                w[k] = c[k] + eu[k] * ((a + 0.5) / s) + ev[k] * ((b + 0.5) / s) - o[k];
            double r2 = dot3(w, w), cos_p = dot3(n, w), cos_l = -dot3(nl, w);
            if (cos_p > 0.0 && cos_l > 0.0 && cs_bvh_unoccluded(bvh, o, w, 0.0, 1.0 - SHORT))
                sum += cos_p * cos_l / (r2 * r2);
        }
    }
    double weight = quad_area / ((double)s * s) / PI;
    const float m[3] = {light->exitance.x, light->exitance.y, light->exitance.z};
    for (int k = 0; k < 3; k++)
        h[k] += m[k] * sum * weight;
}

void cs_radiosity_direct_cpu(const cs_radiosity_compiled *c, const cs_bvh *bvh, const cs_light *lights,
                             uint32_t light_count, const cs_area_light *area_lights, uint32_t area_count,
                             uint32_t samples, double *direct)
{
    for (uint32_t i = 0; i < c->patch_count; i++) {
        const cs_patch *p = &c->patches[i];
        double n[3] = {p->normal.x, p->normal.y, p->normal.z};
        double lift = 1e-4 * sqrt(p->center_area.w);
        double o[3] = {p->center_area.x + lift * n[0], p->center_area.y + lift * n[1],
                       p->center_area.z + lift * n[2]};
        double h[3] = {0, 0, 0};
        for (uint32_t l = 0; l < light_count; l++)
            punctual(bvh, &lights[l], o, n, h);
        for (uint32_t l = 0; l < area_count; l++)
            area(bvh, &area_lights[l], samples, o, n, h);
        for (int k = 0; k < 3; k++)
            direct[3 * i + k] = fmax(h[k], 0.0); // as direct.comp: never below nothing
    }
}
