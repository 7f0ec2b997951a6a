// context.c — instance, device selection, validation, one queue.
#define _GNU_SOURCE
#include "context.h"
#include "shader.h"
#include "program.h"

#include <ctype.h>
#include <strings.h>

// Sync validation sees hazards inside one command buffer by default; hazards
// across submits need this extra check, which is only reachable through the
// layer's settings (here: its environment variable).
static const char *k_sync_validation_env =
    "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT:"
    "VK_VALIDATION_CHECK_ENABLE_SYNCHRONIZATION_VALIDATION_QUEUE_SUBMIT";

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT type,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)type;
    cs_context *ctx = user;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        ctx->validation_errors++;
        snprintf(ctx->last_validation_message, sizeof ctx->last_validation_message, "%s",
                 data->pMessage ? data->pMessage : "(no message)");
        if (!ctx->validation_quiet)
            fprintf(stderr, "[validation error] %s\n", data->pMessage);
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        ctx->validation_warnings++;
        if (!ctx->validation_quiet)
            fprintf(stderr, "[validation warning] %s\n", data->pMessage);
    }
    return VK_FALSE;
}

static const char *device_type_name(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

static int device_type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

static bool has_device_extension(VkPhysicalDevice pd, const char *name)
{
    uint32_t count = 0;
    vkEnumerateDeviceExtensionProperties(pd, NULL, &count, NULL);
    VkExtensionProperties *exts = calloc(count ? count : 1, sizeof *exts);
    vkEnumerateDeviceExtensionProperties(pd, NULL, &count, exts);
    bool found = false;
    for (uint32_t i = 0; i < count && !found; i++)
        found = strcmp(exts[i].extensionName, name) == 0;
    free(exts);
    return found;
}

// The one queue family that does graphics and compute, or UINT32_MAX.
static uint32_t find_queue_family(VkPhysicalDevice pd)
{
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, NULL);
    VkQueueFamilyProperties families[32];
    count = CS_MIN(count, 32u);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families);
    for (uint32_t i = 0; i < count; i++) {
        VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        if ((families[i].queueFlags & need) == need && families[i].timestampValidBits > 0)
            return i;
    }
    return UINT32_MAX;
}

// What the device offers of the Vulkan 1.3 features cistern needs. A 1.2
// device (RenderDoc 1.24 reports 1.2 for every device it wraps) can still
// have them as extensions.
typedef struct device_caps {
    bool core13;
    bool synchronization2;
    bool dynamic_rendering;
    bool maintenance4;
} device_caps;

static device_caps query_caps(VkPhysicalDevice pd)
{
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pd, &p);
    device_caps caps = {.core13 = p.apiVersion >= VK_API_VERSION_1_3};
    if (caps.core13) {
        VkPhysicalDeviceVulkan13Features f13 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
        VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f13};
        vkGetPhysicalDeviceFeatures2(pd, &f2);
        caps.synchronization2 = f13.synchronization2;
        caps.dynamic_rendering = f13.dynamicRendering;
        caps.maintenance4 = f13.maintenance4;
        return caps;
    }
    VkPhysicalDeviceSynchronization2FeaturesKHR sync2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES_KHR};
    VkPhysicalDeviceDynamicRenderingFeaturesKHR dynamic = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES_KHR};
    void *chain = NULL;
    if (has_device_extension(pd, VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME)) {
        sync2.pNext = chain;
        chain = &sync2;
    }
    if (has_device_extension(pd, VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME)) {
        dynamic.pNext = chain;
        chain = &dynamic;
    }
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, chain};
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    caps.synchronization2 = sync2.synchronization2;
    caps.dynamic_rendering = dynamic.dynamicRendering;
    return caps;
}

// Why a device cannot run cistern, or NULL when it can.
static const char *device_unsuitable_reason(VkPhysicalDevice pd)
{
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pd, &p);
    if (p.apiVersion < VK_API_VERSION_1_2)
        return "needs Vulkan 1.2 or later";
    if (find_queue_family(pd) == UINT32_MAX)
        return "no queue family with graphics, compute and timestamps";
    if (!has_device_extension(pd, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME))
        return "no VK_KHR_push_descriptor";
    device_caps caps = query_caps(pd);
    if (!caps.synchronization2)
        return "no synchronization2";
    if (!caps.dynamic_rendering)
        return "no dynamic rendering";
    return NULL;
}

static bool load_vulkan(cs_error *err)
{
    static bool loaded = false;
    if (loaded)
        return true;
    if (volkInitialize() != VK_SUCCESS)
        return cs_fail(err, "cannot load the Vulkan loader (libvulkan.so.1). Install it: "
                            "apt-get install libvulkan1 mesa-vulkan-drivers");
    loaded = true;
    return true;
}

static bool create_instance(const cs_context_desc *desc, cs_context *ctx, cs_error *err)
{
    const char *extensions[16];
    uint32_t ext_count = 0;
    extensions[ext_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    for (uint32_t i = 0; i < desc->instance_extension_count && ext_count < 16; i++)
        extensions[ext_count++] = desc->instance_extensions[i];

    const char *layers[1] = {"VK_LAYER_KHRONOS_validation"};
    uint32_t layer_count = 0;
    if (desc->validation) {
        uint32_t count = 0;
        vkEnumerateInstanceLayerProperties(&count, NULL);
        VkLayerProperties *props = calloc(count ? count : 1, sizeof *props);
        vkEnumerateInstanceLayerProperties(&count, props);
        bool found = false;
        for (uint32_t i = 0; i < count; i++)
            found |= strcmp(props[i].layerName, layers[0]) == 0;
        free(props);
        if (!found)
            return cs_fail(err, "validation was asked for but VK_LAYER_KHRONOS_validation is not "
                                "installed: apt-get install vulkan-validationlayers");
        layer_count = 1;
        setenv("VK_LAYER_ENABLES", k_sync_validation_env, 0);
    }

    VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT,
    };
    VkValidationFeaturesEXT features = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .enabledValidationFeatureCount = CS_ARRAY_COUNT(enables),
        .pEnabledValidationFeatures = enables,
    };
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "cistern",
        .pEngineName = "cistern",
        .apiVersion = VK_API_VERSION_1_3,
    };
    VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = desc->validation ? &features : NULL,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = debug_callback,
        .pUserData = ctx,
    };
    VkInstanceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = &messenger_info,
        .pApplicationInfo = &app,
        .enabledLayerCount = layer_count,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = ext_count,
        .ppEnabledExtensionNames = extensions,
    };
    VkResult r = vkCreateInstance(&info, NULL, &ctx->instance);
    if (r != VK_SUCCESS)
        return cs_fail(err, "vkCreateInstance failed (%s). Is a Vulkan driver installed? "
                            "apt-get install mesa-vulkan-drivers", cs_vk_result_name(r));
    volkLoadInstance(ctx->instance);
    // Performance warnings are noise for a compute lab; keep them out of the
    // messenger that tests count.
    messenger_info.pNext = NULL;
    messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    VK_CHECK(vkCreateDebugUtilsMessengerEXT(ctx->instance, &messenger_info, NULL, &ctx->messenger));
    return true;
}

static bool enumerate_devices(VkInstance instance, VkPhysicalDevice **out, uint32_t *count)
{
    *count = 0;
    vkEnumeratePhysicalDevices(instance, count, NULL);
    *out = calloc(*count ? *count : 1, sizeof **out);
    vkEnumeratePhysicalDevices(instance, count, *out);
    return *count > 0;
}

// The device used when none is asked for: the first usable one of the best
// type (discrete GPU first); -1 when none is usable.
static int default_device_index(VkPhysicalDevice *devices, uint32_t count)
{
    int best_rank = -1, chosen = -1;
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devices[i], &p);
        int rank = device_type_rank(p.deviceType);
        if (!device_unsuitable_reason(devices[i]) && rank > best_rank) {
            best_rank = rank;
            chosen = (int)i;
        }
    }
    return chosen;
}

static bool pick_device(const cs_context_desc *desc, cs_context *ctx, cs_error *err)
{
    VkPhysicalDevice *devices;
    uint32_t count;
    if (!enumerate_devices(ctx->instance, &devices, &count)) {
        free(devices);
        return cs_fail(err, "no Vulkan devices found. Install a driver "
                            "(apt-get install mesa-vulkan-drivers gives lavapipe)");
    }
    const char *sel = desc->device;
    int chosen = -1;
    if (sel && *sel) {
        char *end;
        long index = strtol(sel, &end, 10);
        bool numeric = *end == 0;
        for (uint32_t i = 0; i < count && chosen < 0; i++) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(devices[i], &p);
            if (numeric ? (long)i == index : strcasestr(p.deviceName, sel) != NULL)
                chosen = (int)i;
        }
        if (chosen < 0) {
            free(devices);
            return cs_fail(err, "--device %s matches no device; `cistern devices` lists them", sel);
        }
        const char *why = device_unsuitable_reason(devices[chosen]);
        if (why) {
            free(devices);
            return cs_fail(err, "--device %s: that device cannot run cistern: %s", sel, why);
        }
    } else {
        chosen = default_device_index(devices, count);
        if (chosen < 0) {
            free(devices);
            return cs_fail(err, "no device supports Vulkan 1.2 with synchronization2, dynamic "
                                "rendering and push descriptors; `cistern devices` says why for each");
        }
    }
    ctx->physical = devices[chosen];
    free(devices);
    return true;
}

static void create_device(cs_context *ctx)
{
    VkPhysicalDevice pd = ctx->physical;
    ctx->driver = (VkPhysicalDeviceDriverProperties){VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties subgroup = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, &ctx->driver};
    VkPhysicalDeviceProperties2 props2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &subgroup};
    vkGetPhysicalDeviceProperties2(pd, &props2);
    ctx->props = props2.properties;
    ctx->subgroup_size = subgroup.subgroupSize;
    vkGetPhysicalDeviceMemoryProperties(pd, &ctx->memory_props);
    ctx->queue_family = find_queue_family(pd);

    device_caps caps = query_caps(pd);
    VkPhysicalDeviceVulkan12Features have12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 have = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &have12};
    vkGetPhysicalDeviceFeatures2(pd, &have);
    ctx->has_shader_int64 = have.features.shaderInt64;
    ctx->has_shader_float64 = have.features.shaderFloat64;

    // Only what cistern uses, and only where the device has it.
    VkPhysicalDeviceVulkan13Features want13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
        .synchronization2 = VK_TRUE,
        .maintenance4 = caps.maintenance4,
        // The renderer draws with dynamic rendering (no render pass objects).
        .dynamicRendering = VK_TRUE,
    };
    // The same two features as extensions, on a Vulkan 1.2 device.
    VkPhysicalDeviceSynchronization2FeaturesKHR want_sync2 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES_KHR,
        .synchronization2 = VK_TRUE,
    };
    VkPhysicalDeviceDynamicRenderingFeaturesKHR want_dynamic = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES_KHR,
        .pNext = &want_sync2,
        .dynamicRendering = VK_TRUE,
    };
    VkPhysicalDeviceVulkan12Features want12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = caps.core13 ? (void *)&want13 : (void *)&want_dynamic,
        .scalarBlockLayout = have12.scalarBlockLayout,
        .hostQueryReset = have12.hostQueryReset,
        .shaderInt8 = have12.shaderInt8,
        .storageBuffer8BitAccess = have12.storageBuffer8BitAccess,
    };
    VkPhysicalDeviceFeatures2 want = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &want12,
        .features = {
            .shaderInt64 = have.features.shaderInt64,
            .shaderFloat64 = have.features.shaderFloat64,
            .largePoints = have.features.largePoints,
            .fillModeNonSolid = have.features.fillModeNonSolid,
            .wideLines = have.features.wideLines,
        },
    };
    const char *extensions[8];
    uint32_t ext_count = 0;
    extensions[ext_count++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
    if (!caps.core13) {
        extensions[ext_count++] = VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME;
        extensions[ext_count++] = VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME;
    }
    if (ctx->wants_window && has_device_extension(pd, VK_KHR_SWAPCHAIN_EXTENSION_NAME))
        extensions[ext_count++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = ctx->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    VkDeviceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &want,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &queue_info,
        .enabledExtensionCount = ext_count,
        .ppEnabledExtensionNames = extensions,
    };
    VK_CHECK(vkCreateDevice(pd, &info, NULL, &ctx->device));
    volkLoadDevice(ctx->device);
    if (!caps.core13) {
        // Same functions, extension names: point the core names at them so
        // the rest of cistern calls one spelling.
        vkCmdPipelineBarrier2 = vkCmdPipelineBarrier2KHR;
        vkCmdWriteTimestamp2 = vkCmdWriteTimestamp2KHR;
        vkQueueSubmit2 = vkQueueSubmit2KHR;
        vkCmdBeginRendering = vkCmdBeginRenderingKHR;
        vkCmdEndRendering = vkCmdEndRenderingKHR;
    }
    vkGetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);

    VkCommandPoolCreateInfo pool_info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
        .queueFamilyIndex = ctx->queue_family,
    };
    VK_CHECK(vkCreateCommandPool(ctx->device, &pool_info, NULL, &ctx->command_pool));
    VkCommandBufferAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = ctx->command_pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 1,
    };
    VK_CHECK(vkAllocateCommandBuffers(ctx->device, &alloc, &ctx->one_shot_cmd));
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(ctx->device, &fence_info, NULL, &ctx->one_shot_fence));
    cs_name_object(ctx, VK_OBJECT_TYPE_QUEUE, (uint64_t)ctx->queue, "cistern queue");
    cs_name_object(ctx, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)ctx->one_shot_cmd, "one-shot commands");
}

bool cs_context_create(const cs_context_desc *desc, cs_context *ctx, cs_error *err)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->validation = desc->validation;
    ctx->wants_window = desc->instance_extension_count > 0;
    if (desc->settings)
        ctx->settings = *desc->settings;
    cs_shader_set_dir(ctx->settings.shader_dir);
    cs_shader_set_cache(ctx->settings.shader_cache, ctx->settings.shader_cache_default);
    const char *checked = ctx->settings.checked_shaders;
    ctx->checked_shaders = *checked && strcmp(checked, "0") != 0;
    if (!load_vulkan(err) || !create_instance(desc, ctx, err))
        return false;
    if (!pick_device(desc, ctx, err)) {
        cs_context_destroy(ctx);
        return false;
    }
    create_device(ctx);
    if (desc->verbose) {
        char buf[512];
        fprintf(stderr, "cistern: device %s%s%s\n", cs_context_device_string(ctx, buf, sizeof buf),
                desc->validation ? ", validation on" : "", ctx->checked_shaders ? ", checked shaders" : "");
    }
    return true;
}

void cs_context_destroy(cs_context *ctx)
{
    if (ctx->device) {
        vkDeviceWaitIdle(ctx->device);
        cs_programs_shutdown(ctx);
        vkDestroyFence(ctx->device, ctx->one_shot_fence, NULL);
        vkDestroyCommandPool(ctx->device, ctx->command_pool, NULL);
        vkDestroyDevice(ctx->device, NULL);
    }
    if (ctx->messenger)
        vkDestroyDebugUtilsMessengerEXT(ctx->instance, ctx->messenger, NULL);
    if (ctx->instance)
        vkDestroyInstance(ctx->instance, NULL);
    uint32_t errors = ctx->validation_errors, warnings = ctx->validation_warnings;
    uint32_t violations = ctx->shader_check_violations;
    memset(ctx, 0, sizeof *ctx);
    ctx->validation_errors = errors;
    ctx->validation_warnings = warnings;
    ctx->shader_check_violations = violations;
}

const char *cs_context_device_string(const cs_context *ctx, char *buf, size_t size)
{
    snprintf(buf, size, "%s (%s %s, Vulkan %u.%u.%u)", ctx->props.deviceName, ctx->driver.driverName,
             ctx->driver.driverInfo, VK_API_VERSION_MAJOR(ctx->props.apiVersion),
             VK_API_VERSION_MINOR(ctx->props.apiVersion), VK_API_VERSION_PATCH(ctx->props.apiVersion));
    return buf;
}

bool cs_print_devices(FILE *out, cs_error *err)
{
    if (!load_vulkan(err))
        return false;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance instance;
    VkResult r = vkCreateInstance(&info, NULL, &instance);
    if (r != VK_SUCCESS)
        return cs_fail(err, "vkCreateInstance failed (%s); install a Vulkan driver "
                            "(apt-get install mesa-vulkan-drivers)", cs_vk_result_name(r));
    volkLoadInstanceOnly(instance);
    VkPhysicalDevice *devices;
    uint32_t count;
    enumerate_devices(instance, &devices, &count);
    if (count == 0)
        fprintf(out, "no Vulkan devices found (apt-get install mesa-vulkan-drivers gives lavapipe)\n");
    int default_index = default_device_index(devices, count);
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceMaintenance3Properties m3 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
        VkPhysicalDeviceDriverProperties drv = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, &m3};
        VkPhysicalDeviceSubgroupProperties sg = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, &drv};
        VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &sg};
        vkGetPhysicalDeviceProperties2(devices[i], &p2);
        VkPhysicalDeviceProperties *p = &p2.properties;
        VkPhysicalDeviceMemoryProperties mem;
        vkGetPhysicalDeviceMemoryProperties(devices[i], &mem);
        uint64_t device_local = 0;
        for (uint32_t h = 0; h < mem.memoryHeapCount; h++)
            if (mem.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
                device_local += mem.memoryHeaps[h].size;
        const char *why = device_unsuitable_reason(devices[i]);
        char b1[32], b2[32], b3[32];
        fprintf(out, "[%u] %s\n", i, p->deviceName);
        fprintf(out, "    type %s, Vulkan %u.%u.%u, driver %s %s\n", device_type_name(p->deviceType),
                VK_API_VERSION_MAJOR(p->apiVersion), VK_API_VERSION_MINOR(p->apiVersion),
                VK_API_VERSION_PATCH(p->apiVersion), drv.driverName, drv.driverInfo);
        fprintf(out, "    device-local memory %s, maxStorageBufferRange %s, "
                     "maxMemoryAllocationSize %s\n",
                cs_format_bytes(device_local, b1, sizeof b1),
                cs_format_bytes(p->limits.maxStorageBufferRange, b2, sizeof b2),
                cs_format_bytes(m3.maxMemoryAllocationSize, b3, sizeof b3));
        fprintf(out, "    compute: shared memory %u B, max workgroup size %u, max groups %u x %u x %u, "
                     "subgroup %u\n",
                p->limits.maxComputeSharedMemorySize, p->limits.maxComputeWorkGroupInvocations,
                p->limits.maxComputeWorkGroupCount[0], p->limits.maxComputeWorkGroupCount[1],
                p->limits.maxComputeWorkGroupCount[2], sg.subgroupSize);
        fprintf(out, "    timestamps: %s, period %.3g ns\n",
                p->limits.timestampComputeAndGraphics ? "yes" : "no", p->limits.timestampPeriod);
        // Exact figures, for scripts (tests/cli.sh derives the particle
        // count this device must refuse from them).
        uint64_t largest_heap = 0;
        for (uint32_t h = 0; h < mem.memoryHeapCount; h++)
            largest_heap = CS_MAX(largest_heap, mem.memoryHeaps[h].size);
        fprintf(out, "    bytes: maxStorageBufferRange %u, largest heap %llu\n", p->limits.maxStorageBufferRange,
                (unsigned long long)largest_heap);
        fprintf(out, "    %s%s\n", why ? why : "usable by cistern",
                (int)i == default_index ? "; the default device (when no --device is given)" : "");
    }
    free(devices);
    vkDestroyInstance(instance, NULL);
    return true;
}

VkCommandBuffer cs_one_shot_begin(cs_context *ctx)
{
    VK_CHECK(vkResetCommandBuffer(ctx->one_shot_cmd, 0));
    VkCommandBufferBeginInfo begin = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
    };
    VK_CHECK(vkBeginCommandBuffer(ctx->one_shot_cmd, &begin));
    return ctx->one_shot_cmd;
}

void cs_barrier_end_of_submit(VkCommandBuffer cmd)
{
    VkMemoryBarrier2 flush = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
        .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_2_HOST_BIT,
        .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT |
                         VK_ACCESS_2_HOST_READ_BIT,
    };
    vkCmdPipelineBarrier2(cmd, &(VkDependencyInfo){.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                                                   .memoryBarrierCount = 1, .pMemoryBarriers = &flush});
}

void cs_one_shot_end(cs_context *ctx)
{
    cs_barrier_end_of_submit(ctx->one_shot_cmd);
    VK_CHECK(vkEndCommandBuffer(ctx->one_shot_cmd));
    VkSubmitInfo submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
        .commandBufferCount = 1,
        .pCommandBuffers = &ctx->one_shot_cmd,
    };
    VK_CHECK(vkQueueSubmit(ctx->queue, 1, &submit, ctx->one_shot_fence));
    ctx->queue_submits++;
    VK_CHECK(vkWaitForFences(ctx->device, 1, &ctx->one_shot_fence, VK_TRUE, UINT64_MAX));
    ctx->fence_waits++;
    VK_CHECK(vkResetFences(ctx->device, 1, &ctx->one_shot_fence));
}

void cs_name_object(cs_context *ctx, VkObjectType type, uint64_t handle, const char *name)
{
    if (!vkSetDebugUtilsObjectNameEXT || !name)
        return;
    VkDebugUtilsObjectNameInfoEXT info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
        .objectType = type,
        .objectHandle = handle,
        .pObjectName = name,
    };
    vkSetDebugUtilsObjectNameEXT(ctx->device, &info);
}

uint32_t cs_find_memory_type(const cs_context *ctx, uint32_t type_bits, VkMemoryPropertyFlags required)
{
    for (uint32_t i = 0; i < ctx->memory_props.memoryTypeCount; i++)
        if ((type_bits & (1u << i)) &&
            (ctx->memory_props.memoryTypes[i].propertyFlags & required) == required)
            return i;
    return UINT32_MAX;
}
