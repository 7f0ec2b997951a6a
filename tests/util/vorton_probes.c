// vorton_probes.c — see vorton_probes.h.
#include "vorton_probes.h"

#include "test_util.h"
#include "ref/vorton_ref.h"

#include <math.h>
#include <stdlib.h>

void vorton_singular_velocity(const float *pos4, const float *vort4, uint32_t n, const double x[3], double u[3])
{
    u[0] = u[1] = u[2] = 0.0;
    for (uint32_t j = 0; j < n; j++) {
        double sigma = pos4[j * 4 + 3], volume = sigma * sigma * sigma, r[3], alpha[3], c[3];
        for (int d = 0; d < 3; d++) {
            r[d] = x[d] - pos4[j * 4 + d];
            alpha[d] = vort4[j * 4 + d] * volume;
        }
        double r2 = vorton_ref_dot(r, r);
        double f = 1.0 / (4.0 * VORTON_PI * r2 * sqrt(r2));
        vorton_ref_cross(alpha, r, c);
        for (int d = 0; d < 3; d++)
            u[d] += f * c[d];
    }
}

double vorton_probe_error(cs_vorton *v, vorton_reference_fn reference, const float *pos4, const float *vort4,
                          uint32_t n, const float *points, uint32_t count)
{
    cs_context *ctx = v->ctx;
    cs_buffer in, out;
    test_buffer(ctx, &in, "probe points", count * 16);
    test_buffer(ctx, &out, "probe velocity", count * 16);
    cs_buffer_upload(ctx, &in, points, count * 16, 0);
    cs_buffer_fill(ctx, &out, 0xffffffffu); // poisoned: NaN where nothing is written
    cs_recorder rec;
    cs_recorder_create(ctx, "vorton probes", &rec);
    cs_recorder_begin(&rec);
    cs_vorton_record_velocity_at(v, &rec, &in, &out, count);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    float *gpu = calloc(count, 16);
    cs_buffer_download(ctx, &out, gpu, count * 16, 0);
    double max_err = 0.0, max_u = 0.0;
    for (uint32_t i = 0; i < count; i++) {
        double x[3] = {points[i * 4], points[i * 4 + 1], points[i * 4 + 2]}, u[3];
        reference(pos4, vort4, n, x, u);
        for (int d = 0; d < 3; d++) {
            double e = fabs(gpu[i * 4 + d] - u[d]);
            max_err = isnan(e) ? INFINITY : fmax(max_err, e);
            max_u = fmax(max_u, fabs(u[d]));
        }
    }
    cs_buffer_destroy(ctx, &in);
    cs_buffer_destroy(ctx, &out);
    free(gpu);
    return max_err / max_u;
}
