// cli_shared.c — what several commands' option tables share: the --device
// and --set setters, the scene names under scenes/ (for "did you mean"),
// and whether there is a display to open a window on.
#include "cli.h"
#include "scene.h"
#include "scene_edit.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// ---- setters shared by several tables ------------------------------------

// --device N|NAME: any string but an empty one.
bool cs_cli_set_device(const cs_cli_option *o, void *opts, const char *v)
{
    if (!v) {
        fprintf(stderr, "cistern: --device wants an index or a name (see `cistern devices`)\n");
        return false;
    }
    if (!*v) {
        fprintf(stderr, "cistern: --device wants an index or a name, not an empty string (see `cistern devices`)\n");
        return false;
    }
    *(const char **)((char *)opts + o->at) = v;
    return true;
}

// --set KEY.PATH=VALUE, repeatable: appended to a cs_scene_edits (scene_edit.h).
bool cs_cli_set_scene_edit(const cs_cli_option *o, void *opts, const char *v)
{
    cs_error err;
    if (!v) {
        fprintf(stderr, "cistern: --set wants KEY.PATH=VALUE, e.g. --set fluids[0].materials[0].viscosity=0.2\n");
        return false;
    }
    if (!cs_scene_edits_add((cs_scene_edits *)((char *)opts + o->at), v, &err)) {
        fprintf(stderr, "cistern: --set %s\n", err.msg);
        return false;
    }
    return true;
}

#define CS_CLI_SET_HELP "change one scene key before the scene is read, as if the file said so (repeatable; key paths as " \
                 "in the scene's error messages: fluids[0].materials[0].viscosity=0.2, gravity[1]=-3, " \
                 "surface.iso=0.4; VALUE is JSON, a bare word a string, null removes the key)"
#define CS_CLI_DEVICE_HELP "pick a device by index or name substring (see `cistern devices`)"
#define CS_CLI_VALIDATION_HELP "Vulkan validation + synchronization validation (slow)"
// ---- the scenes in scenes/ ------------------------------------------------

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

// The scene names under CS_SOURCE_DIR/scenes (file names without .json),
// sorted, in storage that lives as long as the process. Returns the count.
uint32_t cs_cli_scene_names(const char **names, uint32_t max)
{
    static char storage[CS_CLI_MAX_SCENES][128];
    char dir_path[512];
    snprintf(dir_path, sizeof dir_path, "%s/scenes", CS_SOURCE_DIR);
    DIR *dir = opendir(dir_path);
    if (!dir)
        return 0;
    uint32_t n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < max && n < CS_CLI_MAX_SCENES) {
        size_t len = strlen(e->d_name);
        if (len < 6 || len - 5 >= sizeof storage[0] || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        snprintf(storage[n], sizeof storage[n], "%.*s", (int)(len - 5), e->d_name);
        names[n] = storage[n];
        n++;
    }
    closedir(dir);
    qsort(names, n, sizeof names[0], compare_names);
    return n;
}

// A scene argument that names no file: the loader's message, with the
// nearest name in scenes/ when there is a likely one. True when `scene`
// is a path or a name whose file exists (the command loads it then).
bool cs_cli_check_scene(const char *scene)
{
    if (!scene || strchr(scene, '/') || strstr(scene, ".json"))
        return true;
    char local[512], source[512];
    snprintf(local, sizeof local, "scenes/%s.json", scene);
    snprintf(source, sizeof source, "%s/scenes/%s.json", CS_SOURCE_DIR, scene);
    if (access(local, R_OK) == 0 || access(source, R_OK) == 0)
        return true;
    cs_scene s;
    cs_error err;
    if (cs_scene_load(scene, &s, &err)) { // appeared in between: let the command load it
        cs_scene_free(&s);
        return true;
    }
    const char *names[CS_CLI_MAX_SCENES];
    const char *near = cs_cli_nearest(scene, names, cs_cli_scene_names(names, CS_CLI_MAX_SCENES));
    if (near)
        fprintf(stderr, "cistern: %s; did you mean %s?\n", err.msg, near);
    else
        fprintf(stderr, "cistern: %s\n", err.msg);
    return false;
}

bool cs_cli_has_display(void)
{
    const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

