// cs_shared.h — lets one header declare structs and constants that both C
// and GLSL read (push constants, buffer element layouts). Include it first
// in any *_shared.h. In GLSL, VULKAN is predefined by the compiler.
//
// Rules for shared structs: std430-compatible members only (uint, int,
// float, vec4, uvec4, ivec4, mat4); put vec4s first; no vec3.
#ifndef CS_SHARED_H
#define CS_SHARED_H

#ifdef VULKAN
#define CS_GLSL 1
#else
#include <stdint.h>
typedef uint32_t uint;
typedef struct vec4 { float x, y, z, w; } vec4;
typedef struct uvec4 { uint32_t x, y, z, w; } uvec4;
typedef struct ivec4 { int32_t x, y, z, w; } ivec4;
typedef struct mat4 { float m[16]; } mat4;   // column-major, as GLSL
#endif

#endif
