// probes.glsl — light probes in a shader: where a probe stands (the probe
// passes, probes_*.comp), trilinear interpolation of the irradiance
// coefficients of the 8 probes around a point, skipping probes flagged as
// inside geometry, and E(n) from the result. The includer
// declares the buffer `Probes { cs_probe_grid grid; cs_probe probes[]; }`
// (probes_shared.h) before including it. docs/light.md, "Light probes".
#ifndef CS_PROBES_GLSL
#define CS_PROBES_GLSL

#include "probes_shared.h"
#include "../sh/sh.glsl"

const float CS_PROBES_PI = 3.14159265358979324;

// Where probe p (x fastest, then y, then z) stands in the world.
vec3 cs_probe_position(uint p)
{
    uvec3 d = grid.dims.xyz;
    uvec3 ijk = uvec3(p % d.x, (p / d.x) % d.y, p / (d.x * d.y));
    return grid.origin.xyz + vec3(ijk) * grid.spacing.xyz;
}

// The irradiance coefficients at world point x. Each of the 8 surrounding
// probes gets its trilinear weight (outside the grid the point is clamped
// onto it); a flagged probe (inside geometry) gets 0 and the others are
// renormalised, so a wall's dark inside does not leak into the room.
// False (and zeros) when every surrounding probe is flagged.
bool cs_probes_interpolate(vec3 x, out vec3 c[CS_SH_COUNT])
{
    for (int i = 0; i < CS_SH_COUNT; i++)
        c[i] = vec3(0.0);
    uvec3 dims = grid.dims.xyz;
    vec3 g = clamp((x - grid.origin.xyz) / grid.spacing.xyz, vec3(0.0), vec3(dims - 1u));
    uvec3 lo = min(uvec3(g), dims - 1u);
    uvec3 hi = min(lo + 1u, dims - 1u);
    vec3 f = g - vec3(lo);
    float total = 0.0;
    for (uint corner = 0u; corner < 8u; corner++) {
        uvec3 pick = uvec3(corner & 1u, (corner >> 1) & 1u, (corner >> 2) & 1u);
        uvec3 ijk = mix(lo, hi, bvec3(pick));
        vec3 w3 = mix(1.0 - f, f, vec3(pick));
        float w = w3.x * w3.y * w3.z;
        uint p = ijk.x + dims.x * (ijk.y + dims.y * ijk.z);
        if (!(w > 0.0) || probes[p].irradiance[1].w < 0.5)
            continue;
        for (int i = 0; i < CS_SH_COUNT; i++)
            c[i] += w * probes[p].irradiance[i].rgb;
        total += w;
    }
    if (!(total > 1e-6))
        return false;
    for (int i = 0; i < CS_SH_COUNT; i++)
        c[i] /= total;
    return true;
}

// E(n) from irradiance coefficients (already convolved: no A_l here).
vec3 cs_probes_irradiance(vec3 c[CS_SH_COUNT], vec3 n)
{
    return max(cs_sh_eval(c, n), vec3(0.0));
}

#endif
