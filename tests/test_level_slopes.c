// test_level_slopes.c — slanted floors and ceilings (TR1 floor data
// functions 2 and 3) in the level's open space and its distance field
// (docs/levels.md, "Fluid in a level").
//
// 1. Decoding. The continuous heights (cs_tr1_floor_height and
//    cs_tr1_ceiling_height) against the game's integer rule, written here
//    from the description (TRX's M_GetFloorTiltHeight): every slope from -4
//    to 4 on both axes, at every 32nd unit of the sector, within the game's
//    rounding (its 1023 and >> 2). The fixture level (cs_tr1_generate_fixture)
//    decodes to the slants it was built with, and writes back byte for byte.
// 2. The field. The fixture's ramp room (1) cut off from the hall (its
//    doorway portal removed), baked at a cell of 0.125 m (1024 units/m)
//    against an exact reference written here from the room's description
//    alone: the room's open space is the region over its floor and under
//    its ceiling (each a continuous surface of planar sector pieces, heights
//    from the game's rule) inside its four walls, so the distance from a
//    point in it is the least of its distances to the wall planes and to
//    each floor and ceiling piece (a planar parallelogram), and from a
//    point under the floor the least distance to a floor piece. Random
//    nodes equal to 1e-5 m; random points, trilinear, within a cell.
// 3. Water on the ramp (GPU, PBF, spacing 0.125 m): a block on the upper
//    floor of the sealed room runs down the ramp. The mean x grows (the ramp
//    descends towards +x); every 20 frames no centre is outside the room or
//    under the floor; at the end (2.9 s), in each quarter (along the slope)
//    of each of the ramp's 8 sectors, the lowest particle centre's height
//    over the floor under it, less the collision margin (half a spacing),
//    is within a particle radius of 0. With the slants ignored (the old
//    flat columns) the ramp's sectors step and parts 2 and 3 fail.
// ctest labels: slow,gpu -- 15
#include "test_util.h"

#include "level_sdf.h"
#include "level_tr1.h"
#include "world.h"

#include <unistd.h>

#define RAMP_ROOM 1
#define UNITS 1024.0 // units per metre: a sector is 1 m, a click 0.25 m
#define CELL 0.125
#define BAND 0.5
#define NODE_CHECKS 4000
#define POINT_CHECKS 4000
#define SPACING 0.125
#define FRAMES 240
#define CHECK_EVERY 20
#define STRIPS 4 // per ramp sector, along the slope

// ---------------------------------------------------------------------------
// 1. Decoding

// The game's rule (TR units, integer offsets 0..1023 in the sector).
static int game_tilt_neg(int t, int h) { return (t * (h & 1023)) >> 2; }
static int game_tilt_pos(int t, int h) { return (t * ((1023 - h) & 1023)) >> 2; }

static int game_floor(int height, int sx, int sz, int lx, int lz)
{
    height += sz < 0 ? -game_tilt_neg(sz, lz) : game_tilt_pos(sz, lz);
    height += sx < 0 ? -game_tilt_neg(sx, lx) : game_tilt_pos(sx, lx);
    return height;
}

static int game_ceiling(int height, int sx, int sz, int lx, int lz)
{
    height += sz < 0 ? game_tilt_neg(sz, lz) : -game_tilt_pos(sz, lz);
    height += sx < 0 ? game_tilt_pos(sx, lx) : -game_tilt_neg(sx, lx);
    return height;
}

static void check_heights(void)
{
    cs_tr1_sector s = {.floor = 3, .ceiling = -5};
    double worst = 0.0;
    int cases = 0;
    for (int sx = -4; sx <= 4; sx++)
        for (int sz = -4; sz <= 4; sz++)
            for (int lx = 0; lx < 1024; lx += 32)
                for (int lz = 0; lz < 1024; lz += 32) {
                    cs_tr1_slant slant = {(int8_t)sx, (int8_t)sz};
                    // The game's 1023 is 1024 here (|slope| / 4 units at most
                    // per axis) and its >> 2 rounds down (under a unit per axis).
                    double limit = (abs(sx) + abs(sz)) / 4.0 + 2.0;
                    double f = cs_tr1_floor_height(&s, slant, lx, lz) - game_floor(3 * 256, sx, sz, lx, lz);
                    double c = cs_tr1_ceiling_height(&s, slant, lx, lz) - game_ceiling(-5 * 256, sx, sz, lx, lz);
                    worst = fmax(worst, fmax(fabs(f), fabs(c)));
                    cases++;
                    CHECK(fabs(f) <= limit && fabs(c) <= limit,
                          "slant (%d, %d) at (%d, %d): floor off the game's by %.2f, ceiling by %.2f units (limit %.2f)",
                          sx, sz, lx, lz, f, c, limit);
                }
    printf("heights: %d cases, worst %.2f units off the game's integer rule\n", cases, worst);
}

// The fixture's slants, from its description (level_tr1.h): floor x slope
// -2 over the ramp room's sector columns 1 and 2; ceiling z slope +2 over
// row 0 and -2 over row 3.
static cs_tr1_slant expected_floor(uint32_t i, uint32_t j)
{
    (void)j;
    return (cs_tr1_slant){(int8_t)(i == 1 || i == 2 ? -2 : 0), 0};
}

static cs_tr1_slant expected_ceiling(uint32_t i, uint32_t j)
{
    (void)i;
    return (cs_tr1_slant){0, (int8_t)(j == 0 ? 2 : j == 3 ? -2 : 0)};
}

static void check_fixture_decodes(const cs_tr1_level *level)
{
    const cs_tr1_room *room = &level->rooms[RAMP_ROOM];
    uint32_t sloped = 0;
    for (uint32_t i = 0; i < room->x_sectors; i++)
        for (uint32_t j = 0; j < room->z_sectors; j++) {
            cs_tr1_slant f, c, ef = expected_floor(i, j), ec = expected_ceiling(i, j);
            bool any = cs_tr1_sector_slants(level, &room->sectors[i * room->z_sectors + j], &f, &c);
            sloped += any;
            CHECK(any == (ef.x || ef.z || ec.x || ec.z) && f.x == ef.x && f.z == ef.z && c.x == ec.x && c.z == ec.z,
                  "ramp room sector (%u, %u): slants floor (%d, %d) ceiling (%d, %d), built (%d, %d) (%d, %d)", i, j,
                  f.x, f.z, c.x, c.z, ef.x, ef.z, ec.x, ec.z);
        }
    CHECK(sloped == 12, "the ramp room has %u sloped sectors, built with 12", sloped);
    // The other rooms have none.
    for (uint32_t r = 0; r < level->room_count; r++)
        for (uint32_t k = 0; r != RAMP_ROOM && k < (uint32_t)level->rooms[r].x_sectors * level->rooms[r].z_sectors;
             k++) {
            cs_tr1_slant f, c;
            CHECK(!cs_tr1_sector_slants(level, &level->rooms[r].sectors[k], &f, &c), "room %u sector %u sloped", r, k);
        }
    CHECK(level->rooms[3].flags & CS_TR1_ROOM_WATER, "the fixture's room 3 is not a water room");
    // Written and read back: the same slants, the same bytes.
    uint8_t *bytes, *again;
    size_t size, size_again;
    bool ok = cs_tr1_write(level, &bytes, &size);
    CHECK(ok, "writing the fixture");
    if (!ok)
        return;
    cs_tr1_level back;
    cs_error err;
    ok = cs_tr1_read(bytes, size, "fixture.phd", &back, &err);
    CHECK(ok, "reading the fixture back: %s", ok ? "" : err.msg);
    if (ok) {
        cs_tr1_slant f, c;
        cs_tr1_sector_slants(&back, &back.rooms[RAMP_ROOM].sectors[1 * 4 + 3], &f, &c);
        CHECK(f.x == -2 && c.z == -2, "read back: sector (1, 3) slants (%d, %d) (%d, %d)", f.x, f.z, c.x, c.z);
        ok = cs_tr1_write(&back, &again, &size_again);
        CHECK(ok && size_again == size && memcmp(bytes, again, size) == 0, "the fixture does not write back byte "
              "for byte");
        if (ok)
            free(again);
        cs_tr1_free(&back);
    }
    free(bytes);
}

// ---------------------------------------------------------------------------
// 2. The field against the exact reference

// Removes every portal between room r and the others (both sides).
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

// The sector of the room under world (x, z) (clamped into the grid) and
// the offset in it, TR units.
static void sector_of(const cs_tr1_room *room, double x, double z, uint32_t *i, uint32_t *j, double *lx, double *lz)
{
    double tx = x * UNITS - room->x, tz = -z * UNITS - room->z;
    double fi = fmin(fmax(floor(tx / 1024.0), 0.0), room->x_sectors - 1.0);
    double fj = fmin(fmax(floor(tz / 1024.0), 0.0), room->z_sectors - 1.0);
    *i = (uint32_t)fi;
    *j = (uint32_t)fj;
    *lx = tx - fi * 1024.0;
    *lz = tz - fj * 1024.0;
}

// The room's floor or ceiling in world metres at world (x, z), from the
// game's rule (continuous) and the slants the fixture was built with.
static double ref_surface(const cs_tr1_room *room, bool floor_side, double x, double z)
{
    uint32_t i, j;
    double lx, lz;
    sector_of(room, x, z, &i, &j, &lx, &lz);
    const cs_tr1_sector *s = &room->sectors[i * room->z_sectors + j];
    cs_tr1_slant sl = floor_side ? expected_floor(i, j) : expected_ceiling(i, j);
    double h;
    if (floor_side)
        h = s->floor * 256.0 + (sl.z < 0 ? -sl.z * lz : sl.z * (1024 - lz)) / 4 +
            (sl.x < 0 ? -sl.x * lx : sl.x * (1024 - lx)) / 4;
    else
        h = s->ceiling * 256.0 + (sl.z < 0 ? sl.z * lz : -sl.z * (1024 - lz)) / 4 +
            (sl.x < 0 ? sl.x * (1024 - lx) : -sl.x * lx) / 4;
    return -h / UNITS;
}

static double segment_distance(const double a[3], const double b[3], const double p[3])
{
    double ab[3], ap[3], t = 0.0, len = 0.0;
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ap[k] = p[k] - a[k];
        t += ab[k] * ap[k];
        len += ab[k] * ab[k];
    }
    t = len > 0 ? fmin(fmax(t / len, 0.0), 1.0) : 0.0;
    double sum = 0.0;
    for (int k = 0; k < 3; k++)
        sum += (a[k] + t * ab[k] - p[k]) * (a[k] + t * ab[k] - p[k]);
    return sqrt(sum);
}

// The distance from p to the floor or ceiling piece over sector (i, j): a
// planar parallelogram (corners c0, c0 + u, c0 + u + v, c0 + v). Inside its
// outline the distance along the normal, else to the nearest edge.
static double piece_distance(const cs_tr1_room *room, bool floor_side, uint32_t i, uint32_t j, const double p[3])
{
    double x0 = (room->x + i * 1024.0) / UNITS, x1 = x0 + 1024.0 / UNITS;
    double z0 = -(room->z + j * 1024.0) / UNITS, z1 = z0 - 1024.0 / UNITS;
    const double e = 1e-9; // the piece's own sector, not its neighbour's
    double c[4][3] = {{x0, ref_surface(room, floor_side, x0 + e, z0 - e), z0},
                      {x1, ref_surface(room, floor_side, x1 - e, z0 - e), z0},
                      {x1, ref_surface(room, floor_side, x1 - e, z1 + e), z1},
                      {x0, ref_surface(room, floor_side, x0 + e, z1 + e), z1}};
    double u[3], v[3], n[3], q[3];
    for (int k = 0; k < 3; k++) {
        u[k] = c[1][k] - c[0][k];
        v[k] = c[3][k] - c[0][k];
        q[k] = p[k] - c[0][k];
    }
    n[0] = u[1] * v[2] - u[2] * v[1];
    n[1] = u[2] * v[0] - u[0] * v[2];
    n[2] = u[0] * v[1] - u[1] * v[0];
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double d = (q[0] * n[0] + q[1] * n[1] + q[2] * n[2]) / nn;
    // In the outline: u and v are along x and z, so the projection's x and z
    // within [x0, x1] and [z1, z0] (the normal's horizontal part moves them).
    double px = p[0] - d * n[0] / nn, pz = p[2] - d * n[2] / nn;
    if (px >= x0 && px <= x1 && pz <= z0 && pz >= z1)
        return fabs(d);
    double best = INFINITY;
    for (int k = 0; k < 4; k++)
        best = fmin(best, segment_distance(c[k], c[(k + 1) % 4], p));
    return best;
}

// The exact signed distance (clamped to +-BAND) at p in the room's
// footprint: open over the floor and under the ceiling.
static double ref_distance(const cs_tr1_room *room, const double p[3])
{
    double fy = ref_surface(room, true, p[0], p[2]), cy = ref_surface(room, false, p[0], p[2]);
    double xw0 = room->x / UNITS, xw1 = (room->x + room->x_sectors * 1024.0) / UNITS;
    double zw0 = -room->z / UNITS, zw1 = -(room->z + room->z_sectors * 1024.0) / UNITS;
    bool open = p[1] >= fy && p[1] <= cy;
    double best = INFINITY;
    if (open)
        best = fmin(fmin(p[0] - xw0, xw1 - p[0]), fmin(zw0 - p[2], p[2] - zw1));
    for (uint32_t i = 0; i < room->x_sectors; i++)
        for (uint32_t j = 0; j < room->z_sectors; j++) {
            if (open || p[1] < fy)
                best = fmin(best, piece_distance(room, true, i, j, p));
            if (open || p[1] > cy)
                best = fmin(best, piece_distance(room, false, i, j, p));
        }
    best = fmin(best, BAND);
    return open ? best : -best;
}

// A point in the ramp room's footprint where the reference holds: not over
// the ceiling within the band of the hall's side (x < 4.5 m: there the
// hall's open space is nearer than this room's ceiling).
static bool reference_holds(const cs_tr1_room *room, const double p[3])
{
    double xw0 = room->x / UNITS, xw1 = (room->x + room->x_sectors * 1024.0) / UNITS;
    double zw0 = -room->z / UNITS, zw1 = -(room->z + room->z_sectors * 1024.0) / UNITS;
    if (!(p[0] >= xw0 && p[0] <= xw1 && p[2] <= zw0 && p[2] >= zw1))
        return false;
    if (p[1] > ref_surface(room, false, p[0], p[2]) && p[0] < xw0 + BAND + CELL)
        return false;
    // Nor in the solid within the band of the corner where the north room
    // (x < 4 m, z > 0, its floor 0.25 m under the hall's) touches this one.
    bool open = p[1] >= ref_surface(room, true, p[0], p[2]) && p[1] <= ref_surface(room, false, p[0], p[2]);
    return open || hypot(p[0] - xw0, p[2] - zw0) > BAND + CELL;
}

static void check_field(const cs_tr1_level *level)
{
    const cs_tr1_room *room = &level->rooms[RAMP_ROOM];
    cs_level_space space;
    cs_error err;
    bool ok = cs_level_space_build(level, UNITS, &space, &err);
    CHECK(ok, "sealed fixture: %s", ok ? "" : err.msg);
    if (!ok)
        return;
    CHECK(space.sloped_count == 12, "%u sloped columns, the fixture has 12", space.sloped_count);
    float lo[3] = {4.0f, -1.0f, -4.0f}, hi[3] = {8.0f, 1.5f, 0.0f};
    cs_level_grid grid;
    ok = cs_level_grid_plan(&space, lo, hi, CELL, BAND, &grid, &err);
    CHECK(ok && grid.cell == CELL, "grid: %s (cell %g)", ok ? "" : err.msg, grid.cell);
    if (!ok) {
        cs_level_space_free(&space);
        return;
    }
    size_t nodes = (size_t)grid.dims[0] * grid.dims[1] * grid.dims[2];
    float *values = malloc(nodes * sizeof *values);
    cs_level_sdf_bake(&space, &grid, values);
    // Nodes: exact. Drawn until NODE_CHECKS of them lie in the band, where
    // the reference is not clamped.
    uint32_t checked = 0, wrong = 0, on_slopes = 0;
    double worst = 0.0;
    for (uint32_t tries = 0; checked < NODE_CHECKS && tries < 100 * NODE_CHECKS; tries++) {
        uint32_t ix = test_rand_u32() % grid.dims[0], iy = test_rand_u32() % grid.dims[1],
                 iz = test_rand_u32() % grid.dims[2];
        double p[3] = {grid.origin[0] + ix * grid.cell, grid.origin[1] + iy * grid.cell,
                       grid.origin[2] + iz * grid.cell};
        if (!reference_holds(room, p))
            continue;
        double ref = ref_distance(room, p);
        if (fabs(ref) >= BAND)
            continue;
        double got = values[((size_t)iz * grid.dims[1] + iy) * grid.dims[0] + ix];
        uint32_t i, j;
        double lx, lz;
        sector_of(room, p[0], p[2], &i, &j, &lx, &lz);
        on_slopes += i == 1 || i == 2;
        checked++;
        worst = fmax(worst, fabs(got - ref));
        if (fabs(got - ref) > 1e-5 && wrong++ < 5)
            printf("  node (%.3f, %.3f, %.3f): field %+.6f, exact %+.6f\n", p[0], p[1], p[2], got, ref);
    }
    printf("field: %u nodes in the band (%u over the ramp's columns), worst %.2e m off the exact distance\n",
           checked, on_slopes, worst);
    CHECK(checked == NODE_CHECKS && on_slopes > NODE_CHECKS / 8 && wrong == 0,
          "%u of %u nodes off the exact distance by more than 1e-5 m (worst %.4f)", wrong, checked, worst);
    // Points: sampled as the shaders sample (trilinear). A distance field
    // changes by at most the distance moved, so within a cell.
    double sum = 0.0, worst_point = 0.0;
    uint32_t points = 0;
    while (points < POINT_CHECKS) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = lo[k] + test_rand_unit() * (hi[k] - lo[k]);
        if (!reference_holds(room, p))
            continue;
        double ref = ref_distance(room, p);
        if (fabs(ref) >= BAND - CELL)
            continue;
        double e = fabs(cs_level_sdf_sample(&grid, values, p) - ref);
        sum += e;
        worst_point = fmax(worst_point, e);
        points++;
    }
    printf("field: %u random points, trilinear: mean error %.4f m, worst %.4f m (cell %.3f)\n", points,
           sum / points, worst_point, CELL);
    CHECK(worst_point <= CELL && sum / points < 0.1 * CELL, "points: worst error %.4f m, mean %.4f m", worst_point,
          sum / points);
    free(values);
    cs_level_space_free(&space);
}

// ---------------------------------------------------------------------------
// 3. Water on the ramp

static double mean_x(const float *pos, uint32_t n)
{
    double sum = 0.0;
    for (uint32_t i = 0; i < n; i++)
        sum += pos[i * 4];
    return n ? sum / n : 0.0;
}

// Centres outside the room's footprint, under its floor or over its
// ceiling (a tenth of a spacing allowed), or not finite.
static uint32_t escaped(const cs_tr1_room *room, const float *pos, uint32_t n)
{
    double tol = 0.1 * SPACING, x0 = room->x / UNITS, x1 = x0 + room->x_sectors * 1024.0 / UNITS;
    double z0 = -room->z / UNITS, z1 = z0 - room->z_sectors * 1024.0 / UNITS;
    uint32_t out = 0;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = &pos[i * 4];
        bool finite = isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
        out += !finite || p[0] < x0 - tol || p[0] > x1 + tol || p[2] > z0 + tol || p[2] < z1 - tol ||
               p[1] < ref_surface(room, true, p[0], p[2]) - tol || p[1] > ref_surface(room, false, p[0], p[2]) + tol;
    }
    return out;
}

static void check_water(cs_context *ctx, const cs_tr1_level *level)
{
    const cs_tr1_room *room = &level->rooms[RAMP_ROOM];
    uint8_t *bytes;
    size_t size;
    bool ok = cs_tr1_write(level, &bytes, &size);
    CHECK(ok, "writing the sealed fixture");
    if (!ok)
        return;
    char path[256];
    snprintf(path, sizeof path, "/tmp/cistern_slopes_%ld.phd", (long)getpid());
    FILE *file = fopen(path, "wb");
    CHECK(file && fwrite(bytes, 1, size, file) == size, "writing %s", path);
    if (file)
        fclose(file);
    free(bytes);
    // A block over the upper floor and the top of the ramp (room
    // coordinates, from the room's lowest floor, 1 m under the upper one:
    // x 0.07..1.6 m, 0.07..0.75 m over the upper floor, the room's whole
    // depth), at rest. The domain box is the room's bounds.
    char json[4096];
    snprintf(json, sizeof json,
             "{ \"dim\": 3, \"domain\": {\"min\": [4.0, -1.0, -4.0], \"max\": [8.0, 1.5, 0.0]},"
             "  \"gravity\": [0, -9.81, 0], \"dt\": 0.004, \"substeps\": 3, \"seed\": 7,"
             "  \"level\": {\"file\": \"%s\", \"units_per_metre\": %g},"
             "  \"fluids\": [{ \"solver\": \"pbf\", \"particle_spacing\": %g, \"smoothing_radius\": %g,"
             "    \"materials\": [{\"name\": \"water\", \"rest_density\": 1000}],"
             "    \"blocks\": [{\"room\": %d, \"min\": [0.07, 1.07, 0.07], \"max\": [1.6, 1.75, 3.93]}],"
             "    \"pbf\": {\"iterations\": 4} }] }",
             path, UNITS, SPACING, 2 * SPACING, RAMP_ROOM);
    cs_scene scene;
    cs_world world;
    cs_error err;
    ok = cs_scene_parse(json, strlen(json), "slopes.json", &scene, &err);
    CHECK(ok, "slopes scene: %s", ok ? "" : err.msg);
    ok = ok && cs_world_create(ctx, &scene, &world, &err);
    CHECK(ok, "slopes world: %s", ok ? "" : err.msg);
    remove(path);
    if (!ok) {
        if (scene.fluids)
            cs_scene_free(&scene);
        return;
    }
    uint32_t n;
    float *pos = test_fluid_positions(ctx, &world, 0, &n);
    double x_start = mean_x(pos, n), x_then = x_start;
    uint32_t worst = 0;
    bool downhill = true;
    for (uint32_t f = 0; f < FRAMES; f += CHECK_EVERY) {
        test_world_run(ctx, &world, CHECK_EVERY, "level slopes");
        free(pos);
        pos = test_fluid_positions(ctx, &world, 0, &n);
        worst = CS_MAX(worst, escaped(room, pos, n));
        double x = mean_x(pos, n);
        if (f + CHECK_EVERY <= 100) // while it runs down (0.24 s a check)
            downhill = downhill && x > x_then;
        x_then = x;
    }
    double t = FRAMES * 3 * 0.004;
    printf("water: %u particles, mean x %.3f m -> %.3f m over %.2f s; at most %u centres out of the room at a "
           "check\n", n, x_start, x_then, t, worst);
    CHECK(n > 1000 && worst == 0, "%u particle centres left the ramp room's open space", worst);
    CHECK(downhill && x_then > x_start + 0.5, "the water did not run down the ramp (mean x %.3f -> %.3f m)",
          x_start, x_then);
    // The lowest centre over each quarter of each ramp sector along the
    // slope (a strip 0.25 m wide, falling 0.125 m), above the floor under
    // it: the least over a whole sector would be found at its upper edge,
    // where a flat floor at the sector's stored height meets the slope too.
    double lowest[2][4][STRIPS];
    uint32_t count[2][4][STRIPS] = {{{0}}};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            for (int q = 0; q < STRIPS; q++)
                lowest[i][j][q] = INFINITY;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i, j;
        double lx, lz, x = pos[k * 4], y = pos[k * 4 + 1], z = pos[k * 4 + 2];
        sector_of(room, x, z, &i, &j, &lx, &lz);
        if (i != 1 && i != 2)
            continue;
        int q = (int)fmin(fmax(floor(lx / 1024.0 * STRIPS), 0.0), STRIPS - 1.0);
        lowest[i - 1][j][q] = fmin(lowest[i - 1][j][q], y - ref_surface(room, true, x, z));
        count[i - 1][j][q]++;
    }
    double radius = 0.5 * SPACING, worst_off = 0.0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            double sector_worst = 0.0;
            uint32_t sector_count = 0;
            for (int q = 0; q < STRIPS; q++) {
                double off = lowest[i][j][q] - radius;
                sector_worst = fmax(sector_worst, fabs(off));
                sector_count += count[i][j][q];
                CHECK(count[i][j][q] > 0 && isfinite(off) && fabs(off) <= radius,
                      "ramp sector (%d, %d), strip %d: lowest centre %.4f m over the slope, not within a radius "
                      "(%.4f) of resting on it (%u particles)", i + 1, j, q, lowest[i][j][q], radius,
                      count[i][j][q]);
            }
            printf("  ramp sector (%d, %d): %4u particles, worst strip's lowest centre %.4f m off slope + margin\n",
                   i + 1, j, sector_count, sector_worst);
            worst_off = fmax(worst_off, sector_worst);
        }
    printf("ramp: worst |lowest centre - slope - margin| %.4f m (limit %.4f)\n", worst_off, radius);
    free(pos);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
}

int main(void)
{
    test_seed();
    check_heights();
    cs_tr1_level level;
    cs_tr1_generate_fixture(&level);
    check_fixture_decodes(&level);
    seal(&level, RAMP_ROOM);
    check_field(&level);
    cs_context ctx;
    test_context(&ctx);
    check_water(&ctx, &level);
    cs_tr1_free(&level);
    return test_finish(&ctx);
}
