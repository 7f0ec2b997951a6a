// sim.c — what sim.h's contract holds besides types: the CPU sampler of a
// level's distance field, and the expansion of a part's checkpoint table. The table of solvers is pipelines/solvers.c.
#include "sim.h"

#include <math.h>
#include <stdio.h>

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

void cs_state_expand(const cs_state_row *rows, uint32_t count, void *base, const char *prefix, cs_state_entry *out,
                     uint32_t *n, uint32_t max)
{
    for (uint32_t i = 0; i < count; i++) {
        const cs_state_row *row = &rows[i];
        uint8_t *at = (uint8_t *)base + row->offset;
        uint32_t buffers = row->buffer ? (uint32_t)(row->bytes / sizeof(cs_buffer)) : 0;
        for (uint32_t k = 0; k < (row->buffer ? buffers : 1u); k++) {
            CS_ASSERT(*n < max, "checkpoint table past %u entries at %s%s", max, prefix, row->name);
            cs_state_entry *e = &out[(*n)++];
            *e = (cs_state_entry){.row = row, .base = base, .index = k};
            CS_ASSERT(row->range != 0, "checkpoint table row %s%s names no range", prefix, row->name);
            if (row->buffer && buffers > 1)
                snprintf(e->name, sizeof e->name, "%s%s[%u]", prefix, row->name, k);
            else
                snprintf(e->name, sizeof e->name, "%s%s", prefix, row->name);
            if (!row->buffer) {
                e->host = at, e->bytes = row->bytes;
                continue;
            }
            e->buffer = (cs_buffer *)at + k;
            e->bytes = e->buffer->buffer ? e->buffer->size : 0; // a buffer the solver never made holds nothing
            if (row->live && e->bytes) {
                uint32_t live = *(const uint32_t *)((const uint8_t *)base + row->count_offset);
                uint32_t capacity = *(const uint32_t *)((const uint8_t *)base + row->capacity_offset);
                e->live = true;
                e->bytes = capacity ? (size_t)(e->bytes / capacity) * live : 0;
            }
        }
    }
}
