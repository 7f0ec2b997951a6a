// test_util.c — see test_util.h.
#define _POSIX_C_SOURCE 200809L // setenv, strdup
#include "test_util.h"

#include <dlfcn.h>
#include <time.h>

int test_failures;
static uint64_t g_state;
static uint64_t g_seed;
static bool g_seeded;

uint64_t test_seed(void)
{
    if (!g_seeded) {
        const char *env = getenv("CISTERN_TEST_SEED");
        g_seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
        g_state = g_seed;
        g_seeded = true;
        fprintf(stderr, "random seed %llu (replay with CISTERN_TEST_SEED=%llu)\n",
                (unsigned long long)g_seed, (unsigned long long)g_seed);
    }
    return g_seed;
}

uint64_t test_rand_u64(void)
{
    test_seed();
    uint64_t z = (g_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t test_rand_begin_fixed(uint64_t seed)
{
    test_seed();
    uint64_t resume = g_state;
    g_state = seed;
    fprintf(stderr, "fixed case: random stream of seed %llu\n", (unsigned long long)seed);
    return resume;
}

void test_rand_resume(uint64_t state)
{
    g_state = state;
}

uint32_t test_rand_u32(void) { return (uint32_t)(test_rand_u64() >> 32); }
double test_rand_unit(void) { return (double)(test_rand_u64() >> 11) * (1.0 / 9007199254740992.0); }

bool test_not_finite(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return (bits & 0x7f800000u) == 0x7f800000u;
}

// Under AddressSanitizer: keep the Vulkan driver and the validation layer
// mapped until exit. The loader unloads them at vkDestroyInstance, and
// LeakSanitizer, which reports at exit, then shows their allocations as
// "<unknown module>" that no suppression can match; mapped, they are named
// and tools/lsan.supp suppresses them (driver frames only).
static void keep_driver_modules_loaded(void)
{
#ifdef __SANITIZE_ADDRESS__
    static const char *const modules[] = {"libVkLayer_khronos_validation.so", "libvulkan_lvp.so"};
    for (size_t i = 0; i < CS_ARRAY_COUNT(modules); i++)
        dlopen(modules[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
#endif
}

void test_context(cs_context *ctx)
{
    test_seed();
    keep_driver_modules_loaded();
    cs_error err;
    // The CISTERN_* switches as the app reads them (a test that sets one
    // before its context sees it).
    cs_settings settings;
    cs_settings_from_env(&settings);
    cs_context_desc desc = {.validation = true, .device = getenv("CISTERN_TEST_DEVICE"), .verbose = true,
                            .settings = &settings};
    if (!cs_context_create(&desc, ctx, &err)) {
        fprintf(stderr, "FAIL: cannot create a Vulkan context: %s\n", err.msg);
        exit(1);
    }
}

int test_finish(cs_context *ctx)
{
    cs_context_destroy(ctx);
    cs_shader_shutdown();
    if (ctx->validation_errors)
        fprintf(stderr, "FAIL: %u validation error(s) reported\n", ctx->validation_errors);
    if (ctx->shader_check_violations)
        fprintf(stderr, "FAIL: %u out-of-bounds shader access(es) found by checked shaders\n",
                ctx->shader_check_violations);
    if (test_failures)
        fprintf(stderr, "FAIL: %d check(s) failed\n", test_failures);
    bool ok = test_failures == 0 && ctx->validation_errors == 0 && ctx->shader_check_violations == 0;
    fprintf(stderr, "%s\n", ok ? "PASS" : "FAILED");
    return ok ? 0 : 1;
}

void test_program(cs_context *ctx, cs_program_id *prog, const char *path, const cs_define *defines)
{
    cs_program_desc desc = {.path = path};
    for (int i = 0; defines && i < CS_MAX_DEFINES && defines[i].name; i++)
        desc.defines[i] = defines[i];
    cs_error err;
    if (!cs_program_create(ctx, &desc, prog, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
}

void test_buffer(cs_context *ctx, cs_buffer *buf, const char *name, VkDeviceSize size)
{
    cs_error err;
    if (!cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = size}, buf, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
}

char *test_setting_save(cs_context *ctx, const char *name)
{
    const char *value = cs_settings_get(&ctx->settings, name);
    CS_ASSERT(value, "%s is not a setting (host/gpu/settings.c)", name);
    return *value ? strdup(value) : NULL;
}

void test_setting(cs_context *ctx, const char *name, const char *value)
{
    CS_ASSERT(cs_settings_set(&ctx->settings, name, value), "%s is not a setting (host/gpu/settings.c)", name);
}

void test_setting_restore(cs_context *ctx, const char *name, char *saved)
{
    test_setting(ctx, name, saved);
    free(saved);
}

uint8_t *test_render(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_render_frame *frame,
                     const char *name)
{
    cs_recorder rec;
    cs_recorder_create(ctx, name, &rec);
    cs_recorder_begin(&rec);
    if (world)
        cs_world_record_frame(world, &rec);
    cs_barrier_compute_to_graphics(&rec);
    cs_render_record(r, &rec, frame);
    cs_render_record_readback(r, &rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    size_t bytes = (size_t)r->width * r->height * 4;
    uint8_t *px = malloc(bytes);
    CS_ASSERT(px, "out of memory for a %u x %u image", r->width, r->height);
    memcpy(px, cs_render_pixels(r), bytes);
    return px;
}

bool test_world_from_json(cs_context *ctx, const char *json, const char *path, cs_scene *scene, cs_world *world)
{
    cs_error err;
    bool ok = cs_scene_parse(json, strlen(json), path, scene, &err);
    CHECK(ok, "scene %s: %s", path, ok ? "" : err.msg);
    if (!ok)
        return false;
    ok = cs_world_create(ctx, scene, world, &err);
    CHECK(ok, "world of %s: %s", path, ok ? "" : err.msg);
    if (!ok)
        cs_scene_free(scene);
    return ok;
}

void test_world_free(cs_world *world, cs_scene *scene)
{
    cs_world_destroy(world);
    cs_scene_free(scene);
}

void test_world_run(cs_context *ctx, cs_world *world, uint32_t frames, const char *name)
{
    cs_recorder rec;
    cs_recorder_create(ctx, name, &rec);
    for (uint32_t f = 0; f < frames; f++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(world, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_recorder_destroy(&rec);
}

float *test_fluid_positions(cs_context *ctx, cs_world *world, uint32_t fluid, uint32_t *count)
{
    cs_particle_view v;
    world->fluids[fluid].ops->particles(world->fluids[fluid].state, &v);
    float *pos = malloc((size_t)v.count * 16 + 16);
    CS_ASSERT(pos, "out of host memory");
    cs_buffer_download(ctx, v.positions, pos, (VkDeviceSize)v.count * 16, 0);
    *count = v.count;
    return pos;
}
