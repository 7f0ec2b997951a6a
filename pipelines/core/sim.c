// sim.c — what sim.h's contract holds besides types: the CPU sampler of a
// level's distance field. The table of solvers is pipelines/solvers.c.
#include "sim.h"

#include <math.h>

double cs_level_field_sample(const double origin[3], double cell, const uint32_t dims[3], const float *values,
                             const double p[3])
{
    uint32_t i[3];
    double t[3];
    for (int a = 0; a < 3; a++) {
        double u = (p[a] - origin[a]) / cell;
        u = fmin(fmax(u, 0.0), (double)(dims[a] - 1));
        i[a] = (uint32_t)fmin(floor(u), (double)(dims[a] - 2));
        t[a] = u - i[a];
    }
    double sum = 0.0;
    for (int corner = 0; corner < 8; corner++) {
        double w = 1.0;
        uint32_t c[3];
        for (int a = 0; a < 3; a++) {
            uint32_t bit = (corner >> a) & 1u;
            c[a] = i[a] + bit;
            w *= bit ? t[a] : 1.0 - t[a];
        }
        sum += w * values[((size_t)c[2] * dims[1] + c[1]) * dims[0] + c[0]];
    }
    return sum;
}
