// feature_floor.c — a grid of lines on the domain's floor (the plane y =
// domain min, 3D scenes), so a viewer can judge heights and distances.
// Off unless the scene's render.features names "floor_grid"; the F key
// flips it either way. Square cells: a tenth of the floor's longer side.
// Drawn before the box (which then keeps its own colour along the
// rectangle's edges), depth-tested, writing no depth.
//
// It is the proof of feature.h's promise: this file, its two shaders and
// one line in features.c, nothing else.
#include "feature.h"

#include <math.h>

#define FLOOR_DIVISIONS 10.0 // cells along the floor's longer side

typedef struct floor_grid {
    cs_program_id program;
} floor_grid;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    floor_grid *g = calloc(1, sizeof *g);
    CS_ASSERT(g, "out of memory");
    *state = g;
    return cs_render_program(r, "render floor grid", "render/floor.vert", "render/floor.frag",
                             VK_PRIMITIVE_TOPOLOGY_LINE_LIST, true, false, VK_COMPARE_OP_LESS_OR_EQUAL,
                             VK_CULL_MODE_NONE, &g->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    floor_grid *g = state;
    cs_program_destroy(r->ctx, &g->program);
    free(g);
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    (void)r;
    floor_grid *g = state;
    const cs_scene *s = view->scene;
    if (view->asked == view->flipped || s->dim != 3)
        return;
    double wx = (double)s->domain_max[0] - s->domain_min[0], wz = (double)s->domain_max[2] - s->domain_min[2];
    double cell = CS_MAX(wx, wz) / FLOOR_DIVISIONS;
    if (!(cell > 0))
        return;
    // Lines at min + k cell up to the far side (a hair of slack for rounding).
    uint32_t lines_x = (uint32_t)floor(wx / cell + 1e-6) + 1, lines_z = (uint32_t)floor(wz / cell + 1e-6) + 1;
    struct cs_render_box_push push = {
        .view_x = view->view_rows[0], .view_y = view->view_rows[1], .view_z = view->view_rows[2],
        .proj = view->proj,
        .fog = view->fog,
        .box_min = {s->domain_min[0], s->domain_min[1], s->domain_min[2], (float)cell},
        .box_max = {s->domain_max[0], s->domain_min[1], s->domain_max[2], 0},
        .misc = {view->fog_start, (float)view->flags, (float)lines_x, 0},
    };
    cs_draw(rec, g->program, &(cs_draw_desc){.push = &push, .push_size = sizeof push,
                                             .vertex_count = 2 * (lines_x + lines_z)});
}

const cs_render_feature cs_feature_floor = {
    .name = "floor_grid",
    .key = 'F',
    .key_help = "floor grid",
    .scene_flag = "lines on the domain's floor plane (3D)",
    .create = create, .destroy = destroy, .record = record,
};
