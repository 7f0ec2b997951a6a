// world_first_nan.c — which pass first wrote NaN/Inf (world.h,
// cs_world_find_first_non_finite). A run checks its state once a frame,
// for free (the stats it reads anyway); only when that check fails is the
// frame worth taking apart. The world is bit-deterministic, so a fresh
// world run to the frame before gives the very state that frame started
// from; the frame is then recorded again with a submit after every pass,
// and every float buffer the solvers list (sim.h float_buffers) is read
// back and scanned: the first pass after which a buffer holds more NaN/Inf
// values than before names the culprit.
#include "world.h"

#include <math.h>
#include <stdlib.h>

#define MAX_WATCHED 32

typedef struct watched_buffer {
    uint32_t fluid;
    cs_float_buffer buffer;
    uint32_t non_finite; // count after the last pass looked at
    uint32_t floats_seen; // floats that count covered (emission grows a buffer's live part)
} watched_buffer;

typedef struct pass_hunt {
    cs_world *world;
    watched_buffer watched[MAX_WATCHED];
    uint32_t watched_count;
    bool found;
    char *out;
    size_t size;
} pass_hunt;

// NaN/Inf values among the buffer's live floats; those at or past `from`
// (slots that only just came to life) counted apart in `fresh`.
static uint32_t count_non_finite(cs_context *ctx, const cs_float_buffer *b, uint32_t from, uint32_t *fresh)
{
    *fresh = 0;
    if (b->floats == 0)
        return 0;
    float *values = malloc((size_t)b->floats * sizeof(float));
    CS_ASSERT(values, "out of host memory");
    cs_buffer_download(ctx, b->buffer, values, (VkDeviceSize)b->floats * sizeof(float), 0);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < b->floats; i++) {
        bool finite = isfinite(values[i]);
        bad += !finite;
        *fresh += !finite && i >= from;
    }
    free(values);
    return bad;
}

// The solvers' float buffers as they stand (their counts grow with emission).
static void list_buffers(pass_hunt *hunt)
{
    uint32_t previous_count = hunt->watched_count;
    watched_buffer previous[MAX_WATCHED];
    memcpy(previous, hunt->watched, sizeof previous);
    hunt->watched_count = 0;
    for (uint32_t f = 0; f < hunt->world->fluid_count; f++) {
        const cs_world_fluid *wf = &hunt->world->fluids[f];
        if (!wf->ops->float_buffers)
            continue;
        cs_float_buffer list[MAX_WATCHED];
        uint32_t n = wf->ops->float_buffers(wf->state, list, MAX_WATCHED - hunt->watched_count);
        for (uint32_t k = 0; k < n; k++) {
            watched_buffer *w = &hunt->watched[hunt->watched_count++];
            *w = (watched_buffer){.fluid = f, .buffer = list[k]};
            for (uint32_t p = 0; p < previous_count; p++)
                if (previous[p].fluid == f && previous[p].buffer.buffer == list[k].buffer) {
                    w->non_finite = previous[p].non_finite;
                    w->floats_seen = previous[p].floats_seen;
                }
        }
    }
}

// True when some buffer gained NaN/Inf values since the last look; names
// the first such buffer in `culprit`. Slots that came to life since (emitted
// particles) hold what the memory held until a pass writes them: their
// values set the baseline, they do not count as gained.
static bool scan(pass_hunt *hunt, char *culprit, size_t size)
{
    list_buffers(hunt);
    bool grew = false;
    for (uint32_t k = 0; k < hunt->watched_count; k++) {
        watched_buffer *w = &hunt->watched[k];
        uint32_t fresh;
        uint32_t bad = count_non_finite(hunt->world->ctx, &w->buffer, w->floats_seen, &fresh);
        if (bad - fresh > w->non_finite && !grew) {
            grew = true;
            const cs_world_fluid *wf = &hunt->world->fluids[w->fluid];
            snprintf(culprit, size, "%s (%s): %u NaN/Inf value%s in %s", wf->scene->fluid_name, wf->ops->solver, bad,
                     bad == 1 ? "" : "s", w->buffer.name);
        }
        w->non_finite = bad;
        w->floats_seen = w->buffer.floats;
    }
    return grew;
}

static void after_pass(cs_recorder *rec, const char *pass_name, void *user)
{
    pass_hunt *hunt = user;
    if (hunt->found)
        return;
    cs_recorder_submit_wait(rec);
    char culprit[256];
    if (scan(hunt, culprit, sizeof culprit)) {
        hunt->found = true;
        snprintf(hunt->out, hunt->size, "pass \"%s\" (%s)", pass_name, culprit);
    }
    cs_recorder_resume(rec);
}

// Every frame is waited on before the next is recorded: a replay has no
// frames in flight, so each recorder is an immediate one.
static void run_frame(cs_recorder *rec, cs_world *world)
{
    cs_recorder_begin(rec);
    cs_world_record_frame(world, rec);
    cs_recorder_submit_wait(rec);
}

bool cs_world_replay(cs_context *ctx, const cs_scene *scene, uint32_t frames, cs_world *world, cs_error *err)
{
    if (!cs_world_create(ctx, scene, world, err))
        return false;
    cs_recorder rec;
    cs_recorder_create(ctx, "replay", &rec);
    for (uint32_t f = 0; f < frames; f++)
        run_frame(&rec, world);
    cs_recorder_destroy(&rec);
    cs_sim_stats stats;
    cs_world_stats(world, &stats, NULL);
    return true;
}

bool cs_world_find_first_non_finite(cs_world *world, char *out, size_t size)
{
    snprintf(out, size, "no pass found");
    pass_hunt hunt = {.world = world, .out = out, .size = size};
    char ignored[256];
    scan(&hunt, ignored, sizeof ignored); // what the frame starts from
    cs_recorder rec;
    cs_recorder_create(world->ctx, "first non-finite pass", &rec);
    rec.after_pass = after_pass;
    rec.after_pass_user = &hunt;
    run_frame(&rec, world);
    rec.after_pass = NULL;
    cs_recorder_destroy(&rec);
    cs_sim_stats stats;
    cs_world_stats(world, &stats, NULL);
    return hunt.found;
}
