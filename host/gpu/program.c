// program.c — see program.h.
#define _GNU_SOURCE
#include "program.h"

#include <limits.h>


// ---------------------------------------------------------------------------
// Layouts

void cs_create_layout(cs_context *ctx, const cs_reflection *refl, VkShaderStageFlags stages,
                      VkDescriptorSetLayout *set_layout, VkPipelineLayout *layout)
{
    VkDescriptorSetLayoutBinding bindings[CS_MAX_BINDINGS];
    uint32_t count = 0;
    for (uint32_t b = 0; b < CS_MAX_BINDINGS; b++) {
        if (!(refl->binding_mask & (1u << b)))
            continue;
        bindings[count++] = (VkDescriptorSetLayoutBinding){
            .binding = b,
            .descriptorType = refl->binding_types[b],
            .descriptorCount = 1,
            .stageFlags = stages,
        };
    }
    if (refl->checked)
        bindings[count++] = (VkDescriptorSetLayoutBinding){
            .binding = CS_CHECK_BINDING,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = stages,
        };
    VkDescriptorSetLayoutCreateInfo set_info = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
        .bindingCount = count,
        .pBindings = bindings,
    };
    VK_CHECK(vkCreateDescriptorSetLayout(ctx->device, &set_info, NULL, set_layout));
    VkPushConstantRange range = {.stageFlags = stages, .offset = 0, .size = refl->push_constant_size};
    VkPipelineLayoutCreateInfo layout_info = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = set_layout,
        .pushConstantRangeCount = refl->push_constant_size ? 1 : 0,
        .pPushConstantRanges = &range,
    };
    VK_CHECK(vkCreatePipelineLayout(ctx->device, &layout_info, NULL, layout));
}

// ---------------------------------------------------------------------------
// Building

// What a build produces; copied into the registry entry only on success.
typedef struct built {
    VkPipeline pipeline;
    VkPipelineLayout layout;
    VkDescriptorSetLayout set_layout;
    cs_reflection reflection;
    char (*deps)[256];
    uint32_t dep_count;
    cs_check_site *check_sites;
    uint32_t check_site_count;
} built;

static void built_destroy(cs_context *ctx, built *b)
{
    if (b->pipeline)
        vkDestroyPipeline(ctx->device, b->pipeline, NULL);
    if (b->layout)
        vkDestroyPipelineLayout(ctx->device, b->layout, NULL);
    if (b->set_layout)
        vkDestroyDescriptorSetLayout(ctx->device, b->set_layout, NULL);
    free(b->deps);
    free(b->check_sites);
    memset(b, 0, sizeof *b);
}

// A file's canonical spelling (realpath), so any spelling of it compares
// equal with strcmp; as given when it cannot be resolved or does not fit.
static void canonical_path(const char *path, char out[256])
{
    char full[PATH_MAX];
    if (realpath(path, full) && strlen(full) < 256)
        snprintf(out, 256, "%s", full);
    else
        snprintf(out, 256, "%s", path);
}

// Dependencies are stored canonical, once per build, so a hot-reload walk
// compares strings instead of resolving every program's files again.
static void add_deps(built *b, const cs_spirv *spirv)
{
    b->deps = realloc(b->deps, (b->dep_count + spirv->dep_count) * sizeof b->deps[0]);
    CS_ASSERT(b->deps || b->dep_count + spirv->dep_count == 0, "out of memory");
    for (uint32_t i = 0; i < spirv->dep_count; i++)
        canonical_path(spirv->deps[i], b->deps[b->dep_count++]);
}

static VkShaderModule make_module(cs_context *ctx, const cs_spirv *spirv)
{
    VkShaderModuleCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
        .codeSize = spirv->word_count * 4,
        .pCode = spirv->words,
    };
    VkShaderModule module;
    VK_CHECK(vkCreateShaderModule(ctx->device, &info, NULL, &module));
    return module;
}

static uint32_t define_count(const cs_program_desc *desc)
{
    uint32_t n = 0;
    while (n < CS_MAX_DEFINES && desc->defines[n].name)
        n++;
    return n;
}

// Compiles one stage and reflects it; names the file on a reflection error.
static bool compile_stage(const char *path, const cs_program_desc *desc, bool checked, cs_spirv *spirv,
                          cs_reflection *refl, cs_error *err)
{
    bool compiled = checked ? cs_shader_compile_checked(path, desc->defines, define_count(desc), spirv, err)
                            : cs_shader_compile(path, desc->defines, define_count(desc), spirv, err);
    if (!compiled)
        return false;
    if (!cs_spirv_reflect(spirv->words, spirv->word_count, refl, err)) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        cs_spirv_free(spirv);
        return cs_fail(err, "%s/%s: %s", cs_shader_dir(), path, msg);
    }
    return true;
}

// Refused before any Vulkan object is made from the reflection: a layout
// with a larger push range would be invalid usage.
static bool check_push_size(cs_context *ctx, const cs_reflection *refl, const char *file, cs_error *err)
{
    if (refl->push_constant_size <= ctx->props.limits.maxPushConstantsSize)
        return true;
    return cs_fail(err, "%s/%s: push constants are %u bytes; the device allows %u", cs_shader_dir(), file,
                   refl->push_constant_size, ctx->props.limits.maxPushConstantsSize);
}

// Checked shaders: the record binding the rewrite added leaves the caller's
// interface (binding_mask) and marks the program checked; its sites move
// into the build. A module whose checks were all optimised away is plain.
static bool take_check_binding(cs_context *ctx, cs_spirv *spirv, built *out, const char *file, cs_error *err)
{
    cs_reflection *refl = &out->reflection;
    uint32_t bit = 1u << CS_CHECK_BINDING;
    if (!(refl->binding_mask & bit))
        return true;
    refl->binding_mask &= ~bit;
    refl->binding_types[CS_CHECK_BINDING] = 0;
    refl->binding_names[CS_CHECK_BINDING][0] = 0;
    refl->checked = true;
    uint32_t storage = 1;
    for (uint32_t b = 0; b < CS_MAX_BINDINGS; b++)
        storage += (refl->binding_mask >> b & 1) && refl->binding_types[b] == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    if (storage > ctx->props.limits.maxPerStageDescriptorStorageBuffers)
        return cs_fail(err, "%s/%s: checked, it binds %u storage buffers; the device allows %u per stage",
                       cs_shader_dir(), file, storage, ctx->props.limits.maxPerStageDescriptorStorageBuffers);
    out->check_sites = spirv->check_sites;
    out->check_site_count = spirv->check_site_count;
    spirv->check_sites = NULL;
    spirv->check_site_count = 0;
    return true;
}

static bool build_compute(cs_context *ctx, const cs_program_desc *desc, built *out, cs_error *err)
{
    cs_spirv spirv;
    if (!compile_stage(desc->path, desc, ctx->checked_shaders, &spirv, &out->reflection, err))
        return false;
    if (!check_push_size(ctx, &out->reflection, desc->path, err) ||
        (ctx->checked_shaders && !take_check_binding(ctx, &spirv, out, desc->path, err))) {
        cs_spirv_free(&spirv);
        return false;
    }
    add_deps(out, &spirv);
    cs_create_layout(ctx, &out->reflection, VK_SHADER_STAGE_COMPUTE_BIT, &out->set_layout, &out->layout);
    VkShaderModule module = make_module(ctx, &spirv);
    VkComputePipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = module,
            .pName = "main",
        },
        .layout = out->layout,
    };
    VK_CHECK(vkCreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &info, NULL, &out->pipeline));
    vkDestroyShaderModule(ctx->device, module, NULL);
    cs_spirv_free(&spirv);
    return true;
}

// Vertex and fragment stages share one layout: their bindings merged (a
// binding used by both must have one type).
static bool merge_reflection(const cs_reflection *v, const cs_reflection *f, const char *name, cs_reflection *out,
                             cs_error *err)
{
    *out = *v;
    for (uint32_t b = 0; b < CS_MAX_BINDINGS; b++) {
        if (!(f->binding_mask & (1u << b)))
            continue;
        if ((v->binding_mask & (1u << b)) && v->binding_types[b] != f->binding_types[b])
            return cs_fail(err, "%s: binding %u has different types in the vertex and fragment shaders", name, b);
        out->binding_types[b] = f->binding_types[b];
        memcpy(out->binding_names[b], f->binding_names[b], sizeof out->binding_names[b]);
    }
    out->binding_mask |= f->binding_mask;
    out->push_constant_size = CS_MAX(v->push_constant_size, f->push_constant_size);
    return true;
}

static bool build_graphics(cs_context *ctx, const cs_program_desc *desc, const char *name, built *out, cs_error *err)
{
    cs_spirv vs, fs;
    cs_reflection rv, rf;
    if (!compile_stage(desc->vert, desc, false, &vs, &rv, err))
        return false;
    if (!compile_stage(desc->frag, desc, false, &fs, &rf, err)) {
        cs_spirv_free(&vs);
        return false;
    }
    if (!merge_reflection(&rv, &rf, name, &out->reflection, err) ||
        !check_push_size(ctx, &out->reflection, desc->vert, err)) {
        cs_spirv_free(&vs);
        cs_spirv_free(&fs);
        return false;
    }
    add_deps(out, &vs);
    add_deps(out, &fs);
    const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    cs_create_layout(ctx, &out->reflection, stages, &out->set_layout, &out->layout);
    VkShaderModule vmod = make_module(ctx, &vs), fmod = make_module(ctx, &fs);
    cs_spirv_free(&vs);
    cs_spirv_free(&fs);

    const cs_graphics_state *g = &desc->graphics;
    VkPipelineShaderStageCreateInfo stage_info[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = vmod, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = fmod, .pName = "main"},
    };
    // Vertex pulling: every feature reads its vertices from storage buffers.
    VkPipelineVertexInputStateCreateInfo vertex_input = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = g->topology,
    };
    VkPipelineViewportStateCreateInfo viewport = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
        .viewportCount = 1,
        .scissorCount = 1,
    };
    VkPipelineRasterizationStateCreateInfo raster = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
        .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = g->cull,
        .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
        .lineWidth = 1.0f,
    };
    VkPipelineMultisampleStateCreateInfo multisample = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
    };
    VkPipelineDepthStencilStateCreateInfo depth = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = g->depth_test,
        .depthWriteEnable = g->depth_write,
        .depthCompareOp = g->depth_compare,
    };
    VkPipelineColorBlendAttachmentState blend_attachment = {
        .blendEnable = g->alpha_blend || g->additive_blend,
        .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
        .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        .colorBlendOp = VK_BLEND_OP_ADD,
        .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
        .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
        .alphaBlendOp = VK_BLEND_OP_ADD,
        .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                          VK_COLOR_COMPONENT_A_BIT,
    };
    if (g->additive_blend) {
        // A sum does not depend on the order of its terms, so a translucent
        // feature drawn this way needs no sort; the target's alpha stays.
        blend_attachment.srcColorBlendFactor = VK_BLEND_FACTOR_ONE;
        blend_attachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE;
        blend_attachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
        blend_attachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
    }
    // A depth-only program (color_format UNDEFINED: a depth pre-pass) has no
    // colour attachment.
    uint32_t color_count = g->color_format != VK_FORMAT_UNDEFINED ? 1u : 0u;
    VkPipelineColorBlendStateCreateInfo blend = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
        .attachmentCount = color_count,
        .pAttachments = &blend_attachment,
    };
    VkDynamicState dynamic_states[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
        .dynamicStateCount = CS_ARRAY_COUNT(dynamic_states),
        .pDynamicStates = dynamic_states,
    };
    VkPipelineRenderingCreateInfo rendering = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
        .colorAttachmentCount = color_count,
        .pColorAttachmentFormats = &g->color_format,
        .depthAttachmentFormat = g->depth_format,
    };
    VkGraphicsPipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
        .pNext = &rendering,
        .stageCount = 2,
        .pStages = stage_info,
        .pVertexInputState = &vertex_input,
        .pInputAssemblyState = &assembly,
        .pViewportState = &viewport,
        .pRasterizationState = &raster,
        .pMultisampleState = &multisample,
        .pDepthStencilState = &depth,
        .pColorBlendState = &blend,
        .pDynamicState = &dynamic,
        .layout = out->layout,
    };
    VK_CHECK(vkCreateGraphicsPipelines(ctx->device, VK_NULL_HANDLE, 1, &info, NULL, &out->pipeline));
    vkDestroyShaderModule(ctx->device, vmod, NULL);
    vkDestroyShaderModule(ctx->device, fmod, NULL);
    return true;
}

static bool build(cs_context *ctx, const cs_program *prog, built *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    bool ok = prog->bind_point == VK_PIPELINE_BIND_POINT_COMPUTE ? build_compute(ctx, &prog->desc, out, err)
                                                                 : build_graphics(ctx, &prog->desc, prog->name, out, err);
    if (!ok) {
        built_destroy(ctx, out);
        return false;
    }
    cs_name_object(ctx, VK_OBJECT_TYPE_PIPELINE, (uint64_t)out->pipeline, prog->name);
    cs_name_object(ctx, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)out->layout, prog->name);
    return true;
}

// Moves a successful build into the entry, releasing what it replaces.
static void install(cs_context *ctx, cs_program *prog, built *b)
{
    built old = {prog->pipeline,  prog->layout,    prog->set_layout,  prog->reflection,
                 prog->deps,      prog->dep_count, prog->check_sites, prog->check_site_count};
    built_destroy(ctx, &old);
    prog->pipeline = b->pipeline;
    prog->layout = b->layout;
    prog->set_layout = b->set_layout;
    prog->reflection = b->reflection;
    prog->deps = b->deps;
    prog->dep_count = b->dep_count;
    prog->check_sites = b->check_sites;
    prog->check_site_count = b->check_site_count;
    memset(b, 0, sizeof *b);
}

// ---------------------------------------------------------------------------
// The registry

static cs_program *slot_of(const cs_context *ctx, cs_program_id id)
{
    uint64_t slot = id.value & 0xffffffffu;
    if (slot == 0 || slot > ctx->program_slots)
        return NULL;
    cs_program *prog = ctx->programs[slot - 1];
    if (!prog->live || prog->generation != (uint32_t)(id.value >> 32))
        return NULL;
    return prog;
}

static uint32_t take_slot(cs_context *ctx)
{
    for (uint32_t i = 0; i < ctx->program_slots; i++)
        if (!ctx->programs[i]->live)
            return i;
    if (ctx->program_slots == ctx->program_capacity) {
        uint32_t capacity = ctx->program_capacity ? 2 * ctx->program_capacity : 64;
        cs_program **grown = realloc(ctx->programs, capacity * sizeof *grown);
        CS_ASSERT(grown, "out of memory for %u programs", capacity);
        ctx->programs = grown;
        ctx->program_capacity = capacity;
    }
    ctx->programs[ctx->program_slots] = calloc(1, sizeof(cs_program));
    CS_ASSERT(ctx->programs[ctx->program_slots], "out of memory for a program");
    return ctx->program_slots++;
}

// Copies the caller's strings: hot reload needs them long after the
// caller's buffers are gone.
static void copy_desc(cs_program *prog, const cs_program_desc *desc)
{
    prog->desc = *desc;
    const char *paths[3] = {desc->path, desc->vert, desc->frag};
    const char **fields[3] = {&prog->desc.path, &prog->desc.vert, &prog->desc.frag};
    for (int i = 0; i < 3; i++) {
        *fields[i] = NULL;
        if (paths[i]) {
            snprintf(prog->path_text[i], sizeof prog->path_text[i], "%s", paths[i]);
            *fields[i] = prog->path_text[i];
        }
    }
    for (uint32_t i = 0; i < CS_MAX_DEFINES && desc->defines[i].name; i++) {
        snprintf(prog->define_text[i][0], sizeof prog->define_text[i][0], "%s", desc->defines[i].name);
        snprintf(prog->define_text[i][1], sizeof prog->define_text[i][1], "%s",
                 desc->defines[i].value ? desc->defines[i].value : "1");
        prog->desc.defines[i] = (cs_define){prog->define_text[i][0], prog->define_text[i][1]};
    }
    const char *name = desc->name ? desc->name : desc->path ? desc->path : desc->vert;
    snprintf(prog->name, sizeof prog->name, "%s", name ? name : "?");
    prog->desc.name = prog->name;
}

bool cs_program_create(cs_context *ctx, const cs_program_desc *desc, cs_program_id *out, cs_error *err)
{
    *out = (cs_program_id){0};
    bool compute = desc->path != NULL;
    if (compute == (desc->vert != NULL || desc->frag != NULL) || (!compute && (!desc->vert || !desc->frag)))
        return cs_fail(err, "program %s: give either a compute shader (path) or a vertex and a fragment shader",
                       desc->name ? desc->name : "?");
    const char *texts[3] = {desc->path, desc->vert, desc->frag};
    for (int i = 0; i < 3; i++)
        if (texts[i] && strlen(texts[i]) >= sizeof ((cs_program *)0)->path_text[0])
            return cs_fail(err, "shader path %s is longer than cistern's %zu characters", texts[i],
                           sizeof ((cs_program *)0)->path_text[0] - 1);
    for (uint32_t i = 0; i < CS_MAX_DEFINES && desc->defines[i].name; i++)
        if (strlen(desc->defines[i].name) >= 64 || (desc->defines[i].value && strlen(desc->defines[i].value) >= 64))
            return cs_fail(err, "%s: define %s is longer than cistern's 63 characters", texts[0] ? texts[0] : "?",
                           desc->defines[i].name);
    cs_program fresh = {0};
    fresh.bind_point = compute ? VK_PIPELINE_BIND_POINT_COMPUTE : VK_PIPELINE_BIND_POINT_GRAPHICS;
    fresh.stages = compute ? VK_SHADER_STAGE_COMPUTE_BIT : VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    copy_desc(&fresh, desc);
    built b;
    if (!build(ctx, &fresh, &b, err))
        return false;
    uint32_t slot = take_slot(ctx);
    cs_program *prog = ctx->programs[slot];
    uint32_t generation = prog->generation + 1;
    *prog = fresh;
    prog->generation = generation;
    prog->live = true;
    // The defines and paths point into the entry's own text now.
    copy_desc(prog, &fresh.desc);
    install(ctx, prog, &b);
    *out = (cs_program_id){((uint64_t)generation << 32) | (slot + 1)};
    return true;
}

void cs_program_destroy(cs_context *ctx, cs_program_id *id)
{
    if (!id->value)
        return;
    cs_program *prog = slot_of(ctx, *id);
    CS_ASSERT(prog, "destroy of a stale program handle %#llx", (unsigned long long)id->value);
    built old = {prog->pipeline,  prog->layout,    prog->set_layout,  prog->reflection,
                 prog->deps,      prog->dep_count, prog->check_sites, prog->check_site_count};
    built_destroy(ctx, &old);
    uint32_t generation = prog->generation;
    memset(prog, 0, sizeof *prog);
    prog->generation = generation; // the next owner of the slot gets generation + 1
    *id = (cs_program_id){0};
}

const cs_program *cs_program_get(const cs_context *ctx, cs_program_id id)
{
    const cs_program *prog = slot_of(ctx, id);
    CS_ASSERT(prog, "program handle %#llx is %s", (unsigned long long)id.value,
              id.value ? "stale (its program was destroyed)" : "empty");
    return prog;
}

static bool same_interface(const cs_reflection *a, const cs_reflection *b)
{
    return a->binding_mask == b->binding_mask && a->push_constant_size == b->push_constant_size &&
           memcmp(a->binding_types, b->binding_types, sizeof a->binding_types) == 0;
}

// Builds a program anew and checks it still fits the host code's interface;
// nothing is installed.
static bool rebuild(cs_context *ctx, const cs_program *prog, built *b, cs_error *err)
{
    if (!build(ctx, prog, b, err))
        return false;
    if (!same_interface(&prog->reflection, &b->reflection)) {
        built_destroy(ctx, b);
        return cs_fail(err,
                       "%s/%s: its bindings or push constants changed; hot reload keeps the interface the host "
                       "code feeds, so restart to use the new one",
                       cs_shader_dir(), prog->desc.path ? prog->desc.path : prog->desc.vert);
    }
    return true;
}

static bool reload_entry(cs_context *ctx, cs_program *prog, cs_error *err)
{
    built b;
    if (!rebuild(ctx, prog, &b, err)) {
        prog->stale = true;
        return false;
    }
    // The caller waited for the frame in flight: the old pipeline is idle.
    install(ctx, prog, &b);
    prog->stale = false;
    return true;
}

bool cs_program_reload(cs_context *ctx, cs_program_id id, cs_error *err)
{
    cs_program *prog = slot_of(ctx, id);
    CS_ASSERT(prog, "reload of a stale program handle %#llx", (unsigned long long)id.value);
    return reload_entry(ctx, prog, err);
}

static bool depends_on_canonical(const cs_program *prog, const char *canonical)
{
    for (uint32_t i = 0; i < prog->dep_count; i++)
        if (strcmp(prog->deps[i], canonical) == 0)
            return true;
    return false;
}

bool cs_program_depends_on(const cs_program *prog, const char *path)
{
    char canonical[256];
    canonical_path(path, canonical);
    return depends_on_canonical(prog, canonical);
}

// The names of a burst's programs, each once: several programs are often
// built from one file (a fluid's pass per fluid, or per define set), and
// "fluid/predict.comp, fluid/predict.comp" says less than
// "fluid/predict.comp (x2)". `listed` holds each distinct name once with its
// count, in the order first seen.
typedef struct name_tally {
    const char **name;
    uint32_t *count;
    uint32_t used;
} name_tally;

static void tally_name(name_tally *t, const char *name)
{
    for (uint32_t i = 0; i < t->used; i++)
        if (strcmp(t->name[i], name) == 0) {
            t->count[i]++;
            return;
        }
    t->name[t->used] = name;
    t->count[t->used++] = 1;
}

static void write_names(cs_reload_report *report, const name_tally *t)
{
    size_t used = 0, size = sizeof report->names;
    report->names[0] = 0;
    for (uint32_t i = 0; i < t->used; i++) {
        char one[300];
        if (t->count[i] > 1)
            snprintf(one, sizeof one, "%s (x%u)", t->name[i], t->count[i]);
        else
            snprintf(one, sizeof one, "%s", t->name[i]);
        if (used + strlen(one) + 8 >= size) { // room for ", ..." at the end
            snprintf(report->names + used, size - used, ", ...");
            return;
        }
        used += (size_t)snprintf(report->names + used, size - used, "%s%s", used ? ", " : "", one);
    }
}

static bool affected(const cs_program *prog, char (*canonical)[256], uint32_t count)
{
    if (prog->stale)
        return true;
    for (uint32_t i = 0; i < count; i++)
        if (depends_on_canonical(prog, canonical[i]))
            return true;
    return false;
}

void cs_programs_reload_burst(cs_context *ctx, const char *const *paths, uint32_t count, cs_reload_report *report)
{
    memset(report, 0, sizeof *report);
    // Build every affected program once, keeping the results aside.
    uint32_t n = 0;
    uint32_t *which = malloc((ctx->program_slots + 1) * sizeof *which);
    built *fresh = calloc(ctx->program_slots + 1, sizeof *fresh);
    char (*canonical)[256] = malloc((count + 1) * sizeof *canonical);
    name_tally failed_names = {malloc((ctx->program_slots + 1) * sizeof(const char *)),
                               malloc((ctx->program_slots + 1) * sizeof(uint32_t)), 0};
    name_tally rebuilt_names = {malloc((ctx->program_slots + 1) * sizeof(const char *)),
                                malloc((ctx->program_slots + 1) * sizeof(uint32_t)), 0};
    CS_ASSERT(which && fresh && canonical && failed_names.name && failed_names.count && rebuilt_names.name &&
                  rebuilt_names.count,
              "out of memory for a reload of %u programs", ctx->program_slots);
    for (uint32_t i = 0; i < count; i++)
        canonical_path(paths[i], canonical[i]);
    for (uint32_t i = 0; i < ctx->program_slots; i++) {
        cs_program *prog = ctx->programs[i];
        if (!prog->live || !affected(prog, canonical, count))
            continue;
        cs_error err;
        if (rebuild(ctx, prog, &fresh[n], &err)) {
            which[n++] = i;
            continue;
        }
        prog->stale = true;
        if (report->failed++ == 0)
            report->first_error = err;
        tally_name(&failed_names, prog->name);
    }
    // All or nothing: one failure keeps every old pipeline, so programs that
    // share a header never run built from two versions of it.
    for (uint32_t k = 0; k < n; k++) {
        cs_program *prog = ctx->programs[which[k]];
        if (report->failed) {
            // Built but not installed: it must be retried with the next
            // burst, or it would miss this burst's change for good.
            built_destroy(ctx, &fresh[k]);
            prog->stale = true;
            continue;
        }
        install(ctx, prog, &fresh[k]);
        prog->stale = false;
        report->rebuilt++;
        tally_name(&rebuilt_names, prog->name);
    }
    write_names(report, report->failed ? &failed_names : &rebuilt_names);
    free(failed_names.name), free(failed_names.count);
    free(rebuilt_names.name), free(rebuilt_names.count);
    free(which);
    free(fresh);
    free(canonical);
}

void cs_programs_reload(cs_context *ctx, const char *path, cs_reload_report *report)
{
    cs_programs_reload_burst(ctx, &path, 1, report);
}

uint32_t cs_program_count(const cs_context *ctx)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ctx->program_slots; i++)
        n += ctx->programs[i]->live;
    return n;
}

void cs_programs_shutdown(cs_context *ctx)
{
    for (uint32_t i = 0; i < ctx->program_slots; i++) {
        cs_program *prog = ctx->programs[i];
        if (prog->live) {
            built old = {prog->pipeline,  prog->layout,    prog->set_layout,  prog->reflection,
                         prog->deps,      prog->dep_count, prog->check_sites, prog->check_site_count};
            built_destroy(ctx, &old);
        }
        free(prog);
    }
    free(ctx->programs);
    ctx->programs = NULL;
    ctx->program_slots = ctx->program_capacity = 0;
}
