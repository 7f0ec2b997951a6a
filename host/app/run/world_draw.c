// world_draw.c — the frame a run draws of its world (world_draw.h).
#include "world_draw.h"

#include <string.h>

cs_render_frame cs_world_draw_frame(cs_world *world, cs_draw_mode draw, bool level_baked, cs_world_draw *arrays)
{
    *arrays = (cs_world_draw){0};
    cs_render_frame frame = {.scene = world->fluids[0].scene, .color_mode = -1};
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
            m->water = draw == CS_DRAW_WATER;
            memcpy(m->absorption, f->scene->materials[0].absorption, sizeof m->absorption);
            cs_render_frame_add(&frame, CS_DRAWABLE_SURFACE, m);
        }
        if (f->ops->field && f->scene->dim == 2 && !draw_field) {
            f->ops->field(f->state, &arrays->field);
            cs_render_frame_add(&frame, CS_DRAWABLE_FIELD, &arrays->field);
            draw_field = true;
        } else if (f->ops->particles && !(surface && (draw == CS_DRAW_SURFACE || draw == CS_DRAW_WATER))) {
            cs_particle_view *v = &arrays->views[view_count++];
            f->ops->particles(f->state, v);
            v->scene = f->scene;
            // Water: drawn by the renderer's screen-space fluid (3D).
            v->water = draw == CS_DRAW_WATER && f->scene->dim == 3;
            memcpy(v->absorption, f->scene->materials[0].absorption, sizeof v->absorption);
            cs_render_frame_add(&frame, CS_DRAWABLE_PARTICLES, v);
        }
    }
    if (world->has_bodies)
        cs_render_frame_add(&frame, CS_DRAWABLE_BODIES, &world->bodies.states);
    if (world->has_level) {
        arrays->level = (cs_render_level){.mesh = &world->level, .baked = level_baked, .time = cs_world_time(world)};
        cs_render_frame_add(&frame, CS_DRAWABLE_LEVEL, &arrays->level);
    }
    cs_render_frame_add(&frame, CS_DRAWABLE_RADIOSITY, world->radiosity);
    return frame;
}
