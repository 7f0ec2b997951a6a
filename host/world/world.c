// world.c — see world.h.
#include "world.h"
#include "world_internal.h"

#include <math.h>
#include <stdlib.h>

// The world's parts hold their large data on the heap or the device (once
// 300 KiB: the bodies' integration constants); keep the world itself small.
_Static_assert(sizeof(cs_world) <= 16384, "cs_world grew past 16 KiB: keep large arrays out of it");

void cs_world_list_solvers(char *out, size_t size)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; cs_sim_registry[i] && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s\"%s\"", i ? ", " : "", cs_sim_registry[i]->solver);
}

static bool create(cs_context *ctx, const cs_scene *scene, const cs_tr1_level *level_file, cs_world *world,
                   cs_error *err);

// The scene's level file is read once here and every part that needs it
// (the drawn mesh, the fluids' distance fields, the radiosity) builds from
// that one parse.
bool cs_world_create(cs_context *ctx, const cs_scene *scene, cs_world *world, cs_error *err)
{
    *world = (cs_world){.ctx = ctx, .scene = scene};
    if (!scene->level.enabled)
        return create(ctx, scene, NULL, world, err);
    cs_tr1_level level_file;
    cs_error inner;
    if (!cs_tr1_load(scene->level.file, &level_file, NULL, &inner))
        return cs_scene_fail(scene, err, "level", "file", "%s", inner.msg);
    bool ok = create(ctx, scene, &level_file, world, err);
    cs_tr1_free(&level_file);
    return ok;
}

// A material key the fluid's solver does not read is refused, with the keys
// it does read named: a value that changes nothing misleads (a PBF fluid's
// "viscosity" once looked live in the panel and did nothing). The solver
// lists its keys (cs_sim_ops.material_keys); the file's tree says which
// were given, --set edits included.
static bool check_material_keys(const cs_scene *file, const cs_scene *fs, const cs_sim_ops *ops, cs_error *err)
{
    if (!ops->material_keys || !file->json)
        return true;
    // The fluid's entry in the tree by its own key prefix ("fluids[1]"), not
    // by its place in this world (a world may hold some of a file's fluids).
    unsigned entry = 0;
    if (!file->first_format && sscanf(fs->key_prefix, "fluids[%u]", &entry) != 1)
        return true;
    const cJSON *owner = file->first_format
                             ? file->json
                             : cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(file->json, "fluids"), (int)entry);
    const cJSON *materials = owner ? cJSON_GetObjectItemCaseSensitive(owner, "materials") : NULL;
    int index = 0;
    for (const cJSON *m = cJSON_IsArray(materials) ? materials->child : NULL; m; m = m->next, index++)
        for (const cJSON *key = m->child; key; key = key->next) {
            bool read = false;
            for (const char *const *name = ops->material_keys; *name && !read; name++)
                read = key->string && strcmp(*name, key->string) == 0;
            if (read)
                continue;
            char keys[256] = "";
            size_t used = 0;
            for (const char *const *name = ops->material_keys; *name && used < sizeof keys; name++)
                used += (size_t)snprintf(keys + used, sizeof keys - used, "%s%s", used ? ", " : "", *name);
            char path[32];
            snprintf(path, sizeof path, "materials[%d]", index);
            return cs_scene_fail(fs, err, path, key->string ? key->string : "?",
                                 "the %s solver does not read it (its material keys: %s); remove it", ops->solver,
                                 keys);
        }
    return true;
}

static bool create(cs_context *ctx, const cs_scene *scene, const cs_tr1_level *level_file, cs_world *world,
                   cs_error *err)
{
    if (level_file) {
        cs_error inner;
        if (!cs_level_mesh_build(level_file, scene->level.units_per_metre, &world->level, &inner))
            return cs_scene_fail(scene, err, "level", "file", "%s: %s", scene->level.file, inner.msg);
        world->has_level = true;
    }
    if (!cs_world_place_in_rooms(world, err)) {
        cs_world_destroy(world);
        return false;
    }
    CS_ASSERT(scene->fluid_count <= CS_MAX_FLUIDS, "scene with %u fluids", scene->fluid_count);
    for (uint32_t i = 0; i < scene->fluid_count; i++) {
        const cs_scene *fs = world->placed_fluids ? &world->placed_fluids[i] : &scene->fluids[i];
        const cs_sim_ops *ops = cs_sim_find(fs->solver);
        if (!ops) {
            char have[256];
            cs_world_list_solvers(have, sizeof have);
            // The message before the destroy, which frees a placed fs.
            cs_scene_fail(fs, err, "", "solver", "\"%s\" is not built into this cistern (have: %s)", fs->solver,
                          have);
            cs_world_destroy(world);
            return false;
        }
        if (!check_material_keys(scene, fs, ops, err)) {
            cs_world_destroy(world);
            return false;
        }
        cs_world_fluid *f = &world->fluids[i];
        *f = (cs_world_fluid){.scene = fs, .ops = ops};
        if (!ops->create(ctx, fs, &f->state, err)) {
            f->ops = NULL;
            cs_world_destroy(world);
            return false;
        }
        world->fluid_count = i + 1;
    }
    if (!cs_world_create_level_fields(world, level_file, err)) {
        cs_world_destroy(world);
        return false;
    }
    // After the solvers (an unknown one is the first thing to say), before
    // anything runs.
    if (!cs_world_check_rest_density(scene, world->density_warnings, sizeof world->density_warnings, err)) {
        cs_world_destroy(world);
        return false;
    }
    cs_world_check_body_drafts(scene, world->density_warnings, sizeof world->density_warnings);
    if (scene->body_count) {
        cs_body_link links[CS_MAX_FLUIDS];
        for (uint32_t i = 0; i < world->fluid_count; i++) {
            cs_world_fluid *f = &world->fluids[i];
            if (!f->ops->bodies) {
                // The message first: f->scene may be the world's placed copy,
                // which cs_world_destroy frees.
                cs_scene_fail(f->scene, err, "", "solver", "\"%s\" does not collide with bodies; remove \"bodies\" "
                              "or use a solver that does (pbf, sph, wcsph)", f->ops->solver);
                cs_world_destroy(world);
                return false;
            }
            f->ops->bodies(f->state, &links[i]);
        }
        if (!cs_bodies_create(ctx, scene, links, world->fluid_count, &world->bodies, err)) {
            cs_world_destroy(world);
            return false;
        }
        world->has_bodies = true;
    }
    if (!cs_world_create_surfaces(world, err)) {
        cs_world_destroy(world);
        return false;
    }
    if (scene->geometry) {
        world->radiosity = calloc(1, sizeof *world->radiosity);
        CS_ASSERT(world->radiosity, "out of memory");
        if (!cs_world_radiosity_create_from(ctx, scene, level_file, world->has_level ? &world->level : NULL,
                                            world->radiosity, err)) {
            free(world->radiosity);
            world->radiosity = NULL;
            cs_world_destroy(world);
            return false;
        }
    }
    return true;
}

cs_world *cs_world_alloc(void)
{
    cs_world *world = calloc(1, sizeof *world);
    CS_ASSERT(world, "out of host memory for a world");
    return world;
}

void cs_world_free_at(cs_world **world)
{
    free(*world);
    *world = NULL;
}

// Every fluid's link to the bodies, as of now (counts grow with emission).
static void body_links(cs_world *world, cs_body_link *links)
{
    for (uint32_t i = 0; i < world->fluid_count; i++)
        world->fluids[i].ops->bodies(world->fluids[i].state, &links[i]);
}

bool cs_world_retune(cs_world *world, cs_error *err)
{
    // Parameters are uploaded into buffers frames in flight may be reading.
    vkDeviceWaitIdle(world->ctx->device);
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        const cs_world_fluid *f = &world->fluids[i];
        if (f->ops->retune && !f->ops->retune(f->state, f->scene, err))
            return false;
    }
    return true;
}

void cs_world_destroy(cs_world *world)
{
    if (world->has_level)
        cs_level_mesh_free(&world->level);
    world->has_level = false;
    if (world->radiosity) {
        cs_world_radiosity_destroy(world->ctx, world->radiosity);
        free(world->radiosity);
        world->radiosity = NULL;
    }
    cs_world_destroy_surfaces(world);
    if (world->has_bodies)
        cs_bodies_destroy(&world->bodies);
    world->has_bodies = false;
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        cs_world_fluid *f = &world->fluids[i];
        if (f->ops && f->state)
            f->ops->destroy(f->state);
        *f = (cs_world_fluid){0};
    }
    world->fluid_count = 0;
    free(world->placed_fluids);
    world->placed_fluids = NULL;
}

void cs_world_set_prefix(const cs_world *world, cs_recorder *rec, uint32_t i)
{
    if (world->fluid_count > 1)
        snprintf(rec->pass_prefix, sizeof rec->pass_prefix, "%s", world->fluids[i].scene->fluid_name);
}

static void set_prefix(const cs_world *world, cs_recorder *rec, uint32_t i) { cs_world_set_prefix(world, rec, i); }

static void clear_prefix(cs_recorder *rec) { rec->pass_prefix[0] = 0; }

double cs_world_time(const cs_world *world) { return (double)world->substep_index * (double)world->scene->dt; }

void cs_world_set_pointer(cs_world *world, const float at[3], int mode)
{
    world->pointer_mode = mode > 0 ? 1 : mode < 0 ? -1 : 0;
    for (int a = 0; a < 3; a++)
        world->pointer_at[a] = at ? at[a] : 0.0f;
}

void cs_world_pointer_at(const cs_world *world, double t, float at[3], int32_t *mode)
{
    const cs_pointer_options *p = &world->scene->pointer;
    *mode = 0;
    at[0] = at[1] = at[2] = 0.0f;
    if (world->pointer_mode != 0) {
        *mode = world->pointer_mode;
        memcpy(at, world->pointer_at, 3 * sizeof(float));
        return;
    }
    // The last key whose time has come holds until the next one.
    for (uint32_t k = 0; k < p->track_count && (double)p->track[k].time <= t; k++) {
        *mode = p->track[k].mode;
        memcpy(at, p->track[k].at, 3 * sizeof(float));
    }
}

void cs_world_record_substep(cs_world *world, cs_recorder *rec, uint32_t frame_substep, uint32_t frame_substeps)
{
    const cs_pointer_options *pointer = &world->scene->pointer;
    cs_substep step = {
        .index = world->substep_index,
        .time = cs_world_time(world),
        .dt = world->scene->dt,
        .frame_substep = frame_substep,
        .frame_substeps = frame_substeps,
        .pointer_strength = pointer->strength,
        .pointer_radius = pointer->radius,
        .pointer_damping = pointer->damping,
    };
    cs_world_pointer_at(world, step.time, step.pointer_at, &step.pointer_mode);
    cs_body_link links[CS_MAX_FLUIDS];
    if (world->has_bodies) {
        body_links(world, links);
        cs_bodies_record_begin(&world->bodies, rec, links);
    }
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        cs_world_fluid *f = &world->fluids[i];
        set_prefix(world, rec, i);
        f->ops->record_substep(f->state, rec, &step);
    }
    clear_prefix(rec);
    if (world->has_bodies) {
        body_links(world, links);
        cs_bodies_record_end(&world->bodies, rec, links);
    }
    world->substep_index++;
}

void cs_world_record_frame_end(cs_world *world, cs_recorder *rec)
{
    for (uint32_t i = 0; i < world->fluid_count; i++) {
        cs_world_fluid *f = &world->fluids[i];
        if (!f->ops->record_frame_end)
            continue;
        set_prefix(world, rec, i);
        f->ops->record_frame_end(f->state, rec);
    }
    clear_prefix(rec);
    // The geometry's light as of the frame's end (its lights' paths at that time).
    if (world->radiosity)
        cs_world_radiosity_record(world->radiosity, rec, cs_world_time(world));
}

void cs_world_record_frame(cs_world *world, cs_recorder *rec)
{
    uint32_t substeps = CS_MAX(world->scene->substeps, 1u);
    for (uint32_t s = 0; s < substeps; s++)
        cs_world_record_substep(world, rec, s, substeps);
    cs_world_record_frame_end(world, rec);
}

void cs_world_stats(cs_world *world, cs_sim_stats *total, cs_sim_stats *per_fluid)
{
    cs_sim_stats local[CS_MAX_FLUIDS];
    cs_sim_stats *each = per_fluid ? per_fluid : local;
    for (uint32_t i = 0; i < world->fluid_count; i++)
        world->fluids[i].ops->stats(world->fluids[i].state, &each[i]);
    cs_world_combine_stats(world, each, total);
}
