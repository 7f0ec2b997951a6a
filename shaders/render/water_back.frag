#version 450
// water_back.frag — the water's back faces into a depth image of their own
// (feature_water.c's depth pass): a fragment whose outward normal faces the
// eye is a front face and is dropped, so the depth test keeps the nearest
// back face, where the view ray leaves the water. By the normal, not the
// winding, so the mesh's triangle order does not matter.
#include "render_shared.h"

layout(push_constant) uniform Push { cs_render_water_push pc; };

layout(location = 0) in vec3 in_view_pos;
layout(location = 1) in vec3 in_view_normal;

void main()
{
    bool ortho = (pc.modes.x & CS_RENDER_FLAG_ORTHO) != 0u;
    vec3 to_eye = ortho ? vec3(0.0, 0.0, 1.0) : -in_view_pos;
    if (dot(in_view_normal, to_eye) > 0.0)
        discard;
}
