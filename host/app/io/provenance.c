// provenance.c — see provenance.h.
#define _GNU_SOURCE
#include "provenance.h"

#include "build_info.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static uint64_t fnv1a64(const unsigned char *bytes, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ bytes[i]) * 0x100000001b3ull;
    return h;
}

// The command line as the kernel has it (arguments joined by spaces), so
// that nothing between main() and here has to pass argv along.
static void read_command_line(char *out, size_t size)
{
    out[0] = 0;
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return;
    size_t n = fread(out, 1, size - 1, f);
    fclose(f);
    out[n] = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (out[i] == 0)
            out[i] = ' ';
}

static void read_settings(char *out, size_t size)
{
    out[0] = 0;
    size_t used = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "CISTERN_", 8) != 0)
            continue;
        int w = snprintf(out + used, size - used, "%s%s", used ? " " : "", *e);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

static void read_load(double load[3])
{
    if (getloadavg(load, 3) != 3)
        load[0] = load[1] = load[2] = -1.0; // not available: written as -1
}

void cs_provenance_begin(cs_provenance *p, const char *scene_file)
{
    memset(p, 0, sizeof *p);
    snprintf(p->commit, sizeof p->commit, "%s", CS_BUILD_COMMIT);
    p->dirty = CS_BUILD_DIRTY;
    snprintf(p->build_type, sizeof p->build_type, "%s", CS_BUILD_TYPE);
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(p->date_utc, sizeof p->date_utc, "%Y-%m-%dT%H:%M:%SZ", &utc);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    p->cores = cores > 0 ? (uint32_t)cores : 0;
    read_load(p->load_start);
    read_command_line(p->command_line, sizeof p->command_line);
    read_settings(p->settings, sizeof p->settings);
    if (scene_file) {
        snprintf(p->scene_file, sizeof p->scene_file, "%s", scene_file);
        cs_error err;
        size_t size = 0;
        char *bytes = cs_read_file(scene_file, &size, &err);
        if (bytes) {
            p->scene_hash = fnv1a64((const unsigned char *)bytes, size);
            p->scene_hashed = true;
            free(bytes);
        }
    }
}

void cs_provenance_end(cs_provenance *p)
{
    read_load(p->load_end);
    p->ended = true;
}

void cs_provenance_print(const cs_provenance *p, FILE *f)
{
    fprintf(f, "cistern: build %.12s%s (%s), %s, host %u cores, load %.2f %.2f %.2f\n", p->commit,
            p->dirty ? " + uncommitted changes" : "", p->build_type, p->date_utc, p->cores, p->load_start[0],
            p->load_start[1], p->load_start[2]);
    if (p->settings[0])
        fprintf(f, "cistern: settings %s\n", p->settings);
}

void cs_provenance_add_json(const cs_provenance *p, cJSON *root)
{
    cJSON *o = cJSON_AddObjectToObject(root, "provenance");
    cJSON_AddStringToObject(o, "commit", p->commit);
    cJSON_AddBoolToObject(o, "dirty", p->dirty);
    cJSON_AddStringToObject(o, "build_type", p->build_type);
    cJSON_AddStringToObject(o, "date_utc", p->date_utc);
    cJSON_AddNumberToObject(o, "host_cores", p->cores);
    cJSON_AddItemToObject(o, "load_start", cJSON_CreateDoubleArray(p->load_start, 3));
    if (p->ended)
        cJSON_AddItemToObject(o, "load_end", cJSON_CreateDoubleArray(p->load_end, 3));
    cJSON_AddStringToObject(o, "command_line", p->command_line);
    cJSON_AddStringToObject(o, "settings", p->settings);
    if (p->scene_file[0])
        cJSON_AddStringToObject(o, "scene_file", p->scene_file);
    if (p->scene_hashed) {
        char hex[24];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)p->scene_hash);
        cJSON_AddStringToObject(o, "scene_fnv1a64", hex);
    }
}

bool cs_provenance_busy(const cs_provenance *p, char *why, size_t size)
{
    if (p->cores == 0 || p->load_start[0] < 0 || p->load_start[0] <= 0.5 * p->cores)
        return false;
    snprintf(why, size, "the machine was busy when the run started (1-minute load average %.2f on %u cores)",
             p->load_start[0], p->cores);
    return true;
}
