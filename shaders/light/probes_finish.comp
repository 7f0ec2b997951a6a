#version 450
// probes_finish.comp — the second probe pass, one invocation per probe:
// sums its chunks' partial SH sums in chunk order (no atomics: the same
// frame gives the same bits), weights them by each direction's solid angle
// 4 pi / K, adds the scene's lights seen from the probe with a shadow ray
// each (a punctual or spherical light as a directional delta of its
// irradiance facing it; an area light as its s x s cell centres, each a
// delta of radiance M / pi times the cell's solid angle), flags a probe
// whose rays met back faces more than CS_PROBE_INSIDE_FRACTION of the time,
// and stores irradiance-ready coefficients E_i = A_l L_i.
// pipelines/light/probes.c's cs_probes_cpu is the double twin.
#include "index.glsl"
#include "../geometry/geometry_shared.h"
#include "../light/light_shared.h"
#include "../light/probes_shared.h"
#include "../radiosity/radiosity_shared.h"
#include "../sh/sh.glsl"
layout(local_size_x = CS_PROBE_GROUP) in;
layout(std430, binding = 0) readonly buffer Nodes { cs_bvh_node nodes[]; };
layout(std430, binding = 1) readonly buffer Tris { cs_tri tris[]; };
layout(std430, binding = 2) readonly buffer Lights { cs_light lights[]; };
layout(std430, binding = 3) readonly buffer AreaLights { cs_area_light area_lights[]; };
layout(std430, binding = 4) readonly buffer Partials { vec4 partials[]; };
layout(std430, binding = 5) buffer Probes { cs_probe_grid grid; cs_probe probes[]; };
layout(push_constant) uniform Push { cs_probes_push pc; };

#include "../geometry/bvh.glsl"
#include "../light/probes.glsl"
#include "../light/light.glsl"

// Shadow rays stop this fraction short of the light (as direct.comp's).
const float CS_PROBES_SHORT = 1e-4;

bool unoccluded(vec3 o, vec3 to, float t_max)
{
    vec3 unused;
    return bvh_cast(o, to, 0.0, t_max, true, unused) == CS_BVH_NO_HIT;
}

void add_delta(inout vec3 sums[CS_SH_COUNT], vec3 d, vec3 weight)
{
    float y[CS_SH_COUNT];
    cs_sh_basis(d, y);
    for (int i = 0; i < CS_SH_COUNT; i++)
        sums[i] += weight * y[i];
}

void add_punctual(inout vec3 sums[CS_SH_COUNT], cs_light light, vec3 o)
{
    vec3 to = light.position_radius.xyz - o;
    float dist = length(to);
    if (!(dist > 0.0))
        return;
    vec3 l = to / dist;
    vec3 e = cs_light_irradiance(light, o, l);
    if (!(max(e.r, max(e.g, e.b)) > 0.0))
        return;
    float end = light.kind.x == CS_LIGHT_SPHERE ? 1.0 - light.position_radius.w / dist : 1.0;
    if (end > 0.0 && !unoccluded(o, to, end - CS_PROBES_SHORT))
        return;
    add_delta(sums, l, e);
}

void add_area(inout vec3 sums[CS_SH_COUNT], cs_area_light light, vec3 o)
{
    vec3 normal_area = cross(light.edge_u.xyz, light.edge_v.xyz);
    float quad_area = length(normal_area);
    vec3 nl = normal_area / quad_area;
    uint s = pc.area_samples;
    vec3 radiance = light.exitance.rgb / CS_PROBES_PI;
    float cell = quad_area / float(s * s);
    for (uint a = 0u; a < s; a++) {
        for (uint b = 0u; b < s; b++) {
            vec3 x = light.corner.xyz + light.edge_u.xyz * ((float(a) + 0.5) / float(s)) +
                     light.edge_v.xyz * ((float(b) + 0.5) / float(s));
            vec3 w = x - o;
            float r2 = dot(w, w);
            float r = sqrt(r2);
            float cos_l = -dot(nl, w) / r;
            if (cos_l > 0.0 && unoccluded(o, w, 1.0 - CS_PROBES_SHORT))
                add_delta(sums, w / r, radiance * (cell * cos_l / r2));
        }
    }
}

void main()
{
    uint p = cs_linear_index();
    if (p >= pc.probe_count)
        return;
    vec3 sums[CS_SH_COUNT];
    for (int i = 0; i < CS_SH_COUNT; i++)
        sums[i] = vec3(0.0);
    float back = 0.0;
    for (uint c = 0u; c < pc.chunks; c++) {
        uint base = (p * pc.chunks + c) * CS_PROBE_PARTIAL_VEC4;
        float f[28];
        for (uint q = 0u; q < CS_PROBE_PARTIAL_VEC4; q++) {
            vec4 v = partials[base + q];
            f[4 * q] = v.x;
            f[4 * q + 1] = v.y;
            f[4 * q + 2] = v.z;
            f[4 * q + 3] = v.w;
        }
        for (int i = 0; i < CS_SH_COUNT; i++)
            sums[i] += vec3(f[3 * i], f[3 * i + 1], f[3 * i + 2]);
        back += f[27];
    }
    float weight = 4.0 * CS_PROBES_PI / float(pc.rays);
    for (int i = 0; i < CS_SH_COUNT; i++)
        sums[i] *= weight;
    vec3 o = cs_probe_position(p);
    for (uint l = 0u; l < pc.light_count; l++)
        add_punctual(sums, lights[l], o);
    for (uint l = 0u; l < pc.area_count; l++)
        add_area(sums, area_lights[l], o);
    float back_fraction = back / float(pc.rays);
    bool usable = back_fraction <= float(CS_PROBE_INSIDE_FRACTION);
    const float lobe[3] = float[3](float(CS_SH_A0), float(CS_SH_A1), float(CS_SH_A2));
    for (int i = 0; i < CS_SH_COUNT; i++) {
        int band = i == 0 ? 0 : i < 4 ? 1 : 2;
        probes[p].irradiance[i] = vec4(lobe[band] * sums[i], 0.0);
    }
    probes[p].irradiance[0].w = back_fraction;
    probes[p].irradiance[1].w = usable ? 1.0 : 0.0;
}
