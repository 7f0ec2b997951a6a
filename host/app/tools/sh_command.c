// sh_command.c — `cistern sh` (see sh_command.h).
#include "sh_command.h"

#include "cli.h"
#include "output.h"
#include "render.h"
#include "sh.h"
#include "sh_project.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>

// Both irradiance maps are lat-long MAP_W x MAP_H. The brute force sums, for
// every map texel, over the environment reduced to at most BRUTE_W x
// BRUTE_H samples (cube: BRUTE_FACE^2 per face), so it runs in about a
// second on lavapipe whatever the image size.
#define MAP_W 256
#define MAP_H 128
#define BRUTE_W 128
#define BRUTE_H 64
#define BRUTE_FACE 32

static double luminance(const float *rgb)
{
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
}

static uint8_t srgb8(double linear)
{
    double c = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1.0 / 2.4) - 0.055;
    return (uint8_t)lrint(255.0 * fmin(fmax(c, 0.0), 1.0));
}

// Exposure k (both maps share it, so they compare), then x / (1 + x) per
// channel (Reinhard; negative SH ringing clamps to 0), then the sRGB curve.
static void tone_map(const float *map, uint32_t count, double k, uint8_t *rgba, uint32_t stride, uint32_t width)
{
    for (uint32_t p = 0; p < count; p++) {
        uint8_t *o = &rgba[4 * ((p / width) * stride + p % width)];
        for (int c = 0; c < 3; c++) {
            double x = fmax(k * map[4 * p + c], 0.0);
            o[c] = srgb8(x / (1.0 + x));
        }
        o[3] = 255;
    }
}

static void print_coefficients(FILE *out, const char *title, double c[CS_SH_COUNT][3])
{
    fprintf(out, "%s\n   l  m             R             G             B\n", title);
    for (int i = 0; i < CS_SH_COUNT; i++) {
        int l = cs_sh_band(i), m = i - l * (l + 1);
        fprintf(out, "  %2d %2d  %12.6g  %12.6g  %12.6g\n", l, m, c[i][0], c[i][1], c[i][2]);
    }
}

static bool write_csv(const char *path, double L[CS_SH_COUNT][3], double E[CS_SH_COUNT][3], cs_error *err)
{
    cs_out_file out;
    if (!cs_out_open(&out, path, true, err))
        return false;
    cs_out_printf(&out, "l,m,L_r,L_g,L_b,E_r,E_g,E_b\n");
    for (int i = 0; i < CS_SH_COUNT; i++) {
        int l = cs_sh_band(i);
        cs_out_printf(&out, "%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", l, i - l * (l + 1), L[i][0], L[i][1], L[i][2],
                      E[i][0], E[i][1], E[i][2]);
    }
    return cs_out_close(&out, err);
}

// The SH irradiance map against the brute-force one, relative to the brute
// force's peak (a ratio to the local value means nothing where irradiance
// goes to 0), printed. Returns the brute force's mean luminance (exposure).
static double compare_maps(const float *sh, const float *brute, const cs_env_samples *samples, uint32_t bx, uint32_t by)
{
    double peak = 0.0, mean_lum = 0.0, sum = 0.0, max = 0.0;
    for (uint32_t p = 0; p < MAP_W * MAP_H; p++) {
        for (int c = 0; c < 3; c++)
            peak = fmax(peak, brute[4 * p + c]);
        mean_lum += luminance(&brute[4 * p]) / (MAP_W * MAP_H);
    }
    for (uint32_t p = 0; p < MAP_W * MAP_H; p++)
        for (int c = 0; c < 3; c++) {
            double e = fabs(sh[4 * p + c] - brute[4 * p + c]) / (peak > 0.0 ? peak : 1.0);
            sum += e / (3.0 * MAP_W * MAP_H);
            max = fmax(max, e);
        }
    printf("SH irradiance vs brute force (%u samples: the image averaged over blocks of %u x %u texels): mean %.2f%%, "
           "max %.2f%% of the peak irradiance %.4g\n", samples->count, bx, by, 100 * sum, 100 * max, peak);
    return mean_lum;
}

// compare.png (SH | brute force), irradiance_sh.png, irradiance_brute.png
// and coefficients.csv into out_dir.
static bool write_outputs(const char *out_dir, const float *sh, const float *brute, double mean_lum,
                          double L[CS_SH_COUNT][3], double E[CS_SH_COUNT][3], uint8_t *rgba, cs_error *err)
{
    bool ok;
    double k = mean_lum > 0.0 ? 1.0 / mean_lum : 1.0; // the mean maps to 0.5 before the sRGB curve
    char path[700];
    const uint32_t wide = 2 * MAP_W + 4;
    tone_map(sh, MAP_W * MAP_H, k, rgba, wide, MAP_W);
    tone_map(brute, MAP_W * MAP_H, k, rgba + 4 * (MAP_W + 4), wide, MAP_W);
    for (uint32_t y = 0; y < MAP_H; y++)
        for (uint32_t x = MAP_W; x < MAP_W + 4; x++)
            memset(&rgba[4 * (y * wide + x)], 255, 4);
    snprintf(path, sizeof path, "%s/compare.png", out_dir);
    ok = cs_write_png(path, wide, MAP_H, rgba, err);
    uint8_t *single = malloc((size_t)MAP_W * MAP_H * 4);
    CS_ASSERT(single, "out of host memory");
    for (int which = 0; ok && which < 2; which++) {
        tone_map(which ? brute : sh, MAP_W * MAP_H, k, single, MAP_W, MAP_W);
        snprintf(path, sizeof path, "%s/%s", out_dir, which ? "irradiance_brute.png" : "irradiance_sh.png");
        ok = cs_write_png(path, MAP_W, MAP_H, single, err);
    }
    free(single);
    snprintf(path, sizeof path, "%s/coefficients.csv", out_dir);
    ok = ok && write_csv(path, L, E, err);
    return ok;
}

int cs_sh_command(const cs_sh_options *opt)
{
    cs_error err;
    cs_env env;
    if (!cs_env_load_hdr(opt->image, opt->cube, &env, &err)) {
        fprintf(stderr, "cistern: sh: %s\n", err.msg);
        return 2;
    }
    char out_dir[512], name[256];
    snprintf(name, sizeof name, "%s", opt->image);
    char *base = basename(name), *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = 0;
    snprintf(out_dir, sizeof out_dir, "%s", opt->out_dir ? opt->out_dir : "");
    if (!opt->out_dir)
        snprintf(out_dir, sizeof out_dir, "out/sh/%s", base);
    if (!cs_prepare_out_dir(out_dir, opt->overwrite, CS_OUT_SH, &err)) {
        fprintf(stderr, "cistern: sh: %s\n", err.msg);
        cs_env_free(&env);
        return 2;
    }

    cs_context ctx;
    cs_context_desc desc = {.validation = opt->validation, .device = opt->device, .verbose = !opt->quiet,
                            .settings = cs_cli_settings()};
    if (!cs_context_create(&desc, &ctx, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        cs_env_free(&env);
        return 1;
    }
    int code = 1;
    uint32_t texels = cs_env_texel_count(&env);
    cs_sh_gpu gpu;
    cs_env_samples samples = {0};
    cs_buffer dir_buf = {0}, rad_buf = {0}, sh_map = {0}, brute_map = {0};
    float *maps = NULL;
    uint8_t *rgba = NULL;
    bool gpu_made = cs_sh_gpu_create(&ctx, texels, &gpu, &err);
    uint32_t bx = env.layout == CS_SH_CUBE ? CS_DIV_UP(env.width, BRUTE_FACE) : CS_DIV_UP(env.width, BRUTE_W);
    uint32_t by = env.layout == CS_SH_CUBE ? bx : CS_DIV_UP(env.height, BRUTE_H);
    bool ok = gpu_made && cs_sh_gpu_upload(&ctx, &gpu, &env, &err) && cs_env_samples_make(&env, bx, by, &samples, &err);
    const VkDeviceSize map_bytes = (VkDeviceSize)MAP_W * MAP_H * 16;
    ok = ok &&
         cs_buffer_create(&ctx, &(cs_buffer_desc){.name = "brute-force directions", .size = (VkDeviceSize)samples.count * 16},
                          &dir_buf, &err) &&
         cs_buffer_create(&ctx, &(cs_buffer_desc){.name = "brute-force radiance", .size = (VkDeviceSize)samples.count * 16},
                          &rad_buf, &err) &&
         cs_buffer_create(&ctx, &(cs_buffer_desc){.name = "SH irradiance map", .size = map_bytes}, &sh_map, &err) &&
         cs_buffer_create(&ctx, &(cs_buffer_desc){.name = "brute-force irradiance map", .size = map_bytes}, &brute_map,
                          &err);
    if (!ok) {
        fprintf(stderr, "cistern: sh: %s\n", err.msg);
        goto done;
    }
    cs_buffer_upload(&ctx, &dir_buf, samples.dir_omega, (VkDeviceSize)samples.count * 16, 0);
    cs_buffer_upload(&ctx, &rad_buf, samples.radiance, (VkDeviceSize)samples.count * 16, 0);

    cs_recorder rec;
    cs_recorder_create(&ctx, "sh", &rec);
    cs_recorder_begin(&rec);
    cs_sh_project_record(&rec, &gpu);
    cs_sh_irradiance_map_record(&rec, &gpu, &sh_map, MAP_W, MAP_H);
    cs_sh_convolve_record(&rec, &gpu, &dir_buf, &rad_buf, samples.count, &brute_map, MAP_W, MAP_H);
    cs_recorder_submit_wait(&rec);
    float Lf[CS_SH_COUNT][3];
    cs_sh_gpu_read(&ctx, &gpu, Lf);
    // cs_env_load_hdr bounds the texels; this keeps an infinity or NaN
    // from ever being printed and written as a result.
    for (int i = 0; i < CS_SH_COUNT * 3; i++) {
        if (!isfinite(Lf[i / 3][i % 3])) {
            fprintf(stderr, "cistern: sh: %s: coefficient %d is %g, not a finite number: the image's values are too "
                            "large to sum in float; scale them down and export it again\n",
                    opt->image, i / 3, (double)Lf[i / 3][i % 3]);
            cs_recorder_destroy(&rec);
            code = 2;
            goto done;
        }
    }
    maps = malloc(2 * (size_t)map_bytes);
    rgba = calloc((size_t)(2 * MAP_W + 4) * MAP_H * 4, 1);
    CS_ASSERT(maps && rgba, "out of host memory");
    float *sh = maps, *brute = maps + 4 * MAP_W * MAP_H;
    cs_buffer_download(&ctx, &sh_map, sh, map_bytes, 0);
    cs_buffer_download(&ctx, &brute_map, brute, map_bytes, 0);

    double L[CS_SH_COUNT][3], E[CS_SH_COUNT][3];
    for (int i = 0; i < CS_SH_COUNT; i++)
        for (int c = 0; c < 3; c++)
            L[i][c] = Lf[i][c];
    cs_sh_to_irradiance((const double(*)[3])L, E);
    printf("%s: %s %u x %u%s, %u texels\n", opt->image, env.layout == CS_SH_CUBE ? "cube map" : "lat-long",
           env.width, env.height, env.layout == CS_SH_CUBE ? " per face" : "", texels);
    print_coefficients(stdout, "radiance coefficients L_lm (real SH, no Condon-Shortley phase, +z up; docs/light.md):",
                       L);
    print_coefficients(stdout, "irradiance coefficients E_lm = A_l L_lm (A = pi, 2 pi/3, pi/4); E(n) = sum E_lm Y_lm(n):",
                       E);

    double mean_lum = compare_maps(sh, brute, &samples, bx, by);
    printf("GPU: sh: project %.2f ms, sh: sum %.2f ms, sh: irradiance map %.2f ms, sh: brute force %.2f ms\n",
           cs_recorder_pass_ms(&rec, "sh: project"), cs_recorder_pass_ms(&rec, "sh: sum"),
           cs_recorder_pass_ms(&rec, "sh: irradiance map"), cs_recorder_pass_ms(&rec, "sh: brute force"));
    cs_recorder_destroy(&rec);

    ok = write_outputs(out_dir, sh, brute, mean_lum, L, E, rgba, &err);
    if (!ok) {
        fprintf(stderr, "cistern: sh: %s\n", err.msg);
        goto done;
    }
    printf("wrote %s/: irradiance_sh.png, irradiance_brute.png, compare.png (SH | brute force; lat-long %d x %d, "
           "+z up, exposure 1 / mean luminance, x / (1 + x), sRGB), coefficients.csv\n", out_dir, MAP_W, MAP_H);
    code = 0;
    if (ctx.validation_errors) {
        fprintf(stderr, "cistern: %u Vulkan validation error(s) were reported\n", ctx.validation_errors);
        code = 1;
    }

done:
    free(maps);
    free(rgba);
    cs_buffer_destroy(&ctx, &dir_buf);
    cs_buffer_destroy(&ctx, &rad_buf);
    cs_buffer_destroy(&ctx, &sh_map);
    cs_buffer_destroy(&ctx, &brute_map);
    cs_env_samples_free(&samples);
    if (gpu_made)
        cs_sh_gpu_destroy(&ctx, &gpu);
    cs_context_destroy(&ctx);
    cs_env_free(&env);
    return code;
}

// ---- the command line: `cistern sh`'s option table (cli.h) ---------------


#define SH_AT(member) CS_CLI_AT(cs_sh_options, member)

static const cs_cli_option sh_options[] = {
    {.name = "--out", .kind = CS_CLI_PATH, SH_AT(out_dir), .arg = "DIR",
     .help = "irradiance_sh.png, irradiance_brute.png, compare.png, coefficients.csv (default out/sh/IMAGE); "
             "it must be empty or new, or add --overwrite"},
    {.name = "--overwrite", .kind = CS_CLI_FLAG, SH_AT(overwrite),
     .help = "use a non-empty --out: first delete those four files there, nothing else"},
    {.name = "--cube", .kind = CS_CLI_FLAG, SH_AT(cube),
     .help = "the image is six square cube faces side by side: +X -X +Y -Y +Z -Z"},
    {.name = "--quiet", .kind = CS_CLI_FLAG, SH_AT(quiet), .help = "no device line"},
    {.name = "--device", .kind = CS_CLI_SETTER, SH_AT(device), .arg = "N|NAME", .set = cs_cli_set_device,
     .help = CS_CLI_DEVICE_HELP},
    {.name = "--validation", .kind = CS_CLI_FLAG, SH_AT(validation), .help = CS_CLI_VALIDATION_HELP},
};

const cs_cli_command cs_sh_cli = {
    .name = "sh",
    .args = "IMAGE.hdr [options]",
    .summary = "spherical-harmonic irradiance of an environment image",
    .positional = "image",
    .positional_at = offsetof(cs_sh_options, image),
    .options = sh_options,
    .option_count = CS_CLI_COUNT(sh_options),
    .notes = "IMAGE.hdr is a Radiance .hdr, lat-long of any shape, +z up = the top row. Prints the 9 RGB radiance\n"
             "coefficients and their irradiance form. The brute-force convolution runs on the image averaged\n"
             "down to at most 128 x 64 texels (cube: 32 x 32 a face).\n",
};

int cs_sh_main(int argc, char **argv)
{
    cs_sh_options opt = {0};
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&cs_sh_cli, argc, argv, 2, &opt, &parsed))
        return 2;
    if (!opt.image) {
        fprintf(stderr, "cistern: sh wants an image: cistern sh IMAGE.hdr [--out DIR] (a Radiance .hdr file)\n");
        return 2;
    }
    return cs_sh_command(&opt);
}

