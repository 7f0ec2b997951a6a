// bench_surface.c — `cistern bench --surface`: times the marching cubes
// extraction (pipelines/surface/surface.h) at n^3 field nodes on three fields:
//
//   sphere       a signed-distance sphere (r = 0.3 in the unit cube, the
//                field of docs/surface.md's convergence table);
//   splat_isotropic / splat_anisotropic
//                a dam break (the scene, simulated `frames` frames) splatted
//                over the domain's bounding cube with either kernel,
//                R = 2 particle spacings, iso = half the interior value.
//
// Per field and size: `warmup` untimed runs, then `steps` runs, each the
// splat (splatted fields) as one submit and the extraction as its two
// submits (count, readback, emit); every pass has GPU timestamps. Reported:
// medians and p90s per pass, triangles per second of the extraction,
// device memory, and the CPU reference (tests/ref/surface_ref.h, double,
// one thread) on the same field with the ratio CPU / GPU. A size the
// device cannot hold (cs_surface_create's and the field buffer's checks
// against maxStorageBufferRange and the heaps) is skipped with the reason;
// so is the CPU reference when its arrays would not fit in host memory.
// Writes results.json, results.csv, plot.png and plot.svg (default
// bench/surface/).
#define _GNU_SOURCE
#include "bench.h"

#include "context.h"
#include "grid.h"
#include "output.h"
#include "recorder.h"
#include "scene.h"
#include "sim.h"
#include "surface.h"
#include "world.h"

// The CPU baseline is the tests' double-precision reference (tests/ref/).
#include "surface_ref.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <unistd.h>

enum { FIELD_SPHERE, FIELD_ISO, FIELD_ANISO, FIELD_KINDS };
static const char *field_keys[FIELD_KINDS] = {"sphere", "splat_isotropic", "splat_anisotropic"};

#define SURF_PASSES 6
static const char *pass_names[SURF_PASSES] = {"surface: splat kernels", "surface: splat", "surface: classify",
                                             "surface: scan", "surface: compact", "surface: emit"};

typedef struct surf_result {
    uint32_t n;
    int kind;
    bool skipped;
    char skip_reason[512];
    uint32_t vertices, triangles;
    double extract_median_ms, extract_p90_ms;   // GPU: classify + scan + compact + emit
    double extract_p10_ms;                      // for the spread (p90 - p10) / median in results.json
    double splat_median_ms, splat_p90_ms;       // GPU: the splat's passes (0 for the sphere)
    double wall_median_ms;                      // host: the two extraction submits and the readback
    double pass_median_ms[SURF_PASSES], pass_p90_ms[SURF_PASSES];
    double triangles_per_s;                     // triangles / extraction median
    uint64_t surface_bytes;                     // node arrays, scans, outputs, the field
    bool cpu_skipped;
    char cpu_reason[256];
    double cpu_ms;                              // median of the CPU reference runs
    bool cpu_match;                             // same vertex and triangle counts
    double ratio;                               // cpu_ms / extract_median_ms
} surf_result;

typedef struct surf_particles {
    char scene[64];
    uint32_t count;
    float *positions;          // vec4
    float domain_min[3], domain_max[3];
    float spacing;             // particle spacing of the (scaled) scene
    double sim_seconds;        // simulated time when taken
} surf_particles;

// Simulates the scene and keeps the first particle fluid's positions.
static bool take_particles(cs_context *ctx, const cs_bench_options *opt, surf_particles *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    cs_scene scene;
    if (!cs_scene_load_edited(opt->scene, opt->edits.items, opt->edits.count, &scene, err))
        return false;
    snprintf(out->scene, sizeof out->scene, "%s", scene.name);
    if (scene.dim != 3) {
        cs_scene_free(&scene);
        return cs_fail(err, "%s: bench --surface needs a 3D scene (this one is %dD)", scene.path, scene.dim);
    }
    if (opt->surface_particles)
        cs_scene_scale_world(&scene, opt->surface_particles);
    CS_HEAP_WORLD(world);
    if (!cs_world_create(ctx, &scene, world, err)) {
        cs_scene_free(&scene);
        return false;
    }
    cs_recorder rec;
    cs_recorder_create(ctx, "bench surface: simulation", &rec);
    cs_progress progress;
    if (!opt->quiet)
        cs_progress_begin(&progress, opt->frames);
    for (uint32_t f = 0; f < opt->frames; f++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(world, &rec);
        cs_recorder_submit_wait(&rec);
        if (!opt->quiet)
            cs_progress_update(&progress, f + 1, "simulating the dam break");
    }
    if (!opt->quiet)
        cs_progress_end(&progress);
    cs_recorder_destroy(&rec);
    bool ok = false;
    for (uint32_t i = 0; i < world->fluid_count && !ok; i++) {
        cs_world_fluid *fl = &world->fluids[i];
        if (!fl->ops->particles)
            continue;
        cs_particle_view view = {0};
        fl->ops->particles(fl->state, &view);
        if (!view.positions || view.count == 0)
            continue;
        out->count = view.count;
        out->positions = malloc((size_t)view.count * 16);
        cs_buffer_download(ctx, view.positions, out->positions, (VkDeviceSize)view.count * 16, 0);
        out->spacing = scene.fluids[i].particle_spacing;
        ok = true;
    }
    out->sim_seconds = cs_world_time(world);
    memcpy(out->domain_min, scene.domain_min, sizeof out->domain_min);
    memcpy(out->domain_max, scene.domain_max, sizeof out->domain_max);
    cs_world_destroy(world);
    cs_scene_free(&scene);
    if (!ok)
        return cs_fail(err, "%s: no fluid with particles to splat", opt->scene);
    return true;
}

// The signed-distance sphere of docs/surface.md: r = 0.3, centre shifted
// off the nodes, in the unit cube.
static void sphere_field(uint32_t n, float *f, cs_surface_params *p)
{
    const double shift = 0.0123, h = 1.0 / (n - 1);
    *p = (cs_surface_params){.origin = {-0.5f, -0.5f, -0.5f}, .spacing = (float)h};
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t i = 0; i < n; i++) {
                double x = -0.5 + i * h - shift, y = -0.5 + j * h - 0.7 * shift, z = -0.5 + k * h - 0.3 * shift;
                f[i + n * (j + (size_t)n * k)] = (float)(0.3 - sqrt(x * x + y * y + z * z));
            }
}

// What surface_ref_extract allocates for a field of n^3 nodes: positions
// and normals (3 doubles per possible vertex), indices, the edge ids.
static uint64_t cpu_reference_bytes(uint32_t n)
{
    uint64_t padded = (uint64_t)(n + 2) * (n + 2) * (n + 2);
    return padded * (2 * 3 * 3 * 8 + CS_SURFACE_MAX_TRIS * 12 + 3 * 4);
}

typedef struct splat_rig {
    cs_grid grid;
    cs_splat splat;
    cs_buffer positions, sorted;
    uint64_t bytes;
    float radius;
} splat_rig;

static bool splat_rig_create(cs_context *ctx, const surf_particles *parts, splat_rig *r, cs_error *err)
{
    memset(r, 0, sizeof *r);
    uint64_t before = ctx->bytes_allocated;
    r->radius = 2 * parts->spacing;
    // Cells of R: the isotropic splat and the covariance walk 3^3 cells.
    cs_grid_desc gd = {.name = "bench surface grid", .dim = 3, .cell_size = r->radius, .capacity = parts->count};
    memcpy(gd.domain_min, parts->domain_min, sizeof gd.domain_min);
    memcpy(gd.domain_max, parts->domain_max, sizeof gd.domain_max);
    bool ok = cs_grid_create(ctx, &gd, &r->grid, err) && cs_splat_create(ctx, &r->splat, err) &&
              cs_splat_reserve(ctx, &r->splat, &r->grid, err) &&
              cs_buffer_create(ctx, &(cs_buffer_desc){.name = "bench surface positions",
                                                      .size = (VkDeviceSize)parts->count * 16}, &r->positions, err) &&
              cs_buffer_create(ctx, &(cs_buffer_desc){.name = "bench surface sorted positions",
                                                      .size = (VkDeviceSize)parts->count * 16}, &r->sorted, err);
    if (!ok)
        return false;
    cs_buffer_upload(ctx, &r->positions, parts->positions, (VkDeviceSize)parts->count * 16, 0);
    // Sorted once: the splats read the sorted positions, ranges and keys.
    cs_recorder rec;
    cs_recorder_create(ctx, "bench surface: grid", &rec);
    cs_recorder_begin(&rec);
    cs_grid_record_build(&rec, &r->grid, &r->positions, parts->count);
    cs_pass_begin(&rec, "reorder");
    cs_grid_record_gather(&rec, &r->grid, &r->positions, &r->sorted, 16, parts->count);
    cs_barrier_compute(&rec);
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    r->bytes = ctx->bytes_allocated - before;
    return true;
}

static void splat_rig_destroy(cs_context *ctx, splat_rig *r)
{
    cs_grid_destroy(ctx, &r->grid);
    cs_splat_destroy(ctx, &r->splat);
    cs_buffer_destroy(ctx, &r->positions);
    cs_buffer_destroy(ctx, &r->sorted);
}

// One field at one size: the timed runs and the CPU reference.
static void run_field(cs_context *ctx, const cs_bench_options *opt, cs_surface *surf, cs_buffer *field,
                      splat_rig *rig, const cs_splat_params *sp, const cs_surface_params *params, int kind,
                      uint64_t bytes_before, surf_result *res)
{
    uint32_t n = res->n, steps = opt->steps;
    double *extract = calloc(steps, sizeof(double)), *splat = calloc(steps, sizeof(double));
    double *wall = calloc(steps, sizeof(double)), *passes = calloc((size_t)steps * SURF_PASSES, sizeof(double));
    cs_recorder rec;
    cs_recorder_create(ctx, "bench surface", &rec);
    char status[96];
    snprintf(status, sizeof status, "%u^3 %s", n, field_keys[kind]);
    cs_progress progress;
    if (!opt->quiet)
        cs_progress_begin(&progress, opt->warmup + steps);
    for (uint32_t run = 0; run < opt->warmup + steps; run++) {
        double pass_ms[SURF_PASSES] = {0};
        if (sp) {
            cs_recorder_begin(&rec);
            cs_splat_record(&rec, &rig->splat, &rig->grid, &rig->sorted, field, sp);
            cs_recorder_submit_wait(&rec);
            for (int q = 0; q < 2; q++)
                pass_ms[q] = CS_MAX(0.0, cs_recorder_pass_ms(&rec, pass_names[q]));
        }
        double t0 = cs_now_seconds();
        cs_recorder_begin(&rec);
        cs_surface_record_count(&rec, surf, field, params);
        cs_recorder_submit_wait(&rec);
        for (int q = 2; q < 5; q++)
            pass_ms[q] = CS_MAX(0.0, cs_recorder_pass_ms(&rec, pass_names[q]));
        cs_error err;
        if (!cs_surface_prepare_emit(ctx, surf, &err)) {
            res->skipped = true;
            snprintf(res->skip_reason, sizeof res->skip_reason, "%s", err.msg);
            break;
        }
        cs_recorder_begin(&rec);
        cs_surface_record_emit(&rec, surf, field);
        cs_recorder_submit_wait(&rec);
        double wall_ms = (cs_now_seconds() - t0) * 1e3;
        pass_ms[5] = CS_MAX(0.0, cs_recorder_pass_ms(&rec, pass_names[5]));
        if (run == 0)
            res->surface_bytes = ctx->bytes_allocated - bytes_before;
        if (run >= opt->warmup) {
            uint32_t s = run - opt->warmup;
            for (int q = 0; q < SURF_PASSES; q++)
                passes[(size_t)q * steps + s] = pass_ms[q];
            splat[s] = pass_ms[0] + pass_ms[1];
            extract[s] = pass_ms[2] + pass_ms[3] + pass_ms[4] + pass_ms[5];
            wall[s] = wall_ms;
        }
        if (!opt->quiet)
            cs_progress_update(&progress, run + 1, status);
    }
    if (!opt->quiet)
        cs_progress_end(&progress);
    cs_recorder_destroy(&rec);
    if (!res->skipped) {
        res->vertices = surf->vertex_count;
        res->triangles = surf->triangle_count;
        res->extract_median_ms = cs_bench_percentile(extract, steps, 0.5);
        res->extract_p90_ms = cs_bench_percentile(extract, steps, 0.9);
        res->extract_p10_ms = cs_bench_percentile(extract, steps, 0.1);
        res->splat_median_ms = cs_bench_percentile(splat, steps, 0.5);
        res->splat_p90_ms = cs_bench_percentile(splat, steps, 0.9);
        res->wall_median_ms = cs_bench_percentile(wall, steps, 0.5);
        for (int q = 0; q < SURF_PASSES; q++) {
            res->pass_median_ms[q] = cs_bench_percentile(passes + (size_t)q * steps, steps, 0.5);
            res->pass_p90_ms[q] = cs_bench_percentile(passes + (size_t)q * steps, steps, 0.9);
        }
        res->triangles_per_s = res->extract_median_ms > 0 ? res->triangles / (res->extract_median_ms * 1e-3) : 0;
    }
    free(extract), free(splat), free(wall), free(passes);
    if (res->skipped)
        return;
    // The CPU reference on the same field.
    uint64_t need = cpu_reference_bytes(n), have = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    if (opt->cpu_runs == 0) {
        res->cpu_skipped = true;
        snprintf(res->cpu_reason, sizeof res->cpu_reason, "--cpu-runs 0");
        return;
    }
    if (need > have / 2) {
        char a[32], b[32];
        res->cpu_skipped = true;
        snprintf(res->cpu_reason, sizeof res->cpu_reason,
                 "the CPU reference allocates %s for %u^3 nodes, more than half of the host's %s", 
                 cs_format_bytes(need, a, sizeof a), n, cs_format_bytes(have, b, sizeof b));
        return;
    }
    size_t nodes = (size_t)n * n * n;
    float *f = malloc(nodes * 4);
    cs_buffer_download(ctx, field, f, nodes * 4, 0);
    surface_ref_in in = {.field = f, .dims = {n, n, n}, .origin = {params->origin[0], params->origin[1],
                                                                   params->origin[2]},
                         .spacing = params->spacing, .iso = params->iso, .open_border = params->open_border};
    double *cpu = calloc(opt->cpu_runs, sizeof(double));
    for (uint32_t run = 0; run < opt->cpu_runs; run++) {
        surface_ref_mesh m;
        double t0 = cs_now_seconds();
        surface_ref_extract(&in, &m);
        cpu[run] = (cs_now_seconds() - t0) * 1e3;
        res->cpu_match = m.vertex_count == res->vertices && m.triangle_count == res->triangles;
        surface_ref_free(&m);
    }
    res->cpu_ms = cs_bench_percentile(cpu, opt->cpu_runs, 0.5);
    res->ratio = res->extract_median_ms > 0 ? res->cpu_ms / res->extract_median_ms : 0;
    free(cpu);
    free(f);
}

static void skip_all(surf_result *res, const char *reason)
{
    for (int k = 0; k < FIELD_KINDS; k++) {
        res[k].skipped = true;
        snprintf(res[k].skip_reason, sizeof res[k].skip_reason, "%s", reason);
    }
}

// One size: a surface pipeline and a field buffer shared by the three fields.
static void run_size(cs_context *ctx, const cs_bench_options *opt, const surf_particles *parts, splat_rig *rig,
                     uint32_t n, surf_result res[FIELD_KINDS])
{
    for (int k = 0; k < FIELD_KINDS; k++)
        res[k] = (surf_result){.n = n, .kind = k};
    cs_error err;
    uint64_t before = ctx->bytes_allocated;
    uint64_t nodes = (uint64_t)n * n * n;
    char name[64];
    snprintf(name, sizeof name, "bench field %u^3", n);
    if (nodes > UINT32_MAX || !cs_buffer_check_size(ctx, name, nodes * 4, &err)) {
        skip_all(res, nodes > UINT32_MAX ? "more than 2^32 nodes" : err.msg);
        return;
    }
    cs_surface surf;
    snprintf(name, sizeof name, "bench surface %u^3", n);
    if (!cs_surface_create(ctx, &(cs_surface_desc){.name = name, .dims = {n, n, n}}, &surf, &err)) {
        skip_all(res, err.msg);
        return;
    }
    cs_buffer field;
    snprintf(name, sizeof name, "bench field %u^3", n);
    if (!cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = nodes * 4}, &field, &err)) {
        skip_all(res, err.msg);
        cs_surface_destroy(ctx, &surf);
        return;
    }
    // The sphere.
    cs_surface_params params;
    float *f = malloc(nodes * 4);
    sphere_field(n, f, &params);
    cs_buffer_upload(ctx, &field, f, nodes * 4, 0);
    free(f);
    run_field(ctx, opt, &surf, &field, NULL, NULL, &params, FIELD_SPHERE, before, &res[FIELD_SPHERE]);
    // The dam break over the domain's bounding cube: n^3 nodes.
    float extent = 0;
    for (int a = 0; a < 3; a++)
        extent = fmaxf(extent, parts->domain_max[a] - parts->domain_min[a]);
    cs_splat_params sp = {.origin = {parts->domain_min[0], parts->domain_min[1], parts->domain_min[2]},
                          .spacing = extent / (float)(n - 1), .dims = {n, n, n}, .radius = rig->radius, .scale = 1};
    // Deep inside: (64 pi / 315) (R / s)^3 (both kernels); the surface at half.
    double interior = 64 * 3.14159265358979323846 / 315 * pow(rig->radius / parts->spacing, 3);
    params = (cs_surface_params){.origin = {sp.origin[0], sp.origin[1], sp.origin[2]}, .spacing = sp.spacing,
                                 .iso = (float)(0.5 * interior)};
    for (int k = FIELD_ISO; k <= FIELD_ANISO; k++) {
        sp.kernel = k == FIELD_ANISO ? CS_SPLAT_ANISOTROPIC : CS_SPLAT_ISOTROPIC;
        run_field(ctx, opt, &surf, &field, rig, &sp, &params, k, before, &res[k]);
    }
    cs_buffer_destroy(ctx, &field);
    cs_surface_destroy(ctx, &surf);
}

static cJSON *results_json(const cs_context *ctx, const cs_bench_options *opt, const surf_particles *parts,
                           const splat_rig *rig, const surf_result *res, uint32_t count)
{
    char device[512];
    cs_context_device_string(ctx, device, sizeof device);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "bench", "surface");
    cJSON_AddStringToObject(root, "device", ctx->props.deviceName);
    cJSON_AddStringToObject(root, "driver", ctx->driver.driverInfo);
    cJSON_AddStringToObject(root, "device_and_driver", device);
    cJSON_AddStringToObject(root, "scene", parts->scene);
    cJSON_AddNumberToObject(root, "particles", parts->count);
    cJSON_AddNumberToObject(root, "frames", opt->frames);
    cJSON_AddNumberToObject(root, "simulated_seconds", parts->sim_seconds);
    cJSON_AddNumberToObject(root, "splat_radius", rig->radius);
    cJSON_AddNumberToObject(root, "splat_bytes", (double)rig->bytes);
    cJSON_AddNumberToObject(root, "steps", opt->steps);
    cJSON_AddNumberToObject(root, "warmup", opt->warmup);
    cJSON_AddNumberToObject(root, "cpu_runs", opt->cpu_runs);
    cJSON_AddStringToObject(root, "cpu_reference", "tests/ref/surface_ref.h (double, one thread)");
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    for (uint32_t i = 0; i < count; i++) {
        const surf_result *r = &res[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "nodes_per_axis", r->n);
        cJSON_AddStringToObject(o, "field", field_keys[r->kind]);
        if (r->skipped) {
            cJSON_AddStringToObject(o, "skipped", r->skip_reason);
        } else {
            cJSON_AddNumberToObject(o, "vertices", r->vertices);
            cJSON_AddNumberToObject(o, "triangles", r->triangles);
            cJSON_AddNumberToObject(o, "extract_median_ms", r->extract_median_ms);
            cJSON_AddNumberToObject(o, "extract_p90_ms", r->extract_p90_ms);
            cJSON_AddNumberToObject(o, "extract_p10_ms", r->extract_p10_ms);
            cJSON_AddNumberToObject(o, "spread", r->extract_median_ms > 0
                                                     ? (r->extract_p90_ms - r->extract_p10_ms) / r->extract_median_ms
                                                     : 0);
            cJSON_AddNumberToObject(o, "extract_wall_median_ms", r->wall_median_ms);
            cJSON_AddNumberToObject(o, "triangles_per_s", r->triangles_per_s);
            if (r->kind != FIELD_SPHERE) {
                cJSON_AddNumberToObject(o, "splat_median_ms", r->splat_median_ms);
                cJSON_AddNumberToObject(o, "splat_p90_ms", r->splat_p90_ms);
            }
            cJSON_AddNumberToObject(o, "surface_bytes", (double)r->surface_bytes);
            cJSON *passes = cJSON_AddObjectToObject(o, "passes");
            for (int q = 0; q < SURF_PASSES; q++) {
                if (r->kind == FIELD_SPHERE && q < 2)
                    continue;
                if (r->kind == FIELD_ISO && q == 0)
                    continue;
                cJSON *p = cJSON_AddObjectToObject(passes, pass_names[q]);
                cJSON_AddNumberToObject(p, "median_ms", r->pass_median_ms[q]);
                cJSON_AddNumberToObject(p, "p90_ms", r->pass_p90_ms[q]);
            }
            if (r->cpu_skipped) {
                cJSON_AddStringToObject(o, "cpu_skipped", r->cpu_reason);
            } else {
                cJSON_AddNumberToObject(o, "cpu_reference_ms", r->cpu_ms);
                cJSON_AddNumberToObject(o, "cpu_over_gpu", r->ratio);
                cJSON_AddBoolToObject(o, "cpu_counts_match", r->cpu_match);
            }
        }
        cJSON_AddItemToArray(arr, o);
    }
    return root;
}

static bool write_csv(const char *path, const surf_result *res, uint32_t count, cs_error *err)
{
    cs_out_file out, *f = &out;
    if (!cs_out_open(f, path, true, err))
        return false;
    cs_out_printf(f, "nodes_per_axis,field,what,median_ms,p90_ms\n");
    for (uint32_t i = 0; i < count; i++) {
        const surf_result *r = &res[i];
        if (r->skipped)
            continue;
        const char *k = field_keys[r->kind];
        cs_out_printf(f, "%u,%s,extract,%.5f,%.5f\n", r->n, k, r->extract_median_ms, r->extract_p90_ms);
        cs_out_printf(f, "%u,%s,extract wall,%.5f,\n", r->n, k, r->wall_median_ms);
        if (r->kind != FIELD_SPHERE)
            cs_out_printf(f, "%u,%s,splat,%.5f,%.5f\n", r->n, k, r->splat_median_ms, r->splat_p90_ms);
        for (int q = r->kind == FIELD_SPHERE ? 2 : r->kind == FIELD_ISO ? 1 : 0; q < SURF_PASSES; q++)
            cs_out_printf(f, "%u,%s,%s,%.5f,%.5f\n", r->n, k, pass_names[q], r->pass_median_ms[q], r->pass_p90_ms[q]);
        if (!r->cpu_skipped)
            cs_out_printf(f, "%u,%s,cpu reference,%.5f,\n", r->n, k, r->cpu_ms);
    }
    return cs_out_close(f, err);
}

// ms against nodes (log-log): extraction and splat per field, and the CPU
// reference, through gnuplot (skipped with a note when it is missing).
static bool write_plots(const char *dir, const char *title, const surf_result *res, uint32_t count,
                        cs_error *err)
{
    if (!cs_bench_have_gnuplot())
        return true;
    char data_path[600];
    snprintf(data_path, sizeof data_path, "%s/plot.dat", dir);
    cs_out_file out, *d = &out;
    if (!cs_out_open(d, data_path, true, err))
        return false;
    static const char *series[] = {"extract: sphere", "extract: isotropic splat field",
                                   "extract: anisotropic splat field", "splat: isotropic", "splat: anisotropic",
                                   "CPU reference: sphere", "CPU reference: isotropic splat field",
                                   "CPU reference: anisotropic splat field"};
    for (int s = 0; s < 8; s++) {
        cs_out_printf(d, "# %s\n", series[s]);
        for (uint32_t i = 0; i < count; i++) {
            const surf_result *r = &res[i];
            if (r->skipped)
                continue;
            double ms = 0;
            if (s < 3 && r->kind == s)
                ms = r->extract_median_ms;
            else if (s >= 3 && s < 5 && r->kind == s - 2)
                ms = r->splat_median_ms;
            else if (s >= 5 && r->kind == s - 5 && !r->cpu_skipped)
                ms = r->cpu_ms;
            if (ms > 0)
                cs_out_printf(d, "%.0f %.6f\n", (double)r->n * r->n * r->n, ms);
        }
        cs_out_printf(d, "\n\n");
    }
    static const char *styles[8] = {"lw 2", NULL, NULL, NULL, NULL, "dt 2", "dt 2", "dt 2"};
    return cs_out_close(d, err) && cs_bench_plot(dir, title, "field nodes", "ms (median)", series, styles, 8, err);
}

int cs_bench_surface(const cs_bench_options *opt)
{
    cs_error err;
    cs_context ctx;
    cs_bench_start start;
    int begun = cs_bench_begin(opt, "bench/surface", &ctx, &start);
    if (begun != 0)
        return begun;
    const char *dir = start.dir, *device = start.device;
    surf_particles parts;
    splat_rig rig;
    if (!take_particles(&ctx, opt, &parts, &err) || !splat_rig_create(&ctx, &parts, &rig, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        free(parts.positions);
        cs_context_destroy(&ctx);
        cs_shader_shutdown();
        return 2;
    }
    uint32_t count = opt->node_count * FIELD_KINDS;
    surf_result *res = calloc(CS_MAX(count, 1u), sizeof *res);
    for (uint32_t i = 0; i < opt->node_count; i++) {
        run_size(&ctx, opt, &parts, &rig, opt->nodes[i], &res[i * FIELD_KINDS]);
        if (res[i * FIELD_KINDS].skipped)
            fprintf(stderr, "cistern: skipped %u^3: %s\n", opt->nodes[i], res[i * FIELD_KINDS].skip_reason);
    }

    char mem[32];
    printf("\ncistern bench --surface on %s\n", device);
    printf("fields: sdf sphere (r 0.3, unit cube); %s after %u frames (%.2f s), %u particles, splatted over the "
           "domain's bounding cube, R = %.3g (2 particle spacings), splat memory %s\n",
           parts.scene, opt->frames, parts.sim_seconds, parts.count, rig.radius,
           cs_format_bytes(rig.bytes, mem, sizeof mem));
    printf("GPU times: medians (p90) of %u runs after %u warm-up; CPU: tests/ref/surface_ref.h, median of %u\n",
           opt->steps, opt->warmup, opt->cpu_runs);
    printf("%6s %-18s %10s %19s %10s %19s %11s %16s\n", "nodes", "field", "triangles", "extract ms", "wall ms",
           "splat ms", "Mtri/s", "CPU ms (CPU/GPU)");
    for (uint32_t i = 0; i < count; i++) {
        const surf_result *r = &res[i];
        if (r->skipped) {
            printf("%4u^3 %-18s skipped: %.160s\n", r->n, field_keys[r->kind], r->skip_reason);
            continue;
        }
        char splat[32] = "-", cpu[48];
        if (r->kind != FIELD_SPHERE)
            snprintf(splat, sizeof splat, "%.1f (%.1f)", r->splat_median_ms, r->splat_p90_ms);
        if (r->cpu_skipped)
            snprintf(cpu, sizeof cpu, "skipped");
        else
            snprintf(cpu, sizeof cpu, "%.1f (x%.2f)%s", r->cpu_ms, r->ratio, r->cpu_match ? "" : " COUNTS DIFFER");
        char ext[48];
        snprintf(ext, sizeof ext, "%.1f (%.1f)", r->extract_median_ms, r->extract_p90_ms);
        printf("%4u^3 %-18s %10u %19s %10.1f %19s %11.2f %16s  memory %s\n", r->n, field_keys[r->kind], r->triangles,
               ext, r->wall_median_ms, splat, r->triangles_per_s * 1e-6, cpu,
               cs_format_bytes(r->surface_bytes, mem, sizeof mem));
        printf("%25s", "passes:");
        for (int q = r->kind == FIELD_SPHERE ? 2 : r->kind == FIELD_ISO ? 1 : 0; q < SURF_PASSES; q++)
            printf(" %s %.1f;", pass_names[q] + strlen("surface: "), r->pass_median_ms[q]);
        printf("\n");
        if (r->cpu_skipped)
            printf("%25s %s\n", "CPU reference skipped:", r->cpu_reason);
    }

    int code = 0;
    cJSON *json = results_json(&ctx, opt, &parts, &rig, res, count);
    bool ok = cs_bench_write_json(dir, json, &err);
    cJSON_Delete(json);
    char path[600];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    ok = ok && write_csv(path, res, count, &err);
    char title[700];
    snprintf(title, sizeof title, "cistern surface extraction on %s", ctx.props.deviceName);
    ok = ok && write_plots(dir, title, res, count, &err);
    if (ok) {
        printf("wrote %s/results.json, results.csv, plot.png, plot.svg\n", dir);
    } else {
        fprintf(stderr, "cistern: %s\n", err.msg);
        code = 1;
    }
    free(res);
    free(parts.positions);
    splat_rig_destroy(&ctx, &rig);
    cs_context_destroy(&ctx);
    cs_shader_shutdown();
    return code;
}
