// shader.h — GLSL → SPIR-V with shaderc, and SPIR-V reflection.
//
// Owns the process's single shaderc compiler (creating one costs ~100 ms),
// the include resolver (the including file's folder first, then
// shaders/common/), the list of files each shader includes (for hot reload),
// and SPIR-V reflection. Programs (pipelines built from shaders) live in
// program.h.
#pragma once

#include "context.h"
#include "shader_check.h"

#define CS_MAX_BINDINGS 16
#define CS_MAX_DEFINES 16
// Files tracked per shader for hot reload (itself and its includes); a shader
// that needs more fails to compile with a message saying so.
#define CS_MAX_DEPS 32

typedef struct cs_define {
    const char *name;
    const char *value; // NULL means "1"
} cs_define;

// What a SPIR-V module declares, read from the binary itself.
typedef struct cs_reflection {
    uint32_t local_size[3];               // compute only
    uint32_t binding_mask;                // bit b set: binding b is used
    VkDescriptorType binding_types[CS_MAX_BINDINGS];
    char binding_names[CS_MAX_BINDINGS][32];
    uint32_t push_constant_size;          // bytes, 0 if none
    // Checked shaders: the module reads and writes a bounds-check record at
    // CS_CHECK_BINDING (shader_check.h). That binding is not in binding_mask:
    // the recorder binds it, not the caller.
    bool checked;
} cs_reflection;

typedef struct cs_spirv {
    uint32_t *words;
    size_t word_count;
    char deps[CS_MAX_DEPS][256];          // resolved paths: the file and its includes
    uint32_t dep_count;
    // Checked compiles only (cs_shader_compile_checked): the accesses the
    // module checks, by the site number its check calls pass. NULL when none.
    cs_check_site *check_sites;
    uint32_t check_site_count;
} cs_spirv;

// Root of the shader tree: the settings' CISTERN_SHADER_DIR (set when a
// context is created), else the source tree's shaders/.
const char *cs_shader_dir(void);
// Sets it (NULL or "": the source tree's); tests point it at a copy.
void cs_shader_set_dir(const char *dir);

// The SPIR-V cache (shader.c, "The SPIR-V cache"): the context sets it
// from CISTERN_SHADER_CACHE: "off", a folder, or "" for default_dir
// (cs_settings.shader_cache_default: $XDG_CACHE_HOME/cistern/spirv else
// ~/.cache/cistern/spirv; "" or NULL: off). Off until set.
void cs_shader_set_cache(const char *setting, const char *default_dir);
// The folder in use ("" when off).
const char *cs_shader_cache_dir(void);
// Compiles served from the cache and compiles that looked and missed,
// since the process started.
void cs_shader_cache_counts(uint32_t *hits, uint32_t *misses);

// Compiles shaders/<path> (stage from the extension: .comp .vert .frag).
// Errors read `shaders/dir/file.comp:LINE: error: ...`; an include cycle
// reads `...file.glsl:LINE: error: include cycle: dir/a.glsl -> dir/b.glsl ->
// dir/a.glsl` (a file may re-enter itself once, which is what #ifndef guards
// need; glslang ignores #pragma once).
bool cs_shader_compile(const char *path, const cs_define *defines, uint32_t define_count,
                       cs_spirv *out, cs_error *err);
// The same with every storage-buffer index bounds-checked (shader_check.h):
// compute shaders only. A module with no checked access comes out as
// cs_shader_compile makes it, with no sites.
bool cs_shader_compile_checked(const char *path, const cs_define *defines, uint32_t define_count,
                               cs_spirv *out, cs_error *err);
void cs_spirv_free(cs_spirv *spirv);

bool cs_spirv_reflect(const uint32_t *words, size_t word_count, cs_reflection *out, cs_error *err);

// Releases the process's shaderc compiler (leak checkers want it gone).
void cs_shader_shutdown(void);
