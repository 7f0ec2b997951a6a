// cli.h — the command line as data: each command is a cs_cli_command with
// one table of options (cs_cli_option rows). The same rows drive parsing,
// `cistern COMMAND --help` and docs/cli.md (`cistern help --markdown`), so
// an option is one row: adding one to a command's table is the whole change
// (plus reading the field where the command runs).
//
// A row says where its value goes as an offset into the command's options
// struct (CS_CLI_AT), what kind of value it takes (the parser checks it and
// writes the message), its default as text (applied through the same parser
// before argv, so --help's default is the one that runs) and one line of
// description. Parsing that fits no kind is a setter callback on the row.
#pragma once

#include "common.h"
#include "settings.h"

#include <stddef.h>

typedef enum cs_cli_kind {
    CS_CLI_FLAG,     // no value: bool field = true
    CS_CLI_UINT,     // uint32_t, a whole number from min to max (16k, 1M allowed)
    CS_CLI_INT,      // int, a whole number from min to max (min >= 0; the field's initializer can be -1: "none")
    CS_CLI_FLOAT,    // double from min to max; `unit` names it in the message
    CS_CLI_STRING,   // const char * (argv's own string)
    CS_CLI_PATH,     // const char *, a file or folder
    CS_CLI_SIZE,     // WIDTHxHEIGHT, each 1..16384: two uint32_t, width then height
    CS_CLI_CHOICE,   // one of `choices` ("ply|obj"): its index into an int, or a bool (index 1 = true)
    CS_CLI_SETTER,   // set() parses the value (NULL when argv has none) and prints its own error
} cs_cli_kind;

typedef struct cs_cli_option cs_cli_option;
// Returns false after printing what is wrong ("cistern: --x wants ...").
typedef bool (*cs_cli_setter)(const cs_cli_option *o, void *opts, const char *value);

struct cs_cli_option {
    const char *name;       // "--frames"
    cs_cli_kind kind;
    size_t at, size;        // CS_CLI_AT(type, member): where the value goes in the options struct
    const char *arg;        // the value's placeholder in --help ("N", "DIR", "WxH"); NULL: a flag
    double min, max;        // UINT, INT, FLOAT: the accepted range
    const char *unit;       // FLOAT: what the number is, for the message ("metres")
    const char *choices;    // CHOICE: "material|speed|density"
    cs_cli_setter set;      // SETTER (and a FLAG whose setting is more than true)
    const char *def;        // default, parsed like a given value; NULL: the struct's initializer
    const char *help;       // one line
};

#define CS_CLI_AT(type, member) .at = offsetof(type, member), .size = sizeof(((type *)0)->member)

typedef struct cs_cli_command {
    const char *name;            // "run"
    const char *args;            // after the name in usage lines: "[SCENE] [options]"
    const char *summary;         // one line for `cistern help`
    const char *positional;      // what a bare argument is ("scene"); NULL: none taken
    size_t positional_at;        // const char * in the options struct
    const cs_cli_option *options;
    uint32_t option_count;
    const char *notes;           // printed after the options (keys, conventions); may be NULL
    // Optional: notes composed at run time from another table (the render
    // features' window keys), printed after `notes`.
    void (*notes_more)(char *out, size_t size);
} cs_cli_command;

#define CS_CLI_MAX_OPTIONS 64

// What cs_cli_parse saw: given[k] for options[k], and the positional argument.
typedef struct cs_cli_parsed {
    bool given[CS_CLI_MAX_OPTIONS];
    bool positional_given;
} cs_cli_parsed;

// Applies every row's default, then argv[first..argc) into opts. Unknown
// options are refused with the nearest name ("did you mean --frames?").
// Returns false after printing the error (the command exits 2).
bool cs_cli_parse(const cs_cli_command *cmd, int argc, char **argv, int first, void *opts, cs_cli_parsed *parsed);

// Whether option `name` (a row of cmd) was on the command line.
bool cs_cli_given(const cs_cli_command *cmd, const cs_cli_parsed *parsed, const char *name);

// `cistern CMD --help`: usage, summary, the table, the notes.
void cs_cli_print_help(FILE *out, const cs_cli_command *cmd);
// docs/cli.md's section of one command, and one table cell ('|' escaped).
void cs_cli_print_markdown(FILE *out, const cs_cli_command *cmd);
void cs_cli_print_cell(FILE *out, const char *text);

// The nearest of `names` to `word` (cs_nearest_name, common.h) when it is
// close enough to be a likely typo (NULL otherwise).
const char *cs_cli_nearest(const char *word, const char *const *names, uint32_t count);

// The parsers behind the kinds, for setters that take the same syntax.
// Each prints "cistern: FLAG ..." and returns false on a bad value.
bool cs_cli_parse_count(const char *flag, const char *text, uint32_t min, uint32_t max, uint32_t *out);
bool cs_cli_parse_size(const char *flag, const char *text, uint32_t *width, uint32_t *height);

// The CISTERN_* switches (settings.h): main() reads them from the
// environment once, before any command runs; every context the commands
// create takes them (cs_context_desc's settings).
void cs_cli_read_settings(void);
const cs_settings *cs_cli_settings(void);

// ---- shared by several commands' tables (cli_shared.c) ---------------------

#define CS_CLI_DEFAULT_SCENE "dam_break_3d"
#define CS_CLI_STR_(x) #x
#define CS_CLI_STR(x) CS_CLI_STR_(x)
#define CS_CLI_COUNT(a) ((uint32_t)CS_ARRAY_COUNT(a))
// CS_CLI_SIZE (--size WxH) writes the height right after the width.
#define CS_CLI_SIZE_FIELDS_ADJACENT(type) \
    _Static_assert(offsetof(type, height) == offsetof(type, width) + sizeof(uint32_t), #type ": height after width")

#define CS_CLI_SET_HELP \
    "change one scene key before the scene is read, as if the file said so (repeatable; key paths as "         \
    "in the scene's error messages: fluids[0].materials[0].viscosity=0.2, gravity[1]=-3, "                      \
    "surface.iso=0.4; VALUE is JSON, a bare word a string, null removes the key)"
#define CS_CLI_DEVICE_HELP "pick a device by index or name substring (see `cistern devices`)"
#define CS_CLI_VALIDATION_HELP "Vulkan validation + synchronization validation (slow)"

// --device N|NAME: any string but an empty one, stored as a const char *.
bool cs_cli_set_device(const cs_cli_option *o, void *opts, const char *v);
// --set KEY.PATH=VALUE, repeatable: appended to a cs_scene_edits (scene_edit.h).
bool cs_cli_set_scene_edit(const cs_cli_option *o, void *opts, const char *v);

#define CS_CLI_MAX_SCENES 256
// The scene names under CS_SOURCE_DIR/scenes (file names without .json),
// sorted, in storage that lives as long as the process. Returns the count.
uint32_t cs_cli_scene_names(const char **names, uint32_t max);
// A scene argument that names no file: prints the loader's message, with
// the nearest name in scenes/ when there is a likely one, and returns
// false. True when `scene` is a path or a name whose file exists.
bool cs_cli_check_scene(const char *scene);
// DISPLAY or WAYLAND_DISPLAY set: a window can be tried.
bool cs_cli_has_display(void);
