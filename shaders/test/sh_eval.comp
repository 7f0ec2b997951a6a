#version 450
// Test shader (tests/test_sh.c): for every direction d[i], the 9 basis
// values and the SH irradiance of the radiance coefficients coeffs[27]:
// out[i * 3 + 0..2] = (Y0..3), (Y4..7), (Y8, E.rgb).
#include "index.glsl"
#include "../sh/sh.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Dirs { vec4 dirs[]; };
layout(std430, binding = 1) readonly buffer Coeffs { float coeffs[]; };
layout(std430, binding = 2) writeonly buffer Out { vec4 outs[]; };
layout(push_constant) uniform Push { uint count; } pc;
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 d = dirs[i].xyz;
    float y[CS_SH_COUNT];
    cs_sh_basis(d, y);
    vec3 radiance[CS_SH_COUNT];
    for (int k = 0; k < CS_SH_COUNT; k++)
        radiance[k] = vec3(coeffs[3 * k], coeffs[3 * k + 1], coeffs[3 * k + 2]);
    vec3 e = cs_sh_irradiance(radiance, d);
    outs[3 * i + 0] = vec4(y[0], y[1], y[2], y[3]);
    outs[3 * i + 1] = vec4(y[4], y[5], y[6], y[7]);
    outs[3 * i + 2] = vec4(y[8], e);
}
