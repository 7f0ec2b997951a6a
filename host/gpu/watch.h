// watch.h — watches a directory tree for changed files (shader hot reload).
//
// inotify on every directory, not on files: editors save by writing a
// temporary file and renaming it over the old one, which replaces the watched
// inode. Events are debounced: a file is reported once it has been quiet for
// `debounce_ms`, so a save that arrives as several events reloads once.
//
// Nothing is capped: the set of watched directories and the set of changed
// paths grow as needed, so a burst such as `git checkout` reports every file.
// Directories created (or moved in) later are watched too, and the shader
// files already inside them are reported. If the kernel's event queue
// overflows, every shader file in the tree is reported: reloading too much is
// slow, missing a change would leave a stale shader running.
#pragma once

#include "common.h"

// One path as the watcher reports it: root/sub/file.
typedef char cs_watch_path[512];

typedef struct cs_watch_dir {
    int wd;
    cs_watch_path path;
} cs_watch_dir;

// A growable list of distinct paths.
typedef struct cs_watch_paths {
    cs_watch_path *items;
    uint32_t count;
    uint32_t capacity;
} cs_watch_paths;

typedef struct cs_watch {
    int fd;
    cs_watch_dir *dirs;
    uint32_t dir_count;
    uint32_t dir_capacity;
    cs_watch_paths pending;  // changed since the last report, deduplicated
    cs_watch_paths reported; // what the last cs_watch_poll handed out
    double last_event_time;
    double debounce_seconds;
} cs_watch;

// Watches `root` and all its subdirectories. Returns false with a message
// when inotify is not available (hot reload is then off, not fatal).
bool cs_watch_open(cs_watch *w, const char *root, uint32_t debounce_ms, cs_error *err);
// Frees everything, including the array the last poll returned.
void cs_watch_close(cs_watch *w);
// Non-blocking. Once the debounce time has passed, points *paths at every
// changed file path (each once) and returns their count; otherwise returns 0.
// The array belongs to the watcher and stays valid until the next
// cs_watch_poll or cs_watch_close.
uint32_t cs_watch_poll(cs_watch *w, cs_watch_path **paths);
