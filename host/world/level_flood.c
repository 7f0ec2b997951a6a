// level_flood.c — a level's water rooms filled with a particle fluid (see
// level_flood.h).
#include "level_flood.h"

#include <math.h>

#define TR1_SECTOR 1024.0
#define TR1_CLICK 256.0
#define TR1_WALL_HEIGHT (-127)

// A sector the room's own water fills: open, and not a door sector (a door
// sector lies in the room's wall ring over the floor of the room it leads
// to: by the game's rule its space is that room's, rock for this one's pool).
static bool water_sector(const cs_tr1_level *level, const cs_tr1_sector *s)
{
    return s->floor != TR1_WALL_HEIGHT && s->floor > s->ceiling && cs_tr1_sector_door(level, s) < 0;
}

static bool same_heights(const cs_tr1_sector *a, const cs_tr1_sector *b)
{
    return a->floor == b->floor && a->ceiling == b->ceiling;
}

// Covers a room's water sectors with boxes of equal floor and ceiling: from
// each sector not yet covered, a run along z, then grown along x while the
// next column's run matches. Returns how many boxes the room takes; adds
// them to out while they fit (the caller refuses the flood when they do not).
static uint32_t room_boxes(const cs_tr1_level *level, const cs_tr1_room *room, uint32_t r, double upm,
                           cs_level_flood *out)
{
    uint32_t nx = room->x_sectors, nz = room->z_sectors;
    bool *covered = calloc((size_t)nx * nz + 1, 1);
    CS_ASSERT(covered, "out of host memory");
    uint32_t boxes = 0;
    for (uint32_t i = 0; i < nx; i++)
        for (uint32_t j = 0; j < nz; j++) {
            const cs_tr1_sector *s = &room->sectors[i * nz + j];
            if (covered[i * nz + j] || !water_sector(level, s))
                continue;
            uint32_t j1 = j + 1;
            while (j1 < nz && !covered[i * nz + j1] && water_sector(level, &room->sectors[i * nz + j1]) &&
                   same_heights(s, &room->sectors[i * nz + j1]))
                j1++;
            uint32_t i1 = i + 1;
            for (; i1 < nx; i1++) {
                bool match = true;
                for (uint32_t k = j; k < j1 && match; k++)
                    match = !covered[i1 * nz + k] && water_sector(level, &room->sectors[i1 * nz + k]) &&
                            same_heights(s, &room->sectors[i1 * nz + k]);
                if (!match)
                    break;
            }
            for (uint32_t a = i; a < i1; a++)
                for (uint32_t k = j; k < j1; k++)
                    covered[a * nz + k] = true;
            boxes++;
            if (out->block_count == CS_MAX_BLOCKS)
                continue; // counted on, so the refusal can say how many it takes
            // TR (x, y, z) to world (x, -y, -z) / upm; the stored heights are
            // the floor's highest and the ceiling's lowest point.
            cs_fluid_block *b = &out->blocks[out->block_count];
            memset(b, 0, sizeof *b);
            b->min[0] = (float)((room->x + i * TR1_SECTOR) / upm);
            b->max[0] = (float)((room->x + i1 * TR1_SECTOR) / upm);
            b->min[1] = (float)(-s->floor * TR1_CLICK / upm);
            b->max[1] = (float)(-s->ceiling * TR1_CLICK / upm);
            b->min[2] = (float)(-(room->z + j1 * TR1_SECTOR) / upm);
            b->max[2] = (float)(-(room->z + j * TR1_SECTOR) / upm);
            out->block_room[out->block_count++] = r;
        }
    free(covered);
    return boxes;
}

static uint64_t lattice_points(const cs_level_flood *f, double spacing)
{
    uint64_t total = 0;
    for (uint32_t b = 0; b < f->block_count; b++) {
        uint64_t n = 1;
        for (int a = 0; a < 3; a++) {
            // As the scene's fill counts (scene_lattice.c): float spacing, 1e-4 slack.
            double cells = floor(((double)f->blocks[b].max[a] - (double)f->blocks[b].min[a]) / (double)(float)spacing +
                                 1e-4);
            n *= cells > 0 ? (uint64_t)cells : 0;
        }
        total += n;
    }
    return total;
}

bool cs_level_flood_plan(const cs_tr1_level *level, double upm, const uint32_t *rooms, uint32_t room_count,
                         uint32_t budget, cs_level_flood *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(upm > 0) || !isfinite(upm))
        return cs_fail(err, "units_per_metre must be positive and finite (got %g)", upm);
    if (budget < 8)
        return cs_fail(err, "a flood needs a budget of at least 8 particles (got %u)", budget);
    if (room_count > CS_FLOOD_MAX_ROOMS)
        return cs_fail(err, "%u rooms listed; a flood fills at most %d", room_count, CS_FLOOD_MAX_ROOMS);
    for (uint32_t k = 0; k < room_count; k++) {
        if (rooms[k] >= level->room_count)
            return cs_fail(err, "room %u does not exist (the level has rooms 0..%u)", rooms[k],
                           level->room_count ? level->room_count - 1 : 0);
        out->rooms[out->room_count++] = rooms[k];
    }
    if (room_count == 0) {
        for (uint32_t r = 0; r < level->room_count; r++)
            if (level->rooms[r].flags & CS_TR1_ROOM_WATER) {
                if (out->room_count == CS_FLOOD_MAX_ROOMS)
                    return cs_fail(err, "the level has more than %d water rooms; list the ones to fill",
                                   CS_FLOOD_MAX_ROOMS);
                out->rooms[out->room_count++] = r;
            }
        if (out->room_count == 0)
            return cs_fail(err, "the level has no water room (room flag 0x0001); list rooms to fill anyway");
    }
    uint32_t boxes = 0, largest = 0, largest_room = 0;
    for (uint32_t k = 0; k < out->room_count; k++) {
        uint32_t r = out->rooms[k], n = room_boxes(level, &level->rooms[r], r, upm, out);
        if (n == 0)
            return cs_fail(err, "room %u has no open sector to fill (every sector is a wall or a door)", r);
        if (n > largest) {
            largest = n;
            largest_room = r;
        }
        boxes += n;
    }
    if (boxes > CS_MAX_BLOCKS)
        return cs_fail(err, "the %u rooms need %u boxes of equal floor and ceiling (the most, room %u, %u), and a "
                            "flood holds %d; list fewer rooms (--flood-rooms)", out->room_count, boxes, largest_room,
                       largest, CS_MAX_BLOCKS);
    // Spacing: from the volume, then widened until the lattice fits the budget.
    for (int a = 0; a < 3; a++) {
        out->domain_min[a] = INFINITY;
        out->domain_max[a] = -INFINITY;
    }
    for (uint32_t b = 0; b < out->block_count; b++) {
        const cs_fluid_block *bl = &out->blocks[b];
        out->volume += ((double)bl->max[0] - bl->min[0]) * ((double)bl->max[1] - bl->min[1]) *
                       ((double)bl->max[2] - bl->min[2]);
        for (int a = 0; a < 3; a++) {
            out->domain_min[a] = fminf(out->domain_min[a], bl->min[a]);
            out->domain_max[a] = fmaxf(out->domain_max[a], bl->max[a]);
        }
    }
    // The domain: the rooms' columns (slanted floors and raised ceilings
    // reach a sector of clicks past the stored heights at most) and a sector
    // around, so the level's walls and sealed portals keep the water in.
    for (int a = 0; a < 3; a++) {
        out->domain_min[a] -= (float)(TR1_SECTOR / upm);
        out->domain_max[a] += (float)(TR1_SECTOR / upm);
    }
    // The count falls with the spacing, in steps: bisect for the smallest
    // spacing whose count fits the budget (counted as the scene's fill
    // counts, in float with its slack).
    double lo = 0.25 * cbrt(out->volume / budget), hi = 16.0 * lo;
    while (lattice_points(out, hi) > budget && hi < 1e6)
        hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (lattice_points(out, mid) > budget)
            lo = mid;
        else
            hi = mid;
    }
    double spacing = (float)hi;
    uint64_t n = lattice_points(out, spacing);
    if (n == 0 || n > budget)
        return cs_fail(err, "no particle spacing fits %u particles into %.3g m^3", budget, out->volume);
    out->spacing = spacing;
    out->particles = (uint32_t)n;
    for (uint32_t b = 0; b < out->block_count; b++)
        out->blocks[b].spacing = (float)spacing;
    return true;
}

bool cs_level_flood_scene_json(const cs_level_flood *f, const char *level_path, double upm, char *out, size_t size)
{
    size_t used = 0;
#define EMIT(...)                                                                 \
    do {                                                                          \
        int n_ = snprintf(out + used, size - used, __VA_ARGS__);                  \
        if (n_ < 0 || (size_t)n_ >= size - used)                                  \
            return false;                                                         \
        used += (size_t)n_;                                                       \
    } while (0)
    // Mass: rest density times the particle's cell (PBF's rest state).
    double mass = 1000.0 * f->spacing * f->spacing * f->spacing;
    EMIT("{ \"description\": \"cistern view --flood: the level's water rooms filled with PBF water\",\n"
         "  \"dim\": 3, \"gravity\": [0, -9.81, 0], \"dt\": 0.004, \"substeps\": 3, \"seed\": 1,\n"
         "  \"domain\": {\"min\": [%.9g, %.9g, %.9g], \"max\": [%.9g, %.9g, %.9g]},\n",
         f->domain_min[0], f->domain_min[1], f->domain_min[2], f->domain_max[0], f->domain_max[1], f->domain_max[2]);
    EMIT("  \"level\": {\"file\": \"");
    for (const char *c = level_path; *c; c++) // a JSON string: quotes and backslashes escaped
        EMIT(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
    EMIT("\", \"units_per_metre\": %.17g, \"seal_water\": true},\n", upm);
    EMIT("  \"fluids\": [{ \"solver\": \"pbf\", \"particle_spacing\": %.9g, \"smoothing_radius\": %.9g,\n"
         "    \"materials\": [{\"name\": \"water\", \"mass\": %.9g, \"rest_density\": 1000}],\n"
         "    \"pbf\": {\"iterations\": 4},\n    \"blocks\": [",
         f->spacing, 2 * f->spacing, mass);
    for (uint32_t b = 0; b < f->block_count; b++) {
        const cs_fluid_block *bl = &f->blocks[b];
        EMIT("%s\n      {\"min\": [%.9g, %.9g, %.9g], \"max\": [%.9g, %.9g, %.9g]}", b ? "," : "", bl->min[0],
             bl->min[1], bl->min[2], bl->max[0], bl->max[1], bl->max[2]);
    }
    EMIT("] }] }\n");
#undef EMIT
    return true;
}

void cs_level_flood_text(const cs_level_flood *f, char *out, size_t size)
{
    size_t used = 0;
    int n = snprintf(out, size, "room%s", f->room_count == 1 ? "" : "s");
    used = n > 0 ? (size_t)n : 0;
    for (uint32_t k = 0; k < f->room_count && used < size; k++) {
        n = snprintf(out + used, size - used, "%s %u", k ? "," : "", f->rooms[k]);
        used += n > 0 ? (size_t)n : 0;
    }
    if (used < size)
        snprintf(out + used, size - used, ": %u particles at %.3f m spacing in %u box%s, %.2f m^3", f->particles,
                 f->spacing, f->block_count, f->block_count == 1 ? "" : "es", f->volume);
}
