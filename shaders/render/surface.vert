#version 450
// surface.vert — a fluid surface by vertex pulling: the draw is indexed
// (the mesh's index buffer), so gl_VertexIndex is a vertex of the welded
// mesh; its position and normal come from the marching-cubes outputs.
// With light probes the vertex also carries the probes' irradiance
// coefficients at its position (the particles' interpolation,
// shaders/light/probes.glsl); they vary linearly across a triangle, as the
// trilinear interpolation does within a cell.
#include "render_shared.h"
#include "render_common.glsl"
#include "../light/probes_shared.h"
#include "../sh/sh_shared.h"

layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Normals { vec4 normals[]; };
// Light probes (shaders/light/probes_shared.h), read when modes.y is 1.
layout(std430, binding = 2) readonly buffer Probes { cs_probe_grid grid; cs_probe probes[]; };

layout(push_constant) uniform Push { cs_render_surface_push pc; };

layout(location = 0) out vec3 out_view_pos;
layout(location = 1) out vec3 out_view_normal;
// w: the exposure when the probes light this vertex, else 0.
layout(location = 2) flat out vec4 out_probe_on; // flat: a vertex the probes do not light must not blend its 0 exposure in
layout(location = 3) out vec3 out_probe_sh[CS_SH_COUNT];

#include "../light/probes.glsl"

void main()
{
    uint v = uint(gl_VertexIndex);
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 p = to_view(pc.view_x, pc.view_y, pc.view_z, positions[v].xyz);
    vec3 n = normals[v].xyz;
    // The view rows' xyz are a rotation: normals turn with them.
    out_view_normal = vec3(dot(pc.view_x.xyz, n), dot(pc.view_y.xyz, n), dot(pc.view_z.xyz, n));
    out_view_pos = p;
    vec3 sh[CS_SH_COUNT];
    bool lit = pc.modes.y == 1u && grid.flags.x != 0u && cs_probes_interpolate(positions[v].xyz, sh);
    out_probe_on = vec4(0.0, 0.0, 0.0, lit ? grid.origin.w : 0.0);
    out_probe_sh = sh;
    gl_Position = to_clip(pc.proj, ortho, p);
}
