// water_ssf.h — screen-space fluid rendering of particle fluids drawn as
// water (van der Laan, Green and Sainz 2009): the water feature's
// (feature_water.c) part for particles. Its prepare splats the particles
// as spheres into a view-depth image (nearest) and a thickness image
// (added up), then smooths the depth with a bilateral filter; its record
// shades the result with the water's optics (shaders/render/ssf_shade.frag,
// water_shading.glsl) inside the renderer's rendering scope, writing depth.
#pragma once

#include "feature.h"

typedef struct cs_water_ssf {
    bool supported;            // the device draws into and samples R32F (and blends the thickness's format)
    VkFormat thickness_format; // R32F where it blends, else R16F
    cs_program_id depth, thickness, smooth, smooth_thickness, shade;
    // Sized to the target: the splats, the depth smoothed along x, then
    // along y, the thickness blurred the same way (its lattice of chords
    // would show as noise in the absorption).
    cs_image splat_depth, splat_zbuf, splat_thickness, smoothed_x, smoothed, thickness_x, blurred;
    bool drawn; // this frame's prepare splatted something
} cs_water_ssf;

bool cs_water_ssf_create(cs_renderer *r, cs_water_ssf *s, cs_error *err);
void cs_water_ssf_destroy(cs_renderer *r, cs_water_ssf *s);
// Whether a particle view is drawn as water by this part (the particle
// feature then leaves it out): r->can_splat_water, set by create.
bool cs_water_ssf_draws(const cs_renderer *r, const cs_particle_view *pv);
// Outside a rendering scope, after the scene copy: the splats and the smoothing.
void cs_water_ssf_prepare(cs_renderer *r, cs_water_ssf *s, cs_recorder *rec, const cs_render_view *view);
// Inside the scope: the shading, with the water's push constants.
void cs_water_ssf_record(cs_renderer *r, cs_water_ssf *s, cs_recorder *rec, const cs_render_view *view,
                         const struct cs_render_water_push *push);
