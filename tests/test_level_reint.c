// test_level_reint.c — reintegration tracking in a level (docs/levels.md,
// "Reintegration tracking in a level"): solid cells and blocked faces from
// the level's distance field keep the mass in the open space, exactly.
//
// 1. Sealed room. The demo level (level_gen.c) at 1024 units per metre (a
//    sector 1 m, a click 0.25 m, cells 0.25 m) with room 1 (east, 4 x 4
//    sectors) cut off: its doorway portal removed on both sides, so the
//    face it shares with the hall is a zero-thickness wall. The fluid's
//    domain box spans room 1 and the hall's east metre, so only the level
//    keeps the water in. Two blocks in room 1 thrown west at the sealed doorway (2 m/s) and
//    at the floor; SEALED_STEPS steps. Checked: total mass in integer units
//    equal to the start's (reint's mass is fixed point, so "exact" means the
//    same integer: no float rounding enters the sum); no mass in a solid
//    cell; no mass in a cell whose centre is outside room 1's open columns
//    (a leak through the sealed wall or into the hall).
// 2. The same with the portal kept: mass does reach the hall through the
//    doorway (the blocked faces are not blocking everything), still exact
//    and still none in solid.
//
// Before the level support reint refused a level; with the level's flags
// ignored by the advect pass (push scale.w forced to 0) both the solid and
// the room checks fail (numbers in docs/levels.md).
#include "test_util.h"

#include "level_tr1.h"
#include "reint.h"
#include "world.h"

#include <unistd.h>

#define SEALED_ROOM 1
#define UNITS 1024.0   // units per metre: a sector is 1 m, a click 0.25 m
#define CELL 0.25      // a cell a click
#define FRAMES 10
#define SUBSTEPS 10    // dt 0.004 s: 0.4 s in all

// Removes every portal between room `r` and another room (on both sides).
static void seal(cs_tr1_level *level, uint32_t r)
{
    for (uint32_t i = 0; i < level->room_count; i++) {
        cs_tr1_room *room = &level->rooms[i];
        uint32_t kept = 0;
        for (uint32_t p = 0; p < room->portal_count; p++)
            if (i != r && room->portals[p].adjoining_room != r)
                room->portals[kept++] = room->portals[p];
        room->portal_count = kept;
    }
}

// True when world point (x, y, z) lies in room r's open sector columns.
static bool in_room(const cs_tr1_room *room, double x, double y, double z)
{
    double sx = (x * UNITS - room->x) / 1024.0, sz = (-z * UNITS - room->z) / 1024.0;
    if (!(sx >= 0 && sx < room->x_sectors && sz >= 0 && sz < room->z_sectors))
        return false;
    const cs_tr1_sector *s = &room->sectors[(uint32_t)sx * room->z_sectors + (uint32_t)sz];
    double floor = -s->floor * 256.0 / UNITS, ceiling = -s->ceiling * 256.0 / UNITS;
    return y > floor && y < ceiling;
}

static bool write_level(const cs_tr1_level *level, char *path, size_t size)
{
    uint8_t *bytes;
    size_t length;
    if (!cs_tr1_write(level, &bytes, &length))
        return false;
    snprintf(path, size, "/tmp/cistern_level_reint_%ld.phd", (long)getpid());
    FILE *file = fopen(path, "wb");
    bool ok = file && fwrite(bytes, 1, length, file) == length;
    if (file)
        fclose(file);
    free(bytes);
    return ok;
}

typedef struct mass_census {
    uint64_t total, in_solid, outside_room;
} mass_census;

static mass_census census(cs_reint *r, const cs_tr1_room *room)
{
    const cs_reint_params *p = &r->params;
    uint32_t *mass = malloc((size_t)r->cell_count * 4);
    uint32_t *flags = malloc((size_t)r->cell_count * 4);
    cs_reint_download(r, mass, NULL, NULL);
    cs_reint_download_flags(r, flags);
    mass_census c = {0};
    for (uint32_t z = 0; z < p->grid[2]; z++)
        for (uint32_t y = 0; y < p->grid[1]; y++)
            for (uint32_t x = 0; x < p->grid[0]; x++) {
                size_t i = x + (size_t)p->grid[0] * (y + (size_t)p->grid[1] * z);
                double centre[3] = {p->origin[0] + (x + 0.5) * p->cell_size, p->origin[1] + (y + 0.5) * p->cell_size,
                                    p->origin[2] + (z + 0.5) * p->cell_size};
                c.total += mass[i];
                if (flags[i] & REINT_CELL_SOLID)
                    c.in_solid += mass[i];
                if (!in_room(room, centre[0], centre[1], centre[2]))
                    c.outside_room += mass[i];
            }
    free(mass);
    free(flags);
    return c;
}

static void run_frames(cs_context *ctx, cs_world *world, uint32_t frames)
{
    cs_recorder rec;
    cs_recorder_create(ctx, "level reint", &rec);
    for (uint32_t f = 0; f < frames; f++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(world, &rec);
        cs_recorder_submit_wait(&rec);
    }
    cs_recorder_destroy(&rec);
}

// Runs the room-1 blocks in the level (sealed or not); returns the census at
// the start and the end.
static void run_room(cs_context *ctx, bool sealed, mass_census *start, mass_census *end)
{
    cs_tr1_level level;
    cs_tr1_generate_demo(&level);
    if (sealed)
        seal(&level, SEALED_ROOM);
    char path[256];
    bool ok = write_level(&level, path, sizeof path);
    CHECK(ok, "writing the level");
    // Room 1's blocks, in room coordinates: one against its west wall at the
    // doorway's height, thrown at it; one on the floor, thrown west too.
    char json[4096];
    snprintf(json, sizeof json,
             "{ \"dim\": 3, \"domain\": {\"min\": [3, -1.25, -4.25], \"max\": [8.25, 2.25, 0.25]},"
             "  \"gravity\": [0, -9.81, 0], \"dt\": 0.004, \"substeps\": %d, \"seed\": 5,"
             "  \"level\": {\"file\": \"%s\", \"units_per_metre\": %g},"
             "  \"fluids\": [{ \"solver\": \"reint\", \"particle_spacing\": %g,"
             "    \"materials\": [{\"name\": \"water\", \"rest_density\": 1000}], \"reint\": {},"
             "    \"blocks\": [{\"room\": %d, \"min\": [0.0, 0.9, 1.0], \"max\": [1.0, 1.5, 3.0], "
             "                  \"velocity\": [-2.0, 0, 0]},"
             "                 {\"room\": %d, \"min\": [1.0, 0.0, 0.0], \"max\": [4.0, 0.5, 4.0], "
             "                  \"velocity\": [-2.0, 0, 0]}] }] }",
             SUBSTEPS, path, UNITS, CELL, SEALED_ROOM, SEALED_ROOM);
    cs_scene scene;
    cs_world world;
    cs_error err;
    ok = ok && cs_scene_parse(json, strlen(json), "level_reint.json", &scene, &err);
    CHECK(ok, "scene: %s", ok ? "" : err.msg);
    bool made = ok && cs_world_create(ctx, &scene, &world, &err);
    CHECK(!ok || made, "world: %s", made ? "" : err.msg);
    remove(path);
    if (made) {
        cs_reint *r = world.fluids[0].state;
        const cs_tr1_room *room = &level.rooms[SEALED_ROOM];
        *start = census(r, room);
        run_frames(ctx, &world, FRAMES);
        *end = census(r, room);
        cs_world_destroy(&world);
    }
    if (ok)
        cs_scene_free(&scene);
    cs_tr1_free(&level);
}

static void check_sealed_room(cs_context *ctx)
{
    mass_census start = {0}, end = {0};
    run_room(ctx, true, &start, &end);
    double one = REINT_MASS_ONE_F;
    printf("sealed room %d, %d steps: mass %.6f -> %.6f rest cells (units %llu -> %llu), in solid %.6f, outside the "
           "room %.6f\n", SEALED_ROOM, FRAMES * SUBSTEPS, start.total / one, end.total / one,
           (unsigned long long)start.total, (unsigned long long)end.total, end.in_solid / one, end.outside_room / one);
    CHECK(start.total > 0 && start.outside_room == 0 && start.in_solid == 0, "the blocks start in the room");
    CHECK(end.total == start.total, "mass not conserved: %llu -> %llu units", (unsigned long long)start.total,
          (unsigned long long)end.total);
    CHECK(end.in_solid == 0, "%.6f rest cell masses in solid cells", end.in_solid / one);
    CHECK(end.outside_room == 0, "%.6f rest cell masses left the sealed room", end.outside_room / one);
}

static void check_open_doorway(cs_context *ctx)
{
    mass_census start = {0}, end = {0};
    run_room(ctx, false, &start, &end);
    double one = REINT_MASS_ONE_F;
    printf("open doorway, %d steps: mass %.6f -> %.6f rest cells, in solid %.6f, through the doorway %.6f\n",
           FRAMES * SUBSTEPS, start.total / one, end.total / one, end.in_solid / one, end.outside_room / one);
    CHECK(end.total == start.total, "mass not conserved: %llu -> %llu units", (unsigned long long)start.total,
          (unsigned long long)end.total);
    CHECK(end.in_solid == 0, "%.6f rest cell masses in solid cells", end.in_solid / one);
    CHECK(end.outside_room > REINT_MASS_ONE, "no mass went through the open doorway (%.6f rest cells)",
          end.outside_room / one);
}

int main(void)
{
    test_seed();
    cs_context ctx;
    test_context(&ctx);
    check_sealed_room(&ctx);
    check_open_doorway(&ctx);
    return test_finish(&ctx);
}
