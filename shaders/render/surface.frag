#version 450
// surface.frag — water-like shading of a fluid surface: the albedo lit by
// the hemisphere (sky above, ground below) and the particles' directional
// light, then the hemisphere it reflects, weighted by Schlick's Fresnel
// term (little head-on, most at grazing angles), a highlight, and the
// particles' depth fog. Where the light probes light it (the scene's
// radiosity.probes, the L key), their irradiance gives both the diffuse
// light and what the surface reflects, tone-mapped like the particles.
#include "render_shared.h"
#include "render_common.glsl"
#include "probe_shading.glsl"

layout(push_constant) uniform Push { cs_render_surface_push pc; };

layout(location = 0) in vec3 in_view_pos;
layout(location = 1) in vec3 in_view_normal;
layout(location = 2) flat in vec4 in_probe_on;
layout(location = 3) in vec3 in_probe_sh[CS_SH_COUNT];

layout(location = 0) out vec4 out_color;

vec3 hemisphere(vec3 dir)
{
    return mix(vec3(CS_RENDER_SURFACE_GROUND), vec3(CS_RENDER_SURFACE_SKY), 0.5 + 0.5 * dot(dir, pc.up.xyz));
}

vec3 to_world(vec3 d)
{
    return cs_view_to_world(d, pc.view_x.xyz, pc.view_y.xyz, pc.view_z.xyz);
}

// The probes' light: diffuse albedo E(n) and, for the reflection, the
// irradiance about r over pi (the radiance a diffuse wall there would send,
// a blurred stand-in for the mirror image), each through the exposure and
// x / (1 + x) as the geometry shows its patches.
vec3 probe_lit(vec3 n, vec3 r, float fresnel)
{
    float exposure = in_probe_on.w;
    vec3 diffuse = cs_probe_irradiance_toward(in_probe_sh, to_world(n));
    vec3 around = cs_probe_irradiance_toward(in_probe_sh, to_world(r)) / 3.14159265;
    return mix(cs_probe_tone(exposure * pc.color.rgb * diffuse), cs_probe_tone(exposure * around),
               CS_RENDER_SURFACE_REFLECT * fresnel);
}

void main()
{
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    // Interpolated normals are shorter than 1 between vertices; a zero one
    // (a degenerate sliver) reads as facing the eye.
    vec3 to_eye = ortho ? vec3(0.0, 0.0, 1.0) : normalize(-in_view_pos);
    float len = length(in_view_normal);
    vec3 n = len > 1e-6 ? in_view_normal / len : to_eye;
    vec3 l = normalize(vec3(CS_RENDER_LIGHT_X, CS_RENDER_LIGHT_Y, CS_RENDER_LIGHT_Z));
    float diffuse = max(dot(n, l), 0.0);
    float cos_v = clamp(dot(n, to_eye), 0.0, 1.0);
    float fresnel = CS_RENDER_SURFACE_F0 + (1.0 - CS_RENDER_SURFACE_F0) * pow(1.0 - cos_v, 5.0);
    if (in_probe_on.w > 0.0) {
        vec3 probe = probe_lit(n, reflect(-to_eye, n), fresnel);
        out_color = output_color(apply_fog(probe, pc.fog, pc.color.w, -in_view_pos.z), pc.modes.x);
        return;
    }
    vec3 albedo = pc.color.rgb;
    vec3 lit = albedo * (CS_RENDER_SURFACE_AMBIENT * hemisphere(n) + CS_RENDER_SURFACE_DIFFUSE * diffuse);
    vec3 reflected = hemisphere(reflect(-to_eye, n));
    lit = mix(lit, reflected, CS_RENDER_SURFACE_REFLECT * fresnel);
    vec3 h = normalize(l + to_eye);
    float spec = diffuse > 0.0 ? pow(max(dot(n, h), 0.0), CS_RENDER_SURFACE_SHININESS) : 0.0;
    lit += vec3(CS_RENDER_SURFACE_SPECULAR * spec);
    lit = apply_fog(lit, pc.fog, pc.color.w, -in_view_pos.z);
    out_color = output_color(lit, pc.modes.x);
}
