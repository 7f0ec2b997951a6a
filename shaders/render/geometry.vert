#version 450
// geometry.vert — the scene's static geometry lit by radiosity: one
// triangle per patch; each corner's colour is the area-weighted mean of
// the radiosity of the patches around it (geometry_shared.h), read from
// the frame's radiosity buffer.
#include "render_shared.h"
#include "render_common.glsl"
#include "geometry_shared.h"

layout(std430, binding = 0) readonly buffer Corners { vec4 corners[]; };       // xyz; w: the corner's weld (uint bits)
layout(std430, binding = 1) readonly buffer WeldStart { uint weld_start[]; }; // welds + 1
layout(std430, binding = 2) readonly buffer Welds { cs_weld_entry welds[]; };
layout(std430, binding = 3) readonly buffer Radiosity { vec4 radiosity[]; };  // per patch, rgb

layout(push_constant) uniform Push { cs_render_geometry_push pc; };

layout(location = 0) out vec3 out_view_pos;
layout(location = 1) out vec3 out_radiosity;

void main()
{
    vec4 c = corners[gl_VertexIndex];
    uint weld = floatBitsToUint(c.w);
    vec3 b = vec3(0.0);
    if (weld < pc.modes.z) {
        for (uint k = weld_start[weld]; k < weld_start[weld + 1u]; k++) {
            cs_weld_entry e = welds[k];
            if (e.patch_index < pc.modes.y)
                b += e.weight * radiosity[e.patch_index].rgb;
        }
    }
    out_radiosity = b;
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 vp = to_view(pc.view_x, pc.view_y, pc.view_z, c.xyz);
    out_view_pos = vp;
    gl_Position = to_clip(pc.proj, ortho, vp);
}
