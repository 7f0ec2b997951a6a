// probe_shading.glsl — the fragment-side pieces shared by the shaders that
// light a fluid with the light probes (particles.frag, surface.frag): the
// vertex shader interpolates the probes' coefficients (probes.glsl), the
// fragment evaluates them for a view-space direction and shows the result
// as the geometry shows its patches (x = exposure B, x / (1 + x);
// geometry.frag), so a fluid and the wall next to it read alike.
#ifndef CS_PROBE_SHADING_GLSL
#define CS_PROBE_SHADING_GLSL

#include "../sh/sh.glsl"

// A view-space direction in the world frame the probes are in. The view
// rows (view_x, view_y, view_z) are a rotation and a translation, so the
// rotation's transpose turns a direction back.
vec3 cs_view_to_world(vec3 d, vec3 view_x, vec3 view_y, vec3 view_z)
{
    return d.x * view_x + d.y * view_y + d.z * view_z;
}

// The irradiance E(d) about world direction d (any length) from the
// interpolated coefficients; negative ringing clamped to 0.
vec3 cs_probe_irradiance_toward(vec3 sh[CS_SH_COUNT], vec3 d)
{
    return max(cs_sh_eval(sh, normalize(d)), vec3(0.0));
}

// The geometry's tone curve, x / (1 + x).
vec3 cs_probe_tone(vec3 x)
{
    return x / (1.0 + x);
}

#endif
