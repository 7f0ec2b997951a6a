// probes_shared.h — light probes as C (pipelines/light/probes.c) and GLSL
// (shaders/light/probes_*.comp, probes.glsl) read them. A regular grid of
// probes over the scene geometry's bounds; each probe holds the irradiance
// it receives as 9 RGB SH coefficients (l <= 2, shaders/sh/sh_shared.h's
// convention), already convolved with the clamped cosine, so that
// E(n) = sum_i irradiance[i] Y_i(n). docs/light.md, "Light probes".
#ifndef PROBES_SHARED_H
#define PROBES_SHARED_H

#include "cs_shared.h"

// Where the probes are: probe (i, j, k) sits at origin + (i, j, k) * spacing,
// index i + dims.x (j + dims.y k). The probes buffer starts with this
// header, then holds dims.w records (cs_probe).
struct cs_probe_grid {
    vec4 origin;        // xyz the first probe's position; w: exposure the renderer shows B = albedo E through
    vec4 spacing;       // xyz distance between neighbours (m); w 0
    uvec4 dims;         // xyz probes per axis; w their count
    uvec4 flags;        // x: 1 when the renderer lights particles by the probes (the window's L key); yzw 0
};

// One probe: irradiance coefficients E_i = A_l L_i (rgb; w of irradiance[0]
// is the fraction of its rays that met a back face, w of irradiance[1] is
// 1 when the probe is usable and 0 when it is flagged as inside geometry).
struct cs_probe {
    vec4 irradiance[9];
};

// A probe whose rays meet back faces more often than this is taken to be
// inside solid geometry (or behind a wall): its light would be the dark
// inside of a wall, so interpolation gives it weight 0. In closed geometry
// (a level's rooms) a ray that meets nothing left the level, so it counts
// as a back face too: a probe in the rock around the rooms sees their
// backs on one side and nothing on the other.
#define CS_PROBE_INSIDE_FRACTION 0.25

// Rays one invocation of the gather pass casts (a chunk): lavapipe's shared
// loop budget of 65535 iterations per invocation (docs/architecture.md)
// allows about this many BVH walks with room to spare.
#define CS_PROBE_CHUNK 32u
// Floats one chunk writes: 27 SH sums (coefficient-major, [3 i + c]) and
// its count of back-face hits, padded to 7 vec4.
#define CS_PROBE_PARTIAL_VEC4 7u
#define CS_PROBE_GROUP 64u

// Push constants of both probe passes.
struct cs_probes_push {
    uint probe_count;
    uint rays;              // K directions a probe
    uint chunks;            // ceil(rays / CS_PROBE_CHUNK)
    uint light_count;       // punctual and spherical lights (cs_light)
    uint area_count;        // quad area lights (cs_area_light)
    uint area_samples;      // s x s cell centres an area light
    uint closed;            // 1: the geometry encloses its open space (a level): a miss counts as a back face
    uint pad1;
};

#ifndef CS_GLSL
typedef struct cs_probe_grid cs_probe_grid;
typedef struct cs_probe cs_probe;
typedef struct cs_probes_push cs_probes_push;
#endif

#endif
