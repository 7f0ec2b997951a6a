// bench_common.c — what every bench sweep shares (bench.h): the sizes
// list, the context and its provenance, the output folder, results.json,
// percentiles and gnuplot.
#define _GNU_SOURCE
#include "bench.h"

#include "cli.h"
#include "context.h"
#include "output.h"
#include "provenance.h"
#include "scene.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>

// The one provenance of this process's bench (a CLI run is one bench):
// begun when the context opens, closed when results.json is written.
static cs_provenance bench_provenance;

bool cs_bench_machine_busy(char *out, size_t size)
{
    return cs_provenance_busy(&bench_provenance, out, size);
}

bool cs_bench_parse_sizes(const char *text, cs_bench_options *opt, cs_error *err)
{
    opt->size_count = 0;
    const char *p = text;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        // !(v > 0) also refuses NaN, which must never reach the cast below.
        if (end == p || !(v > 0))
            return cs_fail(err, "--particles: cannot read a count at \"%s\" (write e.g. 16k,64k,1M)", p);
        if (*end == 'k' || *end == 'K')
            v *= 1e3, end++;
        else if (*end == 'm' || *end == 'M')
            v *= 1e6, end++;
        if (*end != ',' && *end != 0)
            return cs_fail(err, "--particles: unexpected \"%s\" (write e.g. 16k,64k,1M)", end);
        if (!(v <= 4e9))
            return cs_fail(err, "--particles: %.0f is more than cistern can index", v);
        if (v != floor(v))
            return cs_fail(err, "--particles: %g is not a whole count", v);
        if (opt->size_count == CS_BENCH_MAX_SIZES)
            return cs_fail(err, "--particles: at most %d sizes", CS_BENCH_MAX_SIZES);
        opt->sizes[opt->size_count++] = (uint32_t)v;
        p = *end == ',' ? end + 1 : end;
    }
    if (opt->size_count == 0)
        return cs_fail(err, "--particles: no sizes given");
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static bool load_scene_name(const cs_bench_options *opt, char *name, size_t size)
{
    cs_error err;
    cs_scene probe;
    if (!cs_scene_load_edited(opt->scene, opt->edits.items, opt->edits.count, &probe, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return false;
    }
    snprintf(name, size, "%s", probe.name);
    cs_scene_free(&probe);
    return true;
}

bool cs_bench_open_context(const cs_bench_options *opt, cs_context *ctx, char *device, size_t size)
{
    cs_error err;
    cs_context_desc desc = {.validation = opt->validation, .device = opt->device, .verbose = !opt->quiet,
                            .settings = cs_cli_settings()};
    if (!cs_context_create(&desc, ctx, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return false;
    }
    cs_context_device_string(ctx, device, size);
    // The scene file's path for its hash: load it once (names resolve).
    char scene_file[512] = "";
    if (opt->scene) {
        cs_scene *probe = malloc(sizeof *probe);
        if (probe && cs_scene_load_edited(opt->scene, opt->edits.items, opt->edits.count, probe, &err)) {
            snprintf(scene_file, sizeof scene_file, "%s", probe->path);
            cs_scene_free(probe);
        }
        free(probe);
    }
    cs_provenance_begin(&bench_provenance, scene_file[0] ? scene_file : NULL);
    if (!opt->quiet)
        cs_provenance_print(&bench_provenance, stderr);
    char busy[200];
    if (!opt->quiet && cs_provenance_busy(&bench_provenance, busy, sizeof busy))
        fprintf(stderr, "cistern: warning: %s: its timings are marked noisy\n", busy);
    return true;
}

static bool prepare_out(const cs_bench_options *opt, const char *default_dir, const char *scene, char *dir, size_t size)
{
    if (opt->out_dir) {
        snprintf(dir, size, "%s", opt->out_dir);
    } else {
        const char *at = strstr(default_dir, "SCENE");
        if (at)
            snprintf(dir, size, "%.*s%s%s", (int)(at - default_dir), default_dir, scene, at + strlen("SCENE"));
        else
            snprintf(dir, size, "%s", default_dir);
    }
    cs_error err;
    if (!cs_prepare_out_dir(dir, opt->overwrite, CS_OUT_BENCH, &err)) {
        fprintf(stderr, "cistern: bench: %s\n", err.msg);
        return false;
    }
    return true;
}

int cs_bench_begin(const cs_bench_options *opt, const char *default_dir, cs_context *ctx, cs_bench_start *start)
{
    if (!load_scene_name(opt, start->scene_name, sizeof start->scene_name))
        return 2;
    if (!prepare_out(opt, default_dir, start->scene_name, start->dir, sizeof start->dir))
        return 2;
    if (!cs_bench_open_context(opt, ctx, start->device, sizeof start->device))
        return 1;
    return 0;
}

bool cs_bench_write_json(const char *dir, cJSON *json, cs_error *err)
{
    if (!cs_make_dirs(dir, err))
        return false;
    cs_provenance_end(&bench_provenance);
    cJSON_DeleteItemFromObject(json, "provenance");
    cs_provenance_add_json(&bench_provenance, json);
    char *text = cJSON_Print(json);
    CS_ASSERT(text, "out of memory printing %s/results.json", dir);
    char path[600];
    snprintf(path, sizeof path, "%s/results.json", dir);
    bool ok = cs_write_whole_file(path, text, strlen(text), true, err);
    free(text);
    return ok;
}

double cs_bench_percentile(const double *samples, uint32_t n, double q)
{
    if (n == 0)
        return 0;
    double *s = malloc(n * sizeof *s);
    memcpy(s, samples, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    uint32_t k = (uint32_t)ceil(q * n) - 1;
    double v = s[CS_MIN(k, n - 1)];
    free(s);
    return v;
}

// A log-log plot of ms/step against particles, one line per pass, as PNG and
// SVG through gnuplot (skipped with a note when gnuplot is missing).
bool cs_bench_have_gnuplot(void)
{
    if (system("command -v gnuplot >/dev/null 2>&1") == 0)
        return true;
    fprintf(stderr, "cistern: gnuplot not found; no plots (apt-get install gnuplot-nox)\n");
    return false;
}

bool cs_bench_plot(const char *dir, const char *title, const char *xlabel, const char *ylabel,
                   const char *const *series, const char *const *styles, uint32_t series_count, cs_error *err)
{
    return cs_bench_plot_with(dir, title, xlabel, ylabel, series, styles, series_count, NULL, err);
}

bool cs_bench_plot_with(const char *dir, const char *title, const char *xlabel, const char *ylabel,
                        const char *const *series, const char *const *styles, uint32_t series_count,
                        const char *extra, cs_error *err)
{
    char data_path[600], script_path[600];
    snprintf(data_path, sizeof data_path, "%s/plot.dat", dir);
    snprintf(script_path, sizeof script_path, "%s/plot.gp", dir);
    if (series_count == 0)
        return true;
    cs_out_file out, *s = &out;
    if (!cs_out_open(s, script_path, true, err))
        return false;
    for (int fmt = 0; fmt < 2; fmt++) {
        cs_out_printf(s, fmt == 0 ? "set terminal pngcairo size 1000,700 font ',10'\nset output '%s/plot.png'\n"
                            : "set terminal svg size 1000,700\nset output '%s/plot.svg'\n",
                dir);
        cs_out_printf(s, "set title \"%s\" noenhanced\nset logscale xy\nset xlabel '%s'\n"
                   "set ylabel '%s'\nset key outside right noenhanced\nset grid\n",
                title, xlabel, ylabel);
        for (uint32_t q = 0; q < series_count; q++) {
            const char *style = styles && styles[q] ? styles[q] : "";
            if (q == 0)
                cs_out_printf(s, "plot '%s' index 0 with linespoints %s title '%s'", data_path, style, series[q]);
            else
                cs_out_printf(s, ", '' index %u with linespoints %s title '%s'", q, style, series[q]);
        }
        cs_out_printf(s, "%s\n", extra ? extra : "");
    }
    if (!cs_out_close(s, err))
        return false;
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null || gnuplot -e \"set terminal png\" '%s' 2>/dev/null",
             script_path, script_path);
    if (system(cmd) != 0)
        fprintf(stderr, "cistern: gnuplot failed; see %s\n", script_path);
    return true;
}

