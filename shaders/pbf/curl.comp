#version 450
// "pbf: vorticity+xsph" (1/2): vorticity omega_i = curl v at particle i,
//   omega_i = sum_j V (v_j - v_i) x grad W_ij   (V = m / rho0, one value in PBF),
// stored as (omega, |omega|). In 2D omega lies along z. It also writes
// confine's neighbour record (v, |omega|): confine's loop then reads x* and
// that one array per neighbour instead of x*, velocities and curl.
#include "index.glsl"
#include "../fluid/fluid.glsl"
#include "../grid/grid.glsl"
#include "pbf_shared.h"
layout(local_size_x = CS_FLUID_GROUP) in;
layout(std430, binding = 1) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 2) readonly buffer Predicted { vec4 predicted[]; };
layout(std430, binding = 3) readonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 4) writeonly buffer Curl { vec4 curl[]; };
layout(std430, binding = 5) readonly buffer NbCounts { uint nb_counts[]; };
layout(std430, binding = 6) readonly buffer NbList { uint nb_list[]; };
layout(std430, binding = 7) readonly buffer NbState { uint nb_state[]; };
layout(std430, binding = 8) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 9) writeonly buffer VelocityCurl { vec4 velocity_curl[]; };
layout(push_constant) uniform Push { cs_pbf_push pc; };
void main()
{
    uint i = cs_linear_index();
    if (i >= pc.count)
        return;
    vec3 xi = predicted[i].xyz;
    vec3 vi = velocities[i].xyz;
    vec3 w = vec3(0.0);
    ivec3 c = CS_FLUID_CELL(xi);
    CS_NB_DECIDE(use_list, nb_state, nb_counts, keys, c, fp.grid_dims, i, pc.slot);
    cs_kernels kern = cs_kernels_load(); // read once, not per neighbour
    CS_GRID_FOR_LISTED_NEIGHBOURS(ranges, c, fp.grid_dims, nb_counts, nb_list, nb_state, use_list, i, j) {
        vec3 r = xi - CS_FLUID_XYZ(predicted[j]);
        float r2 = dot(r, r);
        if (j == i || r2 >= kern.h2)
            continue;
        w += pc.post.z * cross(CS_FLUID_XYZ(velocities[j]) - vi, cs_spiky_grad_r2_k(kern, r, r2));
    } CS_GRID_END_LISTED_NEIGHBOURS
    float w_len = length(w);
    curl[i] = vec4(w, w_len);
    velocity_curl[i] = vec4(vi, w_len);
}
