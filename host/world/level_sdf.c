// level_sdf.c — a level's open space and its baked signed distance field
// (see level_sdf.h).
#include "level_sdf.h"

#include <math.h>

#define TR1_SECTOR 1024.0
#define TR1_CLICK 256.0
#define TR1_WALL_HEIGHT (-127) // floor = ceiling = -127 clicks: a wall sector

// ---------------------------------------------------------------------------
// The open space

// Rooms that some other room names as its alternate (flipmaps) share their
// original's space: only the originals are open space.
static bool *alternate_rooms(const cs_tr1_level *level)
{
    bool *alt = calloc(CS_MAX(level->room_count, 1u), sizeof *alt);
    CS_ASSERT(alt, "out of host memory");
    for (uint32_t r = 0; r < level->room_count; r++) {
        int a = level->rooms[r].alternate_room;
        if (a >= 0 && (uint32_t)a < level->room_count && (uint32_t)a != r)
            alt[a] = true;
    }
    return alt;
}

// TR1 (x, y, z) units to world metres: (x, -y, -z) / units_per_metre.
static void tr1_to_world(double x, double y, double z, double upm, double out[3])
{
    out[0] = x / upm;
    out[1] = -y / upm;
    out[2] = -z / upm;
}

static void box_from_corners(const double a[3], const double b[3], cs_level_box *out)
{
    for (int k = 0; k < 3; k++) {
        out->min[k] = fmin(a[k], b[k]);
        out->max[k] = fmax(a[k], b[k]);
    }
}

// The plane through a slanted surface of the sector at TR corner (x0, z0),
// height(lx, lz) in TR units, as a half space whose open side is above it
// (a floor, open_above) or below it (a ceiling). The surface is linear:
// height = h0 + gx lx + gz lz. In the world frame y = -height / upm, so a
// point is above it where Y + (h0 + gx (x - x0) + gz (z - z0)) / upm >= 0,
// with x = X upm and z = -Z upm.
static cs_level_plane slant_plane(const cs_tr1_sector *s, cs_tr1_slant slant, bool floor, double x0, double z0,
                                  double upm)
{
    double (*height)(const cs_tr1_sector *, cs_tr1_slant, double, double) =
        floor ? cs_tr1_floor_height : cs_tr1_ceiling_height;
    double h0 = height(s, slant, 0, 0);
    double gx = (height(s, slant, TR1_SECTOR, 0) - h0) / TR1_SECTOR;
    double gz = (height(s, slant, 0, TR1_SECTOR) - h0) / TR1_SECTOR;
    // above: -Y - gx X + gz Z <= (h0 - gx x0 - gz z0) / upm
    double sign = floor ? 1.0 : -1.0;
    cs_level_plane p = {
        .n = {-sign * gx, -sign, sign * gz},
        .c = sign * (h0 - gx * x0 - gz * z0) / upm,
        .y = -(floor ? s->floor : s->ceiling) * TR1_CLICK / upm,
    };
    return p;
}

static void add_room_columns(const cs_tr1_level *level, const cs_tr1_room *room, uint32_t room_index, double upm,
                             cs_level_space *out)
{
    for (uint32_t i = 0; i < room->x_sectors; i++)
        for (uint32_t j = 0; j < room->z_sectors; j++) {
            const cs_tr1_sector *s = &room->sectors[i * room->z_sectors + j];
            if (s->floor == TR1_WALL_HEIGHT || s->floor <= s->ceiling)
                continue; // a wall (y grows downwards: an open floor is below its ceiling)
            // A door sector sits in the room's wall ring over the floor of
            // the room it leads to, which holds that space as its own
            // column. As a column of this room too it would claim the
            // neighbour's cells (the first column claims a cell) and leave
            // a thin wall one sector past the portal, where the two rooms'
            // columns meet outside any portal rectangle.
            if (cs_tr1_sector_door(level, s) >= 0)
                continue;
            double x0 = room->x + i * TR1_SECTOR, z0 = room->z + j * TR1_SECTOR;
            cs_tr1_slant floor_slant, ceiling_slant;
            cs_tr1_sector_slants(level, s, &floor_slant, &ceiling_slant);
            cs_level_slope *slope = &out->box_slope[out->box_count];
            slope->floor = floor_slant.x || floor_slant.z;
            slope->ceiling = ceiling_slant.x || ceiling_slant.z;
            // The column reaches the floor's lowest and the ceiling's highest
            // corner (the slants only lower the one and raise the other).
            double floor_low = s->floor * TR1_CLICK, ceiling_high = s->ceiling * TR1_CLICK;
            for (int c = 0; c < 4; c++) {
                double lx = (c & 1) * TR1_SECTOR, lz = (c >> 1) * TR1_SECTOR;
                floor_low = fmax(floor_low, cs_tr1_floor_height(s, floor_slant, lx, lz));
                ceiling_high = fmin(ceiling_high, cs_tr1_ceiling_height(s, ceiling_slant, lx, lz));
            }
            if (slope->floor)
                slope->floor_plane = slant_plane(s, floor_slant, true, x0, z0, upm);
            if (slope->ceiling)
                slope->ceiling_plane = slant_plane(s, ceiling_slant, false, x0, z0, upm);
            out->sloped_count += slope->floor || slope->ceiling;
            double a[3], b[3];
            tr1_to_world(x0, ceiling_high, z0, upm, a);
            tr1_to_world(x0 + TR1_SECTOR, floor_low, z0 + TR1_SECTOR, upm, b);
            box_from_corners(a, b, &out->boxes[out->box_count]);
            out->box_room[out->box_count++] = room_index;
        }
}

static bool is_water(const cs_tr1_room *room) { return (room->flags & CS_TR1_ROOM_WATER) != 0; }

static void add_room_portals(const cs_tr1_level *level, const cs_tr1_room *room, double upm, bool seal_water,
                             cs_level_space *out)
{
    for (uint32_t p = 0; p < room->portal_count; p++) {
        const cs_tr1_portal *portal = &room->portals[p];
        if (seal_water && is_water(room) != is_water(&level->rooms[portal->adjoining_room]))
            continue; // the water surface: a wall
        cs_level_box *box = &out->portals[out->portal_count++];
        for (int k = 0; k < 3; k++) {
            box->min[k] = INFINITY;
            box->max[k] = -INFINITY;
        }
        for (int v = 0; v < 4; v++) {
            double w[3];
            tr1_to_world(room->x + portal->vertices[v][0], portal->vertices[v][1], room->z + portal->vertices[v][2],
                         upm, w);
            for (int k = 0; k < 3; k++) {
                box->min[k] = fmin(box->min[k], w[k]);
                box->max[k] = fmax(box->max[k], w[k]);
            }
        }
    }
}

bool cs_level_space_build(const cs_tr1_level *level, double units_per_metre, cs_level_space *out, cs_error *err)
{
    return cs_level_space_build_sealed(level, units_per_metre, false, out, err);
}

bool cs_level_space_build_sealed(const cs_tr1_level *level, double units_per_metre, bool seal_water,
                                 cs_level_space *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(units_per_metre > 0.0) || !isfinite(units_per_metre))
        return cs_fail(err, "units_per_metre must be positive and finite (got %g)", units_per_metre);
    size_t sectors = 0, portals = 0;
    for (uint32_t r = 0; r < level->room_count; r++) {
        sectors += (size_t)level->rooms[r].x_sectors * level->rooms[r].z_sectors;
        portals += level->rooms[r].portal_count;
    }
    out->boxes = calloc(CS_MAX(sectors, 1u), sizeof *out->boxes);
    out->box_room = calloc(CS_MAX(sectors, 1u), sizeof *out->box_room);
    out->box_slope = calloc(CS_MAX(sectors, 1u), sizeof *out->box_slope);
    out->portals = calloc(CS_MAX(portals, 1u), sizeof *out->portals);
    CS_ASSERT(out->boxes && out->box_room && out->box_slope && out->portals, "out of host memory for %zu sectors", sectors);
    bool *alternate = alternate_rooms(level);
    for (uint32_t r = 0; r < level->room_count; r++) {
        if (alternate[r])
            continue;
        add_room_columns(level, &level->rooms[r], r, units_per_metre, out);
        add_room_portals(level, &level->rooms[r], units_per_metre, seal_water, out);
    }
    free(alternate);
    out->sector = TR1_SECTOR / units_per_metre;
    out->click = TR1_CLICK / units_per_metre;
    if (out->box_count == 0) {
        cs_level_space_free(out);
        return cs_fail(err, "the level has no open sector (every sector is a wall)");
    }
    return true;
}

bool cs_level_space_load(const char *path, double units_per_metre, cs_level_space *out, cs_error *err)
{
    cs_tr1_level level;
    memset(out, 0, sizeof *out);
    if (!cs_tr1_load(path, &level, NULL, err))
        return false;
    cs_error inner;
    bool ok = cs_level_space_build(&level, units_per_metre, out, &inner);
    cs_tr1_free(&level);
    return ok || cs_fail(err, "%s: %s", path, inner.msg);
}

void cs_level_space_free(cs_level_space *space)
{
    free(space->boxes);
    free(space->box_room);
    free(space->box_slope);
    free(space->portals);
    memset(space, 0, sizeof *space);
}

// ---------------------------------------------------------------------------
// The grid

bool cs_level_grid_cover(const float domain_min[3], const float domain_max[3], double cell, double band,
                         const char *field, cs_level_grid *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    out->cell = cell;
    out->band = band;
    double nodes = 1.0;
    for (int k = 0; k < 3; k++) {
        out->origin[k] = (floor(domain_min[k] / cell) - 1.0) * cell;
        double n = ceil((domain_max[k] - out->origin[k]) / cell) + 2.0;
        if (!(n >= 2.0) || n > 65536.0)
            return cs_fail(err, "the %s needs %.0f nodes along axis %d (cell %g m): too many", field, n, k, cell);
        out->dims[k] = (uint32_t)n;
        nodes *= n;
    }
    if (nodes > (double)(1u << 28))
        return cs_fail(err, "the %s needs %.0f nodes (%u x %u x %u, cell %g m): more than %u", field, nodes,
                       out->dims[0], out->dims[1], out->dims[2], out->cell, 1u << 28);
    return true;
}

bool cs_level_grid_plan(const cs_level_space *space, const float domain_min[3], const float domain_max[3],
                        double max_cell, double band, cs_level_grid *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(max_cell > 0.0) || !(band > 0.0))
        return cs_fail(err, "the level field needs a positive cell size and band (got %g, %g)", max_cell, band);
    // The largest cell <= max_cell dividing a click: walls lie on nodes.
    double per_click = ceil(space->click / max_cell - 1e-9);
    double cell = space->click / CS_MAX(per_click, 1.0);
    return cs_level_grid_cover(domain_min, domain_max, cell, band, "level field", out, err);
}

// ---------------------------------------------------------------------------
// The lattice: on each axis every box and portal bound inside a region, so
// each lattice cell is wholly open (in one room's column) or wholly solid,
// and each face between two cells is wholly inside a portal or not.

typedef struct lattice {
    double *coords[3];
    uint32_t count[3];        // coordinates; cells = count - 1
    int32_t *room;            // per cell: its room, -1 solid
    uint8_t *wall;            // per cell: bit a set = its high face on axis a is a thin wall
    // Per cell: the slanted floor or ceiling that cuts it (an index into
    // planes; -1: none, the cell is wholly open or wholly solid). A cut
    // cell is open on the plane's open side only.
    int32_t *cut;
    const cs_level_plane **planes;
    uint32_t plane_count;
} lattice;

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void lattice_axis(const cs_level_space *s, int a, double lo, double hi, lattice *l)
{
    size_t cap = 4 * (size_t)s->box_count + 2 * (size_t)s->portal_count + 2;
    double *c = malloc(cap * sizeof *c);
    CS_ASSERT(c, "out of host memory");
    uint32_t n = 0;
    c[n++] = lo;
    c[n++] = hi;
    for (uint32_t b = 0; b < s->box_count + s->portal_count; b++) {
        const cs_level_box *box = b < s->box_count ? &s->boxes[b] : &s->portals[b - s->box_count];
        if (box->min[a] > lo && box->min[a] < hi)
            c[n++] = box->min[a];
        if (box->max[a] > lo && box->max[a] < hi)
            c[n++] = box->max[a];
    }
    // Where a slanted floor or ceiling meets its column's flat part: below
    // (above) it the column is cut by the plane, above (below) it is open.
    for (uint32_t b = 0; a == 1 && b < s->box_count; b++) {
        const cs_level_slope *slope = &s->box_slope[b];
        if (slope->floor && slope->floor_plane.y > lo && slope->floor_plane.y < hi)
            c[n++] = slope->floor_plane.y;
        if (slope->ceiling && slope->ceiling_plane.y > lo && slope->ceiling_plane.y < hi)
            c[n++] = slope->ceiling_plane.y;
    }
    qsort(c, n, sizeof *c, compare_doubles);
    uint32_t unique = 0;
    for (uint32_t i = 0; i < n; i++)
        if (unique == 0 || c[i] != c[unique - 1])
            c[unique++] = c[i];
    l->coords[a] = c;
    l->count[a] = unique;
}

// The cell index holding x on axis a (clamped to the lattice): the last
// coordinate <= x.
static uint32_t lattice_cell(const lattice *l, int a, double x)
{
    uint32_t lo = 0, hi = l->count[a] - 1; // answer in [0, count - 2]
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (l->coords[a][mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static size_t cell_index(const lattice *l, uint32_t i, uint32_t j, uint32_t k)
{
    return ((size_t)k * (l->count[1] - 1) + j) * (l->count[0] - 1) + i;
}

static void cell_box(const lattice *l, const uint32_t c[3], cs_level_box *out)
{
    for (int a = 0; a < 3; a++) {
        out->min[a] = l->coords[a][c[a]];
        out->max[a] = l->coords[a][c[a] + 1];
    }
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// Which side of a plane's half space a box lies on: -1 wholly inside (the
// open side, n . p <= c), +1 wholly outside, 0 cut by the plane.
static int box_side(const cs_level_box *b, const cs_level_plane *p)
{
    double lo = 0.0, hi = 0.0; // n . x over the box
    for (int a = 0; a < 3; a++) {
        lo += p->n[a] * (p->n[a] > 0 ? b->min[a] : b->max[a]);
        hi += p->n[a] * (p->n[a] > 0 ? b->max[a] : b->min[a]);
    }
    return hi <= p->c ? -1 : lo >= p->c ? 1 : 0;
}

static int32_t lattice_plane(lattice *l, const cs_level_plane *p)
{
    for (uint32_t i = 0; i < l->plane_count; i++)
        if (l->planes[i] == p)
            return (int32_t)i;
    l->planes[l->plane_count] = p;
    return (int32_t)l->plane_count++;
}

// Marks each cell with the room of the first column that covers it.
static void lattice_paint_rooms(const cs_level_space *s, lattice *l)
{
    for (uint32_t b = 0; b < s->box_count; b++) {
        const cs_level_box *box = &s->boxes[b];
        uint32_t lo[3], hi[3];
        bool empty = false;
        for (int a = 0; a < 3; a++) {
            double clip_lo = fmax(box->min[a], l->coords[a][0]);
            double clip_hi = fmin(box->max[a], l->coords[a][l->count[a] - 1]);
            if (!(clip_hi > clip_lo)) {
                empty = true;
                break;
            }
            lo[a] = lattice_cell(l, a, clip_lo);
            // the last cell whose low coordinate is below clip_hi
            hi[a] = lattice_cell(l, a, clip_hi);
            if (l->coords[a][hi[a]] >= clip_hi && hi[a] > lo[a])
                hi[a]--;
        }
        if (empty)
            continue;
        const cs_level_slope *slope = &s->box_slope[b];
        for (uint32_t k = lo[2]; k <= hi[2]; k++)
            for (uint32_t j = lo[1]; j <= hi[1]; j++)
                for (uint32_t i = lo[0]; i <= hi[0]; i++) {
                    size_t index = cell_index(l, i, j, k);
                    int32_t cut = -1;
                    if (slope->floor || slope->ceiling) {
                        uint32_t c[3] = {i, j, k};
                        cs_level_box cell;
                        cell_box(l, c, &cell);
                        const cs_level_plane *planes[2] = {slope->floor ? &slope->floor_plane : NULL,
                                                           slope->ceiling ? &slope->ceiling_plane : NULL};
                        bool outside = false;
                        for (int q = 0; q < 2; q++) {
                            if (!planes[q])
                                continue;
                            int side = box_side(&cell, planes[q]);
                            if (side > 0)
                                outside = true;
                            else if (side == 0) // the lattice keeps floor and ceiling cuts apart
                                cut = lattice_plane(l, planes[q]);
                        }
                        if (outside)
                            continue;
                    }
                    // The first column that covers a cell wholly claims it;
                    // one that cuts it only claims it if nothing else did.
                    if (l->room[index] < 0 || (l->cut[index] >= 0 && cut < 0)) {
                        l->room[index] = (int32_t)s->box_room[b];
                        l->cut[index] = cut;
                    }
                }
    }
}

// Whether the face on plane `a` = at, centred at c, lies in a portal.
static bool face_in_portal(const cs_level_space *s, int a, const double c[3])
{
    for (uint32_t p = 0; p < s->portal_count; p++) {
        const cs_level_box *box = &s->portals[p];
        if (box->min[a] != c[a] || box->max[a] != c[a])
            continue;
        bool inside = true;
        for (int k = 0; k < 3; k++)
            if (k != a && !(c[k] > box->min[k] && c[k] < box->max[k]))
                inside = false;
        if (inside)
            return true;
    }
    return false;
}

// Faces between open cells of different rooms, outside every portal.
static void lattice_mark_walls(const cs_level_space *s, lattice *l)
{
    uint32_t n[3] = {l->count[0] - 1, l->count[1] - 1, l->count[2] - 1};
    for (uint32_t k = 0; k < n[2]; k++)
        for (uint32_t j = 0; j < n[1]; j++)
            for (uint32_t i = 0; i < n[0]; i++) {
                uint32_t c[3] = {i, j, k};
                int32_t room = l->room[cell_index(l, i, j, k)];
                if (room < 0)
                    continue;
                for (int a = 0; a < 3; a++) {
                    if (c[a] + 1 >= n[a])
                        continue;
                    uint32_t d[3] = {i, j, k};
                    d[a]++;
                    int32_t other = l->room[cell_index(l, d[0], d[1], d[2])];
                    if (other < 0 || other == room)
                        continue;
                    double centre[3];
                    for (int q = 0; q < 3; q++)
                        centre[q] = q == a ? l->coords[q][c[q] + 1] : 0.5 * (l->coords[q][c[q]] + l->coords[q][c[q] + 1]);
                    if (!face_in_portal(s, a, centre))
                        l->wall[cell_index(l, i, j, k)] |= (uint8_t)(1u << a);
                }
            }
}

static void lattice_build(const cs_level_space *s, const double lo[3], const double hi[3], lattice *l)
{
    memset(l, 0, sizeof *l);
    for (int a = 0; a < 3; a++)
        lattice_axis(s, a, lo[a], hi[a], l);
    size_t cells = (size_t)(l->count[0] - 1) * (l->count[1] - 1) * (l->count[2] - 1);
    l->room = malloc(cells * sizeof *l->room);
    l->cut = malloc(cells * sizeof *l->cut);
    l->wall = calloc(cells, 1);
    l->planes = malloc((2 * (size_t)s->sloped_count + 1) * sizeof *l->planes);
    CS_ASSERT(l->room && l->cut && l->wall && l->planes, "out of host memory for %zu lattice cells", cells);
    for (size_t c = 0; c < cells; c++)
        l->room[c] = l->cut[c] = -1;
    lattice_paint_rooms(s, l);
    lattice_mark_walls(s, l);
}

static void lattice_free(lattice *l)
{
    for (int a = 0; a < 3; a++)
        free(l->coords[a]);
    free(l->room);
    free(l->cut);
    free(l->wall);
    free(l->planes);
}

static double box_distance(const cs_level_box *b, const double p[3])
{
    double sum = 0.0;
    for (int a = 0; a < 3; a++) {
        double d = fmax(fmax(b->min[a] - p[a], p[a] - b->max[a]), 0.0);
        sum += d * d;
    }
    return sqrt(sum);
}

// The exact distance from p to the part of box b where n . x <= c, or
// INFINITY where there is none. The nearest point is p clamped to the box
// if that is on the plane's side; else it lies on the plane, at
// x(t) = clamp(p - t n) for the t >= 0 where n . x(t) = c. n . x(t) falls
// piecewise linearly with t, bending where a coordinate reaches a bound:
// walk those bends in order and interpolate in the one that crosses c.
static double clipped_box_distance(const cs_level_box *b, const double n[3], double c, const double p[3])
{
    double x[3], t[8];
    int bends = 0;
    for (int a = 0; a < 3; a++)
        x[a] = fmin(fmax(p[a], b->min[a]), b->max[a]);
    double g = dot3(n, x);
    if (g <= c)
        return sqrt((x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2]));
    t[bends++] = 0.0;
    for (int a = 0; a < 3; a++)
        if (n[a] != 0.0) {
            double t0 = (p[a] - b->min[a]) / n[a], t1 = (p[a] - b->max[a]) / n[a];
            if (t0 > 0.0)
                t[bends++] = t0;
            if (t1 > 0.0)
                t[bends++] = t1;
        }
    qsort(t, (size_t)bends, sizeof *t, compare_doubles);
    double prev_t = 0.0, prev_g = g;
    for (int i = 1; i < bends; i++) {
        for (int a = 0; a < 3; a++)
            x[a] = fmin(fmax(p[a] - t[i] * n[a], b->min[a]), b->max[a]);
        double gi = dot3(n, x);
        if (gi <= c) {
            double s = prev_g > gi ? (prev_g - c) / (prev_g - gi) : 1.0;
            double ts = prev_t + s * (t[i] - prev_t);
            double sum = 0.0;
            for (int a = 0; a < 3; a++) {
                double xa = fmin(fmax(p[a] - ts * n[a], b->min[a]), b->max[a]);
                sum += (xa - p[a]) * (xa - p[a]);
            }
            return sqrt(sum);
        }
        prev_t = t[i];
        prev_g = gi;
    }
    return INFINITY; // the whole box is on the other side
}

// Whether a point of cell `index` is open: an open cell's, or a cut cell's
// on its plane's open side.
static bool lattice_open_at(const lattice *l, size_t index, const double p[3])
{
    if (l->room[index] < 0)
        return false;
    int32_t cut = l->cut[index];
    return cut < 0 || dot3(l->planes[cut]->n, p) <= l->planes[cut]->c;
}

// The distance from p to the part of a cell that is open (want_open) or
// solid; INFINITY if it has none.
static double cell_part_distance(const lattice *l, size_t index, const cs_level_box *box, bool want_open,
                                 const double p[3])
{
    bool open = l->room[index] >= 0;
    int32_t cut = l->cut[index];
    if (open && cut >= 0) {
        const cs_level_plane *pl = l->planes[cut];
        if (want_open)
            return clipped_box_distance(box, pl->n, pl->c, p);
        double m[3] = {-pl->n[0], -pl->n[1], -pl->n[2]};
        return clipped_box_distance(box, m, -pl->c, p);
    }
    return open == want_open ? box_distance(box, p) : INFINITY;
}

// Signed distance at p from the lattice cells within `band` of it.
static double lattice_distance(const lattice *l, const double p[3], double band)
{
    uint32_t lo[3], hi[3], at[3];
    for (int a = 0; a < 3; a++) {
        at[a] = lattice_cell(l, a, p[a]);
        lo[a] = lattice_cell(l, a, p[a] - band);
        hi[a] = lattice_cell(l, a, p[a] + band);
    }
    bool open = lattice_open_at(l, cell_index(l, at[0], at[1], at[2]), p);
    double best = band;
    for (uint32_t k = lo[2]; k <= hi[2]; k++)
        for (uint32_t j = lo[1]; j <= hi[1]; j++)
            for (uint32_t i = lo[0]; i <= hi[0]; i++) {
                uint32_t c[3] = {i, j, k};
                size_t index = cell_index(l, i, j, k);
                cs_level_box box;
                cell_box(l, c, &box);
                best = fmin(best, cell_part_distance(l, index, &box, !open, p));
                if (!open || !l->wall[index])
                    continue;
                for (int a = 0; a < 3; a++)
                    if (l->wall[index] & (1u << a)) {
                        cs_level_box face = box;
                        face.min[a] = face.max[a];
                        best = fmin(best, box_distance(&face, p));
                    }
            }
    return open ? best : -best;
}

// Seconds between two progress lines of a long bake.
#define BAKE_PROGRESS_S 5.0

void cs_level_sdf_bake(const cs_level_space *space, const cs_level_grid *grid, float *values)
{
    cs_level_sdf_bake_progress(space, grid, values, NULL);
}

void cs_level_sdf_bake_progress(const cs_level_space *space, const cs_level_grid *grid, float *values,
                                FILE *progress)
{
    double start = cs_now_seconds(), last = start;
    // The lattice reaches a cell past the band around the grid, so every
    // node's neighbourhood lies inside it (beyond it all is solid).
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = grid->origin[a] - grid->band - grid->cell;
        hi[a] = grid->origin[a] + (grid->dims[a] - 1) * grid->cell + grid->band + grid->cell;
    }
    lattice l;
    lattice_build(space, lo, hi, &l);
    double nodes = (double)grid->dims[0] * grid->dims[1] * grid->dims[2];
    for (uint32_t z = 0; z < grid->dims[2]; z++)
        for (uint32_t y = 0; y < grid->dims[1]; y++) {
            // A node visits the lattice cells within the band: rooms off the
            // sector grid make the lattice fine and a bake minutes long
            // (issue 28's audit: 1000 small rooms, silent past 3 minutes).
            double now = progress ? cs_now_seconds() : 0.0;
            if (progress && now - last >= BAKE_PROGRESS_S) {
                last = now;
                double done = ((double)z * grid->dims[1] + y) * grid->dims[0];
                fprintf(progress, "cistern: level field: baking (%.0f s): %.1f M of %.1f M nodes, about %.0f s left "
                                  "(%u x %u x %u lattice cells, %.2g m band; Ctrl-C stops)\n",
                        now - start, done / 1e6, nodes / 1e6, (now - start) * (nodes - done) / CS_MAX(done, 1.0),
                        l.count[0] - 1, l.count[1] - 1, l.count[2] - 1, grid->band);
                fflush(progress);
            }
            for (uint32_t x = 0; x < grid->dims[0]; x++) {
                double p[3] = {grid->origin[0] + x * grid->cell, grid->origin[1] + y * grid->cell,
                               grid->origin[2] + z * grid->cell};
                values[((size_t)z * grid->dims[1] + y) * grid->dims[0] + x] = (float)lattice_distance(&l, p, grid->band);
            }
        }
    lattice_free(&l);
}

double cs_level_sdf_sample(const cs_level_grid *grid, const float *values, const double p[3])
{
    return cs_level_field_sample(grid->origin, grid->cell, grid->dims, values, p);
}
