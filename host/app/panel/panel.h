// panel.h — the parameter panel over a run (docs/panel.md): Dear ImGui
// behind a C interface, so the rest of cistern stays C17. panel.cpp is the
// one C++ file (the cistern_panel library); what it draws reaches the
// renderer as a cs_render_ui (render_ui.h) and is drawn by feature_ui.c,
// the same way into a window and into headless frames (--panel).
//
// The panel shows the run (pause, step, restart, simulated time, the
// per-pass GPU times, the colour mode with its bar and range, the toggles
// the scene has parts for) and every CS_KEY_LIVE value of the scene's key
// tables (scene_keys.h, and the solvers' blocks named in their cs_sim_ops):
// one description of each key, read by the parser, docs/scenes.md and here.
// An edit goes through panel_keys.c (cs_panel_key_set): the parser's range
// checks, then into the running world (cs_world_retune), and into the list
// of edits as "key.path=value" (cs_panel_edits), so the edited scene can be
// written back.
#pragma once

#include "render_ui.h"
#include "scene_keys.h"
#include "window.h"
#include "world.h"

// ---- live keys (panel_keys.c, plain C) ----------------------------------------

#define CS_PANEL_MAX_KEYS 1024
#define CS_PANEL_MAX_EDITS 256
#define CS_PANEL_PATH 160

// One live value of the running scene: a row, and the struct it is stored
// in (the run's scene, or the solver's own parameters for a solver block).
typedef struct cs_panel_key {
    char path[CS_PANEL_PATH];  // as the parser's messages spell it: "fluids[0].materials[0].viscosity"
    char group[CS_PANEL_PATH]; // the block's path: "fluids[0].materials[0]" ("" for the top level)
    const cs_scene_key *row;
    void *base;                // row->at is an offset into it
    int fluid;                 // the fluid whose solver reads it; -1: the world's (every fluid's)
} cs_panel_key;

// The edits made, last value per key path, in the order first made.
typedef struct cs_panel_edits {
    char items[CS_PANEL_MAX_EDITS][CS_PANEL_PATH + 96]; // "key.path=value"
    uint32_t count;
} cs_panel_edits;

// Every CS_KEY_LIVE row of the running scene that a panel can set (numbers,
// whole numbers, booleans, choices, vectors, colours), block by block in
// the docs' order; returns how many (at most max).
uint32_t cs_panel_keys_list(cs_scene *scene, cs_world *world, cs_panel_key *out, uint32_t max);
// Sets component `component` of a live key (every component of a vector or
// colour: `component` is ignored when values has 3 entries, count 3) after
// the row's range checks, reaches the running world (its fluids' scenes and
// solvers: cs_world_retune) and notes the edit. On refusal nothing changes
// and err says why, with the key path.
bool cs_panel_key_set(cs_world *world, const cs_panel_key *key, const double *values, uint32_t count,
                      cs_panel_edits *edits, cs_error *err);
// The same by key path and value text ("0.2", "[0, -5, 0]", "true",
// "speed"): the panel's code path for a test or a --set.
bool cs_panel_set_path(cs_scene *scene, cs_world *world, const char *path, const char *value, cs_panel_edits *edits,
                       cs_error *err);

// ---- the panel (panel.cpp, Dear ImGui) ------------------------------------------

typedef struct cs_panel cs_panel;

// What the run shows the panel this frame (read only, but for scene and
// world, whose live values the panel edits).
typedef struct cs_panel_run {
    cs_scene *scene;
    cs_world *world;
    const char *scenes_dir;    // the scene picker lists its *.json; NULL: no picker
    bool paused;
    uint32_t frame;            // simulated frames of this run
    double time;               // simulated seconds of the current world
    int color_mode;            // the one drawn (cs_color_mode)
    float speed_max;           // the speed map's top (m/s)
    float density_spread;      // the density map covers rho/rho0 in 1 -/+ this
    int draw;                  // cs_draw_mode
    bool level_baked;
    bool arrows_flipped;
    bool overlay;
    const char *timings;       // cs_render_overlay_format's text; NULL or "": none yet
    const char *alert;         // a shader error standing; NULL: none
    const char *saved;         // what the last save-as did ("" or NULL: none yet)
} cs_panel_run;

// What the user asked of the run through the panel this frame.
typedef struct cs_panel_requests {
    cs_window_events keys;     // the requests keys make: pause, step, restart, toggles (run.c handles both)
    int color_mode;            // -1: unchanged; else a cs_color_mode
    int draw_mode;             // -1: unchanged; else a cs_draw_mode
    bool save_as;              // write the scene file with the edits (run.c: cs_scene_save_edited)
    char open_scene[512];      // a scene picked ("" none): the run restarts with it
} cs_panel_requests;

// Creates the panel (ImGui's context and its font atlas). `interactive`:
// a window's panel, fed with the mouse; else headless, laid out the same
// every frame (a fixed frame time, no input).
cs_panel *cs_panel_create(bool interactive);
void cs_panel_destroy(cs_panel *panel);
// Window input: the mouse and keys since the last poll. When the panel
// wants the mouse (it is over the panel or dragging a widget), the camera's
// input in `ev` is cleared so the view does not move with it.
void cs_panel_input(cs_panel *panel, cs_window *win, cs_window_events *ev);
// Lays the panel out for a frame of `width` x `height` pixels and returns
// what to draw (valid until the next call); fills `req`.
const cs_render_ui *cs_panel_frame(cs_panel *panel, const cs_panel_run *run, uint32_t width, uint32_t height,
                                   cs_panel_requests *req);
// Where the panel's window is laid out in an image of width x height: the
// left side, from the top (headless it stays there; a window's user may
// move it).
void cs_panel_layout_rect(uint32_t width, uint32_t height, float rect[4]);
// The pixels (x0, y0, x1, y1) the panel's window covered in the last frame.
void cs_panel_rect(const cs_panel *panel, float rect[4]);
// The pixels of a widget of the last frame by its label ("Pause", "Step",
// "Restart"); false when it was not drawn.
bool cs_panel_widget_rect(const cs_panel *panel, const char *label, float rect[4]);
// `cistern view`'s panel: the level's rooms, which one the camera is in
// (or that it is outside every room), and a button a room to go there.
typedef struct cs_panel_level {
    const char *level;         // the file
    const cs_level_mesh *mesh;
    int camera_room;           // cs_level_room_at: -1 outside every room
    uint32_t rooms_drawn;      // the last frame's, through portals
    bool radiosity_shown;
} cs_panel_level;
// A room's line in the list: its number, its size, and its flags by name
// ("water" for TR1's CS_TR1_ROOM_WATER, other bits in hex).
void cs_panel_room_label(const cs_level_room *room, uint32_t index, char *out, size_t size);
// Lays the rooms list out for a width x height image; *jump is the room
// picked (-1: none).
const cs_render_ui *cs_panel_level_frame(cs_panel *panel, const cs_panel_level *level, uint32_t width,
                                         uint32_t height, int *jump);

// The edits made through the panel, as "key.path=value" lines.
const cs_panel_edits *cs_panel_edit_list(const cs_panel *panel);
// The last edit refused ("" none), shown in the panel until the next edit.
const char *cs_panel_error(const cs_panel *panel);
