// level_shared.h — flags of a level vertex (cs_level_vertex in
// host/world/level_mesh.h), shared with shaders/render/level.vert/.frag.
#ifndef LEVEL_SHARED_H
#define LEVEL_SHARED_H

#define CS_LEVEL_VERTEX_ALPHA_TEST 1u // palette index 0 is transparent (object texture attribute != 0, sprites)
#define CS_LEVEL_VERTEX_SPRITE 2u     // offset is a camera-facing corner offset (metres)
#define CS_LEVEL_VERTEX_COLOUR 4u     // untextured: tile holds the sRGB colour r | g << 8 | b << 16
#define CS_LEVEL_VERTEX_STATIC 8u     // a face of a placed static mesh (not the room's own geometry)

#endif
