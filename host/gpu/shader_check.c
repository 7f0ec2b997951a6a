// shader_check.c — see shader_check.h.
//
// The rewrite works on the preprocessor's output, which is flat (includes
// pasted in, macros expanded, comments gone) and keeps `#line N "file"`
// directives, so each access can be named by its source file and line. It
// is a token scan, not a GLSL parser; what it relies on:
//  - every storage buffer is declared `layout(..., binding = N) [qualifiers]
//    buffer Name { members } [instance];` at global scope;
//  - an array member is accessed as `member[expr]`, or `instance.member[expr]`
//    when the block has an instance name;
//  - an identifier followed by `[` and preceded by another identifier (other
//    than `return` or `else`) is a declaration (`float weights[4]`), not an
//    access, so a local that shares a buffer member's name is not rewritten
//    where it is declared. Where it is used it is (its own length() is
//    checked then, under the buffer's binding in the message).
#define _GNU_SOURCE
#include "shader_check.h"

#include <ctype.h>

#define MAX_ARRAYS 64

typedef struct checked_array {
    char name[32];
    char instance[32];      // "" when the block has no instance name
    uint32_t binding;
} checked_array;

// The text of a block's braces: copied as it is (its declarations are not
// accesses).
typedef struct block_body {
    size_t open, close;     // offsets of '{' and '}'
} block_body;

typedef struct text_builder {
    char *data;
    size_t length, capacity;
} text_builder;

typedef struct rewrite_state {
    const char *text;
    checked_array arrays[MAX_ARRAYS];
    uint32_t array_count;
    block_body bodies[MAX_ARRAYS];
    uint32_t body_count;
    const char *dir;        // dropped from the front of file names
    // Where the scan is in the source, from the #line directives.
    char file[256];
    uint32_t line;
    cs_check_site *sites;
    uint32_t site_count, site_capacity;
    text_builder out;
} rewrite_state;

static void append(text_builder *b, const char *s, size_t n)
{
    if (b->length + n + 1 > b->capacity) {
        size_t capacity = CS_MAX(2 * b->capacity, b->length + n + 1024);
        char *grown = realloc(b->data, capacity);
        CS_ASSERT(grown, "out of memory for a checked shader of %zu bytes", capacity);
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, s, n);
    b->length += n;
    b->data[b->length] = 0;
}

static void append_text(text_builder *b, const char *s)
{
    append(b, s, strlen(s));
}

static bool is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static bool is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static size_t skip_space(const char *text, size_t i)
{
    while (text[i] && isspace((unsigned char)text[i]))
        i++;
    return i;
}

static bool at_line_start(const char *text, size_t i)
{
    while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t'))
        i--;
    return i == 0 || text[i - 1] == '\n';
}

// The identifier that ends just before `end` (spaces skipped), copied into
// `out`; "" when the text before is not an identifier.
static void identifier_before(const char *text, size_t end, char *out, size_t out_size)
{
    while (end > 0 && isspace((unsigned char)text[end - 1]))
        end--;
    size_t start = end;
    while (start > 0 && is_ident_char(text[start - 1]))
        start--;
    size_t n = end - start;
    if (n == 0 || n >= out_size || !is_ident_start(text[start])) {
        out[0] = 0;
        return;
    }
    memcpy(out, text + start, n);
    out[n] = 0;
}

// ---------------------------------------------------------------------------
// Finding the buffer blocks

// The binding number in the declaration that ends at `buffer_at` (the
// `buffer` keyword): searched back to the previous ';' or '}'. -1 if none.
static long block_binding(const char *text, size_t buffer_at)
{
    size_t start = buffer_at;
    while (start > 0 && text[start - 1] != ';' && text[start - 1] != '}')
        start--;
    const char *found = NULL;
    for (const char *p = text + start; p < text + buffer_at; p++)
        if (strncmp(p, "binding", 7) == 0 && (p == text || !is_ident_char(p[-1])) && !is_ident_char(p[7]))
            found = p;
    if (!found)
        return -1;
    size_t i = skip_space(text, (size_t)(found - text) + 7);
    if (text[i] != '=')
        return -1;
    i = skip_space(text, i + 1);
    if (!isdigit((unsigned char)text[i]))
        return -1;
    return strtol(text + i, NULL, 10);
}

// Adds the array members of the block body text[open+1 .. close).
static bool add_block_arrays(rewrite_state *s, size_t open, size_t close, uint32_t binding, const char *instance,
                             cs_error *err)
{
    const char *text = s->text;
    size_t member = open + 1;
    for (size_t i = open + 1; i <= close; i++) {
        if (text[i] != ';' && i != close)
            continue;
        const char *bracket = memchr(text + member, '[', i - member);
        if (bracket) {
            checked_array *a = &s->arrays[s->array_count];
            if (s->array_count == MAX_ARRAYS)
                return cs_fail(err, "checked shaders: more than %d buffer arrays in one shader", MAX_ARRAYS);
            identifier_before(text, (size_t)(bracket - text), a->name, sizeof a->name);
            if (a->name[0]) {
                snprintf(a->instance, sizeof a->instance, "%s", instance);
                a->binding = binding;
                s->array_count++;
            }
        }
        member = i + 1;
    }
    return true;
}

// Reads the block whose `buffer` keyword is at `at`: its body and arrays.
static bool read_block(rewrite_state *s, size_t at, cs_error *err)
{
    const char *text = s->text;
    long binding = block_binding(text, at);
    size_t i = skip_space(text, at + 6);
    while (is_ident_char(text[i]))
        i++; // the block name
    i = skip_space(text, i);
    if (text[i] != '{')
        return true; // not a block declaration (e.g. a parameter qualifier)
    size_t open = i, close = i;
    int depth = 0;
    for (; text[close]; close++) {
        depth += text[close] == '{';
        depth -= text[close] == '}';
        if (depth == 0)
            break;
    }
    if (!text[close])
        return cs_fail(err, "checked shaders: a buffer block has no closing brace");
    if (s->body_count == MAX_ARRAYS)
        return cs_fail(err, "checked shaders: more than %d buffer blocks in one shader", MAX_ARRAYS);
    s->bodies[s->body_count++] = (block_body){open, close};
    if (binding < 0)
        return true; // no binding: reflection refuses it anyway
    if (binding == CS_CHECK_BINDING)
        return cs_fail(err, "checked shaders: binding %d is reserved for the bounds-check record; use another",
                       CS_CHECK_BINDING);
    char instance[32] = "";
    size_t after = skip_space(text, close + 1);
    size_t name_end = after;
    while (is_ident_char(text[name_end]))
        name_end++;
    if (name_end > after && name_end - after < sizeof instance) {
        memcpy(instance, text + after, name_end - after);
        instance[name_end - after] = 0;
    }
    return add_block_arrays(s, open, close, (uint32_t)binding, instance, err);
}

static bool find_blocks(rewrite_state *s, cs_error *err)
{
    const char *text = s->text;
    for (size_t i = 0; text[i];) {
        if (text[i] == '#' && at_line_start(text, i)) {
            const char *end = strchr(text + i, '\n');
            i = end ? (size_t)(end - text) + 1 : strlen(text);
            continue;
        }
        if (!is_ident_start(text[i]) || (i > 0 && is_ident_char(text[i - 1]))) {
            i++;
            continue;
        }
        size_t end = i;
        while (is_ident_char(text[end]))
            end++;
        if (end - i == 6 && strncmp(text + i, "buffer", 6) == 0 && !read_block(s, i, err))
            return false;
        i = end;
    }
    return true;
}

// ---------------------------------------------------------------------------
// Rewriting the accesses

// Follows a preprocessor line: `#line N "file"` names the next line.
static void follow_directive(rewrite_state *s, const char *line, size_t length)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%.*s", (int)CS_MIN(length, sizeof copy - 1), line);
    unsigned number;
    char file[256];
    if (sscanf(copy, " # line %u \"%255[^\"]\"", &number, file) == 2) {
        s->line = number - 1; // the directive's own newline adds one
        snprintf(s->file, sizeof s->file, "%s", file);
    } else if (sscanf(copy, " # line %u", &number) == 1) {
        s->line = number - 1;
    }
}

// The array `name` (spelt at text[start..end)) names, when that spot is an
// access to it; NULL otherwise.
static const checked_array *accessed_array(const rewrite_state *s, size_t start, size_t end)
{
    const char *text = s->text;
    size_t next = skip_space(text, end);
    if (text[next] != '[')
        return NULL;
    size_t before = start;
    while (before > 0 && isspace((unsigned char)text[before - 1]))
        before--;
    bool after_dot = before > 0 && text[before - 1] == '.';
    char previous[32];
    identifier_before(text, after_dot ? before - 1 : before, previous, sizeof previous);
    if (!after_dot && previous[0] && strcmp(previous, "return") != 0 && strcmp(previous, "else") != 0)
        return NULL; // a declaration: `type name[...]`
    for (uint32_t k = 0; k < s->array_count; k++) {
        const checked_array *a = &s->arrays[k];
        if (strlen(a->name) != end - start || strncmp(a->name, text + start, end - start) != 0)
            continue;
        if (a->instance[0] ? after_dot && strcmp(previous, a->instance) == 0 : !after_dot)
            return a;
    }
    return NULL;
}

static uint32_t add_site(rewrite_state *s, const checked_array *a)
{
    if (s->site_count == s->site_capacity) {
        s->site_capacity = s->site_capacity ? 2 * s->site_capacity : 32;
        s->sites = realloc(s->sites, s->site_capacity * sizeof *s->sites);
        CS_ASSERT(s->sites, "out of memory for %u checked sites", s->site_capacity);
    }
    cs_check_site *site = &s->sites[s->site_count];
    size_t dir = strlen(s->dir);
    bool inside = dir && strncmp(s->file, s->dir, dir) == 0 && s->file[dir] == '/';
    snprintf(site->file, sizeof site->file, "%s", inside ? s->file + dir + 1 : s->file);
    site->line = s->line;
    site->binding = a->binding;
    snprintf(site->array, sizeof site->array, "%s", a->name);
    return s->site_count++;
}

static bool rewrite_range(rewrite_state *s, size_t begin, size_t end, cs_error *err);

// Writes `name[expr]` (the brackets at open and close) as the checked
// access, rewriting the accesses inside expr first.
static bool rewrite_access(rewrite_state *s, const checked_array *a, size_t open, size_t close, cs_error *err)
{
    uint32_t site = add_site(s, a);
    append_text(&s->out, "[cs_check_index(");
    if (!rewrite_range(s, open + 1, close, err))
        return false;
    char tail[128];
    snprintf(tail, sizeof tail, ", %s%s%s.length(), %uu)]", a->instance, a->instance[0] ? "." : "", a->name, site);
    append_text(&s->out, tail);
    return true;
}

static size_t matching_bracket(const char *text, size_t open, size_t end)
{
    int depth = 0;
    for (size_t i = open; i < end; i++) {
        depth += text[i] == '[';
        depth -= text[i] == ']';
        if (depth == 0)
            return i;
    }
    return end;
}

static bool rewrite_range(rewrite_state *s, size_t begin, size_t end, cs_error *err)
{
    const char *text = s->text;
    size_t i = begin;
    while (i < end) {
        char c = text[i];
        if (c == '#' && at_line_start(text, i)) {
            const char *nl = memchr(text + i, '\n', end - i);
            size_t stop = nl ? (size_t)(nl - text) : end;
            follow_directive(s, text + i, stop - i);
            append(&s->out, text + i, stop - i);
            i = stop;
            continue;
        }
        const block_body *body = NULL;
        for (uint32_t k = 0; k < s->body_count && !body; k++)
            if (s->bodies[k].open == i)
                body = &s->bodies[k];
        if (body) {
            for (size_t j = body->open; j <= body->close; j++)
                s->line += text[j] == '\n';
            append(&s->out, text + body->open, body->close + 1 - body->open);
            i = body->close + 1;
            continue;
        }
        if (c == '\n')
            s->line++;
        if (!is_ident_start(c) && !isdigit((unsigned char)c)) {
            append(&s->out, &c, 1);
            i++;
            continue;
        }
        // A whole token: an identifier, or a number (whose letters, as in
        // 1e5 or 2u, are not identifiers).
        size_t stop = i;
        while (stop < end && (is_ident_char(text[stop]) || (isdigit((unsigned char)c) && text[stop] == '.')))
            stop++;
        append(&s->out, text + i, stop - i);
        const checked_array *a = is_ident_start(c) ? accessed_array(s, i, stop) : NULL;
        if (!a) {
            i = stop;
            continue;
        }
        size_t open = skip_space(text, stop);
        for (size_t j = stop; j < open; j++)
            s->line += text[j] == '\n';
        append(&s->out, text + stop, open - stop); // the spaces before '['
        size_t close = matching_bracket(text, open, end);
        if (close >= end)
            return cs_fail(err, "checked shaders: %s:%u: no ']' closes %s[", s->file, s->line, a->name);
        if (!rewrite_access(s, a, open, close, err))
            return false;
        i = close + 1;
    }
    return true;
}

// ---------------------------------------------------------------------------
// The record and the check function, put in front of the first line of code
// (on that line, so no line number moves).

static const char k_prelude[] =
    "layout(std430, binding = " CS_CHECK_BINDING_TEXT ") buffer CsCheckRecord { uint cs_check_violations; "
    "uint cs_check_site; uint cs_check_bad_index; uint cs_check_length; uvec3 cs_check_invocation; "
    "uint cs_check_negative; }; "
    "void cs_check_fail(uint index, int len, uint site, uint negative) { "
    "if (atomicAdd(cs_check_violations, 1u) == 0u) { cs_check_site = site; cs_check_bad_index = index; "
    "cs_check_length = uint(len); cs_check_invocation = gl_GlobalInvocationID; cs_check_negative = negative; } } "
    "int cs_check_index(int index, int len, uint site) { if (index >= 0 && index < len) return index; "
    "cs_check_fail(uint(index), len, site, index < 0 ? 1u : 0u); return clamp(index, 0, max(len - 1, 0)); } "
    "uint cs_check_index(uint index, int len, uint site) { if (index < uint(len)) return index; "
    "cs_check_fail(index, len, site, 0u); return uint(max(len - 1, 0)); } ";

// Offset of the first line that is not a preprocessor line or blank.
static size_t first_code_line(const char *text)
{
    size_t i = 0;
    while (text[i]) {
        size_t start = skip_space(text, i);
        size_t line_start = start;
        while (line_start > i && text[line_start - 1] != '\n')
            line_start--;
        if (text[start] != '#')
            return line_start;
        const char *nl = strchr(text + start, '\n');
        if (!nl)
            break;
        i = (size_t)(nl - text) + 1;
    }
    return strlen(text);
}

bool cs_check_rewrite(const char *text, const char *dir, char **out, cs_check_site **sites, uint32_t *site_count,
                      cs_error *err)
{
    *out = NULL;
    *sites = NULL;
    *site_count = 0;
    rewrite_state *s = calloc(1, sizeof *s);
    CS_ASSERT(s, "out of memory");
    s->text = text;
    s->dir = dir ? dir : "";
    s->line = 1;
    bool ok = find_blocks(s, err);
    size_t code = first_code_line(text);
    if (ok) {
        // Everything before the first line of code is directives: copy it
        // through rewrite_range so the #line bookkeeping sees it.
        ok = rewrite_range(s, 0, code, err);
    }
    if (ok) {
        append_text(&s->out, k_prelude);
        ok = rewrite_range(s, code, strlen(text), err);
    }
    if (ok && s->site_count > 0) {
        *out = s->out.data;
        *sites = s->sites;
        *site_count = s->site_count;
    } else {
        // Nothing to check (or a failure): the text as it was.
        free(s->out.data);
        free(s->sites);
        if (ok)
            *out = strdup(text);
    }
    free(s);
    return ok;
}
