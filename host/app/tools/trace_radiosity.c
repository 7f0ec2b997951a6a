// trace_radiosity.c — `cistern trace --radiosity S`: the scene's radiosity
// solution (pipelines/light/radiosity.h, the double CPU solver, patches of S m)
// seen through the path tracer's camera, for the side-by-side picture. One
// ray a pixel through its centre on the CPU BVH; the pixel shows B / pi of
// the patch it hits (piecewise constant, as radiosity is).
#include "trace_radiosity.h"

#include "radiosity.h"

#include <math.h>

static const double PI = 3.14159265358979323846;

// Enough bounces to converge on albedos up to about 0.8 (the Cornell box's
// solution changes by under 1e-7 of its peak after 22; test_cornell_radiosity).
#define RADIOSITY_BOUNCES 64u

// Is p inside triangle q (same plane)? Barycentrics with a small tolerance,
// so a hit on a shared edge belongs to one of the two.
static bool inside(const float q[3][3], const double p[3])
{
    double e1[3], e2[3], d[3];
    for (int k = 0; k < 3; k++)
        e1[k] = q[1][k] - q[0][k], e2[k] = q[2][k] - q[0][k], d[k] = p[k] - q[0][k];
    double d11 = 0, d12 = 0, d22 = 0, d1p = 0, d2p = 0;
    for (int k = 0; k < 3; k++) {
        d11 += e1[k] * e1[k], d12 += e1[k] * e2[k], d22 += e2[k] * e2[k];
        d1p += e1[k] * d[k], d2p += e2[k] * d[k];
    }
    double det = d11 * d22 - d12 * d12;
    if (!(det > 0.0))
        return false;
    double u = (d22 * d1p - d12 * d2p) / det, v = (d11 * d2p - d12 * d1p) / det;
    const double eps = 1e-6;
    return u >= -eps && v >= -eps && u + v <= 1.0 + eps;
}

// The patch of scene triangle `tri` that holds p: patches of one triangle
// are consecutive from first[tri]; the nearest centre if rounding puts p in
// none of them.
static uint32_t patch_at(const cs_radiosity_compiled *c, const uint32_t *first, uint32_t tri, const double p[3])
{
    uint32_t best = first[tri];
    double best_d2 = INFINITY;
    for (uint32_t i = first[tri]; i < first[tri + 1]; i++) {
        if (inside(c->corners[i], p))
            return i;
        const float *m = &c->patches[i].center_area.x;
        double d2 = (p[0] - m[0]) * (p[0] - m[0]) + (p[1] - m[1]) * (p[1] - m[1]) + (p[2] - m[2]) * (p[2] - m[2]);
        if (d2 < best_d2)
            best_d2 = d2, best = i;
    }
    return best;
}

bool cs_trace_radiosity_image(const cs_tri *tris, uint32_t tri_count, const cs_bvh *bvh,
                              const struct cs_pt_push *camera, double patch_size, float *rgb,
                              cs_trace_radiosity_info *info, cs_error *err)
{
    cs_radiosity_compiled c;
    if (!cs_radiosity_compile(tris, tri_count, patch_size, bvh, &c, err))
        return false;
    double *b = malloc((size_t)(c.patch_count ? c.patch_count : 1) * 3 * sizeof *b);
    uint32_t *first = calloc((size_t)tri_count + 1, sizeof *first);
    CS_ASSERT(b && first, "out of host memory");
    double start = cs_now_seconds();
    cs_radiosity_solve(&c, NULL, RADIOSITY_BOUNCES, b);
    info->solve_seconds = cs_now_seconds() - start;
    // make_patches writes each triangle's patches together, in order.
    for (uint32_t i = 0; i < c.patch_count; i++)
        first[c.patch_tri[i] + 1] = i + 1;
    for (uint32_t t = 1; t <= tri_count; t++)
        if (first[t] < first[t - 1])
            first[t] = first[t - 1];

    const float *o = &camera->origin.x, *f = &camera->forward.x, *r = &camera->right.x, *u = &camera->up.x;
    for (uint32_t py = 0; py < camera->height; py++)
        for (uint32_t px = 0; px < camera->width; px++) {
            double sx = 2.0 * (px + 0.5) / camera->width - 1.0, sy = 1.0 - 2.0 * (py + 0.5) / camera->height;
            double origin[3] = {o[0], o[1], o[2]}, dir[3];
            for (int k = 0; k < 3; k++)
                dir[k] = f[k] + sx * r[k] + sy * u[k];
            cs_ray_hit hit = cs_bvh_cast(bvh, origin, dir, 0.0, INFINITY);
            float *out = &rgb[3 * ((size_t)py * camera->width + px)];
            out[0] = out[1] = out[2] = 0.0f;
            if (!hit.hit)
                continue;
            double p[3];
            for (int k = 0; k < 3; k++)
                p[k] = origin[k] + hit.t * dir[k];
            uint32_t patch = patch_at(&c, first, bvh->tri_source[hit.tri], p);
            for (int k = 0; k < 3; k++)
                out[k] = (float)(b[3 * patch + k] / PI);
        }
    info->patches = c.patch_count;
    info->links = c.link_count;
    info->compile_seconds = c.compile_seconds;
    free(b);
    free(first);
    cs_radiosity_free(&c);
    return true;
}
