// watch.c — see watch.h.
#define _GNU_SOURCE
#include "watch.h"

#include <dirent.h>
#include <errno.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define WATCH_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF)

// Makes room for `needed` items of `item_size` bytes; doubles, so a burst of
// n paths costs O(log n) reallocations.
static void *grow(void *items, uint32_t *capacity, uint32_t needed, size_t item_size)
{
    if (needed <= *capacity)
        return items;
    uint32_t cap = *capacity ? *capacity : 16;
    while (cap < needed)
        cap *= 2;
    items = realloc(items, (size_t)cap * item_size);
    CS_ASSERT(items, "out of memory growing the shader watcher to %u entries", cap);
    *capacity = cap;
    return items;
}

// Linear dedup: bursts are hundreds of paths at most, and each is compared
// once per event.
static void paths_add(cs_watch_paths *list, const char *path)
{
    for (uint32_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i], path) == 0)
            return;
    list->items = grow(list->items, &list->capacity, list->count + 1, sizeof list->items[0]);
    snprintf(list->items[list->count++], sizeof list->items[0], "%s", path);
}

static void paths_free(cs_watch_paths *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

// Editors' temporary files (foo.glsl~, .swp, 4913) are skipped: only names
// with a shader extension matter.
static bool is_shader_name(const char *name)
{
    const char *ext = strrchr(name, '.');
    return name[0] != '.' && ext &&
           (!strcmp(ext, ".comp") || !strcmp(ext, ".vert") || !strcmp(ext, ".frag") ||
            !strcmp(ext, ".glsl") || !strcmp(ext, ".h"));
}

// dir/name into out; a path too long for cs_watch_path is said, not cut.
static bool join(cs_watch_path out, const char *dir, const char *name)
{
    if (snprintf(out, sizeof(cs_watch_path), "%s/%s", dir, name) < (int)sizeof(cs_watch_path))
        return true;
    fprintf(stderr, "cistern: hot reload ignores %s/%s: path longer than %zu bytes\n", dir, name,
            sizeof(cs_watch_path) - 1);
    return false;
}

static void add_dir(cs_watch *w, const char *path, bool report_files);

// Watches the subdirectories of `path`; with `report_files`, also reports
// the shader files already there (they were written before the directory
// was watched, so no event will come for them).
static void scan_dir(cs_watch *w, const char *path, bool report_files)
{
    DIR *dir = opendir(path);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir))) {
        cs_watch_path child;
        struct stat st;
        if (e->d_name[0] == '.' || !join(child, path, e->d_name) || stat(child, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            add_dir(w, child, report_files);
        else if (report_files && S_ISREG(st.st_mode) && is_shader_name(e->d_name))
            paths_add(&w->pending, child);
    }
    closedir(dir);
}

static int find_dir(const cs_watch *w, int wd)
{
    for (uint32_t i = 0; i < w->dir_count; i++)
        if (w->dirs[i].wd == wd)
            return (int)i;
    return -1;
}

static void add_dir(cs_watch *w, const char *path, bool report_files)
{
    int wd = inotify_add_watch(w->fd, path, WATCH_MASK);
    if (wd < 0) {
        // ENOSPC: fs.inotify.max_user_watches is reached. Say so: a silent
        // gap would leave stale shaders running.
        fprintf(stderr, "cistern: hot reload cannot watch %s: %s\n", path, strerror(errno));
        return;
    }
    // The same inode again (a symlink, or an event for a directory the scan
    // already found): it is watched, and scanning it again could loop.
    if (find_dir(w, wd) >= 0)
        return;
    w->dirs = grow(w->dirs, &w->dir_capacity, w->dir_count + 1, sizeof w->dirs[0]);
    w->dirs[w->dir_count].wd = wd;
    snprintf(w->dirs[w->dir_count].path, sizeof w->dirs[0].path, "%s", path);
    w->dir_count++;
    scan_dir(w, path, report_files);
}

bool cs_watch_open(cs_watch *w, const char *root, uint32_t debounce_ms, cs_error *err)
{
    memset(w, 0, sizeof *w);
    w->debounce_seconds = debounce_ms * 1e-3;
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->fd < 0)
        return cs_fail(err, "hot reload is off: inotify_init1 failed: %s", strerror(errno));
    add_dir(w, root, false);
    if (w->dir_count == 0) {
        cs_watch_close(w);
        return cs_fail(err, "hot reload is off: cannot watch %s", root);
    }
    return true;
}

void cs_watch_close(cs_watch *w)
{
    if (w->fd >= 0)
        close(w->fd);
    free(w->dirs);
    paths_free(&w->pending);
    paths_free(&w->reported);
    memset(w, 0, sizeof *w);
    w->fd = -1;
}

// The kernel dropped events: which files changed is unknown, so every shader
// file in every watched directory counts as changed.
static void report_everything(cs_watch *w)
{
    fprintf(stderr, "cistern: hot reload missed events (inotify queue overflow); reloading every shader\n");
    for (uint32_t i = 0; i < w->dir_count; i++) {
        cs_watch_path path; // w->dirs may move while scanning adds directories
        memcpy(path, w->dirs[i].path, sizeof path);
        scan_dir(w, path, true);
    }
}

static void handle_event(cs_watch *w, const struct inotify_event *ev)
{
    if (ev->mask & IN_Q_OVERFLOW) {
        report_everything(w);
        w->last_event_time = cs_now_seconds();
        return;
    }
    int index = find_dir(w, ev->wd);
    if (index < 0)
        return;
    if (ev->mask & IN_IGNORED) {
        // The directory is gone: forget it, so a long session that creates
        // and deletes directories does not grow the list for ever.
        w->dirs[index] = w->dirs[--w->dir_count];
        return;
    }
    cs_watch_path path;
    if (ev->len == 0 || ev->name[0] == '.' || !join(path, w->dirs[index].path, ev->name))
        return;
    if (ev->mask & IN_ISDIR) {
        if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
            add_dir(w, path, true);
            w->last_event_time = cs_now_seconds();
        }
        return;
    }
    if (!is_shader_name(ev->name))
        return;
    paths_add(&w->pending, path);
    w->last_event_time = cs_now_seconds();
}

uint32_t cs_watch_poll(cs_watch *w, cs_watch_path **paths)
{
    *paths = NULL;
    if (w->fd < 0)
        return 0;
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t len = read(w->fd, buf, sizeof buf);
        if (len <= 0)
            break;
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            handle_event(w, ev);
        }
    }
    if (w->pending.count == 0 || cs_now_seconds() - w->last_event_time < w->debounce_seconds)
        return 0;
    // Hand out the pending list and collect the next burst in the storage of
    // the previous report, which the caller no longer uses.
    cs_watch_paths done = w->pending;
    w->pending = w->reported;
    w->pending.count = 0;
    w->reported = done;
    *paths = w->reported.items;
    return w->reported.count;
}
