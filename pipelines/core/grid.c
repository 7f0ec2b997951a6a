// grid.c — the GPU neighbour grid (see grid.h).
#include "grid.h"

#include "../../shaders/grid/grid_shared.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cs_grid_layout(const cs_grid_desc *desc, cs_grid *out, cs_error *err)
{
    const char *name = desc->name ? desc->name : "grid";
    if (desc->dim != 2 && desc->dim != 3)
        return cs_fail(err, "%s: dimension must be 2 or 3 (got %d)", name, desc->dim);
    if (!(desc->cell_size > 0.0f) || !isfinite(desc->cell_size))
        return cs_fail(err, "%s: cell size (smoothing radius) must be a positive number (got %g)", name,
                       (double)desc->cell_size);
    memset(out, 0, sizeof *out);
    out->dim = desc->dim;
    out->cell_size = desc->cell_size;
    uint64_t cells = 1;
    for (int a = 0; a < 3; a++) {
        out->origin[a] = a < desc->dim ? desc->domain_min[a] : 0.0f;
        out->dims[a] = 1;
        if (a >= desc->dim)
            continue;
        double extent = (double)desc->domain_max[a] - (double)desc->domain_min[a];
        if (!(extent > 0.0) || !isfinite(extent))
            return cs_fail(err, "%s: the domain is empty along axis %c (min %g, max %g)", name, "xyz"[a],
                           (double)desc->domain_min[a], (double)desc->domain_max[a]);
        double n = ceil(extent / desc->cell_size);
        if (n > (double)(1u << 24))
            return cs_fail(err, "%s: %.0f cells along axis %c: make the smoothing radius larger or the domain smaller",
                           name, n, "xyz"[a]);
        out->dims[a] = (uint32_t)CS_MAX(n, 1.0);
        cells *= out->dims[a];
    }
    if (cells > (1ull << 31))
        return cs_fail(err, "%s: %llu grid cells (%u x %u x %u) is more than 2^31: make the smoothing radius larger "
                       "or the domain smaller", name, (unsigned long long)cells, out->dims[0], out->dims[1],
                       out->dims[2]);
    out->cell_count = (uint32_t)cells;
    // Keys 0 .. cell_count: cell_count itself marks a non-finite particle
    // (cell_ids.comp), so it must survive the sort too.
    out->key_bits = 1;
    while (out->key_bits < 32 && (1ull << out->key_bits) <= cells)
        out->key_bits++;
    out->capacity = desc->capacity;
    return true;
}

// A cell buffer too large says what makes the cells, not the particles.
static const char *cells_advice(const cs_grid *layout, char *buf, size_t size)
{
    snprintf(buf, size, "the grid has %u cells of %g m over the domain: make the smoothing radius larger or the "
             "domain smaller", layout->cell_count, (double)layout->cell_size);
    return buf;
}

bool cs_grid_check_sizes(const cs_context *ctx, const cs_grid_desc *desc, cs_error *err)
{
    cs_grid layout;
    if (!cs_grid_layout(desc, &layout, err))
        return false;
    char name[96];
    const char *base = desc->name ? desc->name : "grid";
    snprintf(name, sizeof name, "%s cell ranges", base);
    char advice[200];
    if (!cs_buffer_check_size_advice(ctx, name, (VkDeviceSize)layout.cell_count * 8,
                                     cells_advice(&layout, advice, sizeof advice), err))
        return false;
    // keys, order, and the sort's own scratch of the same size.
    snprintf(name, sizeof name, "%s keys", base);
    return cs_buffer_check_size(ctx, name, (VkDeviceSize)desc->capacity * 4, err);
}

static bool grid_program(cs_context *ctx, const char *path, const char *element, cs_program_id *prog, cs_error *err)
{
    cs_program_desc pd = {.path = path};
    if (element)
        pd.defines[0] = (cs_define){"ELEMENT", element};
    return cs_program_create(ctx, &pd, prog, err);
}

bool cs_grid_create(cs_context *ctx, const cs_grid_desc *desc, cs_grid *grid, cs_error *err)
{
    if (!cs_grid_check_sizes(ctx, desc, err) || !cs_grid_layout(desc, grid, err))
        return false;
    const char *base = desc->name ? desc->name : "grid";
    char name[96];
    VkDeviceSize n = (VkDeviceSize)CS_MAX(desc->capacity, 1u);
    struct {
        cs_buffer *buf;
        const char *suffix;
        VkDeviceSize size;
    } buffers[] = {
        {&grid->keys, "keys", n * 4},
        {&grid->order, "order", n * 4},
        {&grid->ranges, "cell ranges", (VkDeviceSize)grid->cell_count * 8},
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(buffers); i++) {
        snprintf(name, sizeof name, "%s %s", base, buffers[i].suffix);
        char advice[200];
        cs_buffer_desc bd = {.name = name, .size = buffers[i].size,
                             .advice = buffers[i].buf == &grid->ranges ? cells_advice(grid, advice, sizeof advice)
                                                                       : NULL};
        if (!cs_buffer_create(ctx, &bd, buffers[i].buf, err)) {
            cs_grid_destroy(ctx, grid);
            return false;
        }
    }
    bool ok = cs_sort_create(ctx, (uint32_t)n, &grid->sort, err) &&
              grid_program(ctx, "grid/cell_ids.comp", NULL, &grid->cell_ids, err) &&
              grid_program(ctx, "grid/clear.comp", NULL, &grid->clear, err) &&
              grid_program(ctx, "grid/mark.comp", NULL, &grid->mark, err) &&
              grid_program(ctx, "grid/gather.comp", "uint", &grid->gather4, err) &&
              grid_program(ctx, "grid/gather.comp", "vec4", &grid->gather16, err);
    if (!ok) {
        cs_grid_destroy(ctx, grid);
        return false;
    }
    return true;
}

void cs_grid_destroy(cs_context *ctx, cs_grid *grid)
{
    cs_program_id *progs[] = {&grid->cell_ids, &grid->clear, &grid->mark, &grid->gather4, &grid->gather16};
    for (size_t i = 0; i < CS_ARRAY_COUNT(progs); i++)
        cs_program_destroy(ctx, progs[i]); // an empty handle is a no-op
    if (grid->sort.capacity)
        cs_sort_destroy(ctx, &grid->sort);
    cs_buffer *bufs[] = {&grid->keys, &grid->order, &grid->ranges};
    for (size_t i = 0; i < CS_ARRAY_COUNT(bufs); i++)
        if (bufs[i]->buffer)
            cs_buffer_destroy(ctx, bufs[i]);
    memset(grid, 0, sizeof *grid);
}

cs_grid_push cs_grid_push_for(const cs_grid *grid, uint32_t count)
{
    return (cs_grid_push){
        .origin = {grid->origin[0], grid->origin[1], grid->origin[2], 1.0f / grid->cell_size},
        .dims = {grid->dims[0], grid->dims[1], grid->dims[2], count},
    };
}

static cs_grid_push grid_push(const cs_grid *grid, uint32_t count) { return cs_grid_push_for(grid, count); }

// Each cell's start and end are written by the one sorted index where the
// key changes (no atomics, no capacity), over ranges cleared to (0, 0)
// before. Inside the caller's pass; ends with a compute barrier.
static void record_mark(cs_recorder *rec, cs_grid *grid, uint32_t count)
{
    cs_grid_push pc = grid_push(grid, count);
    if (count)
        cs_dispatch(rec, grid->mark, &(cs_dispatch_desc){
            .buffers = {&grid->keys, &grid->ranges}, .push = &pc, .push_size = sizeof pc, .threads = {count}});
    cs_barrier_compute(rec);
}

// Clear then mark. Inside the caller's pass; ends with a compute barrier.
static void record_ranges(cs_recorder *rec, cs_grid *grid, uint32_t count)
{
    cs_grid_push clear_pc = grid_push(grid, grid->cell_count);
    cs_dispatch(rec, grid->clear, &(cs_dispatch_desc){
        .buffers = {&grid->ranges}, .push = &clear_pc, .push_size = sizeof clear_pc, .threads = {grid->cell_count}});
    cs_barrier_compute(rec);
    record_mark(rec, grid, count);
}

void cs_grid_record_sort_and_ranges(cs_recorder *rec, cs_grid *grid, uint32_t count)
{
    CS_ASSERT(count <= grid->capacity, "grid build of %u particles, capacity %u", count, grid->capacity);
    cs_pass_begin(rec, "grid: sort");
    cs_sort_record(rec, &grid->sort, &grid->keys, &grid->order, count, grid->key_bits);
    cs_pass_end(rec);

    cs_pass_begin(rec, "grid: ranges");
    record_mark(rec, grid, count);
    cs_pass_end(rec);
}

void cs_grid_record_build(cs_recorder *rec, cs_grid *grid, cs_buffer *positions, uint32_t count)
{
    CS_ASSERT(count <= grid->capacity, "grid build of %u particles, capacity %u", count, grid->capacity);
    cs_grid_push pc = grid_push(grid, count);

    // The ranges' clear rides in this dispatch (cell_ids.comp).
    cs_pass_begin(rec, "grid: cell ids");
    cs_dispatch(rec, grid->cell_ids, &(cs_dispatch_desc){
        .buffers = {positions, &grid->keys, &grid->order, &grid->ranges}, .push = &pc, .push_size = sizeof pc,
        .threads = {CS_MAX(count, grid->cell_count)}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);

    cs_grid_record_sort_and_ranges(rec, grid, count);
}

void cs_grid_record_sort_keys(cs_recorder *rec, cs_grid *grid, uint32_t count)
{
    CS_ASSERT(count <= grid->capacity, "grid sort of %u keys, capacity %u", count, grid->capacity);
    cs_sort_record(rec, &grid->sort, &grid->keys, &grid->order, count, grid->key_bits);
    record_ranges(rec, grid, count);
}

void cs_grid_record_gather(cs_recorder *rec, cs_grid *grid, cs_buffer *src, cs_buffer *dst, uint32_t stride,
                           uint32_t count)
{
    CS_ASSERT(stride == 4 || stride == 16, "gather stride %u (4 or 16)", stride);
    cs_grid_push pc = grid_push(grid, count);
    cs_dispatch(rec, stride == 4 ? grid->gather4 : grid->gather16, &(cs_dispatch_desc){
        .buffers = {&grid->order, src, dst}, .push = &pc, .push_size = sizeof pc, .threads = {count}});
}

// ---- neighbour lists (see grid.h) ----

bool cs_neighbours_check_env(const cs_context *ctx, cs_error *err)
{
    const char *env = ctx->settings.nb_layout;
    if (*env && strcmp(env, "particle") != 0 && strcmp(env, "slot") != 0)
        return cs_fail(err, "CISTERN_NB_LAYOUT=%s: expected particle or slot (or unset it for the device's choice)",
                       env);
    return true;
}

// The layout the settings' CISTERN_NB_LAYOUT asks for, else the device's (grid.h). False
// (err) for a value it does not know.
static bool neighbour_layout(const cs_context *ctx, cs_nb_layout asked, cs_nb_layout *layout, cs_error *err)
{
    *layout = asked;
    if (asked != CS_NB_LAYOUT_AUTO)
        return true;
    if (!cs_neighbours_check_env(ctx, err))
        return false;
    const char *env = ctx->settings.nb_layout;
    if (*env) {
        *layout = strcmp(env, "particle") == 0 ? CS_NB_LAYOUT_PARTICLE : CS_NB_LAYOUT_SLOT;
        return true;
    }
    *layout = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? CS_NB_LAYOUT_PARTICLE : CS_NB_LAYOUT_SLOT;
    return true;
}

uint32_t cs_neighbours_slots(int dim, double radius, double spacing, double slack)
{
    double slots = ceil(slack * (double)cs_neighbours_lattice_count(dim, radius, spacing));
    return (uint32_t)CS_MAX(CS_MIN(slots, (double)UINT32_MAX), 1.0);
}

uint64_t cs_neighbours_lattice_count(int dim, double radius, double spacing)
{
    int n = (int)ceil(radius / spacing) + 1;
    uint64_t count = 0;
    for (int k = (dim == 3 ? -n : 0); k <= (dim == 3 ? n : 0); k++)
        for (int j = -n; j <= n; j++)
            for (int i = -n; i <= n; i++)
                count += spacing * spacing * (double)(i * i + j * j + k * k) < radius * radius;
    return count;
}

bool cs_neighbours_create(cs_context *ctx, const cs_neighbours_desc *desc, cs_neighbours *nb, cs_error *err)
{
    memset(nb, 0, sizeof *nb);
    const char *base = desc->name ? desc->name : "neighbours";
    nb->radius = desc->radius;
    nb->capacity = CS_MAX(desc->capacity, 1u);
    nb->cell_count = CS_MAX(desc->cell_count, 1u);
    if (!neighbour_layout(ctx, desc->layout, &nb->layout, err)) {
        memset(nb, 0, sizeof *nb);
        return false;
    }
    // Fewer slots than asked for only means more particles fall back to the
    // cell walk; never refuse a scene for it.
    // One entry per particle more than its slots: the fill's scratch entry
    // (neighbours_fill.comp).
    uint64_t max_entries = ctx->props.limits.maxStorageBufferRange / 4;
    uint64_t per_particle = max_entries / nb->capacity;
    nb->slots = (uint32_t)CS_MAX(CS_MIN((uint64_t)CS_MAX(desc->slots, 1u), per_particle ? per_particle - 1 : 0), 1u);
    if (((uint64_t)nb->slots + 1) * nb->capacity > max_entries) {
        uint32_t capacity = nb->capacity;
        memset(nb, 0, sizeof *nb); // nothing was made: a later create starts clean
        return cs_fail(err, "%s: %u particles do not fit one neighbour list (device limit %llu entries); lower the "
                       "particle count", base, capacity, (unsigned long long)max_entries);
    }
    if (nb->slots < desc->slots)
        fprintf(stderr, "cistern: note: %s hold %u entries a particle, not %u (the device's %llu-entry buffer "
                "limit); particles with more neighbours walk the cells\n", base, nb->slots, desc->slots,
                (unsigned long long)max_entries);
    char name[96];
    struct {
        cs_buffer *buf;
        const char *suffix;
        VkDeviceSize size;
    } buffers[] = {
        {&nb->counts, "counts", (VkDeviceSize)nb->capacity * 4},
        {&nb->list, "list", (VkDeviceSize)nb->capacity * (nb->slots + 1) * 4},
        {&nb->state, "state", ((VkDeviceSize)CS_NB_CELLS + nb->cell_count) * 4},
        {&nb->anchor, "anchor", (VkDeviceSize)nb->capacity * 16},
        {&nb->use, "use", (VkDeviceSize)nb->capacity * 4},
    };
    bool ok = true;
    for (size_t i = 0; i < CS_ARRAY_COUNT(buffers) && ok; i++) {
        snprintf(name, sizeof name, "%s %s", base, buffers[i].suffix);
        ok = cs_buffer_check_size(ctx, name, buffers[i].size, err) &&
             cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = buffers[i].size}, buffers[i].buf, err);
    }
    ok = ok && grid_program(ctx, "grid/neighbours_clear.comp", NULL, &nb->clear, err) &&
         grid_program(ctx, "grid/neighbours_fill.comp", NULL, &nb->fill, err);
    if (!ok) {
        cs_neighbours_destroy(ctx, nb);
        return false;
    }
    // Counts above the slots: a consumer before the first build walks the
    // cells, never reads garbage; every cell unmarked.
    cs_buffer_fill(ctx, &nb->state, 0xffffffffu);
    bool by_particle = nb->layout == CS_NB_LAYOUT_PARTICLE; // as cs_neighbours_record_build's push
    uint32_t head[CS_NB_CELLS] = {
        [CS_NB_SLOTS] = nb->slots,
        [CS_NB_STRIDE_I] = by_particle ? nb->slots + 1 : 1u,
        [CS_NB_STRIDE_K] = by_particle ? 1u : nb->capacity,
    };
    cs_buffer_upload(ctx, &nb->state, head, sizeof head, 0);
    cs_buffer_fill(ctx, &nb->counts, 0xffffffffu);
    cs_buffer_fill(ctx, &nb->use, 0);
    return true;
}

void cs_neighbours_destroy(cs_context *ctx, cs_neighbours *nb)
{
    cs_program_id *progs[] = {&nb->clear, &nb->fill};
    for (size_t i = 0; i < CS_ARRAY_COUNT(progs); i++)
        cs_program_destroy(ctx, progs[i]); // an empty handle is a no-op
    cs_buffer *bufs[] = {&nb->counts, &nb->list, &nb->state, &nb->anchor, &nb->use};
    for (size_t i = 0; i < CS_ARRAY_COUNT(bufs); i++)
        if (bufs[i]->buffer)
            cs_buffer_destroy(ctx, bufs[i]);
    memset(nb, 0, sizeof *nb);
}

void cs_neighbours_record_build(cs_recorder *rec, cs_neighbours *nb, cs_grid *grid, cs_buffer *positions,
                                uint32_t count)
{
    CS_ASSERT(count <= nb->capacity, "neighbour list of %u particles, capacity %u", count, nb->capacity);
    CS_ASSERT(grid->cell_count <= nb->cell_count, "neighbour list for %u cells, grid has %u", nb->cell_count,
              grid->cell_count);
    cs_grid_push g = grid_push(grid, count);
    bool by_particle = nb->layout == CS_NB_LAYOUT_PARTICLE;
    cs_neighbours_push pc = {.origin = g.origin, .dims = g.dims, .radius = {nb->radius * nb->radius, 0, 0, 0},
                             .cells = {grid->cell_count, nb->slots, by_particle ? nb->slots + 1 : 1u,
                                       by_particle ? 1u : nb->capacity}};
    cs_pass_begin(rec, "grid: neighbours");
    cs_dispatch(rec, nb->clear, &(cs_dispatch_desc){
        .buffers = {&nb->state}, .push = &pc, .push_size = sizeof pc, .threads = {grid->cell_count}});
    cs_dispatch(rec, nb->fill, &(cs_dispatch_desc){
        .buffers = {&grid->ranges, positions, &nb->counts, &nb->list, &nb->anchor},
        .push = &pc, .push_size = sizeof pc, .threads = {count}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

void cs_neighbours_bind(cs_neighbours *nb, cs_dispatch_desc *dd, int first)
{
    dd->buffers[first] = &nb->counts;
    dd->buffers[first + 1] = &nb->list;
    dd->buffers[first + 2] = &nb->state;
}
