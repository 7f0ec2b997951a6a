// settings.c — see settings.h.
#include "settings.h"

#include "common.h"

#include <stdlib.h>
#include <string.h>

typedef struct cs_setting {
    const char *name;          // the environment variable
    size_t at, size;           // where in cs_settings (size 0: a bool set when the variable is set at all)
    const char *values;        // what it takes, for the help
    const char *help;          // what it does, one line
} cs_setting;

#define TEXT(member) offsetof(cs_settings, member), sizeof(((cs_settings *)0)->member)
#define PRESENT(member) offsetof(cs_settings, member), 0

static const cs_setting settings[] = {
    {"CISTERN_SHADER_DIR", TEXT(shader_dir), "DIR", "shader tree to compile from (default: the source tree's shaders/)"},
    {"CISTERN_SHADER_CACHE", TEXT(shader_cache), "off|DIR",
     "compiled SPIR-V kept between runs, checked against every file a shader includes (default: "
     "$XDG_CACHE_HOME/cistern/spirv, else ~/.cache/cistern/spirv)"},
    {"CISTERN_NB_LAYOUT", TEXT(nb_layout), "particle|slot",
     "neighbour lists (PBF, SPH, WCSPH) particle-major (CPU devices' default) or slot-major (GPUs' default); "
     "the same results either way"},
    {"CISTERN_SPH_LISTS", TEXT(sph_lists), "on|off",
     "Clavet SPH reads neighbour lists (default: on in 3D and for several materials in 2D); the same results "
     "either way"},
    {"CISTERN_WCSPH_LISTS", TEXT(wcsph_lists), "on|off",
     "WCSPH reads neighbour lists (default: on in 3D on CPU devices, off on GPUs, where the walk was faster); the "
     "same results either way"},
    {"CISTERN_SORT", TEXT(sort), "4|8",
     "radix sort digit bits (default: 8 on GPUs that can and whose 8-bit sort passes its self-test, 4 on CPUs); "
     "the same results either way"},
    {"CISTERN_SORT_BLOCK", TEXT(sort_block), "KEYS",
     "keys per block of the 8-bit sort, a power of two 128..65536 (default: 2048 on GPUs, 8192 on CPUs); the "
     "same results either way"},
    {"CISTERN_CHECKED_SHADERS", TEXT(checked_shaders), "1|0",
     "compile every shader with each storage-buffer access bounds-checked (slow; docs/architecture.md, "
     "\"Checked shaders\")"},
    {"CISTERN_VORTON_WALL_SHARE_DIRECT", PRESENT(vorton_wall_share_direct), "(set)",
     "the vortons' O(N^2) wall share instead of the binned one, to time the two; the same results to round-off"},
    {"CISTERN_BENCH_PLANT_NOISE", TEXT(bench_plant_noise), "K",
     "bench slows every K-th timed step (K >= 2), to test its noise verdict"},
};

static const cs_setting *find(const char *name)
{
    for (size_t i = 0; i < CS_ARRAY_COUNT(settings); i++)
        if (strcmp(settings[i].name, name) == 0)
            return &settings[i];
    return NULL;
}

bool cs_settings_set(cs_settings *s, const char *name, const char *value)
{
    const cs_setting *e = find(name);
    if (!e)
        return false;
    char *field = (char *)s + e->at;
    if (e->size == 0)
        *(bool *)field = value != NULL;
    else
        snprintf(field, e->size, "%s", value ? value : "");
    return true;
}

const char *cs_settings_get(const cs_settings *s, const char *name)
{
    const cs_setting *e = find(name);
    if (!e)
        return NULL;
    const char *field = (const char *)s + e->at;
    if (e->size == 0)
        return *(const bool *)field ? "1" : "";
    return field;
}

void cs_settings_from_env(cs_settings *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < CS_ARRAY_COUNT(settings); i++)
        cs_settings_set(s, settings[i].name, getenv(settings[i].name));
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(s->shader_cache_default, sizeof s->shader_cache_default, "%s/cistern/spirv", xdg);
    else if (home && home[0])
        snprintf(s->shader_cache_default, sizeof s->shader_cache_default, "%s/.cache/cistern/spirv", home);
}

void cs_settings_print_help(FILE *out)
{
    for (size_t i = 0; i < CS_ARRAY_COUNT(settings); i++)
        fprintf(out, "  %s=%s\n      %s\n", settings[i].name, settings[i].values, settings[i].help);
}
