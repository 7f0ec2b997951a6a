// renderdoc.c — see renderdoc.h.
#define _GNU_SOURCE
#include "renderdoc.h"

#include <dlfcn.h>
#include <renderdoc_app.h>
#include <stdio.h>
#include <string.h>

static RENDERDOC_API_1_4_1 *g_api;

static void *open_library(int flags)
{
    // Debian installs it outside the multiarch directory.
    const char *names[] = {"librenderdoc.so", "/usr/lib/librenderdoc.so"};
    for (unsigned i = 0; i < 2; i++) {
        void *lib = dlopen(names[i], flags);
        if (lib)
            return lib;
    }
    return NULL;
}

static bool get_api(void *lib)
{
    if (!lib)
        return false;
    pRENDERDOC_GetAPI get = (pRENDERDOC_GetAPI)dlsym(lib, "RENDERDOC_GetAPI");
    if (!get || !get(eRENDERDOC_API_Version_1_4_1, (void **)&g_api)) {
        g_api = NULL;
        return false;
    }
    // The overlay would draw into our swapchain images and screenshots.
    g_api->MaskOverlayBits(eRENDERDOC_Overlay_None, eRENDERDOC_Overlay_None);
    return true;
}

bool cs_renderdoc_load(void)
{
    return get_api(open_library(RTLD_NOW));
}

bool cs_renderdoc_attach(void)
{
    if (g_api)
        return true;
    return get_api(open_library(RTLD_NOW | RTLD_NOLOAD));
}

bool cs_renderdoc_available(void) { return g_api != NULL; }

void cs_renderdoc_set_path(const char *path_template)
{
    if (g_api && path_template)
        g_api->SetCaptureFilePathTemplate(path_template);
}

void cs_renderdoc_begin(void)
{
    if (g_api)
        g_api->StartFrameCapture(NULL, NULL);
}

bool cs_renderdoc_end(char *path_out, unsigned path_size)
{
    if (!g_api)
        return false;
    if (!g_api->EndFrameCapture(NULL, NULL))
        return false;
    uint32_t n = g_api->GetNumCaptures();
    if (n == 0)
        return false;
    uint32_t len = 0;
    g_api->GetCapture(n - 1, NULL, &len, NULL);
    if (len == 0 || len > path_size)
        return true;
    g_api->GetCapture(n - 1, path_out, &len, NULL);
    return true;
}
