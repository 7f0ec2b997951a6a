// pathtrace_shared.h — the progressive path tracer's shapes, read by C
// (pipelines/trace/pathtrace.c, the double-precision twin pipelines/trace/pathtrace_ref.c)
// and GLSL (shaders/pathtrace/). Estimator, RNG and tone map: docs/light.md,
// "Path tracer".
#ifndef PATHTRACE_SHARED_H
#define PATHTRACE_SHARED_H

#include "cs_shared.h"

#define CS_PT_THREADS 64u
// Longest path: camera (or probe) vertex plus this many bounces. Russian
// roulette ends almost every path far sooner; the cap only bounds the loop.
#define CS_PT_MAX_BOUNCES 64u
// Probe mode: every triangle is sampled by this many invocations, each with
// its own partial sums (summed on the host in double).
#define CS_PT_PROBE_LANES 64u
// Paths a pixel (or probe slot) in one dispatch at most. lavapipe (Mesa's
// gallivm, lp_exec_endloop) gives each shader invocation a budget of 65535
// loop iterations (LP_MAX_TGSI_LOOP_ITERATIONS), shared by every loop in the
// shader and counted per SIMD vector; once it is spent every loop ends, so
// the sample loop stops early and silently adds fewer paths than asked. A
// Cornell-box path of 12 bounces takes ~900 (every BVH node visited
// counts; 256 paths a dispatch got ~60-100 done), so 16 stay ~4x below.
// The sums stay exact for the paths that were added (their count is in
// sum.w): test_pathtrace_determinism checks both.
#define CS_PT_BATCH_SPP 16u

// flags
#define CS_PT_NEE 1u          // next-event estimation: one light sample per vertex
#define CS_PT_ROULETTE 2u     // Russian roulette from bounce rr_start on
#define CS_PT_PIXEL_LIST 4u   // invocation i traces pixel list[i] (the variance pass)

// Random numbers: u = hash(seed, key, sample, bounce * CS_PT_DIMS + dim),
// key the pixel (or probe slot). One fixed dimension per decision, so the
// CPU twin draws the very same numbers.
#define CS_PT_DIM_LIGHT 0u     // which emissive triangle
#define CS_PT_DIM_LIGHT_U 1u   // where on it (2 numbers)
#define CS_PT_DIM_LIGHT_V 2u
#define CS_PT_DIM_DIR_U 3u     // cosine-weighted bounce direction (2 numbers)
#define CS_PT_DIM_DIR_V 4u
#define CS_PT_DIM_ROULETTE 5u
#define CS_PT_DIM_START_U 6u   // camera: jitter in the pixel; probe: point on the triangle
#define CS_PT_DIM_START_V 7u
#define CS_PT_DIMS 8u

// No hit (a path that leaves the scene) in cs_pt_path_info.x.
#define CS_PT_NO_HIT 0xffffffffu

// One emissive triangle for light sampling, chosen in proportion to area:
// cdf.x is the running area fraction up to and including this one (the last
// is 1), cdf.y its area.
struct cs_pt_light {
    vec4 cdf;
    uvec4 tri;        // x: index in the BVH's triangle list; y, z, w 0
};

// Push constants (112 bytes). The camera: the ray through pixel (px, py)
// (py = 0 the top row) at jitter (jx, jy) in [0, 1)^2 is
// forward + sx right + sy up, sx = 2 (px + jx) / width - 1,
// sy = 1 - 2 (py + jy) / height; right and up carry tan(fov / 2) and the
// aspect ratio.
struct cs_pt_push {
    vec4 origin;      // xyz camera position; w: ray offset along the normal (m)
    vec4 forward;     // xyz unit view direction
    vec4 right;
    vec4 up;
    uint width;
    uint height;
    uint seed;
    uint flags;       // CS_PT_*
    uint max_bounces; // at most CS_PT_MAX_BOUNCES
    uint rr_start;    // first bounce where roulette may end a path
    uint light_count;
    uint item_count;  // pixels, listed pixels, or probe slots (triangles x lanes)
    uint spp;         // samples each item adds in this dispatch
    float light_area; // total emissive area (m^2): 1 / pdf of a light point
    uint pad0;
    uint pad1;
};

#endif
