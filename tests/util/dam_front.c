// dam_front.c — see dam_front.h.
#include "dam_front.h"

#include "buffer.h"
#include "common.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

static const double mm_t[] = {0.0, 0.832, 1.219, 1.997, 2.547, 3.345};
static const double mm_z[] = {1.0, 1.217, 1.474, 2.292, 2.995, 4.134};

double dam_martin_moyce(double t)
{
    size_t n = CS_ARRAY_COUNT(mm_t);
    for (size_t k = 1; k < n; k++)
        if (t <= mm_t[k] || k == n - 1)
            return mm_z[k - 1] + (mm_z[k] - mm_z[k - 1]) * (t - mm_t[k - 1]) / (mm_t[k] - mm_t[k - 1]);
    return mm_z[n - 1];
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

double dam_front_of(cs_context *ctx, const cs_sim_ops *ops, void *state, double spacing, double *max_speed)
{
    cs_particle_view v;
    ops->particles(state, &v);
    float *pos = malloc((size_t)v.count * 16 + 16), *vel = malloc((size_t)v.count * 16 + 16);
    float *x = malloc((size_t)v.count * 4 + 4);
    CS_ASSERT(pos && vel && x, "out of memory");
    cs_buffer_download(ctx, v.positions, pos, (VkDeviceSize)v.count * 16, 0);
    cs_buffer_download(ctx, v.velocities, vel, (VkDeviceSize)v.count * 16, 0);
    bool finite = true;
    *max_speed = 0.0;
    for (uint32_t i = 0; i < v.count; i++) {
        x[i] = pos[4 * i];
        double s = sqrt((double)vel[4 * i] * vel[4 * i] + (double)vel[4 * i + 1] * vel[4 * i + 1] +
                        (double)vel[4 * i + 2] * vel[4 * i + 2]);
        finite &= isfinite(x[i]) && isfinite(s);
        *max_speed = fmax(*max_speed, s);
    }
    qsort(x, v.count, sizeof(float), compare_floats);
    double front = v.count && finite ? x[(uint32_t)(0.99 * (v.count - 1))] + 0.5 * spacing : NAN;
    free(pos);
    free(vel);
    free(x);
    return front;
}
