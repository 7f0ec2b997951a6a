// cli.c — the option-table machinery of cli.h: one parser for every command,
// the per-command --help and the Markdown of docs/cli.md, all from the rows.
#include "cli.h"

#include <ctype.h>
#include <math.h>

// A whole number with an optional k / M suffix (16k, 1.5M), from min to max.
// Every comparison is written so that NaN fails it: strtod reads "nan", and
// casting NaN to an integer is undefined behaviour.
bool cs_cli_parse_count(const char *flag, const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
    char *end;
    double v = strtod(text ? text : "", &end);
    if (!text || end == text)
        goto bad;
    if (*end == 'k' || *end == 'K')
        v *= 1e3, end++;
    else if (*end == 'M' || *end == 'm')
        v *= 1e6, end++;
    if (*end || !(v >= 0 && v <= 4e9) || v != floor(v))
        goto bad;
    if (v < min || v > max) {
        if (max == UINT32_MAX)
            fprintf(stderr, "cistern: %s must be at least %u (got \"%s\")\n", flag, min, text);
        else
            fprintf(stderr, "cistern: %s wants %u to %u (got \"%s\")\n", flag, min, max, text);
        return false;
    }
    *out = (uint32_t)v;
    return true;
bad:
    fprintf(stderr, "cistern: %s wants a whole number (got \"%s\")\n", flag, text ? text : "nothing");
    return false;
}

// WIDTHxHEIGHT, each 1..16384.
bool cs_cli_parse_size(const char *flag, const char *text, uint32_t *width, uint32_t *height)
{
    char rest = 0;
    // %c catches anything after HEIGHT; a digit first refuses "-5x3", which %u would wrap.
    if (!text || !isdigit((unsigned char)text[0]) || sscanf(text, "%ux%u%c", width, height, &rest) != 2 || !*width ||
        !*height || *width > 16384 || *height > 16384) {
        fprintf(stderr, "cistern: %s wants WIDTHxHEIGHT, e.g. 1280x720 (got \"%s\")\n", flag, text ? text : "");
        return false;
    }
    return true;
}

// "a|b|c" -> "a, b or c" for messages.
static void choices_text(const char *choices, char *out, size_t size)
{
    size_t used = 0;
    uint32_t total = 1;
    for (const char *c = choices; *c; c++)
        total += *c == '|';
    uint32_t k = 0;
    for (const char *c = choices; *c && used + 8 < size; k++) {
        size_t len = strcspn(c, "|");
        const char *sep = k == 0 ? "" : k + 1 == total ? " or " : ", ";
        used += (size_t)snprintf(out + used, size - used, "%s%.*s", sep, (int)len, c);
        c += len + (c[len] == '|');
    }
}

// The index of `value` among "a|b|c", or -1.
static int choice_index(const char *choices, const char *value)
{
    int k = 0;
    for (const char *c = choices; *c; k++) {
        size_t len = strcspn(c, "|");
        if (strlen(value) == len && strncmp(c, value, len) == 0)
            return k;
        c += len + (c[len] == '|');
    }
    return -1;
}

// Parses `value` for row o and writes it into opts.
static bool apply(const cs_cli_option *o, void *opts, const char *value)
{
    void *field = (char *)opts + o->at; // the option's field, of the type o->kind says
    switch (o->kind) {
    case CS_CLI_FLAG:
        if (o->set)
            return o->set(o, opts, NULL);
        *(bool *)field = true;
        return true;
    case CS_CLI_UINT:
        return cs_cli_parse_count(o->name, value, (uint32_t)o->min, (uint32_t)o->max, (uint32_t *)field);
    case CS_CLI_INT: {
        uint32_t n;
        if (!cs_cli_parse_count(o->name, value, (uint32_t)o->min, (uint32_t)o->max, &n))
            return false;
        *(int *)field = (int)n;
        return true;
    }
    case CS_CLI_FLOAT: {
        char *end = NULL;
        double v = value ? strtod(value, &end) : 0.0;
        if (!value || end == value || *end || !(v >= o->min && v <= o->max)) {
            fprintf(stderr, "cistern: %s wants %s, %.10g to %.10g (got \"%s\")\n", o->name, o->unit, o->min, o->max,
                    value ? value : "");
            return false;
        }
        *(double *)field = v;
        return true;
    }
    case CS_CLI_STRING:
    case CS_CLI_PATH:
        if (!value) {
            fprintf(stderr, "cistern: %s wants %s\n", o->name, o->kind == CS_CLI_PATH ? "a path" : "a value");
            return false;
        }
        *(const char **)field = value;
        return true;
    case CS_CLI_SIZE:
        return cs_cli_parse_size(o->name, value, (uint32_t *)field, (uint32_t *)field + 1);
    case CS_CLI_CHOICE: {
        int k = value ? choice_index(o->choices, value) : -1;
        if (k < 0) {
            char list[256];
            choices_text(o->choices, list, sizeof list);
            fprintf(stderr, "cistern: %s wants %s (got \"%s\")\n", o->name, list, value ? value : "");
            return false;
        }
        if (o->size == sizeof(bool))
            *(bool *)field = k == 1;
        else
            *(int *)field = k;
        return true;
    }
    case CS_CLI_SETTER:
        return o->set(o, opts, value);
    }
    return false;
}

static const cs_cli_option *find_option(const cs_cli_command *cmd, const char *name)
{
    for (uint32_t k = 0; k < cmd->option_count; k++)
        if (strcmp(cmd->options[k].name, name) == 0)
            return &cmd->options[k];
    return NULL;
}

const char *cs_cli_nearest(const char *word, const char *const *names, uint32_t count)
{
    // A third of the word's length, at least 2: "--frmes" finds "--frames",
    // "dam_brake_3d" finds "dam_break_3d", "--x" finds nothing.
    return cs_nearest_name(word, names, count, CS_MAX(2u, (uint32_t)(strlen(word) / 3)));
}

bool cs_cli_parse(const cs_cli_command *cmd, int argc, char **argv, int first, void *opts, cs_cli_parsed *parsed)
{
    *parsed = (cs_cli_parsed){0};
    if (cmd->option_count > CS_CLI_MAX_OPTIONS) {
        fprintf(stderr, "cistern: %s: %u options, more than CS_CLI_MAX_OPTIONS\n", cmd->name, cmd->option_count);
        return false;
    }
    for (uint32_t k = 0; k < cmd->option_count; k++)
        if (cmd->options[k].def && !apply(&cmd->options[k], opts, cmd->options[k].def))
            return false; // a table's own default that does not parse: the message names it
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        const cs_cli_option *o = find_option(cmd, a);
        if (o) {
            const char *value = NULL;
            if (o->arg) {
                value = i + 1 < argc ? argv[i + 1] : NULL;
                i++;
            }
            if (!apply(o, opts, value))
                return false;
            parsed->given[o - cmd->options] = true;
        } else if (a[0] == '-') {
            const char *names[CS_CLI_MAX_OPTIONS];
            for (uint32_t k = 0; k < cmd->option_count; k++)
                names[k] = cmd->options[k].name;
            const char *near = cs_cli_nearest(a, names, cmd->option_count);
            fprintf(stderr, "cistern: %s: unknown option %s%s%s%s; `cistern %s --help` lists them\n", cmd->name, a,
                    near ? " (did you mean " : "", near ? near : "", near ? "?)" : "", cmd->name);
            return false;
        } else if (!cmd->positional) {
            fprintf(stderr, "cistern: %s takes no arguments (got \"%s\"); `cistern %s --help` lists its options\n",
                    cmd->name, a, cmd->name);
            return false;
        } else if (parsed->positional_given) {
            const char **pos = (const char **)((char *)opts + cmd->positional_at);
            fprintf(stderr, "cistern: %s: one %s at a time (got \"%s\" and \"%s\")\n", cmd->name, cmd->positional,
                    *pos, a);
            return false;
        } else {
            *(const char **)((char *)opts + cmd->positional_at) = a;
            parsed->positional_given = true;
        }
    }
    return true;
}

bool cs_cli_given(const cs_cli_command *cmd, const cs_cli_parsed *parsed, const char *name)
{
    const cs_cli_option *o = find_option(cmd, name);
    return o && parsed->given[o - cmd->options];
}

// Writes `text` from column `col` on, wrapped at `width` with continuation
// lines indented to `indent`.
static void print_wrapped(FILE *out, const char *text, int col, int indent, int width)
{
    const char *p = text;
    while (*p) {
        int word = (int)strcspn(p, " ");
        if (col > indent && col + 1 + word > width) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", word, p);
        col += word;
        p += word;
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}

// The command's notes, then those it composes.
static void print_notes(FILE *out, const cs_cli_command *cmd)
{
    if (cmd->notes)
        fputs(cmd->notes, out);
    if (cmd->notes_more) {
        char more[2048];
        cmd->notes_more(more, sizeof more);
        fputs(more, out);
    }
}

void cs_cli_print_help(FILE *out, const cs_cli_command *cmd)
{
    fprintf(out, "usage: cistern %s%s%s\n\n", cmd->name, cmd->args ? " " : "", cmd->args ? cmd->args : "");
    print_wrapped(out, cmd->summary, 0, 0, 100);
    if (cmd->option_count)
        fprintf(out, "\n%s options:\n", cmd->name);
    for (uint32_t k = 0; k < cmd->option_count; k++) {
        const cs_cli_option *o = &cmd->options[k];
        char head[64], line[1024];
        snprintf(head, sizeof head, "  %s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        snprintf(line, sizeof line, "%s%s%s%s", o->help, o->def ? " [default: " : "", o->def ? o->def : "",
                 o->def ? "]" : "");
        int col = fprintf(out, "%-25s", head);
        if (col > 25) {
            fprintf(out, "\n%25s", "");
            col = 25;
        }
        print_wrapped(out, line, col, 25, 110);
    }
    if (cmd->notes || cmd->notes_more)
        fputc('\n', out);
    print_notes(out, cmd);
}

// A table cell: '|' escaped so that a choice list does not split the row.
void cs_cli_print_cell(FILE *out, const char *text)
{
    for (const char *c = text; *c; c++)
        if (*c == '|')
            fputs("\\|", out);
        else
            fputc(*c, out);
}

void cs_cli_print_markdown(FILE *out, const cs_cli_command *cmd)
{
    fprintf(out, "## cistern %s\n\n", cmd->name);
    fprintf(out, "`cistern %s%s%s`: %s\n\n", cmd->name, cmd->args ? " " : "", cmd->args ? cmd->args : "",
            cmd->summary);
    if (cmd->option_count) {
        fprintf(out, "| option | value | default | what |\n|---|---|---|---|\n");
        for (uint32_t k = 0; k < cmd->option_count; k++) {
            const cs_cli_option *o = &cmd->options[k];
            fprintf(out, "| `%s` | ", o->name);
            if (o->arg) {
                fputc('`', out);
                cs_cli_print_cell(out, o->arg);
                fputc('`', out);
            }
            fprintf(out, " | %s%s%s | ", o->def ? "`" : "", o->def ? o->def : "", o->def ? "`" : "");
            cs_cli_print_cell(out, o->help);
            fprintf(out, " |\n");
        }
        fputc('\n', out);
    }
    if (cmd->notes || cmd->notes_more) {
        fprintf(out, "```\n");
        print_notes(out, cmd);
        fprintf(out, "```\n\n");
    }
}

static cs_settings g_settings;

void cs_cli_read_settings(void)
{
    cs_settings_from_env(&g_settings);
}

const cs_settings *cs_cli_settings(void)
{
    return &g_settings;
}
