// feature_sky.c — a procedural sky behind everything (shaders/render/sky.glsl):
// what the water reflects, drawn where nothing else is, in place of the
// background gradient. On when the scene's render.features names "sky"
// (3D scenes); the K key flips it. One full-screen triangle at the far
// plane, no depth test or write.
#include "feature.h"

typedef struct sky {
    cs_program_id program;
} sky;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    sky *s = calloc(1, sizeof *s);
    CS_ASSERT(s, "out of memory");
    *state = s;
    return cs_render_program(r, "render sky", "render/sky.vert", "render/sky.frag", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                             false, false, VK_COMPARE_OP_ALWAYS, VK_CULL_MODE_NONE, &s->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    sky *s = state;
    cs_program_destroy(r->ctx, &s->program);
    free(s);
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    (void)r;
    sky *s = state;
    if (view->asked == view->flipped || view->scene->dim != 3)
        return;
    struct cs_render_sky_push push = {
        .view_x = view->view_rows[0],
        .view_y = view->view_rows[1],
        .view_z = view->view_rows[2],
        .proj = view->proj,
        .modes = {view->flags, 0, 0, 0},
    };
    cs_draw(rec, s->program, &(cs_draw_desc){.push = &push, .push_size = sizeof push, .vertex_count = 3});
}

const cs_render_feature cs_feature_sky = {
    .name = "sky",
    .key = 'K',
    .key_help = "sky",
    .scene_flag = "a procedural sky behind everything, which water reflects (3D)",
    .create = create,
    .destroy = destroy,
    .record = record,
};
