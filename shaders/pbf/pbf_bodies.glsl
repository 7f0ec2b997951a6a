// pbf_bodies.glsl — rigid bodies in PBF's density (lambda.comp, delta.comp):
// a body's volume counts as rest fluid beyond its faces, like a wall's
// half-space in fluid.glsl cs_boundary, through the walls' own table
// (shaders/bodies/body_share.glsl has the product over the body's planes).
// Include after fluid.glsl.
#ifndef PBF_BODIES_GLSL
#define PBF_BODIES_GLSL

vec2 cs_body_share_table(float d) { return cs_boundary_sample(d); }

#include "../bodies/body_share.glsl"

// (gradient of the share, pointing into the body, 1/length; share).
vec4 pbf_body_boundary(uint b, vec3 x)
{
    vec4 s = cs_body_share(b, x);
    return vec4(-fp.kernel.w * s.xyz, s.w);
}

#endif
