#version 450
// particles.frag — ray-sphere intersection per pixel: discards outside the
// silhouette, writes the true depth of the sphere's surface (so spheres
// intersect each other and the box correctly), lights and fogs it. A
// one-pixel particle (in_center.w = 1, particles.vert) skips the ray: its
// pixel shows the point that faces the eye, at that point's depth.
#include "render_shared.h"
#include "render_common.glsl"
#ifdef CS_PARTICLES_PROBES
#include "probe_shading.glsl"
#endif

layout(push_constant) uniform Push { cs_render_particles_push pc; };

layout(location = 0) in vec3 in_view_pos;
layout(location = 1) flat in vec4 in_center;
layout(location = 2) flat in vec3 in_albedo;
#ifdef CS_PARTICLES_PROBES
layout(location = 3) flat in vec4 in_probe_on;
layout(location = 4) flat in vec3 in_probe_sh[CS_SH_COUNT];

// Lit by the light probes: the diffuse radiosity albedo E(n) shown as the
// geometry shows its patches (probe_shading.glsl), so a particle and the
// wall next to it read alike.
vec3 probe_lit(vec3 n_view)
{
    vec3 n = cs_view_to_world(n_view, pc.view_x.xyz, pc.view_y.xyz, pc.view_z.xyz);
    vec3 e = cs_probe_irradiance_toward(in_probe_sh, n);
    return cs_probe_tone(in_probe_on.w * in_albedo * e);
}
#endif

layout(location = 0) out vec4 out_color;
// The impostor triangle is in the sphere's front tangent plane: the true surface
// is never nearer than it, which keeps early depth rejection valid.
layout(depth_greater) out float gl_FragDepth;

// Where the pixel's ray meets the sphere (false: it misses), and the
// outward normal there.
bool ray_hit(bool ortho, float r, vec3 center, out vec3 hit, out vec3 n, out vec3 dir)
{
    vec3 origin = ortho ? in_view_pos : vec3(0.0);
    dir = ortho ? vec3(0.0, 0.0, -1.0) : normalize(in_view_pos);
    vec3 oc = origin - center;
    float b = dot(oc, dir);
    float disc = b * b - (dot(oc, oc) - r * r);
    if (disc < 0.0)
        return false;
    float t = -b - sqrt(disc);
    hit = origin + t * dir;
    n = (hit - center) / r;
    return true;
}

void main()
{
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    float r = pc.params.x;
    vec3 center = in_center.xyz;
    vec3 hit, n, dir;
    if (in_center.w > 0.5) {
        // One pixel: the vertex shader put the triangle at the front point,
        // around the pixel that holds its projection; the others go.
        vec4 clip = to_clip(pc.proj, ortho, in_view_pos);
        vec2 size = vec2(pc.misc.w * abs(pc.proj.y / pc.proj.x), pc.misc.w);
        vec2 pixel = (clip.xy / clip.w * 0.5 + 0.5) * size;
        if (any(notEqual(floor(gl_FragCoord.xy), floor(pixel))))
            discard;
        hit = in_view_pos;
        n = (hit - center) / r;
        dir = -n;
    } else if (!ray_hit(ortho, r, center, hit, n, dir)) {
        discard;
    }

    // A surface in front of the near plane (or past the far plane) is cut
    // away as a triangle would be: what lies behind it shows instead.
    vec4 clip = to_clip(pc.proj, ortho, hit);
    float depth = clip.z / clip.w;
    if (depth < 0.0 || depth > 1.0)
        discard;
    gl_FragDepth = depth;

#ifdef CS_PARTICLES_PROBES
    vec3 lit = in_probe_on.w > 0.0 ? probe_lit(n) : shade(in_albedo, normalize(n), -dir);
#else
    vec3 lit = shade(in_albedo, normalize(n), -dir);
#endif
    lit = apply_fog(lit, pc.fog, pc.misc.x, -hit.z);
    out_color = output_color(lit, pc.modes.x);
}
