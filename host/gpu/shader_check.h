// shader_check.h — checked shaders: every storage-buffer index a compute
// shader computes is checked against its array's length at run time.
//
// Debian 12's validation layer cannot do GPU-assisted validation with push
// descriptors (a false "descriptor index 0 is uninitialized" on every
// access), so without this nothing would see an out-of-bounds shader access.
//
// In checked mode (CISTERN_CHECKED_SHADERS=1 when the context is created) a
// compute shader is preprocessed, then its flat text rewritten: each access
// `member[expr]` to an array member of a `buffer` block becomes
// `member[cs_check_index(expr, member.length(), SITE)]`. cs_check_index
// returns the index when it is inside the array; otherwise it records the
// first violation of the dispatch (site, index, length, invocation) in a
// small record bound at CS_CHECK_BINDING and returns a clamped index, so the
// shader never touches memory outside the buffer. SITE numbers the access
// in the shader's list of sites (file, line, binding, array), which the host
// keeps to name it. The recorder gives every dispatch its own record and
// reads them after each submit (recorder.c).
#pragma once

#include "common.h"

// The binding the check record takes; refused in a shader's own text in
// checked mode. The reflection limit (shader.h, CS_MAX_BINDINGS) is 16.
#define CS_CHECK_BINDING 15
#define CS_CHECK_BINDING_TEXT "15" // the same, for the GLSL text

// One checked access in the source: where it is and what it indexes.
typedef struct cs_check_site {
    char file[96];      // as the preprocessor's #line names it, less the shader dir
    uint32_t line;
    uint32_t binding;
    char array[32];     // the buffer member indexed
} cs_check_site;

// What one dispatch's record holds (std430, 32 bytes; the GLSL block in
// shader_check.c has the same layout).
typedef struct cs_check_record {
    uint32_t violations;   // how many out-of-bounds accesses the dispatch made
    uint32_t site;         // the first one's: index into the program's sites
    uint32_t index;        // its index (two's complement when `negative`)
    uint32_t length;       // the array's length then
    uint32_t invocation[3]; // gl_GlobalInvocationID
    uint32_t negative;     // 1: the index was a negative int
} cs_check_record;

// Rewrites preprocessed GLSL (shaderc_compile_into_preprocessed_text's
// output) into its checked form; `dir` (the shader dir) is dropped from the
// front of the file names sites keep. `*out` (malloc'd text) and `*sites`
// (malloc'd, `*site_count` of them; NULL when 0) belong to the caller. Fails
// when the shader already uses CS_CHECK_BINDING or a block cannot be read.
bool cs_check_rewrite(const char *text, const char *dir, char **out, cs_check_site **sites, uint32_t *site_count,
                      cs_error *err);
