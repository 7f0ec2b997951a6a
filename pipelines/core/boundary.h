// boundary.h — the boundary set of a fluid: everything its particles must
// stay out of, as one list of oriented half-spaces that every wall model
// reads (shaders/common/boundary_shared.h for the layout and the order,
// shaders/common/boundary.glsl for the shader side).
//
// Today the set is the fluid's domain box (2 dim axis-aligned faces, low face
// then high face per axis) followed by the scene's walls. Rigid bodies and a
// level's distance field are meant to join it through the same shader entry
// point, cs_boundary_nearest (boundary.glsl).
//
// The set lives inside the fluid's constant buffer (cs_fluid_params,
// fluid_shared.h), so it needs no descriptor binding: pipelines/fluid/fluid.c
// builds it here and uploads it with the rest of the constants.
#pragma once

#include "scene.h"

#include "../../shaders/common/boundary_shared.h"

// Fills `out` from the scene's dim, domain and walls (normals as the parser
// normalised them; in 2D every z is 0). False, with a message naming the
// scene, when it has more walls than the set holds.
bool cs_boundary_set_build(const cs_scene *scene, cs_boundary_set *out, cs_error *err);
