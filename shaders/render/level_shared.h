// level_shared.h — flags of a level vertex (cs_level_vertex in
// host/world/level_mesh.h), shared with shaders/render/level.vert/.frag.
#ifndef LEVEL_SHARED_H
#define LEVEL_SHARED_H

#define CS_LEVEL_VERTEX_ALPHA_TEST 1u // palette index 0 is transparent (object texture attribute != 0, sprites)
#define CS_LEVEL_VERTEX_SPRITE 2u     // offset is a camera-facing corner offset (metres)

#endif
