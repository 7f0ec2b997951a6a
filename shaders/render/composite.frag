#version 450
// composite.frag — the scene copy's pixel into the target, as it is: both
// have the target's format, so a UNORM target's encoded values and an sRGB
// target's decoded-and-encoded ones come back unchanged.
layout(binding = 0) uniform sampler2D scene_color;

layout(location = 0) out vec4 out_color;

void main()
{
    out_color = vec4(texelFetch(scene_color, ivec2(gl_FragCoord.xy), 0).rgb, 1.0);
}
