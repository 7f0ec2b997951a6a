// feature_tiles.c — a checker floor on the domain's floor plane (y =
// domain min, 3D scenes) reaching CS_RENDER_TILES_REACH domain sizes
// around it: something to see through the water and its refraction bend.
// On when the scene's render.features names "floor_tiles"; the T key flips
// it. Tiles are the floor grid's cells (a tenth of the floor's longer
// side), so the two line up. Opaque: depth-tested and written.
#include "feature.h"

#include <math.h>

#define TILE_DIVISIONS 10.0 // tiles along the floor's longer side (the floor grid's cells)

typedef struct tiles {
    cs_program_id program;
} tiles;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    tiles *t = calloc(1, sizeof *t);
    CS_ASSERT(t, "out of memory");
    *state = t;
    return cs_render_program(r, "render floor tiles", "render/tiles.vert", "render/tiles.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true, true, VK_COMPARE_OP_LESS, VK_CULL_MODE_NONE,
                             &t->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    tiles *t = state;
    cs_program_destroy(r->ctx, &t->program);
    free(t);
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    (void)r;
    tiles *t = state;
    const cs_scene *s = view->scene;
    if (view->asked == view->flipped || s->dim != 3)
        return;
    double wx = (double)s->domain_max[0] - s->domain_min[0], wz = (double)s->domain_max[2] - s->domain_min[2];
    double tile = CS_MAX(wx, wz) / TILE_DIVISIONS;
    if (!(tile > 0))
        return;
    struct cs_render_box_push push = {
        .view_x = view->view_rows[0],
        .view_y = view->view_rows[1],
        .view_z = view->view_rows[2],
        .proj = view->proj,
        .fog = view->fog,
        .box_min = {s->domain_min[0], s->domain_min[1], s->domain_min[2], (float)tile},
        .box_max = {s->domain_max[0], s->domain_min[1], s->domain_max[2],
                    (float)(CS_RENDER_TILES_REACH * CS_MAX(wx, wz))},
        .misc = {view->fog_start, (float)view->flags, 0, 0},
    };
    cs_draw(rec, t->program, &(cs_draw_desc){.push = &push, .push_size = sizeof push, .vertex_count = 6});
}

const cs_render_feature cs_feature_tiles = {
    .name = "floor_tiles",
    .key = 'T',
    .key_help = "floor tiles",
    .scene_flag = "a checker floor on the domain's floor plane, reaching past it (3D)",
    .create = create,
    .destroy = destroy,
    .record = record,
};
