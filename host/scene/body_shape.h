// body_shape.h — geometry of a rigid body's convex shape (scene.h cs_body),
// in double, in the body's own frame: its half-spaces and the vertices they
// meet in. The parser uses it to refuse polytopes that are empty or
// unbounded, the bodies pipeline for mass properties and wall contacts, the
// renderer for the faces it draws. A sphere has no planes and no vertices.
#pragma once

#include "scene.h"

// Most vertices a shape may have (a 16-plane polytope has at most
// 2 * 16 - 4 = 28 in 3D; the enumeration keeps duplicates out).
#define CS_BODY_MAX_VERTICES 64

// The shape's planes (n, d), n unit and pointing out: inside is
// dot(n, x) <= d. A box gives its 2 dim faces (low face then high face per
// axis), a polytope its own planes (2D: z parts are 0), a sphere none.
uint32_t cs_body_planes(const cs_body *body, int dim, double planes[CS_MAX_BODY_PLANES][4]);

// The vertices of { x : dot(n_k, x) <= d_k for all k } (3D: where three
// planes meet; 2D: two lines, z = 0), without duplicates (1e-9 relative).
// Returns the count; *bounded is false when the region reaches past 1e7
// (found by clipping it with a box that large). 0 vertices: empty or
// degenerate.
uint32_t cs_convex_vertices(const double (*planes)[4], uint32_t count, int dim,
                            double out[CS_BODY_MAX_VERTICES][3], bool *bounded);
