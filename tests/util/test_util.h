// test_util.h — the small harness every GPU test uses.
//
// Each test is one executable: it creates a context with validation and
// synchronization validation on (CISTERN_TEST_DEVICE picks the device, else
// the best one), checks with CHECK(), and returns test_finish(), which fails
// the test if any check failed or any validation error was reported.
// Random inputs are fresh each run; the seed is printed, and
// CISTERN_TEST_SEED=N replays a failure.
#pragma once

#include "buffer.h"
#include "context.h"
#include "recorder.h"
#include "render.h"
#include "shader.h"
#include "world.h"

#include <math.h>

extern int test_failures;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            test_failures++;                                                  \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
        }                                                                     \
    } while (0)

// Creates the validated context or exits with a clear message.
void test_context(cs_context *ctx);
// Destroys the context; returns the process exit code (0 only if all checks
// passed, the validation layer reported no error and, with checked shaders,
// no shader indexed a storage buffer out of bounds).
int test_finish(cs_context *ctx);

// Compiles a compute program or fails the test loudly.
void test_program(cs_context *ctx, cs_program_id *prog, const char *path, const cs_define *defines);
// Creates a device-local buffer or fails the test loudly.
void test_buffer(cs_context *ctx, cs_buffer *buf, const char *name, VkDeviceSize size);

// Deterministic random numbers (splitmix64) seeded once per process.
uint64_t test_seed(void);
uint64_t test_rand_u64(void);
uint32_t test_rand_u32(void);
double test_rand_unit(void); // [0, 1)
// A fixed regression case: the stream of `seed` (as CISTERN_TEST_SEED=seed
// would start it) from here on; returns the state to hand to
// test_rand_resume() afterwards, so the rest of the test still replays from
// the process's own seed.
uint64_t test_rand_begin_fixed(uint64_t seed);
void test_rand_resume(uint64_t state);

// True when the bits are a NaN or an infinity.
bool test_not_finite(float f);

// A CISTERN_* switch of the context's settings (settings.h; test_context
// reads them from the environment) changed for the length of a test case:
// test_setting_save returns its value (a copy, or NULL when unset),
// test_setting sets it (NULL: unset), test_setting_restore sets it back
// and frees the copy.
char *test_setting_save(cs_context *ctx, const char *name);
void test_setting(cs_context *ctx, const char *name, const char *value);
void test_setting_restore(cs_context *ctx, const char *name, char *saved);

// Render and read back, the way every rendering test draws: one recording
// named `name` that records `world`'s frame first when given (NULL: none),
// the compute-to-graphics barrier, `frame` drawn into the renderer's
// offscreen image and its readback; submitted and waited for. Returns a
// copy of the RGBA8 pixels, rows top first (r->width x r->height; free it).
uint8_t *test_render(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_render_frame *frame,
                     const char *name);

// World from JSON: parses `json` (called `path` in messages) into *scene
// and creates *world from it. A failure is a failed CHECK with the parser's
// or the world's message (the scene is freed again); true when both are
// made. test_world_free destroys the world, then frees the scene.
bool test_world_from_json(cs_context *ctx, const char *json, const char *path, cs_scene *scene, cs_world *world);
void test_world_free(cs_world *world, cs_scene *scene);

// Runs `frames` frames of `world`, one recording (named `name`) submitted
// and waited for each.
void test_world_run(cs_context *ctx, cs_world *world, uint32_t frames, const char *name);
// Fluid `fluid`'s particle centres read back, a vec4 each (*count of
// them; free the copy).
float *test_fluid_positions(cs_context *ctx, cs_world *world, uint32_t fluid, uint32_t *count);
