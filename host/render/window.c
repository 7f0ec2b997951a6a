// window.c — see window.h.
#include "window.h"

#include <dlfcn.h>

// ---------------------------------------------------------------------------
// GLFW 3.3 through dlopen: the few types, constants and functions used.

typedef struct GLFWwindow GLFWwindow;
typedef void (*glfw_error_fn)(int code, const char *description);
typedef void (*glfw_key_fn)(GLFWwindow *w, int key, int scancode, int action, int mods);
typedef void (*glfw_button_fn)(GLFWwindow *w, int button, int action, int mods);
typedef void (*glfw_pos_fn)(GLFWwindow *w, double x, double y);
typedef void (*glfw_size_fn)(GLFWwindow *w, int width, int height);
typedef void (*glfw_char_fn)(GLFWwindow *w, unsigned int codepoint);
typedef void (*glfw_drop_fn)(GLFWwindow *w, int count, const char **paths);

enum {
    GLFW_FALSE = 0, GLFW_TRUE = 1,
    GLFW_RELEASE = 0, GLFW_PRESS = 1, GLFW_REPEAT = 2,
    GLFW_FOCUSED = 0x00020001, GLFW_RESIZABLE = 0x00020003, GLFW_VISIBLE = 0x00020004,
    GLFW_CLIENT_API = 0x00022001, GLFW_NO_API = 0,
    GLFW_KEY_SPACE = 32, GLFW_KEY_A = 65, GLFW_KEY_B = 66, GLFW_KEY_C = 67, GLFW_KEY_D = 68, GLFW_KEY_E = 69, GLFW_KEY_G = 71, GLFW_KEY_L = 76, GLFW_KEY_N = 78, GLFW_KEY_O = 79, GLFW_KEY_P = 80,
    GLFW_KEY_Q = 81, GLFW_KEY_R = 82, GLFW_KEY_S = 83, GLFW_KEY_V = 86, GLFW_KEY_W = 87, GLFW_KEY_ESCAPE = 256,
    GLFW_KEY_TAB = 258, GLFW_KEY_F9 = 298, GLFW_KEY_F12 = 301, GLFW_KEY_LEFT_SHIFT = 340, GLFW_KEY_RIGHT_SHIFT = 344,
    GLFW_KEY_LEFT_CONTROL = 341, GLFW_KEY_LEFT_ALT = 342, GLFW_KEY_RIGHT_CONTROL = 345, GLFW_KEY_RIGHT_ALT = 346,
    GLFW_MOUSE_BUTTON_LEFT = 0, GLFW_MOUSE_BUTTON_RIGHT = 1, GLFW_MOUSE_BUTTON_MIDDLE = 2,
    GLFW_MOD_CONTROL = 0x0002,
};

static struct glfw_api {
    int (*Init)(void);
    void (*Terminate)(void);
    glfw_error_fn (*SetErrorCallback)(glfw_error_fn);
    void (*WindowHint)(int hint, int value);
    GLFWwindow *(*CreateWindow)(int width, int height, const char *title, void *monitor, GLFWwindow *share);
    void (*DestroyWindow)(GLFWwindow *w);
    int (*WindowShouldClose)(GLFWwindow *w);
    void (*SetWindowShouldClose)(GLFWwindow *w, int value);
    void (*PollEvents)(void);
    void (*WaitEventsTimeout)(double seconds);
    void (*GetFramebufferSize)(GLFWwindow *w, int *width, int *height);
    void (*GetWindowSize)(GLFWwindow *w, int *width, int *height);
    void (*SetWindowSize)(GLFWwindow *w, int width, int height);
    void (*SetWindowTitle)(GLFWwindow *w, const char *title);
    int (*VulkanSupported)(void);
    const char **(*GetRequiredInstanceExtensions)(uint32_t *count);
    VkResult (*CreateWindowSurface)(VkInstance instance, GLFWwindow *w, const VkAllocationCallbacks *alloc,
                                    VkSurfaceKHR *surface);
    void (*SetWindowUserPointer)(GLFWwindow *w, void *user);
    void *(*GetWindowUserPointer)(GLFWwindow *w);
    int (*GetKey)(GLFWwindow *w, int key);
    glfw_key_fn (*SetKeyCallback)(GLFWwindow *w, glfw_key_fn fn);
    glfw_button_fn (*SetMouseButtonCallback)(GLFWwindow *w, glfw_button_fn fn);
    glfw_pos_fn (*SetCursorPosCallback)(GLFWwindow *w, glfw_pos_fn fn);
    glfw_pos_fn (*SetScrollCallback)(GLFWwindow *w, glfw_pos_fn fn);
    glfw_size_fn (*SetFramebufferSizeCallback)(GLFWwindow *w, glfw_size_fn fn);
    glfw_char_fn (*SetCharCallback)(GLFWwindow *w, glfw_char_fn fn);
    glfw_drop_fn (*SetDropCallback)(GLFWwindow *w, glfw_drop_fn fn);
} glfw;

#define GLFW_FN(name) {"glfw" #name, (void **)&glfw.name}
static const struct {
    const char *symbol;
    void **slot;
} k_glfw_functions[] = {
    GLFW_FN(Init), GLFW_FN(Terminate), GLFW_FN(SetErrorCallback), GLFW_FN(WindowHint), GLFW_FN(CreateWindow),
    GLFW_FN(DestroyWindow), GLFW_FN(WindowShouldClose), GLFW_FN(SetWindowShouldClose), GLFW_FN(PollEvents),
    GLFW_FN(WaitEventsTimeout), GLFW_FN(GetFramebufferSize), GLFW_FN(GetWindowSize), GLFW_FN(SetWindowSize), GLFW_FN(SetWindowTitle),
    GLFW_FN(VulkanSupported), GLFW_FN(GetRequiredInstanceExtensions), GLFW_FN(CreateWindowSurface),
    GLFW_FN(SetWindowUserPointer), GLFW_FN(GetWindowUserPointer), GLFW_FN(GetKey), GLFW_FN(SetKeyCallback),
    GLFW_FN(SetMouseButtonCallback), GLFW_FN(SetCursorPosCallback), GLFW_FN(SetScrollCallback),
    GLFW_FN(SetFramebufferSizeCallback), GLFW_FN(SetCharCallback), GLFW_FN(SetDropCallback),
};
#undef GLFW_FN

static char g_glfw_error[512];

static void on_glfw_error(int code, const char *description)
{
    snprintf(g_glfw_error, sizeof g_glfw_error, "%s (GLFW error 0x%x)", description ? description : "?", code);
}

static bool load_glfw(cs_window *win, cs_error *err)
{
    const char *names[] = {"libglfw.so.3", "libglfw.so"};
    for (size_t i = 0; i < CS_ARRAY_COUNT(names) && !win->lib; i++)
        win->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!win->lib)
        return cs_fail(err, "cannot open a window: libglfw.so.3 is not installed (apt-get install libglfw3), "
                            "or run headless (--headless)");
    for (size_t i = 0; i < CS_ARRAY_COUNT(k_glfw_functions); i++) {
        void *fn = dlsym(win->lib, k_glfw_functions[i].symbol);
        if (!fn) {
            dlclose(win->lib);
            win->lib = NULL;
            return cs_fail(err, "cannot open a window: the installed GLFW lacks %s (GLFW 3.3 or newer is needed)",
                           k_glfw_functions[i].symbol);
        }
        *k_glfw_functions[i].slot = fn;
    }
    return true;
}

// ---------------------------------------------------------------------------
// Input callbacks: they only accumulate into win->pending.

static cs_window *window_of(GLFWwindow *w) { return glfw.GetWindowUserPointer(w); }

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    cs_window *win = window_of(w);
    cs_window_events *ev = &win->pending;
    // Every key's state for the panel's text entry (Enter, Backspace,
    // arrows, Ctrl+A, ...): held, and pressed since the panel last read it.
    if (key >= 0 && key < CS_WINDOW_KEYS) {
        win->keys_down[key] = action != GLFW_RELEASE;
        win->keys_pressed[key] |= action != GLFW_RELEASE;
    }
    if (action == GLFW_PRESS || action == GLFW_REPEAT) {
        if (key == GLFW_KEY_N)
            ev->steps++;
    }
    if (action != GLFW_PRESS)
        return;
    switch (key) {
    case GLFW_KEY_ESCAPE: ev->quit = ev->escape = true; break;
    case GLFW_KEY_SPACE: ev->toggle_pause = !ev->toggle_pause; break;
    case GLFW_KEY_R: ev->restart = true; break;
    case GLFW_KEY_C: ev->cycle_color_mode = true; break;
    case GLFW_KEY_V: ev->cycle_draw_mode = true; break;
    case GLFW_KEY_G: ev->cycle_albedo = true; break;
    case GLFW_KEY_L: ev->toggle_probes = true; break;
    case GLFW_KEY_TAB: ev->next_room = true; break;
    case GLFW_KEY_B: ev->toggle_level_light = true; break;
    case GLFW_KEY_P: ev->toggle_overlay = true; break;
    case GLFW_KEY_F12: ev->capture = true; break;
    case GLFW_KEY_F9: ev->toggle_record = !ev->toggle_record; break;
    default: ev->flip_features ^= cs_render_features_of_key(key); break; // a feature's own key (feature.h)
    }
}

static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    cs_window *win = window_of(w);
    if (button >= 0 && button < 3) {
        win->buttons[button] = action == GLFW_PRESS;
        win->pressed[button] |= action == GLFW_PRESS;
    }
    // Ctrl + left pulls the fluid, Ctrl + right pushes it (scene "pointer");
    // the camera stays put while it does. Letting go of that button (Ctrl
    // or not) lets go of the fluid.
    int mode = button == GLFW_MOUSE_BUTTON_LEFT ? 1 : button == GLFW_MOUSE_BUTTON_RIGHT ? -1 : 0;
    if (mode && action == GLFW_PRESS && (mods & GLFW_MOD_CONTROL))
        win->pointer_mode = mode;
    else if (mode && action == GLFW_RELEASE && win->pointer_mode == mode)
        win->pointer_mode = 0;
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
    cs_window *win = window_of(w);
    if (win->have_cursor) {
        float dx = (float)(x - win->cursor[0]), dy = (float)(y - win->cursor[1]);
        cs_camera_input *in = &win->pending.input;
        if (win->pointer_mode != 0)
            dx = dy = 0.0f; // the drag moves the pointer, not the camera
        if (win->buttons[GLFW_MOUSE_BUTTON_LEFT])
            in->look[0] += dx, in->look[1] += dy;
        if (win->buttons[GLFW_MOUSE_BUTTON_RIGHT])
            in->orbit[0] += dx, in->orbit[1] += dy;
        if (win->buttons[GLFW_MOUSE_BUTTON_MIDDLE])
            in->pan[0] += dx, in->pan[1] += dy;
    }
    win->cursor[0] = x;
    win->cursor[1] = y;
    win->have_cursor = true;
}

static void on_scroll(GLFWwindow *w, double x, double y)
{
    (void)x;
    window_of(w)->pending.input.scroll += (float)y;
}

// Text typed (a Unicode code point per character), for the panel's entry.
static void on_char(GLFWwindow *w, unsigned int codepoint)
{
    cs_window *win = window_of(w);
    if (win->typed_count < CS_ARRAY_COUNT(win->typed))
        win->typed[win->typed_count++] = codepoint;
}

static void on_drop(GLFWwindow *w, int count, const char **paths)
{
    cs_window_drop(window_of(w), count, paths);
}

void cs_window_drop(cs_window *win, int count, const char *const *paths)
{
    // One scene at a time: the first path; a longer one than the field is
    // refused rather than cut (a cut path would name another file).
    if (count < 1 || !paths[0])
        return;
    if (strlen(paths[0]) >= sizeof win->pending.dropped) {
        fprintf(stderr, "cistern: the dropped file's path is longer than %zu bytes: not opened\n",
                sizeof win->pending.dropped - 1);
        return;
    }
    snprintf(win->pending.dropped, sizeof win->pending.dropped, "%s", paths[0]);
}

static void on_framebuffer_size(GLFWwindow *w, int width, int height)
{
    (void)width;
    (void)height;
    cs_window *win = window_of(w);
    win->pending.resized = true;
    win->needs_rebuild = true;
}

// ---------------------------------------------------------------------------
// Window

bool cs_window_create(const cs_window_desc *desc, cs_window *win, cs_error *err)
{
    memset(win, 0, sizeof *win);
    win->image_index = UINT32_MAX;
    win->vsync = desc->vsync;
    if (!load_glfw(win, err))
        return false;
    g_glfw_error[0] = 0;
    glfw.SetErrorCallback(on_glfw_error);
    if (!glfw.Init()) {
        dlclose(win->lib);
        win->lib = NULL;
        return cs_fail(err, "cannot open a window: %s. Run headless (--headless), or start an X server "
                            "(e.g. xvfb-run -a cistern run ...)",
                       g_glfw_error[0] ? g_glfw_error : "glfwInit failed");
    }
    if (!glfw.VulkanSupported()) {
        cs_window_destroy(win);
        return cs_fail(err, "cannot open a window: GLFW finds no Vulkan loader for window surfaces; run headless");
    }
    const char **exts = glfw.GetRequiredInstanceExtensions(&win->instance_extension_count);
    if (!exts || win->instance_extension_count == 0) {
        cs_window_destroy(win);
        return cs_fail(err, "cannot open a window: the Vulkan driver offers no surface extensions for this "
                            "window system (%s); run headless", g_glfw_error[0] ? g_glfw_error : "none listed");
    }
    win->instance_extensions = exts;
    glfw.WindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    glfw.WindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    glfw.WindowHint(GLFW_VISIBLE, desc->hidden ? GLFW_FALSE : GLFW_TRUE);
    glfw.WindowHint(GLFW_FOCUSED, desc->hidden ? GLFW_FALSE : GLFW_TRUE);
    int w = desc->width ? (int)desc->width : 1280, h = desc->height ? (int)desc->height : 720;
    GLFWwindow *gw = glfw.CreateWindow(w, h, desc->title ? desc->title : "cistern", NULL, NULL);
    if (!gw) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", g_glfw_error[0] ? g_glfw_error : "glfwCreateWindow failed");
        cs_window_destroy(win);
        return cs_fail(err, "cannot open a %dx%d window: %s", w, h, msg);
    }
    win->glfw = gw;
    glfw.SetWindowUserPointer(gw, win);
    glfw.SetKeyCallback(gw, on_key);
    glfw.SetMouseButtonCallback(gw, on_button);
    glfw.SetCursorPosCallback(gw, on_cursor);
    glfw.SetScrollCallback(gw, on_scroll);
    glfw.SetFramebufferSizeCallback(gw, on_framebuffer_size);
    glfw.SetCharCallback(gw, on_char);
    glfw.SetDropCallback(gw, on_drop);
    return true;
}

// ---------------------------------------------------------------------------
// Swapchain

static void destroy_swapchain_parts(cs_window *win, bool keep_swapchain)
{
    cs_context *ctx = win->ctx;
    for (uint32_t i = 0; i < win->image_count; i++) {
        vkDestroyImageView(ctx->device, win->views[i], NULL);
        vkDestroySemaphore(ctx->device, win->present_ready[i], NULL);
        win->views[i] = VK_NULL_HANDLE;
        win->present_ready[i] = VK_NULL_HANDLE;
    }
    win->image_count = 0;
    if (!keep_swapchain && win->swapchain) {
        vkDestroySwapchainKHR(ctx->device, win->swapchain, NULL);
        win->swapchain = VK_NULL_HANDLE;
    }
    if (win->screenshot.buffer)
        cs_buffer_destroy(ctx, &win->screenshot);
}

static VkPresentModeKHR pick_present_mode(cs_window *win, bool vsync)
{
    if (vsync)
        return VK_PRESENT_MODE_FIFO_KHR; // always supported
    uint32_t count = 0;
    vkGetPhysicalDeviceSurfacePresentModesKHR(win->ctx->physical, win->surface, &count, NULL);
    VkPresentModeKHR modes[16];
    count = CS_MIN(count, 16u);
    vkGetPhysicalDeviceSurfacePresentModesKHR(win->ctx->physical, win->surface, &count, modes);
    const VkPresentModeKHR preferred[] = {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR};
    for (size_t p = 0; p < CS_ARRAY_COUNT(preferred); p++)
        for (uint32_t i = 0; i < count; i++)
            if (modes[i] == preferred[p])
                return modes[i];
    return VK_PRESENT_MODE_FIFO_KHR;
}

static void pick_format(cs_window *win)
{
    uint32_t count = 0;
    vkGetPhysicalDeviceSurfaceFormatsKHR(win->ctx->physical, win->surface, &count, NULL);
    VkSurfaceFormatKHR formats[64];
    count = CS_MIN(count, 64u);
    vkGetPhysicalDeviceSurfaceFormatsKHR(win->ctx->physical, win->surface, &count, formats);
    // sRGB formats first: the hardware encodes; UNORM next: the shaders do.
    const VkFormat preferred[] = {VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM,
                                  VK_FORMAT_R8G8B8A8_UNORM};
    for (size_t p = 0; p < CS_ARRAY_COUNT(preferred); p++)
        for (uint32_t i = 0; i < count; i++)
            if (formats[i].format == preferred[p] && formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
                win->format = formats[i].format;
                win->color_space = formats[i].colorSpace;
                return;
            }
    win->format = formats[0].format;
    win->color_space = formats[0].colorSpace;
}

// (Re)creates the swapchain at the framebuffer's size. False when the
// window has no area (minimised).
static bool build_swapchain(cs_window *win)
{
    cs_context *ctx = win->ctx;
    VkSurfaceCapabilitiesKHR caps;
    VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx->physical, win->surface, &caps));
    int fw = 0, fh = 0;
    glfw.GetFramebufferSize(win->glfw, &fw, &fh);
    VkExtent2D extent = caps.currentExtent;
    if (extent.width == UINT32_MAX) {
        extent.width = (uint32_t)CS_MAX(fw, 0);
        extent.height = (uint32_t)CS_MAX(fh, 0);
        extent.width = CS_MAX(caps.minImageExtent.width, CS_MIN(caps.maxImageExtent.width, extent.width));
        extent.height = CS_MAX(caps.minImageExtent.height, CS_MIN(caps.maxImageExtent.height, extent.height));
    }
    if (extent.width == 0 || extent.height == 0 || fw == 0 || fh == 0)
        return false;

    vkDeviceWaitIdle(ctx->device);
    VkSwapchainKHR old = win->swapchain;
    destroy_swapchain_parts(win, true);
    uint32_t image_count = caps.minImageCount + 1;
    if (caps.maxImageCount)
        image_count = CS_MIN(image_count, caps.maxImageCount);
    image_count = CS_MIN(image_count, (uint32_t)CS_WINDOW_MAX_IMAGES);
    win->can_copy = caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    if (!(caps.supportedCompositeAlpha & alpha))
        for (uint32_t bit = 1; bit <= VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR; bit <<= 1)
            if (caps.supportedCompositeAlpha & bit) {
                alpha = (VkCompositeAlphaFlagBitsKHR)bit;
                break;
            }
    win->present_mode = pick_present_mode(win, win->vsync);
    VkSwapchainCreateInfoKHR info = {
        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
        .surface = win->surface,
        .minImageCount = image_count,
        .imageFormat = win->format,
        .imageColorSpace = win->color_space,
        .imageExtent = extent,
        .imageArrayLayers = 1,
        .imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | (win->can_copy ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : 0),
        .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .preTransform = caps.currentTransform,
        .compositeAlpha = alpha,
        .presentMode = win->present_mode,
        .clipped = VK_TRUE,
        .oldSwapchain = old,
    };
    VK_CHECK(vkCreateSwapchainKHR(ctx->device, &info, NULL, &win->swapchain));
    if (old)
        vkDestroySwapchainKHR(ctx->device, old, NULL);
    cs_name_object(ctx, VK_OBJECT_TYPE_SWAPCHAIN_KHR, (uint64_t)win->swapchain, "window swapchain");
    win->width = extent.width;
    win->height = extent.height;
    win->image_count = 0;
    VK_CHECK(vkGetSwapchainImagesKHR(ctx->device, win->swapchain, &win->image_count, NULL));
    CS_ASSERT(win->image_count <= CS_WINDOW_MAX_IMAGES, "swapchain has %u images", win->image_count);
    VK_CHECK(vkGetSwapchainImagesKHR(ctx->device, win->swapchain, &win->image_count, win->images));
    for (uint32_t i = 0; i < win->image_count; i++) {
        VkImageViewCreateInfo view_info = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = win->images[i],
            .viewType = VK_IMAGE_VIEW_TYPE_2D,
            .format = win->format,
            .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
        };
        VK_CHECK(vkCreateImageView(ctx->device, &view_info, NULL, &win->views[i]));
        VkSemaphoreCreateInfo sem_info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VK_CHECK(vkCreateSemaphore(ctx->device, &sem_info, NULL, &win->present_ready[i]));
        char name[48];
        snprintf(name, sizeof name, "swapchain image %u", i);
        cs_name_object(ctx, VK_OBJECT_TYPE_IMAGE, (uint64_t)win->images[i], name);
        cs_name_object(ctx, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)win->views[i], name);
        snprintf(name, sizeof name, "present ready %u", i);
        cs_name_object(ctx, VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)win->present_ready[i], name);
    }
    if (win->can_copy) {
        cs_error err;
        VkDeviceSize bytes = (VkDeviceSize)extent.width * extent.height * 4;
        if (!cs_buffer_create(ctx, &(cs_buffer_desc){.name = "screenshot", .size = bytes, .host_visible = true},
                              &win->screenshot, &err)) {
            fprintf(stderr, "cistern: screenshots off: %s\n", err.msg);
            win->can_copy = false;
        }
    }
    win->needs_rebuild = false;
    return true;
}

bool cs_window_attach(cs_window *win, cs_context *ctx, cs_error *err)
{
    CS_ASSERT(win->glfw, "cs_window_attach before cs_window_create");
    win->ctx = ctx;
    if (!ctx->wants_window || !vkCreateSwapchainKHR)
        return cs_fail(err, "the Vulkan device was created without swapchain support; create the context with "
                            "the window's instance extensions (and a device that can present)");
    VkResult res = glfw.CreateWindowSurface(ctx->instance, win->glfw, NULL, &win->surface);
    if (res != VK_SUCCESS)
        return cs_fail(err, "cannot create a Vulkan surface for the window: %s %s", cs_vk_result_name(res),
                       g_glfw_error);
    VkBool32 supported = VK_FALSE;
    vkGetPhysicalDeviceSurfaceSupportKHR(ctx->physical, ctx->queue_family, win->surface, &supported);
    if (!supported)
        return cs_fail(err, "the chosen device cannot present to this window; pick another with --device or run "
                            "headless");
    pick_format(win);
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(ctx->device, &fence_info, NULL, &win->acquire_fence));
    cs_name_object(ctx, VK_OBJECT_TYPE_FENCE, (uint64_t)win->acquire_fence, "swapchain acquire");
    for (uint32_t i = 0; i < CS_FRAMES_IN_FLIGHT; i++) {
        VkSemaphoreCreateInfo sem_info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VK_CHECK(vkCreateSemaphore(ctx->device, &sem_info, NULL, &win->image_acquired[i]));
        cs_name_object(ctx, VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)win->image_acquired[i], "image acquired");
    }
    win->needs_rebuild = true;
    return true;
}

void cs_window_destroy(cs_window *win)
{
    if (win->ctx && win->ctx->device) {
        vkDeviceWaitIdle(win->ctx->device);
        destroy_swapchain_parts(win, false);
        if (win->acquire_fence)
            vkDestroyFence(win->ctx->device, win->acquire_fence, NULL);
        for (uint32_t i = 0; i < CS_FRAMES_IN_FLIGHT; i++)
            if (win->image_acquired[i])
                vkDestroySemaphore(win->ctx->device, win->image_acquired[i], NULL);
        if (win->surface)
            vkDestroySurfaceKHR(win->ctx->instance, win->surface, NULL);
    }
    free(win->screenshot_rgba);
    if (win->glfw)
        glfw.DestroyWindow(win->glfw);
    if (win->lib) {
        glfw.Terminate();
        dlclose(win->lib);
    }
    memset(win, 0, sizeof *win);
}

// A modifier (its left or right key) held now or pressed since the last
// poll; the press is consumed.
static bool modifier(cs_window *win, int left, int right)
{
    bool on = glfw.GetKey(win->glfw, left) || glfw.GetKey(win->glfw, right) || win->keys_pressed[left] ||
              win->keys_pressed[right];
    win->keys_pressed[left] = win->keys_pressed[right] = false;
    return on;
}

void cs_window_poll(cs_window *win, cs_window_events *ev)
{
    glfw.PollEvents();
    *ev = win->pending;
    memset(&win->pending, 0, sizeof win->pending);
    GLFWwindow *w = win->glfw;
    if (glfw.WindowShouldClose(w))
        ev->quit = ev->close_requested = true;
    // Held keys fly the camera; their state is read now, not accumulated.
    cs_camera_input *in = &ev->input;
    in->move[0] = (float)(glfw.GetKey(w, GLFW_KEY_D) - glfw.GetKey(w, GLFW_KEY_A));
    in->move[1] = (float)(glfw.GetKey(w, GLFW_KEY_E) - glfw.GetKey(w, GLFW_KEY_Q));
    in->move[2] = (float)(glfw.GetKey(w, GLFW_KEY_W) - glfw.GetKey(w, GLFW_KEY_S));
    in->fast = glfw.GetKey(w, GLFW_KEY_LEFT_SHIFT) || glfw.GetKey(w, GLFW_KEY_RIGHT_SHIFT);
    // A modifier pressed since the last poll counts as held: a quick
    // Ctrl+click whose Ctrl is let go before this poll is still one.
    ev->ctrl = modifier(win, GLFW_KEY_LEFT_CONTROL, GLFW_KEY_RIGHT_CONTROL);
    ev->shift = modifier(win, GLFW_KEY_LEFT_SHIFT, GLFW_KEY_RIGHT_SHIFT);
    ev->alt = modifier(win, GLFW_KEY_LEFT_ALT, GLFW_KEY_RIGHT_ALT);
    int fw = 0, fh = 0;
    glfw.GetFramebufferSize(w, &fw, &fh);
    ev->width = (uint32_t)CS_MAX(fw, 0);
    ev->height = (uint32_t)CS_MAX(fh, 0);
    in->viewport_width = ev->width;
    in->viewport_height = ev->height;
    // The cursor in framebuffer pixels (window coordinates differ on a
    // scaled display).
    int ww = 0, wh = 0;
    glfw.GetWindowSize(w, &ww, &wh);
    ev->pointer_mode = win->pointer_mode;
    ev->pointer_pixel[0] = ww > 0 ? win->cursor[0] * fw / ww : win->cursor[0];
    ev->pointer_pixel[1] = wh > 0 ? win->cursor[1] * fh / wh : win->cursor[1];
}

// Acquires the next image, signalling `semaphore` or, without one, the
// acquire fence, which the host then waits on.
static bool acquire_image(cs_window *win, VkSemaphore semaphore, cs_render_target *target)
{
    cs_context *ctx = win->ctx;
    CS_ASSERT(win->image_index == UINT32_MAX, "cs_window_acquire twice without a present");
    for (int attempt = 0; attempt < 3; attempt++) {
        if (win->needs_rebuild || !win->swapchain) {
            if (!build_swapchain(win)) {
                glfw.WaitEventsTimeout(0.05); // minimised: do not spin
                return false;
            }
        }
        uint32_t index = 0;
        VkFence fence = semaphore ? VK_NULL_HANDLE : win->acquire_fence;
        VkResult res = vkAcquireNextImageKHR(ctx->device, win->swapchain, UINT64_MAX, semaphore, fence, &index);
        if (res == VK_ERROR_OUT_OF_DATE_KHR) {
            win->needs_rebuild = true;
            continue;
        }
        if (res != VK_SUCCESS && res != VK_SUBOPTIMAL_KHR)
            VK_CHECK(res);
        if (!semaphore) {
            // The host waits for the image, so the recorder's plain submit
            // can draw into it without a semaphore wait.
            VK_CHECK(vkWaitForFences(ctx->device, 1, &win->acquire_fence, VK_TRUE, UINT64_MAX));
            VK_CHECK(vkResetFences(ctx->device, 1, &win->acquire_fence));
            ctx->fence_waits++;
        }
        if (res == VK_SUBOPTIMAL_KHR)
            win->needs_rebuild = true; // after this frame
        win->image_index = index;
        win->present_signalled = semaphore != VK_NULL_HANDLE;
        *target = (cs_render_target){
            .image = win->images[index],
            .view = win->views[index],
            .format = win->format,
            .width = win->width,
            .height = win->height,
            .layout = VK_IMAGE_LAYOUT_UNDEFINED,
        };
        return true;
    }
    return false;
}

bool cs_window_acquire(cs_window *win, cs_render_target *target)
{
    return acquire_image(win, VK_NULL_HANDLE, target);
}

bool cs_window_acquire_frame(cs_window *win, uint32_t frame_slot, cs_render_target *target, cs_submit_sync *sync)
{
    CS_ASSERT(frame_slot < CS_FRAMES_IN_FLIGHT, "frame slot %u", frame_slot);
    VkSemaphore acquired = win->image_acquired[frame_slot];
    if (!acquire_image(win, acquired, target))
        return false;
    // The draw's layout transition waits at colour output (render.c), so
    // the simulation's compute work before it need not wait for the image.
    *sync = (cs_submit_sync){.wait = acquired, .wait_stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                             .signal = win->present_ready[win->image_index]};
    return true;
}

void cs_window_record_present(cs_window *win, cs_recorder *rec, bool screenshot)
{
    CS_ASSERT(win->image_index != UINT32_MAX, "cs_window_record_present without an acquired image");
    VkImage image = win->images[win->image_index];
    cs_image_barrier barrier = {
        .image = image,
        .old_layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        .src_stage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
        .src_access = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
    };
    win->screenshot_ready = false;
    if (screenshot && win->can_copy) {
        cs_pass_begin(rec, "screenshot");
        barrier.dst_stage = VK_PIPELINE_STAGE_2_COPY_BIT;
        barrier.dst_access = VK_ACCESS_2_TRANSFER_READ_BIT;
        barrier.new_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        cs_barrier_image(rec->cmd, &barrier);
        VkBufferImageCopy region = {
            .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
            .imageExtent = {win->width, win->height, 1},
        };
        vkCmdCopyImageToBuffer(rec->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, win->screenshot.buffer, 1,
                               &region);
        cs_pass_end(rec);
        barrier.src_stage = VK_PIPELINE_STAGE_2_COPY_BIT;
        barrier.src_access = 0; // a read: only the execution dependency matters
        barrier.old_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        win->screenshot_width = win->width;
        win->screenshot_height = win->height;
        win->screenshot_ready = true;
    } else if (screenshot) {
        fprintf(stderr, "cistern: this swapchain cannot be copied from; no screenshot\n");
    }
    // Presentation waits on a semaphore signalled after this submit; no
    // stage after the barrier needs to wait for it.
    barrier.dst_stage = VK_PIPELINE_STAGE_2_NONE;
    barrier.dst_access = 0;
    barrier.new_layout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    cs_barrier_image(rec->cmd, &barrier);
}

bool cs_window_present(cs_window *win)
{
    cs_context *ctx = win->ctx;
    CS_ASSERT(win->image_index != UINT32_MAX, "cs_window_present without an acquired image");
    uint32_t index = win->image_index;
    win->image_index = UINT32_MAX;
    // After a plain submit-and-wait, an empty submit signals the semaphore
    // the presentation engine waits on; a frame acquired with
    // cs_window_acquire_frame signalled it in its own submit.
    if (!win->present_signalled) {
        VkSubmitInfo signal = {
            .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
            .signalSemaphoreCount = 1,
            .pSignalSemaphores = &win->present_ready[index],
        };
        VK_CHECK(vkQueueSubmit(ctx->queue, 1, &signal, VK_NULL_HANDLE));
        ctx->queue_submits++;
    }
    win->present_signalled = false;
    VkPresentInfoKHR info = {
        .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
        .waitSemaphoreCount = 1,
        .pWaitSemaphores = &win->present_ready[index],
        .swapchainCount = 1,
        .pSwapchains = &win->swapchain,
        .pImageIndices = &index,
    };
    VkResult res = vkQueuePresentKHR(ctx->queue, &info);
    if (res == VK_ERROR_OUT_OF_DATE_KHR || res == VK_SUBOPTIMAL_KHR) {
        win->needs_rebuild = true;
        return res == VK_SUBOPTIMAL_KHR;
    }
    VK_CHECK(res);
    win->frames_presented++;
    return true;
}

const uint8_t *cs_window_screenshot(cs_window *win, uint32_t *width, uint32_t *height)
{
    if (!win->screenshot_ready)
        return NULL;
    size_t n = (size_t)win->screenshot_width * win->screenshot_height;
    free(win->screenshot_rgba);
    win->screenshot_rgba = malloc(n * 4);
    const uint8_t *src = win->screenshot.mapped;
    bool bgra = win->format == VK_FORMAT_B8G8R8A8_SRGB || win->format == VK_FORMAT_B8G8R8A8_UNORM;
    for (size_t i = 0; i < n; i++) {
        win->screenshot_rgba[4 * i + 0] = src[4 * i + (bgra ? 2 : 0)];
        win->screenshot_rgba[4 * i + 1] = src[4 * i + 1];
        win->screenshot_rgba[4 * i + 2] = src[4 * i + (bgra ? 0 : 2)];
        win->screenshot_rgba[4 * i + 3] = 255;
    }
    *width = win->screenshot_width;
    *height = win->screenshot_height;
    return win->screenshot_rgba;
}

bool cs_window_save_screenshot(cs_window *win, const char *path, cs_error *err)
{
    uint32_t w, h;
    const uint8_t *px = cs_window_screenshot(win, &w, &h);
    if (!px)
        return cs_fail(err, "%s: no screenshot was taken this frame", path);
    return cs_write_png(path, w, h, px, err);
}

void cs_window_set_title(cs_window *win, const char *title)
{
    glfw.SetWindowTitle(win->glfw, title);
}

void cs_window_set_vsync(cs_window *win, bool vsync)
{
    if (vsync != win->vsync) {
        win->vsync = vsync;
        win->needs_rebuild = true;
    }
}

void cs_window_set_size(cs_window *win, uint32_t width, uint32_t height)
{
    glfw.SetWindowSize(win->glfw, (int)width, (int)height);
    win->needs_rebuild = true;
}

void cs_window_format_title(char *buf, size_t size, const char *scene_name, double fps, uint32_t particles,
                            int color_mode, bool paused, const cs_recorder *rec)
{
    size_t used = (size_t)snprintf(buf, size, "cistern - %s - %.1f fps - %u particles - %s%s", scene_name, fps,
                                   particles, cs_color_mode_name(color_mode), paused ? " - paused" : "");
    if (!rec || used >= size)
        return;
    // Passes with the same name (substeps) are summed, in first-seen order.
    double gpu_total = 0;
    for (uint32_t i = 0; i < rec->pass_count && used < size; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = strcmp(rec->passes[j].name, rec->passes[i].name) == 0;
        gpu_total += rec->passes[i].ms;
        if (seen)
            continue;
        used += (size_t)snprintf(buf + used, size - used, "%s%s %.2f", i == 0 ? " - GPU ms: " : ", ",
                                 rec->passes[i].name, cs_recorder_pass_ms(rec, rec->passes[i].name));
    }
    if (used < size)
        snprintf(buf + used, size - used, " (total %.2f)", gpu_total);
}
