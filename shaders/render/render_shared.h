// render_shared.h — push constants and shading constants shared by the
// renderer (host/render/render.c and host/render/feature_*.c), its shaders (shaders/render/*) and the CPU
// reference in tests/test_render.c. Every push block fits the 128 bytes
// every Vulkan device guarantees (lavapipe offers exactly 128).
#ifndef RENDER_SHARED_H
#define RENDER_SHARED_H

#include "cs_shared.h"

// flags bits
#define CS_RENDER_FLAG_ORTHO 1u        // orthographic projection (2D scenes)
#define CS_RENDER_FLAG_ENCODE_SRGB 2u  // target is UNORM: the shader encodes sRGB itself

// color modes (same values as cs_color_mode in host/scene/scene.h)
#define CS_RENDER_COLOR_MATERIAL 0u
#define CS_RENDER_COLOR_SPEED 1u
#define CS_RENDER_COLOR_DENSITY 2u

// Lighting, in view space (camera looks down -z): one directional light
// from the upper left behind the viewer, Blinn-Phong, plus ambient.
#define CS_RENDER_LIGHT_X (-0.4)
#define CS_RENDER_LIGHT_Y 0.6
#define CS_RENDER_LIGHT_Z 0.7
#define CS_RENDER_AMBIENT 0.25
#define CS_RENDER_DIFFUSE 0.75
#define CS_RENDER_SPECULAR 0.3
#define CS_RENDER_SHININESS 48.0

// Colour maps: piecewise linear through 4 (speed) and 3 (density) stops.
#define CS_RENDER_SPEED_STOP0 0.05, 0.10, 0.45
#define CS_RENDER_SPEED_STOP1 0.05, 0.55, 0.90
#define CS_RENDER_SPEED_STOP2 0.95, 0.85, 0.25
#define CS_RENDER_SPEED_STOP3 0.95, 0.25, 0.10
#define CS_RENDER_DENSITY_LOW 0.15, 0.30, 0.90
#define CS_RENDER_DENSITY_MID 0.85, 0.85, 0.85
#define CS_RENDER_DENSITY_HIGH 0.90, 0.20, 0.15

// The domain box's line colour (linear RGB).
#define CS_RENDER_BOX_COLOR 0.55, 0.58, 0.62

// Background gradient: top = background * TOP, bottom = background * BOTTOM.
#define CS_RENDER_BACKGROUND_TOP 1.25
#define CS_RENDER_BACKGROUND_BOTTOM 0.55

// World → clip, as the shaders apply it: view = (dot(view_x, p), dot(view_y,
// p), dot(view_z, p)) with p = (xyz, 1); clip = (proj.x * vx, proj.y * vy,
// proj.z * vz + proj.w, ortho ? 1 : -vz).
struct cs_render_particles_push {
    vec4 view_x, view_y, view_z;   // rows of the world → view matrix
    vec4 proj;                     // sx, sy, a, b
    vec4 fog;                      // rgb fog colour (linear), density per world unit
                                   //   fog factor = exp(-density * max(depth - fog start, 0))
    vec4 params;                   // radius, speed_max, density_lo, density_hi (ρ/ρ0)
    uvec4 modes;                   // flags, color mode, vertices a particle (3; 6 from draw_args), material count
    vec4 misc;                     // x: fog start (view depth); y: first material of this fluid in the
                                   //   material table (modes.w of them); z: 1 = light probes on;
                                   //   w: the target's height in pixels (the one-pixel rule)
};

// A particle whose projected disc covers at most this many pixels (pi r^2,
// r in pixels) is drawn as one pixel, shaded as its centre faces the eye:
// the area the disc would have covered, on average. The triangle's
// inscribed circle is half a pixel's diagonal and the margin, so a rounding
// of the view's aspect can never leave the pixel uncovered.
#define CS_RENDER_ONE_PIXEL_AREA 1.0
#define CS_RENDER_ONE_PIXEL_MARGIN 0.001
#define CS_RENDER_PI 3.14159265358979

// Smoke sprites (smoke.vert/.frag, host/render/feature_smoke.c): additive
// gaussian splats, colour from the temperature ramp below (linear rgb).
#define CS_RENDER_SMOKE_COOL 0.50, 0.50, 0.53
#define CS_RENDER_SMOKE_HOT 1.00, 0.42, 0.08
#define CS_RENDER_SMOKE_EXTENT 3.0     // a sprite's quad reaches this many standard deviations

struct cs_render_smoke_push {
    vec4 view_x, view_y, view_z;   // rows of the world → view matrix
    vec4 proj;                     // sx, sy, a, b
    vec4 fog;                      // rgb (unused: smoke fades instead), density per world unit
    vec4 params;                   // sigma (m), intensity, cool T, hot T (K)
    uvec4 modes;                   // flags, particle count, has temperatures (0: all at the cool end), unused
    vec4 misc;                     // x: fog start (view depth); yzw unused
};

// Arrows (arrows.vert/.frag, host/render/feature_arrows.c): per arrow 3
// line segments, the shaft from the point to the tip and two head strokes
// back from the tip, HEAD of the length long, HEAD_WIDTH of it to each side.
#define CS_RENDER_ARROW_VERTICES 6u
#define CS_RENDER_ARROW_HEAD 0.3
#define CS_RENDER_ARROW_HEAD_WIDTH 0.15

struct cs_render_arrows_push {
    vec4 view_x, view_y, view_z;   // rows of the world → view matrix
    vec4 proj;                     // sx, sy, a, b
    vec4 fog;                      // rgb fog colour (linear), density per world unit
    vec4 params;                   // m per unit |vector|, max length (m), cool T, hot T (K)
    vec4 misc;                     // x: fog start (view depth), y: flags (as a float); zw unused
};

struct cs_render_box_push {
    vec4 view_x, view_y, view_z;
    vec4 proj;
    vec4 fog;
    vec4 box_min;                  // xyz; w unused
    vec4 box_max;                  // xyz; w unused
    vec4 misc;                     // x: fog start (view depth), y: flags (as a float)
};

// The 2D field image (field.vert/.frag): the domain rectangle, drawn under
// everything but the background. The rectangle is given in clip space by
// one corner and its two edges (the 2D camera is orthographic, so the map
// from the domain to the screen is affine); the fragment shader reads the
// cell under it from the field buffer. Colour: the map of the colour mode
// (material: material 0's colour), blended over the background gradient
// by the cell's fill, min(mass / rest mass, 1).
struct cs_render_field_push {
    vec4 corner_edge_x;            // xy: clip position of the domain's low corner; zw: clip step along +x edge
    vec4 edge_y_depth;             // xy: clip step along the +y edge; z: clip depth; w: speed_max
    vec4 top;                      // rgb: background at the top row (linear); w: density_lo (rho/rho0)
    vec4 bottom;                   // rgb: background at the bottom row; w: density_hi
    uvec4 modes;                   // flags, color mode, floats per cell, material count
    uvec4 dims;                    // cells along x, y; z: target height (pixels); w unused
};

// A fluid surface (surface.vert/.frag): an indexed triangle mesh pulled
// from the marching-cubes outputs (positions, normals: vec4 per vertex),
// lit by the particles' view-space light plus a hemisphere term (sky above,
// ground below the world's up, -gravity) for the ambient and for what the
// surface reflects (Schlick Fresnel from water's F0), fogged like the
// particles. With light probes (modes.y = 1 and the probes' shading flag
// on) the probes' irradiance replaces both: the diffuse x = exposure *
// albedo * E(n) and the reflected exposure * E(r) / pi, each shown as
// x / (1 + x) like the particles and the geometry; no highlight.
struct cs_render_surface_push {
    vec4 view_x, view_y, view_z;
    vec4 proj;
    vec4 fog;
    vec4 color;                    // rgb: albedo (the fluid's first material, linear); w: fog start (view depth)
    vec4 up;                       // xyz: the world's up in view space (unit); w unused
    uvec4 modes;                   // x: flags; y: 1 when the probes buffer is the scene's; zw unused
};

#define CS_RENDER_SURFACE_SKY 0.45, 0.60, 0.88    // hemisphere above (linear rgb)
#define CS_RENDER_SURFACE_GROUND 0.16, 0.15, 0.14 // hemisphere below
#define CS_RENDER_SURFACE_AMBIENT 0.45            // albedo × hemisphere
#define CS_RENDER_SURFACE_DIFFUSE 0.6             // albedo × directional light
#define CS_RENDER_SURFACE_SPECULAR 0.7
#define CS_RENDER_SURFACE_SHININESS 120.0
#define CS_RENDER_SURFACE_F0 0.02                 // water's reflectance at normal incidence
#define CS_RENDER_SURFACE_REFLECT 0.5             // how much of the reflected hemisphere shows

// Rigid bodies (bodies.vert/.frag): one non-indexed draw of every body's
// triangles, built once on the host in each body's frame about its centre
// of mass (3 vec4 per vertex: position + body index, normal, colour); the
// vertex shader places them with the pose in the bodies' GPU state buffer.
// Lit like the particles (shade()) and fogged like them.
struct cs_render_bodies_push {
    vec4 view_x, view_y, view_z;
    vec4 proj;
    vec4 fog;
    vec4 misc;                     // x: fog start (view depth); yzw unused
    uvec4 modes;                   // x: flags; y: bodies in the state buffer; zw unused
};

#define CS_RENDER_BODY_COLOR 0.62, 0.58, 0.52     // a body without a "color" (linear rgb)

struct cs_render_background_push {
    vec4 top;                      // linear rgb at the top row
    vec4 bottom;                   // linear rgb at the bottom row
    uvec4 modes;                   // flags
};

// A level's rooms (level.vert/.frag, host/render/feature_level.c): one draw
// per visible room, vertices pulled from the level's vertex buffer (three
// vec4 per vertex, cs_level_vertex in host/world/level_mesh.h) from
// first_vertex on; textures fetched nearest from RGBA8 textiles (TR1 has no
// filtering); a depth cue to black from fog_start to fog_end (view depth).
struct cs_render_level_push {
    vec4 view_x, view_y, view_z;
    vec4 proj;
    vec4 params;                   // x: fog start, y: fog end (<= start: no fog), z: flags, w: first vertex
    vec4 sprite_right;             // xyz: world direction of a sprite's right edge (the camera's, level); w: animation step
};

// The sky (sky.glsl; feature_sky.c draws it behind everything, the water
// reflects it): a procedural environment in world space, +y up. Above the
// horizon the colour runs from HORIZON to ZENITH with sqrt(elevation
// sine); below it, to GROUND within a sine of 1 / GROUND_FALLOFF. The sun
// adds a glow, SUN_GLOW x SUN_COLOR x max(cos, 0)^SUN_GLOW_POWER, and a
// disc SUN_DISC x SUN_COLOR within acos(SUN_DISC_COS) of its direction.
// All linear rgb; tests/test_water.c re-implements it in double.
#define CS_RENDER_SKY_ZENITH 0.16, 0.34, 0.78
#define CS_RENDER_SKY_HORIZON 0.66, 0.77, 0.90
#define CS_RENDER_SKY_GROUND 0.20, 0.19, 0.18
#define CS_RENDER_SKY_GROUND_FALLOFF 4.0
#define CS_RENDER_SUN_DIR -0.55, 0.62, -0.25  // towards the sun, normalised where used
#define CS_RENDER_SUN_COLOR 1.0, 0.95, 0.85
#define CS_RENDER_SUN_GLOW 0.25
#define CS_RENDER_SUN_GLOW_POWER 32.0
#define CS_RENDER_SUN_DISC 4.0
#define CS_RENDER_SUN_DISC_COS 0.9995

struct cs_render_sky_push {
    vec4 view_x, view_y, view_z;   // rows of the world → view matrix
    vec4 proj;                     // sx, sy, a, b
    uvec4 modes;                   // x: flags; yzw unused
};

// The floor tiles (tiles.vert/.frag, feature_tiles.c): a checker on the
// plane y = domain min, TILES_REACH domain sizes around the domain, square
// tiles of a tenth of the floor's longer side (the floor grid's cells),
// lit by the sun: albedo x (AMBIENT + (1 - AMBIENT) max(up . sun, 0)).
// Pushes cs_render_box_push: box_min.xyz the domain's low corner, .w the
// tile; box_max.xz the domain's high corner, .w the reach (m); misc.xy
// fog start and flags.
#define CS_RENDER_TILE_LIGHT 0.62, 0.60, 0.55
#define CS_RENDER_TILE_DARK 0.045, 0.05, 0.06
#define CS_RENDER_TILE_AMBIENT 0.45
#define CS_RENDER_TILES_REACH 2.0

// Water (water.vert/.frag, feature_water.c): a fluid surface drawn over the
// scene drawn before it (the renderer's scene copy): the refracted scene
// (Snell, index WATER_IOR) absorbed along the path in the water
// (Beer-Lambert, exp(-sigma L) per channel), the sky reflected with
// Schlick's Fresnel (F0 = WATER_F0), and the sun's highlight. docs/surface.md,
// "Water".
#define CS_RENDER_WATER_IOR 1.33
#define CS_RENDER_WATER_F0 0.02
#define CS_RENDER_WATER_SHININESS 1500.0
#define CS_RENDER_WATER_SUN 3.0            // the highlight's peak, x SUN_COLOR

struct cs_render_water_push {
    vec4 view_x, view_y, view_z;   // rows of the world → view matrix
    vec4 proj;                     // sx, sy, a, b
    vec4 fog;                      // rgb, density per world unit
    vec4 absorption;               // xyz: sigma per channel (1/m); w: fog start (view depth)
    vec4 sun;                      // xyz: towards the sun, view space (unit); w unused
    uvec4 modes;                   // x: flags; yzw unused
};

// Screen-space fluid (ssf_*.vert/.frag, host/render/water_ssf.c): a
// particle fluid drawn as water. Its particles are splatted as spheres
// into a view-depth image (the nearest) and, added up, into a thickness
// image (each sphere's chord x params.y, the particle's volume over the
// sphere's); spheres of SSF_RADIUS x the particles' drawn radius, so that
// a lattice's spheres overlap into one envelope. The depth is smoothed by
// a bilateral filter, separably and twice (modes.y: 0 along x, 1 along y; half-width
// params.z pixels, at most SSF_FILTER_MAX; depth falloff params.w metres);
// ssf_shade.frag then shades it with water_shading.glsl.
#define CS_RENDER_SSF_RADIUS 1.5
#define CS_RENDER_SSF_FILTER_MAX 12
#define CS_RENDER_SSF_VERTICES 6u          // a quad per particle

struct cs_render_ssf_push {
    vec4 view_x, view_y, view_z;   // rows of the world → view matrix
    vec4 proj;                     // sx, sy, a, b
    vec4 params;                   // sphere radius (m), chord scale, filter half-width (px), depth falloff (m)
    uvec4 modes;                   // x: flags; y: the smoothing's axis (0: x, 1: y); z: 1 blurs the
                                   //   thickness (plain Gaussian); w unused
};

#endif
