// scene_reload.h — a running scene's file, watched for saves (`cistern run
// --watch`), and the text a refused reload shows in the image.
//
// The shader watcher (host/gpu/watch.h) watches a tree by inotify; a scene
// is one file anywhere, so this one compares the file's identity (device,
// inode, size, modification time) once a frame: an editor's save by
// rename makes a new inode, an in-place write a new size or time. A change
// is reported once the file has been quiet for `debounce` seconds, so a save
// that writes in several steps reloads once.
#pragma once

#include "common.h"

#include <sys/stat.h>

typedef struct cs_file_watch {
    char path[512];
    bool exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    bool pending;            // changed, not yet reported
    double changed_at;       // cs_now_seconds() of the latest change seen
    double debounce;
} cs_file_watch;

// Starts from the file as it is now.
void cs_file_watch_open(cs_file_watch *w, const char *path, double debounce_seconds);
// True once per change, when the file has been quiet for the debounce time.
bool cs_file_watch_poll(cs_file_watch *w, double now);

// The image's alert text for a scene that failed to reload: a headline,
// then the message (file:line:column or file: key.path: what) wrapped into
// lines of at most `columns` characters (at spaces where it can),
// continuation lines indented, ASCII only (stb_easy_font).
void cs_scene_reload_alert(char *out, size_t size, const char *msg, uint32_t columns);
// The same for a shader reload that failed: a headline, "failed: NAMES",
// then the compiler's message, every path shown relative to `shader_dir`
// (the folder's prefix dropped), wrapped like the scene's, at most
// `max_lines` lines of the message (then "...").
void cs_shader_reload_alert(char *out, size_t size, const char *names, const char *msg, const char *shader_dir,
                            uint32_t columns, uint32_t max_lines);
