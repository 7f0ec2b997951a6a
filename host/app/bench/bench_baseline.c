// bench_baseline.c — `cistern bench --baseline FILE`: this sweep's rows
// beside an earlier results.json's, as ratios with both spreads.
#include "bench_result.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The bench in a results file that matches this one: the file itself when
// it is one bench's results.json, else the entry of "benches" (a
// per-device results/<device>.json) with the same scene and unit.
static const cJSON *baseline_bench(const cJSON *root, const char *scene, const char *unit)
{
    const cJSON *benches = cJSON_GetObjectItem(root, "benches");
    if (!cJSON_IsArray(benches)) {
        const cJSON *name = cJSON_GetObjectItem(root, "scene");
        bool same = !cJSON_IsString(name) || strcmp(name->valuestring, scene) == 0;
        return same && cJSON_IsArray(cJSON_GetObjectItem(root, "sizes")) ? root : NULL;
    }
    const cJSON *b;
    cJSON_ArrayForEach(b, benches)
    {
        const cJSON *name = cJSON_GetObjectItem(b, "scene"), *u = cJSON_GetObjectItem(b, "unit");
        if (cJSON_IsString(name) && strcmp(name->valuestring, scene) == 0 &&
            (!cJSON_IsString(u) || strcmp(u->valuestring, unit) == 0))
            return b;
    }
    return NULL;
}

// A number of an object, or NAN when it is missing.
static double json_number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

// "x1.23 [1.10-1.31]": baseline ms / this ms, and the range its spreads
// allow (baseline p10 / this p90 to baseline p90 / this p10, each side's
// median where it has no percentile).
static void print_ratio(double base, double base_lo, double base_hi, double now, double now_lo, double now_hi)
{
    base_lo = isnan(base_lo) ? base : base_lo;
    base_hi = isnan(base_hi) ? base : base_hi;
    now_lo = isnan(now_lo) || now_lo <= 0 ? now : now_lo;
    now_hi = isnan(now_hi) || now_hi <= 0 ? now : now_hi;
    printf("x%.2f [%.2f-%.2f]", base / now, base_lo / now_hi, base_hi / now_lo);
}

// Prints this run against the baseline file row by row (size, then every
// pass both have). False, with the reason on stderr, when the file cannot
// be read, holds no bench of this scene, or a size of this run (or one of
// its passes) has no row there: a comparison with gaps is not one.
bool cs_bench_compare_baseline(const char *path, const char *scene, const char *unit, const bench_result *res,
                             uint32_t n)
{
    cs_error err;
    char *text = cs_read_file(path, NULL, &err);
    if (!text) {
        fprintf(stderr, "cistern: --baseline: %s; give the JSON an earlier `cistern bench` wrote\n", err.msg);
        return false;
    }
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) {
        fprintf(stderr, "cistern: --baseline %s: not JSON (a results.json of cistern bench, or results/DEVICE.json)\n",
                path);
        return false;
    }
    const cJSON *bench = baseline_bench(root, scene, unit);
    if (!bench) {
        fprintf(stderr, "cistern: --baseline %s: no bench of scene %s (%s) in it; compare like with like\n", path, scene,
                unit);
        cJSON_Delete(root);
        return false;
    }
    const cJSON *dev = cJSON_GetObjectItem(bench, "device_and_driver");
    printf("\nagainst baseline %s (%s): ratio = baseline ms / this ms (>1 is faster now), [range the spreads allow]\n",
           path, cJSON_IsString(dev) ? dev->valuestring : "?");
    uint32_t missing = 0;
    const cJSON *sizes = cJSON_GetObjectItem(bench, "sizes");
    for (uint32_t i = 0; i < n; i++) {
        if (res[i].skipped)
            continue;
        const cJSON *row = NULL, *s;
        cJSON_ArrayForEach(s, sizes)
        {
            double req = json_number(s, "requested");
            if (!cJSON_GetObjectItem(s, "skipped") && !isnan(req) && (uint32_t)req == res[i].requested)
                row = s;
        }
        if (!row) {
            fprintf(stderr, "cistern: --baseline %s: no row for %u %s\n", path, res[i].requested, unit);
            missing++;
            continue;
        }
        double base = json_number(row, "median_ms");
        printf("  %10u %s: %.3f ms -> %.3f ms  ", res[i].particles, unit, base, res[i].median_ms);
        print_ratio(base, json_number(row, "p10_ms"), json_number(row, "p90_ms"), res[i].median_ms, res[i].p10_ms,
                    res[i].p90_ms);
        // Whether either side was noisy: a ratio against a noisy baseline
        // says as little as one of a noisy run.
        const cJSON *base_noisy = cJSON_GetObjectItem(row, "noisy"), *base_why = cJSON_GetObjectItem(row, "noise");
        bool was_noisy = cJSON_IsTrue(base_noisy);
        if (res[i].noisy && was_noisy)
            printf("  (this run is noisy; the baseline was noisy too: %s)\n",
                   cJSON_IsString(base_why) ? base_why->valuestring : "?");
        else if (was_noisy)
            printf("  (the baseline was noisy: %s)\n", cJSON_IsString(base_why) ? base_why->valuestring : "?");
        else if (!cJSON_IsBool(base_noisy)) // a file from before the noise rules
            printf("  (%sthe baseline does not say whether it was noisy)\n", res[i].noisy ? "this run is noisy; " : "");
        else if (res[i].noisy)
            printf("  (this run is noisy; the baseline was not)\n");
        else
            printf("  (neither noisy)\n");
        const cJSON *passes = cJSON_GetObjectItem(row, "passes");
        for (uint32_t q = 0; q < res[i].pass_count; q++) {
            const bench_pass *p = &res[i].passes[q];
            const cJSON *bp = cJSON_GetObjectItem(passes, p->name);
            // Older files hold a pass as a bare number of ms.
            double pm = cJSON_IsNumber(bp) ? bp->valuedouble : json_number(bp, "median_ms");
            if (isnan(pm)) {
                fprintf(stderr, "cistern: --baseline %s: %u %s: no pass \"%s\"\n", path, res[i].requested, unit,
                        p->name);
                missing++;
                continue;
            }
            if (!(p->median_ms > 0))
                continue;
            printf("  %10s   %-28s %9.3f -> %9.3f ms  ", "", p->name, pm, p->median_ms);
            print_ratio(pm, json_number(bp, "p10_ms"), json_number(bp, "p90_ms"), p->median_ms, p->p10_ms,
                        p->p90_ms);
            printf("\n");
        }
    }
    cJSON_Delete(root);
    if (missing)
        fprintf(stderr, "cistern: --baseline %s: %u row(s) or pass(es) of this run have no match there\n", path,
                missing);
    return missing == 0;
}

