// context.h — the Vulkan instance, the chosen device and its one queue.
//
// Owns: instance, debug messenger (validation error counting), physical
// device choice, logical device, the single graphics+compute queue, a command
// pool, and one-shot command submission for uploads and readbacks.
#pragma once

#include "common.h"
#include "settings.h"

typedef struct cs_context_desc {
    // Enables VK_LAYER_KHRONOS_validation with synchronization validation,
    // including hazards across submits. On in every test.
    bool validation;
    // NULL/"" picks the best device (discrete > integrated > virtual > CPU);
    // "N" picks index N of `cistern devices`; anything else is a
    // case-insensitive substring of the device name.
    const char *device;
    // Instance extensions the window system needs (NULL when headless).
    const char *const *instance_extensions;
    uint32_t instance_extension_count;
    // Print the chosen device on stderr.
    bool verbose;
    // The CISTERN_* switches (settings.h), read once by the caller; NULL:
    // none set. Copied into the context.
    const cs_settings *settings;
} cs_context_desc;

typedef struct cs_context {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties memory_props;
    VkPhysicalDeviceDriverProperties driver;
    uint32_t subgroup_size;
    bool has_shader_int64;
    bool has_shader_float64;
    uint32_t queue_family;
    VkDevice device;
    VkQueue queue;
    VkCommandPool command_pool;

    // One-shot submission (uploads, readbacks, fills).
    VkCommandBuffer one_shot_cmd;
    VkFence one_shot_fence;

    bool validation;
    cs_settings settings;     // the CISTERN_* switches (settings.h): what the code obeying one reads
    bool wants_window;        // swapchain enabled (window system extensions given)
    // Incremented by the debug messenger for every validation error.
    uint32_t validation_errors;
    uint32_t validation_warnings;
    // Tests that plant an error set this so the expected message is counted
    // but not printed as a failure.
    bool validation_quiet;
    char last_validation_message[1024];

    uint64_t bytes_allocated; // device memory currently held by cs_buffers
    // What a buffer too large for the device advises while it is set (NULL:
    // CS_BUFFER_ADVICE): set around the buffers an option or a scene key
    // sizes, e.g. "raise --patch-size (fewer patches)", then set back.
    const char *size_advice;

    // The 8-bit radix sort's self-test (pipelines/core/prim.c), run once per
    // context when cs_sort_create picks that path: the keys per block it ran
    // with (0: not run yet) and whether it passed.
    uint32_t sort8_self_test_block;
    bool sort8_self_test_passed;

    // Every vkQueueSubmit cistern makes (recorders, one-shots, the window's
    // present signal) and every host wait on a fence, counted so a run can
    // report submits and waits per frame (docs/benchmarks.md, frames in flight).
    uint64_t queue_submits;
    uint64_t fence_waits;

    // Checked shaders (shader_check.h): CISTERN_CHECKED_SHADERS=1 when the
    // context was created. Every compute program is then built with its
    // storage-buffer indices checked, and every out-of-bounds access found
    // after a submit is printed and counted here; tests fail on any.
    bool checked_shaders;
    uint32_t shader_check_violations;
    char last_shader_check_message[512];

    // The program registry (program.h): every pipeline built on this
    // device, compute and graphics, indexed by cs_program_id. Entries are
    // allocated one by one so they never move (they point into themselves).
    struct cs_program **programs;
    uint32_t program_slots, program_capacity;
} cs_context;

// Creates the context. Returns false with a message (no Vulkan, no suitable
// device, device selector matched nothing) instead of aborting.
bool cs_context_create(const cs_context_desc *desc, cs_context *ctx, cs_error *err);
void cs_context_destroy(cs_context *ctx);

// Prints every device with its driver and key limits (`cistern devices`).
bool cs_print_devices(FILE *out, cs_error *err);

// "NVIDIA H100 (NVIDIA 550.54.15)" — device and driver, for benchmark records.
const char *cs_context_device_string(const cs_context *ctx, char *buf, size_t size);

// Records into ctx->one_shot_cmd; end submits and waits.
VkCommandBuffer cs_one_shot_begin(cs_context *ctx);
void cs_one_shot_end(cs_context *ctx);

// Every command buffer cistern submits ends with this barrier: all writes
// made visible to any later command (in later submits) and to the host. The
// next submit can then start without guessing what the previous one wrote.
void cs_barrier_end_of_submit(VkCommandBuffer cmd);

// Names a Vulkan object for RenderDoc and validation messages.
void cs_name_object(cs_context *ctx, VkObjectType type, uint64_t handle, const char *name);

// Finds a memory type with all `required` flags among `type_bits`.
uint32_t cs_find_memory_type(const cs_context *ctx, uint32_t type_bits, VkMemoryPropertyFlags required);
