// panel.cpp — see panel.h. The one C++ file: Dear ImGui (Debian's
// libimgui-dev, its core only; the GLFW and Vulkan backends are not used:
// cistern loads GLFW at run time and calls Vulkan through volk, so the
// window's own input feeds ImGuiIO and feature_ui.c draws ImDrawData).
//
// Headless, the panel is laid out from a fixed frame time and no input, so
// the same run draws the same pixels (tests/test_panel.c).
// The C headers' _Static_assert is C11's spelling of static_assert.
#define _Static_assert static_assert
extern "C" {
#include "panel.h"
#include "level_tr1.h" // CS_TR1_ROOM_WATER
#include "render.h"

#include "../../../shaders/render/render_shared.h"
}

#include <imgui.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

struct widget_rect {
    std::string label;
    float rect[4];
};

} // namespace

struct cs_panel {
    ImGuiContext *imgui;
    bool interactive;
    std::vector<uint32_t> atlas;
    int atlas_width, atlas_height;
    std::vector<cs_render_ui_vertex> vertices;
    std::vector<uint32_t> indices;
    std::vector<cs_render_ui_command> commands;
    cs_render_ui ui;
    float rect[4];
    std::vector<widget_rect> widgets;
    cs_panel_edits edits;
    char error[1024];
    std::vector<std::string> scenes; // the picker's list, read once
    bool scenes_read;
    double last_time;
};

static uint64_t next_atlas_id = 1;

extern "C" cs_panel *cs_panel_create(bool interactive)
{
    cs_panel *p = new cs_panel();
    p->interactive = interactive;
    p->imgui = ImGui::CreateContext();
    ImGui::SetCurrentContext(p->imgui);
    ImGuiIO &io = ImGui::GetIO();
    io.IniFilename = NULL; // nothing written beside the binary
    io.LogFilename = NULL;
    // Typing a value (Ctrl+click or double-click on it): ImGui reads the
    // editing keys from KeysDown by these indices, GLFW's key codes.
    static const struct { ImGuiKey key; int glfw; } keys[] = {
        {ImGuiKey_Tab, 258},       {ImGuiKey_LeftArrow, 263}, {ImGuiKey_RightArrow, 262}, {ImGuiKey_UpArrow, 265},
        {ImGuiKey_DownArrow, 264}, {ImGuiKey_PageUp, 266},    {ImGuiKey_PageDown, 267},   {ImGuiKey_Home, 268},
        {ImGuiKey_End, 269},       {ImGuiKey_Insert, 260},    {ImGuiKey_Delete, 261},     {ImGuiKey_Backspace, 259},
        {ImGuiKey_Space, 32},      {ImGuiKey_Enter, 257},     {ImGuiKey_Escape, 256},     {ImGuiKey_KeyPadEnter, 335},
        {ImGuiKey_A, 65},          {ImGuiKey_C, 67},          {ImGuiKey_V, 86},           {ImGuiKey_X, 88},
        {ImGuiKey_Y, 89},          {ImGuiKey_Z, 90},
    };
    for (const auto &k : keys)
        io.KeyMap[k.key] = k.glfw;
    ImGui::StyleColorsDark();
    ImGui::GetStyle().WindowRounding = 0.0f;
    unsigned char *pixels;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &p->atlas_width, &p->atlas_height);
    p->atlas.resize((size_t)p->atlas_width * p->atlas_height);
    memcpy(p->atlas.data(), pixels, p->atlas.size() * 4);
    io.Fonts->SetTexID((ImTextureID)(intptr_t)1);
    p->ui.atlas = p->atlas.data();
    p->ui.atlas_width = (uint32_t)p->atlas_width;
    p->ui.atlas_height = (uint32_t)p->atlas_height;
    p->ui.atlas_id = next_atlas_id++;
    return p;
}

extern "C" void cs_panel_destroy(cs_panel *panel)
{
    if (!panel)
        return;
    ImGui::DestroyContext(panel->imgui);
    delete panel;
}

extern "C" void cs_panel_input(cs_panel *panel, cs_window *win, cs_window_events *ev)
{
    ImGui::SetCurrentContext(panel->imgui);
    ImGuiIO &io = ImGui::GetIO();
    io.MousePos = win->have_cursor ? ImVec2((float)win->cursor[0], (float)win->cursor[1]) : ImVec2(-FLT_MAX, -FLT_MAX);
    // A press since the last frame counts as down for this one, released
    // or not (cs_window.pressed): ImGui 1.86 takes a state, not events.
    for (int b = 0; b < 3; b++) {
        io.MouseDown[b] = win->buttons[b] || win->pressed[b];
        win->pressed[b] = false;
    }
    io.MouseWheel = 0.0f;
    // The keyboard: Shift drags 10x faster, Alt 10x finer (ImGui's drag),
    // Ctrl+click types a value; then Enter sets it and Esc drops it.
    // (The window counts a modifier tapped since the last poll as held.)
    io.KeyCtrl = ev->ctrl;
    io.KeyShift = ev->shift;
    io.KeyAlt = ev->alt;
    for (int k = 0; k < CS_WINDOW_KEYS; k++) {
        io.KeysDown[k] = win->keys_down[k] || win->keys_pressed[k];
        win->keys_pressed[k] = false;
    }
    for (uint32_t i = 0; i < win->typed_count; i++)
        io.AddInputCharacter(win->typed[i]);
    win->typed_count = 0;
    // While a value is typed, the keys are the text's: no pause on Space,
    // no restart on R, no flying on WASD, and Esc ends the edit, not the run.
    if (io.WantTextInput) {
        ev->quit = ev->close_requested;
        ev->escape = ev->toggle_pause = ev->restart = ev->cycle_color_mode = ev->cycle_draw_mode = false;
        ev->cycle_albedo = ev->toggle_probes = ev->next_room = ev->toggle_level_light = ev->toggle_overlay = false;
        ev->capture = ev->toggle_record = false;
        ev->steps = 0;
        ev->flip_features = 0;
        memset(ev->input.move, 0, sizeof ev->input.move);
        ev->input.fast = false;
    }
    // WantCaptureMouse is last frame's answer: the cursor over the panel
    // or a widget held. Then the drags and the wheel are the panel's.
    if (io.WantCaptureMouse) {
        io.MouseWheel = ev->input.scroll;
        memset(ev->input.look, 0, sizeof ev->input.look);
        memset(ev->input.orbit, 0, sizeof ev->input.orbit);
        memset(ev->input.pan, 0, sizeof ev->input.pan);
        ev->input.scroll = 0.0f;
        // Ctrl+click on the panel types a value; it does not pull the fluid.
        if (ev->pointer_mode) {
            ev->pointer_mode = 0;
            win->pointer_mode = 0;
        }
    }
}

// ---- widgets ---------------------------------------------------------------

static void remember(cs_panel *p, const char *label)
{
    ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    p->widgets.push_back({label, {a.x, a.y, b.x, b.y}});
}

static bool button(cs_panel *p, const char *label)
{
    bool pressed = ImGui::Button(label);
    remember(p, label);
    return pressed;
}

static ImU32 color_u32(float r, float g, float b)
{
    // The maps' stops are linear; ImGui's colours are sRGB.
    auto enc = [](float c) {
        c = std::min(std::max(c, 0.0f), 1.0f);
        return c <= 0.0031308f ? c * 12.92f : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
    };
    return ImGui::ColorConvertFloat4ToU32(ImVec4(enc(r), enc(g), enc(b), 1.0f));
}

// Whether anything drawn takes the colour mode: particles (and a grid
// fluid's field) do; a surface is shaded in its fluid's first material's
// colour whatever the mode (world_draw.c, render/surface.frag), so with only
// surfaces drawn a speed or density bar would describe nothing on screen.
// A fluid without a drawable surface shows its particles in any draw mode.
static bool colour_mode_drawn(const cs_panel_run *run)
{
    if (run->draw != CS_DRAW_SURFACE || run->color_mode == CS_COLOR_MATERIAL)
        return true;
    for (uint32_t f = 0; f < run->world->fluid_count; f++) {
        const cs_world_surface *s = cs_world_surface_of(run->world, f); // (run->world: not const)
        if (!s || !s->drawable)
            return true;
    }
    return false;
}

// The colour map of `mode` as render_common.glsl has it (speed_color,
// density_color), a bar with its range under it.
static void color_bar(cs_panel *p, const cs_panel_run *run)
{
    static const float speed[4][3] = {{CS_RENDER_SPEED_STOP0}, {CS_RENDER_SPEED_STOP1}, {CS_RENDER_SPEED_STOP2},
                                      {CS_RENDER_SPEED_STOP3}};
    static const float density[3][3] = {{CS_RENDER_DENSITY_LOW}, {CS_RENDER_DENSITY_MID}, {CS_RENDER_DENSITY_HIGH}};
    const float(*stops)[3] = run->color_mode == CS_COLOR_SPEED ? speed : density;
    int n = run->color_mode == CS_COLOR_SPEED ? 4 : 3;
    float width = ImGui::GetContentRegionAvail().x, height = 14.0f;
    ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList *draw = ImGui::GetWindowDrawList();
    for (int i = 0; i + 1 < n; i++) {
        float x0 = at.x + width * (float)i / (float)(n - 1), x1 = at.x + width * (float)(i + 1) / (float)(n - 1);
        ImU32 a = color_u32(stops[i][0], stops[i][1], stops[i][2]);
        ImU32 b = color_u32(stops[i + 1][0], stops[i + 1][1], stops[i + 1][2]);
        draw->AddRectFilledMultiColor(ImVec2(x0, at.y), ImVec2(x1, at.y + height), a, b, b, a);
    }
    ImGui::Dummy(ImVec2(width, height));
    remember(p, "colour bar");
    if (run->color_mode == CS_COLOR_SPEED)
        ImGui::Text("0 m/s  ...  %.3g m/s (|v|)", (double)run->speed_max);
    else
        ImGui::Text("rho/rho0: %.3g  ...  1  ...  %.3g", 1.0 - run->density_spread, 1.0 + run->density_spread);
}

static void materials_swatches(const cs_scene *scene)
{
    for (uint32_t f = 0; f < scene->fluid_count; f++)
        for (uint32_t m = 0; m < scene->fluids[f].material_count; m++) {
            const float *c = scene->fluids[f].materials[m].color;
            ImGui::PushID((int)(f * 64 + m));
            ImGui::ColorButton("##m", ImGui::ColorConvertU32ToFloat4(color_u32(c[0], c[1], c[2])),
                               ImGuiColorEditFlags_NoTooltip);
            ImGui::PopID();
            ImGui::SameLine();
            ImGui::Text("%s / %s", scene->fluids[f].fluid_name, scene->fluids[f].materials[m].name);
        }
}

// One live key: its widget by type, its unit and range beside it, its help
// as a tooltip. Returns after applying an edit (or noting its refusal).
static void key_widget(cs_panel *p, const cs_panel_run *run, const cs_panel_key *key)
{
    const cs_scene_key *row = key->row;
    ImGui::PushID(key->path);
    double before[3] = {cs_scene_key_get(row, key->base, 0), NAN, NAN};
    double values[3] = {before[0], 0, 0};
    uint32_t count = 1;
    bool changed = false;
    float lo = (float)row->min, hi = (float)row->max;
    switch (row->type) {
    case CS_KEY_NUMBER: {
        float v = (float)values[0];
        float speed = (float)std::max(fabs(values[0]) * 0.01, 1e-4);
        // A drag clamps to the row's range (the set checks it again).
        changed = ImGui::DragFloat(row->key, &v, speed, lo, hi, "%.5g", ImGuiSliderFlags_AlwaysClamp);
        values[0] = v;
        break;
    }
    case CS_KEY_UINT: {
        int v = (int)values[0];
        int max = row->max > 1e6 ? 1000000 : (int)row->max;
        changed = ImGui::DragInt(row->key, &v, 0.2f, (int)row->min, max, "%d", ImGuiSliderFlags_AlwaysClamp);
        values[0] = v;
        break;
    }
    case CS_KEY_BOOL: {
        bool v = values[0] != 0.0;
        changed = ImGui::Checkbox(row->key, &v);
        values[0] = v ? 1.0 : 0.0;
        break;
    }
    case CS_KEY_ENUM: {
        int v = (int)values[0];
        std::string items(row->choices);
        std::replace(items.begin(), items.end(), '|', '\0');
        items.push_back('\0');
        changed = ImGui::Combo(row->key, &v, items.c_str());
        values[0] = v;
        break;
    }
    case CS_KEY_VEC3: case CS_KEY_COLOR: {
        float v[3];
        for (int c = 0; c < 3; c++)
            v[c] = (float)cs_scene_key_get(row, key->base, (uint32_t)c);
        if (row->type == CS_KEY_COLOR) {
            changed = ImGui::ColorEdit3(row->key, v, ImGuiColorEditFlags_Float);
        } else {
            float m = (row->flags & (CS_KEY_COORD | CS_KEY_LIMIT)) ? hi : 1e6f;
            changed = ImGui::DragFloat3(row->key, v, 0.01f, -m, m, "%.4g", ImGuiSliderFlags_AlwaysClamp);
        }
        count = 3;
        for (int c = 0; c < 3; c++)
            values[c] = v[c];
        break;
    }
    default:
        break;
    }
    if (ImGui::IsItemHovered()) {
        char range[96] = "";
        if (row->type == CS_KEY_NUMBER || row->type == CS_KEY_UINT)
            snprintf(range, sizeof range, "%s%g ... %g", (row->flags & (CS_KEY_MIN_OPEN | CS_KEY_POSITIVE)) ? "> " : "",
                     row->min, row->max);
        ImGui::SetTooltip("%s\n%s\nunit: %s   range: %s   default: %s", key->path, row->help ? row->help : "",
                          row->unit && row->unit[0] ? row->unit : "-", range[0] ? range : "-",
                          row->def ? row->def : "-");
    }
    if (row->unit && row->unit[0]) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", row->unit);
    }
    if (changed) {
        cs_error err;
        if (cs_panel_key_set(run->world, key, values, count, &p->edits, &err))
            p->error[0] = 0;
        else
            snprintf(p->error, sizeof p->error, "%s", err.msg);
    }
    ImGui::PopID();
}

static void parameters(cs_panel *p, const cs_panel_run *run, cs_panel_requests *req)
{
    static cs_panel_key keys[CS_PANEL_MAX_KEYS];
    uint32_t n = cs_panel_keys_list(run->scene, run->world, keys, CS_PANEL_MAX_KEYS);
    if (p->error[0]) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.35f, 0.3f, 1.0f));
        ImGui::TextWrapped("%s", p->error);
        ImGui::PopStyleColor();
    }
    // Room for the key names and units beside the widgets.
    ImGui::PushItemWidth(-ImGui::GetFontSize() * 14.0f);
    for (uint32_t i = 0; i < n;) {
        uint32_t end = i;
        while (end < n && strcmp(keys[end].group, keys[i].group) == 0)
            end++;
        const char *group = keys[i].group[0] ? keys[i].group : "world";
        if (ImGui::TreeNodeEx(group, p->interactive ? 0 : ImGuiTreeNodeFlags_DefaultOpen)) {
            for (uint32_t k = i; k < end; k++)
                key_widget(p, run, &keys[k]);
            ImGui::TreePop();
        }
        i = end;
    }
    ImGui::PopItemWidth();
    if (p->edits.count && ImGui::TreeNode("edits (key.path=value)")) {
        for (uint32_t e = 0; e < p->edits.count; e++)
            ImGui::TextUnformatted(p->edits.items[e]);
        ImGui::TreePop();
    }
    if (p->edits.count && button(p, "Save as ..._edited.json"))
        req->save_as = true;
    if (run->saved && run->saved[0])
        ImGui::TextWrapped("%s", run->saved);
}

static void read_scenes(cs_panel *p, const char *dir)
{
    p->scenes_read = true;
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0)
            p->scenes.push_back(std::string(e->d_name, len - 5));
    }
    closedir(d);
    std::sort(p->scenes.begin(), p->scenes.end());
}

static void scene_picker(cs_panel *p, const cs_panel_run *run, cs_panel_requests *req)
{
    if (!run->scenes_dir)
        return;
    if (!p->scenes_read)
        read_scenes(p, run->scenes_dir);
    if (ImGui::BeginCombo("scene", run->scene->name)) {
        for (const std::string &name : p->scenes)
            if (ImGui::Selectable(name.c_str(), name == run->scene->name))
                snprintf(req->open_scene, sizeof req->open_scene, "%s/%s.json", run->scenes_dir, name.c_str());
        ImGui::EndCombo();
    }
}

// The toggles the window's keys give, each where its part exists.
static void toggles(cs_panel *p, const cs_panel_run *run, cs_panel_requests *req)
{
    cs_world *w = run->world;
    if (w->surface_count) {
        int draw = run->draw;
        if (ImGui::Combo("draw (V)", &draw, "particles\0surface\0both\0water\0\0") && draw != run->draw)
            req->draw_mode = draw;
    }
    if (w->radiosity) {
        if (w->radiosity->probes_made) {
            bool on = w->radiosity->probes_shading;
            if (ImGui::Checkbox("light probes (L)", &on))
                req->keys.toggle_probes = true;
        }
        if (button(p, "cycle wall colours (G)"))
            req->keys.cycle_albedo = true;
        if (w->radiosity->has_level) {
            bool baked = run->level_baked;
            if (ImGui::Checkbox("level: TR1's baked light (B)", &baked))
                req->keys.toggle_level_light = true;
        }
    }
    bool arrows = false;
    for (uint32_t f = 0; f < w->fluid_count; f++) {
        cs_particle_view view = {};
        if (w->fluids[f].ops->particles)
            w->fluids[f].ops->particles(w->fluids[f].state, &view);
        arrows = arrows || view.arrow_count;
    }
    if (arrows) {
        bool flipped = run->arrows_flipped;
        if (ImGui::Checkbox("arrows flipped from the scene's (O)", &flipped))
            req->keys.flip_features ^= cs_render_feature_bit("arrows");
    }
    bool overlay = run->overlay;
    if (ImGui::Checkbox("GPU ms overlay (P)", &overlay))
        req->keys.toggle_overlay = true;
}

extern "C" void cs_panel_layout_rect(uint32_t width, uint32_t height, float rect[4])
{
    float w = std::min(440.0f, (float)width * 0.45f), h = std::max((float)height - 20.0f, 100.0f);
    rect[0] = 10.0f, rect[1] = 10.0f, rect[2] = 10.0f + w, rect[3] = 10.0f + h;
}

static void layout(cs_panel *p, const cs_panel_run *run, uint32_t width, uint32_t height, cs_panel_requests *req)
{
    float at[4];
    cs_panel_layout_rect(width, height, at);
    ImGuiCond cond = p->interactive ? ImGuiCond_FirstUseEver : ImGuiCond_Always;
    ImGui::SetNextWindowPos(ImVec2(at[0], at[1]), cond);
    ImGui::SetNextWindowSize(ImVec2(at[2] - at[0], at[3] - at[1]), cond);
    ImGui::SetNextWindowBgAlpha(0.9f);
    ImGui::Begin("cistern panel");
    if (run->alert && run->alert[0])
        ImGui::TextColored(ImVec4(1.0f, 0.3f, 0.25f, 1.0f), "%s", run->alert);
    ImGui::Text("%s", run->scene->name);
    scene_picker(p, run, req);
    if (button(p, run->paused ? "Resume" : "Pause"))
        req->keys.toggle_pause = true;
    ImGui::SameLine();
    if (button(p, "Step"))
        req->keys.steps++;
    ImGui::SameLine();
    if (button(p, "Restart"))
        req->keys.restart = true;
    ImGui::Text("frame %u   t = %.4f s", run->frame, run->time);
    char stepping[256]; // the real-time mode or the physical clock (scene "realtime")
    cs_scene_stepping_text(run->scene, stepping, sizeof stepping);
    ImGui::TextWrapped("%s", stepping);
    if (ImGui::CollapsingHeader("Colour", ImGuiTreeNodeFlags_DefaultOpen)) {
        int mode = run->color_mode;
        if (ImGui::Combo("colour (C)", &mode, "material\0speed\0density\0\0") && mode != run->color_mode)
            req->color_mode = mode;
        if (!colour_mode_drawn(run)) {
            ImGui::TextWrapped("The surface is drawn in its material's colour, not by %s: %s shows on particles "
                               "(draw: particles or both, V).",
                               run->color_mode == CS_COLOR_SPEED ? "speed" : "density",
                               run->color_mode == CS_COLOR_SPEED ? "speed" : "density");
            remember(p, "colour note");
        }
        else if (run->color_mode == CS_COLOR_MATERIAL)
            materials_swatches(run->scene);
        else
            color_bar(p, run);
        toggles(p, run, req);
    }
    if (ImGui::CollapsingHeader("GPU ms a frame")) {
        ImGui::TextUnformatted(run->timings && run->timings[0] ? run->timings : "(no frame finished yet)");
    }
    if (ImGui::CollapsingHeader("Parameters", ImGuiTreeNodeFlags_DefaultOpen))
        parameters(p, run, req);
    ImVec2 a = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
    p->rect[0] = a.x, p->rect[1] = a.y, p->rect[2] = a.x + s.x, p->rect[3] = a.y + s.y;
    ImGui::End();
}

// ImDrawData, flattened into one vertex array, one index array (u32, each
// list's vertex offset added) and the commands.
static void flatten(cs_panel *p)
{
    ImDrawData *dd = ImGui::GetDrawData();
    p->vertices.clear(), p->indices.clear(), p->commands.clear();
    for (int l = 0; dd && l < dd->CmdListsCount; l++) {
        const ImDrawList *list = dd->CmdLists[l];
        uint32_t base = (uint32_t)p->vertices.size(), first = (uint32_t)p->indices.size();
        for (const ImDrawVert &v : list->VtxBuffer)
            p->vertices.push_back({v.pos.x - dd->DisplayPos.x, v.pos.y - dd->DisplayPos.y, v.uv.x, v.uv.y, v.col});
        for (const ImDrawCmd &cmd : list->CmdBuffer) {
            if (cmd.UserCallback || !cmd.ElemCount)
                continue;
            cs_render_ui_command c = {(uint32_t)p->indices.size(), cmd.ElemCount,
                                      {cmd.ClipRect.x - dd->DisplayPos.x, cmd.ClipRect.y - dd->DisplayPos.y,
                                       cmd.ClipRect.z - dd->DisplayPos.x, cmd.ClipRect.w - dd->DisplayPos.y}};
            for (uint32_t i = 0; i < cmd.ElemCount; i++)
                p->indices.push_back(base + cmd.VtxOffset + list->IdxBuffer[(int)(cmd.IdxOffset + i)]);
            p->commands.push_back(c);
        }
        (void)first;
    }
    p->ui.vertices = p->vertices.data();
    p->ui.vertex_count = (uint32_t)p->vertices.size();
    p->ui.indices = p->indices.data();
    p->ui.index_count = (uint32_t)p->indices.size();
    p->ui.commands = p->commands.data();
    p->ui.command_count = (uint32_t)p->commands.size();
}

static void begin_frame(cs_panel *panel, uint32_t width, uint32_t height)
{
    ImGui::SetCurrentContext(panel->imgui);
    ImGuiIO &io = ImGui::GetIO();
    io.DisplaySize = ImVec2((float)width, (float)height);
    if (panel->interactive) {
        double now = cs_now_seconds();
        io.DeltaTime = panel->last_time > 0.0 ? (float)std::max(now - panel->last_time, 1e-4) : 1.0f / 60.0f;
        panel->last_time = now;
    } else {
        io.DeltaTime = 1.0f / 60.0f;
    }
    panel->widgets.clear();
    ImGui::NewFrame();
}

extern "C" const cs_render_ui *cs_panel_frame(cs_panel *panel, const cs_panel_run *run, uint32_t width,
                                              uint32_t height, cs_panel_requests *req)
{
    *req = cs_panel_requests{};
    req->color_mode = -1;
    req->draw_mode = -1;
    begin_frame(panel, width, height);
    layout(panel, run, width, height, req);
    ImGui::Render();
    flatten(panel);
    return &panel->ui;
}

extern "C" void cs_panel_room_label(const cs_level_room *room, uint32_t index, char *out, size_t size)
{
    int used = snprintf(out, size, "room %3u   %4.1f x %4.1f x %4.1f m", index, room->max[0] - room->min[0],
                        room->max[1] - room->min[1], room->max[2] - room->min[2]);
    // The flag --flood fills and the fluid reads; any other bit shown as is.
    unsigned other = room->flags & ~(unsigned)CS_TR1_ROOM_WATER;
    if (used > 0 && (size_t)used < size && (room->flags & CS_TR1_ROOM_WATER))
        used += snprintf(out + used, size - (size_t)used, "   water");
    if (used > 0 && (size_t)used < size && other)
        snprintf(out + used, size - (size_t)used, "   flags 0x%04x", other);
}

extern "C" const cs_render_ui *cs_panel_level_frame(cs_panel *panel, const cs_panel_level *level, uint32_t width,
                                                    uint32_t height, int *jump)
{
    *jump = -1;
    begin_frame(panel, width, height);
    float at[4];
    cs_panel_layout_rect(width, height, at);
    ImGuiCond cond = panel->interactive ? ImGuiCond_FirstUseEver : ImGuiCond_Always;
    ImGui::SetNextWindowPos(ImVec2(at[0], at[1]), cond);
    ImGui::SetNextWindowSize(ImVec2(std::min(at[2] - at[0], 300.0f), at[3] - at[1]), cond);
    ImGui::SetNextWindowBgAlpha(0.9f);
    ImGui::Begin("cistern view");
    ImGui::TextWrapped("%s", level->level);
    ImGui::Text("%s; %u of %u rooms drawn", level->radiosity_shown ? "radiosity" : "baked light", level->rooms_drawn,
                level->mesh->room_count);
    if (level->camera_room < 0) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.3f, 1.0f));
        ImGui::TextWrapped("The camera is outside every room: pick a room below (or Tab) to go back.");
        ImGui::PopStyleColor();
    } else {
        ImGui::Text("camera in room %d", level->camera_room);
    }
    ImGui::Separator();
    ImGui::BeginChild("rooms");
    for (uint32_t r = 0; r < level->mesh->room_count; r++) {
        const cs_level_room *room = &level->mesh->rooms[r];
        char label[128];
        cs_panel_room_label(room, r, label, sizeof label);
        if (ImGui::Selectable(label, (int)r == level->camera_room))
            *jump = (int)r;
    }
    ImGui::EndChild();
    ImVec2 a = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
    panel->rect[0] = a.x, panel->rect[1] = a.y, panel->rect[2] = a.x + s.x, panel->rect[3] = a.y + s.y;
    ImGui::End();
    ImGui::Render();
    flatten(panel);
    return &panel->ui;
}

extern "C" void cs_panel_rect(const cs_panel *panel, float rect[4]) { memcpy(rect, panel->rect, sizeof panel->rect); }

extern "C" bool cs_panel_widget_rect(const cs_panel *panel, const char *label, float rect[4])
{
    for (const widget_rect &w : panel->widgets)
        // cppcheck-suppress useStlAlgorithm ; the plain loop reads better here
        if (w.label == label) {
            memcpy(rect, w.rect, sizeof w.rect);
            return true;
        }
    return false;
}

extern "C" const cs_panel_edits *cs_panel_edit_list(const cs_panel *panel) { return &panel->edits; }

extern "C" const char *cs_panel_error(const cs_panel *panel) { return panel->error; }
