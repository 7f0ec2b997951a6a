// scene_reload.c — the scene file's watcher and its alert text (scene_reload.h).
#define _POSIX_C_SOURCE 200809L
#include "scene_reload.h"

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

void cs_scene_reload_alert(char *out, size_t size, const char *msg, uint32_t columns)
{
    if (size == 0)
        return;
    size_t used = (size_t)snprintf(out, size, "SCENE ERROR - previous scene running; fix and save\n");
    uint32_t column = 0;
    for (const char *p = msg; *p && used + 2 < size; p++) {
        if (*p == '\n' || column == columns) {
            out[used++] = '\n';
            column = 0;
            if (*p == '\n')
                continue;
        }
        out[used++] = (*p >= 32 && *p < 127) ? *p : '?';
        column++;
    }
    out[CS_MIN(used, size - 1)] = 0;
}
