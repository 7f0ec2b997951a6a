// bench_result.h — one size's row of a `cistern bench` sweep (bench.c),
// shared with the comparison against a baseline (bench_baseline.c).
// Private to host/app/bench/.
#pragma once
#include "bench.h"

#define MAX_PASSES 48
#define MAX_BATCHES 16

typedef struct bench_pass {
    char name[48];
    double median_ms, p10_ms, p90_ms;
    bool per_frame; // ran in only some steps: its mean over the steps (amortise_frame_passes)
    uint32_t runs;  // timed steps it ran in
} bench_pass;

typedef struct bench_result {
    uint32_t requested;
    uint32_t particles;
    bool skipped;
    char skip_reason[512];
    double median_ms, p90_ms;        // GPU, whole step (sum of passes)
    double p10_ms;
    double spread;                   // (p90 - p10) / median of the steps
    double batch_median_ms[MAX_BATCHES];
    uint32_t batches;                // batches of `steps` steps timed
    bool noisy;
    char noise_reason[384];
    double wall_median_ms;           // submit + wait on the host
    double particle_steps_per_s;
    uint64_t memory_bytes;
    bench_pass passes[MAX_PASSES];
    uint32_t pass_count;
    // Physical sanity after the timed steps (see speed_bound): a fast but
    // exploding simulation is not a benchmark result.
    bool stable;
    bool failed;               // a step went wrong (NaN/Inf, a cell past capacity): the sweep stops
    char unstable_reason[640];
    double dt;                       // simulated seconds per step (after scaling)
    uint32_t steps_per_frame;        // the scaled scene's substeps
    uint32_t timed_steps;            // steps timed (fewer than asked when a step went wrong or was too slow)
} bench_result;

// --baseline FILE: each row's ratio to the same scene and size in an
// earlier results.json, whole step and per pass, with both spreads.
// False when the file cannot be used (said why).
bool cs_bench_compare_baseline(const char *path, const char *scene, const char *unit, const bench_result *res,
                               uint32_t n);
