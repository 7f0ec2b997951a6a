// level_sdf.h — the open space of a TR1 level, and its signed distance field
// baked on a regular grid for the fluids' collisions (docs/levels.md, "Fluid
// in a level").
//
// Open space: the union over rooms of their sector columns, each the box
// [sector's x range] x [ceiling, floor] x [sector's z range] in world space
// (level_mesh.h's frame: (x, -y, -z) / units_per_metre). A sector whose
// floor is at or above its ceiling (TR1 writes walls as floor = ceiling =
// -127 clicks) is solid. A sector's floor and ceiling slants (floor data
// functions 2 and 3, cs_tr1_sector_slants) cut its column by planes: the
// column is [x, z range] x [lowest floor point, highest ceiling point],
// open only above the floor plane and below the ceiling plane. (Floor data
// that splits a sector into triangles is TR3's and later: not in TR1.)
//
// Rooms are joined only through their portals: where the columns of two
// different rooms touch face to face, the shared face is a wall of zero
// thickness except inside a portal's rectangle (the portal quad's bounds on
// its plane). Without that, the demo level's hall and east room would be
// open to each other along their whole shared face, where the drawn level
// has walls beside the doorway. Rooms that are another room's alternate
// (flipmaps: they occupy the same space) are left out.
//
// The signed distance is positive in open space (distance to the nearest
// solid or thin wall) and negative in solid (minus the distance to the open
// space), exact within `band` and clamped to +-band beyond it.
#pragma once

#include "level_tr1.h"

#include "sim.h"

typedef struct cs_level_box {
    double min[3], max[3]; // world metres; a thin wall has min == max on one axis
} cs_level_box;

// A half space n . p <= c (world metres): the open side of a sloped floor
// or ceiling. `y` is where the plane meets the flat part of the column: the
// sector's stored height (the floor's highest, the ceiling's lowest point).
typedef struct cs_level_plane {
    double n[3], c;
    double y;
} cs_level_plane;

// A column's slants: which of its floor and ceiling are planes.
typedef struct cs_level_slope {
    bool floor, ceiling;
    cs_level_plane floor_plane, ceiling_plane;
} cs_level_slope;

typedef struct cs_level_space {
    uint32_t box_count;
    cs_level_box *boxes;   // open sector columns
    uint32_t *box_room;    // the room of each column
    cs_level_slope *box_slope; // the slants of each column (both false: flat)
    uint32_t sloped_count; // columns with a slanted floor or ceiling
    uint32_t portal_count;
    cs_level_box *portals; // portal rectangles (flat on one axis)
    // The lattice every wall lies on: a sector (x, z) and a click (y) in
    // metres. A grid whose nodes lie on it represents the walls exactly.
    double sector, click;
} cs_level_space;

// Builds the open space from a level. Refuses a units_per_metre that is not
// positive and finite, and a level with no open sector.
bool cs_level_space_build(const cs_tr1_level *level, double units_per_metre, cs_level_space *out, cs_error *err);
// The same; with seal_water the portals between a water room
// (CS_TR1_ROOM_WATER) and a room that is not one are left out, so they are
// walls: the water surface keeps a flooded room's water in.
bool cs_level_space_build_sealed(const cs_tr1_level *level, double units_per_metre, bool seal_water,
                                 cs_level_space *out, cs_error *err);
// Reads the file (cs_tr1_load: the strict reader) and builds its open space.
bool cs_level_space_load(const char *path, double units_per_metre, cs_level_space *out, cs_error *err);
void cs_level_space_free(cs_level_space *space);

// The grid a fluid's level field is baked on: the largest cell that is at
// most `max_cell` and divides a click (so every wall lies on nodes), nodes
// from a multiple of the cell at or below domain_min to domain_max and one
// node past it on each side.
typedef struct cs_level_grid {
    double origin[3];
    double cell;
    uint32_t dims[3];
    double band;           // distances clamped to +-band
} cs_level_grid;

// The layout for a given cell: origin a multiple of the cell one node below
// domain_min, dims to one node past domain_max. `field` names the field in
// the refusal (too many nodes). Shared by the level and geometry fields, so
// both bake on the same layout rule.
bool cs_level_grid_cover(const float domain_min[3], const float domain_max[3], double cell, double band,
                         const char *field, cs_level_grid *out, cs_error *err);

bool cs_level_grid_plan(const cs_level_space *space, const float domain_min[3], const float domain_max[3],
                        double max_cell, double band, cs_level_grid *out, cs_error *err);

// Bakes the signed distance at every node, x fastest then y then z
// (values[(z * dims[1] + y) * dims[0] + x]); values holds dims[0] dims[1]
// dims[2] floats. Per node only the lattice cells and thin walls within the
// band are visited (the lattice: every box and portal bound on each axis).
void cs_level_sdf_bake(const cs_level_space *space, const cs_level_grid *grid, float *values);

// The baked field sampled at p as the shaders sample it (trilinear, p
// clamped to the grid), in double.
double cs_level_sdf_sample(const cs_level_grid *grid, const float *values, const double p[3]);
