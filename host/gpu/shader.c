// shader.c — see shader.h.
#define _GNU_SOURCE
#include "shader.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <shaderc/shaderc.h>
#include <sys/stat.h>
#include <unistd.h>

static shaderc_compiler_t g_compiler;

// Set from the context's settings (CISTERN_SHADER_DIR); "": the source tree's.
static char g_shader_dir[sizeof(((cs_settings *)0)->shader_dir)];

void cs_shader_set_dir(const char *dir)
{
    snprintf(g_shader_dir, sizeof g_shader_dir, "%s", dir ? dir : "");
}

const char *cs_shader_dir(void)
{
    return g_shader_dir[0] ? g_shader_dir : CS_SOURCE_DIR "/shaders";
}

// ---------------------------------------------------------------------------
// The SPIR-V cache: compiled modules kept on disk, so a second start (and a
// scene reload, which builds a trial world and then the real one) compiles
// nothing that has not changed. An entry is named by a hash of what the
// compile reads first (the cache format, the compiler's SPIR-V version, the
// shader's path, its defines, its text) and holds the module with every
// file the compile read (the shader and its includes), each with its size
// and a hash of its bytes. A lookup re-reads and re-hashes those files: any
// change is a miss, so an edited include is never served stale. Checked
// compiles (tests) are not cached. Failures are not cached. An unreadable
// or damaged entry is a miss, and is replaced; a cache folder that cannot
// be made only costs the compile.

#define CACHE_FORMAT "cistern spirv cache 1: vulkan1.2 performance debug-info"
static const char cache_magic[8] = {'C', 'S', 'S', 'P', 'V', '1', 0, 0};

static char g_cache_dir[sizeof(((cs_settings *)0)->shader_cache)]; // "": off
static uint32_t g_cache_hits, g_cache_misses;

void cs_shader_set_cache(const char *setting, const char *default_dir)
{
    g_cache_dir[0] = 0;
    if (setting && strcmp(setting, "off") == 0)
        return;
    const char *dir = setting && setting[0] ? setting : default_dir;
    snprintf(g_cache_dir, sizeof g_cache_dir, "%s", dir ? dir : "");
}

const char *cs_shader_cache_dir(void) { return g_cache_dir; }

void cs_shader_cache_counts(uint32_t *hits, uint32_t *misses)
{
    *hits = g_cache_hits;
    *misses = g_cache_misses;
}

typedef struct hash64 {
    uint64_t h;
} hash64;

static void hash_bytes(hash64 *h, const void *data, size_t size)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < size; i++) {
        h->h ^= p[i];
        h->h *= 0x100000001b3ull; // FNV-1a, 64 bits
    }
}

static void hash_text(hash64 *h, const char *text) { hash_bytes(h, text, strlen(text) + 1); }

static uint64_t hash_file(const char *path, uint64_t *size_out, bool *ok)
{
    size_t size = 0;
    cs_error err;
    char *bytes = cs_read_file(path, &size, &err);
    *ok = bytes != NULL;
    hash64 h = {0xcbf29ce484222325ull};
    if (bytes)
        hash_bytes(&h, bytes, size);
    free(bytes);
    *size_out = size;
    return h.h;
}

static bool cache_path(const char *full, const char *source, size_t size, const cs_define *defines,
                       uint32_t define_count, char *path, size_t path_size)
{
    if (!g_cache_dir[0])
        return false;
    hash64 h = {0xcbf29ce484222325ull};
    hash_text(&h, CACHE_FORMAT);
    unsigned version = 0, revision = 0;
    shaderc_get_spv_version(&version, &revision);
    hash_bytes(&h, &version, sizeof version);
    hash_bytes(&h, &revision, sizeof revision);
    hash_text(&h, full);
    for (uint32_t i = 0; i < define_count && defines[i].name; i++) {
        hash_text(&h, defines[i].name);
        hash_text(&h, defines[i].value ? defines[i].value : "1");
    }
    hash_bytes(&h, source, size);
    int n = snprintf(path, path_size, "%s/%016llx.spv", g_cache_dir, (unsigned long long)h.h);
    return n > 0 && (size_t)n < path_size;
}

// Reads an entry into out (deps and words) when every file it names is
// unchanged. Any doubt is a miss.
static bool cache_load(const char *path, cs_spirv *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    bool ok = true;
    char magic[8];
    uint32_t dep_count = 0, word_count = 0;
    ok = fread(magic, 1, 8, f) == 8 && memcmp(magic, cache_magic, 8) == 0 && fread(&dep_count, 4, 1, f) == 1 &&
         dep_count >= 1 && dep_count <= CS_MAX_DEPS;
    for (uint32_t d = 0; ok && d < dep_count; d++) {
        uint16_t length = 0;
        uint64_t size = 0, hash = 0, now_size = 0;
        ok = fread(&length, 2, 1, f) == 1 && length > 0 && length < sizeof out->deps[0] &&
             fread(out->deps[d], 1, length, f) == length && fread(&size, 8, 1, f) == 1 && fread(&hash, 8, 1, f) == 1;
        if (!ok)
            break;
        out->deps[d][length] = 0;
        bool readable;
        ok = hash_file(out->deps[d], &now_size, &readable) == hash && readable && now_size == size;
    }
    ok = ok && fread(&word_count, 4, 1, f) == 1 && word_count >= 5 && word_count <= (64u << 20);
    if (ok) {
        out->words = malloc((size_t)word_count * 4);
        CS_ASSERT(out->words, "out of memory for %u SPIR-V words", word_count);
        ok = fread(out->words, 4, word_count, f) == word_count && out->words[0] == 0x07230203u && fgetc(f) == EOF;
    }
    fclose(f);
    if (!ok) {
        free(out->words);
        memset(out, 0, sizeof *out);
        return false;
    }
    out->word_count = word_count;
    out->dep_count = dep_count;
    return true;
}

// mkdir -p: each missing folder of dir.
static bool make_folders(const char *dir)
{
    char path[sizeof g_cache_dir];
    snprintf(path, sizeof path, "%s", dir);
    for (char *c = path + 1;; c++) {
        if (*c == '/' || *c == 0) {
            char saved = *c;
            *c = 0;
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                return false;
            *c = saved;
            if (!saved)
                return true;
        }
    }
}

// Writes an entry beside its final name and renames it into place, so a
// process running beside this one reads a whole entry or none.
static void cache_store(const char *path, const cs_spirv *spirv)
{
    if (!make_folders(g_cache_dir))
        return;
    char temp[sizeof g_cache_dir + 64];
    snprintf(temp, sizeof temp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(temp, "wb");
    if (!f)
        return;
    bool ok = fwrite(cache_magic, 1, 8, f) == 8 && fwrite(&spirv->dep_count, 4, 1, f) == 1;
    for (uint32_t d = 0; ok && d < spirv->dep_count; d++) {
        uint16_t length = (uint16_t)strlen(spirv->deps[d]);
        uint64_t size = 0;
        bool readable;
        uint64_t hash = hash_file(spirv->deps[d], &size, &readable);
        ok = readable && fwrite(&length, 2, 1, f) == 1 && fwrite(spirv->deps[d], 1, length, f) == length &&
             fwrite(&size, 8, 1, f) == 1 && fwrite(&hash, 8, 1, f) == 1;
    }
    uint32_t words = (uint32_t)spirv->word_count;
    ok = ok && fwrite(&words, 4, 1, f) == 1 && fwrite(spirv->words, 4, words, f) == words;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(temp, path) != 0)
        remove(temp);
}

void cs_shader_shutdown(void)
{
    if (g_compiler)
        shaderc_compiler_release(g_compiler);
    g_compiler = NULL;
}

// ---------------------------------------------------------------------------
// Includes: `#include "x.glsl"` looks next to the including file, then in
// shaders/common/. Every resolved file is recorded for hot reload.
//
// Include cycles: glslang (12) follows an include that reaches a file still
// open above it without any limit, until memory runs out, and it ignores
// `#pragma once`. An `#ifndef X_GLSL / #define X_GLSL` guard does stop it: a
// guarded file entered a second time is empty. So a file may be open twice on
// the include stack (the guarded re-entry); a third entry means nothing stops
// the recursion, and that include is refused with the cycle spelled out. A
// diamond (two files including the same header) never has the header open
// twice at once, so it is not affected.

// One open file on glslang's include stack. Files are compared by device and
// inode, because one file can be spelled several ways ("x.glsl",
// "../test/x.glsl"); `dep` indexes out->deps, for messages.
typedef struct include_frame {
    dev_t dev;
    ino_t ino;
    uint32_t dep;
} include_frame;

// Each file is open at most twice and at most CS_MAX_DEPS files are tracked,
// so the stack cannot be deeper than this.
#define MAX_INCLUDE_DEPTH (2 * CS_MAX_DEPS + 1)

typedef struct include_state {
    cs_spirv *out;
    include_frame stack[MAX_INCLUDE_DEPTH]; // [0] is the compiled file
    // The first include refused by cistern (cycle, too many files). It
    // replaces shaderc's message, which would bury it under the errors that
    // follow from the missing include.
    char problem[1024];
} include_state;

typedef struct include_result {
    shaderc_include_result result;
    char path[256];
    char *content;
} include_result;

static bool file_identity(const char *path, include_frame *frame)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    frame->dev = st.st_dev;
    frame->ino = st.st_ino;
    return true;
}

// Index of `path` in out->deps, adding it; -1 when CS_MAX_DEPS are taken.
static int add_dep(cs_spirv *out, const char *path)
{
    for (uint32_t i = 0; i < out->dep_count; i++)
        if (strcmp(out->deps[i], path) == 0)
            return (int)i;
    if (out->dep_count >= CS_MAX_DEPS)
        return -1;
    snprintf(out->deps[out->dep_count], sizeof out->deps[0], "%s", path);
    return (int)out->dep_count++;
}

// A path as messages show it: relative to the shader dir when inside it.
static const char *shader_relative(const char *path)
{
    const char *dir = cs_shader_dir();
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

// Line of `#include "requested"` (or <requested>) in `path`, for messages;
// 0 when not found (e.g. the name came from a macro).
static uint32_t include_line(const char *path, const char *requested)
{
    char *text = cs_read_file(path, NULL, NULL);
    if (!text)
        return 0;
    size_t len = strlen(requested);
    uint32_t line = 0, found = 0;
    for (char *s = text; s && !found;) {
        line++;
        char *end = strchr(s, '\n');
        if (end)
            *end = 0;
        s += strspn(s, " \t");
        char *name = *s == '#' && strstr(s, "include") ? strstr(s, requested) : NULL;
        if (name && name > s && (name[-1] == '"' || name[-1] == '<') &&
            (name[len] == '"' || name[len] == '>'))
            found = line;
        s = end ? end + 1 : NULL;
    }
    free(text);
    return found;
}

// Finds `requested` next to `requesting`, then in shaders/common/. Fills
// `path` with the first that exists; false (and the places tried, in
// `message`) if none does.
static bool find_include(const char *requested, const char *requesting, char *path, size_t path_size,
                         char *message, size_t message_size)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s", requesting);
    const char *folder = dirname(dir);
    char candidates[2][512];
    snprintf(candidates[0], sizeof candidates[0], "%s/%s", folder, requested);
    snprintf(candidates[1], sizeof candidates[1], "%s/common/%s", cs_shader_dir(), requested);
    for (int i = 0; i < 2; i++) {
        include_frame unused;
        if (file_identity(candidates[i], &unused)) {
            snprintf(path, path_size, "%s", candidates[i]);
            return true;
        }
    }
    snprintf(message, message_size, "cannot find include \"%s\" (looked in %s and %s/common)", requested,
             folder, cs_shader_dir());
    return false;
}

// Refuses `path` when it is already open twice among the `depth` files on
// the stack: writes "file:line: error: include cycle: a -> b -> a".
static bool check_cycle(const include_state *state, const include_frame *frame, size_t depth,
                        const char *path, const char *requested, const char *requesting,
                        char *message, size_t message_size)
{
    uint32_t open = 0;
    size_t last = 0;
    for (size_t i = 0; i < depth; i++) {
        if (state->stack[i].dev == frame->dev && state->stack[i].ino == frame->ino) {
            open++;
            last = i;
        }
    }
    if (open < 2)
        return true;
    char chain[768] = "";
    size_t used = 0;
    for (size_t i = last; i < depth && used < sizeof chain; i++)
        used += snprintf(chain + used, sizeof chain - used, "%s -> ",
                         shader_relative(state->out->deps[state->stack[i].dep]));
    if (used < sizeof chain)
        snprintf(chain + used, sizeof chain - used, "%s", shader_relative(path));
    snprintf(message, message_size, "%s:%u: error: include cycle: %s", requesting,
             include_line(requesting, requested), chain);
    return false;
}

// Puts `path` on the stack at `depth` (recording it as a dependency), or
// explains why it cannot be included.
static bool push_include(include_state *state, size_t depth, const char *path, const char *requested,
                         const char *requesting, char *message, size_t message_size)
{
    // glslang passes depth = files open below the new one, the compiled file
    // included; depth 0 does not happen.
    if (depth == 0 || depth >= MAX_INCLUDE_DEPTH) {
        snprintf(message, message_size, "%s:%u: error: includes nested deeper than %d", requesting,
                 include_line(requesting, requested), MAX_INCLUDE_DEPTH - 1);
        return false;
    }
    include_frame frame;
    if (!file_identity(path, &frame)) {
        snprintf(message, message_size, "cannot read include \"%s\"", path);
        return false;
    }
    if (!check_cycle(state, &frame, depth, path, requested, requesting, message, message_size))
        return false;
    int dep = add_dep(state->out, path);
    if (dep < 0) {
        snprintf(message, message_size,
                 "%s:%u: error: \"%s\" is one file too many: cistern tracks at most %d files per shader "
                 "(itself and its includes) for hot reload; raise CS_MAX_DEPS in host/gpu/shader.h",
                 requesting, include_line(requesting, requested), requested, CS_MAX_DEPS);
        return false;
    }
    frame.dep = (uint32_t)dep;
    state->stack[depth] = frame;
    return true;
}

// ---------------------------------------------------------------------------
// Sources that are not GLSL text. glslang takes a file with no #version as
// desktop GLSL 110, and for a compute shader below 150 it fails to parse its
// own built-ins and prints all of them (about 4500 lines) to stdout — what an
// empty file, a half-saved edit or a binary file used to print during
// `--watch`. So such files are refused here first, with file:line.

// Line (1-based) of the first byte a GLSL source cannot hold (a control
// character other than white space, e.g. NUL in a binary file); 0 if none.
// Bytes >= 0x80 are allowed: UTF-8 in comments.
static uint32_t first_control_byte_line(const char *text, size_t size, unsigned char *byte)
{
    uint32_t line = 1;
    for (size_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n')
            line++;
        else if ((c < 0x20 && !strchr("\t\r\v\f", c)) || c == 0x7f) {
            *byte = c;
            return line;
        }
    }
    return 0;
}

static bool check_text(const char *path, const char *text, size_t size, cs_error *err)
{
    unsigned char byte = 0;
    uint32_t line = first_control_byte_line(text, size, &byte);
    if (line)
        return cs_fail(err, "%s:%u: error: not a GLSL text file (byte 0x%02x; a binary file?)", path, line, byte);
    return true;
}

// The `#version N [profile]` directive: its line, number and whether the
// profile is "es"; line 0 when the source has none.
typedef struct glsl_version {
    uint32_t line;
    long number;
    bool es;
} glsl_version;

static glsl_version find_version(const char *text, size_t size)
{
    glsl_version v = {0};
    uint32_t line = 1;
    for (size_t i = 0; i < size; line++) {
        size_t end = i;
        while (end < size && text[end] != '\n')
            end++;
        size_t p = i;
        while (p < end && (text[p] == ' ' || text[p] == '\t'))
            p++;
        if (p < end && text[p] == '#') {
            p++;
            while (p < end && (text[p] == ' ' || text[p] == '\t'))
                p++;
            // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10: end - p is the rest of the line
            if (end - p > 7 && strncmp(text + p, "version", 7) == 0) {
                char directive[64] = "";
                memcpy(directive, text + p + 7, CS_MIN(end - p - 7, sizeof directive - 1));
                char *rest;
                v.line = line;
                v.number = strtol(directive, &rest, 10);
                v.es = strstr(rest, "es") != NULL;
                return v;
            }
        }
        i = end + 1;
    }
    return v;
}

// Refuses what glslang would answer with its built-ins dump: a binary file,
// a source with no #version (an empty file), a compute shader below desktop
// GLSL 420 (glslang refuses 150..410 anyway, and dumps for 110..140).
static bool check_source(const char *path, const char *text, size_t size, shaderc_shader_kind kind, cs_error *err)
{
    if (!check_text(path, text, size, err))
        return false;
    glsl_version v = find_version(text, size);
    if (v.line == 0) {
        bool blank = true;
        for (size_t i = 0; i < size && blank; i++)
            blank = strchr(" \t\r\n\v\f", text[i]) != NULL;
        return cs_fail(err, "%s:1: error: %s: no #version line (cistern's shaders start with \"#version 450\")",
                       path, blank ? "the file is empty" : "not a GLSL shader");
    }
    if (kind == shaderc_compute_shader && !v.es && v.number < 420)
        return cs_fail(err, "%s:%u: error: #version %ld: compute shaders need 420 or above (cistern's use 450)",
                       path, v.line, v.number);
    return true;
}

// ---------------------------------------------------------------------------
// Compiler messages: a broken file can produce hundreds of errors, each
// following from the first. Shown: the first MAX_SHOWN_ERRORS lines, each cut
// at MAX_SHOWN_LINE bytes with control bytes (quoted from a binary file)
// replaced by '?', then a count of the errors left out.
#define MAX_SHOWN_ERRORS 10
#define MAX_SHOWN_LINE 180

static void summarize_errors(const char *log, cs_error *err)
{
    if (!err)
        return;
    size_t used = 0;
    uint32_t shown = 0, hidden = 0;
    err->msg[0] = 0;
    for (const char *s = log; *s;) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len > 0 && shown < MAX_SHOWN_ERRORS) {
            size_t keep = CS_MIN(len, (size_t)MAX_SHOWN_LINE);
            if (used + keep + 8 < sizeof err->msg) {
                if (used)
                    err->msg[used++] = '\n';
                // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10 misreads CS_MIN: keep >= 1
                for (size_t i = 0; i < keep; i++) {
                    unsigned char c = (unsigned char)s[i];
                    err->msg[used++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
                }
                // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10 misreads CS_MIN
                if (keep < len)
                    used += (size_t)snprintf(err->msg + used, sizeof err->msg - used, "...");
                err->msg[used] = 0;
            }
            shown++;
        } else if (len > 0 && strstr(s, "error") && (size_t)(strstr(s, "error") - s) < len) {
            hidden++;
        }
        s = end ? end + 1 : s + len;
    }
    if (hidden)
        snprintf(err->msg + used, sizeof err->msg - used, "\n... and %u more error%s", hidden, hidden == 1 ? "" : "s");
}

static shaderc_include_result *resolve_include(void *user, const char *requested, int type,
                                               const char *requesting, size_t depth)
{
    (void)type;
    include_state *state = user;
    include_result *r = calloc(1, sizeof *r);
    char message[1024];
    bool ok = find_include(requested, requesting, r->path, sizeof r->path, message, sizeof message);
    if (ok && !push_include(state, depth, r->path, requested, requesting, message, sizeof message)) {
        ok = false;
        if (!state->problem[0])
            snprintf(state->problem, sizeof state->problem, "%s", message);
    }
    if (ok) {
        cs_error err;
        size_t size = 0;
        r->content = cs_read_file(r->path, &size, &err);
        if (!r->content) {
            snprintf(message, sizeof message, "%s", err.msg);
            ok = false;
        } else if (!check_text(r->path, r->content, size, &err)) {
            // Named by cistern: glslang would report each byte as an error.
            snprintf(message, sizeof message, "%s", err.msg);
            if (!state->problem[0])
                snprintf(state->problem, sizeof state->problem, "%s", message);
            free(r->content);
            r->content = NULL;
            ok = false;
        }
    }
    if (!ok) {
        // An empty source_name tells shaderc the include failed; content is
        // then the reason.
        r->content = strdup(message);
        r->path[0] = 0;
    }
    r->result.source_name = r->path;
    r->result.source_name_length = strlen(r->path);
    r->result.content = r->content;
    r->result.content_length = strlen(r->content);
    r->result.user_data = r;
    return &r->result;
}

static void release_include(void *user, shaderc_include_result *result)
{
    (void)user;
    include_result *r = result->user_data;
    free(r->content);
    free(r);
}

static shaderc_shader_kind stage_from_path(const char *path)
{
    const char *ext = strrchr(path, '.');
    if (ext && strcmp(ext, ".vert") == 0)
        return shaderc_vertex_shader;
    if (ext && strcmp(ext, ".frag") == 0)
        return shaderc_fragment_shader;
    return shaderc_compute_shader;
}

static shaderc_compile_options_t base_options(void)
{
    shaderc_compile_options_t options = shaderc_compile_options_initialize();
    // Vulkan 1.2 SPIR-V: 1.3 would emit LocalSizeId (needs maintenance4).
    shaderc_compile_options_set_target_env(options, shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
    shaderc_compile_options_set_optimization_level(options, shaderc_optimization_level_performance);
    shaderc_compile_options_set_generate_debug_info(options);
    return options;
}

// A failed result's message in err: the first errors shaderc wrote
// ("file:line: error: ...") and a count of the rest (summarize_errors),
// unless an include problem cistern found explains it better.
static bool compile_failure(shaderc_compilation_result_t result, const include_state *state, cs_error *err)
{
    if (state->problem[0])
        return cs_fail(err, "%s", state->problem);
    summarize_errors(shaderc_result_get_error_message(result), err);
    return false;
}

// Checked mode's extra step: the preprocessed text, rewritten so every
// storage-buffer index is checked (shader_check.h). Returns the text to
// compile (malloc'd) or NULL with err filled.
static char *checked_source(const char *source, size_t size, const char *full, shaderc_shader_kind kind,
                            shaderc_compile_options_t options, const include_state *state, cs_spirv *out,
                            cs_error *err)
{
    shaderc_compilation_result_t result =
        shaderc_compile_into_preprocessed_text(g_compiler, source, size, kind, full, "main", options);
    char *rewritten = NULL;
    if (shaderc_result_get_compilation_status(result) != shaderc_compilation_status_success) {
        compile_failure(result, state, err);
    } else {
        size_t length = shaderc_result_get_length(result);
        char *text = malloc(length + 1);
        CS_ASSERT(text, "out of memory for %zu bytes of shader text", length);
        memcpy(text, shaderc_result_get_bytes(result), length);
        text[length] = 0;
        if (!cs_check_rewrite(text, cs_shader_dir(), &rewritten, &out->check_sites, &out->check_site_count, err))
            rewritten = NULL;
        free(text);
    }
    shaderc_result_release(result);
    return rewritten;
}

static bool compile(const char *path, const cs_define *defines, uint32_t define_count, bool checked,
                    cs_spirv *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    char full[512];
    snprintf(full, sizeof full, "%s/%s", cs_shader_dir(), path);
    size_t size;
    char *source = cs_read_file(full, &size, err);
    if (!source)
        return false;
    if (!check_source(full, source, size, stage_from_path(path), err)) {
        free(source);
        return false;
    }
    char cached[sizeof g_cache_dir + 32];
    bool cacheable = !checked && cache_path(full, source, size, defines, define_count, cached, sizeof cached);
    if (cacheable && cache_load(cached, out)) {
        g_cache_hits++;
        free(source);
        return true;
    }
    g_cache_misses += cacheable;
    include_state state = {.out = out};
    file_identity(full, &state.stack[0]);
    state.stack[0].dep = (uint32_t)add_dep(out, full); // the first dep: index 0

    if (!g_compiler)
        g_compiler = shaderc_compiler_initialize();
    shaderc_compile_options_t options = base_options();
    shaderc_compile_options_set_include_callbacks(options, resolve_include, release_include, &state);
    for (uint32_t i = 0; i < define_count && defines[i].name; i++) {
        const char *value = defines[i].value ? defines[i].value : "1";
        shaderc_compile_options_add_macro_definition(options, defines[i].name, strlen(defines[i].name),
                                                     value, strlen(value));
    }
    shaderc_shader_kind kind = stage_from_path(path);
    if (checked) {
        // The rewritten text is flat: no includes or macros left to give.
        char *text = checked_source(source, size, full, kind, options, &state, out, err);
        shaderc_compile_options_release(options);
        free(source);
        if (!text)
            return false;
        source = text;
        size = strlen(text);
        options = base_options();
    }
    shaderc_compilation_result_t result =
        shaderc_compile_into_spv(g_compiler, source, size, kind, full, "main", options);
    bool ok = shaderc_result_get_compilation_status(result) == shaderc_compilation_status_success;
    if (ok) {
        size_t bytes = shaderc_result_get_length(result);
        out->words = malloc(bytes);
        memcpy(out->words, shaderc_result_get_bytes(result), bytes);
        out->word_count = bytes / 4;
    } else {
        compile_failure(result, &state, err);
        free(out->check_sites);
        out->check_sites = NULL;
        out->check_site_count = 0;
    }
    shaderc_result_release(result);
    shaderc_compile_options_release(options);
    free(source);
    if (ok && cacheable)
        cache_store(cached, out);
    return ok;
}

bool cs_shader_compile(const char *path, const cs_define *defines, uint32_t define_count,
                       cs_spirv *out, cs_error *err)
{
    return compile(path, defines, define_count, false, out, err);
}

bool cs_shader_compile_checked(const char *path, const cs_define *defines, uint32_t define_count,
                               cs_spirv *out, cs_error *err)
{
    CS_ASSERT(stage_from_path(path) == shaderc_compute_shader, "checked shaders are compute only: %s", path);
    return compile(path, defines, define_count, true, out, err);
}

void cs_spirv_free(cs_spirv *spirv)
{
    free(spirv->words);
    free(spirv->check_sites);
    spirv->words = NULL;
    spirv->word_count = 0;
    spirv->check_sites = NULL;
    spirv->check_site_count = 0;
}

// ---------------------------------------------------------------------------
// SPIR-V reflection: one pass over the instructions to collect ids, then the
// variables in set 0 and the push-constant block. Only what cistern's shaders
// use: buffers, images, samplers, one push-constant struct.

enum {
    OP_EXECUTION_MODE = 16, OP_TYPE_INT = 21, OP_TYPE_FLOAT = 22, OP_TYPE_VECTOR = 23,
    OP_TYPE_MATRIX = 24, OP_TYPE_IMAGE = 25, OP_TYPE_SAMPLER = 26, OP_TYPE_SAMPLED_IMAGE = 27,
    OP_TYPE_ARRAY = 28, OP_TYPE_RUNTIME_ARRAY = 29, OP_TYPE_STRUCT = 30, OP_TYPE_POINTER = 32,
    OP_CONSTANT = 43, OP_VARIABLE = 59, OP_DECORATE = 71, OP_MEMBER_DECORATE = 72, OP_NAME = 5,
    EXEC_MODE_LOCAL_SIZE = 17, DEC_BLOCK = 2, DEC_BUFFER_BLOCK = 3, DEC_ARRAY_STRIDE = 6,
    DEC_MATRIX_STRIDE = 7, DEC_BINDING = 33, DEC_DESCRIPTOR_SET = 34, DEC_OFFSET = 35,
    SC_UNIFORM_CONSTANT = 0, SC_UNIFORM = 2, SC_PUSH_CONSTANT = 9, SC_STORAGE_BUFFER = 12,
};

#define MAX_MEMBERS 64

typedef struct spv_id {
    uint32_t opcode;
    uint32_t type_id;       // pointee / element / component / result type
    uint32_t storage_class;
    uint32_t binding, set;
    bool has_binding, has_set;
    uint32_t width_or_count; // int/float width, vector count, matrix columns, constant value
    uint32_t length_id;      // array length constant
    uint32_t array_stride, matrix_stride;
    uint32_t sampled;        // image: 1 sampled, 2 storage
    bool block, buffer_block;
    uint32_t member_count;
    uint32_t *member_types;  // points into the module
    uint32_t member_offsets[MAX_MEMBERS];
    const char *name;
} spv_id;

static uint32_t type_size(const spv_id *ids, uint32_t id_bound, uint32_t id)
{
    if (id >= id_bound)
        return 0;
    const spv_id *t = &ids[id];
    switch (t->opcode) {
    case OP_TYPE_INT:
    case OP_TYPE_FLOAT: return t->width_or_count / 8;
    case OP_TYPE_VECTOR: return t->width_or_count * type_size(ids, id_bound, t->type_id);
    case OP_TYPE_MATRIX: return t->width_or_count * (t->matrix_stride ? t->matrix_stride : type_size(ids, id_bound, t->type_id));
    case OP_TYPE_ARRAY: {
        uint32_t n = t->length_id < id_bound ? ids[t->length_id].width_or_count : 0;
        return n * (t->array_stride ? t->array_stride : type_size(ids, id_bound, t->type_id));
    }
    case OP_TYPE_STRUCT: {
        uint32_t size = 0;
        for (uint32_t m = 0; m < t->member_count && m < MAX_MEMBERS; m++)
            size = CS_MAX(size, t->member_offsets[m] + type_size(ids, id_bound, t->member_types[m]));
        return size;
    }
    default: return 0;
    }
}

bool cs_spirv_reflect(const uint32_t *words, size_t word_count, cs_reflection *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (word_count < 5 || words[0] != 0x07230203)
        return cs_fail(err, "not a SPIR-V module");
    uint32_t id_bound = words[3];
    spv_id *ids = calloc(id_bound, sizeof *ids);

    for (size_t i = 5; i < word_count;) {
        uint32_t opcode = words[i] & 0xffff, count = words[i] >> 16;
        if (count == 0 || i + count > word_count) {
            free(ids);
            return cs_fail(err, "malformed SPIR-V at word %zu", i);
        }
        const uint32_t *w = words + i;
#define ID(k) (w[k] < id_bound ? &ids[w[k]] : NULL)
        spv_id *d;
        switch (opcode) {
        case OP_EXECUTION_MODE:
            if (w[2] == EXEC_MODE_LOCAL_SIZE && count >= 6) {
                out->local_size[0] = w[3];
                out->local_size[1] = w[4];
                out->local_size[2] = w[5];
            }
            break;
        case OP_NAME:
            if ((d = ID(1)))
                d->name = (const char *)(w + 2);
            break;
        case OP_TYPE_INT:
        case OP_TYPE_FLOAT:
            if ((d = ID(1))) { d->opcode = opcode; d->width_or_count = w[2]; }
            break;
        case OP_TYPE_VECTOR:
        case OP_TYPE_MATRIX:
            if ((d = ID(1))) { d->opcode = opcode; d->type_id = w[2]; d->width_or_count = w[3]; }
            break;
        case OP_TYPE_IMAGE:
            if ((d = ID(1))) { d->opcode = opcode; d->sampled = count > 7 ? w[7] : 0; }
            break;
        case OP_TYPE_SAMPLER:
            if ((d = ID(1))) d->opcode = opcode;
            break;
        case OP_TYPE_SAMPLED_IMAGE:
            if ((d = ID(1))) { d->opcode = opcode; d->type_id = w[2]; }
            break;
        case OP_TYPE_ARRAY:
            if ((d = ID(1))) { d->opcode = opcode; d->type_id = w[2]; d->length_id = w[3]; }
            break;
        case OP_TYPE_RUNTIME_ARRAY:
            if ((d = ID(1))) { d->opcode = opcode; d->type_id = w[2]; }
            break;
        case OP_TYPE_STRUCT:
            if ((d = ID(1))) {
                d->opcode = opcode;
                d->member_count = count - 2;
                d->member_types = (uint32_t *)(w + 2);
            }
            break;
        case OP_TYPE_POINTER:
            if ((d = ID(1))) { d->opcode = opcode; d->storage_class = w[2]; d->type_id = w[3]; }
            break;
        case OP_CONSTANT:
            if ((d = ID(2))) { d->opcode = opcode; d->type_id = w[1]; d->width_or_count = count > 3 ? w[3] : 0; }
            break;
        case OP_VARIABLE:
            if ((d = ID(2))) { d->opcode = opcode; d->type_id = w[1]; d->storage_class = w[3]; }
            break;
        case OP_DECORATE:
            if ((d = ID(1))) {
                switch (w[2]) {
                case DEC_BINDING: d->binding = w[3]; d->has_binding = true; break;
                case DEC_DESCRIPTOR_SET: d->set = w[3]; d->has_set = true; break;
                case DEC_BLOCK: d->block = true; break;
                case DEC_BUFFER_BLOCK: d->buffer_block = true; break;
                case DEC_ARRAY_STRIDE: d->array_stride = w[3]; break;
                }
            }
            break;
        case OP_MEMBER_DECORATE:
            if ((d = ID(1)) && w[2] < MAX_MEMBERS) {
                if (w[3] == DEC_OFFSET)
                    d->member_offsets[w[2]] = w[4];
                else if (w[3] == DEC_MATRIX_STRIDE)
                    d->matrix_stride = w[4]; // good enough: one matrix layout per struct
            }
            break;
        }
#undef ID
        i += count;
    }

    bool ok = true;
    for (uint32_t id = 0; id < id_bound && ok; id++) {
        spv_id *var = &ids[id];
        if (var->opcode != OP_VARIABLE || var->type_id >= id_bound)
            continue;
        spv_id *ptr = &ids[var->type_id];
        uint32_t pointee = ptr->type_id < id_bound ? ptr->type_id : 0;
        if (var->storage_class == SC_PUSH_CONSTANT) {
            out->push_constant_size = type_size(ids, id_bound, pointee);
            continue;
        }
        if (!var->has_binding)
            continue;
        if (var->set != 0) {
            ok = cs_fail(err, "binding %u uses descriptor set %u; cistern uses set 0 only (push descriptors)",
                         var->binding, var->set);
            break;
        }
        if (var->binding >= CS_MAX_BINDINGS) {
            ok = cs_fail(err, "binding %u is above cistern's limit of %d", var->binding, CS_MAX_BINDINGS - 1);
            break;
        }
        // Arrays of descriptors are not used by cistern; look through one level.
        spv_id *type = &ids[pointee];
        if (type->opcode == OP_TYPE_ARRAY || type->opcode == OP_TYPE_RUNTIME_ARRAY)
            type = &ids[type->type_id < id_bound ? type->type_id : 0];
        VkDescriptorType dt;
        if (var->storage_class == SC_STORAGE_BUFFER || (var->storage_class == SC_UNIFORM && type->buffer_block))
            dt = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        else if (var->storage_class == SC_UNIFORM)
            dt = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        else if (type->opcode == OP_TYPE_SAMPLED_IMAGE)
            dt = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
        else if (type->opcode == OP_TYPE_IMAGE)
            dt = type->sampled == 2 ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
        else if (type->opcode == OP_TYPE_SAMPLER)
            dt = VK_DESCRIPTOR_TYPE_SAMPLER;
        else {
            ok = cs_fail(err, "binding %u has a resource type cistern does not handle", var->binding);
            break;
        }
        out->binding_mask |= 1u << var->binding;
        out->binding_types[var->binding] = dt;
        // Name the binding after its block type (e.g. "Positions") or variable.
        const char *name = type->name && *type->name ? type->name : var->name;
        snprintf(out->binding_names[var->binding], sizeof out->binding_names[0], "%s", name ? name : "?");
    }
    free(ids);
    return ok;
}
