// feature_background.c — the background gradient: one full-screen triangle.
#include "feature.h"

typedef struct background {
    cs_program_id program;
} background;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    background *b = calloc(1, sizeof *b);
    CS_ASSERT(b, "out of memory");
    *state = b;
    return cs_render_program(r, "render background", "render/background.vert", "render/background.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false, false, VK_COMPARE_OP_ALWAYS, VK_CULL_MODE_NONE, &b->program,
                             err);
}

static void destroy(cs_renderer *r, void *state)
{
    background *b = state;
    cs_program_destroy(r->ctx, &b->program);
    free(b);
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    (void)r;
    background *b = state;
    struct cs_render_background_push push = {
        .top = view->background_top,
        .bottom = view->background_bottom,
        .modes = {view->flags, 0, 0, 0},
    };
    cs_draw(rec, b->program, &(cs_draw_desc){.push = &push, .push_size = sizeof push, .vertex_count = 3});
}

const cs_render_feature cs_feature_background = {.name = "background", .create = create, .destroy = destroy, .record = record};
