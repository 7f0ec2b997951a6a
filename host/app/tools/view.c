// view.c — `cistern view` (see view.h). The level is drawn by the render
// feature "level" (host/render/feature_level.c) like any other part of a
// frame; this command only loads it, places the camera and loops. Lit by
// radiosity (--light radiosity, or B), the level's faces and room lights
// are compiled as a scene's would be (world_radiosity.h, level_light.h),
// and the geometry feature draws them.
#define _XOPEN_SOURCE 700 // realpath
#include "view.h"

#include "file_io.h"
#include "cli.h"
#include "geometry.h"
#include "level_flood.h"
#include "level_mesh.h"
#include "output.h"
#include "panel.h"
#include "render.h"
#include "run.h"
#include "window.h"
#include "world_radiosity.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

typedef struct view_state {
    const cs_view_options *opt;
    cs_level_mesh mesh;
    cs_scene scene;            // what the render core reads: domain, background, fog
    cs_geometry geometry;      // no triangles of its own: the radiosity settings the level is lit with
    cs_world_radiosity radiosity;
    bool radiosity_made;       // compiled (on first use)
    bool radiosity_shown;      // false: TR1's baked vertex light
    cs_view_camera camera;
    cs_context ctx;
    cs_renderer renderer;
    cs_recorder rec;           // headless: one image a room, waited on at once
    // Window: a ring of frames in flight, as run's loop keeps it (one submit
    // a frame that waits for the acquired image and signals its present; the
    // loop waits only for the frame that last used the slot it reuses).
    cs_recorder frames[CS_FRAMES_IN_FLIGHT];
    cs_window window;
    char out_dir[512];
    cs_panel *panel;           // --panel: the rooms list
    int panel_jump;            // the room its last frame picked, -1: none
    char alert[256];           // the frame's alert text (outside every room), or ""
} view_state;

// A scene with no fluid, so the render core has its domain (the level's
// bounds: camera speeds and clip planes scale with it) and a black
// background, as TR1's depth cue fades to black.
static void make_scene(view_state *v)
{
    cs_scene *s = &v->scene;
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", "level");
    s->dim = 3;
    for (int a = 0; a < 3; a++) {
        s->domain_min[a] = INFINITY;
        s->domain_max[a] = -INFINITY;
    }
    for (uint32_t r = 0; r < v->mesh.room_count; r++)
        for (int a = 0; a < 3; a++) {
            s->domain_min[a] = fminf(s->domain_min[a], (float)v->mesh.rooms[r].min[a]);
            s->domain_max[a] = fmaxf(s->domain_max[a], (float)v->mesh.rooms[r].max[a]);
        }
    if (v->mesh.room_count == 0)
        for (int a = 0; a < 3; a++)
            s->domain_min[a] = 0, s->domain_max[a] = 1;
    s->gravity[1] = -9.81f;
    // The level, and how it is lit by radiosity: as a scene's "level" and
    // "radiosity" blocks would say (level_radiosity_3d's settings).
    s->level.enabled = true;
    snprintf(s->level.file, sizeof s->level.file, "%s", v->opt->level);
    snprintf(s->path, sizeof s->path, "%s", v->opt->level); // messages name the level, not ""
    s->level.units_per_metre = v->mesh.units_per_metre;
    v->geometry.lighting = cs_scene_lighting_default();
    v->geometry.lighting.radiosity_given = true;
    v->geometry.lighting.patch_size = v->opt->patch_size;
    v->geometry.lighting.exposure = 1.0;
    s->geometry = &v->geometry;
}

// Compiles the level's radiosity the first time it is shown.
static bool make_radiosity(view_state *v, cs_error *err)
{
    if (v->radiosity_made)
        return true;
    double start = cs_now_seconds();
    v->ctx.size_advice = "raise --patch-size (fewer patches)";
    bool made = cs_world_radiosity_create(&v->ctx, &v->scene, &v->radiosity, err);
    v->ctx.size_advice = NULL;
    if (!made)
        return false;
    v->radiosity_made = true;
    if (!v->opt->quiet)
        printf("radiosity: %u patches at %g m, %u room lights, compiled in %.1f s\n", v->radiosity.compiled.patch_count,
               v->opt->patch_size, v->radiosity.lighting->light_count, cs_now_seconds() - start);
    return true;
}

// The camera in the room's open space (cs_level_room_eye: an open floor
// sector near its middle, at 40% of its height), looking at the middle of
// its first portal (so the walk has something to show), else along -z
// (north).
static void place_camera(view_state *v, uint32_t room)
{
    cs_view_camera *c = &v->camera;
    cs_camera_from_scene(c, &v->scene);
    const cs_level_room *r = &v->mesh.rooms[room];
    double eye[3];
    cs_level_room_eye(&v->mesh, room, eye);
    double target[3] = {eye[0], eye[1], eye[2] - 1};
    if (r->portal_count) {
        const cs_level_portal *p = &v->mesh.portals[r->first_portal];
        for (int a = 0; a < 3; a++)
            target[a] = 0.25 * (p->corners[0][a] + p->corners[1][a] + p->corners[2][a] + p->corners[3][a]);
        if (fabs(target[0] - eye[0]) + fabs(target[2] - eye[2]) < 1e-6) // a floor or ceiling portal: look across
            target[2] = eye[2] - 1, target[1] = eye[1];
    }
    memcpy(c->position, eye, sizeof eye);
    memcpy(c->target, target, sizeof target);
    c->up[0] = 0, c->up[1] = 1, c->up[2] = 0;
    c->fov_degrees = 70;
    c->near_plane = 0.05;
    c->far_plane = 4 * v->mesh.fog_end;
}

// Outside every room the level draws nothing (the portal walk starts from
// the camera's room): an image that is black, without a word, looked like a
// broken renderer. The frame says where the camera is and how to get back:
// Tab (the window) places it in the middle of room `next_room`. Returns
// the room the camera is in, -1 outside.
static int say_where(view_state *v, uint32_t next_room)
{
    int in = cs_level_room_at(&v->mesh, v->camera.position);
    v->alert[0] = 0;
    if (in < 0)
        snprintf(v->alert, sizeof v->alert,
                 "OUTSIDE EVERY ROOM: nothing to draw here\n"
                 "Tab: back into room %u (of %u), or fly back in (WASD/QE)",
                 v->mesh.room_count ? next_room % v->mesh.room_count : 0, v->mesh.room_count);
    return in;
}

// `seconds`: the level's clock, for its animated textures. Lit by
// radiosity, the light and its bounces are gathered first, every frame.
static void record_frame(view_state *v, cs_recorder *rec, const cs_render_target *target, double seconds)
{
    bool radiosity = v->radiosity_shown && v->radiosity_made;
    if (radiosity) {
        cs_world_radiosity_record(&v->radiosity, rec, seconds);
        cs_barrier_compute_to_graphics(rec);
    }
    cs_render_frame frame = {.target = target, .scene = &v->scene, .camera = &v->camera, .color_mode = -1,
                             .hide_box = true, .no_fog = v->opt->no_fog, .alert = v->alert[0] ? v->alert : NULL};
    cs_render_level level = {.mesh = &v->mesh, .baked = !radiosity, .time = seconds};
    cs_render_frame_add(&frame, CS_DRAWABLE_LEVEL, &level);
    cs_render_frame_add(&frame, CS_DRAWABLE_RADIOSITY, radiosity ? &v->radiosity : NULL);
    if (v->panel) {
        cs_panel_level panel_level = {.level = v->opt->level, .mesh = &v->mesh,
                                      .camera_room = cs_level_room_at(&v->mesh, v->camera.position),
                                      .rooms_drawn = v->renderer.level_rooms_drawn, .radiosity_shown = radiosity};
        frame.ui = cs_panel_level_frame(v->panel, &panel_level, target ? target->width : v->renderer.width,
                                        target ? target->height : v->renderer.height, &v->panel_jump);
    }
    cs_render_record(&v->renderer, rec, &frame);
}

// The mean of an image's RGB bytes, 0..255 (the headless line's check figure).
static double mean_byte(const uint8_t *rgba, uint32_t width, uint32_t height)
{
    double sum = 0;
    for (size_t i = 0; i < (size_t)width * height; i++)
        sum += rgba[4 * i] + rgba[4 * i + 1] + rgba[4 * i + 2];
    return width && height ? sum / (3.0 * width * height) : 0;
}

static int view_headless(view_state *v)
{
    const cs_view_options *opt = v->opt;
    cs_error err;
    uint32_t first = opt->room >= 0 ? (uint32_t)opt->room : 0;
    uint32_t last = opt->room >= 0 ? (uint32_t)opt->room + 1 : v->mesh.room_count;
    uint32_t written = 0;
    if (opt->camera_given) // --camera: one image from there, looking along -z
        first = 0, last = 1;
    for (uint32_t room = first; room < last; room++) {
        place_camera(v, room);
        if (opt->camera_given) {
            memcpy(v->camera.position, opt->camera, sizeof opt->camera);
            v->camera.target[0] = opt->camera[0], v->camera.target[1] = opt->camera[1];
            v->camera.target[2] = opt->camera[2] - 1;
        }
        int in = say_where(v, 0);
        cs_recorder_begin(&v->rec);
        record_frame(v, &v->rec, NULL, 0.0);
        cs_render_record_readback(&v->renderer, &v->rec);
        cs_recorder_submit_wait(&v->rec);
        char path[700];
        if (opt->camera_given)
            snprintf(path, sizeof path, "%s/camera.png", v->out_dir);
        else
            snprintf(path, sizeof path, "%s/room_%03u.png", v->out_dir, room);
        if (!cs_write_png(path, v->renderer.width, v->renderer.height, cs_render_pixels(&v->renderer), &err)) {
            fprintf(stderr, "cistern: view: %s\n", err.msg);
            return 1;
        }
        written++;
        if (opt->camera_given && in < 0)
            printf("camera at (%g, %g, %g): outside every room, the level draws nothing there (the image says so; "
                   "--room N or no --camera: images from inside the rooms)\n", opt->camera[0], opt->camera[1],
                   opt->camera[2]);
        else if (opt->camera_given && !opt->quiet)
            printf("camera at (%g, %g, %g): room %d\n", opt->camera[0], opt->camera[1], opt->camera[2], in);
        if (!opt->quiet && !opt->camera_given)
            printf("room %3u: %s, %u of %u rooms drawn%s, draw %.2f ms GPU, mean %.1f -> %s\n", room,
                   v->radiosity_shown ? "radiosity" : "baked light",
                   v->radiosity_shown ? v->mesh.room_count : v->renderer.level_rooms_drawn, v->mesh.room_count, v->radiosity_shown ? " (radiosity: no portal walk)" : " through portals",
                   cs_recorder_pass_ms(&v->rec, "draw"),
                   mean_byte(cs_render_pixels(&v->renderer), v->renderer.width, v->renderer.height), path);
    }
    if (!opt->quiet)
        printf("wrote %u image(s) of %s to %s/ (%u x %u; %s)\n", written, opt->level, v->out_dir,
               v->renderer.width, v->renderer.height,
               opt->camera_given ? "camera at --camera" : "camera in each room's middle");
    return 0;
}

// How the window loop used the queue, as run reports it: submits and host
// fence waits a frame (every kind; the loop itself only waits for the frame
// two back).
static void print_view_frame_report(uint32_t drawn, uint64_t submits, uint64_t waits)
{
    uint32_t n = CS_MAX(drawn, 1u);
    fprintf(stderr, "cistern: view: frame loop: %u frames, %.2f queue submits and %.2f fence waits a frame "
                    "(%d in flight)\n",
            drawn, (double)submits / n, (double)waits / n, CS_FRAMES_IN_FLIGHT);
}

static int view_window(view_state *v)
{
    const cs_view_options *opt = v->opt;
    uint32_t room = 0, drawn = 0, frames_since_title = 0;
    double start = cs_now_seconds(), last = start, title_time = last;
    uint64_t submits_before = v->ctx.queue_submits, waits_before = v->ctx.fence_waits;
    // The latest finished frame's draw ms (the title), copied when it
    // finishes: its recorder is begun again, which clears its timings.
    double last_draw_ms = -1;
    place_camera(v, room);
    for (;;) {
        cs_window_events ev;
        cs_window_poll(&v->window, &ev);
        if (v->panel) {
            cs_panel_input(v->panel, &v->window, &ev);
            if (v->panel_jump >= 0 && (uint32_t)v->panel_jump < v->mesh.room_count)
                place_camera(v, room = (uint32_t)v->panel_jump);
            v->panel_jump = -1;
        }
        if (ev.quit)
            break;
        double now = cs_now_seconds();
        cs_camera_update(&v->camera, &ev.input, now - last);
        last = now;
        if (ev.toggle_level_light) {
            cs_error err;
            if (v->radiosity_shown || make_radiosity(v, &err))
                v->radiosity_shown = !v->radiosity_shown;
            else
                fprintf(stderr, "cistern: view: radiosity: %s\n", err.msg);
        }
        if (ev.next_room && v->mesh.room_count) {
            room = (room + 1) % v->mesh.room_count;
            place_camera(v, room);
        }
        // Wait for the frame that last used this slot (two frames ago).
        uint32_t slot = drawn % CS_FRAMES_IN_FLIGHT;
        cs_recorder *rec = &v->frames[slot];
        if (rec->pending) {
            cs_recorder_wait(rec);
            last_draw_ms = cs_recorder_pass_ms(rec, "draw");
        }
        cs_render_target target;
        cs_submit_sync sync;
        if (!cs_window_acquire_frame(&v->window, slot, &target, &sync))
            continue;
        int in = say_where(v, room + 1);
        cs_recorder_begin(rec);
        record_frame(v, rec, &target, now - start);
        cs_window_record_present(&v->window, rec, false);
        cs_recorder_submit(rec, &sync);
        cs_window_present(&v->window);
        drawn++;
        frames_since_title++;
        if (now - title_time > 0.5 && last_draw_ms >= 0) {
            char title[256], where[96];
            if (in < 0)
                snprintf(where, sizeof where, "OUTSIDE EVERY ROOM (Tab: back into room %u)",
                         v->mesh.room_count ? (room + 1) % v->mesh.room_count : 0);
            else
                snprintf(where, sizeof where, "room %d, %u of %u rooms drawn", in, v->renderer.level_rooms_drawn,
                         v->mesh.room_count);
            snprintf(title, sizeof title, "cistern view — %s — %s — %s — %.0f fps, draw %.2f "
                     "ms GPU (Tab: next room, B: light)", opt->level, v->radiosity_shown ? "radiosity" : "baked light",
                     where, frames_since_title / (now - title_time), last_draw_ms);
            cs_window_set_title(&v->window, title);
            title_time = now;
            frames_since_title = 0;
        }
        if (opt->frames && drawn >= opt->frames)
            break;
    }
    for (uint32_t k = 0; k < CS_FRAMES_IN_FLIGHT; k++)
        cs_recorder_wait(&v->frames[(drawn + k) % CS_FRAMES_IN_FLIGHT]);
    print_view_frame_report(drawn, v->ctx.queue_submits - submits_before, v->ctx.fence_waits - waits_before);
    return 0;
}

// --flood-rooms "3,5": room numbers, comma separated.
static bool parse_rooms(const char *text, uint32_t *rooms, uint32_t *count)
{
    *count = 0;
    const char *p = text;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long r = strtoul(p, &end, 10);
        if (end == p || errno || r > 65535 || *count == CS_FLOOD_MAX_ROOMS || (*end && *end != ','))
            return false;
        rooms[(*count)++] = (uint32_t)r;
        p = *end ? end + 1 : end;
    }
    return *count > 0;
}

// `cistern view --flood`: the water rooms filled (level_flood.h) and run as
// a scene, written beside the images so that `cistern run` can run it again.
static int view_flood(const cs_view_options *opt)
{
    cs_error err;
    uint32_t rooms[CS_FLOOD_MAX_ROOMS], room_count = 0;
    if (opt->flood_rooms && !parse_rooms(opt->flood_rooms, rooms, &room_count)) {
        fprintf(stderr, "cistern: view: --flood-rooms %s: give room numbers separated by commas, e.g. 3,5 (at most "
                        "%d)\n", opt->flood_rooms, CS_FLOOD_MAX_ROOMS);
        return 2;
    }
    double upm = opt->units_per_metre > 0 ? opt->units_per_metre : CS_LEVEL_DEFAULT_UNITS_PER_METRE;
    cs_tr1_level level;
    if (!cs_tr1_load(opt->level, &level, NULL, &err)) {
        fprintf(stderr, "cistern: view: %s\n", err.msg);
        return 1;
    }
    cs_level_flood *flood = malloc(sizeof *flood);
    CS_ASSERT(flood, "out of memory");
    bool planned = cs_level_flood_plan(&level, upm, rooms, room_count,
                                       opt->flood_particles ? opt->flood_particles : 20000, flood, &err);
    cs_tr1_free(&level);
    if (!planned) {
        fprintf(stderr, "cistern: view: --flood: %s: %s\n", opt->level, err.msg);
        free(flood);
        return 2;
    }
    char text[512];
    cs_level_flood_text(flood, text, sizeof text);
    printf("flood: %s: %s\n", opt->level, text);
    // The scene file: the level by its absolute path (a scene's paths are
    // relative to the scene file), beside the output folder.
    char level_path[PATH_MAX], out_dir[600], scene_path[700];
    if (!realpath(opt->level, level_path)) {
        fprintf(stderr, "cistern: view: %s: %s\n", opt->level, strerror(errno));
        free(flood);
        return 1;
    }
    char name[256];
    snprintf(name, sizeof name, "%s", opt->level);
    char *base = basename(name), *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = 0;
    if (opt->out_dir)
        snprintf(out_dir, sizeof out_dir, "%s", opt->out_dir);
    else
        snprintf(out_dir, sizeof out_dir, "out/view/%s_flood", base);
    size_t dir_len = strlen(out_dir);
    while (dir_len > 1 && out_dir[dir_len - 1] == '/')
        out_dir[--dir_len] = 0;
    snprintf(scene_path, sizeof scene_path, "%s.json", out_dir);
    // The scene goes beside the run's folder, outside what the run's own
    // --overwrite check covers: a file there already is someone's.
    struct stat st;
    if (!opt->overwrite && lstat(scene_path, &st) == 0) {
        fprintf(stderr, "cistern: view: --flood: %s exists (the flood's scene is written there, beside --out %s): "
                        "add --overwrite to replace it, or give another --out\n", scene_path, out_dir);
        free(flood);
        return 2;
    }
    static char json[65536];
    bool written = cs_level_flood_scene_json(flood, level_path, upm, json, sizeof json);
    free(flood);
    char parent[700];
    snprintf(parent, sizeof parent, "%s", scene_path);
    char *slash = strrchr(parent, '/');
    if (slash)
        *slash = 0;
    if (!written || (slash && !cs_make_dirs(parent, &err)) ||
        !cs_write_whole_file(scene_path, json, strlen(json), true, &err)) {
        fprintf(stderr, "cistern: view: --flood: %s\n", written ? err.msg : "the scene does not fit its buffer");
        return 1;
    }
    printf("flood: the scene is %s (cistern run %s runs it again)\n", scene_path, scene_path);
    fflush(stdout); // before the run's own lines
    // The view options that mean something to a run (main.c refuses the
    // others): the panel, the size, the frames, and --no-fog as an edit.
    cs_run_options run = {.scene = scene_path, .headless = opt->headless, .frames = opt->frames,
                          .out_dir = out_dir, .overwrite = opt->overwrite, .png_every = 10,
                          .device = opt->device, .validation = opt->validation, .capture_frame = -1,
                          .color_mode = -1, .width = opt->width, .height = opt->height, .quiet = opt->quiet,
                          .panel = opt->panel};
    if (opt->no_fog && !cs_scene_edits_add(&run.edits, "render.fog_density=0", &err)) {
        fprintf(stderr, "cistern: view: --flood --no-fog: %s\n", err.msg);
        return 1;
    }
    int code = cs_run(&run);
    cs_scene_edits_free(&run.edits);
    return code;
}

int cs_view_command(const cs_view_options *opt)
{
    if (opt->flood)
        return view_flood(opt);
    view_state *v = calloc(1, sizeof *v);
    CS_ASSERT(v, "out of memory");
    v->opt = opt;
    cs_error err;
    int code = 1;
    double upm = opt->units_per_metre > 0 ? opt->units_per_metre : CS_LEVEL_DEFAULT_UNITS_PER_METRE;
    if (!cs_level_mesh_load(opt->level, upm, &v->mesh, &err)) {
        fprintf(stderr, "cistern: view: %s\n", err.msg);
        free(v);
        return 1;
    }
    make_scene(v);
    if (opt->room >= (int)v->mesh.room_count) {
        fprintf(stderr, "cistern: view: --room %d: %s has rooms 0..%d\n", opt->room, opt->level,
                (int)v->mesh.room_count - 1);
        cs_level_mesh_free(&v->mesh);
        free(v);
        return 2;
    }
    bool windowed = !opt->headless && (getenv("DISPLAY") || getenv("WAYLAND_DISPLAY"));
    if (windowed && !cs_window_create(&(cs_window_desc){.title = "cistern view", .width = opt->width,
                                                        .height = opt->height, .vsync = true},
                                      &v->window, &err)) {
        fprintf(stderr, "cistern: view: %s; drawing headless instead\n", err.msg);
        windowed = false;
    }
    if (!windowed) {
        char name[256];
        snprintf(name, sizeof name, "%s", opt->level);
        char *base = basename(name), *dot = strrchr(base, '.');
        if (dot && dot != base)
            *dot = 0;
        if (opt->out_dir)
            snprintf(v->out_dir, sizeof v->out_dir, "%s", opt->out_dir);
        else
            snprintf(v->out_dir, sizeof v->out_dir, "out/view/%s", base);
        if (!cs_prepare_out_dir(v->out_dir, opt->overwrite, CS_OUT_VIEW, &err)) {
            fprintf(stderr, "cistern: view: %s\n", err.msg);
            cs_level_mesh_free(&v->mesh);
            free(v);
            return 2;
        }
    }
    cs_context_desc desc = {.validation = opt->validation, .device = opt->device, .verbose = !opt->quiet,
                            .settings = cs_cli_settings(),
                            .instance_extensions = windowed ? v->window.instance_extensions : NULL,
                            .instance_extension_count = windowed ? v->window.instance_extension_count : 0};
    if (!cs_context_create(&desc, &v->ctx, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        if (windowed)
            cs_window_destroy(&v->window);
        cs_level_mesh_free(&v->mesh);
        free(v);
        return 1;
    }
    bool ok = !windowed || cs_window_attach(&v->window, &v->ctx, &err);
    cs_renderer_desc rd = {.color_format = windowed ? v->window.format : 0,
                           .width = windowed ? 0 : (opt->width ? opt->width : 640),
                           .height = windowed ? 0 : (opt->height ? opt->height : 360)};
    bool renderer_made = ok && cs_renderer_create(&v->ctx, &rd, &v->renderer, &err);
    if (!renderer_made) {
        fprintf(stderr, "cistern: view: %s\n", err.msg);
    } else {
        cs_recorder_create(&v->ctx, "view", &v->rec);
        for (uint32_t i = 0; i < CS_FRAMES_IN_FLIGHT; i++) {
            cs_recorder_create(&v->ctx, "view frame", &v->frames[i]);
            v->frames[i].frame_slot = i;
        }
        v->panel = opt->panel ? cs_panel_create(windowed) : NULL;
        v->panel_jump = -1;
        if (opt->radiosity && !make_radiosity(v, &err))
            fprintf(stderr, "cistern: view: radiosity: %s\n", err.msg);
        else {
            v->radiosity_shown = opt->radiosity;
            code = windowed ? view_window(v) : view_headless(v);
        }
        vkDeviceWaitIdle(v->ctx.device);
        if (v->radiosity_made)
            cs_world_radiosity_destroy(&v->ctx, &v->radiosity);
        for (uint32_t i = 0; i < CS_FRAMES_IN_FLIGHT; i++)
            cs_recorder_destroy(&v->frames[i]);
        cs_recorder_destroy(&v->rec);
        cs_panel_destroy(v->panel);
        cs_renderer_destroy(&v->renderer);
    }
    if (windowed)
        cs_window_destroy(&v->window);
    if (v->ctx.validation_errors) {
        fprintf(stderr, "cistern: %u Vulkan validation error(s) were reported\n", v->ctx.validation_errors);
        code = 1;
    }
    cs_context_destroy(&v->ctx);
    cs_level_mesh_free(&v->mesh);
    free(v);
    return code;
}

// ---- the command line: `cistern view`'s option table (cli.h) ---------------

CS_CLI_SIZE_FIELDS_ADJACENT(cs_view_options);


// view --camera X,Y,Z: three finite numbers (metres).
static bool set_view_camera(const cs_cli_option *o, void *opts, const char *v)
{
    cs_view_options *opt = opts;
    char end = 0;
    double p[3];
    if (!v || sscanf(v, "%lf,%lf,%lf%c", &p[0], &p[1], &p[2], &end) != 3 || !isfinite(p[0]) || !isfinite(p[1]) ||
        !isfinite(p[2]) || fabs(p[0]) > 1e6 || fabs(p[1]) > 1e6 || fabs(p[2]) > 1e6) {
        fprintf(stderr, "cistern: %s wants X,Y,Z in metres, each within 1e6 (got \"%s\")\n", o->name, v ? v : "");
        return false;
    }
    memcpy(opt->camera, p, sizeof p);
    opt->camera_given = true;
    return true;
}

#define VIEW_AT(member) CS_CLI_AT(cs_view_options, member)

static const cs_cli_option view_options[] = {
    {.name = "--headless", .kind = CS_CLI_FLAG, VIEW_AT(headless),
     .help = "one image per room (camera in its middle, facing its first portal), DIR/room_NNN.png, with the "
             "rooms the portal walk drew (default without a display)"},
    {.name = "--room", .kind = CS_CLI_INT, VIEW_AT(room), .arg = "N", .max = INT32_MAX,
     .help = "headless: only room N (default: every room; the level says how many it has)"},
    {.name = "--camera", .kind = CS_CLI_SETTER, VIEW_AT(camera), .arg = "X,Y,Z", .set = set_view_camera,
     .help = "headless: one image, camera.png, from this point (metres, looking along -z) instead of one a room; "
             "outside every room it says so in the image"},
    {.name = "--out", .kind = CS_CLI_PATH, VIEW_AT(out_dir), .arg = "DIR",
     .help = "default out/view/FILE; it must be empty or new, or add --overwrite"},
    {.name = "--overwrite", .kind = CS_CLI_FLAG, VIEW_AT(overwrite),
     .help = "use a non-empty --out: first delete room_*.png there, nothing else"},
    {.name = "--size", .kind = CS_CLI_SIZE, VIEW_AT(width), .arg = "WxH",
     .help = "image or window size (default 640x360 headless, 1280x720 window)"},
    {.name = "--scale", .kind = CS_CLI_FLOAT, VIEW_AT(units_per_metre), .arg = "UNITS", .min = 0.001, .max = 1e6,
     .unit = "level units per metre", .help = "level units per metre (default 512: a 1024-unit sector is 2 m)"},
    {.name = "--no-fog", .kind = CS_CLI_FLAG, VIEW_AT(no_fog), .help = "no depth cue"},
    {.name = "--light", .kind = CS_CLI_CHOICE, VIEW_AT(radiosity), .arg = "baked|radiosity",
     .choices = "baked|radiosity", .def = "baked",
     .help = "TR1's baked vertex light or the room lights and their bounces"},
    {.name = "--patch-size", .kind = CS_CLI_FLOAT, VIEW_AT(patch_size), .arg = "M", .min = 0.05, .max = 1000,
     .unit = "metres", .def = "4", .help = "radiosity patch size in metres"},
    {.name = "--panel", .kind = CS_CLI_FLAG, VIEW_AT(panel),
     .help = "a panel listing the rooms (their flags: water), the one the camera is in (or that it is outside every "
             "room) and a jump to each (docs/panel.md); headless, drawn into the images; with --flood, the run's "
             "panel"},
    {.name = "--frames", .kind = CS_CLI_UINT, VIEW_AT(frames), .arg = "N", .max = UINT32_MAX,
     .help = "window: stop after N frames (default and 0: when closed); --flood headless: frames run (default 120)"},
    {.name = "--flood", .kind = CS_CLI_FLAG, VIEW_AT(flood),
     .help = "fill the level's water rooms (room flag 0x0001) with PBF water and run it (as cistern run would; "
             "headless: a PNG every 10th frame in DIR, default out/view/FILE_flood, the scene beside it as DIR.json); "
             "--panel, --size, --frames, --no-fog apply, --room, --camera, --light, --patch-size are refused"},
    {.name = "--flood-rooms", .kind = CS_CLI_STRING, VIEW_AT(flood_rooms), .arg = "N,M,..",
     .help = "--flood: fill these rooms instead (water rooms or not)"},
    {.name = "--flood-particles", .kind = CS_CLI_UINT, VIEW_AT(flood_particles), .arg = "N", .min = 8,
     .max = 1u << 24, .def = "20000", .help = "--flood: the particle budget (the spacing is the finest that fits)"},
    {.name = "--quiet", .kind = CS_CLI_FLAG, VIEW_AT(quiet), .help = "no device line or summary"},
    {.name = "--device", .kind = CS_CLI_SETTER, VIEW_AT(device), .arg = "N|NAME", .set = cs_cli_set_device,
     .help = CS_CLI_DEVICE_HELP},
    {.name = "--validation", .kind = CS_CLI_FLAG, VIEW_AT(validation), .help = CS_CLI_VALIDATION_HELP},
};

const cs_cli_command cs_view_cli = {
    .name = "view",
    .args = "FILE.PHD [options]",
    .summary = "fly through a Tomb Raider 1 level (headless: one image per room)",
    .positional = "level",
    .positional_at = offsetof(cs_view_options, level),
    .options = view_options,
    .option_count = CS_CLI_COUNT(view_options),
    .notes = "FILE.PHD: a Tomb Raider 1 level, e.g. levels/cistern_demo.phd; drawn through its portals.\n"
             "window keys: Tab next room, B baked light / radiosity, WASD/QE fly, drag to look, Esc quit\n",
};

// `cistern view FILE.PHD`: the level drawn through its portals (view.c).
int cs_view_main(int argc, char **argv)
{
    cs_view_options opt = {.room = -1};
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&cs_view_cli, argc, argv, 2, &opt, &parsed))
        return 2;
    if (!opt.level) {
        fprintf(stderr, "cistern: view wants a level: cistern view FILE.PHD (a Tomb Raider 1 level; "
                        "levels/cistern_demo.phd is shipped)\n");
        return 2;
    }
    // --flood runs a scene as `cistern run` does: the viewer's own options
    // have nothing to act on there, and were once ignored without a word;
    // --flood's own options do nothing without it.
    static const char *const viewer_only[] = {"--room", "--camera", "--light", "--patch-size"};
    static const char *const flood_only[] = {"--flood-rooms", "--flood-particles"};
    for (size_t i = 0; opt.flood && i < CS_CLI_COUNT(viewer_only); i++)
        if (cs_cli_given(&cs_view_cli, &parsed, viewer_only[i])) {
            fprintf(stderr, "cistern: view --flood: %s is the level viewer's, and --flood runs the flooded level as "
                            "`cistern run` does: drop %s (--panel, --size, --frames, --no-fog, --out apply)\n",
                    viewer_only[i], viewer_only[i]);
            return 2;
        }
    for (size_t i = 0; !opt.flood && i < CS_CLI_COUNT(flood_only); i++)
        if (cs_cli_given(&cs_view_cli, &parsed, flood_only[i])) {
            fprintf(stderr, "cistern: view: %s applies only with --flood: add --flood, or drop it\n", flood_only[i]);
            return 2;
        }
    return cs_view_command(&opt);
}

