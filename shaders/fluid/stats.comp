#version 450
// "stats": per-particle terms the deterministic reductions sum or max
// (fluid_shared.h, CS_FLUID_STAT_*). A non-finite particle contributes only
// to the non-finite count, so one NaN does not hide every other figure.
#include "index.glsl"
#include "fluid.glsl"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) readonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 3) readonly buffer Densities { float densities[]; };
layout(std430, binding = 4) readonly buffer Materials { uint materials[]; };
layout(std430, binding = 5) writeonly buffer DensityError { float density_error[]; };
layout(std430, binding = 6) writeonly buffer Speed { float speed[]; };
layout(std430, binding = 7) writeonly buffer Kinetic { float kinetic[]; };
layout(std430, binding = 8) writeonly buffer NonFinite { float non_finite[]; };
layout(std430, binding = 9) writeonly buffer Outside { float outside[]; };
layout(std430, binding = 10) writeonly buffer Mass { float mass[]; };
layout(push_constant) uniform Push { cs_fluid_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 x = positions[i].xyz;
    vec3 v = velocities[i].xyz;
    uint m = min(materials[i], fp.counts.y - 1u);
    float rho = densities[i];
    bool finite = cs_finite(x) && cs_finite(v) && !isnan(rho) && !isinf(rho);
    float err = abs(rho / CS_REST_DENSITY(m) - 1.0);
    float s = length(v);
    density_error[i] = finite ? err : 0.0;
    speed[i] = finite ? s : 0.0;
    kinetic[i] = finite ? 0.5 * CS_MASS(m) * dot(v, v) : 0.0;
    non_finite[i] = finite ? 0.0 : 1.0;
    bool inside = all(greaterThanEqual(x, fp.domain_min.xyz)) && all(lessThanEqual(x, fp.domain_max.xyz));
    outside[i] = (cs_finite(x) && !inside) ? 1.0 : 0.0;
    mass[i] = CS_MASS(m);
}
