#version 450
// arrows.vert — arrows by vertex pulling (feature_arrows.c): 6 vertices
// (3 lines) an arrow, the shaft from the point along its vector and two
// head strokes back from the tip, to each side across the line of sight so
// the head is seen from any side. Length scale |vector|, at most the max
// length; colour from the temperature (the vector's w) on the smoke ramp.
#include "render_shared.h"
#include "render_common.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Vectors { vec4 vectors[]; };

layout(push_constant) uniform Push { cs_render_arrows_push pc; };

layout(location = 0) out float out_depth;        // view depth, for fog
layout(location = 1) flat out vec3 out_color;    // linear rgb

vec3 ramp_color(float temperature)
{
    float t = clamp((temperature - pc.params.z) / max(pc.params.w - pc.params.z, 1e-6), 0.0, 1.0);
    return mix(vec3(CS_RENDER_SMOKE_COOL), vec3(CS_RENDER_SMOKE_HOT), t);
}

void main()
{
    uint i = uint(gl_VertexIndex) / CS_RENDER_ARROW_VERTICES;
    uint corner = uint(gl_VertexIndex) % CS_RENDER_ARROW_VERTICES;
    vec4 vector = vectors[i];
    float size = length(vector.xyz), len = min(pc.params.x * size, pc.params.y);
    out_color = ramp_color(vector.w);
    out_depth = 0.0;
    if (!(len > 0.0) || isinf(len)) { // no vorticity (or not finite): nothing to draw, all clipped
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    vec3 d = vector.xyz / size;
    vec3 tail = to_view(pc.view_x, pc.view_y, pc.view_z, positions[i].xyz);
    vec3 dir = vec3(dot(pc.view_x.xyz, d), dot(pc.view_y.xyz, d), dot(pc.view_z.xyz, d));
    vec3 tip = tail + len * dir;
    bool ortho = (uint(pc.misc.y) & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 sight = ortho ? vec3(0.0, 0.0, -1.0) : tip;
    vec3 side = cross(dir, sight);
    side = dot(side, side) > 1e-12 * dot(sight, sight) ? normalize(side) : vec3(1.0, 0.0, 0.0);
    vec3 back = tip - float(CS_RENDER_ARROW_HEAD) * len * dir;
    vec3 across = float(CS_RENDER_ARROW_HEAD_WIDTH) * len * side;
    // corners: 0 tail, 1 tip | 2 tip, 3 one side | 4 tip, 5 the other side
    vec3 p = corner == 0u ? tail : corner == 3u ? back + across : corner == 5u ? back - across : tip;
    gl_Position = to_clip(pc.proj, ortho, p);
    out_depth = -p.z;
}
