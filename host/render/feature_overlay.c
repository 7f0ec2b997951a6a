// feature_overlay.c — text in the top-left corner of the image (the window's
// per-pass GPU ms, cs_render_frame.overlay): stb_easy_font turns the text
// into quads on the host, a host-visible buffer holds them, and one draw
// pulls them (shaders/render/overlay_shared.h). Drawn last, over
// everything, without depth. The quads are rewritten every frame they are
// drawn, into the buffer of the recorder's frame slot: with frames in
// flight (recorder.h) the GPU may still read the previous frame's quads
// while the host writes these.
#include "feature.h"

#include "../../shaders/render/overlay_shared.h"

#include <math.h>
// stb_easy_font is header-only and all static; its unused helpers and its
// casts would trip -Werror.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#include <stb/stb_easy_font.h>
#pragma GCC diagnostic pop

typedef struct overlay {
    cs_program_id program;
    cs_buffer quads[CS_FRAME_SLOTS]; // per frame slot: vec4 per quad (pixels), quad 0 the panel
} overlay;

// stb_easy_font's vertex: x, y, z, rgba.
typedef struct easy_font_vertex {
    // cppcheck-suppress unusedStructMember ; stb_easy_font writes z: part of the stride
    float x, y, z;
    // cppcheck-suppress unusedStructMember ; stb_easy_font writes it: part of the stride
    unsigned char color[4];
} easy_font_vertex;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    overlay *o = calloc(1, sizeof *o);
    CS_ASSERT(o, "out of memory");
    *state = o;
    for (uint32_t i = 0; i < CS_FRAME_SLOTS; i++)
        if (!cs_buffer_create(r->ctx, &(cs_buffer_desc){.name = "overlay quads", .host_visible = true,
                                                         .size = CS_OVERLAY_MAX_QUADS * 4 * sizeof(float)},
                              &o->quads[i], err))
            return false;
    return cs_render_program(r, "render overlay", "render/overlay.vert", "render/overlay.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false, false, VK_COMPARE_OP_ALWAYS,
                             VK_CULL_MODE_NONE, &o->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    overlay *o = state;
    cs_program_destroy(r->ctx, &o->program);
    for (uint32_t i = 0; i < CS_FRAME_SLOTS; i++)
        cs_buffer_destroy(r->ctx, &o->quads[i]);
    free(o);
}

void cs_render_overlay_panel(const char *text, float panel[4])
{
    float m = (float)CS_OVERLAY_MARGIN, s = (float)CS_OVERLAY_SCALE;
    float w = (float)stb_easy_font_width((char *)text), h = (float)stb_easy_font_height((char *)text);
    panel[0] = m, panel[1] = m;
    panel[2] = m + 2 * m + s * w, panel[3] = m + 2 * m + s * h;
}

uint32_t cs_render_overlay_columns(uint32_t width)
{
    // stb_easy_font is proportional: "m" is among its widest letters, so a
    // line of that many characters of anything fits.
    float m = (float)CS_OVERLAY_MARGIN, s = (float)CS_OVERLAY_SCALE;
    float per_char = s * (float)stb_easy_font_width((char *)"mmmmmmmmmm") / 10.0f;
    float room = (float)width - 4.0f * m; // the panel's margin and its padding, both sides
    uint32_t columns = room > 0.0f ? (uint32_t)(room / per_char) : 0;
    return CS_MAX(columns, 20u);
}

// The panel and the text's quads into `quads`; returns how many.
static uint32_t layout_text(const char *text, float (*quads)[4], uint32_t capacity)
{
    cs_render_overlay_panel(text, quads[0]);
    static easy_font_vertex vertices[CS_OVERLAY_MAX_QUADS * 4];
    int n = stb_easy_font_print(0, 0, (char *)text, NULL, vertices, (int)sizeof vertices);
    uint32_t count = 1;
    float origin = 2.0f * (float)CS_OVERLAY_MARGIN, s = (float)CS_OVERLAY_SCALE;
    for (int q = 0; q < n && count < capacity; q++, count++) {
        const easy_font_vertex *v = &vertices[4 * q]; // corners in order: x0y0, x1y0, x1y1, x0y1
        quads[count][0] = origin + s * v[0].x, quads[count][1] = origin + s * v[0].y;
        quads[count][2] = origin + s * v[2].x, quads[count][3] = origin + s * v[2].y;
    }
    return count;
}

static void draw_quads(cs_program_id program, cs_buffer *quads, cs_recorder *rec, const cs_render_view *view,
                       uint32_t first, uint32_t count, const float rgb[3])
{
    struct cs_render_overlay_push push = {
        .target = {(float)view->width, (float)view->height, 0, 0},
        .color = {rgb[0], rgb[1], rgb[2], 0},
        .modes = {view->flags, first, 0, 0},
    };
    cs_draw(rec, program, &(cs_draw_desc){.buffers = {quads}, .push = &push, .push_size = sizeof push,
                                             .vertex_count = 6 * count});
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    (void)r;
    overlay *o = state;
    const char *alert = view->frame->alert, *own = view->frame->overlay;
    alert = alert && *alert ? alert : NULL;
    own = own && *own ? own : NULL;
    if (!alert && !own)
        return;
    // One text, one panel: the alert's lines, then the overlay's. The alert
    // is a prefix, so its quads are the first ones stb_easy_font emits for
    // the whole text, as many as it emits for the alert alone.
    static char text[6144];
    static easy_font_vertex scratch[CS_OVERLAY_MAX_QUADS * 4];
    snprintf(text, sizeof text, "%s%s%s", alert ? alert : "",
             alert && own && alert[strlen(alert) - 1] != '\n' ? "\n" : "", own ? own : "");
    uint32_t alert_quads =
        alert ? (uint32_t)stb_easy_font_print(0, 0, (char *)alert, NULL, scratch, (int)sizeof scratch) : 0;
    CS_ASSERT(rec->frame_slot < CS_FRAME_SLOTS, "frame slot %u", rec->frame_slot);
    cs_buffer *quads = &o->quads[rec->frame_slot];
    uint32_t count = layout_text(text, quads->mapped, CS_OVERLAY_MAX_QUADS);
    uint32_t glyphs = count - 1, red = CS_MIN(alert_quads, glyphs);
    const float panel[3] = {CS_OVERLAY_PANEL}, ink[3] = {CS_OVERLAY_TEXT}, alert_ink[3] = {CS_OVERLAY_ALERT};
    draw_quads(o->program, quads, rec, view, 0, 1, panel);
    if (red)
        draw_quads(o->program, quads, rec, view, 1, red, alert_ink);
    if (glyphs > red)
        draw_quads(o->program, quads, rec, view, 1 + red, glyphs - red, ink);
}

const cs_render_feature cs_feature_overlay = {.name = "overlay", .create = create, .destroy = destroy, .record = record};

// Passes of the same name (a pass per substep) are summed; the `top`
// largest are listed, then the frame's total.
static int by_ms_descending(const void *a, const void *b)
{
    double x = ((const cs_pass_timing *)a)->ms, y = ((const cs_pass_timing *)b)->ms;
    return (x < y) - (x > y);
}

void cs_render_overlay_format(const cs_recorder *rec, uint32_t top, char *out, size_t size)
{
    // Names past the 128th are not listed; their time is in the total.
    cs_pass_timing sums[128];
    uint32_t n = cs_recorder_pass_sums(rec, sums, sizeof sums / sizeof sums[0]);
    double total = cs_recorder_total_ms(rec);
    qsort(sums, n, sizeof sums[0], by_ms_descending);
    size_t used = 0;
    used += (size_t)snprintf(out, size, "GPU ms a frame (P hides)\n");
    for (uint32_t k = 0; k < n && k < top && used < size; k++)
        used += (size_t)snprintf(out + used, size - used, "%8.2f  %s\n", sums[k].ms, sums[k].name);
    if (used < size)
        snprintf(out + used, size - used, "%8.2f  total, %u passes\n", total, rec->pass_count);
}
