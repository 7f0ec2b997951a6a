// feature_smoke.c — particle views that ask for smoke (cs_particle_view's
// smoke.radius > 0, e.g. the vorton solver's tracers) drawn as soft
// sprites: camera-facing squares with a gaussian falloff, coloured by
// temperature, blended additively. Additive, not alpha "over": a sum does
// not depend on the order of its terms, so the image needs no depth sort
// and is the same whatever order the particles lie in. The sprites test
// depth against what is opaque (bodies, spheres, surfaces) and write none.
// Drawn after every opaque feature.
#include "feature.h"

typedef struct smoke {
    cs_program_id program;
} smoke;

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    smoke *s = calloc(1, sizeof *s);
    CS_ASSERT(s, "out of memory");
    *state = s;
    cs_program_desc desc = {
        .name = "render smoke",
        .vert = "render/smoke.vert",
        .frag = "render/smoke.frag",
        .graphics = {
            .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
            .depth_test = true,
            .depth_write = false,
            .depth_compare = VK_COMPARE_OP_LESS,
            .additive_blend = true,
            .cull = VK_CULL_MODE_NONE,
            .color_format = r->color_format,
            .depth_format = r->depth_format,
        },
    };
    return cs_program_create(r->ctx, &desc, &s->program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    smoke *s = state;
    cs_program_destroy(r->ctx, &s->program);
    free(s);
}

static void draw_view(cs_renderer *r, smoke *s, cs_recorder *rec, const cs_render_view *view,
                      const cs_particle_view *pv)
{
    uint32_t count = pv->count;
    if (pv->smoke.radius <= 0.0f || (count == 0 && !pv->draw_args))
        return;
    CS_ASSERT(pv->positions, "a smoke view needs positions");
    CS_ASSERT(count <= UINT32_MAX / 6, "too many particles to draw: %u", count);
    const cs_smoke_style *style = &pv->smoke;
    bool has_temperatures = pv->densities && pv->densities->buffer;
    struct cs_render_smoke_push push = {
        .view_x = view->view_rows[0], .view_y = view->view_rows[1], .view_z = view->view_rows[2],
        .proj = view->proj,
        .fog = view->fog,
        .params = {style->radius, style->intensity, style->cool, style->hot},
        .modes = {view->flags, count, has_temperatures, 0},
        .misc = {view->fog_start, 0, 0, 0},
    };
    // No temperatures: the dummy is bound and never read (modes.z).
    cs_buffer *temperatures = has_temperatures ? pv->densities : &r->dummy;
    cs_draw(rec, s->program, &(cs_draw_desc){
        .buffers = {pv->positions, temperatures},
        .push = &push, .push_size = sizeof push,
        .vertex_count = 6 * count,
        .indirect = pv->draw_args});
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    for (uint32_t i = 0; i < view->item_count; i++)
        draw_view(r, state, rec, view, view->items[i]->data);
}

const cs_render_feature cs_feature_smoke = {.name = "smoke", .draws = CS_DRAWABLE_BIT(CS_DRAWABLE_PARTICLES),
                                          .create = create, .destroy = destroy, .record = record};
