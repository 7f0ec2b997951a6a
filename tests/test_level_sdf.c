// test_level_sdf.c — the level's baked signed distance field (level_sdf.h)
// against a brute-force reference on the CPU.
//
// The reference is written here from the level file alone, without the
// baker's lattice or band: every sector column of every room is an open box;
// the level's bounding box (and one click around it) is cut into click-sized
// cubes, each open (the room of the first column holding its centre) or
// solid; a face between open cubes of two different rooms is a thin wall
// unless its centre lies in one of the level's portal rectangles. Inside
// open space the distance is the minimum over every solid cube and thin
// wall; outside, minus the minimum over every column. (The demo level's
// coordinates are all multiples of a click, so the cubes are exact.)
//
// Checked: every node of a grid over the whole level equals the reference
// (clamped to the band) to float rounding; random points sampled trilinearly
// are within sqrt(3) cells of it (a 1-Lipschitz field interpolated between
// nodes can be off by at most the distance to the farthest corner); fixed
// cases: on a wall, on the thin wall beside the east doorway, in the
// doorway, in the floor portal, outside the level. Refusals: a truncated
// file, a bad scale, a level whose sectors are all walls.
// ctest labels: quick -- 0.8
#include "test_util.h"

#include "level_sdf.h"

#define DEMO_PATH CS_SOURCE_DIR "/levels/cistern_demo.phd"
#define UPM 512.0

typedef struct reference {
    cs_level_box *columns;
    uint32_t *column_room;
    uint32_t column_count;
    cs_level_box *portals;
    uint32_t portal_count;
    double lo[3], click;
    uint32_t n[3];   // cubes per axis
    int32_t *room;   // per cube, -1 solid
} reference;

static void world_box(double x0, double y0, double z0, double x1, double y1, double z1, cs_level_box *out)
{
    double a[3] = {x0 / UPM, -y0 / UPM, -z0 / UPM}, b[3] = {x1 / UPM, -y1 / UPM, -z1 / UPM};
    for (int k = 0; k < 3; k++) {
        out->min[k] = fmin(a[k], b[k]);
        out->max[k] = fmax(a[k], b[k]);
    }
}

static double box_dist(const cs_level_box *b, const double p[3])
{
    double s = 0.0;
    for (int k = 0; k < 3; k++) {
        double d = fmax(fmax(b->min[k] - p[k], p[k] - b->max[k]), 0.0);
        s += d * d;
    }
    return sqrt(s);
}

static bool box_holds(const cs_level_box *b, const double p[3])
{
    for (int k = 0; k < 3; k++)
        if (!(p[k] >= b->min[k] && p[k] <= b->max[k]))
            return false;
    return true;
}

static size_t cube_index(const reference *r, uint32_t i, uint32_t j, uint32_t k)
{
    return ((size_t)k * r->n[1] + j) * r->n[0] + i;
}

static void cube_box(const reference *r, uint32_t i, uint32_t j, uint32_t k, cs_level_box *out)
{
    uint32_t c[3] = {i, j, k};
    for (int a = 0; a < 3; a++) {
        out->min[a] = r->lo[a] + c[a] * r->click;
        out->max[a] = out->min[a] + r->click;
    }
}

static void reference_build(const cs_tr1_level *level, reference *r)
{
    memset(r, 0, sizeof *r);
    r->columns = calloc(4096, sizeof *r->columns);
    r->column_room = calloc(4096, sizeof *r->column_room);
    r->portals = calloc(256, sizeof *r->portals);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t ri = 0; ri < level->room_count; ri++) {
        const cs_tr1_room *room = &level->rooms[ri];
        for (uint32_t i = 0; i < room->x_sectors; i++)
            for (uint32_t j = 0; j < room->z_sectors; j++) {
                const cs_tr1_sector *s = &room->sectors[i * room->z_sectors + j];
                if (s->floor <= s->ceiling)
                    continue;
                if (cs_tr1_sector_door(level, s) >= 0)
                    continue; // a door sector: the space of the room it leads to, which has it as floor
                cs_level_box *b = &r->columns[r->column_count];
                world_box(room->x + 1024.0 * i, 256.0 * s->ceiling, room->z + 1024.0 * j, room->x + 1024.0 * (i + 1),
                          256.0 * s->floor, room->z + 1024.0 * (j + 1), b);
                r->column_room[r->column_count++] = ri;
                for (int k = 0; k < 3; k++) {
                    lo[k] = fmin(lo[k], b->min[k]);
                    hi[k] = fmax(hi[k], b->max[k]);
                }
            }
        for (uint32_t p = 0; p < room->portal_count; p++) {
            const int16_t(*v)[3] = room->portals[p].vertices;
            cs_level_box *b = &r->portals[r->portal_count++];
            world_box(room->x + v[0][0], v[0][1], room->z + v[0][2], room->x + v[2][0], v[2][1], room->z + v[2][2], b);
        }
    }
    r->click = 256.0 / UPM;
    for (int k = 0; k < 3; k++) {
        r->lo[k] = lo[k] - r->click;
        r->n[k] = (uint32_t)lround((hi[k] - lo[k]) / r->click) + 2;
    }
    r->room = malloc((size_t)r->n[0] * r->n[1] * r->n[2] * sizeof *r->room);
    for (uint32_t k = 0; k < r->n[2]; k++)
        for (uint32_t j = 0; j < r->n[1]; j++)
            for (uint32_t i = 0; i < r->n[0]; i++) {
                cs_level_box cube;
                cube_box(r, i, j, k, &cube);
                double c[3] = {0.5 * (cube.min[0] + cube.max[0]), 0.5 * (cube.min[1] + cube.max[1]),
                               0.5 * (cube.min[2] + cube.max[2])};
                int32_t room = -1;
                for (uint32_t b = 0; b < r->column_count && room < 0; b++)
                    if (box_holds(&r->columns[b], c))
                        room = (int32_t)r->column_room[b];
                r->room[cube_index(r, i, j, k)] = room;
            }
}

static void reference_free(reference *r)
{
    free(r->columns);
    free(r->column_room);
    free(r->portals);
    free(r->room);
}

// Whether a wall face (flat on axis a) centred at c lies in a portal.
static bool in_portal(const reference *r, int a, const double c[3])
{
    for (uint32_t p = 0; p < r->portal_count; p++) {
        const cs_level_box *b = &r->portals[p];
        if (fabs(b->min[a] - c[a]) > 1e-9 || fabs(b->max[a] - c[a]) > 1e-9)
            continue;
        bool inside = true;
        for (int k = 0; k < 3; k++)
            if (k != a && !(c[k] > b->min[k] && c[k] < b->max[k]))
                inside = false;
        if (inside)
            return true;
    }
    return false;
}

static double reference_distance(const reference *r, const double p[3])
{
    bool open = false;
    for (uint32_t b = 0; b < r->column_count && !open; b++)
        open = box_holds(&r->columns[b], p);
    double best = INFINITY;
    if (!open) {
        for (uint32_t b = 0; b < r->column_count; b++)
            best = fmin(best, box_dist(&r->columns[b], p));
        return -best;
    }
    for (uint32_t k = 0; k < r->n[2]; k++)
        for (uint32_t j = 0; j < r->n[1]; j++)
            for (uint32_t i = 0; i < r->n[0]; i++) {
                cs_level_box cube;
                cube_box(r, i, j, k, &cube);
                int32_t room = r->room[cube_index(r, i, j, k)];
                if (room < 0) {
                    best = fmin(best, box_dist(&cube, p));
                    continue;
                }
                uint32_t c[3] = {i, j, k};
                for (int a = 0; a < 3; a++) {
                    if (c[a] + 1 >= r->n[a])
                        continue;
                    uint32_t d[3] = {i, j, k};
                    d[a]++;
                    int32_t other = r->room[cube_index(r, d[0], d[1], d[2])];
                    if (other < 0 || other == room)
                        continue;
                    cs_level_box face = cube;
                    face.min[a] = face.max[a];
                    double centre[3];
                    for (int q = 0; q < 3; q++)
                        centre[q] = 0.5 * (face.min[q] + face.max[q]);
                    if (!in_portal(r, a, centre))
                        best = fmin(best, box_dist(&face, p));
                }
            }
    return best;
}

static double clamp_band(double d, double band) { return fmin(fmax(d, -band), band); }

typedef struct baked {
    cs_level_space space;
    cs_level_grid grid;
    float *values;
} baked;

static void bake_whole_level(const cs_tr1_level *level, const reference *r, double max_cell, double band, baked *out)
{
    cs_error err;
    bool ok = cs_level_space_build(level, UPM, &out->space, &err);
    CHECK(ok, "space: %s", err.msg);
    float lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = (float)(r->lo[k] - r->click);
        hi[k] = (float)(r->lo[k] + (r->n[k] + 1) * r->click);
    }
    ok = cs_level_grid_plan(&out->space, lo, hi, max_cell, band, &out->grid, &err);
    CHECK(ok, "grid: %s", err.msg);
    size_t nodes = (size_t)out->grid.dims[0] * out->grid.dims[1] * out->grid.dims[2];
    out->values = malloc(nodes * sizeof(float));
    cs_level_sdf_bake(&out->space, &out->grid, out->values);
    printf("baked %u x %u x %u nodes, cell %g m, band %g m\n", out->grid.dims[0], out->grid.dims[1],
           out->grid.dims[2], out->grid.cell, out->grid.band);
}

static void check_nodes(const reference *r, const baked *b)
{
    double worst = 0.0;
    for (int s = 0; s < 3000; s++) {
        uint32_t c[3];
        double p[3];
        for (int k = 0; k < 3; k++) {
            c[k] = test_rand_u32() % b->grid.dims[k];
            p[k] = b->grid.origin[k] + c[k] * b->grid.cell;
        }
        double want = clamp_band(reference_distance(r, p), b->grid.band);
        double got = b->values[((size_t)c[2] * b->grid.dims[1] + c[1]) * b->grid.dims[0] + c[0]];
        worst = fmax(worst, fabs(got - want));
        if (fabs(got - want) > 1e-5)
            CHECK(false, "node (%u, %u, %u) at (%g, %g, %g): baked %.6f, reference %.6f", c[0], c[1], c[2], p[0],
                  p[1], p[2], got, want);
    }
    printf("nodes: worst |baked - reference| %.2e m over 3000 random nodes\n", worst);
}

static void check_random_points(const reference *r, const baked *b)
{
    double worst = 0.0, sum = 0.0, tol = sqrt(3.0) * b->grid.cell;
    int n = 3000;
    for (int s = 0; s < n; s++) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = r->lo[k] + test_rand_unit() * r->n[k] * r->click;
        double want = clamp_band(reference_distance(r, p), b->grid.band);
        double got = cs_level_sdf_sample(&b->grid, b->values, p);
        worst = fmax(worst, fabs(got - want));
        sum += fabs(got - want);
        CHECK(fabs(got - want) <= tol, "(%g, %g, %g): sampled %.5f, reference %.5f (tolerance %g)", p[0], p[1], p[2],
              got, want, tol);
    }
    printf("random points: mean |sampled - reference| %.4f m, worst %.4f m (tolerance %.4f)\n", sum / n, worst, tol);
}

static void check_case(const reference *r, const baked *b, const char *what, double x, double y, double z,
                       double expected)
{
    double p[3] = {x, y, z};
    double want = reference_distance(r, p), got = cs_level_sdf_sample(&b->grid, b->values, p);
    printf("  %-44s reference %+.4f, baked %+.4f (expected %+.4f)\n", what, want, got, expected);
    CHECK(fabs(want - expected) < 1e-9, "%s: reference %.6f, expected %.6f", what, want, expected);
    CHECK(fabs(got - clamp_band(expected, b->grid.band)) < 1e-5, "%s: baked %.6f, expected %.6f", what, got, expected);
}

// The demo level (level_gen.c): the hall is x 0..8, y 0..4, z -8..0 m; the
// east room x 8..16, y -2..2, joined by a doorway at x = 8, y 0..2,
// z -6..-2; the loft above the hall through a floor portal x, z 2..6 / -6..-2.
static void check_cases(const reference *r, const baked *b)
{
    check_case(r, b, "on the hall's west wall", 0.0, 1.0, -4.0, 0.0);
    check_case(r, b, "on the hall's floor", 4.0, 0.0, -4.0, 0.0);
    check_case(r, b, "on the thin wall beside the east doorway", 8.0, 1.0, -7.0, 0.0);
    check_case(r, b, "0.3 m in front of that thin wall", 7.7, 1.0, -7.0, 0.3);
    check_case(r, b, "in the east doorway (lintel 1 m above)", 8.0, 1.0, -4.0, 1.0);
    check_case(r, b, "in the floor portal to the loft", 4.0, 4.0, -4.0, 2.0);
    check_case(r, b, "outside the level, 0.5 m west of the hall", -0.5, 1.0, -4.0, -0.5);
    check_case(r, b, "below the east room's floor", 12.0, -2.5, -4.0, -0.5);
}

// The ringed fixture (cs_tr1_generate_ringed) at 512 units/m, a sector 2 m:
// west x 2..10, middle x 10..18 (overlapping the west's ring and door
// columns), both y 0..4, z -6..-2; the wall portal at x = 10; the lower room
// x 14..18, y -4..0 under the floor portal x 14..18, z -6..-2.
static void check_ringed_cases(const reference *r, const baked *b)
{
    check_case(r, b, "in the west-middle doorway", 10.0, 2.0, -4.0, 2.0);
    check_case(r, b, "one sector past it (the west's door sector)", 12.0, 2.0, -4.0, 2.0);
    check_case(r, b, "one sector before it (the middle's door sector)", 8.0, 2.0, -4.0, 2.0);
    check_case(r, b, "0.5 m in front of the west wall of the west", 2.5, 2.0, -4.0, 0.5);
    check_case(r, b, "in the floor portal to the lower room", 16.0, 0.0, -4.0, 2.0);
    check_case(r, b, "in the lower room, 1 m over its floor", 16.0, -3.0, -4.0, 1.0);
}

static void check_level(const char *name, const cs_tr1_level *level, void (*cases)(const reference *, const baked *))
{
    reference r;
    reference_build(level, &r);
    printf("%s: reference %u columns, %u portals, %u x %u x %u click cubes\n", name, r.column_count, r.portal_count,
           r.n[0], r.n[1], r.n[2]);
    baked b;
    bake_whole_level(level, &r, 0.25, 2.5, &b);
    check_nodes(&r, &b);
    check_random_points(&r, &b);
    cases(&r, &b);
    free(b.values);
    cs_level_space_free(&b.space);
    reference_free(&r);
}

static void check_refusals(void)
{
    cs_level_space space;
    cs_error err;
    // A truncated copy of the demo level: the strict reader refuses it.
    FILE *in = fopen(DEMO_PATH, "rb");
    CHECK(in != NULL, "cannot open %s", DEMO_PATH);
    if (in) {
        static uint8_t bytes[1 << 20];
        size_t n = fread(bytes, 1, sizeof bytes, in);
        fclose(in);
        const char *path = "test_level_sdf_truncated.phd"; // in the working directory (CTest: the build tree)
        FILE *out = fopen(path, "wb");
        CHECK(out != NULL, "cannot write %s", path);
        if (!out)
            return;
        fwrite(bytes, 1, n / 2, out);
        fclose(out);
        bool ok = cs_level_space_load(path, UPM, &space, &err);
        CHECK(!ok && strstr(err.msg, "byte"), "a truncated level was not refused with an offset: %s", ok ? "read" : err.msg);
        printf("truncated: %s\n", ok ? "read" : err.msg);
        remove(path);
    }
    cs_tr1_level level;
    bool ok = cs_tr1_load(DEMO_PATH, &level, NULL, &err);
    CHECK(ok, "%s", err.msg);
    if (!ok)
        return;
    CHECK(!cs_level_space_build(&level, 0.0, &space, &err) && strstr(err.msg, "units_per_metre"), "scale 0: %s", err.msg);
    CHECK(!cs_level_space_build(&level, NAN, &space, &err), "scale NaN accepted");
    for (uint32_t ri = 0; ri < level.room_count; ri++)
        for (uint32_t s = 0; s < (uint32_t)level.rooms[ri].x_sectors * level.rooms[ri].z_sectors; s++)
            level.rooms[ri].sectors[s].floor = level.rooms[ri].sectors[s].ceiling = -127;
    ok = cs_level_space_build(&level, UPM, &space, &err);
    CHECK(!ok && strstr(err.msg, "no open sector"), "all walls: %s", ok ? "accepted" : err.msg);
    cs_tr1_free(&level);
}

int main(void)
{
    test_seed();
    cs_tr1_level level;
    cs_error err;
    bool ok = cs_tr1_load(DEMO_PATH, &level, NULL, &err);
    CHECK(ok, "%s", err.msg);
    if (ok) {
        check_level("demo level", &level, check_cases);
        cs_tr1_free(&level);
    }
    cs_tr1_generate_ringed(&level);
    check_level("ringed fixture", &level, check_ringed_cases);
    cs_tr1_free(&level);
    check_refusals();
    if (test_failures)
        fprintf(stderr, "FAIL: %d check(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}
