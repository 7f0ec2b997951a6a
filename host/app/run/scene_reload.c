// scene_reload.c — the scene file's watcher and its alert text (scene_reload.h).
#define _POSIX_C_SOURCE 200809L
#include "scene_reload.h"

#include <string.h>

static void look(cs_file_watch *w, bool *exists, struct stat *st)
{
    *exists = stat(w->path, st) == 0;
}

static bool same(const cs_file_watch *w, bool exists, const struct stat *st)
{
    if (exists != w->exists)
        return false;
    if (!exists)
        return true;
    return st->st_dev == w->dev && st->st_ino == w->ino && st->st_size == w->size &&
           st->st_mtim.tv_sec == w->mtime.tv_sec && st->st_mtim.tv_nsec == w->mtime.tv_nsec;
}

static void keep(cs_file_watch *w, bool exists, const struct stat *st)
{
    w->exists = exists;
    if (exists) {
        w->dev = st->st_dev;
        w->ino = st->st_ino;
        w->size = st->st_size;
        w->mtime = st->st_mtim;
    }
}

void cs_file_watch_open(cs_file_watch *w, const char *path, double debounce_seconds)
{
    *w = (cs_file_watch){.debounce = debounce_seconds};
    snprintf(w->path, sizeof w->path, "%s", path);
    struct stat st;
    bool exists;
    look(w, &exists, &st);
    keep(w, exists, &st);
}

bool cs_file_watch_poll(cs_file_watch *w, double now)
{
    struct stat st;
    bool exists;
    look(w, &exists, &st);
    if (!same(w, exists, &st)) {
        keep(w, exists, &st);
        w->pending = true;
        w->changed_at = now;
        return false;
    }
    // A file that is gone is reported once it stays gone (its message says
    // so); one that is back is a change like any other.
    if (w->pending && now - w->changed_at >= w->debounce) {
        w->pending = false;
        return true;
    }
    return false;
}

// Appends `text` to out[*used..]: ASCII only (stb_easy_font draws nothing
// else: '?'), every occurrence of `drop` removed (a folder prefix), each line
// wrapped at a space (or, in a word longer than half a line, mid-word) to
// at most `columns` characters, continuation lines indented by two spaces;
// at most `max_lines` lines (0: no limit), a last line "..." saying that more
// was left out. Wrapping keeps the end of a long line, which cutting lost.
static void append_wrapped(char *out, size_t size, size_t *used, const char *text, const char *drop,
                           uint32_t columns, uint32_t max_lines)
{
    size_t drop_len = drop ? strlen(drop) : 0;
    uint32_t lines = 0;
    const char *p = text;
    while (*p && *used + 2 < size) {
        if (max_lines && lines == max_lines) {
            *used += (size_t)snprintf(out + *used, size - *used, "...\n");
            break;
        }
        // One output line: up to `width` characters of the text, folder
        // prefixes skipped, up to the line's end.
        uint32_t width = columns, indent = 0;
        if (p != text && p[-1] != '\n')
            indent = 2, width = columns > 2 ? columns - 2 : 1;
        char line[512] = "";
        uint32_t n = 0, space = 0;
        const char *after_space = NULL;
        while (*p && *p != '\n' && n < width && n + 1 < sizeof line) {
            if (drop && drop_len && strncmp(p, drop, drop_len) == 0) {
                p += drop_len;
                continue;
            }
            if (*p == ' ')
                space = n, after_space = p + 1;
            line[n++] = (*p >= 32 && *p < 127) ? *p : '?';
            p++;
        }
        bool full = *p && *p != '\n';
        if (full && after_space && space >= width / 2) { // break at the last space, the word goes on the next line
            n = space;
            p = after_space;
        }
        if (!full && *p == '\n')
            p++;
        *used += (size_t)snprintf(out + *used, size - *used, "%*s%.*s\n", (int)indent, "", (int)n, line);
        *used = CS_MIN(*used, size - 1);
        lines++;
    }
}

void cs_scene_reload_alert(char *out, size_t size, const char *msg, uint32_t columns)
{
    if (size == 0)
        return;
    size_t used = (size_t)snprintf(out, size, "SCENE ERROR - previous scene running; fix and save\n");
    used = CS_MIN(used, size - 1);
    append_wrapped(out, size, &used, msg, NULL, columns, 0);
    // No newline after the last line (the overlay adds its own text after).
    if (used > 0 && out[used - 1] == '\n')
        used--;
    out[used] = 0;
}

void cs_shader_reload_alert(char *out, size_t size, const char *names, const char *msg, const char *shader_dir,
                            uint32_t columns, uint32_t max_lines)
{
    if (size == 0)
        return;
    // The shader folder's prefix is dropped from every path: the programs'
    // names are relative to it already, and an absolute path took most of a
    // line ("/home/.../shaders/fluid/predict.comp:32: error").
    char drop[4200] = "";
    if (shader_dir && shader_dir[0])
        snprintf(drop, sizeof drop, "%s%s", shader_dir, shader_dir[strlen(shader_dir) - 1] == '/' ? "" : "/");
    size_t used = (size_t)snprintf(out, size, "SHADER ERROR - previous shaders running; fix and save\n");
    used = CS_MIN(used, size - 1);
    char failed[600];
    snprintf(failed, sizeof failed, "failed: %s", names);
    append_wrapped(out, size, &used, failed, drop, columns, 2);
    append_wrapped(out, size, &used, msg, drop, columns, max_lines);
    out[used] = 0;
}
