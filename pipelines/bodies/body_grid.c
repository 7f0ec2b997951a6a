// body_grid.c — see body_grid.h.
#include "body_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CS_BODY_GRID_SIDE_CELLS 64.0f // the longest side in cells at most, when h is small

static float largest_smoothing_radius(const cs_scene *scene)
{
    float h = scene->smoothing_radius;
    for (uint32_t i = 0; i < scene->fluid_count && scene->fluids; i++)
        h = fmaxf(h, scene->fluids[i].smoothing_radius);
    return h > 0.0f ? h : 0.0f;
}

static uint32_t cells_along(float extent, float cell)
{
    float n = ceilf(extent / cell);
    return n >= 1.0f ? (uint32_t)n : 1u;
}

void cs_body_grid_layout(const cs_scene *scene, cs_body_grid *grid)
{
    memset(grid, 0, sizeof *grid);
    int axes = scene->dim == 3 ? 3 : 2;
    float extent[3] = {0.0f, 0.0f, 0.0f}, longest = 0.0f;
    for (int a = 0; a < axes; a++) {
        extent[a] = fmaxf(scene->domain_max[a] - scene->domain_min[a], 0.0f);
        longest = fmaxf(longest, extent[a]);
    }
    float reach = largest_smoothing_radius(scene);
    float cell = fmaxf(2.0f * reach, longest / CS_BODY_GRID_SIDE_CELLS);
    if (!(cell > 0.0f) || !isfinite(cell))
        cell = 1.0f;
    uint32_t dims[3];
    for (;;) {
        for (int a = 0; a < 3; a++)
            dims[a] = a < axes ? cells_along(extent[a], cell) : 1u;
        if ((uint64_t)dims[0] * dims[1] * dims[2] <= CS_BODY_GRID_CELLS)
            break;
        cell *= 1.25f;
    }
    grid->dims = (uvec4){dims[0], dims[1], dims[2], 0u};
    grid->origin = (vec4){scene->domain_min[0], scene->domain_min[1], axes == 3 ? scene->domain_min[2] : 0.0f, cell};
    grid->reach = (vec4){reach, 0.0f, 0.0f, 0.0f};
}

// As bodies.glsl cs_body_grid_coords: the cell along one axis, clamped.
static uint32_t clamped_cell(float x, float origin, float cell, uint32_t dim)
{
    float c = floorf((x - origin) / cell);
    float top = (float)(dim - 1u);
    c = c < 0.0f ? 0.0f : c > top ? top : c;
    return (uint32_t)c;
}

// As bodies.glsl cs_body_grid_span: the cells body b is listed in.
static void body_span(const cs_body_set *set, uint32_t b, uint32_t lo[3], uint32_t hi[3])
{
    const cs_body_grid *g = &set->grid;
    vec4 c = set->bodies[b].centre;
    float r = (c.w + g->reach.x) * 1.001f + 1e-3f * g->origin.w;
    float centre[3] = {c.x, c.y, c.z}, origin[3] = {g->origin.x, g->origin.y, g->origin.z};
    uint32_t dims[3] = {g->dims.x, g->dims.y, g->dims.z};
    for (int a = 0; a < 3; a++) {
        float low = centre[a] - r, high = centre[a] + r;
        if (isnan(low) || isnan(high)) { // a NaN body: every cell, as before
            for (int k = 0; k < 3; k++)
                lo[k] = 0, hi[k] = dims[k] - 1u;
            return;
        }
        lo[a] = clamped_cell(low, origin[a], g->origin.w, dims[a]);
        hi[a] = clamped_cell(high, origin[a], g->origin.w, dims[a]);
    }
}

// Appends body b to every cell of its span: counts (fill = false, into
// starts[cell + 1]) or entries at the cells' cursors (fill = true).
static void visit_span(cs_body_set *set, uint32_t b, bool fill, uint32_t *cursor)
{
    cs_body_grid *g = &set->grid;
    uint32_t lo[3], hi[3];
    body_span(set, b, lo, hi);
    for (uint32_t z = lo[2]; z <= hi[2]; z++)
        for (uint32_t y = lo[1]; y <= hi[1]; y++)
            for (uint32_t x = lo[0]; x <= hi[0]; x++) {
                uint32_t cell = (z * g->dims.y + y) * g->dims.x + x;
                if (fill)
                    g->entries[cursor[cell]++] = b;
                else
                    g->starts[cell + 1u]++;
            }
}

void cs_body_grid_fill(cs_body_set *set)
{
    cs_body_grid *g = &set->grid;
    uint32_t cells = g->dims.x * g->dims.y * g->dims.z;
    memset(g->starts, 0, sizeof g->starts);
    g->dims.w = 0u;
    for (uint32_t b = 0; b < set->counts.x; b++)
        visit_span(set, b, false, NULL);
    for (uint32_t cell = 0; cell < cells; cell++)
        g->starts[cell + 1u] += g->starts[cell];
    if (g->starts[cells] > CS_BODY_GRID_ENTRIES)
        return;
    uint32_t *cursor = malloc(sizeof(uint32_t) * CS_MAX(cells, 1u)); // up to 64 KiB: not on the stack
    CS_ASSERT(cursor, "out of host memory");
    memcpy(cursor, g->starts, sizeof(uint32_t) * cells);
    for (uint32_t b = 0; b < set->counts.x; b++) // body order within every cell
        visit_span(set, b, true, cursor);
    free(cursor);
    g->dims.w = CS_BODY_GRID_READY;
}
