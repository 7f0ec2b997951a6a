// test_panel.c — the parameter panel (host/app/panel/panel.h):
//   - pixels: a frame drawn with the panel differs from the same frame
//     without it only inside the panel's window, and its Pause, Step and
//     Restart buttons are drawn where the panel says they are (the button
//     colour there, the scene's pixels elsewhere byte for byte), on the
//     sRGB offscreen image and on a UNORM (swapchain-like) target;
//   - equivalence: a live value set through the panel's code path
//     (cs_panel_set_path, what a widget calls) before the first frame gives
//     the same bits after N frames as the same value written in the scene
//     file (the edited JSON in a temporary file), for a material of SPH and
//     of WCSPH (its CFL split), a PBF block value, the world's gravity, a
//     reint and a vorton block value; and the unedited run differs
//     (the edit did something). The edit list holds "key.path=value";
//   - refusals: out of range, a key that is not live, a bad value text;
//   - `cistern run --panel` headless (cs_run): its PNG frames differ from
//     the same run's without --panel only inside the panel's window
//     (cs_panel_layout_rect), and there nearly everywhere; the stats are
//     the same (the panel does not touch the simulation).
// ctest labels: slow,gpu -- 170 at load 13 (57 s CPU: 20 short runs of 6 solvers, 2 panel images, 2 cistern runs)
#include "test_util.h"

#include "camera.h"
#include "panel.h"
#include "render.h"
#include "run.h"
#include "scene.h"
#include "solvers.h"
#include "world.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

#include <cjson/cJSON.h>
#include <unistd.h>

#define WIDTH 640
#define HEIGHT 400

// ---- pixels ---------------------------------------------------------------

static uint8_t *draw(cs_context *ctx, cs_renderer *r, cs_world *world, const cs_view_camera *cam,
                     const cs_render_ui *ui)
{
    cs_particle_view view;
    world->fluids[0].ops->particles(world->fluids[0].state, &view);
    cs_render_frame frame = {.scene = world->scene, .camera = cam, .color_mode = -1, .ui = ui};
    cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, &view);
    return test_render(ctx, r, NULL, &frame, "panel render"); // the world's frame is not stepped
}

static bool pixel_in(const float rect[4], uint32_t x, uint32_t y)
{
    float cx = (float)x + 0.5f, cy = (float)y + 0.5f;
    return cx >= rect[0] && cx <= rect[2] && cy >= rect[1] && cy <= rect[3];
}

static void check_pixels(cs_context *ctx, VkFormat format, cs_scene *scene, cs_world *world)
{
    cs_renderer r;
    cs_error err = {{0}};
    bool ok = cs_renderer_create(ctx, &(cs_renderer_desc){.color_format = format, .width = WIDTH, .height = HEIGHT},
                                 &r, &err);
    CHECK(ok, "renderer: %s", ok ? "" : err.msg);
    if (!ok)
        return;
    cs_view_camera cam;
    cs_camera_from_scene(&cam, scene);
    cs_panel *panel = cs_panel_create(false);
    cs_panel_run run = {.scene = scene, .world = world, .color_mode = CS_COLOR_MATERIAL, .speed_max = 1.0f,
                        .density_spread = 0.1f};
    cs_panel_requests asked;
    const cs_render_ui *ui = cs_panel_frame(panel, &run, WIDTH, HEIGHT, &asked);
    CHECK(ui->vertex_count > 100 && ui->command_count > 0 && ui->atlas, "the panel drew %u vertices, %u commands",
          ui->vertex_count, ui->command_count);
    CHECK(asked.color_mode == -1 && !asked.keys.restart && !asked.open_scene[0], "no input, no request");
    uint8_t *plain = draw(ctx, &r, world, &cam, NULL), *shown = draw(ctx, &r, world, &cam, ui);
    float rect[4], button[3][4];
    cs_panel_rect(panel, rect);
    const char *labels[3] = {"Pause", "Step", "Restart"};
    for (int b = 0; b < 3; b++)
        CHECK(cs_panel_widget_rect(panel, labels[b], button[b]), "the %s button was drawn", labels[b]);
    CHECK(rect[2] > rect[0] + 50 && rect[2] < WIDTH && rect[3] <= HEIGHT, "panel %.0f,%.0f-%.0f,%.0f in the image",
          rect[0], rect[1], rect[2], rect[3]);
    uint32_t outside_changed = 0, inside = 0, inside_changed = 0;
    uint32_t in_button[3] = {0}, blue[3] = {0};
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            const uint8_t *a = plain + 4 * ((size_t)y * WIDTH + x), *b = shown + 4 * ((size_t)y * WIDTH + x);
            bool changed = memcmp(a, b, 4) != 0;
            if (!pixel_in(rect, x, y)) {
                outside_changed += changed;
                continue;
            }
            inside++;
            inside_changed += changed;
            for (int k = 0; k < 3; k++)
                if (pixel_in(button[k], x, y)) {
                    in_button[k]++;
                    // ImGui's button: blue over the dark window (its label white).
                    blue[k] += b[2] > b[0] + 40 && b[2] > 90;
                }
        }
    // (cs_render_pixels is RGBA whatever the target's format.)
    printf("format %d: panel %.0f,%.0f-%.0f,%.0f: %u of %u pixels changed; %u changed outside; buttons blue "
           "%u/%u %u/%u %u/%u\n",
           (int)format, rect[0], rect[1], rect[2], rect[3], inside_changed, inside, outside_changed, blue[0],
           in_button[0], blue[1], in_button[1], blue[2], in_button[2]);
    CHECK(outside_changed == 0, "%u pixels changed outside the panel", outside_changed);
    CHECK(inside_changed > inside * 9 / 10, "only %u of %u panel pixels changed", inside_changed, inside);
    for (int k = 0; k < 3; k++)
        CHECK(in_button[k] > 100 && blue[k] > in_button[k] / 2, "%s: %u of %u pixels in the button colour",
              labels[k], blue[k], in_button[k]);
    free(plain), free(shown);
    cs_panel_destroy(panel);
    cs_renderer_destroy(&r);
}

// ---- equivalence ------------------------------------------------------------

// Sets `path` ("fluids[0].materials[0].viscosity_linear", "gravity") in a
// scene file's JSON to `value` (JSON text).
static void json_set(cJSON *root, const char *path, const char *value)
{
    cJSON *at = root;
    char key[64];
    const char *p = path;
    while (*p) {
        size_t len = strcspn(p, ".[");
        snprintf(key, sizeof key, "%.*s", (int)len, p);
        p += len;
        int index = -1;
        if (*p == '[') {
            index = atoi(p + 1);
            p = strchr(p, ']') + 1;
        }
        if (*p == '.')
            p++;
        if (!*p && index < 0) {
            cJSON *v = cJSON_Parse(value);
            CS_ASSERT(v, "value %s", value);
            if (cJSON_GetObjectItem(at, key))
                cJSON_ReplaceItemInObject(at, key, v);
            else
                cJSON_AddItemToObject(at, key, v);
            return;
        }
        cJSON *next = cJSON_GetObjectItem(at, key);
        CS_ASSERT(next, "%s: no %s", path, key);
        at = index >= 0 ? cJSON_GetArrayItem(next, index) : next;
        CS_ASSERT(at, "%s: no %s[%d]", path, key, index);
    }
}

typedef struct run_result {
    float *state;              // positions then velocities, vec4 each
    uint32_t count;
} run_result;

// Loads `path`, scales it to about `particles`, sets `edit_path` = `edit`
// through the panel's code path when given, runs `frames` frames.
static run_result run_scene(cs_context *ctx, const char *path, uint32_t particles, const char *edit_path,
                            const char *edit, uint32_t frames, cs_panel_edits *edits)
{
    run_result out = {0};
    cs_scene scene;
    cs_error err;
    bool ok = cs_scene_load(path, &scene, &err);
    CHECK(ok, "%s: %s", path, ok ? "" : err.msg);
    if (!ok)
        return out;
    // Scaling also rescales some solvers' material values (scene_lattice.c),
    // the file's as well: an SPH scene runs at its own size.
    if (particles)
        cs_scene_scale_world(&scene, particles);
    cs_world world;
    ok = cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "world: %s", ok ? "" : err.msg);
    if (!ok) {
        cs_scene_free(&scene);
        return out;
    }
    if (edit_path) {
        ok = cs_panel_set_path(&scene, &world, edit_path, edit, edits, &err);
        CHECK(ok, "panel: %s=%s: %s", edit_path, edit, ok ? "" : err.msg);
    }
    test_world_run(ctx, &world, frames, "panel equivalence");
    cs_particle_view v;
    world.fluids[0].ops->particles(world.fluids[0].state, &v);
    out.count = v.count;
    out.state = malloc((size_t)v.count * 32 + 32);
    CS_ASSERT(out.state, "out of memory");
    cs_buffer_download(ctx, v.positions, out.state, (VkDeviceSize)v.count * 16, 0);
    cs_buffer_download(ctx, v.velocities, out.state + 4 * v.count, (VkDeviceSize)v.count * 16, 0);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
    return out;
}

static bool same(const run_result *a, const run_result *b)
{
    return a->count == b->count && a->count && memcmp(a->state, b->state, (size_t)a->count * 32) == 0;
}

static void check_equivalence(cs_context *ctx, const char *scene_name, uint32_t particles, const char *path,
                              const char *value, uint32_t frames)
{
    char source[512], edited[64];
    snprintf(source, sizeof source, "%s/scenes/%s.json", CS_SOURCE_DIR, scene_name);
    FILE *f = fopen(source, "rb");
    CS_ASSERT(f, "%s", source);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    cJSON *root = cJSON_Parse(text);
    CS_ASSERT(root, "%s does not parse", source);
    json_set(root, path, value);
    char *printed = cJSON_Print(root);
    snprintf(edited, sizeof edited, "/tmp/cistern_panel_%d.json", (int)getpid());
    f = fopen(edited, "wb");
    CS_ASSERT(f && fputs(printed, f) >= 0 && fclose(f) == 0, "%s", edited);
    free(printed);
    cJSON_Delete(root);

    cs_panel_edits edits = {0};
    run_result panel = run_scene(ctx, source, particles, path, value, frames, &edits);
    run_result file = run_scene(ctx, edited, particles, NULL, NULL, frames, NULL);
    run_result plain = run_scene(ctx, source, particles, NULL, NULL, frames, NULL);
    unlink(edited);
    printf("%s: %s=%s: %u particles, %u frames: panel %s file, unedited %s; edit noted as \"%s\"\n", scene_name, path,
           value, panel.count, frames, same(&panel, &file) ? "==" : "!=", same(&panel, &plain) ? "==" : "!=",
           edits.count ? edits.items[0] : "");
    CHECK(same(&panel, &file), "%s: %s=%s through the panel differs from the same value in the file", scene_name,
          path, value);
    CHECK(!same(&panel, &plain), "%s: %s=%s changed nothing: the test cannot fail", scene_name, path, value);
    CHECK(edits.count == 1 && strncmp(edits.items[0], path, strlen(path)) == 0 &&
              edits.items[0][strlen(path)] == '=',
          "the edit list: %u, \"%s\"", edits.count, edits.count ? edits.items[0] : "");
    free(panel.state), free(file.state), free(plain.state);
}

static void check_refusals(cs_context *ctx)
{
    cs_scene scene;
    cs_error err;
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/dam_break_3d.json", &scene, &err), "%s", err.msg);
    cs_scene_scale_world(&scene, 1000);
    cs_world world;
    CS_ASSERT(cs_world_create(ctx, &scene, &world, &err), "%s", err.msg);
    cs_panel_edits edits = {0};
    float xsph = 0;
    static const struct {
        const char *path, *value, *message;
    } refused[] = {
        {"fluids[0].pbf.xsph", "1.5", "fluids[0].pbf.xsph: must be <= 1"},
        {"fluids[0].pbf.relaxation", "500", "too soft"},
        {"fluids[0].materials[0].rest_density", "900", "not a value that can change while the scene runs"},
        {"fluids[0].pbf.iterations", "2.5", "whole number"},
        {"gravity", "[0, -1e5, 0]", "at most"},
        {"fluids[0].pbf.xsph", "soft", "wants a number"},
    };
    cs_panel_key keys[CS_PANEL_MAX_KEYS];
    uint32_t n = cs_panel_keys_list(&scene, &world, keys, CS_PANEL_MAX_KEYS);
    for (uint32_t k = 0; k < n; k++)
        if (strcmp(keys[k].path, "fluids[0].pbf.xsph") == 0)
            xsph = (float)cs_scene_key_get(keys[k].row, keys[k].base, 0);
    for (size_t i = 0; i < CS_ARRAY_COUNT(refused); i++) {
        bool ok = cs_panel_set_path(&scene, &world, refused[i].path, refused[i].value, &edits, &err);
        CHECK(!ok && strstr(err.msg, refused[i].message), "%s=%s: refused with \"%s\" (got %s: %s)", refused[i].path,
              refused[i].value, refused[i].message, ok ? "accepted" : "refused", ok ? "" : err.msg);
    }
    float after = NAN;
    n = cs_panel_keys_list(&scene, &world, keys, CS_PANEL_MAX_KEYS);
    for (uint32_t k = 0; k < n; k++)
        if (strcmp(keys[k].path, "fluids[0].pbf.xsph") == 0)
            after = (float)cs_scene_key_get(keys[k].row, keys[k].base, 0);
    CHECK(after == xsph && edits.count == 0, "a refusal changes nothing: xsph %g (was %g), %u edits", (double)after,
          (double)xsph, edits.count);
    // Every key listed is a CS_KEY_LIVE row, under a path the parser spells.
    for (uint32_t k = 0; k < n; k++)
        CHECK(keys[k].row->flags & CS_KEY_LIVE, "%s is listed but not live", keys[k].path);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *copy = malloc(n + 1);
    CS_ASSERT(copy, "out of memory");
    memcpy(copy, text, n + 1);
    return copy;
}

static void check_run_panel(void)
{
    char dirs[2][96];
    for (int with = 0; with < 2; with++) {
        snprintf(dirs[with], sizeof dirs[with], "/tmp/cistern_panel_run_%d_%d", (int)getpid(), with);
        cs_run_options o = {.scene = CS_SOURCE_DIR "/scenes/dam_break_2d.json", .headless = true, .frames = 3,
                            .out_dir = dirs[with], .png_every = 2, .capture_frame = -1, .color_mode = -1,
                            .mesh_format = -1, .width = 480, .height = 360, .quiet = true, .validation = true,
                            .panel = with == 1};
        CHECK(cs_run(&o) == 0, "cistern run%s failed", with ? " --panel" : "");
    }
    float rect[4];
    cs_panel_layout_rect(480, 360, rect);
    const char *frames[] = {"frame_00000.png", "frame_00002.png"};
    for (size_t k = 0; k < CS_ARRAY_COUNT(frames); k++) {
        uint8_t *px[2] = {NULL, NULL};
        int w[2] = {0}, h[2] = {0}, n;
        for (int with = 0; with < 2; with++) {
            char path[160];
            snprintf(path, sizeof path, "%s/%s", dirs[with], frames[k]);
            px[with] = stbi_load(path, &w[with], &h[with], &n, 4);
            CHECK(px[with], "%s does not load: %s", path, stbi_failure_reason());
        }
        if (!px[0] || !px[1] || w[0] != 480 || h[0] != 360 || w[1] != 480 || h[1] != 360) {
            CHECK(false, "%s: sizes %dx%d and %dx%d", frames[k], w[0], h[0], w[1], h[1]);
            stbi_image_free(px[0]), stbi_image_free(px[1]);
            continue;
        }
        uint32_t outside = 0, inside = 0, inside_changed = 0;
        for (uint32_t y = 0; y < 360; y++)
            for (uint32_t x = 0; x < 480; x++) {
                bool changed = memcmp(px[0] + 4 * (y * 480 + x), px[1] + 4 * (y * 480 + x), 4) != 0;
                if (pixel_in(rect, x, y))
                    inside++, inside_changed += changed;
                else
                    outside += changed;
            }
        printf("cistern run --panel, %s: %u of %u panel pixels differ from the run without it, %u outside\n",
               frames[k], inside_changed, inside, outside);
        CHECK(outside == 0, "%s: %u pixels outside the panel differ", frames[k], outside);
        CHECK(inside_changed > inside * 9 / 10, "%s: only %u of %u panel pixels differ", frames[k], inside_changed,
              inside);
        stbi_image_free(px[0]), stbi_image_free(px[1]);
    }
    char stats[2][160];
    for (int with = 0; with < 2; with++)
        snprintf(stats[with], sizeof stats[with], "%s/stats.csv", dirs[with]);
    char *a = read_text(stats[0]), *b = read_text(stats[1]);
    // Each row's simulated columns, up to gpu_total_ms (the times differ
    // run to run), are the same with the panel drawn.
    CHECK(a && b, "stats.csv missing");
    uint32_t rows = 0;
    for (char *ra = a, *rb = b; ra && rb && *ra && *rb; rows++) {
        size_t la = strcspn(ra, "\n"), lb = strcspn(rb, "\n");
        size_t cut = 0;
        for (int comma = 0; cut < la && comma < 10; cut++)
            comma += ra[cut] == ',';
        CHECK(la >= cut && lb >= cut && memcmp(ra, rb, cut) == 0, "stats.csv row %u differs with --panel: %.*s / %.*s",
              rows, (int)cut, ra, (int)cut, rb);
        ra = ra[la] ? ra + la + 1 : NULL, rb = rb[lb] ? rb + lb + 1 : NULL;
    }
    CHECK(rows == 4, "stats.csv: %u lines, wanted a header and 3 rows", rows);
    free(a), free(b);
    for (int with = 0; with < 2; with++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dirs[with]);
        CHECK(system(cmd) == 0, "%s", cmd);
    }
}

// The Colour section tells what the image shows: with only surfaces drawn
// (which take their material's colour, not the mode) a speed bar would
// describe nothing on screen, so a note says so; with particles drawn too,
// the bar. It once showed the bar whatever was drawn. The world's surface is
// stood in for (the panel reads only whether one is drawable).
static void check_colour_note(cs_scene *scene, cs_world *world)
{
    cs_world_surface stand_in = {.fluid = 0, .drawable = true};
    cs_world_surface *had = world->surfaces;
    uint32_t had_count = world->surface_count;
    world->surfaces = &stand_in, world->surface_count = 1;
    cs_panel *panel = cs_panel_create(false);
    const int draws[3] = {CS_DRAW_SURFACE, CS_DRAW_BOTH, CS_DRAW_PARTICLES};
    for (int d = 0; d < 3; d++) {
        cs_panel_run run = {.scene = scene, .world = world, .color_mode = CS_COLOR_SPEED, .speed_max = 1.0f,
                            .density_spread = 0.1f, .draw = draws[d]};
        cs_panel_requests asked;
        cs_panel_frame(panel, &run, WIDTH, HEIGHT, &asked);
        float rect[4];
        bool bar = cs_panel_widget_rect(panel, "colour bar", rect), note = cs_panel_widget_rect(panel, "colour note", rect);
        if (draws[d] == CS_DRAW_SURFACE)
            CHECK(!bar && note, "only the surface drawn: the note, no speed bar (bar %d, note %d)", bar, note);
        else
            CHECK(bar && !note, "draw mode %d shows particles: the speed bar (bar %d, note %d)", draws[d], bar, note);
    }
    cs_panel_destroy(panel);
    world->surfaces = had, world->surface_count = had_count;
}

// Whether the panel lists `path` for the world as it is.
static bool listed(cs_scene *scene, cs_world *world, const char *path)
{
    static cs_panel_key keys[CS_PANEL_MAX_KEYS];
    uint32_t n = cs_panel_keys_list(scene, world, keys, CS_PANEL_MAX_KEYS);
    for (uint32_t k = 0; k < n; k++)
        if (strcmp(keys[k].path, path) == 0)
            return true;
    return false;
}

// A material's slider is shown only for the keys its fluid's solver reads:
// PBF moves nothing with Clavet's stiffness or WCSPH's viscosity (bit-
// identical results), Clavet nothing with WCSPH's speed of sound; they
// were all shown. The world's solver is stood in for by another's ops (the
// list reads only its material keys and that it can retune).
static void check_material_rows(cs_scene *scene, cs_world *world)
{
    const cs_sim_ops *had = world->fluids[0].ops;
    CHECK(strcmp(had->solver, "sph") == 0, "the test world is Clavet's (dam_break_2d), not %s", had->solver);
    CHECK(listed(scene, world, "fluids[0].materials[0].stiffness") &&
              listed(scene, world, "fluids[0].materials[0].viscosity_linear") &&
              listed(scene, world, "fluids[0].materials[0].color"),
          "Clavet: its stiffness, viscosity and the colour are listed");
    CHECK(!listed(scene, world, "fluids[0].materials[0].speed_of_sound") &&
              !listed(scene, world, "fluids[0].materials[0].viscosity"),
          "Clavet: WCSPH's speed_of_sound and viscosity are not");
    world->fluids[0].ops = cs_sim_find("pbf");
    CHECK(listed(scene, world, "fluids[0].materials[0].color") &&
              !listed(scene, world, "fluids[0].materials[0].stiffness") &&
              !listed(scene, world, "fluids[0].materials[0].viscosity_linear") &&
              !listed(scene, world, "fluids[0].materials[0].viscosity"),
          "PBF: the colour only of the materials' live keys");
    world->fluids[0].ops = cs_sim_find("wcsph");
    CHECK(listed(scene, world, "fluids[0].materials[0].speed_of_sound") &&
              listed(scene, world, "fluids[0].materials[0].viscosity") &&
              !listed(scene, world, "fluids[0].materials[0].stiffness"),
          "WCSPH: its speed_of_sound and viscosity, not Clavet's stiffness");
    world->fluids[0].ops = had;
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_scene scene;
    cs_error err;
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/dam_break_2d.json", &scene, &err), "%s", err.msg);
    cs_world world;
    CS_ASSERT(cs_world_create(&ctx, &scene, &world, &err), "%s", err.msg);
    check_pixels(&ctx, 0, &scene, &world);                        // sRGB offscreen image
    check_pixels(&ctx, VK_FORMAT_B8G8R8A8_UNORM, &scene, &world); // a swapchain's format: the shader encodes
    check_colour_note(&scene, &world);
    check_material_rows(&scene, &world);
    cs_world_destroy(&world);
    cs_scene_free(&scene);

    check_equivalence(&ctx, "dam_break_2d", 0, "fluids[0].materials[0].viscosity_linear", "3", 8);
    check_equivalence(&ctx, "dam_break_3d", 1000, "fluids[0].pbf.xsph", "0.3", 6);
    check_equivalence(&ctx, "dam_break_3d", 1000, "gravity", "[1, -4, 0]", 6);
    // WCSPH: viscosity also sets the CFL split (retune recomputes it).
    check_equivalence(&ctx, "wcsph_tank_3d", 1000, "fluids[0].materials[0].viscosity", "0.3", 6);
    check_equivalence(&ctx, "reint_dam_2d", 0, "fluids[0].reint.viscosity", "0.5", 6);
    check_equivalence(&ctx, "vorton_smoke_3d", 0, "fluids[0].vorton.expansion", "0.02", 6);
    check_refusals(&ctx);
    check_run_panel();
    return test_finish(&ctx);
}
