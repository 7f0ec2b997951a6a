// vorton.c — vortex particles; see vorton.h and docs/vortons.md.
#include "vorton.h"

#include <math.h>

// ---- create / destroy ------------------------------------------------------

static void vorton_destroy_buffers(cs_vorton *v)
{
    cs_buffer *buffers[] = {&v->pos[0],        &v->pos[1],          &v->vort[0],      &v->vort[1],
                            &v->mid_pos,       &v->mid_vort,        &v->vel,          &v->rate, &v->rates_partial,
                            &v->tracer_pos[0], &v->tracer_pos[1],   &v->tracer_mid,   &v->tracer_vel,
                            &v->tracer_temp,   &v->tracer_material,     &v->stats_speed,
                            &v->stats_non_finite, &v->stats_out, &v->bodies,
                            &v->impulses,      &v->heat_terms,      &v->heat_scratch, &v->heat_sums,
                            &v->wall_pos,      &v->wall_vel,        &v->wall_weight,  &v->wall_share};
    for (size_t i = 0; i < CS_ARRAY_COUNT(buffers); i++)
        if (buffers[i]->buffer)
            cs_buffer_destroy(v->ctx, buffers[i]);
    for (uint32_t i = 0; i < CS_FRAME_SLOTS; i++)
        if (v->frame_stats[i].buffer)
            cs_buffer_destroy(v->ctx, &v->frame_stats[i]);
}

void cs_vorton_destroy(cs_vorton *v)
{
    if (!v)
        return;
    cs_program_id *programs[] = {&v->rates, &v->rates_points, &v->integrate, &v->integrate_tracers, &v->stats,
                                 &v->collide, &v->collide_tracers, &v->wall_points, &v->wall_share_prog,
                                 &v->wall_keys_prog, &v->wall_share_direct_prog, &v->body_heat};
    for (size_t i = 0; i < CS_ARRAY_COUNT(programs); i++)
        cs_program_destroy(v->ctx, programs[i]);
    vorton_destroy_buffers(v);
    cs_grid_destroy(v->ctx, &v->wall_bins); // a grid never made is all zeros: a no-op
    cs_vorton_grid_destroy(&v->grid);
    cs_reduce_destroy(v->ctx, &v->reduce);
    if (v->stats_rec.ctx)
        cs_recorder_destroy(&v->stats_rec);
    free(v);
}

// A table of buffers made at once: every size checked against the device
// before any is made, each filled with `fill` (0 unless given).
typedef struct vorton_buffer_spec {
    cs_buffer *buf;
    const char *name;
    VkDeviceSize size;
    uint32_t fill;
} vorton_buffer_spec;

static bool create_buffer_table(cs_vorton *v, const vorton_buffer_spec *buffers, size_t count, cs_error *err)
{
    for (size_t i = 0; i < count; i++)
        if (!cs_buffer_check_size(v->ctx, buffers[i].name, buffers[i].size, err))
            return false;
    for (size_t i = 0; i < count; i++) {
        if (!cs_buffer_create(v->ctx, &(cs_buffer_desc){.name = buffers[i].name, .size = buffers[i].size},
                              buffers[i].buf, err))
            return false;
        cs_buffer_fill(v->ctx, buffers[i].buf, buffers[i].fill);
    }
    return true;
}

// The buffers of v's capacities (v's own, written to `out`): one table, so
// the creation and the cost of a vorton and a tracer (cs_vorton_check_counts)
// read the same sizes.
#define VORTON_BUFFERS 23
static void vorton_buffer_table(cs_vorton *v, vorton_buffer_spec out[VORTON_BUFFERS])
{
    VkDeviceSize n = v->capacity, t = v->tracer_capacity, most = CS_MAX(n, t);
    const vorton_buffer_spec buffers[] = {
        {&v->pos[0], "vorton positions 0", n * 16},
        {&v->pos[1], "vorton positions 1", n * 16},
        {&v->vort[0], "vorton vorticity 0", n * 16},
        {&v->vort[1], "vorton vorticity 1", n * 16},
        {&v->mid_pos, "vorton midpoint positions", n * 16},
        {&v->mid_vort, "vorton midpoint vorticity", n * 16},
        {&v->vel, "vorton velocity", n * 16},
        {&v->rate, "vorton rates", n * 16},
        {&v->rates_partial, "vorton rates running sums", n * 48},
        {&v->wall_pos, "vorton wall points", n * 16},
        {&v->wall_vel, "vorton wall velocity", n * 16},
        {&v->wall_weight, "vorton wall weights", n * 4},
        {&v->wall_share, "vorton wall shares", n * 4},
        {&v->tracer_pos[0], "vorton tracers 0", t * 16},
        {&v->tracer_pos[1], "vorton tracers 1", t * 16},
        {&v->tracer_mid, "vorton tracer midpoints", t * 16},
        {&v->tracer_vel, "vorton tracer velocity", t * 16},
        {&v->tracer_temp, "vorton tracer temperature", t * 4},
        {&v->tracer_material, "vorton tracer material", t * 4},
        {&v->stats_speed, "vorton stats speed", most * 4},
        {&v->stats_non_finite, "vorton stats non-finite", most * 4},
        {&v->stats_out, "vorton stats", 4 * 4},
        {&v->bodies, "vorton bodies", sizeof(cs_body_set) + 16 * CS_BODIES_MAX},
    };
    _Static_assert(CS_ARRAY_COUNT(buffers) == VORTON_BUFFERS, "VORTON_BUFFERS is the table's length");
    memcpy(out, buffers, sizeof buffers);
}

static bool vorton_create_buffers(cs_vorton *v, cs_error *err)
{
    vorton_buffer_spec buffers[VORTON_BUFFERS];
    vorton_buffer_table(v, buffers);
    return create_buffer_table(v, buffers, VORTON_BUFFERS, err);
}

// The device bytes of one more vorton (tracers = 0) or tracer (1): the
// table at capacity 1 less the table at 0, all buffers and the largest.
static void vorton_unit_bytes(uint32_t tracers, uint64_t *all, uint64_t *largest)
{
    cs_vorton *v = calloc(1, sizeof *v);
    CS_ASSERT(v, "out of host memory");
    vorton_buffer_spec none[VORTON_BUFFERS], one[VORTON_BUFFERS];
    vorton_buffer_table(v, none);
    v->capacity = tracers ? 0 : 1;
    v->tracer_capacity = tracers ? 1 : 0;
    vorton_buffer_table(v, one);
    *all = *largest = 0;
    for (size_t i = 0; i < VORTON_BUFFERS; i++) {
        *all += one[i].size - none[i].size;
        *largest = CS_MAX(*largest, one[i].size - none[i].size);
    }
    free(v);
}

bool cs_vorton_check_counts(const cs_context *ctx, const cs_vorton_counts *c, cs_error *err)
{
    uint32_t most = CS_MAX(c->vortons, c->tracers);
    uint32_t limit = ctx->props.limits.maxComputeWorkGroupCount[0];
    char cause[96], advice[160];
    if (c->spacing > 0.0f)
        snprintf(cause, sizeof cause, "vorton.spacing %g gives %u vortons, particle_spacing %g %u tracers: ",
                 (double)c->spacing, c->vortons, (double)c->tracer_spacing, c->tracers);
    else
        cause[0] = 0;
    if (CS_DIV_UP(most, VORTON_WG) > limit)
        return cs_fail(err, "vorton: %s%u particles need %u workgroups of %u, more than the %u %s allows "
                            "(maxComputeWorkGroupCount[0]); use at most %llu vortons (and tracers)",
                       cause, most, CS_DIV_UP(most, VORTON_WG), VORTON_WG, limit, ctx->props.deviceName,
                       (unsigned long long)limit * VORTON_WG);
    cs_count_cost tracers = {.noun = "tracers", .count = c->tracers, .host_bytes = c->tracer_host_bytes};
    vorton_unit_bytes(1, &tracers.device_bytes, &tracers.buffer_bytes);
    cs_count_cost vortons = {.noun = "vortons", .count = c->vortons, .host_bytes = c->vorton_host_bytes,
                             .device_extra = tracers.count * tracers.device_bytes};
    vorton_unit_bytes(0, &vortons.device_bytes, &vortons.buffer_bytes);
    // A lattice's count goes as 1/spacing^3: the spacing that would fit.
    snprintf(cause, sizeof cause, c->tracer_spacing > 0.0f ? "particle_spacing %g" : "vorton: a capacity of",
             (double)c->tracer_spacing);
    uint64_t fit = cs_count_fit(ctx, &tracers);
    snprintf(advice, sizeof advice, "raise particle_spacing to at least %.3g m (the tracers go as 1/spacing^3)",
             (double)c->tracer_spacing * cbrt((double)c->tracers / (double)CS_MAX(fit, 1u)));
    if (!cs_count_check(ctx, cause, &tracers, c->tracer_spacing > 0.0f ? advice : "use fewer tracers", err))
        return false;
    snprintf(cause, sizeof cause, c->spacing > 0.0f ? "vorton.spacing %g" : "vorton: a capacity of",
             (double)c->spacing);
    fit = cs_count_fit(ctx, &vortons);
    snprintf(advice, sizeof advice, "raise vorton.spacing to at least %.3g m (the vortons go as 1/spacing^3)",
             (double)c->spacing * cbrt((double)c->vortons / (double)CS_MAX(fit, 1u)));
    return cs_count_check(ctx, cause, &vortons, c->spacing > 0.0f ? advice : "use fewer vortons", err);
}

bool cs_vorton_create(cs_context *ctx, const cs_vorton_params *p, uint32_t capacity, uint32_t tracer_capacity,
                      cs_vorton **out, cs_error *err)
{
    *out = NULL;
    if (!(p->dt > 0.0f) || p->stretching > VORTON_STRETCH_NONE || !(p->viscosity >= 0.0f) ||
        !(p->diffusivity >= 0.0f) || p->velocity > VORTON_VELOCITY_GRID)
        return cs_fail(err, "vorton: parameters out of range (dt %g > 0, stretching %u, viscosity %g >= 0, "
                            "diffusivity %g >= 0, velocity method %u)",
                       p->dt, p->stretching, p->viscosity, p->diffusivity, p->velocity);
    uint32_t most = CS_MAX(capacity, tracer_capacity);
    if (!cs_vorton_check_counts(ctx, &(cs_vorton_counts){.vortons = capacity, .tracers = tracer_capacity}, err))
        return false;
    cs_vorton *v = calloc(1, sizeof *v);
    v->ctx = ctx;
    v->params = *p;
    v->capacity = capacity;
    v->tracer_capacity = tracer_capacity;
    v->source_chunk = VORTON_SOURCE_CHUNK;
    // The O(N^2) wall share, to time it against the binned one (bench;
    // docs/vortons.md "Timings"): the same results to round-off.
    v->wall_share_direct = ctx->settings.vorton_wall_share_direct; // CISTERN_VORTON_WALL_SHARE_DIRECT
    if (!vorton_create_buffers(v, err)) {
        cs_vorton_destroy(v);
        return false;
    }
    struct {
        cs_program_id *prog;
        const char *path, *name, *define;
    } programs[] = {
        {&v->rates, "vorton/rates.comp", "vorton rates", NULL},
        {&v->rates_points, "vorton/rates.comp", "vorton velocity at points", "TARGET_POINTS"},
        {&v->integrate, "vorton/integrate.comp", "vorton integrate", NULL},
        {&v->integrate_tracers, "vorton/integrate.comp", "vorton integrate tracers", "TRACERS"},
        {&v->stats, "vorton/stats.comp", "vorton stats", NULL},
        {&v->collide, "vorton/collide.comp", "vorton collide", NULL},
        {&v->collide_tracers, "vorton/collide.comp", "vorton collide tracers", "TRACERS"},
        {&v->wall_points, "vorton/collide.comp", "vorton wall points", "WALL_POINTS"},
        {&v->wall_share_prog, "vorton/wall_share.comp", "vorton wall share", NULL},
        {&v->wall_keys_prog, "vorton/wall_share.comp", "vorton wall share keys", "KEYS"},
        {&v->wall_share_direct_prog, "vorton/wall_share.comp", "vorton wall share direct", "DIRECT"},
        {&v->body_heat, "vorton/body_heat.comp", "vorton body heat", NULL},
    };
    if (p->velocity == VORTON_VELOCITY_GRID) {
        cs_vorton_grid_desc gd = {.origin = {p->grid_origin[0], p->grid_origin[1], p->grid_origin[2]},
                                  .size = p->grid_size,
                                  .cells = p->grid_cells,
                                  .cycles = p->grid_cycles,
                                  .fixed_box = p->grid_fixed_box,
                                  .capacity = capacity};
        if (!cs_vorton_grid_create(ctx, &gd, &v->grid, err)) {
            cs_vorton_destroy(v);
            return false;
        }
    }
    for (size_t i = 0; i < CS_ARRAY_COUNT(programs); i++) {
        cs_program_desc desc = {.path = programs[i].path, .name = programs[i].name};
        if (programs[i].define)
            desc.defines[0] = (cs_define){programs[i].define, "1"};
        if (!cs_program_create(ctx, &desc, programs[i].prog, err)) {
            cs_vorton_destroy(v);
            return false;
        }
    }
    if (!cs_reduce_create(ctx, CS_MAX(most, 1u), &v->reduce, err)) {
        cs_vorton_destroy(v);
        return false;
    }
    for (uint32_t i = 0; i < CS_FRAME_SLOTS; i++)
        if (!cs_buffer_create(ctx, &(cs_buffer_desc){.name = "vorton frame stats", .size = 4 * 4, .host_visible = true},
                              &v->frame_stats[i], err)) {
            cs_vorton_destroy(v);
            return false;
        }
    cs_recorder_create(ctx, "vorton stats", &v->stats_rec);
    *out = v;
    return true;
}

// ---- host copies ---------------------------------------------------------------

void cs_vorton_upload(cs_vorton *v, const float *pos4, const float *vort4, uint32_t count)
{
    CS_ASSERT(count <= v->capacity, "vorton upload: %u > capacity %u", count, v->capacity);
    v->count = count;
    // The radius never changes after the upload: the wall share's cells
    // (VORTON_WALL_SHARE_CELLS sigma_max) are sized from it.
    v->sigma_max = 0.0f;
    for (uint32_t i = 0; i < count; i++)
        v->sigma_max = fmaxf(v->sigma_max, pos4[i * 4 + 3]);
    if (!count)
        return;
    cs_buffer_upload(v->ctx, &v->pos[v->current], pos4, (VkDeviceSize)count * 16, 0);
    cs_buffer_upload(v->ctx, &v->vort[v->current], vort4, (VkDeviceSize)count * 16, 0);
}

void cs_vorton_download(cs_vorton *v, float *pos4, float *vort4)
{
    if (!v->count)
        return;
    if (pos4)
        cs_buffer_download(v->ctx, &v->pos[v->current], pos4, (VkDeviceSize)v->count * 16, 0);
    if (vort4)
        cs_buffer_download(v->ctx, &v->vort[v->current], vort4, (VkDeviceSize)v->count * 16, 0);
}

void cs_vorton_upload_tracers(cs_vorton *v, const float *pos4, uint32_t count)
{
    CS_ASSERT(count <= v->tracer_capacity, "vorton tracers: %u > capacity %u", count, v->tracer_capacity);
    v->tracer_count = count;
    if (!count)
        return;
    cs_buffer_upload(v->ctx, &v->tracer_pos[v->current], pos4, (VkDeviceSize)count * 16, 0);
    // The view's "density" is the tracer's temperature (it never changes:
    // tracers are passive), read once here.
    float *temps = malloc((size_t)count * 4);
    for (uint32_t i = 0; i < count; i++)
        temps[i] = pos4[i * 4 + 3];
    cs_buffer_upload(v->ctx, &v->tracer_temp, temps, (VkDeviceSize)count * 4, 0);
    free(temps);
}

void cs_vorton_download_tracers(cs_vorton *v, float *pos4)
{
    if (v->tracer_count)
        cs_buffer_download(v->ctx, &v->tracer_pos[v->current], pos4, (VkDeviceSize)v->tracer_count * 16, 0);
}

void cs_vorton_download_rates(cs_vorton *v, float *vel4, float *rate4)
{
    if (!v->count)
        return;
    if (vel4)
        cs_buffer_download(v->ctx, &v->vel, vel4, (VkDeviceSize)v->count * 16, 0);
    if (rate4)
        cs_buffer_download(v->ctx, &v->rate, rate4, (VkDeviceSize)v->count * 16, 0);
}

// The wall share's buckets (the no-slip "flux" rule only): a grid of
// wall_buckets cells in a row, one per bucket (wall_share.comp hashes the
// contact cells into them), at least one per vorton so that a bucket holds
// few cells' vortons.
static bool create_wall_bins(cs_vorton *v, cs_error *err)
{
    if (v->params.no_slip != VORTON_NO_SLIP_FLUX)
        return true;
    v->wall_buckets = 64;
    while (v->wall_buckets < v->capacity)
        v->wall_buckets *= 2;
    cs_grid_desc desc = {.name = "vorton wall share bins",
                         .dim = 3,
                         .domain_max = {(float)v->wall_buckets, 1.0f, 1.0f},
                         .cell_size = 1.0f,
                         .capacity = CS_MAX(v->capacity, 1u)};
    return cs_grid_create(v->ctx, &desc, &v->wall_bins, err);
}

// The two-way buffers, once: impulse slots for the moving bodies (what the
// world's bodies module reduces), heat terms for every body when one has a
// heat capacity. A buffer nothing writes stays 16 bytes (collide.comp binds
// every buffer; its flags say which it writes).
static bool create_two_way_buffers(cs_vorton *v, const cs_body_set *set, cs_error *err)
{
    const cs_vorton_params *p = &v->params;
    v->impulse_slots = set->counts.w;
    v->heat_exchange = false;
    for (uint32_t b = 0; b < set->counts.x; b++)
        v->heat_exchange |= p->body_temperature[b] > 0.0f && p->body_heat_capacity[b] > 0.0f;
    VkDeviceSize n = CS_MAX(v->capacity, 1u);
    vorton_buffer_spec buffers[] = {
        {&v->impulses, "vorton body impulses", v->impulse_slots ? n * 4 * CS_BODY_RECORD_FLOATS * CS_BODY_RECORDS_PER_PARTICLE : 16,
         // The contact records start unused (0.0 would read as body slot 0);
         // the bodies module clears them again before every substep.
         CS_BODY_RECORD_NONE_BITS},
        {&v->heat_terms, "vorton body heat terms", v->heat_exchange ? n * 4 * set->counts.x : 16},
        {&v->heat_scratch, "vorton body heat scratch", v->heat_exchange ? n * 4 : 16},
        {&v->heat_sums, "vorton body heat sums", 4 * CS_BODIES_MAX},
    };
    return create_buffer_table(v, buffers, CS_ARRAY_COUNT(buffers), err) && create_wall_bins(v, err);
}

bool cs_vorton_set_bodies(cs_vorton *v, const cs_body_set *set, cs_error *err)
{
    if (!v->heat_sums.buffer && !create_two_way_buffers(v, set, err))
        return false;
    CS_ASSERT(set->counts.w == v->impulse_slots, "vorton bodies: %u moving bodies, sized for %u", set->counts.w,
              v->impulse_slots);
    v->body_count = set->counts.x;
    const cs_vorton_params *p = &v->params;
    float thermal[CS_BODIES_MAX][4] = {{0}};
    for (uint32_t b = 0; b < CS_BODIES_MAX; b++) {
        bool exchanges = p->body_temperature[b] > 0.0f && p->body_heat_capacity[b] > 0.0f;
        thermal[b][0] = p->body_temperature[b];
        thermal[b][1] = exchanges ? p->density * p->specific_heat / p->body_heat_capacity[b] : 0.0f;
        thermal[b][2] = p->body_temperature[b] > 0.0f ? p->body_temperature[b] - p->ambient_temperature : 0.0f;
    }
    cs_buffer_upload(v->ctx, &v->bodies, set, sizeof *set, 0);
    cs_buffer_upload(v->ctx, &v->bodies, thermal, sizeof thermal, sizeof *set);
    return true;
}

void cs_vorton_download_body_thermal(cs_vorton *v, float thermal[CS_BODIES_MAX][4])
{
    cs_buffer_download(v->ctx, &v->bodies, thermal, sizeof(float) * 4 * CS_BODIES_MAX, sizeof(cs_body_set));
}

// ---- stats -------------------------------------------------------------------------

enum { STATS_OUT_SPEED_MAX, STATS_OUT_NON_FINITE_SUM, STATS_OUT_COUNT };

// "vorton: stats": the per-particle terms reduced into stats_out, over
// `threads` = max(vortons, tracers) invocations.
static void record_stats_pass(cs_vorton *v, cs_recorder *rec, uint32_t threads)
{
    cs_pass_begin(rec, "vorton: stats");
    vorton_push push = {.counts = {v->count, threads, v->tracer_count, 0}};
    cs_dispatch(rec, v->stats,
                &(cs_dispatch_desc){.buffers = {&v->pos[v->current], &v->vort[v->current], &v->vel,
                                                &v->tracer_pos[v->current], &v->stats_speed, &v->stats_non_finite},
                                    .push = &push, .push_size = sizeof push, .threads = {threads}});
    cs_barrier_compute(rec);
    cs_reduce_record(rec, &v->reduce, CS_REDUCE_MAX, &v->stats_speed, threads, &v->stats_out, STATS_OUT_SPEED_MAX);
    cs_reduce_record(rec, &v->reduce, CS_REDUCE_SUM, &v->stats_non_finite, threads, &v->stats_out,
                     STATS_OUT_NON_FINITE_SUM);
    cs_pass_end(rec);
}

static void stats_from_result(const float *result, cs_sim_stats *out)
{
    out->max_speed = result[STATS_OUT_SPEED_MAX];
    // A sum of 0/1/2 flags is exact in float up to 2^24 particles.
    out->non_finite = (uint32_t)result[STATS_OUT_NON_FINITE_SUM];
}

void cs_vorton_stats(cs_vorton *v, cs_sim_stats *out)
{
    *out = (cs_sim_stats){.particles = v->count};
    uint32_t threads = CS_MAX(v->count, v->tracer_count);
    if (!threads)
        return;
    cs_recorder *rec = &v->stats_rec;
    cs_recorder_begin(rec);
    record_stats_pass(v, rec, threads);
    cs_recorder_submit_wait(rec);
    float result[STATS_OUT_COUNT];
    cs_buffer_download(v->ctx, &v->stats_out, result, sizeof result, 0);
    stats_from_result(result, out);
}

void cs_vorton_record_frame_stats(cs_vorton *v, cs_recorder *rec)
{
    CS_ASSERT(rec->frame_slot < CS_FRAME_SLOTS, "frame slot %u", rec->frame_slot);
    v->frame_counts[rec->frame_slot] = v->count;
    uint32_t threads = CS_MAX(v->count, v->tracer_count);
    v->frame_reduced[rec->frame_slot] = threads > 0;
    if (!threads)
        return;
    record_stats_pass(v, rec, threads);
    cs_barrier_compute_to_transfer(rec);
    cs_cmd_copy(rec, &v->stats_out, &v->frame_stats[rec->frame_slot], STATS_OUT_COUNT * sizeof(float));
}

void cs_vorton_read_frame_stats(cs_vorton *v, uint32_t frame_slot, cs_sim_stats *out)
{
    CS_ASSERT(frame_slot < CS_FRAME_SLOTS, "frame slot %u", frame_slot);
    *out = (cs_sim_stats){.particles = v->frame_counts[frame_slot]};
    if (!v->frame_reduced[frame_slot])
        return;
    float result[STATS_OUT_COUNT];
    memcpy(result, v->frame_stats[frame_slot].mapped, sizeof result);
    stats_from_result(result, out);
}

// ---- recording -------------------------------------------------------------------

static vorton_push make_push(const cs_vorton *v, uint32_t targets, uint32_t kind, float h)
{
    const cs_vorton_params *p = &v->params;
    return (vorton_push){
        .counts = {v->count, targets, p->stretching, kind},
        .physics = {p->viscosity, p->diffusivity, p->expansion, p->ambient_temperature},
        .gravity_dt = {p->gravity[0], p->gravity[1], p->gravity[2], h},
        .body_slots = {v->capacity, (v->impulse_slots ? VORTON_BODIES_IMPULSES : 0u) |
                                        (v->heat_exchange ? VORTON_BODIES_HEAT : 0u), p->no_slip, v->wall_buckets},
        .fluid = {p->density, v->sigma_max > 0.0f ? 1.0f / (float)(VORTON_WALL_SHARE_CELLS * v->sigma_max) : 0.0f,
                  0.0f, 0.0f},
        .chunk = {0u, UINT32_MAX, VORTON_CHUNK_LAST, 0u},
    };
}

// rates.comp over the sources in chunks of v->source_chunk (lavapipe's loop
// budget, vorton_shared.h): each chunk carries the running sums on in the
// outputs (velocity) and v->rates_partial, so any split gives the same bits.
static void dispatch_rates(cs_vorton *v, cs_recorder *rec, cs_program_id prog, const vorton_push *base,
                           cs_buffer *const buffers[6])
{
    if (!base->counts.y)
        return;
    uint32_t sources = base->counts.x, chunk = CS_MAX(v->source_chunk, (uint32_t)VORTON_TILE);
    uint32_t first = 0;
    do {
        vorton_push push = *base;
        uint32_t end = sources - first > chunk ? first + chunk : sources;
        push.chunk = (uvec4){first, end, (first ? VORTON_CHUNK_RESUME : 0u) | (end == sources ? VORTON_CHUNK_LAST : 0u),
                             0u};
        cs_dispatch_desc desc = {.push = &push, .push_size = sizeof push, .threads = {push.counts.y}};
        for (int b = 0; b < 6; b++)
            desc.buffers[b] = buffers[b];
        if (buffers[5]) // vorton targets: the running sums besides the velocity
            desc.buffers[6] = &v->rates_partial;
        cs_dispatch(rec, prog, &desc);
        if (end != sources)
            cs_barrier_compute(rec);
        first = end;
    } while (first < sources);
}

static void dispatch(cs_recorder *rec, cs_program_id prog, const vorton_push *push, cs_buffer *const buffers[6])
{
    if (!push->counts.y)
        return;
    cs_dispatch_desc desc = {.push = push, .push_size = sizeof *push, .threads = {push->counts.y}};
    for (int b = 0; b < 6; b++)
        desc.buffers[b] = buffers[b];
    cs_dispatch(rec, prog, &desc);
}

// The grid method: the solve, then the local terms of rates.comp (PSE,
// heat, buoyancy: still the direct pair loop, skipped when all are off),
// then velocity and stretching from the grid at the vortons and tracers.
static void record_grid_rates_of(cs_vorton *v, cs_recorder *rec, cs_buffer *pos, cs_buffer *vort, cs_buffer *tracers)
{
    const cs_vorton_params *p = &v->params;
    bool local = p->viscosity > 0.0f || p->diffusivity > 0.0f || p->expansion != 0.0f;
    cs_vorton_grid_record_solve(rec, &v->grid, pos, vort, v->count);
    cs_pass_begin(rec, "vorton: rates");
    if (local) {
        vorton_push push = make_push(v, v->count, VORTON_TARGET_VORTONS, 0.0f);
        push.counts.z = VORTON_STRETCH_NONE; // the grid's stretching is added below
        dispatch_rates(v, rec, v->rates, &push, (cs_buffer *const[6]){pos, vort, pos, vort, &v->vel, &v->rate});
        cs_barrier_compute(rec);
    }
    cs_vorton_grid_record_interp(rec, &v->grid, pos, vort, &v->vel, &v->rate, v->count, p->stretching, local);
    cs_pass_end(rec);
    if (tracers && v->tracer_count) {
        cs_pass_begin(rec, "vorton: tracers");
        cs_vorton_grid_record_interp(rec, &v->grid, tracers, NULL, &v->tracer_vel, NULL, v->tracer_count, 0, false);
        cs_pass_end(rec);
    }
    cs_barrier_compute(rec);
}

// Rates at the vortons of (pos, vort) and velocity at the tracers `tracers`.
static void record_rates_of(cs_vorton *v, cs_recorder *rec, cs_buffer *pos, cs_buffer *vort, cs_buffer *tracers)
{
    if (v->params.velocity == VORTON_VELOCITY_GRID) {
        record_grid_rates_of(v, rec, pos, vort, tracers);
        return;
    }
    vorton_push push = make_push(v, v->count, VORTON_TARGET_VORTONS, 0.0f);
    cs_pass_begin(rec, "vorton: rates");
    dispatch_rates(v, rec, v->rates, &push, (cs_buffer *const[6]){pos, vort, pos, vort, &v->vel, &v->rate});
    cs_pass_end(rec);
    if (tracers && v->tracer_count) {
        push = make_push(v, v->tracer_count, VORTON_TARGET_POINTS, 0.0f);
        cs_pass_begin(rec, "vorton: tracers");
        dispatch_rates(v, rec, v->rates_points, &push,
                       (cs_buffer *const[6]){pos, vort, tracers, NULL, &v->tracer_vel, NULL});
        cs_pass_end(rec);
    }
    cs_barrier_compute(rec);
}

// out = base + h * rates, for the vortons and the tracers.
static void record_update(cs_vorton *v, cs_recorder *rec, const char *name, float h, uint32_t base, bool to_mid)
{
    cs_buffer *out_pos = to_mid ? &v->mid_pos : &v->pos[base ^ 1u];
    cs_buffer *out_vort = to_mid ? &v->mid_vort : &v->vort[base ^ 1u];
    cs_buffer *out_tracers = to_mid ? &v->tracer_mid : &v->tracer_pos[base ^ 1u];
    cs_pass_begin(rec, name);
    vorton_push push = make_push(v, v->count, VORTON_TARGET_VORTONS, h);
    dispatch(rec, v->integrate, &push,
             (cs_buffer *const[6]){&v->pos[base], &v->vort[base], &v->vel, &v->rate, out_pos, out_vort});
    push = make_push(v, v->tracer_count, VORTON_TARGET_POINTS, h);
    dispatch(rec, v->integrate_tracers, &push,
             (cs_buffer *const[6]){&v->tracer_pos[base], NULL, &v->tracer_vel, NULL, out_tracers, NULL});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
}

// "vorton: body heat": per body with a heat capacity, the fixed-shape sum
// of the heat its vortons took (copied out of the planar array, then
// prim.h's tree: no float atomics, the same bits every run), then one
// invocation moves every body's temperature by it.
static void record_body_heat(cs_vorton *v, cs_recorder *rec)
{
    cs_pass_begin(rec, "vorton: body heat");
    for (uint32_t b = 0; b < v->body_count; b++) {
        if (!(v->params.body_temperature[b] > 0.0f && v->params.body_heat_capacity[b] > 0.0f))
            continue;
        cs_barrier_compute_to_transfer(rec);
        cs_cmd_copy_range(rec, &v->heat_terms, 4 * (VkDeviceSize)b * v->capacity, &v->heat_scratch, 0,
                          4 * (VkDeviceSize)v->count);
        cs_barrier_transfer_to_compute(rec);
        cs_reduce_record(rec, &v->reduce, CS_REDUCE_SUM, &v->heat_scratch, v->count, &v->heat_sums, b);
    }
    vorton_push push = make_push(v, v->body_count, VORTON_TARGET_VORTONS, v->params.dt);
    cs_dispatch(rec, v->body_heat,
                &(cs_dispatch_desc){.buffers = {&v->heat_sums, &v->bodies}, .push = &push,
                                    .push_size = sizeof push, .threads = {1}});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
}

// The velocity the vortons of `state` induce at `count` points (vec4 xyz)
// into `out` (vec4), a pass of its own: the direct sum, or the grid's
// solve and interpolation.
static void record_velocity_of(cs_vorton *v, cs_recorder *rec, const char *pass, uint32_t state, cs_buffer *points,
                               cs_buffer *out, uint32_t count)
{
    if (v->params.velocity == VORTON_VELOCITY_GRID) {
        cs_vorton_grid_record_solve(rec, &v->grid, &v->pos[state], &v->vort[state], v->count);
        cs_pass_begin(rec, pass);
        cs_vorton_grid_record_interp(rec, &v->grid, points, NULL, out, NULL, count, 0, false);
        cs_pass_end(rec);
        cs_barrier_compute(rec);
        return;
    }
    vorton_push push = make_push(v, count, VORTON_TARGET_POINTS, 0.0f);
    cs_pass_begin(rec, pass);
    dispatch_rates(v, rec, v->rates_points, &push,
                   (cs_buffer *const[6]){&v->pos[state], &v->vort[state], points, NULL, out, NULL});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
}

// "vorton: wall share", the O(N^2) reference (wall_share_direct): every
// vorton against every vorton, over the sources in chunks of
// v->source_chunk (lavapipe's loop budget) that carry the sum on.
static void record_wall_share_direct(cs_vorton *v, cs_recorder *rec, uint32_t state)
{
    uint32_t sources = v->count, chunk = CS_MAX(v->source_chunk, (uint32_t)VORTON_TILE), first = 0;
    do {
        vorton_push push = make_push(v, v->count, VORTON_TARGET_VORTONS, v->params.dt);
        uint32_t end = sources - first > chunk ? first + chunk : sources;
        push.chunk = (uvec4){first, end, first ? VORTON_CHUNK_RESUME : 0u, 0u};
        cs_dispatch(rec, v->wall_share_direct_prog,
                    &(cs_dispatch_desc){.buffers = {&v->pos[state], &v->wall_pos, &v->wall_weight, &v->wall_share},
                                        .push = &push, .push_size = sizeof push, .threads = {v->count}});
        cs_barrier_compute(rec);
        first = end;
    } while (first < sources);
}

// "vorton: wall share": per vorton near a body, the weighted count of the
// vortons sharing its patch of wall (wall_share.comp): the wall vortons
// binned by contact cell (keys, the grid's sort and ranges), then each
// sums over the 27 cells around its own. O(N) + wall vortons x neighbours.
static void record_wall_share(cs_vorton *v, cs_recorder *rec, uint32_t state)
{
    cs_pass_begin(rec, "vorton: wall share");
    if (v->wall_share_direct) {
        record_wall_share_direct(v, rec, state);
        cs_pass_end(rec);
        return;
    }
    vorton_push push = make_push(v, v->count, VORTON_TARGET_VORTONS, v->params.dt);
    cs_dispatch(rec, v->wall_keys_prog,
                &(cs_dispatch_desc){.buffers = {NULL, &v->wall_pos, &v->wall_bins.keys, &v->wall_bins.order},
                                    .push = &push, .push_size = sizeof push, .threads = {v->count}});
    cs_barrier_compute(rec);
    cs_grid_record_sort_keys(rec, &v->wall_bins, v->count);
    cs_dispatch(rec, v->wall_share_prog,
                &(cs_dispatch_desc){.buffers = {&v->pos[state], &v->wall_pos, &v->wall_weight, &v->wall_share,
                                                &v->wall_bins.order, &v->wall_bins.ranges},
                                    .push = &push, .push_size = sizeof push, .threads = {v->count}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

// "vorton: wall points" + "vorton: wall velocity" + "vorton: wall share"
// (the no-slip "flux" rule only): where each vorton near a body touches
// it and its spreading weight, the velocity the new state induces there
// (every vorton's own layer included: the slip there is what the wall has
// to cancel), and how many vortons share each patch of wall.
static void record_wall_velocity(cs_vorton *v, cs_recorder *rec, uint32_t state)
{
    cs_pass_begin(rec, "vorton: wall points");
    vorton_push push = make_push(v, v->count, VORTON_TARGET_VORTONS, v->params.dt);
    dispatch(rec, v->wall_points, &push,
             (cs_buffer *const[6]){&v->pos[state], &v->wall_pos, &v->vel, &v->bodies, &v->wall_weight, NULL});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
    record_velocity_of(v, rec, "vorton: wall velocity", state, &v->wall_pos, &v->wall_vel, v->count);
    record_wall_share(v, rec, state);
}

// "vorton: bodies": the new state against the bodies, with the velocity of
// the midpoint rates (the one the step moved with) and, for the no-slip
// "flux" rule, the velocity at the wall; then the heat the bodies gave
// (or took) moves their temperatures.
static void record_bodies(cs_vorton *v, cs_recorder *rec, uint32_t state)
{
    bool flux = v->params.no_slip == VORTON_NO_SLIP_FLUX;
    if (flux && v->count)
        record_wall_velocity(v, rec, state);
    cs_pass_begin(rec, "vorton: bodies");
    vorton_push push = make_push(v, v->count, VORTON_TARGET_VORTONS, v->params.dt);
    if (v->count)
        cs_dispatch(rec, v->collide,
                    &(cs_dispatch_desc){.buffers = {&v->pos[state], &v->vort[state], &v->vel, &v->bodies,
                                                    &v->impulses, &v->heat_terms, &v->wall_pos, &v->wall_vel,
                                                    &v->wall_weight, &v->wall_share, &v->vort[state ^ 1u]},
                                        .push = &push, .push_size = sizeof push, .threads = {v->count}});
    push = make_push(v, v->tracer_count, VORTON_TARGET_POINTS, v->params.dt);
    dispatch(rec, v->collide_tracers, &push,
             (cs_buffer *const[6]){&v->tracer_pos[state], NULL, &v->tracer_vel, &v->bodies, NULL, NULL});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
    if (v->heat_exchange && v->count)
        record_body_heat(v, rec);
}

void cs_vorton_record_step(cs_vorton *v, cs_recorder *rec)
{
    uint32_t cur = v->current;
    float dt = v->params.dt;
    record_rates_of(v, rec, &v->pos[cur], &v->vort[cur], &v->tracer_pos[cur]);
    record_update(v, rec, "vorton: half", 0.5f * dt, cur, true);
    record_rates_of(v, rec, &v->mid_pos, &v->mid_vort, &v->tracer_mid);
    record_update(v, rec, "vorton: advance", dt, cur, false);
    if (v->body_count)
        record_bodies(v, rec, cur ^ 1u);
    v->current = cur ^ 1u;
    v->steps++;
}

void cs_vorton_record_rates(cs_vorton *v, cs_recorder *rec)
{
    record_rates_of(v, rec, &v->pos[v->current], &v->vort[v->current], NULL);
}

void cs_vorton_record_velocity_at(cs_vorton *v, cs_recorder *rec, cs_buffer *points, cs_buffer *out, uint32_t count)
{
    record_velocity_of(v, rec, "vorton: velocity at points", v->current, points, out, count);
}

// ---- seeding ---------------------------------------------------------------------

static void normalise3(double v[3])
{
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int a = 0; a < 3; a++)
        v[a] /= len;
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

// Two unit vectors e1, e2 with (e1, e2, axis) right-handed.
static void ring_basis(const double axis[3], double e1[3], double e2[3])
{
    double helper[3] = {1.0, 0.0, 0.0};
    if (fabs(axis[0]) > 0.9)
        helper[0] = 0.0, helper[1] = 1.0;
    cross3(axis, helper, e1);
    normalise3(e1);
    cross3(axis, e1, e2);
}

// The core is a square lattice of spacing h in the ring's cross-section
// (radial offset, axial offset), the points within `core` of the centre line;
// around the ring, N = round(2 pi R / h) copies. Each core point carries an
// equal share of the circulation, Gamma / points, along the arc it stands for
// (2 pi (R + radial offset) / N), so the circulation is exact and the
// vorticity uniform over the core (the Kelvin ring's assumption).
// The vortons' own radius (their regularisation core) is the spacing, but
// at most a quarter of the ring's core: an algebraic blob's vorticity has
// long tails, and a ring of blobs of radius s moves like a uniform core of
// about sqrt(a^2 + 6.5 s^2) (llvmpipe: s = a/2 ran 16% slower than Kelvin
// at a/R 0.3, a/3 10.7%; tests/test_vorton_ring_core.c). A smaller blob
// keeps the lattice (and the count) and carries the same strength
// omega r^3 = Gamma / points x arc.
#define RING_BLOB_OF_CORE 0.25
uint32_t cs_vorton_ring_fill(const cs_vorton_ring *ring, float spacing, float *pos4, float *vort4,
                             uint32_t capacity)
{
    double h = spacing, R = ring->radius, a = ring->core;
    int reach = (int)floor(a / h);
    uint32_t core_points = 0;
    for (int i = -reach; i <= reach; i++)
        for (int j = -reach; j <= reach; j++)
            core_points += (double)(i * i + j * j) * h * h <= a * a * (1.0 + 1e-9);
    uint32_t around = (uint32_t)fmin(fmax(3.0, floor(2.0 * VORTON_PI * R / h + 0.5)), (double)UINT32_MAX);
    // In 64 bits: a count past UINT32_MAX is UINT32_MAX, which no capacity
    // holds (a wrapped product would pass the device's check, then overrun).
    uint32_t needed = (uint32_t)CS_MIN((uint64_t)core_points * around, (uint64_t)UINT32_MAX);
    // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10 misreads CS_MIN with a 64-bit operand
    if (!pos4 || !vort4 || needed > capacity)
        return needed;
    double axis[3] = {ring->axis[0], ring->axis[1], ring->axis[2]}, e1[3], e2[3];
    normalise3(axis);
    ring_basis(axis, e1, e2);
    double share = (double)ring->circulation / core_points;
    double blob = fmin(h, RING_BLOB_OF_CORE * a), volume = blob * blob * blob;
    uint32_t n = 0;
    for (uint32_t k = 0; k < around; k++) {
        double phi = 2.0 * VORTON_PI * k / around, c = cos(phi), s = sin(phi);
        double radial[3], tangent[3];
        for (int d = 0; d < 3; d++) {
            radial[d] = c * e1[d] + s * e2[d];
            tangent[d] = -s * e1[d] + c * e2[d];
        }
        for (int i = -reach; i <= reach; i++)
            for (int j = -reach; j <= reach; j++) {
                if ((double)(i * i + j * j) * h * h > a * a * (1.0 + 1e-9))
                    continue;
                double rr = R + i * h, arc = 2.0 * VORTON_PI * rr / around;
                double omega = share * arc / volume;
                for (int d = 0; d < 3; d++) {
                    pos4[n * 4 + d] = (float)(ring->centre[d] + rr * radial[d] + j * h * axis[d]);
                    vort4[n * 4 + d] = (float)(omega * tangent[d]);
                }
                pos4[n * 4 + 3] = (float)blob;
                vort4[n * 4 + 3] = 0.0f; // temperature: set by the caller (ambient)
                n++;
            }
    }
    return n;
}

// A cubic lattice of spacing h filling the ball; no vorticity.
uint32_t cs_vorton_heat_fill(const cs_vorton_heat *heat, float spacing, float *pos4, float *vort4,
                             uint32_t capacity)
{
    double h = spacing, r = heat->radius;
    int reach = (int)floor(r / h);
    uint64_t n = 0; // 64 bits: a count past UINT32_MAX is UINT32_MAX (no capacity holds it)
    for (int k = -reach; k <= reach; k++)
        for (int j = -reach; j <= reach; j++)
            for (int i = -reach; i <= reach; i++) {
                if ((double)(i * i + j * j + k * k) * h * h > r * r * (1.0 + 1e-9))
                    continue;
                if (pos4 && vort4 && n < capacity) {
                    int idx[3] = {i, j, k};
                    for (int d = 0; d < 3; d++) {
                        pos4[n * 4 + d] = (float)(heat->centre[d] + idx[d] * h);
                        vort4[n * 4 + d] = 0.0f;
                    }
                    pos4[n * 4 + 3] = spacing;
                    vort4[n * 4 + 3] = heat->temperature;
                }
                n++;
            }
    return (uint32_t)CS_MIN(n, (uint64_t)UINT32_MAX);
}
