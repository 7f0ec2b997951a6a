// env.c — environment images on the host (see env.h).
#include "env.h"

#include <math.h>

// The one translation unit that holds stb_image's code, and only its HDR
// reader: cistern reads nothing else with it.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_HDR
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static const double PI = 3.14159265358979323846;

uint32_t cs_env_texel_count(const cs_env *env)
{
    return env->layout == CS_SH_CUBE ? 6u * env->width * env->width : env->width * env->height;
}

bool cs_env_create(cs_env *env, uint32_t layout, uint32_t width, uint32_t height, const char *name, cs_error *err)
{
    memset(env, 0, sizeof *env);
    snprintf(env->name, sizeof env->name, "%s", name ? name : "environment");
    if (layout != CS_SH_LATLONG && layout != CS_SH_CUBE)
        return cs_fail(err, "%s: layout %u is neither lat-long nor cube", env->name, layout);
    if (layout == CS_SH_CUBE && width != height)
        return cs_fail(err, "%s: cube faces must be square (got %u x %u)", env->name, width, height);
    uint64_t texels = layout == CS_SH_CUBE ? 6ull * width * width : (uint64_t)width * height;
    if (width == 0 || height == 0 || texels > CS_ENV_MAX_TEXELS)
        return cs_fail(err, "%s: %u x %u%s is %llu texels; cistern takes 1 to %u", env->name, width, height,
                       layout == CS_SH_CUBE ? " per face" : "", (unsigned long long)texels, CS_ENV_MAX_TEXELS);
    env->rgb = calloc((size_t)texels * 3, sizeof(float));
    if (!env->rgb)
        return cs_fail(err, "%s: out of host memory for %llu texels", env->name, (unsigned long long)texels);
    env->layout = layout;
    env->width = width;
    env->height = height;
    return true;
}

void cs_env_free(cs_env *env)
{
    free(env->rgb);
    memset(env, 0, sizeof *env);
}

// -------------------------------------------------------------- geometry

// Unnormalised direction of face coordinates (s, t) in [-1, 1] on `face`
// (sh_shared.h's table, Vulkan's cube face selection read backwards).
static void cube_point(uint32_t face, double s, double t, double d[3])
{
    switch (face) {
    case 0: d[0] = 1.0, d[1] = -t, d[2] = -s; break;
    case 1: d[0] = -1.0, d[1] = -t, d[2] = s; break;
    case 2: d[0] = s, d[1] = 1.0, d[2] = t; break;
    case 3: d[0] = s, d[1] = -1.0, d[2] = -t; break;
    case 4: d[0] = s, d[1] = -t, d[2] = 1.0; break;
    default: d[0] = -s, d[1] = -t, d[2] = -1.0; break;
    }
}

void cs_env_texel_direction(uint32_t layout, uint32_t width, uint32_t height, uint32_t t, double dir[3])
{
    if (layout == CS_SH_LATLONG) {
        uint32_t x = t % width, y = t / width;
        double phi = 2.0 * PI * (x + 0.5) / width, theta = PI * (y + 0.5) / height;
        dir[0] = sin(theta) * cos(phi);
        dir[1] = sin(theta) * sin(phi);
        dir[2] = cos(theta);
        return;
    }
    uint32_t n = width, face = t / (n * n), r = t % (n * n);
    cube_point(face, 2.0 * ((r % n) + 0.5) / n - 1.0, 2.0 * ((r / n) + 0.5) / n - 1.0, dir);
    double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    for (int a = 0; a < 3; a++)
        dir[a] /= len;
}

// Solid angle of the part of a cube face at distance 1 between the face's
// centre and (s, t) (signed): the corner formula's building block.
static double cube_corner(double s, double t)
{
    return atan2(s * t, sqrt(s * s + t * t + 1.0));
}

double cs_env_texel_solid_angle(uint32_t layout, uint32_t width, uint32_t height, uint32_t t)
{
    if (layout == CS_SH_LATLONG) {
        // (2 pi / W)(cos theta0 - cos theta1), written as a product so small
        // rows near the poles keep their digits.
        double theta = PI * ((t / width) + 0.5) / height;
        return 2.0 * PI / width * 2.0 * sin(theta) * sin(PI / (2.0 * height));
    }
    uint32_t n = width, r = t % (n * n), i = r % n, j = r / n;
    double s0 = 2.0 * i / n - 1.0, s1 = 2.0 * (i + 1) / n - 1.0;
    double t0 = 2.0 * j / n - 1.0, t1 = 2.0 * (j + 1) / n - 1.0;
    return cube_corner(s0, t0) - cube_corner(s0, t1) - cube_corner(s1, t0) + cube_corner(s1, t1);
}

uint32_t cs_env_texel_at(uint32_t layout, uint32_t width, uint32_t height, const double d[3])
{
    if (layout == CS_SH_LATLONG) {
        double theta = acos(fmax(-1.0, fmin(1.0, d[2])));
        double phi = atan2(d[1], d[0]);
        if (phi < 0.0)
            phi += 2.0 * PI;
        uint32_t x = (uint32_t)fmin(floor(phi / (2.0 * PI) * width), width - 1.0);
        uint32_t y = (uint32_t)fmin(floor(theta / PI * height), height - 1.0);
        return y * width + x;
    }
    // The major axis picks the face; the other two coordinates, divided by
    // it, are (s, t) as cube_point lays them out.
    double ax = fabs(d[0]), ay = fabs(d[1]), az = fabs(d[2]);
    uint32_t face;
    double s, t;
    if (ax >= ay && ax >= az) {
        face = d[0] > 0 ? 0 : 1;
        s = (d[0] > 0 ? -d[2] : d[2]) / ax;
        t = -d[1] / ax;
    } else if (ay >= az) {
        face = d[1] > 0 ? 2 : 3;
        s = d[0] / ay;
        t = (d[1] > 0 ? d[2] : -d[2]) / ay;
    } else {
        face = d[2] > 0 ? 4 : 5;
        s = (d[2] > 0 ? d[0] : -d[0]) / az;
        t = -d[1] / az;
    }
    uint32_t n = width;
    uint32_t i = (uint32_t)fmin(fmax(floor((s + 1.0) * 0.5 * n), 0.0), n - 1.0);
    uint32_t j = (uint32_t)fmin(fmax(floor((t + 1.0) * 0.5 * n), 0.0), n - 1.0);
    return face * n * n + j * n + i;
}

uint32_t cs_env_weight_count(uint32_t layout, uint32_t width, uint32_t height)
{
    return layout == CS_SH_CUBE ? width * width : height;
}

void cs_env_weights(uint32_t layout, uint32_t width, uint32_t height, float *weights)
{
    uint32_t count = cs_env_weight_count(layout, width, height);
    for (uint32_t k = 0; k < count; k++)
        // Lat-long: texel k * width is the first of row k; cube: face 0's texels.
        weights[k] = (float)cs_env_texel_solid_angle(layout, width, height, layout == CS_SH_CUBE ? k : k * width);
}

// --------------------------------------------------------------- loading

// Walks the pixel data of a Radiance file the way stb_image will read it and
// refuses what stb_image would mishandle: its run-length reader loops
// forever on a zero count byte and reads zeros past the end of a truncated
// file. `p` is the first data byte. Returns NULL when the data is whole, or
// what is wrong.
static const char *hdr_data_problem(const unsigned char *p, const unsigned char *end, uint32_t width, uint32_t height)
{
    uint64_t flat = 4ull * width * height;
    if (width < 8 || width >= 32768) // stb_image reads such widths flat
        return (uint64_t)(end - p) >= flat ? NULL : "the pixel data is truncated";
    for (uint32_t j = 0; j < height; j++) {
        if (end - p < 4)
            return "the pixel data is truncated";
        bool rle = p[0] == 2 && p[1] == 2 && !(p[2] & 0x80);
        if (!rle) {
            // Flat data is only read from the first scanline on.
            if (j != 0)
                return "scanline is neither run-length encoded nor part of a flat image";
            return (uint64_t)(end - p) >= flat ? NULL : "the pixel data is truncated";
        }
        if (((uint32_t)p[2] << 8 | p[3]) != width)
            return "a scanline's length is not the image width";
        p += 4;
        for (int k = 0; k < 4; k++)
            for (uint32_t i = 0; i < width;) {
                if (p >= end)
                    return "the pixel data is truncated";
                uint32_t count = *p++;
                if (count > 128) {
                    count -= 128;
                    if (p >= end)
                        return "the pixel data is truncated";
                    p++;
                } else {
                    if (count == 0)
                        return "a run-length count is zero";
                    if ((uint64_t)(end - p) < count)
                        return "the pixel data is truncated";
                    p += count;
                }
                if (count > width - i)
                    return "a run goes past the end of its scanline";
                i += count;
            }
    }
    return NULL;
}

// First data byte after the header (lines up to an empty one) and the
// resolution line, or NULL.
static const unsigned char *hdr_data_start(const unsigned char *data, size_t size)
{
    const unsigned char *end = data + size;
    for (const unsigned char *p = data; p + 1 < end; p++)
        if (p[0] == '\n' && p[1] == '\n') {
            const unsigned char *line_end = memchr(p + 2, '\n', (size_t)(end - (p + 2)));
            return line_end ? line_end + 1 : NULL;
        }
    return NULL;
}

bool cs_env_load_hdr(const char *path, bool cube, cs_env *env, cs_error *err)
{
    memset(env, 0, sizeof *env);
    static const char *const want = "cistern sh reads Radiance .hdr (RGBE) images";
    size_t size = 0;
    cs_error read_err;
    // RGBE is 4 bytes a texel uncompressed; 1 MiB more for the header.
    unsigned char *data = (unsigned char *)cs_read_file_max(path, (size_t)CS_ENV_MAX_TEXELS * 4 + ((size_t)1 << 20),
                                                            ".hdr images", &size, &read_err);
    if (!data)
        return cs_fail(err, "%s; give the path of a Radiance .hdr image", read_err.msg);
    bool ok = false;
    int w = 0, h = 0, comp = 0;
    float *pixels = NULL;
    if (size > (size_t)INT32_MAX) {
        cs_fail(err, "%s: %zu bytes is too large a file; %s of at most %u texels", path, size, want,
                CS_ENV_MAX_TEXELS);
        goto done;
    }
    if (!stbi_is_hdr_from_memory(data, (int)size)) {
        cs_fail(err, "%s: not a Radiance .hdr file (it does not start with \"#?RADIANCE\" or \"#?RGBE\"); %s: "
                "convert it first (e.g. an .exr with `oiiotool in.exr -o out.hdr`)", path, want);
        goto done;
    }
    bool info = stbi_info_from_memory(data, (int)size, &w, &h, &comp);
    if (!info || w <= 0 || h <= 0) {
        // stb_image's own reason here is "unknown image type" (it tried
        // every reader it has): say what a header needs instead.
        cs_fail(err, "%s: broken .hdr header%s; it needs a FORMAT=32-bit_rle_rgbe line, an empty line and "
                "\"-Y HEIGHT +X WIDTH\"; export the image again", path, info ? " (0 pixels)" : "");
        goto done;
    }
    if ((uint64_t)w * (uint64_t)h > CS_ENV_MAX_TEXELS) {
        cs_fail(err, "%s: %d x %d is more than the %u texels cistern takes; downsample it first", path, w, h,
                CS_ENV_MAX_TEXELS);
        goto done;
    }
    const unsigned char *start = hdr_data_start(data, size);
    const char *problem = start ? hdr_data_problem(start, data + size, (uint32_t)w, (uint32_t)h)
                                : "the header never ends";
    if (problem) {
        cs_fail(err, "%s: damaged .hdr pixel data (%d x %d): %s; export or download the image again", path, w, h,
                problem);
        goto done;
    }
    pixels = stbi_loadf_from_memory(data, (int)size, &w, &h, &comp, 3);
    if (!pixels) {
        cs_fail(err, "%s: cannot decode the .hdr image: %s; export or download it again", path,
                stbi_failure_reason());
        goto done;
    }
    for (size_t i = 0; i < (size_t)w * h * 3; i++) {
        if (!isfinite(pixels[i]) || pixels[i] > CS_ENV_MAX_RADIANCE || pixels[i] < 0.0f) {
            size_t t = i / 3;
            cs_fail(err, "%s: texel (%zu, %zu) %s is %g, outside 0 to %g: the SH sums would not be finite numbers; "
                    "scale the image's values down (its exposure) and export it again",
                    path, t % (size_t)w, t / (size_t)w, (const char *[]){"red", "green", "blue"}[i % 3],
                    (double)pixels[i], (double)CS_ENV_MAX_RADIANCE);
            goto done;
        }
    }
    if (cube) {
        if (w != 6 * h) {
            cs_fail(err, "%s: %d x %d is not a cube-map strip; --cube wants six square faces side by side "
                    "(width = 6 x height: +X -X +Y -Y +Z -Z), or leave --cube out for a lat-long image", path, w,
                    h);
            goto done;
        }
        if (!cs_env_create(env, CS_SH_CUBE, (uint32_t)h, (uint32_t)h, path, err))
            goto done;
        uint32_t n = (uint32_t)h;
        for (uint32_t y = 0; y < n; y++)
            for (uint32_t x = 0; x < 6 * n; x++) {
                uint32_t face = x / n, i = x % n;
                memcpy(&env->rgb[3 * ((size_t)face * n * n + y * n + i)], &pixels[3 * ((size_t)y * 6 * n + x)],
                       3 * sizeof(float));
            }
    } else {
        if (!cs_env_create(env, CS_SH_LATLONG, (uint32_t)w, (uint32_t)h, path, err))
            goto done;
        memcpy(env->rgb, pixels, (size_t)w * h * 3 * sizeof(float));
    }
    ok = true;
done:
    stbi_image_free(pixels);
    free(data);
    return ok;
}

// --------------------------------------------------------------- samples

void cs_env_samples_free(cs_env_samples *s)
{
    free(s->dir_omega);
    free(s->radiance);
    memset(s, 0, sizeof *s);
}

bool cs_env_samples_make(const cs_env *env, uint32_t block_x, uint32_t block_y, cs_env_samples *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    CS_ASSERT(block_x >= 1 && block_y >= 1, "sample blocks of %u x %u texels", block_x, block_y);
    bool cube = env->layout == CS_SH_CUBE;
    uint32_t faces = cube ? 6 : 1, w = env->width, h = cube ? env->width : env->height;
    uint32_t bx = CS_DIV_UP(w, block_x), by = CS_DIV_UP(h, block_y);
    out->count = faces * bx * by;
    out->dir_omega = calloc((size_t)out->count * 4, sizeof(float));
    out->radiance = calloc((size_t)out->count * 4, sizeof(float));
    if (!out->dir_omega || !out->radiance) {
        cs_env_samples_free(out);
        return cs_fail(err, "%s: out of host memory for brute-force samples", env->name);
    }
    uint32_t s = 0;
    for (uint32_t f = 0; f < faces; f++)
        for (uint32_t by0 = 0; by0 < h; by0 += block_y)
            for (uint32_t bx0 = 0; bx0 < w; bx0 += block_x, s++) {
                double omega = 0.0, dir[3] = {0, 0, 0}, rgb[3] = {0, 0, 0};
                for (uint32_t y = by0; y < CS_MIN(by0 + block_y, h); y++)
                    for (uint32_t x = bx0; x < CS_MIN(bx0 + block_x, w); x++) {
                        uint32_t t = f * w * h + y * w + x;
                        double d[3], o = cs_env_texel_solid_angle(env->layout, env->width, env->height, t);
                        cs_env_texel_direction(env->layout, env->width, env->height, t, d);
                        omega += o;
                        for (int a = 0; a < 3; a++) {
                            dir[a] += o * d[a];
                            rgb[a] += o * env->rgb[3 * (size_t)t + a];
                        }
                    }
                double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
                for (int a = 0; a < 3; a++) {
                    // A block that is a whole ring round a pole has a mean
                    // direction along the axis (len > 0 still).
                    out->dir_omega[4 * (size_t)s + a] = (float)(len > 0.0 ? dir[a] / len : 0.0);
                    out->radiance[4 * (size_t)s + a] = (float)(omega > 0.0 ? rgb[a] / omega : 0.0);
                }
                out->dir_omega[4 * (size_t)s + 3] = (float)omega;
            }
    return true;
}
