#version 450
// irradiance_map.comp — a lat-long map (texel centres as sh_shared.h says)
// of the SH irradiance E(n) = sum A_l L_lm Y_lm(n) of the radiance
// coefficients coeffs[27] (what sum.comp wrote).
#include "index.glsl"
#include "sh.glsl"

layout(local_size_x = CS_SH_MAP_THREADS) in;
layout(std430, binding = 0) readonly buffer Coeffs { float coeffs[]; };
layout(std430, binding = 1) writeonly buffer Map { vec4 map[]; };
layout(push_constant) uniform Push { cs_sh_map_push pc; };

void main()
{
    uint p = cs_linear_index();
    if (p >= pc.width * pc.height)
        return;
    vec3 radiance[CS_SH_COUNT];
    for (int i = 0; i < CS_SH_COUNT; i++)
        radiance[i] = vec3(coeffs[3 * i], coeffs[3 * i + 1], coeffs[3 * i + 2]);
    vec3 n = cs_latlong_direction(p % pc.width, p / pc.width, pc.width, pc.height);
    map[p] = vec4(cs_sh_irradiance(radiance, n), 1.0);
}
