// vorton_grid.c — the vortex-in-cell velocity solve; see vorton_grid.h.
#include "vorton_grid.h"

static uint32_t level_nodes(const cs_vorton_grid *g, uint32_t level)
{
    return (g->cells >> level) + 1u;
}

static uint32_t level_node_count(const cs_vorton_grid *g, uint32_t level)
{
    uint32_t n = level_nodes(g, level);
    return n * n * n;
}

void cs_vorton_grid_destroy(cs_vorton_grid *g)
{
    if (!g->ctx)
        return;
    cs_program_id *programs[] = {&g->box_partials_prog, &g->box_choose, &g->cell_ids, &g->splat,  &g->moments_prog,  &g->boundary, &g->smooth, &g->residual,
                                 &g->restrict_prog, &g->prolong, &g->curl, &g->interp, &g->interp_points};
    for (size_t i = 0; i < CS_ARRAY_COUNT(programs); i++)
        cs_program_destroy(g->ctx, programs[i]);
    for (uint32_t l = 0; l < CS_VORTON_GRID_MAX_LEVELS; l++) {
        cs_buffer *level[] = {&g->psi[l], &g->f[l], &g->res[l]};
        for (size_t i = 0; i < CS_ARRAY_COUNT(level); i++)
            if (level[i]->buffer)
                cs_buffer_destroy(g->ctx, level[i]);
    }
    if (g->vel.buffer)
        cs_buffer_destroy(g->ctx, &g->vel);
    cs_buffer *small[] = {&g->moments, &g->box, &g->box_partials};
    for (size_t i = 0; i < CS_ARRAY_COUNT(small); i++)
        if (small[i]->buffer)
            cs_buffer_destroy(g->ctx, small[i]);
    if (g->bins.capacity)
        cs_grid_destroy(g->ctx, &g->bins);
    memset(g, 0, sizeof *g);
}

static bool make_buffer(cs_vorton_grid *g, cs_buffer *buf, const char *name, uint32_t level, VkDeviceSize size,
                        cs_error *err)
{
    char full[64];
    snprintf(full, sizeof full, "vorton grid %s %u", name, level);
    return cs_buffer_check_size(g->ctx, full, size, err) &&
           cs_buffer_create(g->ctx, &(cs_buffer_desc){.name = full, .size = size}, buf, err);
}

// The box starts as the desc's cube, size step 0.
static void upload_start_box(cs_vorton_grid *g)
{
    vic_box box = {
        .grid = {g->origin[0], g->origin[1], g->origin[2], g->h},
        .base = {g->origin[0], g->origin[1], g->origin[2], g->h * (float)g->cells},
    };
    cs_buffer_upload(g->ctx, &g->box, &box, sizeof box, 0);
}

static bool create_buffers(cs_vorton_grid *g, uint32_t capacity, cs_error *err)
{
    for (uint32_t l = 0; l < g->levels; l++) {
        VkDeviceSize size = (VkDeviceSize)level_node_count(g, l) * 16;
        if (!make_buffer(g, &g->psi[l], "psi", l, size, err) || !make_buffer(g, &g->f[l], "f", l, size, err) ||
            !make_buffer(g, &g->res[l], "residual", l, size, err))
            return false;
    }
    VkDeviceSize blocks = (VkDeviceSize)g->blocks * g->blocks * g->blocks;
    if (!make_buffer(g, &g->vel, "velocity", 0, (VkDeviceSize)level_node_count(g, 0) * 16, err) ||
        !make_buffer(g, &g->moments, "moments", 0, blocks * 64, err) ||
        !make_buffer(g, &g->box, "box", 0, sizeof(vic_box), err) ||
        !make_buffer(g, &g->box_partials, "box partials", 0,
                     (VkDeviceSize)CS_MAX(CS_DIV_UP(capacity, VIC_BOX_CHUNK), 1u) * 32, err))
        return false;
    upload_start_box(g);
    cs_buffer_fill(g->ctx, &g->vel, 0); // what targets read before the first solve with vortons
    return true;
}

static bool create_programs(cs_vorton_grid *g, cs_error *err)
{
    struct {
        cs_program_id *prog;
        const char *path, *define;
    } programs[] = {
        {&g->box_partials_prog, "vorton/vic_box.comp", "PARTIALS"},
        {&g->box_choose, "vorton/vic_box.comp", "CHOOSE"},
        {&g->cell_ids, "vorton/vic_cell_ids.comp", NULL},
        {&g->splat, "vorton/vic_splat.comp", NULL},
        {&g->moments_prog, "vorton/vic_moments.comp", NULL},
        {&g->boundary, "vorton/vic_boundary.comp", NULL},
        {&g->smooth, "vorton/vic_multigrid.comp", "SMOOTH"},
        {&g->residual, "vorton/vic_multigrid.comp", "RESIDUAL"},
        {&g->restrict_prog, "vorton/vic_multigrid.comp", "RESTRICT"},
        {&g->prolong, "vorton/vic_multigrid.comp", "PROLONG"},
        {&g->curl, "vorton/vic_curl.comp", NULL},
        {&g->interp, "vorton/vic_interp.comp", NULL},
        {&g->interp_points, "vorton/vic_interp.comp", "POINTS"},
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(programs); i++) {
        cs_program_desc desc = {.path = programs[i].path};
        if (programs[i].define)
            desc.defines[0] = (cs_define){programs[i].define, "1"};
        if (!cs_program_create(g->ctx, &desc, programs[i].prog, err))
            return false;
    }
    return true;
}

bool cs_vorton_grid_create(cs_context *ctx, const cs_vorton_grid_desc *desc, cs_vorton_grid *g, cs_error *err)
{
    memset(g, 0, sizeof *g);
    uint32_t n = desc->cells;
    if (n < 4 || n > 512 || (n & (n - 1)) || !(desc->size > 0.0f) || desc->cycles < 1)
        return cs_fail(err, "vorton grid: cells %u must be a power of two in 4..512, size %g > 0, cycles %u >= 1",
                       n, (double)desc->size, desc->cycles);
    g->ctx = ctx;
    g->cells = n;
    g->cycles = desc->cycles;
    g->h = desc->size / (float)n;
    g->fixed_box = desc->fixed_box;
    for (int a = 0; a < 3; a++)
        g->origin[a] = desc->origin[a];
    // Levels down to 2 cells per axis: one interior node, which one
    // Gauss-Seidel sweep solves exactly.
    while ((n >> g->levels) >= 2)
        g->levels++;
    g->blocks = CS_DIV_UP(n + 1u, VIC_BLOCK);
    // The bins are the finest level's cells (n^3 of them; their keys come
    // from vic_cell_ids.comp and the box buffer, the domain here only sizes
    // them); the domain stops a quarter cell short of the far face so ceil()
    // gives exactly n cells per axis.
    cs_grid_desc bins = {.name = "vorton grid bins", .dim = 3, .cell_size = g->h, .capacity = desc->capacity};
    for (int a = 0; a < 3; a++) {
        bins.domain_min[a] = g->origin[a];
        bins.domain_max[a] = g->origin[a] + ((float)n - 0.25f) * g->h;
    }
    bool ok = cs_grid_create(ctx, &bins, &g->bins, err) && create_buffers(g, desc->capacity, err) && create_programs(g, err);
    if (ok && (g->bins.dims[0] != n || g->bins.dims[1] != n || g->bins.dims[2] != n))
        ok = cs_fail(err, "vorton grid: binning grid has %u x %u x %u cells, not %u^3", g->bins.dims[0],
                     g->bins.dims[1], g->bins.dims[2], n);
    if (!ok)
        cs_vorton_grid_destroy(g);
    return ok;
}

static vic_push level_push(const cs_vorton_grid *g, uint32_t level, uint32_t other_nodes, uint32_t z,
                           uint32_t count)
{
    return (vic_push){
        .level = {(float)(1u << level), 0, 0, 0},
        .size = {level_nodes(g, level), other_nodes, z, count},
    };
}

// One dispatch of push->size.w invocations, then a barrier; `box` (NULL for
// the passes that read no spacing) goes to VIC_BOX_BINDING.
static void run(cs_recorder *rec, cs_program_id prog, const vic_push *push, cs_buffer *const buffers[6],
                cs_buffer *box)
{
    if (!push->size.w)
        return;
    cs_dispatch_desc desc = {.push = push, .push_size = sizeof *push, .threads = {push->size.w}};
    for (int b = 0; b < 6; b++)
        desc.buffers[b] = buffers[b];
    desc.buffers[VIC_BOX_BINDING] = box;
    cs_dispatch(rec, prog, &desc);
    cs_barrier_compute(rec);
}

// `sweeps` red-black Gauss-Seidel sweeps (red then black) on one level.
static void smooth(cs_recorder *rec, cs_vorton_grid *g, uint32_t level, uint32_t sweeps)
{
    for (uint32_t s = 0; s < sweeps; s++)
        for (uint32_t parity = 0; parity < 2; parity++) {
            vic_push push = level_push(g, level, 0, parity, level_node_count(g, level));
            run(rec, g->smooth, &push, (cs_buffer *const[6]){&g->f[level], &g->psi[level]}, &g->box);
        }
}

// One V(2,2) cycle from `level` down; the coarsest level (one interior
// node) is solved by one sweep.
static void v_cycle(cs_recorder *rec, cs_vorton_grid *g, uint32_t level)
{
    if (level + 1 == g->levels) {
        smooth(rec, g, level, 1);
        return;
    }
    smooth(rec, g, level, 2);
    vic_push push = level_push(g, level, 0, 0, level_node_count(g, level));
    run(rec, g->residual, &push, (cs_buffer *const[6]){&g->f[level], &g->psi[level], &g->res[level]}, &g->box);
    push = level_push(g, level + 1, level_nodes(g, level), 0, level_node_count(g, level + 1));
    run(rec, g->restrict_prog, &push,
        (cs_buffer *const[6]){&g->res[level], &g->f[level + 1], &g->psi[level + 1]}, NULL);
    v_cycle(rec, g, level + 1);
    push = level_push(g, level, level_nodes(g, level + 1), 0, level_node_count(g, level));
    run(rec, g->prolong, &push, (cs_buffer *const[6]){&g->psi[level + 1], &g->psi[level]}, NULL);
    smooth(rec, g, level, 2);
}

// "vorton: grid box": min / max of the vortons per chunk, then one
// workgroup folds the chunks and moves the box (vic_box.comp). Skipped for
// a fixed box: the buffer keeps the start box.
static void record_box(cs_recorder *rec, cs_vorton_grid *g, cs_buffer *pos, uint32_t count)
{
    if (g->fixed_box)
        return;
    uint32_t chunks = CS_DIV_UP(count, VIC_BOX_CHUNK);
    vic_push push = level_push(g, 0, 0, chunks, count);
    cs_pass_begin(rec, "vorton: grid box");
    cs_dispatch(rec, g->box_partials_prog, &(cs_dispatch_desc){
        .buffers = {pos, &g->box_partials}, .push = &push, .push_size = sizeof push, .threads = {chunks * VIC_WG}});
    cs_barrier_compute(rec);
    cs_dispatch(rec, g->box_choose, &(cs_dispatch_desc){
        .buffers = {[1] = &g->box_partials, [VIC_BOX_BINDING] = &g->box}, .push = &push, .push_size = sizeof push,
        .threads = {VIC_WG}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

// The vortons binned by cell of this solve's box: keys from the box buffer
// (vic_cell_ids.comp), then grid.h's stable sort and ranges.
static void record_bins(cs_recorder *rec, cs_vorton_grid *g, cs_buffer *pos, uint32_t count)
{
    CS_ASSERT(count <= g->bins.capacity, "vorton grid solve of %u vortons, capacity %u", count, g->bins.capacity);
    vic_push push = level_push(g, 0, 0, 0, count);
    cs_pass_begin(rec, "grid: cell ids");
    cs_dispatch(rec, g->cell_ids, &(cs_dispatch_desc){
        .buffers = {pos, &g->bins.keys, &g->bins.order, [VIC_BOX_BINDING] = &g->box}, .push = &push,
        .push_size = sizeof push, .threads = {count}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
    cs_pass_begin(rec, "grid: sort");
    cs_grid_record_sort_keys(rec, &g->bins, count);
    cs_pass_end(rec);
}

void cs_vorton_grid_read_box(cs_vorton_grid *g, vic_box *out)
{
    cs_buffer_download(g->ctx, &g->box, out, sizeof *out, 0);
}

void cs_vorton_grid_record_solve(cs_recorder *rec, cs_vorton_grid *g, cs_buffer *pos, cs_buffer *vort,
                                 uint32_t count)
{
    if (!count)
        return; // vel keeps the last solve (zeros before any)
    record_box(rec, g, pos, count);
    record_bins(rec, g, pos, count);
    uint32_t nodes = level_node_count(g, 0);

    cs_pass_begin(rec, "vorton: grid splat");
    vic_push push = level_push(g, 0, 0, 0, nodes);
    run(rec, g->splat, &push,
        (cs_buffer *const[6]){pos, vort, &g->bins.order, &g->bins.ranges, &g->f[0], &g->psi[0]}, &g->box);
    cs_pass_end(rec);

    cs_pass_begin(rec, "vorton: grid boundary");
    push = level_push(g, 0, 0, g->blocks, g->blocks * g->blocks * g->blocks);
    run(rec, g->moments_prog, &push, (cs_buffer *const[6]){&g->f[0], &g->moments}, &g->box);
    uint32_t side = level_nodes(g, 0);
    push = level_push(g, 0, 0, g->blocks, 6u * side * side); // one invocation per face node
    run(rec, g->boundary, &push, (cs_buffer *const[6]){&g->moments, &g->psi[0]}, &g->box);
    cs_pass_end(rec);

    cs_pass_begin(rec, "vorton: grid solve");
    for (uint32_t c = 0; c < g->cycles; c++)
        v_cycle(rec, g, 0);
    cs_pass_end(rec);

    cs_pass_begin(rec, "vorton: grid curl");
    push = level_push(g, 0, 0, 0, nodes);
    run(rec, g->curl, &push, (cs_buffer *const[6]){&g->psi[0], &g->vel}, &g->box);
    cs_pass_end(rec);
}

void cs_vorton_grid_record_interp(cs_recorder *rec, cs_vorton_grid *g, cs_buffer *pos, cs_buffer *vort,
                                  cs_buffer *out_vel, cs_buffer *rate, uint32_t count, uint32_t stretching,
                                  bool accumulate)
{
    if (!count)
        return;
    vic_push push = level_push(g, 0, 0, 0, count);
    push.mode.x = stretching;
    push.mode.y = accumulate ? 1u : 0u;
    cs_dispatch_desc desc = {.push = &push, .push_size = sizeof push, .threads = {count}};
    desc.buffers[0] = &g->vel;
    desc.buffers[1] = pos;
    desc.buffers[3] = out_vel;
    desc.buffers[VIC_BOX_BINDING] = &g->box;
    if (vort) {
        desc.buffers[2] = vort;
        desc.buffers[4] = rate;
    }
    cs_dispatch(rec, vort ? g->interp : g->interp_points, &desc);
}
