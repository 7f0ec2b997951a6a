// feature_arrows.c — particle views that carry arrows (cs_particle_view's
// arrow_count > 0: the vorton solver's vortons along their vorticity) drawn
// as lines with a head: 3 line segments (6 vertices pulled from the
// position and vector buffers) an arrow, opaque, depth-tested, coloured by
// the temperature on the smoke ramp. Drawn when the view's style says
// `shown`, flipped by the feature's key (O).
#include "feature.h"

typedef struct arrows {
    cs_program_id program;
} arrows;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    arrows *a = calloc(1, sizeof *a);
    CS_ASSERT(a, "out of memory");
    *state = a;
    return cs_render_program(r, "render arrows", "render/arrows.vert", "render/arrows.frag",
                             VK_PRIMITIVE_TOPOLOGY_LINE_LIST, true, true, VK_COMPARE_OP_LESS_OR_EQUAL,
                             VK_CULL_MODE_NONE, &a->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    arrows *a = state;
    cs_program_destroy(r->ctx, &a->program);
    free(a);
}

static void draw_view(arrows *a, cs_recorder *rec, const cs_render_view *view, const cs_particle_view *pv)
{
    const cs_arrow_style *style = &pv->arrows;
    bool shown = style->shown != view->flipped;
    if (!shown || pv->arrow_count == 0 || !(style->scale > 0.0f))
        return;
    CS_ASSERT(pv->arrow_positions && pv->arrow_vectors, "a view with arrows needs their positions and vectors");
    CS_ASSERT(pv->arrow_count <= UINT32_MAX / CS_RENDER_ARROW_VERTICES, "too many arrows to draw: %u",
              pv->arrow_count);
    struct cs_render_arrows_push push = {
        .view_x = view->view_rows[0], .view_y = view->view_rows[1], .view_z = view->view_rows[2],
        .proj = view->proj,
        .fog = view->fog,
        .params = {style->scale, style->max_length, style->cool, style->hot},
        .misc = {view->fog_start, (float)view->flags, 0, 0},
    };
    cs_draw(rec, a->program, &(cs_draw_desc){
        .buffers = {pv->arrow_positions, pv->arrow_vectors},
        .push = &push, .push_size = sizeof push,
        .vertex_count = CS_RENDER_ARROW_VERTICES * pv->arrow_count});
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    (void)r;
    for (uint32_t i = 0; i < view->item_count; i++)
        draw_view(state, rec, view, view->items[i]->data);
}

const cs_render_feature cs_feature_arrows = {
    .name = "arrows",
    .draws = CS_DRAWABLE_BIT(CS_DRAWABLE_PARTICLES),
    .key = 'O',
    .key_help = "vortons as arrows",
    .create = create, .destroy = destroy, .record = record,
};
