// trace_command.c — `cistern trace` (see trace_command.h).
#include "trace_command.h"

#include "bvh.h"
#include "cli.h"
#include "geometry.h"
#include "output.h"
#include "pathtrace.h"
#include "render.h"
#include "scene.h"
#include "trace_radiosity.h"

#include <ctype.h>
#include <math.h>

static const double PI = 3.14159265358979323846;

// Without a terminal the progress bar is silent; a plain line this often
// tells a log that a long trace is still going.
#define PLAIN_PROGRESS_SECONDS 5.0

static double luminance(const float *rgb)
{
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
}

static uint8_t srgb8(double linear)
{
    double c = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1.0 / 2.4) - 0.055;
    return (uint8_t)lrint(255.0 * fmin(fmax(c, 0.0), 1.0));
}

// The tone map of docs/light.md: exposure k, x / (1 + x) per channel, sRGB.
static void tone_map(const float *rgb, uint32_t pixels, double k, uint8_t *rgba)
{
    for (uint32_t p = 0; p < pixels; p++) {
        for (int c = 0; c < 3; c++) {
            double x = fmax(k * rgb[3 * p + c], 0.0);
            rgba[4 * p + c] = srgb8(x / (1.0 + x));
        }
        rgba[4 * p + 3] = 255;
    }
}

static bool host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

bool cs_write_pfm(const char *path, uint32_t width, uint32_t height, const float *rgb, cs_error *err)
{
    cs_out_file out;
    if (!cs_out_open(&out, path, true, err))
        return false;
    cs_out_printf(&out, "PF\n%u %u\n%s\n", width, height, host_is_little_endian() ? "-1.0" : "1.0");
    for (uint32_t row = height; row-- > 0;)
        cs_out_write(&out, &rgb[(size_t)3 * row * width], (size_t)3 * width * sizeof(float));
    return cs_out_close(&out, err);
}

// The scene's camera when the file has a "camera" key; otherwise one that
// frames the geometry's bounding sphere from the scene default's direction
// (above and in front: +z, docs/scenes.md "camera").
static void choose_camera(const cs_scene *scene, cs_pt_settings *s)
{
    const cs_camera *cam = &scene->camera;
    if (scene->json && cJSON_GetObjectItemCaseSensitive(scene->json, "camera")) {
        for (int k = 0; k < 3; k++) {
            s->position[k] = cam->position[k];
            s->target[k] = cam->target[k];
            s->up[k] = cam->up[k];
        }
        s->fov_degrees = cam->fov_degrees;
        return;
    }
    const cs_geometry *g = scene->geometry;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t t = 0; t < g->tri_count; t++) {
        const vec4 *v[3] = {&g->tris[t].v0, &g->tris[t].v1, &g->tris[t].v2};
        for (int i = 0; i < 3; i++) {
            const float p[3] = {v[i]->x, v[i]->y, v[i]->z};
            for (int k = 0; k < 3; k++)
                lo[k] = fmin(lo[k], p[k]), hi[k] = fmax(hi[k], p[k]);
        }
    }
    double radius = 0.5 * sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                               (hi[2] - lo[2]) * (hi[2] - lo[2]));
    const double dir[3] = {0.0, 0.35, 1.2}, dir_len = sqrt(0.35 * 0.35 + 1.2 * 1.2);
    s->fov_degrees = 45.0;
    // The sphere fits the narrower (vertical or horizontal) field of view.
    double half = 0.5 * s->fov_degrees * PI / 180.0;
    double aspect = (double)s->width / s->height;
    double half_narrow = aspect < 1.0 ? atan(tan(half) * aspect) : half;
    double distance = radius / sin(half_narrow);
    for (int k = 0; k < 3; k++) {
        s->target[k] = 0.5 * (lo[k] + hi[k]);
        s->position[k] = s->target[k] + distance * dir[k] / dir_len;
        s->up[k] = k == 1;
    }
}

typedef struct trace_timing {
    uint32_t batches;
    double gpu_ms;        // sum of the batches' GPU times
    double paths;         // camera paths traced
    double vertices;      // estimated path vertices (for the ray count)
} trace_timing;

typedef struct trace_run {
    const cs_trace_options *opt;
    cs_context ctx;
    cs_pathtracer pt;
    cs_recorder rec;
    cs_progress progress;
    double last_plain;
    uint32_t batches_done, batches_total;
    trace_timing timing;
} trace_run;

static uint32_t batch_count(uint32_t spp)
{
    return CS_DIV_UP(spp, CS_TRACE_BATCH);
}

static void report_progress(trace_run *r, const char *what, double ms)
{
    r->batches_done++;
    if (r->opt->quiet)
        return;
    char status[96];
    snprintf(status, sizeof status, "%s, %.1f ms a batch", what, ms);
    cs_progress_update(&r->progress, r->batches_done, status);
    double now = cs_now_seconds();
    if (!r->progress.tty && now - r->last_plain > PLAIN_PROGRESS_SECONDS && r->batches_done < r->batches_total) {
        fprintf(stderr, "cistern: trace: batch %u of %u (%s)\n", r->batches_done, r->batches_total, status);
        r->last_plain = now;
    }
}

// One submit per batch, so that every batch is timed on its own and the
// progress line moves.
static void trace_batches(trace_run *r, uint32_t spp, const uint32_t *pixels, uint32_t pixel_count)
{
    for (uint32_t done = 0; done < spp; done += CS_TRACE_BATCH) {
        uint32_t n = spp - done < CS_TRACE_BATCH ? spp - done : CS_TRACE_BATCH;
        cs_recorder_begin(&r->rec);
        if (pixels)
            cs_pt_record_oversample(&r->rec, &r->pt, pixels, pixel_count, n);
        else
            cs_pt_record_samples(&r->rec, &r->pt, n);
        cs_recorder_submit_wait(&r->rec);
        double ms = cs_recorder_pass_ms(&r->rec, pixels ? "pathtrace: variance pass" : "pathtrace: samples");
        r->timing.batches++;
        r->timing.gpu_ms += ms;
        r->timing.paths += (double)n * (pixels ? pixel_count : r->pt.pixel_count);
        report_progress(r, pixels ? "variance pass" : "samples", ms);
    }
}

static double probe_batches(trace_run *r, uint32_t spp)
{
    double ms_total = 0.0;
    for (uint32_t done = 0; done < spp; done += CS_TRACE_BATCH) {
        uint32_t n = spp - done < CS_TRACE_BATCH ? spp - done : CS_TRACE_BATCH;
        cs_recorder_begin(&r->rec);
        cs_pt_record_probe(&r->rec, &r->pt, n);
        cs_recorder_submit_wait(&r->rec);
        double ms = cs_recorder_pass_ms(&r->rec, "pathtrace: probe");
        ms_total += ms;
        report_progress(r, "probes", ms);
    }
    return ms_total;
}

// Mean radiance per pixel (3 floats), and the mean luminance of the image.
static double mean_image(const float *sum, uint32_t pixels, float *rgb)
{
    double lum = 0.0;
    for (uint32_t p = 0; p < pixels; p++) {
        float n = sum[4 * p + 3];
        for (int c = 0; c < 3; c++)
            rgb[3 * p + c] = n > 0.0f ? sum[4 * p + c] / n : 0.0f;
        lum += luminance(&rgb[3 * p]) / pixels;
    }
    return lum;
}

static double tri_area(const cs_tri *t)
{
    double e1[3] = {t->v1.x - t->v0.x, t->v1.y - t->v0.y, t->v1.z - t->v0.z};
    double e2[3] = {t->v2.x - t->v0.x, t->v2.y - t->v0.y, t->v2.z - t->v0.z};
    double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    return 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

// patches.csv: one row per scene triangle, in the scene's order.
static bool write_patches(const char *path, const cs_scene *scene, const cs_bvh *bvh, const cs_pt_probe_result *probes,
                          cs_error *err)
{
    cs_out_file out;
    if (!cs_out_open(&out, path, true, err))
        return false;
    cs_out_printf(&out, "triangle,element,area_m2,B_r,B_g,B_b,se_r,se_g,se_b,paths\n");
    const cs_tri *tris = scene->geometry->tris;
    uint32_t *row_of = malloc((size_t)bvh->tri_count * sizeof *row_of);
    CS_ASSERT(row_of, "out of host memory");
    for (uint32_t i = 0; i < bvh->tri_count; i++)
        row_of[bvh->tri_source[i]] = i;
    for (uint32_t t = 0; t < bvh->tri_count; t++) {
        const cs_pt_probe_result *p = &probes[row_of[t]];
        cs_out_printf(&out, "%u,%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%llu\n", t, tris[t].info.x, tri_area(&tris[t]),
                      p->radiosity[0], p->radiosity[1], p->radiosity[2], p->std_error[0], p->std_error[1],
                      p->std_error[2], (unsigned long long)p->samples);
    }
    free(row_of);
    return cs_out_close(&out, err);
}

static void print_timing(const trace_run *r, const cs_trace_options *opt)
{
    const trace_timing *t = &r->timing;
    if (t->batches == 0 || t->gpu_ms <= 0.0)
        return;
    double seconds = t->gpu_ms / 1e3;
    // Rays: every vertex casts one ray to find the next (the camera ray
    // included) and, with lights and NEE, one shadow ray. The vertex count
    // is each pixel's last path (info.y), a sample of the path lengths.
    double rays_per_vertex = r->pt.light_count > 0 ? 2.0 : 1.0;
    printf("GPU: %u batch%s of up to %u paths a pixel, %.2f ms a batch (%.1f ms in all); %.3f Mpaths/s, about "
           "%.3f Mrays/s (%.2f vertices a path)\n",
           t->batches, t->batches == 1 ? "" : "es", CS_TRACE_BATCH, t->gpu_ms / t->batches, t->gpu_ms, t->paths / seconds / 1e6,
           t->paths * t->vertices * rays_per_vertex / seconds / 1e6, t->vertices);
    (void)opt;
}

// Mean vertices of the last path of every pixel.
static double mean_vertices(const uint32_t *info, uint32_t pixels)
{
    double v = 0.0;
    for (uint32_t p = 0; p < pixels; p++)
        v += info[4 * p + 1];
    return pixels ? v / pixels : 0.0;
}

// radiosity.png (same camera, same exposure as trace.png) and compare.png:
// the path tracer on the left, radiosity on the right, 4 white pixels apart.
static bool write_radiosity(trace_run *r, const cs_scene *scene, const cs_bvh *bvh, const char *out_dir,
                            const float *traced, double exposure, cs_error *err)
{
    const uint32_t w = r->opt->width, h = r->opt->height, pixels = w * h, gap = 4, wide = 2 * w + gap;
    float *rgb = malloc((size_t)pixels * 12);
    uint8_t *single = malloc((size_t)pixels * 4), *both = malloc((size_t)wide * h * 4);
    CS_ASSERT(rgb && single && both, "out of host memory");
    cs_trace_radiosity_info info;
    bool ok = cs_trace_radiosity_image(scene->geometry->tris, scene->geometry->tri_count, bvh, &r->pt.push,
                                       r->opt->radiosity_patch, rgb, &info, err);
    if (ok) {
        char path[700];
        if (!r->opt->quiet)
            printf("radiosity: patches of %g m: %u patches, %u links, compiled in %.2f s, solved in %.2f s\n",
                   r->opt->radiosity_patch, info.patches, info.links, info.compile_seconds, info.solve_seconds);
        memset(both, 255, (size_t)wide * h * 4);
        tone_map(traced, pixels, exposure, single);
        for (uint32_t y = 0; y < h; y++)
            memcpy(&both[4 * (size_t)y * wide], &single[4 * (size_t)y * w], 4 * (size_t)w);
        tone_map(rgb, pixels, exposure, single);
        for (uint32_t y = 0; y < h; y++)
            memcpy(&both[4 * ((size_t)y * wide + w + gap)], &single[4 * (size_t)y * w], 4 * (size_t)w);
        snprintf(path, sizeof path, "%s/radiosity.png", out_dir);
        ok = cs_write_png(path, w, h, single, err);
        snprintf(path, sizeof path, "%s/compare.png", out_dir);
        ok = ok && cs_write_png(path, wide, h, both, err);
    }
    free(rgb);
    free(single);
    free(both);
    return ok;
}

static bool write_outputs(trace_run *r, const cs_scene *scene, const cs_bvh *bvh, const char *out_dir,
                          cs_error *err)
{
    const cs_trace_options *opt = r->opt;
    uint32_t pixels = r->pt.pixel_count;
    float *sum = malloc((size_t)pixels * 16), *rgb = malloc((size_t)pixels * 12);
    uint32_t *info = malloc((size_t)pixels * 16);
    uint8_t *rgba = malloc((size_t)pixels * 4);
    CS_ASSERT(sum && rgb && info && rgba, "out of host memory");
    cs_pt_read_pixels(&r->ctx, &r->pt, sum, NULL, info);
    r->timing.vertices = mean_vertices(info, pixels);
    double lum = mean_image(sum, pixels, rgb);
    double exposure = lum > 0.0 ? 1.0 / lum : 1.0; // the mean maps to 0.5 before the sRGB curve
    tone_map(rgb, pixels, exposure, rgba);
    char path[700];
    snprintf(path, sizeof path, "%s/trace.png", out_dir);
    bool ok = cs_write_png(path, opt->width, opt->height, rgba, err);
    snprintf(path, sizeof path, "%s/trace.pfm", out_dir);
    ok = ok && cs_write_pfm(path, opt->width, opt->height, rgb, err);
    if (ok && opt->probes) {
        cs_pt_probe_result *probes = calloc(bvh->tri_count, sizeof *probes);
        CS_ASSERT(probes, "out of host memory");
        cs_pt_read_probe(&r->ctx, &r->pt, probes);
        snprintf(path, sizeof path, "%s/patches.csv", out_dir);
        ok = write_patches(path, scene, bvh, probes, err);
        free(probes);
    }
    if (ok && opt->radiosity_patch > 0.0)
        ok = write_radiosity(r, scene, bvh, out_dir, rgb, exposure, err);
    if (ok && !opt->quiet)
        printf("mean radiance %.6g W/m^2/sr (luminance); wrote %s/: trace.png (exposure 1 / mean luminance, "
               "x / (1 + x), sRGB), trace.pfm (mean radiance, float RGB)%s%s\n",
               lum, out_dir, opt->probes ? ", patches.csv (per triangle B = pi L and its standard error)" : "",
               opt->radiosity_patch > 0.0 ? ", radiosity.png, compare.png (path tracer | radiosity)" : "");
    free(sum);
    free(rgb);
    free(info);
    free(rgba);
    return ok;
}

// Everything on the GPU, once the scene, the BVH and the folder are ready.
static int trace_on_gpu(trace_run *r, const cs_scene *scene, const cs_bvh *bvh, const cs_pt_settings *settings,
                        const char *out_dir)
{
    const cs_trace_options *opt = r->opt;
    cs_error err;
    cs_context_desc desc = {.validation = opt->validation, .device = opt->device, .verbose = !opt->quiet,
                            .settings = cs_cli_settings()};
    if (!cs_context_create(&desc, &r->ctx, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 1;
    }
    int code = 1;
    if (!cs_pt_create(&r->ctx, bvh, settings, &r->pt, &err)) {
        fprintf(stderr, "cistern: trace: %s\n", err.msg);
        cs_context_destroy(&r->ctx);
        return code;
    }
    uint32_t probe_spp = opt->probes ? CS_DIV_UP(opt->probe_paths, CS_PT_PROBE_LANES) : 0;
    r->batches_total = batch_count(opt->spp) + batch_count(opt->variance_spp) + batch_count(probe_spp);
    cs_recorder_create(&r->ctx, "trace", &r->rec);
    if (!opt->quiet)
        cs_progress_begin(&r->progress, r->batches_total);
    r->last_plain = cs_now_seconds();
    trace_batches(r, opt->spp, NULL, 0);
    if (opt->variance_spp > 0) {
        float *sum = malloc((size_t)r->pt.pixel_count * 16), *sq = malloc((size_t)r->pt.pixel_count * 16);
        uint32_t *list = malloc((size_t)opt->variance_pixels * 4);
        CS_ASSERT(sum && sq && list, "out of host memory");
        cs_pt_read_pixels(&r->ctx, &r->pt, sum, sq, NULL);
        cs_pt_highest_variance(sum, sq, r->pt.pixel_count, opt->variance_pixels, list);
        trace_batches(r, opt->variance_spp, list, opt->variance_pixels);
        free(sum);
        free(sq);
        free(list);
    }
    double probe_ms = probe_spp ? probe_batches(r, probe_spp) : 0.0;
    if (!opt->quiet)
        cs_progress_end(&r->progress);
    cs_recorder_destroy(&r->rec);

    if (!write_outputs(r, scene, bvh, out_dir, &err)) {
        fprintf(stderr, "cistern: trace: %s\n", err.msg);
    } else {
        code = 0;
        if (!opt->quiet) {
            print_timing(r, opt);
            if (probe_spp)
                printf("GPU: probes %u paths a triangle (%u triangles) in %.1f ms\n", probe_spp * CS_PT_PROBE_LANES,
                       r->pt.tri_count, probe_ms);
        }
    }
    if (r->ctx.validation_errors) {
        fprintf(stderr, "cistern: %u Vulkan validation error(s) were reported\n", r->ctx.validation_errors);
        code = 1;
    }
    cs_pt_destroy(&r->ctx, &r->pt);
    cs_context_destroy(&r->ctx);
    return code;
}

int cs_trace_command(const cs_trace_options *opt)
{
    cs_error err;
    cs_scene scene;
    if (!cs_scene_load_edited(opt->scene, opt->edits.items, opt->edits.count, &scene, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 2;
    }
    if (!scene.geometry || scene.geometry->tri_count == 0) {
        fprintf(stderr, "cistern: trace: %s has no \"geometry\" to trace (docs/scenes.md, \"geometry\"; "
                        "scenes/cornell_box.json has some)\n", scene.path);
        cs_scene_free(&scene);
        return 2;
    }
    uint64_t pixels = (uint64_t)opt->width * opt->height;
    if (opt->variance_pixels > pixels) {
        fprintf(stderr, "cistern: --variance: %u pixels, but the image has %llu\n", opt->variance_pixels,
                (unsigned long long)pixels);
        cs_scene_free(&scene);
        return 2;
    }
    char out_dir[512];
    if (opt->out_dir)
        snprintf(out_dir, sizeof out_dir, "%s", opt->out_dir);
    else
        snprintf(out_dir, sizeof out_dir, "out/trace/%s", scene.name);
    // Settled before Vulkan starts, as `cistern run` does.
    if (!cs_prepare_out_dir(out_dir, opt->overwrite, CS_OUT_RUN, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        cs_scene_free(&scene);
        return 2;
    }
    cs_bvh bvh;
    if (!cs_bvh_build(scene.geometry->tris, scene.geometry->tri_count, &bvh, &err)) {
        fprintf(stderr, "cistern: trace: %s\n", err.msg);
        cs_scene_free(&scene);
        return 1;
    }
    cs_pt_settings settings = cs_pt_settings_default(opt->width, opt->height);
    settings.seed = opt->seed;
    choose_camera(&scene, &settings);
    if (!opt->quiet)
        printf("%s: %u triangles, %u x %u, %u paths a pixel%s, seed %u\n", scene.name, scene.geometry->tri_count,
               opt->width, opt->height, opt->spp, opt->variance_spp ? " (+ a variance pass)" : "", opt->seed);
    trace_run r = {.opt = opt};
    int code = trace_on_gpu(&r, &scene, &bvh, &settings, out_dir);
    cs_bvh_free(&bvh);
    cs_scene_free(&scene);
    return code;
}

// ---- the command line: `cistern trace`'s option table (cli.h) ---------------

CS_CLI_SIZE_FIELDS_ADJACENT(cs_trace_options);


// --variance N,K: N pixels (at least 1), K paths each (1 to 1000000).
static bool set_variance(const cs_cli_option *o, void *opts, const char *v)
{
    (void)o;
    cs_trace_options *opt = opts;
    char rest = 0;
    if (!v || !isdigit((unsigned char)v[0]) ||
        sscanf(v, "%u,%u%c", &opt->variance_pixels, &opt->variance_spp, &rest) != 2 || !opt->variance_pixels ||
        !opt->variance_spp || opt->variance_spp > 1000000) {
        fprintf(stderr, "cistern: --variance wants N,K: K more paths (1 to 1000000) for each of the N noisiest "
                        "pixels, e.g. 1000,256 (got \"%s\")\n", v ? v : "");
        return false;
    }
    return true;
}

#define TRACE_AT(member) CS_CLI_AT(cs_trace_options, member)

static const cs_cli_option trace_options[] = {
    {.name = "--set", .kind = CS_CLI_SETTER, TRACE_AT(edits), .arg = "KEY=VALUE", .set = cs_cli_set_scene_edit,
     .help = CS_CLI_SET_HELP},
    {.name = "--spp", .kind = CS_CLI_UINT, TRACE_AT(spp), .arg = "N", .min = 1, .max = 1000000, .def = "64",
     .help = "paths a pixel (dispatched 64 at a time)"},
    {.name = "--size", .kind = CS_CLI_SIZE, TRACE_AT(width), .arg = "WxH", .def = "256x256", .help = "image size"},
    {.name = "--out", .kind = CS_CLI_PATH, TRACE_AT(out_dir), .arg = "DIR",
     .help = "trace.png (exposure 1 / mean luminance, x / (1 + x), sRGB), trace.pfm (mean radiance W/m^2/sr, "
             "float RGB), patches.csv (default out/trace/SCENE); it must be empty or new, or add --overwrite"},
    {.name = "--overwrite", .kind = CS_CLI_FLAG, TRACE_AT(overwrite),
     .help = "use a non-empty --out: first delete cistern's own files there, nothing else"},
    {.name = "--variance", .kind = CS_CLI_SETTER, TRACE_AT(variance_pixels), .arg = "N,K", .set = set_variance,
     .help = "then K more paths for each of the N pixels of highest variance (biased)"},
    {.name = "--probes", .kind = CS_CLI_FLAG, TRACE_AT(probes),
     .help = "patches.csv: every triangle's radiosity B = pi L and its standard error"},
    {.name = "--probe-paths", .kind = CS_CLI_UINT, TRACE_AT(probe_paths), .arg = "N", .min = 1, .max = 100000000,
     .def = "4096", .help = "paths a triangle for --probes (rounded up to a multiple of 64)"},
    {.name = "--radiosity", .kind = CS_CLI_FLOAT, TRACE_AT(radiosity_patch), .arg = "S", .min = 0.01, .max = 100,
     .unit = "a patch size in metres",
     .help = "also radiosity.png (the radiosity solution, patches of S metres, through the same camera and "
             "exposure) and compare.png (path tracer | radiosity)"},
    {.name = "--seed", .kind = CS_CLI_UINT, TRACE_AT(seed), .arg = "N", .max = UINT32_MAX, .def = "1",
     .help = "random seed"},
    {.name = "--quiet", .kind = CS_CLI_FLAG, TRACE_AT(quiet), .help = "no device line, progress or summary"},
    {.name = "--device", .kind = CS_CLI_SETTER, TRACE_AT(device), .arg = "N|NAME", .set = cs_cli_set_device,
     .help = CS_CLI_DEVICE_HELP},
    {.name = "--validation", .kind = CS_CLI_FLAG, TRACE_AT(validation), .help = CS_CLI_VALIDATION_HELP},
};

const cs_cli_command cs_trace_cli = {
    .name = "trace",
    .args = "SCENE [options]",
    .summary = "path-trace a scene's static geometry (trace.png, trace.pfm)",
    .positional = "scene",
    .positional_at = offsetof(cs_trace_options, scene),
    .options = trace_options,
    .option_count = CS_CLI_COUNT(trace_options),
    .notes = "SCENE has \"geometry\", e.g. cornell_box (docs/light.md \"Path tracer\").\n"
             "The scene's \"camera\" is used when it has one; else a 45 degree view that frames the geometry.\n",
};

int cs_trace_main(int argc, char **argv)
{
    cs_trace_options opt = {0};
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&cs_trace_cli, argc, argv, 2, &opt, &parsed))
        return 2;
    if (!opt.scene) {
        fprintf(stderr, "cistern: trace wants a scene with \"geometry\": cistern trace SCENE [--spp N] "
                        "[--size WxH] [--out DIR] (e.g. cistern trace cornell_box)\n");
        return 2;
    }
    if (!cs_cli_check_scene(opt.scene))
        return 2;
    int code = cs_trace_command(&opt);
    cs_scene_edits_free(&opt.edits);
    return code;
}

