#version 450
// particles.vert — sphere impostors by vertex pulling: one triangle per
// particle, read straight from the solver's storage buffers (3 vertices a
// particle; 6 when drawn from draw_args, whose count says 6: the last 3 are
// dropped). The triangle faces the eye and its inscribed circle is the
// sphere's silhouette cone, so the fragment shader's ray hits every pixel
// the sphere covers; one triangle instead of a two-triangle square halves
// the vertices and primitives for 30% more area (3 sqrt(3) r^2 vs 4 r^2).
// A sphere whose projected disc is at most one pixel's area
// (CS_RENDER_ONE_PIXEL_AREA) is drawn as one pixel around its projected
// centre instead (the fragment shader keeps only the pixel holding it): it
// always shows (a ray through the pixel centre would miss most of them)
// and its fragment shades it without a ray.
// CS_PARTICLES_PROBES (feature_particles.c's second program) adds the light
// probes' irradiance: 28 more flat floats a vertex that only a scene with
// probes pays for.
#include "render_shared.h"
#include "render_common.glsl"
#ifdef CS_PARTICLES_PROBES
#include "../light/probes_shared.h"
#include "../sh/sh_shared.h"
#endif

layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 2) readonly buffer Densities { float densities[]; };
layout(std430, binding = 3) readonly buffer Materials { uint materials[]; };
layout(std430, binding = 4) readonly buffer MaterialTable { vec4 material_table[]; }; // rgb, rest density
#ifdef CS_PARTICLES_PROBES
// Light probes (shaders/light/probes_shared.h), read when misc.z is 1.
layout(std430, binding = 5) readonly buffer Probes { cs_probe_grid grid; cs_probe probes[]; };
#endif

layout(push_constant) uniform Push { cs_render_particles_push pc; };

layout(location = 0) out vec3 out_view_pos;            // the triangle's point, view space
layout(location = 1) flat out vec4 out_center;         // sphere centre, view space; w = 1: one pixel
layout(location = 2) flat out vec3 out_albedo;         // linear rgb
#ifdef CS_PARTICLES_PROBES
// The probes' irradiance coefficients at the particle's centre (world
// frame), and w of out_probe_on: exposure, 0 when the probes do not light it.
layout(location = 3) flat out vec4 out_probe_on;
layout(location = 4) flat out vec3 out_probe_sh[CS_SH_COUNT];

#include "../light/probes.glsl"
#endif

// An equilateral triangle around the unit circle (its inscribed circle).
const vec2 k_corners[3] = vec2[](vec2(0.0, 2.0), vec2(-1.7320508, -1.0), vec2(1.7320508, -1.0));

vec3 particle_albedo(uint i)
{
    uint mode = pc.modes.y;
    // This fluid's materials start at misc.y in the frame's table.
    uint m = uint(pc.misc.y) + min(materials[i], max(pc.modes.w, 1u) - 1u);
    if (mode == CS_RENDER_COLOR_SPEED)
        return speed_color(length(velocities[i].xyz) / pc.params.y);
    if (mode == CS_RENDER_COLOR_DENSITY) {
        float ratio = densities[i] / max(material_table[m].w, 1e-20);
        return density_color((ratio - pc.params.z) / (pc.params.w - pc.params.z));
    }
    return material_table[m].rgb;
}

// Radius in pixels of the sphere's projected disc (at the image centre;
// off-axis discs stretch a little, which only moves where the one-pixel
// rule starts). misc.w is the target's height in pixels.
float projected_radius_px(bool ortho, float r, float d)
{
    float per_unit = abs(pc.proj.y) * 0.5 * pc.misc.w; // pixels per view unit at depth 1 (ortho: at any)
    return ortho ? r * per_unit : r / sqrt(d * d - r * r) * per_unit;
}

// A triangle around the pixel that holds the projected centre (its
// inscribed circle reaches the corners of a pixel around the centre, and a
// hair more), at the depth of the sphere's front point.
vec4 one_pixel_corner(bool ortho, vec3 front, vec2 corner)
{
    vec4 clip = to_clip(pc.proj, ortho, front);
    float height = pc.misc.w, width = height * abs(pc.proj.y / pc.proj.x); // the view's aspect
    float inradius_px = 0.70710678 + CS_RENDER_ONE_PIXEL_MARGIN;
    clip.xy += corner * inradius_px * clip.w * vec2(2.0 / width, 2.0 / height);
    return clip;
}

void set_probes(uint i)
{
#ifdef CS_PARTICLES_PROBES
    vec3 sh[CS_SH_COUNT];
    bool lit = pc.misc.z > 0.5 && grid.flags.x != 0u && cs_probes_interpolate(positions[i].xyz, sh);
    out_probe_on = vec4(0.0, 0.0, 0.0, lit ? grid.origin.w : 0.0);
    out_probe_sh = sh;
#endif
}

void main()
{
    uint per_particle = pc.modes.z; // 3, or 6 from draw_args
    uint i = uint(gl_VertexIndex) / per_particle, k = uint(gl_VertexIndex) % per_particle;
    vec2 corner = k_corners[min(k, 2u)];
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    float r = pc.params.x;
    vec3 c = to_view(pc.view_x, pc.view_y, pc.view_z, positions[i].xyz);
    float d = length(c);
    if (k >= 3u || (!ortho && d <= r * 1.001)) {
        // The second triangle of draw_args' 6, or the eye is inside this
        // sphere: dropped (behind the far plane).
        gl_Position = vec4(0.0, 0.0, 2.0, 1.0);
        out_view_pos = c;
        out_center = vec4(c, 0.0);
        out_albedo = vec3(0);
        set_probes(i);
        return;
    }
    vec3 axis = ortho ? vec3(0.0, 0.0, -1.0) : c / d; // eye to centre
    out_albedo = particle_albedo(i);
    set_probes(i);

    float r_px = projected_radius_px(ortho, r, d);
    if (CS_RENDER_PI * r_px * r_px <= CS_RENDER_ONE_PIXEL_AREA) {
        vec3 front = c - axis * r;
        gl_Position = one_pixel_corner(ortho, front, corner);
        out_view_pos = front;
        out_center = vec4(c, 1.0);
        return;
    }

    // The triangle lies in the sphere's front tangent plane (facing the eye),
    // so every depth the fragment shader writes is >= its own depth: the
    // fragment shader declares depth_greater and occluded particles can be
    // rejected by the early depth test.
    vec3 right = vec3(1, 0, 0), up = vec3(0, 1, 0);
    float half_size = r;
    vec3 quad_center = c + vec3(0.0, 0.0, r);
    if (!ortho) {
        vec3 helper = abs(axis.y) < 0.99 ? vec3(0, 1, 0) : vec3(1, 0, 0);
        right = normalize(cross(helper, axis));
        up = cross(axis, right);
        float front = d - r;
        quad_center = axis * front;
        half_size = front * r / sqrt(d * d - r * r); // the silhouette cone's radius at that distance
    }
    vec3 q = quad_center + (corner.x * right + corner.y * up) * half_size;
    gl_Position = to_clip(pc.proj, ortho, q);
    out_view_pos = q;
    out_center = vec4(c, 0.0);
}
