// settings.h — the CISTERN_* switches: developer and test overrides (a
// shader folder, a forced sort width, a neighbour list layout, ...). They
// are read from the environment once, by the app (main.c) or the tests'
// context helper, into a cs_settings that cs_context_desc hands the
// context; the code that obeys a switch reads ctx->settings, never the
// environment. One table (settings.c) names each switch, its values and
// what it does; it drives the reading and `cistern help`'s list.
//
// Values are kept as the text given (empty: unset), so each switch is
// still checked, with its own message, where it is obeyed.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CS_SETTING_VALUE_MAX 64

typedef struct cs_settings {
    char shader_dir[4096];       // CISTERN_SHADER_DIR
    char shader_cache[4096];     // CISTERN_SHADER_CACHE
    // Where the SPIR-V cache goes when CISTERN_SHADER_CACHE is unset, from
    // the XDG base directory rule: $XDG_CACHE_HOME/cistern/spirv, else
    // $HOME/.cache/cistern/spirv; "" when neither is set (no cache).
    char shader_cache_default[4096];
    char checked_shaders[CS_SETTING_VALUE_MAX]; // CISTERN_CHECKED_SHADERS
    char sort[CS_SETTING_VALUE_MAX];            // CISTERN_SORT
    char sort_block[CS_SETTING_VALUE_MAX];      // CISTERN_SORT_BLOCK
    char nb_layout[CS_SETTING_VALUE_MAX];       // CISTERN_NB_LAYOUT
    char sph_lists[CS_SETTING_VALUE_MAX];       // CISTERN_SPH_LISTS
    char wcsph_lists[CS_SETTING_VALUE_MAX];     // CISTERN_WCSPH_LISTS
    bool vorton_wall_share_direct;              // CISTERN_VORTON_WALL_SHARE_DIRECT (set at all)
    char bench_plant_noise[CS_SETTING_VALUE_MAX]; // CISTERN_BENCH_PLANT_NOISE
} cs_settings;

// Every switch from the environment (unset ones stay empty).
void cs_settings_from_env(cs_settings *s);
// Sets one switch by its variable name (NULL value: unset), as the
// environment would; false for a name the table lacks. Tests use it to
// change a switch between two creates on one context.
bool cs_settings_set(cs_settings *s, const char *name, const char *value);
// The value of a switch by name ("" when unset; NULL for an unknown name).
const char *cs_settings_get(const cs_settings *s, const char *name);
// The table as help text: one "  NAME=VALUES  what" line per switch.
void cs_settings_print_help(FILE *out);
