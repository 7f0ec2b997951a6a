#version 450
// composite.vert — one triangle covering the screen (the scene copy back
// into the target: render.c, feature.h's reads_scene).

void main()
{
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2)); // (0,0) (2,0) (0,2)
    gl_Position = vec4(p * 2.0 - 1.0, 1.0, 1.0);
}
