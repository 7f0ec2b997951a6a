// features.c — the render feature registry, in drawing order. One line per
// feature; see feature.h.
#include "feature.h"

extern const cs_render_feature cs_feature_background; // feature_background.c: the gradient
extern const cs_render_feature cs_feature_field;      // feature_field.c: a 2D grid pipeline's field
extern const cs_render_feature cs_feature_level;      // feature_level.c: a level's rooms, through portals
extern const cs_render_feature cs_feature_geometry;   // feature_geometry.c: static geometry lit by radiosity
extern const cs_render_feature cs_feature_box;        // feature_box.c: the domain box's edges
extern const cs_render_feature cs_feature_bodies;     // feature_bodies.c: the rigid bodies
extern const cs_render_feature cs_feature_particles;  // feature_particles.c: every fluid's particles
extern const cs_render_feature cs_feature_arrows;     // feature_arrows.c: arrows (the vortons' vorticity)
extern const cs_render_feature cs_feature_surface;    // feature_surface.c: the fluids' surface meshes
extern const cs_render_feature cs_feature_smoke;      // feature_smoke.c: smoke sprites (additive)
extern const cs_render_feature cs_feature_overlay;    // feature_overlay.c: text in the top-left corner
extern const cs_render_feature cs_feature_ui;         // feature_ui.c: a user interface (the panel)

const cs_render_feature *const cs_render_features[] = {
    &cs_feature_background,
    &cs_feature_field, // over the background, under the box and particles (2D: no depth)
    &cs_feature_level,
    &cs_feature_geometry,
    &cs_feature_box,
    &cs_feature_bodies,
    &cs_feature_particles,
    &cs_feature_arrows,
    &cs_feature_surface,
    &cs_feature_smoke, // translucent: after everything opaque
    &cs_feature_overlay, // over everything
    &cs_feature_ui, // over the overlay too: the panel
    NULL,
};
