// feature_box.c — the domain box's twelve edges as lines (a rectangle in 2D).
#include "feature.h"

typedef struct box {
    cs_program_id program;
} box;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    box *b = calloc(1, sizeof *b);
    CS_ASSERT(b, "out of memory");
    *state = b;
    return cs_render_program(r, "render box", "render/box.vert", "render/box.frag", VK_PRIMITIVE_TOPOLOGY_LINE_LIST,
                             true, true, VK_COMPARE_OP_LESS_OR_EQUAL, VK_CULL_MODE_NONE, &b->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    box *b = state;
    cs_program_destroy(r->ctx, &b->program);
    free(b);
}

static void draw_box(box *b, cs_recorder *rec, const cs_render_view *view, const cs_scene *scene)
{
    struct cs_render_box_push push = {
        .view_x = view->view_rows[0], .view_y = view->view_rows[1], .view_z = view->view_rows[2],
        .proj = view->proj,
        .fog = view->fog,
        .box_min = {scene->domain_min[0], scene->domain_min[1], scene->dim == 2 ? 0 : scene->domain_min[2], 0},
        .box_max = {scene->domain_max[0], scene->domain_max[1], scene->dim == 2 ? 0 : scene->domain_max[2], 0},
        .misc = {view->fog_start, (float)view->flags, 0, 0},
    };
    cs_draw(rec, b->program, &(cs_draw_desc){.push = &push, .push_size = sizeof push, .vertex_count = 24});
}

static bool same_domain(const cs_scene *a, const cs_scene *b)
{
    return memcmp(a->domain_min, b->domain_min, sizeof a->domain_min) == 0 &&
           memcmp(a->domain_max, b->domain_max, sizeof a->domain_max) == 0;
}

// The frame scene's domain, then every other domain a particle view's
// fluid has (a world whose fluids each have their own box shows them all).
static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    (void)r;
    box *b = state;
    if (view->frame->hide_box)
        return;
    const cs_scene *drawn[CS_MAX_FLUIDS + 1] = {view->scene};
    uint32_t drawn_count = 1;
    draw_box(b, rec, view, view->scene);
    for (uint32_t i = 0; i < view->item_count; i++) {
        const cs_scene *s = ((const cs_particle_view *)view->items[i]->data)->scene;
        bool seen = !s;
        for (uint32_t k = 0; k < drawn_count && !seen; k++)
            seen = same_domain(drawn[k], s);
        if (seen)
            continue;
        drawn[drawn_count++] = s;
        draw_box(b, rec, view, s);
    }
}

const cs_render_feature cs_feature_box = {.name = "box", .draws = CS_DRAWABLE_BIT(CS_DRAWABLE_PARTICLES),
                                        .create = create, .destroy = destroy, .record = record};
