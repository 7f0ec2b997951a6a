// feature_surface.c — fluid surfaces: the marching-cubes meshes
// (pipelines/surface/surface.h) drawn indexed, positions and normals pulled from
// their storage buffers, one draw per surface of the frame, opaque, with
// depth. Shading: shaders/render/surface.frag; lit by the light probes
// when the scene has them (the particles' switch, the L key).
#include "feature.h"

#include "world_radiosity.h"

#include <math.h>

typedef struct surface {
    cs_program_id program;
    cs_buffer no_probes;   // bound when the frame has no light probes (a header and one probe of zeros)
} surface;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    surface *s = calloc(1, sizeof *s);
    CS_ASSERT(s, "out of memory");
    *state = s;
    if (!cs_buffer_create(r->ctx, &(cs_buffer_desc){.name = "render surface no probes",
                                                    .size = sizeof(cs_probe_grid) + sizeof(cs_probe)},
                          &s->no_probes, err))
        return false;
    cs_buffer_fill(r->ctx, &s->no_probes, 0u);
    return cs_render_program(r, "render surface", "render/surface.vert", "render/surface.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true, true, VK_COMPARE_OP_LESS, VK_CULL_MODE_NONE, &s->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    surface *s = state;
    cs_program_destroy(r->ctx, &s->program);
    if (s->no_probes.buffer)
        cs_buffer_destroy(r->ctx, &s->no_probes);
    free(s);
}

// The world's up, -gravity (+y without gravity), turned into view space
// for the hemisphere term.
static vec4 up_in_view(const cs_render_view *view)
{
    const float *g = view->scene->gravity;
    double len = sqrt((double)g[0] * g[0] + (double)g[1] * g[1] + (double)g[2] * g[2]);
    double up[3] = {0, 1, 0};
    if (len > 1e-12)
        up[0] = -g[0] / len, up[1] = -g[1] / len, up[2] = -g[2] / len;
    float v[3];
    for (int row = 0; row < 3; row++) {
        const vec4 *r = &view->view_rows[row];
        v[row] = (float)(r->x * up[0] + r->y * up[1] + r->z * up[2]);
    }
    return (vec4){v[0], v[1], v[2], 0};
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    surface *s = state;
    vec4 up = up_in_view(view);
    // The probes buffer's own flag says whether they light (the L key).
    struct cs_world_radiosity *radiosity = cs_render_first(view, CS_DRAWABLE_RADIOSITY);
    bool probes_made = radiosity && radiosity->probes_made;
    cs_buffer *probes = probes_made ? &radiosity->probes.probes : &s->no_probes;
    for (uint32_t i = 0; i < view->item_count; i++) {
        const cs_render_surface *m = view->items[i]->data;
        if (view->items[i]->kind != CS_DRAWABLE_SURFACE || m->triangle_count == 0)
            continue;
        if (m->water && r->can_read_scene)
            continue; // feature_water.c draws it
        CS_ASSERT(m->triangle_count <= UINT32_MAX / 3, "too many triangles to draw: %u", m->triangle_count);
        struct cs_render_surface_push push = {
            .view_x = view->view_rows[0], .view_y = view->view_rows[1], .view_z = view->view_rows[2],
            .proj = view->proj,
            .fog = view->fog,
            .color = {m->color[0], m->color[1], m->color[2], view->fog_start},
            .up = up,
            .modes = {view->flags, probes_made ? 1u : 0u, 0, 0},
        };
        cs_draw(rec, s->program, &(cs_draw_desc){
            .buffers = {m->positions, m->normals, probes},
            .push = &push, .push_size = sizeof push,
            .indices = m->indices, .index_count = 3 * m->triangle_count});
    }
}

const cs_render_feature cs_feature_surface = {
    .name = "surface",
    .draws = CS_DRAWABLE_BIT(CS_DRAWABLE_SURFACE) | CS_DRAWABLE_BIT(CS_DRAWABLE_RADIOSITY),
    .create = create, .destroy = destroy, .record = record,
};
