// watch.h — watches a directory tree for changed files (shader hot reload).
//
// inotify on every directory, not on files: editors save by writing a
// temporary file and renaming it over the old one, which replaces the watched
// inode. Events are debounced: a file is reported once it has been quiet for
// `debounce_ms`, so a save that arrives as several events reloads once.
#pragma once

#include "common.h"

#define CS_WATCH_MAX_DIRS 64
#define CS_WATCH_MAX_PENDING 64

typedef struct cs_watch {
    int fd;
    int dir_wd[CS_WATCH_MAX_DIRS];
    char dir_path[CS_WATCH_MAX_DIRS][256];
    uint32_t dir_count;
    char pending[CS_WATCH_MAX_PENDING][512];
    uint32_t pending_count;
    double last_event_time;
    double debounce_seconds;
} cs_watch;

// Watches `root` and all its subdirectories. Returns false with a message
// when inotify is not available (hot reload is then off, not fatal).
bool cs_watch_open(cs_watch *w, const char *root, uint32_t debounce_ms, cs_error *err);
void cs_watch_close(cs_watch *w);
// Non-blocking. Fills up to `max` changed file paths (absolute, as
// root/sub/file) once the debounce time has passed; returns their count.
uint32_t cs_watch_poll(cs_watch *w, char (*paths)[512], uint32_t max);
