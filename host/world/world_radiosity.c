// world_radiosity.c — see world_radiosity.h.
#include "world_radiosity.h"

#include "level_light.h"
#include "light.h"
#include "radiosity_cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The probes fill the geometry's bounding box (the BVH root's).
static bool create_probes(cs_context *ctx, const cs_scene *scene, cs_world_radiosity *part, cs_error *err)
{
    const cs_scene_probes *sp = &part->lighting->probes;
    if (!sp->given)
        return true;
    const cs_bvh_node *root = &part->bvh.nodes[0];
    cs_probes_desc desc = {.lo = {root->lo.x, root->lo.y, root->lo.z}, .hi = {root->hi.x, root->hi.y, root->hi.z},
                           .dims = {sp->resolution[0], sp->resolution[1], sp->resolution[2]}, .rays = sp->rays,
                           .exposure = (float)part->lighting->exposure,
                           // A level's rooms are closed: a probe that sees out is in its rock.
                           .closed = part->has_level};
    cs_error inner;
    if (!cs_probes_check(ctx, &desc, &inner)) {
        cs_world_radiosity_destroy(ctx, part);
        // A size refusal: the grid's resolution (and rays) is what to change.
        return cs_scene_fail(scene, err, "radiosity.probes", "resolution", "%s", inner.msg);
    }
    if (!cs_probes_create(ctx, &desc, &part->compiled, &part->bvh, &part->probes, &inner)) {
        cs_world_radiosity_destroy(ctx, part);
        // Not the size (checked above): the message says what failed.
        return cs_scene_fail(scene, err, "radiosity.probes", NULL, "creating the probes failed: %s", inner.msg);
    }
    part->probes_made = true;
    part->probes_shading = true;
    cs_probes_set_shading(ctx, &part->probes, true);
    return true;
}

bool cs_world_radiosity_create(cs_context *ctx, const cs_scene *scene, cs_world_radiosity *part, cs_error *err)
{
    return cs_world_radiosity_create_from(ctx, scene, NULL, NULL, part, err);
}

bool cs_world_radiosity_create_from(cs_context *ctx, const cs_scene *scene, const cs_tr1_level *level_file,
                                    const cs_level_mesh *level_mesh, cs_world_radiosity *part, cs_error *err)
{
    *part = (cs_world_radiosity){.geometry = scene->geometry, .lighting = &scene->geometry->lighting};
    cs_error inner;
    if (scene->level.enabled && scene->geometry->lighting.radiosity_given) {
        bool ok;
        if (level_file && level_mesh) {
            memset(&part->level_geometry, 0, sizeof part->level_geometry);
            cs_error build;
            ok = cs_level_radiosity_geometry(level_file, level_mesh, scene->geometry, &part->level_geometry, &build);
            if (!ok)
                cs_fail(&inner, "%s: %s", scene->level.file, build.msg);
        } else {
            ok = cs_level_radiosity_load(scene->level.file, scene->level.units_per_metre, scene->geometry,
                                         &part->level_geometry, &inner);
        }
        if (!ok)
            return cs_scene_fail(scene, err, "level", "file", "%s", inner.msg);
        part->has_level = true;
        part->geometry = &part->level_geometry;
        part->lighting = &part->level_geometry.lighting;
    }
    const cs_geometry *g = part->geometry;
    if (!cs_bvh_build(g->tris, g->tri_count, &part->bvh, &inner)) {
        cs_geometry_free(&part->level_geometry);
        return cs_scene_fail(scene, err, "", "geometry", "%s", inner.msg);
    }
    cs_hierarchy_options clusters = cs_hierarchy_options_default();
    clusters.progress = stderr; // a big scene's compile takes minutes: say where it is
    // The patches size these buffers (and the rays cast between them); a
    // caller with its own knob for them (view's --patch-size) set it first.
    const char *advice_before = ctx->size_advice;
    if (!advice_before)
        ctx->size_advice = "raise radiosity.patch_size (fewer patches)";
    bool compiled = part->lighting->hierarchy
                        ? cs_radiosity_compile_hierarchy(ctx, g->tris, g->tri_count, part->lighting->patch_size,
                                                         &part->bvh, &clusters, &part->compiled, &inner)
                        : cs_radiosity_compile_gpu(ctx, g->tris, g->tri_count, part->lighting->patch_size,
                                                   &part->bvh, &part->compiled, &inner);
    ctx->size_advice = advice_before;
    if (!compiled) {
        cs_bvh_free(&part->bvh);
        cs_geometry_free(&part->level_geometry);
        return cs_scene_fail(scene, err, "radiosity", "patch_size", "%s", inner.msg);
    }
    uint32_t n = part->compiled.patch_count;
    part->scene_albedo = malloc((size_t)CS_MAX(n, 1u) * sizeof *part->scene_albedo);
    CS_ASSERT(part->scene_albedo, "out of memory for %u patches", n);
    for (uint32_t i = 0; i < n; i++)
        memcpy(part->scene_albedo[i], &part->compiled.patches[i].albedo, sizeof part->scene_albedo[i]);
    if (!advice_before)
        ctx->size_advice = "raise radiosity.patch_size (fewer patches)";
    bool made = cs_radiosity_gpu_create(ctx, &part->compiled, &part->bvh, CS_MAX_SCENE_LIGHTS, CS_MAX_SCENE_LIGHTS,
                                        &part->gpu, &inner);
    ctx->size_advice = advice_before;
    if (!made) {
        cs_world_radiosity_destroy(ctx, part);
        return cs_scene_fail(scene, err, "radiosity", "patch_size", "%s", inner.msg);
    }
    part->gpu_made = true;
    cs_world_radiosity_bounces(part); // measured now, not in the first frame
    return create_probes(ctx, scene, part, err);
}

void cs_world_radiosity_destroy(cs_context *ctx, cs_world_radiosity *part)
{
    if (part->probes_made)
        cs_probes_destroy(ctx, &part->probes);
    if (part->gpu_made)
        cs_radiosity_gpu_destroy(ctx, &part->gpu);
    cs_radiosity_free(&part->compiled);
    cs_bvh_free(&part->bvh);
    free(part->scene_albedo);
    cs_geometry_free(&part->level_geometry);
    *part = (cs_world_radiosity){0};
}

void cs_world_radiosity_lights_at(const cs_scene_lighting *lighting, double t, cs_light *lights, uint32_t *count,
                                  cs_area_light *areas, uint32_t *area_count)
{
    *count = *area_count = 0;
    for (uint32_t i = 0; i < lighting->light_count; i++) {
        const cs_scene_light *l = &lighting->lights[i];
        float at[3];
        cs_scene_light_position_at(l, t, at);
        switch (l->type) {
        case CS_SCENE_LIGHT_POINT:
            lights[(*count)++] = cs_light_point(at, l->radius, l->color, l->range, CS_WINDOW_DEFAULT);
            break;
        case CS_SCENE_LIGHT_SPHERE:
            lights[(*count)++] = cs_light_sphere(at, l->radius, l->color, l->range, CS_WINDOW_DEFAULT);
            break;
        case CS_SCENE_LIGHT_SPOT:
            lights[(*count)++] = cs_light_spot(at, l->direction, l->inner_radians, l->outer_radians, l->radius,
                                               l->color, l->range, CS_WINDOW_DEFAULT);
            break;
        case CS_SCENE_LIGHT_AREA:
            areas[(*area_count)++] = (cs_area_light){
                .corner = {at[0], at[1], at[2], 0.0f},
                .edge_u = {l->edge_u[0], l->edge_u[1], l->edge_u[2], 0.0f},
                .edge_v = {l->edge_v[0], l->edge_v[1], l->edge_v[2], 0.0f},
                .exitance = {l->color[0], l->color[1], l->color[2], 0.0f},
            };
            break;
        }
    }
}

// The most bounces the "bounces" key allows (scene_key_tables.c).
#define MOST_BOUNCES 64u

// How many gathers bring the reflected light within the tolerance, with
// the lights where they are at t = 0: the double solver on the compiled
// links, as the frame's gathers do them. A light that moves changes the
// direct light, hardly the share each bounce passes on, so the count
// holds for the frames after.
static uint32_t measure_converged_bounces(const cs_world_radiosity *part)
{
    cs_light lights[CS_MAX_SCENE_LIGHTS];
    cs_area_light areas[CS_MAX_SCENE_LIGHTS];
    uint32_t count, area_count;
    cs_world_radiosity_lights_at(part->lighting, 0.0, lights, &count, areas, &area_count);
    size_t values = (size_t)CS_MAX(part->compiled.patch_count, 1u) * 3;
    double *direct = malloc(values * sizeof *direct), *radiosity = malloc(values * sizeof *radiosity);
    CS_ASSERT(direct && radiosity, "out of memory for %u patches", part->compiled.patch_count);
    cs_radiosity_direct_cpu(&part->compiled, &part->bvh, lights, count, areas, area_count,
                            part->lighting->area_samples, direct);
    uint32_t bounces =
        cs_radiosity_solve_to(&part->compiled, direct, part->lighting->tolerance, MOST_BOUNCES, radiosity);
    free(direct);
    free(radiosity);
    return bounces;
}

uint32_t cs_world_radiosity_bounces(cs_world_radiosity *part)
{
    double tolerance = part->lighting->tolerance;
    if (tolerance <= 0.0)
        return part->lighting->bounces;
    if (part->converged_tolerance != tolerance) {
        part->converged_bounces = measure_converged_bounces(part);
        part->converged_tolerance = tolerance;
    }
    return CS_MIN(part->converged_bounces, part->lighting->bounces);
}

void cs_world_radiosity_record(cs_world_radiosity *part, cs_recorder *rec, double t)
{
    cs_light lights[CS_MAX_SCENE_LIGHTS];
    cs_area_light areas[CS_MAX_SCENE_LIGHTS];
    uint32_t count, area_count;
    cs_world_radiosity_lights_at(part->lighting, t, lights, &count, areas, &area_count);
    // Recorded into the frame: a frame stays one submit with moving lights.
    cs_radiosity_gpu_record_lights(rec, &part->gpu, lights, count, areas, area_count, part->lighting->area_samples);
    if (part->lighting->feedback)
        cs_radiosity_gpu_record_feedback(rec, &part->gpu);
    else
        cs_radiosity_gpu_record(rec, &part->gpu, cs_world_radiosity_bounces(part));
    if (part->probes_made && part->frames % part->lighting->probes.every == 0)
        cs_probes_record(rec, &part->probes, &part->gpu);
    part->frames++;
}

void cs_world_radiosity_cycle_albedo(cs_context *ctx, cs_world_radiosity *part)
{
    part->albedo_cycle = (part->albedo_cycle + 1) % 3;
    for (uint32_t i = 0; i < part->compiled.patch_count; i++) {
        const float *a = part->scene_albedo[i];
        float *out = &part->compiled.patches[i].albedo.x;
        for (uint32_t c = 0; c < 3; c++)
            out[c] = a[(c + part->albedo_cycle) % 3];
    }
    cs_radiosity_gpu_set_albedo(ctx, &part->gpu, &part->compiled);
}

void cs_world_radiosity_toggle_probes(cs_context *ctx, cs_world_radiosity *part)
{
    if (!part->probes_made)
        return;
    part->probes_shading = !part->probes_shading;
    cs_probes_set_shading(ctx, &part->probes, part->probes_shading);
}
