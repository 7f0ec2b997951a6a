#version 450
// particles.vert — sphere impostors by vertex pulling: 6 vertices (two
// triangles) per particle, read straight from the solver's storage buffers.
// The quad faces the eye and is sized to cover the sphere's silhouette cone
// exactly, so the fragment shader's ray hits every pixel the sphere covers.
#include "render_shared.h"
#include "render_common.glsl"
#include "../light/probes_shared.h"
#include "../sh/sh_shared.h"

layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Velocities { vec4 velocities[]; };
layout(std430, binding = 2) readonly buffer Densities { float densities[]; };
layout(std430, binding = 3) readonly buffer Materials { uint materials[]; };
layout(std430, binding = 4) readonly buffer MaterialTable { vec4 material_table[]; }; // rgb, rest density
// Light probes (shaders/light/probes_shared.h), read when misc.z is 1.
layout(std430, binding = 5) readonly buffer Probes { cs_probe_grid grid; cs_probe probes[]; };

layout(push_constant) uniform Push { cs_render_particles_push pc; };

layout(location = 0) out vec3 out_view_pos;            // the quad point, view space
layout(location = 1) flat out vec3 out_center;         // sphere centre, view space
layout(location = 2) flat out vec3 out_albedo;         // linear rgb
// The probes' irradiance coefficients at the particle's centre (world
// frame), and w of out_probe_on: exposure, 0 when the probes do not light it.
layout(location = 3) flat out vec4 out_probe_on;
layout(location = 4) flat out vec3 out_probe_sh[CS_SH_COUNT];

#include "../light/probes.glsl"

const vec2 k_corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));

vec3 particle_albedo(uint i)
{
    uint mode = pc.modes.y;
    // This fluid's materials start at misc.y in the frame's table.
    uint m = uint(pc.misc.y) + min(materials[i], max(pc.modes.w, 1u) - 1u);
    if (mode == CS_RENDER_COLOR_SPEED)
        return speed_color(length(velocities[i].xyz) / pc.params.y);
    if (mode == CS_RENDER_COLOR_DENSITY) {
        float ratio = densities[i] / max(material_table[m].w, 1e-20);
        return density_color((ratio - pc.params.z) / (pc.params.w - pc.params.z));
    }
    return material_table[m].rgb;
}

void main()
{
    uint i = uint(gl_VertexIndex) / 6u;
    vec2 corner = k_corners[uint(gl_VertexIndex) % 6u];
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    float r = pc.params.x;
    vec3 c = to_view(pc.view_x, pc.view_y, pc.view_z, positions[i].xyz);

    // The quad lies in the sphere's front tangent plane (facing the eye), so
    // every depth the fragment shader writes is >= the quad's own depth: the
    // fragment shader declares depth_greater and occluded particles can be
    // rejected by the early depth test.
    vec3 right = vec3(1, 0, 0), up = vec3(0, 1, 0);
    float half_size = r;
    vec3 quad_center = c + vec3(0.0, 0.0, r);
    if (!ortho) {
        float d = length(c);
        if (d <= r * 1.001) {
            // The eye is inside this sphere: drop it (a degenerate quad).
            gl_Position = vec4(0.0, 0.0, 2.0, 1.0);
            out_view_pos = c;
            out_center = c;
            out_albedo = vec3(0);
            out_probe_on = vec4(0.0);
            for (int k = 0; k < CS_SH_COUNT; k++)
                out_probe_sh[k] = vec3(0.0);
            return;
        }
        vec3 axis = c / d;
        vec3 helper = abs(axis.y) < 0.99 ? vec3(0, 1, 0) : vec3(1, 0, 0);
        right = normalize(cross(helper, axis));
        up = cross(axis, right);
        float front = d - r;
        quad_center = axis * front;
        half_size = front * r / sqrt(d * d - r * r); // the silhouette cone's radius at that distance
    }
    vec3 q = quad_center + (corner.x * right + corner.y * up) * half_size;
    gl_Position = to_clip(pc.proj, ortho, q);
    out_view_pos = q;
    out_center = c;
    out_albedo = particle_albedo(i);
    vec3 sh[CS_SH_COUNT];
    bool lit = pc.misc.z > 0.5 && grid.flags.x != 0u && cs_probes_interpolate(positions[i].xyz, sh);
    out_probe_on = vec4(0.0, 0.0, 0.0, lit ? grid.origin.w : 0.0);
    out_probe_sh = sh;
}
