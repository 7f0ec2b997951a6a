#version 450
// body_heat.comp — "vorton: body heat": one invocation for all bodies.
// sums[b] is the heat the vortons took from body b this step, sum V dT
// (in units of rho c_p: the fixed-shape reduction of collide.comp's heat
// terms). A body with a heat capacity C_b (thermal.y = rho c_p / C_b > 0)
// loses it: T_b - T0 -= sums[b] rho c_p / C_b. The excess T_b - T0 is
// kept in thermal.z and T_b rebuilt from it, so the balance does not round
// at the scale of T itself (an ulp of 400 K is 3e-5 K). A fixed reservoir
// (thermal.y = 0) and an adiabatic body (T_b = 0) stay as they are.
#include "vorton_shared.h"
#include "../bodies/bodies_shared.h"

layout(local_size_x = 1) in;
layout(push_constant) uniform PushBlock { vorton_push pc; };

layout(std430, binding = 0) readonly buffer Sums { float sums[]; };
layout(std430, binding = 1) buffer Bodies
{
    cs_body_set body_set;
    vec4 body_thermal[CS_BODIES_MAX];
};

void main()
{
    for (uint b = 0u; b < pc.counts.y; b++) {
        vec4 thermal = body_thermal[b];
        if (!(thermal.x > 0.0 && thermal.y > 0.0))
            continue;
        thermal.z -= sums[b] * thermal.y;
        thermal.x = pc.physics.w + thermal.z;
        body_thermal[b] = thermal;
    }
}
