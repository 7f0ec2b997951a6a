// feature_particles.c — particles as lit sphere impostors with true depth,
// pulled from the solvers' storage buffers (one triangle, 3 vertices each),
// for every particle view of the frame (one per fluid). A view with
// draw_args is drawn indirectly: the count was decided on the GPU, and its
// 6 vertices a particle (sim.h) are passed on so the shader drops 3. Particles whose projected
// disc covers at most a pixel are drawn as one pixel (particles.vert). Two
// programs: one without the light probes (3 varyings a vertex) and one with
// them (their 9 irradiance coefficients ride along as flat varyings), used
// only when the frame has probes.
#include "feature.h"
#include "water_ssf.h"

#include "world_radiosity.h"

typedef struct particles {
    cs_program_id program;        // plain lighting
    cs_program_id probes_program; // CS_PARTICLES_PROBES: lit by the light probes when they are on
} particles;

// cs_render_program's state, with CS_PARTICLES_PROBES defined or not.
static bool particles_program(cs_renderer *r, const char *name, bool probes, cs_program_id *out, cs_error *err)
{
    cs_program_desc desc = {
        .name = name,
        .vert = "render/particles.vert",
        .frag = "render/particles.frag",
        .graphics = {
            .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
            .depth_test = true,
            .depth_write = true,
            .depth_compare = VK_COMPARE_OP_LESS,
            .cull = VK_CULL_MODE_NONE,
            .color_format = r->color_format,
            .depth_format = r->depth_format,
        },
    };
    if (probes)
        desc.defines[0] = (cs_define){"CS_PARTICLES_PROBES", "1"};
    return cs_program_create(r->ctx, &desc, out, err);
}

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    particles *p = calloc(1, sizeof *p);
    CS_ASSERT(p, "out of memory");
    *state = p;
    return particles_program(r, "render particles", false, &p->program, err) &&
           particles_program(r, "render particles (probes)", true, &p->probes_program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    particles *p = state;
    cs_program_destroy(r->ctx, &p->program);
    cs_program_destroy(r->ctx, &p->probes_program);
    free(p);
}

float cs_render_particle_radius(const cs_scene *scene, const cs_view_camera *camera, float frame_radius)
{
    if (frame_radius > 0)
        return frame_radius;
    if (scene->render.particle_radius > 0)
        return scene->render.particle_radius;
    if (scene->particle_spacing > 0)
        return 0.5f * scene->particle_spacing;
    return (float)(0.01 * camera->scene_radius);
}

static void draw_view(cs_renderer *r, particles *p, cs_recorder *rec, const cs_render_view *view,
                      const cs_particle_view *pv, uint32_t index)
{
    uint32_t count = pv->count;
    if ((count == 0 && !pv->draw_args) || pv->smoke.radius > 0.0f) // smoke: feature_smoke.c
        return;
    if (cs_water_ssf_draws(r, pv)) // feature_water.c
        return;
    CS_ASSERT(pv->positions && pv->materials, "a particle view needs positions and materials");
    CS_ASSERT(count <= UINT32_MAX / 3, "too many particles to draw: %u", count);
    uint32_t vertices_per_particle = pv->draw_args ? 6u : 3u;
    // A missing velocity or density buffer reads as the dummy: fall back to
    // material colours rather than read past its end.
    int mode = view->color_mode;
    if ((mode == CS_COLOR_SPEED && !pv->velocities) || (mode == CS_COLOR_DENSITY && !pv->densities))
        mode = CS_COLOR_MATERIAL;
    float spread = view->density_spread;
    const cs_render_frame *f = view->frame;
    float radius = cs_render_particle_radius(f->scene, f->camera, f->particle_radius);
    struct cs_render_particles_push push = {
        .view_x = view->view_rows[0], .view_y = view->view_rows[1], .view_z = view->view_rows[2],
        .proj = view->proj,
        .fog = view->fog,
        .params = {radius, view->speed_max, 1.0f - spread, 1.0f + spread},
        .modes = {view->flags, (uint32_t)mode, vertices_per_particle, r->view_material_count[index]},
        .misc = {view->fog_start, (float)r->view_material_base[index], 0, (float)view->height},
    };
    // Light probes (the scene's radiosity.probes): the vertex shader reads
    // them only with misc.z = 1; the L key switches them in the header.
    struct cs_world_radiosity *radiosity = cs_render_first(view, CS_DRAWABLE_RADIOSITY);
    cs_program_id program = p->program;
    cs_buffer *probes = NULL; // the plain program has no binding 5
    if (radiosity && radiosity->probes_made) {
        program = p->probes_program;
        probes = &radiosity->probes.probes;
        push.misc.z = 1.0f;
    }
    cs_buffer *velocities = pv->velocities && pv->velocities->buffer ? pv->velocities : &r->dummy;
    cs_buffer *densities = pv->densities && pv->densities->buffer ? pv->densities : &r->dummy;
    cs_draw(rec, program, &(cs_draw_desc){
        .buffers = {pv->positions, velocities, densities, pv->materials, &r->material_table, probes},
        .push = &push, .push_size = sizeof push,
        .vertex_count = 3 * count,
        .indirect = pv->draw_args});
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    // The renderer's material table numbers the particle views in frame order.
    uint32_t index = 0;
    for (uint32_t i = 0; i < view->item_count; i++)
        if (view->items[i]->kind == CS_DRAWABLE_PARTICLES)
            draw_view(r, state, rec, view, view->items[i]->data, index++);
}

const cs_render_feature cs_feature_particles = {
    .name = "particles",
    .draws = CS_DRAWABLE_BIT(CS_DRAWABLE_PARTICLES) | CS_DRAWABLE_BIT(CS_DRAWABLE_RADIOSITY),
    .create = create, .destroy = destroy, .record = record,
};
