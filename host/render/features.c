// features.c — the render feature registry, in drawing order. One line per
// feature: X(name) for cs_feature_<name>, defined in feature_<name>.c; see
// feature.h.
#include "feature.h"

#define CS_RENDER_FEATURE_LIST(X)                                                                             \
    X(background) /* the gradient */                                                                         \
    X(sky)        /* a procedural sky over the gradient (render.features "sky", K) */                          \
    X(field)      /* a 2D grid pipeline's field: over the background, under the box and particles (no depth) */ \
    X(level)      /* a level's rooms, through portals */                                                      \
    X(geometry)   /* static geometry lit by radiosity */                                                      \
    X(tiles)      /* a checker floor (render.features "floor_tiles", T) */                                    \
    X(floor)      /* a grid on the domain's floor (render.features "floor_grid", F) */                        \
    X(box)        /* the domain box's edges */                                                                \
    X(bodies)     /* the rigid bodies */                                                                      \
    X(particles)  /* every fluid's particles */                                                               \
    X(arrows)     /* arrows (the vortons' vorticity) */                                                       \
    X(surface)    /* the fluids' surface meshes */                                                            \
    X(water)      /* surfaces drawn as water: reads everything drawn before it (feature.h, reads_scene) */     \
    X(smoke)      /* smoke sprites (additive): translucent, after everything opaque */                        \
    X(overlay)    /* text in the top-left corner, over everything */                                          \
    X(ui)         /* a user interface (the panel), over the overlay too */

#define DECLARE(name) extern const cs_render_feature cs_feature_##name;
CS_RENDER_FEATURE_LIST(DECLARE)

#define ENTRY(name) &cs_feature_##name,
const cs_render_feature *const cs_render_features[] = {CS_RENDER_FEATURE_LIST(ENTRY) NULL};
