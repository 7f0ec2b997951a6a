// sh_project.c — spherical harmonics on the GPU (see sh_project.h).
#include "sh_project.h"

static uint32_t partial_count(uint32_t texels)
{
    return CS_DIV_UP(texels, CS_SH_PROJECT_ITEMS);
}

bool cs_sh_gpu_create(cs_context *ctx, uint32_t capacity, cs_sh_gpu *gpu, cs_error *err)
{
    memset(gpu, 0, sizeof *gpu);
    if (capacity == 0 || capacity > CS_ENV_MAX_TEXELS)
        return cs_fail(err, "SH projection for %u texels: 1 to %u", capacity, CS_ENV_MAX_TEXELS);
    gpu->capacity = capacity;
    // A lat-long image has at most `capacity` rows, a cube face at most
    // capacity / 6 texels: `capacity` weights cover both.
    bool ok = cs_program_create(ctx, &(cs_program_desc){.path = "sh/project.comp"}, &gpu->project, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "sh/sum.comp"}, &gpu->sum, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "sh/irradiance_map.comp"}, &gpu->irradiance_map,
                                err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "sh/convolve.comp"}, &gpu->convolve, err) &&
              cs_buffer_create_device(ctx, "sh texels", (VkDeviceSize)capacity * 16, &gpu->texels, err) &&
              cs_buffer_create_device(ctx, "sh solid angles", (VkDeviceSize)capacity * 4, &gpu->weights, err) &&
              cs_buffer_create_device(ctx, "sh partials", (VkDeviceSize)partial_count(capacity) * CS_SH_VALUES * 4,
                                      &gpu->partials, err) &&
              cs_buffer_create_device(ctx, "sh coefficients", CS_SH_VALUES * 4, &gpu->coeffs, err);
    if (!ok) {
        cs_sh_gpu_destroy(ctx, gpu);
        return false;
    }
    return true;
}

void cs_sh_gpu_destroy(cs_context *ctx, cs_sh_gpu *gpu)
{
    cs_program_destroy(ctx, &gpu->project);
    cs_program_destroy(ctx, &gpu->sum);
    cs_program_destroy(ctx, &gpu->irradiance_map);
    cs_program_destroy(ctx, &gpu->convolve);
    cs_buffer_destroy(ctx, &gpu->texels);
    cs_buffer_destroy(ctx, &gpu->weights);
    cs_buffer_destroy(ctx, &gpu->partials);
    cs_buffer_destroy(ctx, &gpu->coeffs);
    memset(gpu, 0, sizeof *gpu);
}

bool cs_sh_gpu_upload(cs_context *ctx, cs_sh_gpu *gpu, const cs_env *env, cs_error *err)
{
    uint32_t texels = cs_env_texel_count(env);
    if (texels > gpu->capacity)
        return cs_fail(err, "%s: %u texels, the SH projection was made for %u", env->name, texels, gpu->capacity);
    uint32_t weight_count = cs_env_weight_count(env->layout, env->width, env->height);
    float *rgba = malloc((size_t)texels * 16);
    float *weights = malloc((size_t)weight_count * 4);
    if (!rgba || !weights) {
        free(rgba);
        free(weights);
        return cs_fail(err, "%s: out of host memory for the upload", env->name);
    }
    for (size_t t = 0; t < texels; t++) {
        memcpy(&rgba[4 * t], &env->rgb[3 * t], 3 * sizeof(float));
        rgba[4 * t + 3] = 0.0f;
    }
    cs_env_weights(env->layout, env->width, env->height, weights);
    cs_buffer_upload(ctx, &gpu->texels, rgba, (VkDeviceSize)texels * 16, 0);
    cs_buffer_upload(ctx, &gpu->weights, weights, (VkDeviceSize)weight_count * 4, 0);
    free(rgba);
    free(weights);
    gpu->layout = env->layout;
    gpu->width = env->width;
    gpu->height = env->height;
    gpu->texel_count = texels;
    return true;
}

void cs_sh_project_record(cs_recorder *rec, cs_sh_gpu *gpu)
{
    CS_ASSERT(gpu->texel_count > 0, "SH projection before an environment was uploaded");
    uint32_t partials = partial_count(gpu->texel_count);
    struct cs_sh_project_push push = {
        .env_layout = gpu->layout, .width = gpu->width, .height = gpu->height, .texel_count = gpu->texel_count};
    cs_pass_begin(rec, "sh: project");
    cs_dispatch(rec, gpu->project, &(cs_dispatch_desc){
        .buffers = {&gpu->texels, &gpu->weights, &gpu->partials},
        .push = &push, .push_size = sizeof push,
        .threads = {partials},
    });
    cs_barrier_compute(rec);
    cs_pass_end(rec);

    struct cs_sh_sum_push sum = {.partial_count = partials};
    cs_pass_begin(rec, "sh: sum");
    cs_dispatch(rec, gpu->sum, &(cs_dispatch_desc){
        .buffers = {&gpu->partials, &gpu->coeffs},
        .push = &sum, .push_size = sizeof sum,
        .threads = {CS_SH_VALUES * CS_SH_SUM_THREADS},
    });
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

void cs_sh_gpu_read(cs_context *ctx, const cs_sh_gpu *gpu, float radiance[CS_SH_COUNT][3])
{
    cs_buffer_download(ctx, &gpu->coeffs, radiance, CS_SH_VALUES * 4, 0);
}

void cs_sh_irradiance_map_record(cs_recorder *rec, cs_sh_gpu *gpu, cs_buffer *out, uint32_t width, uint32_t height)
{
    CS_ASSERT(out->size >= (VkDeviceSize)width * height * 16, "irradiance map %ux%u: %s is smaller", width, height,
              out->name);
    struct cs_sh_map_push push = {.width = width, .height = height};
    cs_pass_begin(rec, "sh: irradiance map");
    cs_dispatch(rec, gpu->irradiance_map, &(cs_dispatch_desc){
        .buffers = {&gpu->coeffs, out},
        .push = &push, .push_size = sizeof push,
        .threads = {width * height},
    });
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

void cs_sh_convolve_record(cs_recorder *rec, cs_sh_gpu *gpu, cs_buffer *dir_omega, cs_buffer *radiance,
                           uint32_t count, cs_buffer *out, uint32_t width, uint32_t height)
{
    CS_ASSERT(out->size >= (VkDeviceSize)width * height * 16, "brute-force map %ux%u: %s is smaller", width, height,
              out->name);
    CS_ASSERT(dir_omega->size >= (VkDeviceSize)count * 16 && radiance->size >= (VkDeviceSize)count * 16,
              "brute force over %u samples: %s or %s is smaller", count, dir_omega->name, radiance->name);
    struct cs_sh_map_push push = {.width = width, .height = height, .sample_count = count};
    cs_pass_begin(rec, "sh: brute force");
    cs_dispatch(rec, gpu->convolve, &(cs_dispatch_desc){
        .buffers = {dir_omega, radiance, out},
        .push = &push, .push_size = sizeof push,
        .threads = {width * height},
    });
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}
