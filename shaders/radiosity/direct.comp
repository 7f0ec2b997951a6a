#version 450
// direct.comp — direct irradiance H on every patch from the scene's lights,
// with shadows (docs/light.md, "Radiosity"). One invocation per patch:
// punctual and spherical lights through light.glsl (the spherical-light
// attenuation and windows) and one shadow ray to the light's centre (to a
// sphere's surface); quad area lights by the fixed stratified grid of
// area_samples^2 cell centres, one shadow ray each, so that the result is
// the same every run. pipelines/light/radiosity_direct.c is the double twin.
#include "index.glsl"
#include "../geometry/geometry_shared.h"
#include "../light/light_shared.h"
#include "../radiosity/radiosity_shared.h"
layout(local_size_x = CS_RADIOSITY_GROUP) in;
layout(std430, binding = 0) readonly buffer Nodes { cs_bvh_node nodes[]; };
layout(std430, binding = 1) readonly buffer Tris { cs_tri tris[]; };
layout(std430, binding = 2) readonly buffer Patches { cs_patch patches[]; };
layout(std430, binding = 3) readonly buffer Lights { cs_light lights[]; };
layout(std430, binding = 4) readonly buffer AreaLights { cs_area_light area_lights[]; };
layout(std430, binding = 5) writeonly buffer Direct { vec4 direct[]; };
layout(push_constant) uniform Push { cs_direct_push pc; };

#include "../geometry/bvh.glsl"
#include "../light/light.glsl"

const float CS_DIRECT_PI = 3.14159265358979324;
// Shadow rays stop this fraction short of their end (the light itself).
const float CS_DIRECT_SHORT = 1e-4;

bool unoccluded(vec3 o, vec3 to, float t_max)
{
    vec3 unused;
    return bvh_cast(o, to, 0.0, t_max, true, unused) == CS_BVH_NO_HIT;
}

vec3 punctual(cs_light light, vec3 o, vec3 n)
{
    vec3 e = cs_light_irradiance(light, o, n);
    // A light of negative colour (a TR1 room light of negative intensity)
    // gives negative e: it is shadowed like any other and subtracts.
    vec3 a = abs(e);
    if (!(max(a.r, max(a.g, a.b)) > 0.0))
        return vec3(0.0);
    vec3 to = light.position_radius.xyz - o;
    float dist = length(to);
    // A sphere's shadow ray ends on its surface; inside it nothing shadows.
    float end = light.kind.x == CS_LIGHT_SPHERE ? 1.0 - light.position_radius.w / dist : 1.0;
    if (!(end > 0.0))
        return e;
    return unoccluded(o, to, end - CS_DIRECT_SHORT) ? e : vec3(0.0);
}

vec3 area(cs_area_light light, vec3 o, vec3 n)
{
    vec3 normal_area = cross(light.edge_u.xyz, light.edge_v.xyz);
    float quad_area = length(normal_area);
    vec3 nl = normal_area / quad_area;
    uint s = pc.area_samples;
    float weight = quad_area / float(s * s) / CS_DIRECT_PI;
    float sum = 0.0;
    for (uint a = 0u; a < s; a++) {
        for (uint b = 0u; b < s; b++) {
            vec3 x = light.corner.xyz + light.edge_u.xyz * ((float(a) + 0.5) / float(s)) +
                     light.edge_v.xyz * ((float(b) + 0.5) / float(s));
            vec3 w = x - o;
            float r2 = dot(w, w);
            float cos_p = dot(n, w), cos_l = -dot(nl, w);
            if (cos_p > 0.0 && cos_l > 0.0 && unoccluded(o, w, 1.0 - CS_DIRECT_SHORT))
                sum += cos_p * cos_l / (r2 * r2);
        }
    }
    return light.exitance.rgb * (sum * weight);
}

void main()
{
    uint i = cs_linear_index();
    if (i >= pc.patch_count)
        return;
    cs_patch p = patches[i];
    vec3 n = p.normal.xyz;
    // Lifted off the surface like the visibility rays, so a shadow ray
    // does not meet its own triangle.
    vec3 o = p.center_area.xyz + n * (1e-4 * sqrt(p.center_area.w));
    vec3 h = vec3(0.0);
    for (uint l = 0u; l < pc.light_count; l++)
        h += punctual(lights[l], o, n);
    for (uint l = 0u; l < pc.area_count; l++)
        h += area(area_lights[l], o, n);
    // Negative lights subtract, but no patch receives less than nothing
    // (TR1 clamps an item's light the same way). With only positive lights
    // h >= 0 and this changes no bit.
    direct[i] = vec4(max(h, vec3(0.0)), 0.0);
}
