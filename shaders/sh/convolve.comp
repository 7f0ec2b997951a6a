#version 450
// convolve.comp — brute-force irradiance: for every texel centre n of a
// lat-long map, E(n) = sum over samples s of L_s Omega_s max(n . d_s, 0).
// The samples are the environment reduced to blocks on the host
// (cs_env_samples_make: solid angles summed, radiance averaged), so the cost
// is map texels x samples. Each invocation sums in sample order.
#include "index.glsl"
#include "sh.glsl"

layout(local_size_x = CS_SH_MAP_THREADS) in;
layout(std430, binding = 0) readonly buffer Directions { vec4 dir_omega[]; }; // xyz unit direction, w solid angle
layout(std430, binding = 1) readonly buffer Radiance { vec4 radiance[]; };   // rgb, w unused
layout(std430, binding = 2) writeonly buffer Map { vec4 map[]; };
layout(push_constant) uniform Push { cs_sh_map_push pc; };

void main()
{
    uint p = cs_linear_index();
    if (p >= pc.width * pc.height)
        return;
    vec3 n = cs_latlong_direction(p % pc.width, p / pc.width, pc.width, pc.height);
    vec3 e = vec3(0.0);
    for (uint s = 0; s < pc.sample_count; s++) {
        vec4 dw = dir_omega[s];
        e += radiance[s].rgb * (dw.w * max(dot(n, dw.xyz), 0.0));
    }
    map[p] = vec4(e, 1.0);
}
