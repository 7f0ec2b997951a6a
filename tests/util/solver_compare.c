// solver_compare.c — see solver_compare.h.
#include "solver_compare.h"

#include <float.h>

void compare_download(cs_context *ctx, cs_buffer *b, void *dst, uint32_t n, uint32_t stride)
{
    if (n)
        cs_buffer_download(ctx, b, dst, (VkDeviceSize)n * stride, 0);
}

double *compare_to_double(const float *src, size_t count)
{
    double *d = malloc(sizeof(double) * (count + 1));
    CS_ASSERT(d, "out of memory for %zu doubles", count);
    for (size_t i = 0; i < count; i++)
        d[i] = src[i];
    return d;
}

uint32_t compare_non_finite(const float *v, size_t count)
{
    uint32_t bad = 0;
    for (size_t i = 0; i < count; i++)
        bad += test_not_finite(v[i]);
    return bad;
}

vec_error compare_vec(const double *gpu, const double *gpu_base, const double *ref, const double *ref_base, uint32_t n,
                      int dim)
{
    vec_error e = {0, 0, 0};
    double max_coord = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double e2 = 0.0, s2 = 0.0;
        for (int a = 0; a < dim; a++) {
            double g = gpu[4 * i + a] - (gpu_base ? gpu_base[4 * i + a] : 0.0);
            double r = ref[4 * i + a] - (ref_base ? ref_base[4 * i + a] : 0.0);
            e2 += (g - r) * (g - r);
            s2 += r * r;
            max_coord = fmax(max_coord, fabs(gpu[4 * i + a]));
        }
        if (isnan(e2))
            return (vec_error){INFINITY, 1.0, 0.0};
        e.err = fmax(e.err, sqrt(e2));
        e.scale = fmax(e.scale, sqrt(s2));
    }
    e.floor = gpu_base ? 4.0 * FLT_EPSILON * max_coord * sqrt((double)dim) : 0.0;
    return e;
}

double compare_rel(vec_error e) { return e.scale > 0.0 ? e.err / e.scale : e.err; }
bool compare_within(vec_error e, double tol) { return e.err <= tol * e.scale + e.floor; }
