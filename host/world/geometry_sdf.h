// geometry_sdf.h — the scene's static geometry ("geometry", geometry.h) as a
// signed distance field for the particle fluids' collisions, on the level
// field's grid layout (level_sdf.h) so the same GPU code reads it
// (docs/light.md, "Fluid against the scene's geometry").
//
// Which space is solid: scene geometry is a triangle soup, often open (the
// Cornell walls are lone quads, its blocks have no bottom face), so there is
// no inside to test by parity or pseudonormals. The rule instead: every
// triangle is solid behind its front face (the side its vertices turn
// counter-clockwise around, geometry.h) to a depth `thickness`: the prism
// {q - s n : q in the triangle, 0 <= s <= thickness}, n its unit normal.
// The solid is the union of these prisms; a point is inside when it is
// inside one of them (that is the inside test).
//
// Consequences, for scene authors:
// - a wall or floor quad facing into the room is a slab of that thickness
//   behind it; a closed box or block facing out is solid to `thickness` under
//   each face, so a block at most 2 x thickness across (every face to the
//   centre) is solid throughout, a thicker one has an open core no particle
//   can reach without going through the shell;
// - a part thinner than `thickness` grows on its back side to `thickness`
//   (a lone plank is a slab that thick behind its front);
// - a triangle facing away from the fluid is solid on the fluid's side.
//
// The distance: outside the solid, the exact distance to the union of
// prisms (a prism is a triangle times an interval along its normal, whose
// distance is exact). Inside, minus the distance to the nearest triangle
// the point is behind: the way out through a front face, never through a
// prism's back or sides, so the seams where prisms meet inside the solid (a
// quad's diagonal, a block's edges) are not surfaces. For a closed convex
// part between thickness and 2 x thickness across (a box, a Cornell block)
// that is its exact signed distance everywhere. Where a prism's back or
// side borders open space (a thin part, a lone quad's rim) the field jumps
// there from minus the depth to 0. Values are clamped to +-band like the
// level's.
#pragma once

#include "level_sdf.h"

#include "geometry.h"

// Most (node, triangle) pairs one bake may visit: 50 ns each measured on
// one shared core (cornell_fluid: 176 700 visits in 9 ms), so the cap is
// about 25 s. Each triangle visits only the nodes within the band of its
// prism's bounding box.
#define CS_GEOMETRY_SDF_MAX_VISITS 500000000ull

// The grid for a scene without a level: cell exactly `cell`, nodes from a
// multiple of the cell one below domain_min to one past domain_max (the
// level grid's layout, level_sdf.h). Refuses a cell or band that is not
// positive and more than 2^28 nodes.
bool cs_geometry_grid_plan(const float domain_min[3], const float domain_max[3], double cell, double band,
                           cs_level_grid *out, cs_error *err);

// How many (node, triangle) pairs cs_geometry_sdf_bake visits.
uint64_t cs_geometry_sdf_visits(const cs_tri *tris, uint32_t tri_count, const cs_level_grid *grid,
                                double thickness);

// Bakes the signed distance (> 0 in open space) at every node of `grid`
// (values: dims[0] dims[1] dims[2] floats, x fastest). Deterministic (one
// thread, triangles in order). Refuses a thickness that is not positive and
// a bake past CS_GEOMETRY_SDF_MAX_VISITS, saying the counts (values is
// untouched then).
bool cs_geometry_sdf_bake(const cs_tri *tris, uint32_t tri_count, const cs_level_grid *grid, double thickness,
                          float *values, cs_error *err);

// The same rule at one point, in double and unclamped, over all triangles
// (the bake's reference, for tests).
double cs_geometry_sdf_at(const cs_tri *tris, uint32_t tri_count, double thickness, const double p[3]);
