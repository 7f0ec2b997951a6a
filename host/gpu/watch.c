// watch.c — see watch.h.
#define _GNU_SOURCE
#include "watch.h"

#include <dirent.h>
#include <errno.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

static void add_dir(cs_watch *w, const char *path)
{
    if (w->dir_count >= CS_WATCH_MAX_DIRS)
        return;
    int wd = inotify_add_watch(w->fd, path, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF);
    if (wd < 0)
        return;
    w->dir_wd[w->dir_count] = wd;
    snprintf(w->dir_path[w->dir_count], sizeof w->dir_path[0], "%s", path);
    w->dir_count++;
    DIR *dir = opendir(path);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char child[512];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        struct stat st;
        if (stat(child, &st) == 0 && S_ISDIR(st.st_mode))
            add_dir(w, child);
    }
    closedir(dir);
}

bool cs_watch_open(cs_watch *w, const char *root, uint32_t debounce_ms, cs_error *err)
{
    memset(w, 0, sizeof *w);
    w->debounce_seconds = debounce_ms * 1e-3;
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->fd < 0)
        return cs_fail(err, "hot reload is off: inotify_init1 failed: %s", strerror(errno));
    add_dir(w, root);
    if (w->dir_count == 0) {
        close(w->fd);
        w->fd = -1;
        return cs_fail(err, "hot reload is off: cannot watch %s", root);
    }
    return true;
}

void cs_watch_close(cs_watch *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
}

static void add_pending(cs_watch *w, const char *path)
{
    for (uint32_t i = 0; i < w->pending_count; i++)
        if (strcmp(w->pending[i], path) == 0)
            return;
    if (w->pending_count < CS_WATCH_MAX_PENDING)
        snprintf(w->pending[w->pending_count++], sizeof w->pending[0], "%s", path);
}

uint32_t cs_watch_poll(cs_watch *w, char (*paths)[512], uint32_t max)
{
    if (w->fd < 0)
        return 0;
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t len = read(w->fd, buf, sizeof buf);
        if (len <= 0)
            break;
        for (char *p = buf; p < buf + len;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            const char *dir = NULL;
            for (uint32_t i = 0; i < w->dir_count; i++)
                if (w->dir_wd[i] == ev->wd)
                    dir = w->dir_path[i];
            if (!dir || ev->len == 0 || ev->name[0] == '.')
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dir, ev->name);
            if (ev->mask & IN_ISDIR) {
                if (ev->mask & (IN_CREATE | IN_MOVED_TO))
                    add_dir(w, path);
                continue;
            }
            // Editors' temporary files (foo.glsl~, .swp, 4913) are skipped:
            // only names with a shader extension matter.
            const char *ext = strrchr(ev->name, '.');
            if (!ext || (strcmp(ext, ".comp") && strcmp(ext, ".vert") && strcmp(ext, ".frag") &&
                         strcmp(ext, ".glsl") && strcmp(ext, ".h")))
                continue;
            add_pending(w, path);
            w->last_event_time = cs_now_seconds();
        }
    }
    if (w->pending_count == 0 || cs_now_seconds() - w->last_event_time < w->debounce_seconds)
        return 0;
    uint32_t n = CS_MIN(w->pending_count, max);
    for (uint32_t i = 0; i < n; i++)
        memcpy(paths[i], w->pending[i], sizeof paths[i]);
    w->pending_count = 0;
    return n;
}
