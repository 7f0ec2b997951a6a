// world_draw.h — what a run draws of its world, built once for `cistern
// run` (window and headless) and `cistern bench --demo`, so the two draw the
// same frame.
#pragma once

#include "render.h"
#include "scene.h"
#include "world.h"

// The per-fluid arrays the frame points into; keep it alive until the
// frame is recorded.
typedef struct cs_world_draw {
    cs_particle_view views[CS_MAX_FLUIDS];
    cs_render_surface surfaces[CS_MAX_FLUIDS];
    cs_field_view field;
    cs_render_level level;
} cs_world_draw;

// Every fluid of the world: a grid pipeline in 2D shows its field as an
// image (its points, if it has them, are for the PLY dumps there, and are
// drawn in 3D); particle solvers show their particles; a fluid with a
// surface shows it, its particles, both, or itself as water (`draw`). Each fluid's particles
// keep their own materials; the render options (background, fog, colour
// mode) are the first fluid's. Bodies, the level (`level_baked`: TR1's baked
// light instead of the radiosity, when the level is lit by radiosity) and
// the radiosity geometry come too, each a drawable of the frame's list.
// The caller sets the target, camera, colour mode and overlay.
cs_render_frame cs_world_draw_frame(cs_world *world, cs_draw_mode draw, bool level_baked, cs_world_draw *arrays);
