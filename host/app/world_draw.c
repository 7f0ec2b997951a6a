// world_draw.c — the frame a run draws of its world (world_draw.h).
#include "world_draw.h"

#include <string.h>

cs_render_frame cs_world_draw_frame(cs_world *world, cs_draw_mode draw, bool level_baked, cs_world_draw *arrays)
{
    *arrays = (cs_world_draw){0};
    uint32_t view_count = 0, surface_count = 0;
    bool draw_field = false;
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        cs_world_fluid *f = &world->fluids[i];
        cs_world_surface *s = cs_world_surface_of(world, i);
        bool surface = s && s->drawable && draw != CS_DRAW_PARTICLES;
        if (surface) {
            cs_render_surface *m = &arrays->surfaces[surface_count++];
            *m = (cs_render_surface){.positions = &s->mesh.positions, .normals = &s->mesh.normals,
                                     .indices = &s->mesh.indices, .triangle_count = s->mesh.triangle_count};
            memcpy(m->color, f->scene->materials[0].color, sizeof m->color);
        }
        if (f->ops->field && f->scene->dim == 2 && !draw_field) {
            f->ops->field(f->state, &arrays->field);
            draw_field = true;
        } else if (f->ops->particles && !(surface && draw == CS_DRAW_SURFACE)) {
            f->ops->particles(f->state, &arrays->views[view_count]);
            arrays->views[view_count++].scene = f->scene;
        }
    }
    return (cs_render_frame){.particles = view_count ? arrays->views : NULL,
                             .particle_view_count = view_count,
                             .field = draw_field ? &arrays->field : NULL,
                             .surfaces = arrays->surfaces,
                             .surface_count = surface_count,
                             .body_states = world->has_bodies ? &world->bodies.states : NULL,
                             .level = world->has_level ? &world->level : NULL,
                             .radiosity = world->radiosity,
                             .level_baked = level_baked,
                             .level_time = cs_world_time(world),
                             .scene = world->fluids[0].scene,
                             .color_mode = -1};
}
