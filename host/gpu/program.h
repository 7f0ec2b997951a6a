// program.h — the program registry: every pipeline cistern builds, compute
// and graphics, in one table per context, named by handle.
//
// A module asks for a program with a description (shader paths, defines,
// and for graphics the fixed-function state) and keeps the handle it gets
// back. The registry keeps everything needed to rebuild the program: hot
// reload walks this one table (cs_programs_reload), so a module keeps no
// list of its own, and a module's state may be copied or moved freely.
//
// Every program has one pipeline layout made from SPIR-V reflection: each
// binding of set 0 is a push descriptor, plus one push-constant block.
// Handles carry a generation, so a handle used after its program was
// destroyed is caught instead of reaching a reused slot.
#pragma once

#include "shader.h"

typedef struct cs_program_id {
    uint64_t value;            // 0: no program (slot + 1 in the low 32 bits, generation above)
} cs_program_id;

// Fixed-function state of a graphics program (dynamic rendering: formats
// are part of the pipeline; viewport and scissor are dynamic).
typedef struct cs_graphics_state {
    VkPrimitiveTopology topology;
    bool depth_test, depth_write;
    VkCompareOp depth_compare;
    bool alpha_blend;          // src alpha over (premultiplied off), for translucent features
    bool additive_blend;       // colour += src (alpha kept): order-independent glow and smoke
    VkCullModeFlags cull;      // VK_CULL_MODE_NONE by default
    VkFormat color_format;     // VK_FORMAT_UNDEFINED: no colour attachment (a depth-only pass)
    VkFormat depth_format;     // VK_FORMAT_UNDEFINED: no depth attachment
} cs_graphics_state;

typedef struct cs_program_desc {
    const char *path;          // compute: shaders/<path> (.comp); NULL for graphics
    const char *vert, *frag;   // graphics: vertex and fragment shader paths
    const char *name;          // debug name (RenderDoc, messages); defaults to the path
    cs_define defines[CS_MAX_DEFINES];
    cs_graphics_state graphics; // graphics only
} cs_program_desc;

// A registry entry. Read it through cs_program_get (the recorder does);
// only program.c writes it.
typedef struct cs_program {
    uint32_t generation;       // bumped on destroy: stale handles are refused
    bool live;
    bool stale;                // its last rebuild failed: retried on every reload
    VkPipelineBindPoint bind_point;
    VkShaderStageFlags stages;
    VkPipeline pipeline;
    VkPipelineLayout layout;
    VkDescriptorSetLayout set_layout;
    cs_reflection reflection;  // vertex + fragment merged for graphics
    cs_program_desc desc;      // strings point into the copies below
    char path_text[3][128];    // path, vert, frag
    char define_text[CS_MAX_DEFINES][2][64];
    char name[96];
    char (*deps)[256];         // the shader files and everything they include, canonical (realpath)
    uint32_t dep_count;
    cs_check_site *check_sites; // checked shaders: what each site number in the module names
    uint32_t check_site_count;
} cs_program;

// Compiles and builds a program; on failure nothing is registered and err
// says why (file:line for compile errors).
bool cs_program_create(cs_context *ctx, const cs_program_desc *desc, cs_program_id *out, cs_error *err);
// Releases the program and sets *id to none. None is a no-op.
void cs_program_destroy(cs_context *ctx, cs_program_id *id);
// The program behind a handle; aborts on a stale or invalid handle (a
// programming error, not bad input).
const cs_program *cs_program_get(const cs_context *ctx, cs_program_id id);

// Recompiles one program from source. On any error the old pipeline stays
// and err says why; a changed binding or push-constant interface is refused
// too, because the host code that feeds it has not changed.
bool cs_program_reload(cs_context *ctx, cs_program_id id, cs_error *err);

// True when `path` (any spelling: compared after realpath) is the program's
// source or one of the files it includes.
bool cs_program_depends_on(const cs_program *prog, const char *path);

// What one hot-reload burst did, for the caller to report.
typedef struct cs_reload_report {
    uint32_t rebuilt;          // programs rebuilt and installed
    uint32_t failed;           // programs whose build failed
    char names[512];           // rebuilt (or, on failure, failed) programs' names, comma separated, each once
                               // ("fluid/predict.comp (x2)" for two programs of one file; cut with "...")
    cs_error first_error;      // the first failure's message
} cs_reload_report;

// Hot reload of a burst of changed files: rebuilds every registered program
// (compute or graphics) whose source or includes contain one of `paths`,
// plus every program whose last rebuild failed (a fix may be in a file it
// could not include then). All or nothing: when any build fails, no new
// pipeline is installed, so the frame never mixes programs built from two
// versions of a shared header; the failed ones are marked and retried with
// the next burst. Each program is built once per burst. The caller waits
// for the frame in flight first.
void cs_programs_reload_burst(cs_context *ctx, const char *const *paths, uint32_t count, cs_reload_report *report);
// The same for one file.
void cs_programs_reload(cs_context *ctx, const char *path, cs_reload_report *report);

// Programs registered now (tests check modules release theirs).
uint32_t cs_program_count(const cs_context *ctx);

// Creates the layout objects (set 0 push descriptors + push constants) for
// any stage mask.
void cs_create_layout(cs_context *ctx, const cs_reflection *refl, VkShaderStageFlags stages,
                      VkDescriptorSetLayout *set_layout, VkPipelineLayout *layout);

// Called by cs_context_destroy: releases whatever is left.
void cs_programs_shutdown(cs_context *ctx);
