// renderdoc.h — RenderDoc's in-app API, attached only when RenderDoc is
// already injected (`renderdoccmd capture`, or its implicit layer) or when
// the user asks for it (--renderdoc). Never required: every call is a no-op
// when RenderDoc is absent.
#pragma once

#include <stdbool.h>

// --renderdoc: load librenderdoc.so ourselves. Must run before the Vulkan
// instance is created so RenderDoc's layer hooks it.
bool cs_renderdoc_load(void);
// After vkCreateInstance: find an injected RenderDoc (dlopen RTLD_NOLOAD).
// Returns true when the API is available.
bool cs_renderdoc_attach(void);
bool cs_renderdoc_available(void);
// Captures go to `<template>_frameN.rdc` (RenderDoc appends the suffix).
void cs_renderdoc_set_path(const char *path_template);
void cs_renderdoc_begin(void);
// Ends the capture; returns true and the file path if one was written.
bool cs_renderdoc_end(char *path_out, unsigned path_size);
