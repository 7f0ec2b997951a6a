// feature_field.c — a 2D grid pipeline's field (reintegration tracking) as
// an image over the domain rectangle: nearest cell, under the box and the
// particles. The rectangle's corners go through the same camera matrices as
// the box and the particles (so the field lands exactly inside the box),
// and the fragment shader picks the cell.
#include "feature.h"

typedef struct field {
    cs_program_id program;
} field;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    field *f = calloc(1, sizeof *f);
    CS_ASSERT(f, "out of memory");
    *state = f;
    // No depth: the field lies in the plane the box and the 2D particles are
    // drawn in, after it, and covers only the background.
    return cs_render_program(r, "render field", "render/field.vert", "render/field.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false, false, VK_COMPARE_OP_ALWAYS, VK_CULL_MODE_NONE, &f->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    field *f = state;
    cs_program_destroy(r->ctx, &f->program);
    free(f);
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    field *f = state;
    const cs_field_view *fv = cs_render_first(view, CS_DRAWABLE_FIELD); // one field is drawn
    const cs_scene *scene = view->scene;
    if (!fv || scene->dim != 2)
        return;
    CS_ASSERT(fv->cells && fv->cells->buffer, "a field view needs its cells buffer");
    CS_ASSERT(fv->stride_floats >= 4, "field stride %u floats; the renderer reads 4 per cell", fv->stride_floats);
    CS_ASSERT(fv->dims[0] > 0 && fv->dims[1] > 0, "field of %u x %u cells", fv->dims[0], fv->dims[1]);
    CS_ASSERT(fv->cells->size >= (VkDeviceSize)fv->dims[0] * fv->dims[1] * fv->stride_floats * 4,
              "field buffer %s holds fewer than %u x %u cells", fv->cells->name, fv->dims[0], fv->dims[1]);
    // Clip position (ortho: w = 1) of a point in the z = 0 plane.
    const cs_camera_matrices *m = &view->matrices;
    float clip[3][3];
    const float corners[3][2] = {{scene->domain_min[0], scene->domain_min[1]},
                                 {scene->domain_max[0], scene->domain_min[1]},
                                 {scene->domain_min[0], scene->domain_max[1]}};
    for (int k = 0; k < 3; k++) {
        float v[3];
        for (int row = 0; row < 3; row++)
            v[row] = m->view[row] * corners[k][0] + m->view[4 + row] * corners[k][1] + m->view[12 + row];
        clip[k][0] = m->proj_params[0] * v[0];
        clip[k][1] = m->proj_params[1] * v[1];
        clip[k][2] = m->proj_params[2] * v[2] + m->proj_params[3];
    }
    const vec4 top = view->background_top, bottom = view->background_bottom;
    float spread = view->density_spread;
    struct cs_render_field_push push = {
        .corner_edge_x = {clip[0][0], clip[0][1], clip[1][0] - clip[0][0], clip[1][1] - clip[0][1]},
        .edge_y_depth = {clip[2][0] - clip[0][0], clip[2][1] - clip[0][1], CS_MIN(CS_MAX(clip[0][2], 0.0f), 1.0f),
                         view->speed_max},
        .top = {top.x, top.y, top.z, 1.0f - spread},
        .bottom = {bottom.x, bottom.y, bottom.z, 1.0f + spread},
        .modes = {view->flags, (uint32_t)view->color_mode, fv->stride_floats, r->material_count},
        .dims = {fv->dims[0], fv->dims[1], view->height, 0},
    };
    cs_draw(rec, f->program, &(cs_draw_desc){.buffers = {fv->cells, &r->material_table}, .push = &push,
                                             .push_size = sizeof push, .vertex_count = 6});
}

const cs_render_feature cs_feature_field = {.name = "field", .draws = CS_DRAWABLE_BIT(CS_DRAWABLE_FIELD),
                                          .create = create, .destroy = destroy, .record = record};
