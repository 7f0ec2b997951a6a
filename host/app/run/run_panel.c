// run_panel.c — the parameter panel (panel.h) and the pointer in the frame loop: what it asks, applied between frames.
// Part of the frame loop (run.c); its state is run_state.h's.
#define _GNU_SOURCE
#include "run_state.h"

// The panel's frame: what the run shows it, and what it draws.
const cs_render_ui *run_panel_frame(run_state *r, uint32_t width, uint32_t height)
{
    const cs_recorder timings = {.passes = r->last_pass_sums, .pass_count = r->last_pass_sum_count};
    char text[2048] = "";
    if (r->any_frame_done)
        cs_render_overlay_format(&timings, 16, text, sizeof text);
    static char scenes[600];
    struct stat st;
    snprintf(scenes, sizeof scenes, stat("scenes", &st) == 0 ? "scenes" : "%s/scenes", CS_SOURCE_DIR);
    cs_panel_run shown = {
        .scene = &r->scene,
        .world = &r->world,
        .scenes_dir = r->windowed ? scenes : NULL,
        .paused = r->paused,
        .frame = r->recorded_sim_frames,
        .time = cs_world_time(&r->world),
        .color_mode = r->color_mode < 0 ? (int)r->scene.render.color_mode : r->color_mode,
        .speed_max = cs_render_speed_max(&r->scene, 0.0f),
        .density_spread = 0.1f,
        .draw = (int)r->draw,
        .level_baked = r->level_baked,
        .arrows_flipped = (r->flipped_features & cs_render_feature_bit("arrows")) != 0,
        .overlay = r->overlay,
        .timings = text,
        .alert = r->shader_error[0] ? r->shader_error : NULL,
        .saved = r->panel_saved,
    };
    cs_panel_requests asked;
    const cs_render_ui *ui = cs_panel_frame(r->panel, &shown, width, height, &asked);
    if (r->windowed)
        r->panel_asked = asked;
    return ui;
}

// The panel's save-as: the scene file with the --set edits, then the
// panel's, written next to the outputs as NAME_edited.json (scene_edit.h:
// parsed whole before anything is written).
static void save_panel_edits(run_state *r)
{
    const cs_panel_edits *made = cs_panel_edit_list(r->panel);
    cs_scene_edits list = {0};
    cs_error err;
    bool ok = true;
    for (uint32_t i = 0; ok && i < r->opt->edits.count; i++) {
        char text[CS_SCENE_EDIT_PATH_MAX + CS_SCENE_EDIT_VALUE_MAX + 2];
        snprintf(text, sizeof text, "%s=%s", r->opt->edits.items[i].path, r->opt->edits.items[i].value);
        ok = cs_scene_edits_add(&list, text, &err);
    }
    for (uint32_t i = 0; ok && i < made->count; i++)
        ok = cs_scene_edits_add(&list, made->items[i], &err);
    char path[600];
    snprintf(path, sizeof path, "%s/%s_edited.json", r->out_dir, r->scene.name);
    ok = ok && cs_scene_save_edited(r->scene.path, list.items, list.count, path, &err);
    if (ok)
        snprintf(r->panel_saved, sizeof r->panel_saved, "saved %s (%u edits)", path, list.count);
    else
        snprintf(r->panel_saved, sizeof r->panel_saved, "not saved: %.600s", err.msg);
    fprintf(stderr, "cistern: panel: %s\n", r->panel_saved);
    cs_scene_edits_free(&list);
}

// The panel's requests of the last frame, merged with this frame's keys.
void run_apply_panel(run_state *r, cs_window_events *ev)
{
    cs_panel_input(r->panel, &r->window, ev);
    const cs_panel_requests *a = &r->panel_asked;
    ev->toggle_pause ^= a->keys.toggle_pause;
    ev->steps += a->keys.steps;
    ev->restart |= a->keys.restart;
    ev->cycle_albedo |= a->keys.cycle_albedo;
    ev->toggle_probes ^= a->keys.toggle_probes;
    ev->toggle_level_light ^= a->keys.toggle_level_light;
    ev->toggle_overlay ^= a->keys.toggle_overlay;
    ev->flip_features ^= a->keys.flip_features; // the arrows' checkbox: their feature's key (O)
    if (a->color_mode >= 0)
        r->color_mode = a->color_mode;
    if (a->draw_mode >= 0)
        r->draw = (cs_draw_mode)a->draw_mode;
    if (a->save_as)
        save_panel_edits(r);
    if (a->open_scene[0]) {
        snprintf(r->picked_scene, sizeof r->picked_scene, "%s", a->open_scene);
        ev->quit = true;
    }
    r->panel_asked = (cs_panel_requests){.color_mode = -1, .draw_mode = -1};
}

// Ctrl + a mouse button held: the pointer (scene "pointer") goes to the
// point under the cursor; let go, the scene's track has it again.
void run_update_pointer(run_state *r, const cs_window_events *ev)
{
    float at[3];
    cs_camera_matrices m;
    bool held = ev->pointer_mode != 0 && ev->width > 0 && ev->height > 0;
    if (held) {
        cs_camera_matrices_get(&r->camera, (double)ev->width / ev->height, &m);
        held = cs_camera_unproject(&r->camera, &m, ev->width, ev->height, ev->pointer_pixel, at);
    }
    cs_world_set_pointer(&r->world, held ? at : NULL, held ? ev->pointer_mode : 0);
}
